import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Length-framed messages over a connected stream socket (``BrokerWire``): a 4-byte
/// big-endian length, then the message. Reads are bounded in size and, once a frame has
/// begun, in time, so a peer that sends half a frame and stops cannot hold a reader forever.
///
/// Sending and receiving may happen on different threads at once; two senders are kept
/// apart by a lock so that their frames never interleave.
package final class FrameChannel: @unchecked Sendable {
    /// The socket (owned: closed when the channel is released, or by ``closeDescriptor()``).
    package let descriptor: Int32
    private let sendLock = NSLock()
    private let state = NSLock()
    /// Shut down: every send and receive fails from then on.
    private var isShut = false
    /// The descriptor is closed (it may already be another file's: never use it again).
    private var isClosed = false
    /// The largest frame this side accepts.
    package let maximumFrame: Int

    package init(descriptor: Int32, maximumFrame: Int = BrokerWire.maximumFrame) {
        self.descriptor = descriptor
        self.maximumFrame = maximumFrame
    }

    deinit {
        if !isClosed { _ = Glibc.close(descriptor) }
    }

    /// Ends the connection in both directions: a reader blocked on it wakes with an error,
    /// and every later send and receive fails. The descriptor itself is closed only when the
    /// channel is released, so that no thread still using the channel can reach another file
    /// that took its number.
    package func close() {
        state.withLock {
            guard !isShut else { return }
            isShut = true
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    /// Whether ``close()`` was called (or the descriptor given away).
    private var ended: Bool { state.withLock { isShut || isClosed } }

    /// Closes this process's descriptor only, leaving the socket open for another process that
    /// has a copy (a child it was passed to): no `shutdown`, which would end it for all. Only
    /// for a channel no other thread uses.
    package func closeDescriptor() {
        state.withLock {
            guard !isClosed else { return }
            isShut = true
            isClosed = true
            _ = Glibc.close(descriptor)
        }
    }

    /// Two connected channels (a Unix stream socket pair, close-on-exec).
    package static func pair() throws -> (FrameChannel, FrameChannel) {
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0 else {
            throw Failure(message: "cannot make a socket pair (\(String(cString: strerror(errno))))")
        }
        return (FrameChannel(descriptor: descriptors[0]), FrameChannel(descriptor: descriptors[1]))
    }

    /// What went wrong on the channel.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    // MARK: Sending

    /// Sends one frame. Fails when the peer is gone or does not read for `timeout` seconds.
    package func send(_ payload: Data, timeout: Double = BrokerWire.frameTimeout) throws {
        guard payload.count <= maximumFrame else {
            throw Failure(message: "a message of \(payload.count) bytes is over the limit of \(maximumFrame) bytes")
        }
        var header = [UInt8](repeating: 0, count: 4)
        let length = UInt32(payload.count)
        header[0] = UInt8(length >> 24); header[1] = UInt8((length >> 16) & 0xff)
        header[2] = UInt8((length >> 8) & 0xff); header[3] = UInt8(length & 0xff)
        sendLock.lock()
        defer { sendLock.unlock() }
        guard !ended else { throw Failure(message: "the connection is closed") }
        let deadline = Deadline(seconds: timeout)
        try header.withUnsafeBytes { bytes throws in try write(bytes, deadline: deadline) }
        try payload.withUnsafeBytes { bytes throws in try write(bytes, deadline: deadline) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, deadline: Deadline) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if sent > 0 { offset += sent; continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(for: Int16(POLLOUT), deadline: deadline, doing: "sending")
                continue
            }
            throw Failure(message: "the connection is closed (\(String(cString: strerror(errno))))")
        }
    }

    // MARK: Receiving

    /// Receives one frame: nil when the peer closed the connection between frames. Waits
    /// without limit for the first byte when `idle` is nil, else at most `idle` seconds.
    package func receive(idle: Double? = nil) throws -> Data? {
        guard !ended else { return nil }
        var header = [UInt8](repeating: 0, count: 4)
        let first = try header.withUnsafeMutableBytes { bytes throws in
            try read(into: bytes, idle: idle, allowingEnd: true)
        }
        guard first else { return nil }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard length <= maximumFrame else {
            throw Failure(message: "a message of \(length) bytes is over the limit of \(maximumFrame) bytes")
        }
        var payload = Data(count: length)
        if length > 0 {
            _ = try payload.withUnsafeMutableBytes { bytes throws in
                try read(into: bytes, idle: BrokerWire.frameTimeout, allowingEnd: false)
            }
        }
        return payload
    }

    /// Fills `buffer`; false when the peer closed before the first byte and `allowingEnd`.
    /// Once the first byte is in, the rest must come within ``BrokerWire/frameTimeout``.
    private func read(into buffer: UnsafeMutableRawBufferPointer, idle: Double?, allowingEnd: Bool) throws -> Bool {
        var offset = 0
        var deadline = idle.map { Deadline(seconds: $0) }
        while offset < buffer.count {
            let count = recv(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_DONTWAIT))
            if count > 0 {
                if offset == 0 { deadline = Deadline(seconds: BrokerWire.frameTimeout) }
                offset += count
                continue
            }
            if count == 0 {
                if offset == 0 && allowingEnd { return false }
                throw Failure(message: "the connection closed in the middle of a message")
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                if offset == 0 && allowingEnd && (errno == ECONNRESET || errno == EBADF) { return false }
                throw Failure(message: "the connection failed (\(String(cString: strerror(errno))))")
            }
            if let deadline {
                try wait(for: Int16(POLLIN), deadline: deadline, doing: offset == 0 ? "waiting for a message" : "receiving a message")
            } else {
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, -1)
            }
        }
        return true
    }

    private func wait(for events: Int16, deadline: Deadline, doing what: String) throws {
        while true {
            let left = deadline.remaining
            guard left > 0 else { throw Failure(message: "timed out \(what) after \(Deadline.describe(deadline.budget))") }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000 + 1, 60_000)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw Failure(message: "the connection failed (\(String(cString: strerror(errno))))") }
        }
    }
}
