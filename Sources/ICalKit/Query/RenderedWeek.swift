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
/// then copies the entries of its weeks, with what goes between them (JSON's commas, the
/// agenda's headings) written by the same ``OccurrenceFormatter/ListingWriter``: the bytes
/// are those of writing the listings (``OccurrenceFormatter/write(_:as:limit:flushingAt:_:)-(RenderedWeeks,_,_,_,_)``).
///
/// Layout (integers little-endian): the version byte; `UInt16` count of collections, each a
/// `UInt16` length and its UTF-8 name; `UInt32` count of entries, each: `Int64` start and end
/// instants, `Int32` agenda day (days since 1970-01-01; `Int32.min` in JSON and CSV),
/// `UInt8` kind (1 VEVENT, 2 VTODO, 4 VJOURNAL), `UInt16` collection, `UInt32` length, and
/// the entry's bytes. ``init(validating:)`` checks every length before anything is read.
package struct RenderedWeek: Sendable {
    /// The layout version, first byte of every rendered week.
    package static let version: UInt8 = 1

    /// The memory the bytes are in (shared by the weeks of one read).
    private let storage: RenderedStorage
    /// Where the rendered bytes start in the storage.
    private let offset: Int
    /// The collections' names, by their number in the entries.
    package let collections: [String]
    /// Where the first entry's head starts.
    private let entriesStart: Int
    /// The number of entries.
    package let count: Int

    /// A rendered week read from bytes, or nil when they are not a whole rendered week of
    /// this version (every length, collection number and kind checked).
    package init?(validating bytes: [UInt8]) {
        let storage = RenderedStorage(capacity: bytes.count)
        bytes.withUnsafeBytes { storage.base.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(storage.base), byteCount: $0.count) }
        self.init(validating: storage, offset: 0, count: bytes.count)
    }

    /// A rendered week read from `count` bytes of a storage from `offset`, or nil as
    /// ``init(validating:)-([UInt8])``.
    package init?(validating storage: RenderedStorage, offset: Int, count byteCount: Int) {
        guard offset >= 0, byteCount >= 0, offset <= storage.capacity - byteCount else { return nil }
        let buffer = UnsafeRawBufferPointer(start: storage.base + offset, count: byteCount)
        let parsed: (collections: [String], entriesStart: Int, count: Int)? = {
            var reader = Reader(buffer: buffer)
            guard reader.integer(UInt8.self) == Self.version, let collectionCount = reader.integer(UInt16.self) else { return nil }
            var collections: [String] = []
            for _ in 0..<collectionCount {
                guard let length = reader.integer(UInt16.self), let name = reader.bytes(Int(length)) else { return nil }
                collections.append(String(decoding: name, as: UTF8.self))
            }
            guard let count = reader.integer(UInt32.self), let base = buffer.baseAddress else { return nil }
            let entriesStart = reader.position
            // Each head whole, its kind and calendar known, its bytes inside the buffer: the
            // fields forEach reads at fixed offsets (start 0, end 8, day 16, kind 20,
            // collection 21, length 23), checked here in one pass without a cursor.
            var next = entriesStart
            for _ in 0..<count {
                guard buffer.count - next >= Self.headSize else { return nil }
                let kind = base.load(fromByteOffset: next + 20, as: UInt8.self)
                let collection = UInt16(littleEndian: base.loadUnaligned(fromByteOffset: next + 21, as: UInt16.self))
                let length = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: next + 23, as: UInt32.self)))
                guard kind == 1 || kind == 2 || kind == 4, Int(collection) < collections.count,
                      buffer.count - next - Self.headSize >= length else { return nil }
                next += Self.headSize + length
            }
            guard next == buffer.count else { return nil }
            return (collections, entriesStart, Int(count))
        }()
        guard let parsed else { return nil }
        self.storage = storage
        self.offset = offset
        self.collections = parsed.collections
        self.entriesStart = parsed.entriesStart
        self.count = parsed.count
    }

    /// Renders listings (one week's, in the query's order) in a format. Each listing's
    /// collection is its source's first path component (`collection/name`).
    package static func render(_ listings: PackedListings, formatter: OccurrenceFormatter,
                               format: OccurrenceFormatter.ListingFormat) -> [UInt8] {
        var collections: [[UInt8]] = []
        var numbers: [[UInt8]: Int] = [:]
        var entries: [UInt8] = []
        entries.reserveCapacity(listings.bytes.count + listings.count * 160)
        var piece = ByteBuffer(capacity: 1024)
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
            append(listing.startInstant, to: &entries)
            append(listing.endInstant, to: &entries)
            append(day.map { Int32(truncatingIfNeeded: $0.daysSinceEpoch) } ?? Int32.min, to: &entries)
            entries.append(kind(listing.componentName))
            append(UInt16(number), to: &entries)
            append(UInt32(piece.count), to: &entries)
            piece.withUnsafeBytes { entries.append(contentsOf: $0) }
        }
        var out: [UInt8] = [version]
        append(UInt16(collections.count), to: &out)
        for name in collections {
            append(UInt16(name.count), to: &out)
            out += name
        }
        append(UInt32(listings.count), to: &out)
        out += entries
        return out
    }

    /// The kind bit of a component name (1 VEVENT, 2 VTODO, 4 VJOURNAL).
    static func kind(_ componentName: UnsafeRawBufferPointer) -> UInt8 {
        if componentName.elementsEqual("VTODO".utf8) { return 2 }
        if componentName.elementsEqual("VJOURNAL".utf8) { return 4 }
        return 1
    }

    /// One entry, its bytes a view valid inside the closure that hands it out.
    package struct Entry {
        package var startInstant: Int64
        package var endInstant: Int64
        /// The agenda's day of the entry (nil in JSON and CSV).
        package var day: CalendarDate?
        /// 1 VEVENT, 2 VTODO, 4 VJOURNAL.
        package var kind: UInt8
        /// The number of its collection in ``RenderedWeek/collections``.
        package var collection: Int
        package var bytes: UnsafeRawBufferPointer
    }

    /// Calls `body` with every entry in order, until it returns false.
    package func forEach(_ body: (Entry) -> Bool) {
        withExtendedLifetime(storage) {
            let base = UnsafeRawPointer(storage.base + offset)
            var next = entriesStart
            for _ in 0..<count {
                // Validated by init(validating:). The head: start 0, end 8, day 16, kind 20,
                // collection 21, length 23; the bytes follow at 27.
                let head = next
                func load<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
                    T(littleEndian: base.loadUnaligned(fromByteOffset: head + at, as: T.self))
                }
                let day = load(16, Int32.self), length = Int(load(23, UInt32.self))
                let entry = Entry(startInstant: load(0, Int64.self), endInstant: load(8, Int64.self),
                                  day: day == Int32.min ? nil : CalendarDate(daysSinceEpoch: Int(day)),
                                  kind: load(20, UInt8.self), collection: Int(load(21, UInt16.self)),
                                  bytes: UnsafeRawBufferPointer(start: base + head + Self.headSize, count: length))
                next = head + Self.headSize + length
                guard body(entry) else { return }
            }
        }
    }

    /// The bytes of an entry's head: instants, day, kind, collection, length.
    private static let headSize = 8 + 8 + 4 + 1 + 2 + 4

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

