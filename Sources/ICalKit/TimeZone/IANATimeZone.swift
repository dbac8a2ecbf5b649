#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A zone of the IANA time zone database, read from the system's compiled tzdata
/// (TZif files, RFC 8536) in `/usr/share/zoneinfo`, or in `$TZDIR` when that is set.
///
/// This is ICalKit's one source of truth for converting between UTC and local time in
/// IANA zones: it reads the 64-bit transition table and, for instants after its last
/// transition, the POSIX rule in the file's footer, so it is exact for all time and as
/// current as the installed tzdata (`apt` updates it). Foundation's `TimeZone`, which uses
/// its own bundled ICU data on Linux, is deliberately not used, and neither is libical
/// (no lock is needed).
///
/// Local times are read as RFC 5545 §3.3.5 says: a time in a gap takes the offset in force
/// before the gap (Berlin 2024-03-31 02:30 is 01:30Z), and a time in an overlap is its
/// first occurrence (Berlin 2024-10-27 02:30 is 00:30Z).
///
/// Zones are cached per name and database folder, and are safe to use from any thread.
///
/// ```swift
/// let berlin = IANATimeZone(named: "Europe/Berlin")!
/// let start = berlin.instant(for: LocalDateTime(year: 2024, month: 3, day: 31, hour: 2, minute: 30)!)
/// ```
public struct IANATimeZone: TimeZoneRules, CustomStringConvertible {
    /// The IANA name the zone was loaded under (`Europe/Berlin`, or a link such as `US/Eastern`).
    public var identifier: String { storage.identifier }
    /// The name and the transition table, behind one reference: a zone is copied into every
    /// match of a query (as `any TimeZoneRules`), and a copy is then one retain instead of
    /// a copy of every array and string of the table.
    private let storage: Storage

    private final class Storage: Sendable {
        let identifier: String
        let table: TransitionTable

        init(identifier: String, table: TransitionTable) {
            self.identifier = identifier
            self.table = table
        }
    }

    /// Loads a zone from the database, or returns nil when the name is not a zone there
    /// (or is not a safe zone name: see ``isValidIdentifier(_:)``). Case matters, as in
    /// the database; results are cached.
    public init?(named name: String) {
        self.init(named: name, databaseDirectory: IANATimeZone.databaseDirectory)
    }

    /// Loads a zone from a database in another folder (one that holds TZif files under
    /// IANA names, like `/usr/share/zoneinfo`), with the same name checks and cache.
    public init?(named name: String, databaseDirectory directory: String) {
        guard let zone = IANATimeZone.cached(name, directory: directory) else { return nil }
        self = zone
    }

    /// Reads a zone from the bytes of a TZif file (RFC 8536, version 1 to 4).
    ///
    /// - Throws: ``ICalError/Code/timeZone`` when the bytes are not a valid TZif file.
    public init(tzifBytes bytes: [UInt8], identifier: String) throws(ICalError) {
        storage = Storage(identifier: identifier, table: try TZifReader.read(bytes, name: identifier))
    }

    /// The folder zones are read from: `$TZDIR` when set and not empty, otherwise
    /// `/usr/share/zoneinfo`.
    public static var databaseDirectory: String {
        if let value = getenv("TZDIR"), value.pointee != 0 {
            return String(cString: value)
        }
        return "/usr/share/zoneinfo"
    }

    /// Whether a name is safe to look up as a file below the database folder: one to
    /// 255 bytes of letters, digits, `_`, `-`, `+` and `.`, in `/`-separated parts that are
    /// not empty and do not start with `.` (so `..` and absolute paths are refused). The
    /// leap-second `right/` tree is refused too, since its instants are not POSIX time, and
    /// so are `localtime` and `posixrules`, which are files there but not zone names.
    public static func isValidIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...255).contains(bytes.count) else { return false }
        var partStart = true
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"):
                if partStart { return false }
                partStart = true
                continue
            case UInt8(ascii: "."):
                if partStart { return false }
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+"):
                break
            default:
                return false
            }
            partStart = false
        }
        if partStart { return false }
        return !name.hasPrefix("right/") && name != "localtime" && name != "posixrules"
    }

    public func utcOffset(atInstant instant: Int64) -> Int {
        storage.table.offset(atInstant: instant)
    }

    public func utcOffset(forLocal local: LocalDateTime) -> Int {
        storage.table.utcOffset(forLocalSeconds: local.secondsSinceEpoch)
    }

    func quietSpan(forLocalSeconds local: Int64) -> (lower: Int64, upper: Int64, offset: Int)? {
        storage.table.quietSpan(forLocalSeconds: local)
    }

    /// Whether daylight-saving time is in force at an instant.
    public func isDaylightSavingTime(atInstant instant: Int64) -> Bool {
        storage.table.type(atInstant: instant).isDaylight
    }

    /// The abbreviation in force at an instant (`CET`, `EDT`, `+0530`).
    public func abbreviation(atInstant instant: Int64) -> String {
        storage.table.type(atInstant: instant).abbreviation
    }

    /// Every change of offset, daylight flag or abbreviation with an instant in
    /// `lower...upper`, in order, including those the footer rule makes after the table.
    public func transitions(from lower: Int64, through upper: Int64) -> [TimeZoneTransition] {
        storage.table.transitions(from: lower, through: upper)
    }

    /// The identifier.
    public var description: String { identifier }

    // MARK: Cache

    private struct CacheKey: Hashable {
        var directory: String
        var name: String
    }

    private static let cache = ReadMostlyCache<CacheKey, IANATimeZone?>()
    private static let maximumCachedMisses = 4096

    private static func cached(_ name: String, directory: String) -> IANATimeZone? {
        guard isValidIdentifier(name), !directory.isEmpty else { return nil }
        let key = CacheKey(directory: directory, name: name)
        if let hit = cache[key] { return hit }
        // Read outside the lock; two threads may both read a zone once, which is harmless.
        let zone: IANATimeZone?
        do {
            let bytes = try FileIO.readAll(path: key.directory + "/" + name, limit: 1 << 20)
            zone = try IANATimeZone(tzifBytes: bytes, identifier: name)
        } catch {
            zone = nil
        }
        cache.update { entries in
            if zone == nil {
                let misses = entries.values.lazy.filter { $0 == nil }.count
                if misses >= maximumCachedMisses { entries = entries.filter { $0.value != nil } }
            }
            entries[key] = zone
        }
        return zone
    }
}

