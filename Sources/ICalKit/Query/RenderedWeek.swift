#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One week's listings written ahead in one output format: the query index's rendered weeks.
///
/// A warm store query used to read each occurrence's row and write it in its format, about
/// five microseconds an occurrence. A rendered week holds, for every occurrence of a week of
/// the occurrence cache, in the query's order, its entry as
/// ``OccurrenceFormatter/appendEntry(_:format:jsonParts:to:)`` writes it, beside what a query
/// chooses entries by (instants, component kind, collection) and the agenda's day. A query
/// then copies the entries of its weeks, with what goes between them (the agenda's day
/// headings) written by the same ``OccurrenceFormatter/ListingWriter``: the bytes are those
/// of writing the listings (``OccurrenceFormatter/RenderedWeeksWriter``).
///
/// Layout (integers little-endian): the version byte; `UInt16` count of collections, each a
/// `UInt16` length and its UTF-8 name; `UInt32` count of entries; each entry's head: `Int64`
/// start and end instants, `Int32` agenda day (days since 1970-01-01; `Int32.min` in JSON
/// and CSV), `UInt8` kind (1 VEVENT, 2 VTODO, 4 VJOURNAL), `UInt16` collection, `UInt32`
/// length; then the entries' bytes, one after another in the heads' order. A JSON entry
/// starts with the comma that goes before it (the first entry a query writes leaves it
/// out), so that the entries a query writes in a row are one run of bytes, written as they
/// are.
/// ``init(validating:)`` checks every head and the lengths' sum before anything is read.
package struct RenderedWeek: Sendable {
    /// The layout version, first byte of every rendered week.
    package static let version: UInt8 = 2

    /// The memory the bytes are in, from its start (reused by the weeks of one read).
    private let storage: RenderedStorage
    /// The collections' names, by their number in the entries.
    package let collections: [String]
    /// Where the first entry's head starts.
    private let entriesStart: Int
    /// Where the first entry's bytes start.
    private let bytesStart: Int
    /// The number of entries.
    package let count: Int
    /// The week's length in bytes.
    private let byteCount: Int
    /// Whether the heads' starts never go down and no entry ends before it starts.
    private let startsInOrder: Bool
    /// The kinds of its entries, together (bits as ``Head/kind``).
    private let kinds: UInt8
    /// The last head's start (`Int64.min` when there is none).
    private let lastStart: Int64

    /// A rendered week read from bytes, or nil when they are not a whole rendered week of
    /// this version (every length, collection number and kind checked).
    package init?(validating bytes: [UInt8]) {
        let storage = RenderedStorage(capacity: bytes.count)
        bytes.withUnsafeBytes { storage.base.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(storage.base), byteCount: $0.count) }
        var validation = Validation(byteCount: bytes.count)
        guard validation.advance(storage.base, available: bytes.count) else { return nil }
        self.init(validated: validation, storage: storage)
    }

    /// The week that `validation` checked at the start of `storage`, or nil when the bytes
    /// it saw are not a whole rendered week.
    package init?(validated validation: Validation, storage: RenderedStorage) {
        guard let parsed = validation.result, validation.byteCount <= storage.capacity else { return nil }
        self.storage = storage
        self.collections = parsed.collections
        self.entriesStart = parsed.entriesStart
        self.bytesStart = parsed.bytesStart
        self.count = parsed.count
        self.byteCount = validation.byteCount
        self.startsInOrder = parsed.startsInOrder
        self.kinds = parsed.kinds
        self.lastStart = parsed.lastStart
    }

    /// The check of a rendered week's bytes, fed as they arrive: a week read in pieces is
    /// checked while each piece is still in the processor's cache (a month of a large store
    /// is megabytes, and a second pass over them waits on memory at every entry).
    ///
    /// Each head whole, its kind and calendar known: the fields ``RenderedWeek/Heads``
    /// reads at fixed offsets (start 0, end 8, day 16, kind 20, collection 21, length 23);
    /// and the lengths adding up to exactly the bytes after the heads.
    package struct Validation {
        /// The week's length in bytes.
        package let byteCount: Int
        private var collections: [String]?
        private var entriesStart = 0
        private var count = 0
        private var checked = 0
        /// The sum of the lengths of the heads checked.
        private var lengths = 0
        private var failed = false
        private var startsInOrder = true
        private var kinds: UInt8 = 0
        private var lastStart = Int64.min

        /// A check of a week of `byteCount` bytes.
        package init(byteCount: Int) {
            self.byteCount = byteCount
            failed = byteCount < 0
        }

        /// Checks what the first `available` bytes of the week (at `base`) allow; false once
        /// they cannot be the start of a rendered week. `available` only grows, up to
        /// ``byteCount``.
        package mutating func advance(_ base: UnsafeRawPointer, available: Int) -> Bool {
            guard !failed, available >= 0, available <= byteCount else {
                failed = true
                return false
            }
            if collections == nil {
                // The header (version, calendars, entry count) is read once it is all here.
                var reader = Reader(buffer: UnsafeRawBufferPointer(start: base, count: available))
                guard reader.integer(UInt8.self) == version || available == 0 else {
                    failed = true
                    return false
                }
                var names: [String] = []
                var whole = false
                if let collectionCount = reader.integer(UInt16.self) {
                    whole = true
                    for _ in 0..<collectionCount {
                        guard let length = reader.integer(UInt16.self), let name = reader.bytes(Int(length)) else {
                            whole = false
                            break
                        }
                        names.append(String(decoding: name, as: UTF8.self))
                    }
                }
                guard whole, let count = reader.integer(UInt32.self) else {
                    failed = available == byteCount
                    return !failed
                }
                entriesStart = reader.position
                // The heads must fit in the week.
                guard (byteCount - entriesStart) / RenderedWeek.headSize >= Int(count) else {
                    failed = true
                    return false
                }
                collections = names
                self.count = Int(count)
            }
            guard let collections else { return true }
            var next = entriesStart + checked * RenderedWeek.headSize
            while checked < count, available - next >= RenderedWeek.headSize {
                let kind = base.load(fromByteOffset: next + 20, as: UInt8.self)
                let collection = UInt16(littleEndian: base.loadUnaligned(fromByteOffset: next + 21, as: UInt16.self))
                let length = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: next + 23, as: UInt32.self)))
                let start = Int64(littleEndian: base.loadUnaligned(fromByteOffset: next, as: Int64.self))
                let end = Int64(littleEndian: base.loadUnaligned(fromByteOffset: next + 8, as: Int64.self))
                if start < lastStart || end < start { startsInOrder = false }
                lastStart = start
                kinds |= kind
                lengths += length
                guard kind == 1 || kind == 2 || kind == 4, Int(collection) < collections.count,
                      lengths <= byteCount - entriesStart - count * RenderedWeek.headSize else {
                    failed = true
                    return false
                }
                next += RenderedWeek.headSize
                checked += 1
            }
            if available == byteCount, result == nil {
                failed = true
            }
            return !failed
        }

        /// Where the heads end and the entries' bytes begin, once the header was seen.
        package var headsEnd: Int? {
            collections == nil ? nil : entriesStart + count * RenderedWeek.headSize
        }

        /// Ends the check of a week whose heads were all seen (``headsEnd`` bytes at
        /// `base`) without going through its entries' bytes, which the check never reads:
        /// only the heads' lengths must add up to them (the entries are written as they
        /// are). False when a head was not seen or the week is not whole.
        package mutating func acceptUnreadEntries(_ base: UnsafeRawPointer) -> Bool {
            guard !failed, collections != nil, checked == count else {
                failed = true
                return false
            }
            return advance(base, available: byteCount)
        }

        /// What the check found once every byte was seen, else nil.
        fileprivate var result: (collections: [String], entriesStart: Int, bytesStart: Int, count: Int,
                                 startsInOrder: Bool, kinds: UInt8, lastStart: Int64)? {
            guard !failed, let collections, checked == count else { return nil }
            let bytesStart = entriesStart + count * RenderedWeek.headSize
            guard bytesStart + lengths == byteCount else { return nil }
            return (collections, entriesStart, bytesStart, count, startsInOrder, kinds, lastStart)
        }
    }

    /// Renders listings (one week's, in the query's order) in a format. Each listing's
    /// collection is its source's first path component (`collection/name`).
    package static func render(_ listings: PackedListings, formatter: OccurrenceFormatter,
                               format: OccurrenceFormatter.ListingFormat) -> [UInt8] {
        var collections: [[UInt8]] = []
        var numbers: [[UInt8]: Int] = [:]
        var heads: [UInt8] = []
        heads.reserveCapacity(listings.count * headSize)
        var entries: [UInt8] = []
        entries.reserveCapacity(listings.bytes.count + listings.count * 160)
        var piece = ByteBuffer(capacity: 1024)
        let comma = if case .json = format { true } else { false }
        listings.forEach { listing in
            let collection = listing.source.map { Array($0.prefix { $0 != UInt8(ascii: "/") }) } ?? []
            let number: Int
            if let known = numbers[collection] {
                number = known
            } else {
                number = collections.count
                numbers[collection] = number
                collections.append(collection)
            }
            piece.removeAll()
            let day = formatter.appendEntry(listing, format: format, to: &piece)
            append(listing.startInstant, to: &heads)
            append(listing.endInstant, to: &heads)
            append(day.map { Int32(truncatingIfNeeded: $0.daysSinceEpoch) } ?? Int32.min, to: &heads)
            heads.append(kind(listing.componentName))
            append(UInt16(number), to: &heads)
            append(UInt32(piece.count + (comma ? 1 : 0)), to: &heads)
            if comma { entries.append(UInt8(ascii: ",")) }
            piece.withUnsafeBytes { entries.append(contentsOf: $0) }
        }
        var out: [UInt8] = [version]
        append(UInt16(collections.count), to: &out)
        for name in collections {
            append(UInt16(name.count), to: &out)
            out += name
        }
        append(UInt32(listings.count), to: &out)
        out += heads
        out += entries
        return out
    }

    /// The kind bit of a component name (1 VEVENT, 2 VTODO, 4 VJOURNAL).
    static func kind(_ componentName: UnsafeRawBufferPointer) -> UInt8 {
        if componentName.elementsEqual("VTODO".utf8) { return 2 }
        if componentName.elementsEqual("VJOURNAL".utf8) { return 4 }
        return 1
    }

    /// An entry's head as the week holds it, and its bytes (valid while the week is; a JSON
    /// entry's with its comma first).
    package struct Head {
        package var startInstant: Int64
        package var endInstant: Int64
        /// The agenda's day (days since 1970-01-01; `Int32.min` in JSON and CSV).
        package var day: Int32
        /// 1 VEVENT, 2 VTODO, 4 VJOURNAL.
        package var kind: UInt8
        /// The number of its collection in ``RenderedWeek/collections``.
        package var collection: Int
        package var bytes: UnsafeRawBufferPointer
    }

    /// The entries' heads in order: what a query reads of each entry, at fixed offsets.
    package struct Heads: IteratorProtocol {
        private let storage: RenderedStorage
        private let base: UnsafeRawPointer
        private let entriesStart: Int
        private let count: Int
        private var index = 0
        private var bytes: Int

        fileprivate init(_ week: RenderedWeek) {
            storage = week.storage
            base = UnsafeRawPointer(week.storage.base)
            entriesStart = week.entriesStart
            count = week.count
            bytes = week.bytesStart
        }

        package mutating func next() -> Head? {
            guard index < count else { return nil }
            // Validated by init(validating:). The head: start 0, end 8, day 16, kind 20,
            // collection 21, length 23; the bytes of the entries follow the heads.
            let head = entriesStart + index * RenderedWeek.headSize
            let base = base
            func load<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
                T(littleEndian: base.loadUnaligned(fromByteOffset: head + at, as: T.self))
            }
            let length = Int(load(23, UInt32.self))
            let entry = Head(startInstant: load(0, Int64.self), endInstant: load(8, Int64.self), day: load(16, Int32.self),
                             kind: load(20, UInt8.self), collection: Int(load(21, UInt16.self)),
                             bytes: UnsafeRawBufferPointer(start: base + bytes, count: length))
            bytes += length
            index += 1
            return entry
        }
    }

    /// The entries' heads, from the first.
    package func makeHeads() -> Heads {
        Heads(self)
    }

    /// The entries `selection` chooses (``RenderedSelection/chooses(_:in:startingAt:)``) in
    /// this week, the window's week that starts at `start`, when they are one run of
    /// entries, found without going through the heads one by one: the chosen entries'
    /// numbers and their bytes (offsets from the week's start). Nil when that is not known,
    /// and the heads are then chosen one by one.
    ///
    /// It is known in a later week of the window (an occurrence that began in an earlier
    /// week was taken from that one) whose every entry is of a kind and calendar asked for,
    /// when the starts never go down and no entry ends before it starts: an entry is then
    /// chosen exactly when it starts in the week and before the window ends (after the
    /// window's start, so it also ends after it or is an instant in it), and those entries
    /// follow one another. Two binary searches over the heads find them.
    package func chosenRun(_ selection: RenderedSelection, in choice: RenderedSelection.Week,
                           startingAt start: Int64) -> (entries: Range<Int>, bytes: Range<Int>)? {
        guard choice.later, startsInOrder, kinds & ~selection.kinds == 0, !choice.allowed.contains(false),
              start > selection.window.lowerBound else { return nil }
        let base = UnsafeRawPointer(storage.base)
        func field<T: FixedWidthInteger>(_ index: Int, _ at: Int, _: T.Type) -> T {
            T(littleEndian: base.loadUnaligned(fromByteOffset: entriesStart + index * Self.headSize + at, as: T.self))
        }
        /// The first entry from `from` on that starts at or after `instant`.
        func firstStarting(atOrAfter instant: Int64, from: Int) -> Int {
            var low = from, high = count
            while low < high {
                let middle = (low + high) / 2
                if field(middle, 0, Int64.self) < instant { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let first = firstStarting(atOrAfter: start, from: 0)
        let end = lastStart < selection.window.upperBound ? count : firstStarting(atOrAfter: selection.window.upperBound, from: first)
        var lower = bytesStart
        for index in 0..<first { lower += Int(field(index, 23, UInt32.self)) }
        var upper = byteCount
        for index in end..<count { upper -= Int(field(index, 23, UInt32.self)) }
        return (first..<end, lower..<upper)
    }

    /// Bytes of the week (offsets from its start, as ``chosenRun(_:in:startingAt:)`` gives
    /// them); valid while the week is.
    package func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: UnsafeRawPointer(storage.base) + range.lowerBound, count: range.count)
    }

    /// The bytes of an entry's head: instants, day, kind, collection, length.
    fileprivate static let headSize = 8 + 8 + 4 + 1 + 2 + 4

    fileprivate static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    /// Reads integers and byte runs, nil past the end.
    private struct Reader {
        let buffer: UnsafeRawBufferPointer
        var position = 0

        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            let size = MemoryLayout<T>.size
            guard let base = buffer.baseAddress, buffer.count - position >= size else { return nil }
            defer { position += size }
            return T(littleEndian: base.loadUnaligned(fromByteOffset: position, as: T.self))
        }

        mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, buffer.count - position >= count else { return nil }
            defer { position += count }
            return UnsafeRawBufferPointer(rebasing: buffer[position..<(position + count)])
        }
    }
}

