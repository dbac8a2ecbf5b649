#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sorts fixed-size records that may not fit in memory, as a database sort does: records
/// are kept in memory up to a capacity, and past it each full buffer is sorted and written
/// to an unlinked temporary file (a run); ``sorted()`` then merges the runs, reading each a
/// few thousand records at a time. Memory holds the capacity's records and one read buffer
/// per run, whatever the number of records.
///
/// What a streamed read of a large file uses to bring together what belongs together (a
/// series' master and overrides far apart in the file) without holding the file.
package final class SpillSorter<Record: BitwiseCopyable> {
    private let capacity: Int
    private let precedes: (Record, Record) -> Bool
    private var buffer: [Record] = []
    /// The temporary file of the runs (-1: none yet), and each run's first record and count.
    private var descriptor: Int32 = -1
    private var runs: [(start: Int, count: Int)] = []
    private var written = 0
    /// The records added.
    package private(set) var count = 0

    /// A sorter holding at most `capacity` records in memory, ordered by `precedes`.
    package init(capacity: Int, by precedes: @escaping (Record, Record) -> Bool) {
        self.capacity = max(capacity, 16)
        self.precedes = precedes
        buffer.reserveCapacity(min(self.capacity, 1 << 16))
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// How many sorted runs went to disk (0: everything is in memory).
    package var spilledRuns: Int { runs.count }

    /// Adds a record, spilling a sorted run when the buffer is full.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` when the temporary file cannot be made or
    ///   written (a full disk).
    package func append(_ record: Record) throws(ICalError) {
        buffer.append(record)
        count += 1
        if buffer.count >= capacity { try spill() }
    }

    private func spill() throws(ICalError) {
        guard !buffer.isEmpty else { return }
        buffer.sort(by: precedes)
        if descriptor < 0 { descriptor = try FileIO.unlinkedTemporaryFile("sort") }
        let stride = MemoryLayout<Record>.stride
        let failure: Int32 = buffer.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let result = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(written * stride + done))
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += result
            }
            return 0
        }
        if failure != 0 {
            throw ICalError(.io, "cannot write a temporary file: \(String(cString: strerror(failure))) (set TMPDIR to a folder with room)")
        }
        runs.append((written, buffer.count))
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with every record added, in order (records that tie keep no particular
    /// order), until it returns false. The sorter is spent afterwards.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` when a run cannot be read back.
    package func sorted(_ body: (Record) throws(ICalError) -> Bool) throws(ICalError) {
        if runs.isEmpty {
            buffer.sort(by: precedes)
            for record in buffer where !(try body(record)) { break }
            buffer = []
            return
        }
        try spill()
        buffer = []
        let chunk = max(256, min(1 << 14, (capacity / max(runs.count, 1))))
        var readers = runs.map { RunReader(start: $0.start, count: $0.count, chunk: chunk) }
        for index in readers.indices { try readers[index].fill(descriptor) }
        // A binary min-heap of the runs by their heads.
        var heap = Array(readers.indices.filter { readers[$0].head != nil })
        func less(_ a: Int, _ b: Int) -> Bool { precedes(readers[heap[a]].head!, readers[heap[b]].head!) }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                var smallest = left
                if left + 1 < heap.count, less(left + 1, left) { smallest = left + 1 }
                guard less(smallest, parent) else { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        while let top = heap.first {
            guard try body(readers[top].head!) else { return }
            try readers[top].advance(descriptor)
            if readers[top].head == nil {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }

    /// One run read back a chunk at a time.
    private struct RunReader {
        var next: Int
        var left: Int
        let chunk: Int
        var records: [Record] = []
        var index = 0

        init(start: Int, count: Int, chunk: Int) {
            next = start
            left = count
            self.chunk = chunk
        }

        var head: Record? { index < records.count ? records[index] : nil }

        mutating func advance(_ descriptor: Int32) throws(ICalError) {
            index += 1
            if index >= records.count { try fill(descriptor) }
        }

        mutating func fill(_ descriptor: Int32) throws(ICalError) {
            index = 0
            let wanted = min(chunk, left)
            guard wanted > 0 else { records = []; return }
            let stride = MemoryLayout<Record>.stride
            var failure: Int32 = 0
            let start = next
            records = [Record](unsafeUninitializedCapacity: wanted) { buffer, initialized in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                var done = 0
                while done < wanted * stride {
                    let result = pread(descriptor, raw.baseAddress! + done, wanted * stride - done, off_t(start * stride + done))
                    if result < 0 { if errno == EINTR { continue }; failure = errno; break }
                    if result == 0 { failure = EIO; break }
                    done += result
                }
                initialized = failure == 0 ? wanted : 0
            }
            if failure != 0 {
                throw ICalError(.io, "cannot read a temporary file back: \(String(cString: strerror(failure)))")
            }
            next += wanted
            left -= wanted
        }
    }
}
