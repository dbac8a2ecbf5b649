#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits calendars into one calendar per UID, for a vdir collection (one `.ics` file per
/// item, as vdirsyncer, khal and OpenEventKit's folder store use): the library behind
/// `ical convert --split DIR`.
///
/// Decisions:
/// - **One item per UID.** The master component and its overrides (same UID, with
///   RECURRENCE-ID) go into one VCALENDAR, master first, then overrides by RECURRENCE-ID.
///   Each VCALENDAR is complete: VERSION, the PRODID (and CALSCALE) of the calendar the
///   item came from, its X-WR-TIMEZONE (so floating times keep the zone Google and Apple
///   mean; `--repair` applies it instead), and the VTIMEZONEs its TZIDs need: the source
///   calendar's own, or ones generated from tzdata. Other calendar properties
///   (X-WR-CALNAME, METHOD) describe the whole source and are not copied.
/// - **Several inputs merge.** When the same UID and RECURRENCE-ID appear more than once
///   (across inputs or within one), the component with the highest SEQUENCE is kept, then
///   the one with the latest DTSTAMP, then the first read; every duplicate is reported
///   as a warning naming both places.
/// - **A component without UID stops the split** (an error note): it cannot be named or
///   merged. `ical convert --repair --split` gives such components stable UIDs first.
/// - **File names** come from the UID (see ``fileName(for:taken:)``).
/// - **Existing files are replaced only when they are ours to replace**: a file at the
///   target path is replaced only when it is an iCalendar file whose components all carry
///   the item's UID (an older copy of the same item). Any other file there (another UID,
///   unreadable, not iCalendar) stops the whole split before anything is written. Files
///   in the folder that the split does not name are left alone.
public struct CalendarSplit: Sendable {
    /// One output file: an item's UID, its file name and its complete VCALENDAR.
    public struct Item: Sendable, Hashable {
        /// The UID shared by the item's components.
        public var uid: String
        /// The file name in the collection (`.ics`, sanitised, unique in the split).
        public var fileName: String
        /// The VCALENDAR to write.
        public var calendar: Component
    }

    /// Calendars read from one input.
    public struct Input: Sendable {
        /// The file name to report, when known.
        public var file: String?
        /// The calendars read from it.
        public var calendars: [Component]

        /// Creates an input.
        public init(file: String?, calendars: [Component]) {
            self.file = file
            self.calendars = calendars
        }
    }

    /// The PRODID for items whose source calendar has none.
    public var productIdentifier: String

    /// Creates a split.
    public init(productIdentifier: String = "-//OpenEventKit//ical//EN") {
        self.productIdentifier = productIdentifier
    }

    /// The longest file name (without `.ics`) taken from a UID before it is shortened.
    public static let maximumNameLength = 120

    private struct Candidate {
        var component: Component
        /// The index of the source calendar in `sources`.
        var calendar: Int
        var file: String?
        var order: Int
    }

    /// What an item needs from the calendar it came from.
    private struct Source {
        var properties: [Property]
        var timeZones: [String: Component]
    }