/// Reads TZif files (RFC 8536).
enum TZifReader {
    static func read(_ bytes: [UInt8], name: String) throws(ICalError) -> TransitionTable {
        func fail(_ reason: String) -> ICalError {
            ICalError(.timeZone, "'\(name)' is not a valid TZif file: \(reason)")
        }
        var cursor = Cursor(bytes: bytes)
        guard let header = cursor.header() else { throw fail("no TZif header") }
        var counts = header.counts
        var timeSize = 4
        if header.version >= 2 {
            // Skip the 32-bit block; the 64-bit one follows with its own header.
            guard cursor.skip(counts.blockSize(timeSize: 4)), let second = cursor.header() else {
                throw fail("truncated version 1 block")
            }
            counts = second.counts
            timeSize = 8
        }
        guard counts.typeCount >= 1, counts.typeCount <= 256, counts.transitionCount <= 1_000_000,
              counts.characterCount <= 65_536, counts.leapCount <= 100_000 else {
            throw fail("implausible counts")
        }
        var instants: [Int64] = []
        instants.reserveCapacity(counts.transitionCount)
        for _ in 0..<counts.transitionCount {
            guard let instant = timeSize == 8 ? cursor.int64() : cursor.int32().map(Int64.init) else {
                throw fail("truncated transition times")
            }
            if let last = instants.last, instant <= last { throw fail("transition times are not increasing") }
            instants.append(instant)
        }
        var indices: [Int] = []
        indices.reserveCapacity(counts.transitionCount)
        for _ in 0..<counts.transitionCount {
            guard let index = cursor.uint8(), Int(index) < counts.typeCount else { throw fail("bad transition type") }
            indices.append(Int(index))
        }
        var rawTypes: [(offset: Int, isDaylight: Bool, abbreviationIndex: Int)] = []
        for _ in 0..<counts.typeCount {
            guard let offset = cursor.int32(), let daylight = cursor.uint8(), let abbreviation = cursor.uint8() else {
                throw fail("truncated local time types")
            }
            guard offset > -89_999, offset < 93_600, Int(abbreviation) < max(counts.characterCount, 1) else {
                throw fail("bad local time type")
            }
            rawTypes.append((Int(offset), daylight != 0, Int(abbreviation)))
        }
        guard let characters = cursor.take(counts.characterCount).map(Array.init) else { throw fail("truncated abbreviations") }
        let types = rawTypes.map { raw -> LocalTimeType in
            let tail = characters[min(raw.abbreviationIndex, characters.count)...]
            let end = tail.firstIndex(of: 0) ?? tail.endIndex
            return LocalTimeType(offset: raw.offset, isDaylight: raw.isDaylight,
                                 abbreviation: String(decoding: tail[..<end], as: UTF8.self))
        }
        guard cursor.skip(counts.leapCount * (timeSize + 4) + counts.standardCount + counts.utcCount) else {
            throw fail("truncated indicators")
        }
        var footer: PosixTimeZoneRule?
        if header.version >= 2, cursor.take(1) == [UInt8(ascii: "\n")] {
            var text: [UInt8] = []
            while let byte = cursor.uint8(), byte != UInt8(ascii: "\n") { text.append(byte) }
            if !text.isEmpty { footer = PosixTimeZoneRule(String(decoding: text, as: UTF8.self)) }
        }
        var table = TransitionTable(
            validatedInstants: instants, types: indices.map { types[$0] }, initial: types[0], tail: footer)
        table.extendWithTail(throughYear: 2200)
        return table
    }

    struct Counts {
        var utcCount, standardCount, leapCount, transitionCount, typeCount, characterCount: Int

        func blockSize(timeSize: Int) -> Int {
            transitionCount * timeSize + transitionCount + typeCount * 6 + characterCount
                + leapCount * (timeSize + 4) + standardCount + utcCount
        }
    }

    struct Cursor {
        let bytes: [UInt8]
        var index = 0

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= bytes.count - index else { return nil }
            defer { index += count }
            return bytes[index..<(index + count)]
        }

        mutating func skip(_ count: Int) -> Bool { take(count) != nil }

        mutating func uint8() -> UInt8? { take(1)?.first }

        mutating func int32() -> Int32? {
            guard let slice = take(4) else { return nil }
            return Int32(bitPattern: slice.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }

        mutating func int64() -> Int64? {
            guard let slice = take(8) else { return nil }
            return Int64(bitPattern: slice.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }

        mutating func header() -> (version: Int, counts: Counts)? {
            guard let magic = take(4), Array(magic) == Array("TZif".utf8), let version = uint8(), skip(15) else { return nil }
            var values: [Int] = []
            for _ in 0..<6 {
                guard let value = int32(), value >= 0 else { return nil }
                values.append(Int(value))
            }
            let number = version == 0 ? 1 : Int(version) - 0x30
            return (number, Counts(utcCount: values[0], standardCount: values[1], leapCount: values[2],
                                   transitionCount: values[3], typeCount: values[4], characterCount: values[5]))
        }
    }
}

extension IANATimeZone: QuietSpans {}