/// Memory for a rendered week: a stored week's file mapped read-only
/// (``init(mapping:length:)``), or a block for one week made in memory. A block of a quarter
/// of a MiB or more is mapped in whole 2 MiB pieces and asked to be backed by huge pages
/// (where the system does so on request): filling it then takes one page fault for each
/// 2 MiB rather than one for each 4 KiB, which on a virtual machine is about six times the
/// time (0.2 ms against 1.3 ms for 2 MiB, measured on this project's machine). A week of a
/// large store is megabytes.
package final class RenderedStorage: @unchecked Sendable {
    /// The start of the block (written only while it is being filled, before a week reads
    /// it; a mapping is never written).
    package let base: UnsafeMutableRawPointer
    /// Its size in bytes.
    package let capacity: Int
    /// The mapping when the block was mapped (size), else 0 and `base` is from malloc.
    private let mapped: Int

    /// The `length` bytes mapped at `base` (`mmap`, at least one byte), unmapped when the
    /// storage goes: a stored week read in place from the system's cache of its file,
    /// without a copy.
    package init(mapping base: UnsafeMutableRawPointer, length: Int) {
        precondition(length > 0, "a mapping has bytes")
        self.base = base
        self.capacity = length
        self.mapped = length
    }

    /// A block of `capacity` bytes (contents undefined).
    package init(capacity: Int) {
        self.capacity = capacity
        let huge = 2 << 20
        if capacity >= 1 << 18 {
            // Mapped with room to start on a 2 MiB boundary, the unused ends given back.
            let length = (capacity + huge - 1) / huge * huge
            if let mapping = mmap(nil, length + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
               mapping != UnsafeMutableRawPointer(bitPattern: -1) {
                let address = UInt(bitPattern: mapping)
                let aligned = (address + UInt(huge) - 1) / UInt(huge) * UInt(huge)
                let head = Int(aligned - address), tail = huge - head
                if head > 0 { munmap(mapping, head) }
                if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: aligned + UInt(length))!, tail) }
                let start = UnsafeMutableRawPointer(bitPattern: aligned)!
                #if os(Linux)
                _ = madvise(start, length, MADV_HUGEPAGE)
                #endif
                base = start
                mapped = length
                return
            }
        }
        base = UnsafeMutableRawPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
        mapped = 0
    }

    deinit {
        if mapped > 0 { munmap(base, mapped) } else { base.deallocate() }
    }
}