    /// Groups the inputs' components by UID into items, sorted by UID, with the notes:
    /// duplicates (warnings) and components without UID (errors).
    public func split(_ inputs: [Input]) -> (items: [Item], notes: [ConversionNote]) {
        var notes: [ConversionNote] = []
        var chosen: [String: [String: Candidate]] = [:]
        var order = 0
        var sources: [Source] = []
        for input in inputs {
            for calendar in input.calendars {
                var zones: [String: Component] = [:]
                for zone in calendar.components(.timeZone) {
                    if let tzid = zone[.timeZoneIdentifier]?.trimmingASCIIWhitespace(), zones[tzid] == nil { zones[tzid] = zone }
                }
                sources.append(Source(properties: calendar.properties, timeZones: zones))
                let members = calendar.matches(.calendar) ? calendar.components : [calendar]
                for component in members where !component.matches(.timeZone) {
                    order += 1
                    guard let uid = component.uid, !uid.isEmpty else {
                        notes.append(ConversionNote(.error, file: input.file, line: component.line ?? 0,
                            message: "\(component.name.uppercased()) has no UID, so it cannot be split into its own file; "
                                + "--repair gives it a stable one"))
                        continue
                    }
                    let key = component.recurrenceIdentifier?.iCalendarText ?? ""
                    let candidate = Candidate(component: component, calendar: sources.count - 1, file: input.file, order: order)
                    guard let existing = chosen[uid]?[key] else {
                        chosen[uid, default: [:]][key] = candidate
                        continue
                    }
                    let winner = Self.isNewer(candidate, than: existing) ? candidate : existing
                    let loser = winner.order == candidate.order ? existing : candidate
                    chosen[uid]?[key] = winner
                    let what = key.isEmpty ? "UID \"\(uid)\"" : "UID \"\(uid)\" RECURRENCE-ID \(key)"
                    notes.append(ConversionNote(.warning, file: candidate.file, line: candidate.component.line ?? 0,
                        message: "duplicate \(what): kept \(Self.describe(winner)), dropped \(Self.describe(loser))"))
                }
            }
        }
        // Each item's TZIDs: defined by its source calendar, or generated from tzdata. The
        // generated ones are made once for all items, over the range all of them need.
        let uids = chosen.keys.sorted()
        var groups: [[Candidate]] = []
        var usedByGroup: [[String]] = []
        var needGeneration: [Component] = []
        for uid in uids {
            guard let group = chosen[uid] else { continue }
            let members = group.keys.sorted().compactMap { group[$0] }
            var used: [String] = []
            func collect(_ component: Component) {
                for property in component.properties {
                    if let tzid = property[parameter: .timeZoneIdentifier], !used.contains(tzid) { used.append(tzid) }
                }
                component.components.forEach(collect)
            }
            members.forEach { collect($0.component) }
            if used.contains(where: { tzid in !members.contains { sources[$0.calendar].timeZones[tzid] != nil } }) {
                needGeneration += members.map(\.component)
            }
            groups.append(members)
            usedByGroup.append(used.sorted())
        }
        var generated: [String: Component] = [:]
        if !needGeneration.isEmpty {
            for zone in TimeZoneExport.timeZones(neededBy: [Component(kind: .calendar, components: needGeneration)]) {
                if let tzid = zone[.timeZoneIdentifier] { generated[tzid] = zone }
            }
        }
        var taken: Set<String> = []
        var items: [Item] = []
        for (index, members) in groups.enumerated() {
            let uid = uids[index]
            items.append(Item(uid: uid, fileName: Self.fileName(for: uid, taken: &taken),
                              calendar: calendar(for: members, using: usedByGroup[index], sources: sources, generated: generated)))
        }
        return (items, notes)
    }

    /// Whether `candidate` wins over `existing`: higher SEQUENCE, then later DTSTAMP.
    private static func isNewer(_ candidate: Candidate, than existing: Candidate) -> Bool {
        let new = candidate.component.sequence ?? 0, old = existing.component.sequence ?? 0
        if new != old { return new > old }
        let newStamp = candidate.component.dateTimeStamp?.local, oldStamp = existing.component.dateTimeStamp?.local
        switch (newStamp, oldStamp) {
        case let (new?, old?): return new > old
        case (.some, nil): return true
        default: return false
        }
    }

    /// `b.ics:4 (SEQUENCE 2, DTSTAMP 20240101T000000Z)`.
    private static func describe(_ candidate: Candidate) -> String {
        "\(candidate.file ?? "<input>"):\(candidate.component.line ?? 0) (SEQUENCE \(candidate.component.sequence ?? 0)"
            + (candidate.component.dateTimeStamp.map { ", DTSTAMP \($0.iCalendarText)" } ?? "") + ")"
    }

    private func calendar(for members: [Candidate], using timeZoneIdentifiers: [String], sources: [Source],
                          generated: [String: Component]) -> Component {
        let source = sources[members[0].calendar].properties
        func first(_ kind: PropertyKind) -> Property? { source.first { $0.matches(kind) } }
        var calendar = Component(kind: .calendar)
        calendar.addProperty(Property(.version, rawValue: "2.0"))
        calendar.addProperty(first(.productIdentifier)
            ?? Property(.productIdentifier, rawValue: TextCoding.escape(productIdentifier)))
        if let scale = first(.calendarScale) { calendar.addProperty(scale) }
        if let zone = first(.calendarTimeZone) { calendar.addProperty(zone) }
        calendar.properties = calendar.properties.map { var property = $0; property.line = nil; return property }
        var zones: [Component] = []
        for tzid in timeZoneIdentifiers {
            if let zone = members.lazy.compactMap({ sources[$0.calendar].timeZones[tzid] }).first ?? generated[tzid] {
                zones.append(zone)
            }
        }
        calendar.components = zones + members.map(\.component)
        return calendar
    }

    /// A file name for a UID, unique among `taken` (compared without regard to case, for
    /// case-insensitive file systems), which it is added to.
    ///
    /// ASCII letters, digits and `-_.@+=` are kept; every other character (`/`, NUL,
    /// control characters, spaces, non-ASCII) becomes `_`; the second dot of `..` becomes
    /// `_`, and so does a leading dot, so no name is hidden, `.` or `..`. An empty result is
    /// `_`. A name longer than ``maximumNameLength`` keeps its first 100 characters plus
    /// `-` and 16 hexadecimal digits of a hash of the whole UID. A name already taken
    /// (another UID sanitised to the same text) gets `-` and 8 hexadecimal digits of the
    /// UID's hash, then a counter. Names are given in UID order, so the result is the same
    /// on every run. `.ics` is appended.
    public static func fileName(for uid: String, taken: inout Set<String>) -> String {
        fileName(for: uid, isTaken: { taken.contains($0) }, take: { taken.insert($0) })
    }

