#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

/// Sorts records that may not fit in memory, as a database's sort does: records are kept
/// in memory up to a number of bytes, and past it sorted and written as a run to an
/// unlinked temporary file in `$TMPDIR` (else /tmp); ``forEachSorted(_:)`` merges the runs.
/// What `ical validate` and `ical convert --split` keep per component of a file of any size
/// (UIDs, findings, places) goes through one.
///
/// A record is a key and a payload, both bytes; records come out ordered by key (bytes
/// compared as unsigned), and records with equal keys in the order they were added. Build
/// keys with ``Key`` so that the byte order is the order meant.
package final class RecordSorter {
    /// Builds a key whose byte order is the order of its parts, part by part.
    package struct Key {
        package private(set) var bytes: [UInt8] = []

        package init() {}

        /// An integer (negative ones before positive ones).
        package mutating func append(_ value: Int) {
            let biased = UInt64(bitPattern: Int64(value)) ^ (1 << 63)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: biased >> UInt64(shift))) }
        }

        /// A string, ordered by its UTF-8 bytes, a prefix before what extends it.
        package mutating func append(_ text: String) {
            for byte in text.utf8 {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
            bytes.append(0)
            bytes.append(0)
        }
    }

    /// Builds and reads payloads: integers and strings one after another.
    package struct Payload {
        package private(set) var bytes: [UInt8] = []
        private var position = 0

        package init() {}
        package init(_ bytes: [UInt8]) { self.bytes = bytes }

        package mutating func append(_ value: Int) {
            let raw = UInt64(bitPattern: Int64(value))
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: raw >> UInt64(shift))) }
        }

        package mutating func append(_ text: String?) {
            guard let text else { append(-1); return }
            append(text.utf8.count)
            bytes.append(contentsOf: text.utf8)
        }

        package mutating func int() -> Int {
            var raw: UInt64 = 0
            for index in 0..<8 { raw |= UInt64(bytes[position + index]) << UInt64(8 * index) }
            position += 8
            return Int(Int64(bitPattern: raw))
        }

        package mutating func string() -> String? {
            let count = int()
            guard count >= 0 else { return nil }
            defer { position += count }
            return String(decoding: bytes[position..<position + count], as: UTF8.self)
        }
    }

    private struct Record {
        var key: [UInt8]
        var payload: [UInt8]
        var sequence: Int
    }

    /// The bytes the records in memory may take before they are written out as a run.
    package let memoryLimit: Int
    private var records: [Record] = []
    private var heldBytes = 0
    private var sequence = 0
    private var descriptor: Int32 = -1
    private var runs: [(offset: Int, count: Int)] = []
    private var written = 0

    /// The number of records added.
    package private(set) var count = 0
    /// Whether records were written to the temporary file (for tests).
    package var spilled: Bool { !runs.isEmpty }

    /// A sorter that holds at most about `memoryLimit` bytes of records in memory.
    package init(memoryLimit: Int) {
        self.memoryLimit = max(memoryLimit, 1)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Adds a record.
    package func add(key: Key, payload: Payload) throws(ICalError) {
        records.append(Record(key: key.bytes, payload: payload.bytes, sequence: sequence))
        sequence += 1
        count += 1
        heldBytes += key.bytes.count + payload.bytes.count + 96
        if heldBytes >= memoryLimit { try spill() }
    }

    private static func precedes(_ left: Record, _ right: Record) -> Bool {
        let order = left.key.withUnsafeBufferPointer { a in
            right.key.withUnsafeBufferPointer { b -> Int32 in
                let common = min(a.count, b.count)
                let compared = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                if compared != 0 { return compared }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
        }
        return order != 0 ? order < 0 : left.sequence < right.sequence
    }

    private func spill() throws(ICalError) {
        if descriptor < 0 { descriptor = try FileIO.unlinkedTemporaryFile("sort") }
        records.sort(by: Self.precedes)
        var output: [UInt8] = []
        output.reserveCapacity(min(heldBytes, 1 << 22))
        let start = written
        for record in records {
            var header = Payload()
            header.append(record.key.count)
            header.append(record.payload.count)
            header.append(record.sequence)
            output += header.bytes
            output += record.key
            output += record.payload
            if output.count >= 1 << 20 {
                try FileIO.writeAll(output, to: descriptor, path: "<temporary file>")
                written += output.count
                output.removeAll(keepingCapacity: true)
            }
        }
        try FileIO.writeAll(output, to: descriptor, path: "<temporary file>")
        written += output.count
        runs.append((start, written - start))
        records.removeAll()
        heldBytes = 0
    }

    /// One run read back in order, `chunk` bytes at a time.
    private final class RunReader {
        let descriptor: Int32
        var offset: Int
        let end: Int
        let chunk: Int
        var buffer: [UInt8] = []
        var position = 0
        var head: Record?

        init(descriptor: Int32, offset: Int, count: Int, chunk: Int) {
            self.descriptor = descriptor
            self.offset = offset
            self.end = offset + count
            self.chunk = chunk
        }

        private func take(_ count: Int) throws(ICalError) -> [UInt8] {
            while buffer.count - position < count {
                let wanted = max(chunk, count)
                var chunk = [UInt8](repeating: 0, count: min(wanted, end - offset))
                guard !chunk.isEmpty else { throw ICalError(.io, "a temporary file ended early") }
                let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { throw ICalError(.io, "cannot read back a temporary file: \(String(cString: strerror(errno)))") }
                buffer = Array(buffer[position...]) + chunk[0..<read]
                position = 0
                offset += read
            }
            defer { position += count }
            return Array(buffer[position..<position + count])
        }

        func advance() throws(ICalError) {
            guard offset < end || position < buffer.count else { head = nil; return }
            var header = Payload(try take(24))
            let keyCount = header.int(), payloadCount = header.int(), sequence = header.int()
            head = Record(key: try take(keyCount), payload: try take(payloadCount), sequence: sequence)
        }
    }

    /// Calls `body` with each record's key and payload, in order. Call it once, after the
    /// last ``add(key:payload:)``.
    package func forEachSorted(_ body: (_ key: [UInt8], _ payload: Payload) throws -> Void) throws {
        guard spilled else {
            records.sort(by: Self.precedes)
            let sorted = records
            records = []
            for record in sorted { try body(record.key, Payload(record.payload)) }
            return
        }
        if !records.isEmpty { try spill() }
        // The runs' buffers share the memory limit (a megabyte each at most, 64 KiB at
        // least): with a megabyte each, a merge of many runs held more than the limit, and
        // more the more records there were.
        let chunk = min(1 << 20, max(64 << 10, memoryLimit / max(runs.count, 1) / 2))
        let readers = runs.map { RunReader(descriptor: descriptor, offset: $0.offset, count: $0.count, chunk: chunk) }
        for reader in readers { try reader.advance() }
        while true {
            var best: RunReader?
            for reader in readers {
                guard let head = reader.head else { continue }
                if let current = best?.head, !Self.precedes(head, current) { continue }
                best = reader
            }
            guard let best, let record = best.head else { break }
            try body(record.key, Payload(record.payload))
            try best.advance()
        }
    }
}
