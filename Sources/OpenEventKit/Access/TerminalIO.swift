#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
import Foundation

/// Writing to and reading lines from a terminal descriptor, for the system prompt and the
/// trusted helpers (`ical ui ...`): writes retry on EINTR, reads wait with `poll` up to a
/// deadline, one byte at a time so nothing after the line end is consumed.
package enum TerminalIO {
    /// Writes all of `text`; false when the terminal is gone.
    @discardableResult
    package static func write(_ text: String, to descriptor: Int32) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// One line without its line end (at most `limit` bytes kept), or nil at end of file with
    /// nothing typed, on an error, or when `timeout` seconds pass.
    package static func readLine(from descriptor: Int32, timeout: Double, limit: Int) -> String? {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, Double(Int32.max))))
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if ready == 0 { return nil }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return nil
            }
            if count == 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 0x0A || byte == 0x0D { return String(decoding: bytes, as: UTF8.self) }
            if bytes.count < limit { bytes.append(byte) }
        }
    }
}