    /// ``fileName(for:taken:)`` with the names taken kept by the caller (lowercased).
    static func fileName(for uid: String, isTaken: (String) -> Bool, take: (String) -> Void) -> String {
        var name = ""
        var previousWasDot = false
        for scalar in uid.unicodeScalars {
            var character: Character
            if scalar.isASCII, (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.@+=".unicodeScalars.contains(scalar)) {
                character = Character(scalar)
            } else {
                character = "_"
            }
            if character == "." && (previousWasDot || name.isEmpty) { character = "_" }
            previousWasDot = character == "."
            name.append(character)
        }
        if name.isEmpty { name = "_" }
        let hash = StableHash(Array(uid.utf8)).hex
        if name.count > maximumNameLength {
            name = String(name.prefix(100)) + "-" + String(hash.prefix(16))
        }
        var candidate = name
        if isTaken(candidate.lowercased()) {
            candidate = name + "-" + String(hash.prefix(8))
            var counter = 2
            while isTaken(candidate.lowercased()) {
                candidate = name + "-" + String(hash.prefix(8)) + "-\(counter)"
                counter += 1
            }
        }
        take(candidate.lowercased())
        return candidate + ".ics"
    }

    /// Writes items into a folder (created when missing, one level), each file atomically;
    /// a file that already holds exactly the bytes to write is left untouched.
    ///
    /// Every target is checked first: when a file exists that is not ours to replace (see
    /// the type's documentation), nothing is written and the error names it.
    public func write(_ items: [Item], toFolder folder: String) throws(ICalError) {
        try Self.prepare(folder: folder)
        let base = Self.base(of: folder)
        let writer = ICalWriter()
        var pending: [(path: String, bytes: [UInt8])] = []
        for item in items {
            let path = base + item.fileName
            let bytes = writer.bytes(item.calendar)
            if try Self.needsWriting(bytes, uid: item.uid, to: path) { pending.append((path, bytes)) }
        }
        for file in pending {
            try FileIO.writeAtomically(file.bytes, to: file.path, synchronizeFolder: false)
        }
        FileIO.synchronize(folder: folder)
    }

    /// Creates the folder when missing (one level); fails when something else is there.
    static func prepare(folder: String) throws(ICalError) {
        var info = stat()
        if stat(folder, &info) != 0 {
            guard mkdir(folder, 0o755) == 0 else {
                throw ICalError(.io, "cannot create the folder: \(String(cString: strerror(errno)))", file: folder)
            }
        } else if (info.st_mode & S_IFMT) != S_IFDIR {
            throw ICalError(.io, "is not a folder", file: folder)
        }
    }

    /// The folder's path with a `/` at the end, for its files' paths.
    static func base(of folder: String) -> String {
        folder.hasSuffix("/") ? folder : folder + "/"
    }

    /// Whether `bytes`, an item with `uid`, are to be written to `path`: true when nothing
    /// is there, false when the file there already holds exactly these bytes.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` when the file there is not ours to
    ///   replace (see the type's documentation): nothing is to be written then.
    static func needsWriting(_ bytes: [UInt8], uid: String, to path: String) throws(ICalError) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return true }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw ICalError(.io, "exists and is not a regular file; nothing was written", file: path)
        }
        let existing: [UInt8]
        do {
            existing = try FileIO.readAll(path: path, limit: ICalReader.Limits.default.maxInputSize)
        } catch {
            throw ICalError(.io, "exists and cannot be read; not replaced, nothing was written", file: path)
        }
        if existing == bytes { return false }  // Already up to date: not rewritten.
        let uids: Set<String>
        do {
            let result = try ICalReader().read(existing, file: path)
            uids = Set(result.calendars.flatMap { calendar in
                (calendar.matches(.calendar) ? calendar.components : [calendar])
                    .filter { !$0.matches(.timeZone) }.map { $0.uid ?? "" }
            })
        } catch {
            throw ICalError(.io, "exists and is not an iCalendar file; not replaced, nothing was written", file: path)
        }
        guard uids == [uid] else {
            let names = uids.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw ICalError(.io, "exists and holds \(uids.isEmpty ? "no item" : "UID \(names)"), not UID \"\(uid)\"; "
                            + "not replaced, nothing was written", file: path)
        }
        return true
    }
}
