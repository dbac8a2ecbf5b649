#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

/// Records kept in the order they were added, in an unlinked temporary file in `$TMPDIR`
/// (else /tmp) once they pass a megabyte: a list of any length in bounded memory, read back
/// in order as often as needed (``forEach(_:)``). What an import keeps per item (its places,
/// the files a batch stages) goes through one, beside ``RecordSorter`` for what must come
/// out sorted.
package final class RecordLog {
    private var buffer: [UInt8] = []
    private var descriptor: Int32 = -1
    private var written = 0
    /// The number of records added.
    package private(set) var count = 0

    package init() {}

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Adds a record.
    package func append(_ payload: RecordSorter.Payload) throws(ICalError) {
        var length = RecordSorter.Payload()
        length.append(payload.bytes.count)
        buffer += length.bytes
        buffer += payload.bytes
        count += 1
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws(ICalError) {
        guard !buffer.isEmpty else { return }
        if descriptor < 0 { descriptor = try FileIO.unlinkedTemporaryFile("log") }
        try FileIO.writeAll(buffer, to: descriptor, path: "<temporary file>")
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with each record, in the order they were added; records added meanwhile
    /// are not visited.
    package func forEach(_ body: (inout RecordSorter.Payload) throws -> Void) throws {
        // What is on disk, a megabyte at a time, then what is still in memory.
        var pending: [UInt8] = []
        var position = 0
        var offset = 0
        let end = written
        let held = buffer
        func take(_ wanted: Int) throws(ICalError) -> [UInt8]? {
            while pending.count - position < wanted {
                if offset >= end { return nil }
                var chunk = [UInt8](repeating: 0, count: min(max(1 << 20, wanted), end - offset))
                let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { throw ICalError(.io, "cannot read back a temporary file: \(String(cString: strerror(errno)))") }
                pending = Array(pending[position...]) + chunk[0..<read]
                position = 0
                offset += read
            }
            defer { position += wanted }
            return Array(pending[position..<position + wanted])
        }
        while let header = try take(8) {
            var length = RecordSorter.Payload(header)
            guard let bytes = try take(length.int()) else { throw ICalError(.io, "a temporary file ended early") }
            var record = RecordSorter.Payload(bytes)
            try body(&record)
        }
        var index = 0
        while index < held.count {
            var length = RecordSorter.Payload(Array(held[index..<index + 8]))
            let count = length.int()
            var record = RecordSorter.Payload(Array(held[index + 8..<index + 8 + count]))
            try body(&record)
            index += 8 + count
        }
    }
}