/// Memory for rendered weeks read from the query index: one block for all the weeks of a
/// read, freed with the last week that uses it. A large block is asked to be backed by huge
/// pages (where the system does so on request), so that filling it takes a few page faults
/// rather than one per 4 KiB: a month of a large store is megabytes.
package final class RenderedStorage: @unchecked Sendable {
    /// The start of the block (written only while it is being filled, before any week reads it).
    package let base: UnsafeMutableRawPointer
    /// Its size in bytes.
    package let capacity: Int
    /// The mapping when the block was mapped (size), else 0 and `base` is from malloc.
    private let mapped: Int

    /// A block of `capacity` bytes (contents undefined).
    package init(capacity: Int) {
        self.capacity = capacity
        let huge = 2 << 20
        if capacity >= huge {
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

/// The rendered weeks of a window (``RenderedWeek``) and what chooses their entries: the
/// answer of the query index's rendering cache, written by
/// ``OccurrenceFormatter/write(_:as:limit:flushingAt:_:)-(RenderedWeeks,_,_,_,_)``.
package struct RenderedWeeks: Sendable {
    /// The weeks of the window in order, each with its first instant.
    package var weeks: [(start: Int64, week: RenderedWeek)]
    /// The query's window: an entry is written when its occurrence intersects it (the
    /// query's rule: it starts before the end, and ends after the start or is an instant at
    /// or after it).
    package var window: Range<Int64>
    /// The kinds asked for (bits as ``RenderedWeek/Entry/kind``).
    package var kinds: UInt8
    /// The collections asked for.
    package var collections: Set<String>

    package init(weeks: [(start: Int64, week: RenderedWeek)], window: Range<Int64>, kinds: UInt8, collections: Set<String>) {
        self.weeks = weeks
        self.window = window
        self.kinds = kinds
        self.collections = collections
    }

    /// Calls `body` with each chosen entry in order, until it returns false. A week holds
    /// every occurrence that intersects it, so an occurrence over several weeks is in each:
    /// it is taken from the first week of the window, and from a later week only when it
    /// starts in it.
    package func forEach(_ body: (RenderedWeek.Entry) -> Bool) {
        var going = true
        for (position, (start, week)) in weeks.enumerated() where going {
            let allowed = week.collections.map { collections.contains($0) }
            week.forEach { entry in
                if position > 0 && entry.startInstant < start { return true }
                guard entry.kind & kinds != 0, allowed[entry.collection], entry.startInstant < window.upperBound,
                      entry.endInstant > window.lowerBound
                        || (entry.endInstant == entry.startInstant && entry.startInstant >= window.lowerBound) else { return true }
                going = body(entry)
                return going
            }
        }
    }
}

extension OccurrenceFormatter {
    /// Writes rendered weeks in their format (the format they were rendered in), at most
    /// `limit` entries: the bytes ``write(_:as:reserving:flushingAt:_:)`` writes for the
    /// same listings. `flush` is given the bytes each time `flushingAt` of them wait, and at
    /// the end (it leaves the array empty).
    package func write<Failure: Error>(_ rendered: RenderedWeeks, as format: ListingFormat, limit: Int? = nil,
                                       flushingAt threshold: Int = 1 << 18,
                                       _ flush: (inout [UInt8]) throws(Failure) -> Void) throws(Failure) {
        var out: [UInt8] = []
        out.reserveCapacity(threshold + (1 << 16))
        var writer = ListingWriter(formatter: self, format: format)
        writer.begin(to: &out)
        var written = 0
        var failure: Failure?
        rendered.forEach { entry in
            if let limit, written >= limit { return false }
            writer.append(entry: entry.bytes, day: entry.day, to: &out)
            written += 1
            if out.count >= threshold {
                do throws(Failure) { try flush(&out) } catch {
                    failure = error
                    return false
                }
            }
            return true
        }
        if let failure { throw failure }
        writer.finish(to: &out)
        try flush(&out)
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