/// What chooses a window's entries from its rendered weeks (``RenderedWeek``), given one
/// after another in order: the query's window, kinds and collections.
package struct RenderedSelection: Sendable {
    /// The query's window: an entry is written when its occurrence intersects it (the
    /// query's rule: it starts before the end, and ends after the start or is an instant at
    /// or after it).
    package var window: Range<Int64>
    /// The kinds asked for (bits as ``RenderedWeek/Head/kind``).
    package var kinds: UInt8
    /// The collections asked for.
    package var collections: Set<String>
    /// Whether a week was given already.
    private var afterFirstWeek = false

    package init(window: Range<Int64>, kinds: UInt8, collections: Set<String>) {
        self.window = window
        self.kinds = kinds
        self.collections = collections
    }

    /// What ``chooses(_:in:startingAt:)`` needs of a week: whether it is a later week of
    /// the window, and which of its calendars are asked for.
    package struct Week {
        fileprivate let later: Bool
        fileprivate let allowed: [Bool]
    }

    /// Begins the window's next week (the weeks are given in order).
    package mutating func next(_ week: RenderedWeek) -> Week {
        defer { afterFirstWeek = true }
        return choice(in: week)
    }

    /// What ``next(_:)`` will give for `week`, without beginning it (to look at a week the
    /// writer has not begun).
    package func choice(in week: RenderedWeek) -> Week {
        Week(later: afterFirstWeek, allowed: week.collections.map { collections.contains($0) })
    }

    /// Whether an entry of `week`, the window's week that starts at `start`, is written. A
    /// week holds every occurrence that intersects it, so an occurrence over several weeks
    /// is in each: it is taken from the first week of the window, and from a later week only
    /// when it starts in it.
    @inline(__always)
    package func chooses(_ head: RenderedWeek.Head, in week: Week, startingAt start: Int64) -> Bool {
        if week.later && head.startInstant < start { return false }
        return head.kind & kinds != 0 && week.allowed[head.collection] && head.startInstant < window.upperBound
            && (head.endInstant > window.lowerBound || (head.endInstant == head.startInstant && head.startInstant >= window.lowerBound))
    }
}

extension OccurrenceFormatter {
    /// Writes a window's rendered weeks in their format (the format they were rendered in),
    /// given one after another: the bytes ``write(_:as:reserving:flushingAt:_:)`` writes for
    /// the same listings. A week is read while it is given, so a query holds one week's
    /// bytes at a time.
    ///
    /// The entries a query writes in a row are one run of a week's bytes (a JSON entry
    /// carries its comma): a long run goes to the sink as it is, from the week's memory, and
    /// what goes between runs (an agenda's day heading, a short run) is gathered in a buffer
    /// first. So the week's bytes are copied once, by the system, into the output.
    package struct RenderedWeeksWriter {
        private var writer: ListingWriter
        private let format: ListingFormat
        private var selection: RenderedSelection
        private let limit: Int?
        private let threshold: Int
        private let directRun: Int
        private var out: [UInt8] = []
        private var written = 0
        /// The agenda's day of the last entry written (`Int32.min` before the first).
        private var agendaDay = Int32.min

        /// A writer of at most `limit` entries; its sink is given the bytes in order, in
        /// pieces: the buffer's each time `flushingAt` of them wait and at the end, and runs
        /// of entries of `directRunsFrom` bytes or more as they are (valid only during the
        /// call; a shorter run is copied into the buffer). What comes before the first entry
        /// (JSON's `[`, the CSV header) is written now.
        package init(formatter: OccurrenceFormatter, format: ListingFormat, selection: RenderedSelection, limit: Int? = nil,
                     flushingAt threshold: Int = 1 << 18, directRunsFrom directRun: Int = 1 << 14) {
            writer = ListingWriter(formatter: formatter, format: format)
            self.format = format
            self.selection = selection
            self.limit = limit
            self.threshold = threshold
            self.directRun = directRun
            out.reserveCapacity(threshold + directRun)
            writer.begin(to: &out)
        }

        /// Writes the chosen entries of the window's next week (which starts at `start`);
        /// false when the limit is reached, so no later week is needed. Every byte of the
        /// week that is written has gone to the sink or the buffer when it returns.
        package mutating func write<Failure: Error>(_ week: RenderedWeek, start: Int64,
                                                    _ sink: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) -> Bool {
            if let limit, written >= limit { return false }
            let chosen = selection.next(week)
            let selection = self.selection
            let json = if case .json = format { true } else { false }
            let agenda = if case .agenda = format { true } else { false }
            // Past the answer's first JSON entry (written without its comma), with no agenda
            // headings and no limit, a later week's chosen entries are one run: what the
            // loop below would gather.
            if !agenda, limit == nil, !(json && written == 0),
               let chosenRun = week.chosenRun(selection, in: chosen, startingAt: start) {
                let entries = chosenRun.entries.count
                guard entries > 0 else { return true }
                var run = week.bytes(chosenRun.bytes)
                written += entries
                writer.countWritten(entries)
                try emit(&run, sink)
                return true
            }
            var run = UnsafeRawBufferPointer(start: nil, count: 0)
            // Entries written with no separator from the writer (it counts them all).
            var uncounted = 0
            var heads = week.makeHeads()
            while let head = heads.next() {
                guard selection.chooses(head, in: chosen, startingAt: start) else { continue }
                if let limit, written >= limit { break }
                var bytes = head.bytes
                if agenda && head.day != agendaDay {
                    // A new day's heading, after the run before it.
                    try emit(&run, sink)
                    agendaDay = head.day
                    writer.appendSeparator(day: CalendarDate(daysSinceEpoch: Int(head.day)), to: &out)
                } else {
                    // The first entry written goes without the comma a JSON entry carries.
                    if json && written == 0 && !bytes.isEmpty { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropFirst()) }
                    uncounted += 1
                }
                written += 1
                if let end = run.baseAddress.map({ $0 + run.count }), end == bytes.baseAddress {
                    run = UnsafeRawBufferPointer(start: run.baseAddress, count: run.count + bytes.count)
                } else {
                    try emit(&run, sink)
                    run = bytes
                }
            }
            writer.countWritten(uncounted)
            // The week (a parameter: alive for the whole call) holds the run's bytes.
            try emit(&run, sink)
            return limit.map { written < $0 } ?? true
        }

        /// Writes a run: a long one to the sink (after what waits in the buffer), a short one
        /// into the buffer, flushed when it holds `flushingAt` bytes.
        private mutating func emit<Failure: Error>(_ run: inout UnsafeRawBufferPointer,
                                                   _ sink: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
            let bytes = run
            run = UnsafeRawBufferPointer(start: nil, count: 0)
            guard !bytes.isEmpty else { return }
            if bytes.count >= directRun {
                try flush(sink)
                try sink(bytes)
            } else {
                out.append(contentsOf: bytes)
                if out.count >= threshold { try flush(sink) }
            }
        }

        /// Gives the buffer's bytes to the sink and empties it.
        private mutating func flush<Failure: Error>(_ sink: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
            guard !out.isEmpty else { return }
            var failure: Failure?
            out.withUnsafeBytes { bytes in
                do throws(Failure) { try sink(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
            out.removeAll(keepingCapacity: true)
        }

        /// Writes what follows the last entry and flushes the rest.
        package mutating func finish<Failure: Error>(_ sink: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
            writer.finish(to: &out)
            try flush(sink)
        }
    }
}

extension OccurrenceFormatter {
    /// What a rendered week (``RenderedWeek/render(_:formatter:format:)``) in a format depends
    /// on besides its listings: the format, the display zone, and the layout's version. (The
    /// agenda's colour is not in the entries: its headings are written with each query.)
    package func renderingStyle(_ format: ListingFormat) -> String {
        let name = switch format {
        case .json: "json"
        case .csv: "csv"
        case .agenda: "agenda"
        }
        let zone = displayZone.map { "display zone " + $0.identifier } ?? "own zones"
        return "\(name); \(zone); layout \(RenderedWeek.version)"
    }
}
