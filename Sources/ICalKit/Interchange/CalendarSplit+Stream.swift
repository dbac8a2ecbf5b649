#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

extension CalendarSplit {
    /// ``CalendarSplit/split(_:)`` and ``CalendarSplit/write(_:toFolder:)`` over inputs of
    /// any size: the files written, their bytes, the notes and the checks before writing are
    /// those of the split of whole reads, while memory holds one item (a UID's components)
    /// and records of the components, not the inputs' trees. What `ical convert --split`
    /// uses.
    ///
    /// How it goes:
    /// 1. Each input is read once (``add(_:file:)``, or ``add(repairing:note:)`` for a
    ///    repair's last read, or ``add(_:)`` for calendars read whole): every component
    ///    other than a VTIMEZONE becomes a record of its UID, RECURRENCE-ID, SEQUENCE,
    ///    DTSTAMP, TZIDs, file, line and place, in a sort that spills to a temporary file
    ///    (``RecordSorter``), so that a series' master and overrides meet wherever they are.
    ///    Each VCALENDAR's PRODID, CALSCALE and X-WR-TIMEZONE, and its first VTIMEZONE per
    ///    TZID, are kept (one copy of each distinct VTIMEZONE, up to a quarter of the memory
    ///    budget).
    /// 2. ``finish(_:)`` reads the records sorted by UID (as Swift orders strings), then
    ///    RECURRENCE-ID, then read order: the kept version of each UID and RECURRENCE-ID is
    ///    chosen as the whole split chooses it, each duplicate gives the same warning, and
    ///    the notes come out in read order (through a second sort). Each item's plan (its
    ///    file name, the places of its components, its TZIDs) goes to a third sort used as a
    ///    spooled list; the VTIMEZONEs to generate from tzdata are gathered from the items
    ///    that need them, read again from their places.
    /// 3. ``write(toFolder:)`` makes each item again from the plan (its components read
    ///    again from their places) and checks every target first, as the whole write does,
    ///    keeping the bytes of the files to write in a temporary file; only then are they
    ///    written, each atomically.
    ///
    /// File names taken are kept as 64-bit hashes of the lowercased names (a collision of
    /// two hashes, about one in 10^19 for a million names, would give a name a suffix it
    /// does not need).
    package final class Run {
        /// The split whose PRODID applies.
        package let split: CalendarSplit
        private let records: RecordSorter
        private let noteRecords: RecordSorter
        private var plans: RecordSorter
        private var interner: ComponentInterner
        private var inputs: [Source] = []
        private var names: [String?] = []
        private var discarded: Set<Int> = []
        private var calendars: [CalendarSource] = []
        private var order = 0
        private var generated: [String: Component] = [:]
        private var finished = false
        /// The input whose file was last read again (closed when another one is read).
        private var lastRead = -1

        /// Where an input's components are read again from.
        private enum Source {
            case stream(ICalComponentStream)
            case repaired(CalendarRepair.StreamedFile)
            case whole([Component])
        }

        /// What an item needs from the VCALENDAR it came from.
        private struct CalendarSource {
            var properties: [Property]
            var timeZones: [String: Component]
        }

        /// One component: what choosing among versions and making its item need.
        private struct Member {
            var input: Int
            var uid: String
            var recurrence: String
            var sequence: Int?
            var stamp: String?
            var line: Int
            var calendar: Int
            var order: Int
            /// Which VCALENDAR of its input it is in, and its place: byte offsets and line in a
            /// file, or its index among its VCALENDAR's components (read whole).
            var calendarIndex: Int
            var lower: Int
            var upper: Int
            var placeLine: Int
            var given: String?
            var timeZoneIdentifiers: [String]

            func append(to payload: inout RecordSorter.Payload) {
                payload.append(input)
                payload.append(uid)
                payload.append(recurrence)
                payload.append(sequence == nil ? 0 : 1)
                payload.append(sequence ?? 0)
                payload.append(stamp)
                payload.append(line)
                payload.append(calendar)
                payload.append(order)
                payload.append(calendarIndex)
                payload.append(lower)
                payload.append(upper)
                payload.append(placeLine)
                payload.append(given)
                payload.append(timeZoneIdentifiers.count)
                for tzid in timeZoneIdentifiers { payload.append(tzid) }
            }

            init(input: Int, uid: String, recurrence: String, sequence: Int?, stamp: String?, line: Int, calendar: Int,
                 order: Int, calendarIndex: Int, lower: Int, upper: Int, placeLine: Int, given: String?,
                 timeZoneIdentifiers: [String]) {
                self.input = input
                self.uid = uid
                self.recurrence = recurrence
                self.sequence = sequence
                self.stamp = stamp
                self.line = line
                self.calendar = calendar
                self.order = order
                self.calendarIndex = calendarIndex
                self.lower = lower
                self.upper = upper
                self.placeLine = placeLine
                self.given = given
                self.timeZoneIdentifiers = timeZoneIdentifiers
            }

            init(_ payload: inout RecordSorter.Payload) {
                input = payload.int()
                uid = payload.string() ?? ""
                recurrence = payload.string() ?? ""
                let hasSequence = payload.int() == 1
                let value = payload.int()
                sequence = hasSequence ? value : nil
                stamp = payload.string()
                line = payload.int()
                calendar = payload.int()
                order = payload.int()
                calendarIndex = payload.int()
                lower = payload.int()
                upper = payload.int()
                placeLine = payload.int()
                given = payload.string()
                timeZoneIdentifiers = (0..<max(payload.int(), 0)).map { _ in payload.string() ?? "" }
            }
        }

        /// A split whose records and notes may hold about an eighth of `memory` each in
        /// memory before they spill, and whose VTIMEZONEs may take a quarter of it.
        package convenience init(_ split: CalendarSplit = CalendarSplit(), memory: MemoryBudget = .default) {
            self.init(split, memory: memory, recordMemory: memory.bytes / 8)
        }

        /// A split whose records spill past `recordMemory` bytes (package: tests spill after
        /// a few records).
        package init(_ split: CalendarSplit, memory: MemoryBudget, recordMemory: Int) {
            self.split = split
            records = RecordSorter(memoryLimit: recordMemory)
            noteRecords = RecordSorter(memoryLimit: recordMemory)
            plans = RecordSorter(memoryLimit: recordMemory)
            interner = ComponentInterner(budget: memory.bytes / 4)
        }

        /// Whether records were spilled to a temporary file (for tests).
        package var spilled: Bool { records.spilled || plans.spilled }

        /// The number of items, after ``finish(_:)``.
        package private(set) var itemCount = 0

        // MARK: Inputs

        /// Reads a file once, recording its components; returns the read's summary. When
        /// the summary is not faithful (``ICalComponentStream/Summary/isFaithful``), the
        /// caller may ``discardLastInput()`` and add the file read whole instead.
        ///
        /// - Throws: what ``ICalComponentStream/read(_:)`` throws;
        ///   ``ICalError/Code-swift.struct/limitExceeded`` when the VTIMEZONEs kept take more
        ///   than a quarter of the budget; ``ICalError/Code-swift.struct/io`` when a temporary
        ///   file cannot be written.
        package func add(_ stream: ICalComponentStream, file: String?) throws(ICalError) -> ICalComponentStream.Summary {
            let input = inputs.count
            inputs.append(.stream(stream))
            names.append(file)
            let base = calendars.count
            var zones: [Int: [String: Component]] = [:]
            var failure: ICalError?
            let summary = try stream.read { event in
                guard failure == nil, case .component(let item) = event else { return }
                do throws(ICalError) {
                    if item.component.matches(.timeZone) {
                        try keep(zone: item.component, bytes: item.location.bytes.count, in: &zones[item.calendarIndex, default: [:]])
                        return
                    }
                    try record(item.component, input: input, calendar: base + item.calendarIndex, calendarIndex: item.calendarIndex,
                               location: item.location, given: nil)
                } catch { failure = error }
            }
            if let failure { throw failure }
            for (index, header) in summary.calendars.enumerated() {
                calendars.append(CalendarSource(properties: Self.sourceProperties(header.properties), timeZones: zones[index] ?? [:]))
            }
            stream.close()
            return summary
        }

        /// Forgets the input added last (its records are passed over), for one that is
        /// added again read whole.
        package func discardLastInput() {
            discarded.insert(inputs.count - 1)
        }

        /// Records the components a repair hands out in its last read
        /// (``CalendarRepair/StreamedFile/read(_:_:)``), which this calls; `note` gets the
        /// repair's notes.
        package func add(repairing file: CalendarRepair.StreamedFile,
                         note: (ConversionNote, [Int]) -> Void) throws(ICalError) {
            let input = inputs.count
            inputs.append(.repaired(file))
            names.append(file.file)
            let base = calendars.count
            for (header, zones) in file.calendars {
                var byIdentifier: [String: Component] = [:]
                for zone in zones {
                    if let tzid = zone[.timeZoneIdentifier]?.trimmingASCIIWhitespace(), byIdentifier[tzid] == nil { byIdentifier[tzid] = zone }
                }
                calendars.append(CalendarSource(properties: Self.sourceProperties(header.properties), timeZones: byIdentifier))
            }
            var failure: ICalError?
            try file.read(note) { event, given in
                guard failure == nil, case .component(let item) = event, !item.component.matches(.timeZone) else { return }
                do throws(ICalError) {
                    try record(item.component, input: input, calendar: base + item.calendarIndex, calendarIndex: item.calendarIndex,
                               location: item.location, given: given)
                } catch { failure = error }
            }
            if let failure { throw failure }
            file.stream.close()
        }

        /// Records the components of calendars read whole, as ``CalendarSplit/split(_:)``
        /// takes them.
        package func add(_ input: CalendarSplit.Input) throws(ICalError) {
            let index = inputs.count
            inputs.append(.whole(input.calendars))
            names.append(input.file)
            for (calendarIndex, calendar) in input.calendars.enumerated() {
                var zones: [String: Component] = [:]
                for zone in calendar.components(.timeZone) {
                    if let tzid = zone[.timeZoneIdentifier]?.trimmingASCIIWhitespace(), zones[tzid] == nil { zones[tzid] = zone }
                }
                calendars.append(CalendarSource(properties: Self.sourceProperties(calendar.properties), timeZones: zones))
                let members = calendar.matches(.calendar) ? calendar.components : [calendar]
                for (position, component) in members.enumerated() where !component.matches(.timeZone) {
                    try record(component, input: index, calendar: calendars.count - 1, calendarIndex: calendarIndex,
                               location: ICalComponentStream.Location(bytes: position..<position, line: 0), given: nil)
                }
            }
        }

        /// The properties an item takes from its VCALENDAR: the first PRODID, CALSCALE and
        /// X-WR-TIMEZONE.
        private static func sourceProperties(_ properties: [Property]) -> [Property] {
            var kept: [Property] = []
            for kind in [PropertyKind.productIdentifier, .calendarScale, .calendarTimeZone] {
                if let property = properties.first(where: { $0.matches(kind) }) { kept.append(property) }
            }
            return kept
        }

        private func keep(zone: Component, bytes: Int, in zones: inout [String: Component]) throws(ICalError) {
            guard let tzid = zone[.timeZoneIdentifier]?.trimmingASCIIWhitespace(), zones[tzid] == nil else { return }
            zones[tzid] = try interner.intern(zone, size: bytes, what: "the VTIMEZONEs of the inputs", file: nil)
        }

        /// A UID as Swift compares it: its NFC form (UTF-8 order of NFC is Swift's order).
        private static func sortText(_ uid: String) -> String {
            uid.utf8.allSatisfy({ $0 < 0x80 }) ? uid : String(decoding: uid._nfcCodeUnits, as: UTF8.self)
        }

        private func record(_ component: Component, input: Int, calendar: Int, calendarIndex: Int,
                            location: ICalComponentStream.Location, given: String?) throws(ICalError) {
            order += 1
            guard let uid = component.uid, !uid.isEmpty else {
                try addNote(ConversionNote(.error, file: names[input], line: component.line ?? 0,
                    message: "\(component.name.uppercased()) has no UID, so it cannot be split into its own file; "
                        + "--repair gives it a stable one"), input: input, order: order)
                return
            }
            var used: [String] = []
            func collect(_ component: Component) {
                for property in component.properties {
                    if let tzid = property[parameter: .timeZoneIdentifier], !used.contains(tzid) { used.append(tzid) }
                }
                component.components.forEach(collect)
            }
            collect(component)
            let recurrence = component.recurrenceIdentifier?.iCalendarText ?? ""
            let member = Member(input: input, uid: uid, recurrence: recurrence, sequence: component.sequence,
                                stamp: component.dateTimeStamp?.iCalendarText, line: component.line ?? 0, calendar: calendar,
                                order: order, calendarIndex: calendarIndex, lower: location.bytes.lowerBound,
                                upper: location.bytes.upperBound, placeLine: location.line, given: given,
                                timeZoneIdentifiers: used)
            var key = RecordSorter.Key()
            key.append(Self.sortText(uid))
            key.append(recurrence)
            key.append(order)
            var payload = RecordSorter.Payload()
            member.append(to: &payload)
            try records.add(key: key, payload: payload)
        }

        private func addNote(_ note: ConversionNote, input: Int, order: Int) throws(ICalError) {
            var key = RecordSorter.Key()
            key.append(order)
            var payload = RecordSorter.Payload()
            payload.append(input)
            payload.append(note.kind.rawValue)
            payload.append(note.file)
            payload.append(note.line)
            payload.append(note.message)
            try noteRecords.add(key: key, payload: payload)
        }

        // MARK: Choosing

        /// Whether `candidate` wins over `existing`: higher SEQUENCE, then later DTSTAMP.
        private static func isNewer(_ candidate: Member, than existing: Member) -> Bool {
            let new = candidate.sequence ?? 0, old = existing.sequence ?? 0
            if new != old { return new > old }
            let newStamp = candidate.stamp.flatMap { DateTime(iCalendar: $0) }?.local
            let oldStamp = existing.stamp.flatMap { DateTime(iCalendar: $0) }?.local
            switch (newStamp, oldStamp) {
            case let (new?, old?): return new > old
            case (.some, nil): return true
            default: return false
            }
        }

        private func describe(_ member: Member) -> String {
            "\(names[member.input] ?? "<input>"):\(member.line) (SEQUENCE \(member.sequence ?? 0)"
                + (member.stamp.map { ", DTSTAMP \($0)" } ?? "") + ")"
        }

        /// Chooses each UID's components, names the items and gathers what they need, then
        /// hands `report` every note in read order (duplicates as warnings, components
        /// without UID as errors). Returns whether there was an error: nothing may be
        /// written then. Call it once, after the last input.
        ///
        /// - Throws: ``ICalError/Code-swift.struct/io`` when a temporary file cannot be
        ///   written or read back, or an input changed since it was read.
        package func finish(_ report: (ConversionNote) -> Void) throws(ICalError) -> Bool {
            precondition(!finished, "CalendarSplit.Run.finish called twice")
            finished = true
            var needs = TimeZoneExport.Needs()
            var taken = Set<UInt64>()
            var group: [Member] = []        // the current UID's chosen components, by RECURRENCE-ID
            var groupKey = ""
            var first: Member?              // the UID's first component read (its UID is the item's)
            var chosen: Member?             // the current RECURRENCE-ID's chosen one
            var planCount = 0
            func closeRecurrence() {
                if let chosen { group.append(chosen) }
                chosen = nil
            }
            func closeGroup() throws(ICalError) {
                closeRecurrence()
                defer { group = []; first = nil }
                guard let first, !group.isEmpty else { return }
                var used: [String] = []
                for member in group {
                    for tzid in member.timeZoneIdentifiers where !used.contains(tzid) { used.append(tzid) }
                }
                if used.contains(where: { tzid in !group.contains { calendars[$0.calendar].timeZones[tzid] != nil } }) {
                    for member in group { needs.add(try component(member)) }
                }
                let name = CalendarSplit.fileName(for: first.uid, isTaken: { taken.contains(Self.nameHash($0)) },
                                                  take: { taken.insert(Self.nameHash($0)) })
                var key = RecordSorter.Key()
                key.append(planCount)
                planCount += 1
                var payload = RecordSorter.Payload()
                payload.append(first.uid)
                payload.append(name)
                let sortedUsed = used.sorted()
                payload.append(sortedUsed.count)
                for tzid in sortedUsed { payload.append(tzid) }
                payload.append(group.count)
                for member in group { member.append(to: &payload) }
                try plans.add(key: key, payload: payload)
            }
            do {
                try records.forEachSorted { key, payload in
                    var payload = payload
                    let member = Member(&payload)
                    guard !discarded.contains(member.input) else { return }
                    let uidKey = Self.sortText(member.uid)
                    if first == nil || uidKey != groupKey {
                        try closeGroup()
                        groupKey = uidKey
                        first = member
                    } else if member.order < first!.order {
                        first = member
                    }
                    guard let existing = chosen, existing.recurrence == member.recurrence else {
                        closeRecurrence()
                        chosen = member
                        return
                    }
                    let winner = Self.isNewer(member, than: existing) ? member : existing
                    let loser = winner.order == member.order ? existing : member
                    chosen = winner
                    let what = member.recurrence.isEmpty ? "UID \"\(member.uid)\"" : "UID \"\(member.uid)\" RECURRENCE-ID \(member.recurrence)"
                    try addNote(ConversionNote(.warning, file: names[member.input], line: member.line,
                        message: "duplicate \(what): kept \(describe(winner)), dropped \(describe(loser))"), input: member.input, order: member.order)
                }
                try closeGroup()
            } catch let error as ICalError {
                throw error
            } catch {
                throw ICalError(.io, "\(error)")
            }
            itemCount = planCount
            generated = [:]
            for zone in needs.timeZones() {
                if let tzid = zone[.timeZoneIdentifier] { generated[tzid] = zone }
            }
            var failed = false
            do {
                try noteRecords.forEachSorted { _, payload in
                    var payload = payload
                    guard !discarded.contains(payload.int()) else { return }
                    let kind = ConversionNote.Kind(rawValue: payload.string() ?? "") ?? .warning
                    let file = payload.string()
                    let line = payload.int()
                    let message = payload.string() ?? ""
                    if kind == .error { failed = true }
                    report(ConversionNote(kind, file: file, line: line, message: message))
                }
            } catch let error as ICalError {
                throw error
            } catch {
                throw ICalError(.io, "\(error)")
            }
            return failed
        }

        /// A lowercased file name as kept among the names taken.
        private static func nameHash(_ name: String) -> UInt64 {
            let hash = StableHash(Array(name.utf8))
            return hash.high ^ (hash.low &* 0x9E37_79B9_7F4A_7C15)
        }

        /// A component read again from its place.
        private func component(_ member: Member) throws(ICalError) -> Component {
            if lastRead != member.input, lastRead >= 0 {
                switch inputs[lastRead] {
                case .stream(let stream): stream.close()
                case .repaired(let file): file.stream.close()
                case .whole: break
                }
            }
            lastRead = member.input
            let location = ICalComponentStream.Location(bytes: member.lower..<member.upper, line: member.placeLine)
            switch inputs[member.input] {
            case .stream(let stream):
                return try stream.component(at: location)
            case .repaired(let file):
                return try file.repairedComponent(at: location, calendar: member.calendarIndex, identifier: member.given)
            case .whole(let calendars):
                let calendar = calendars[member.calendarIndex]
                return (calendar.matches(.calendar) ? calendar.components : [calendar])[member.lower]
            }
        }

        // MARK: Writing

        /// Writes the items into a folder (created when missing, one level), as
        /// ``CalendarSplit/write(_:toFolder:)`` writes them: every target is checked first,
        /// and when a file is in the way nothing is written. The files to write wait in a
        /// temporary file meanwhile. Call it once, after ``finish(_:)``.
        package func write(toFolder folder: String) throws(ICalError) {
            precondition(finished, "CalendarSplit.Run.write before finish")
            try CalendarSplit.prepare(folder: folder)
            let base = CalendarSplit.base(of: folder)
            let writer = ICalWriter()
            let spool = try FileIO.unlinkedTemporaryFile("split")
            defer { close(spool) }
            var spooled = 0
            var pendingCount = 0
            let pendingList = RecordSorter(memoryLimit: 1 << 22)
            do {
                try plans.forEachSorted { _, payload in
                    var payload = payload
                    let uid = payload.string() ?? ""
                    let name = payload.string() ?? ""
                    let used = (0..<payload.int()).map { _ in payload.string() ?? "" }
                    let members = (0..<payload.int()).map { _ in Member(&payload) }
                    let bytes = writer.bytes(try calendar(members, timeZoneIdentifiers: used))
                    let path = base + name
                    guard try CalendarSplit.needsWriting(bytes, uid: uid, to: path) else { return }
                    try FileIO.writeAll(bytes, to: spool, path: "<temporary file>")
                    var entry = RecordSorter.Payload()
                    entry.append(path)
                    entry.append(spooled)
                    entry.append(bytes.count)
                    var next = RecordSorter.Key()
                    next.append(pendingCount)
                    pendingCount += 1
                    try pendingList.add(key: next, payload: entry)
                    spooled += bytes.count
                }
            } catch let error as ICalError {
                throw error
            } catch {
                throw ICalError(.io, "\(error)")
            }
            do {
                try pendingList.forEachSorted { _, payload in
                    var payload = payload
                    let path = payload.string() ?? ""
                    let offset = payload.int(), count = payload.int()
                    var bytes = [UInt8](repeating: 0, count: count)
                    var done = 0
                    while done < count {
                        let read = bytes.withUnsafeMutableBytes { pread(spool, $0.baseAddress! + done, count - done, off_t(offset + done)) }
                        if read < 0 && errno == EINTR { continue }
                        guard read > 0 else { throw ICalError(.io, "cannot read back a temporary file: \(String(cString: strerror(errno)))") }
                        done += read
                    }
                    try FileIO.writeAtomically(bytes, to: path, synchronizeFolder: false)
                }
            } catch let error as ICalError {
                throw error
            } catch {
                throw ICalError(.io, "\(error)")
            }
            FileIO.synchronize(folder: folder)
        }

        /// An item's VCALENDAR, as ``CalendarSplit/split(_:)`` makes it.
        private func calendar(_ members: [Member], timeZoneIdentifiers: [String]) throws(ICalError) -> Component {
            let source = calendars[members[0].calendar].properties
            func first(_ kind: PropertyKind) -> Property? { source.first { $0.matches(kind) } }
            var calendar = Component(kind: .calendar)
            calendar.addProperty(Property(.version, rawValue: "2.0"))
            calendar.addProperty(first(.productIdentifier)
                ?? Property(.productIdentifier, rawValue: TextCoding.escape(split.productIdentifier)))
            if let scale = first(.calendarScale) { calendar.addProperty(scale) }
            if let zone = first(.calendarTimeZone) { calendar.addProperty(zone) }
            calendar.properties = calendar.properties.map { var property = $0; property.line = nil; return property }
            var zones: [Component] = []
            for tzid in timeZoneIdentifiers {
                if let zone = members.lazy.compactMap({ self.calendars[$0.calendar].timeZones[tzid] }).first ?? generated[tzid] {
                    zones.append(zone)
                }
            }
            var components = zones
            for member in members { components.append(try component(member)) }
            calendar.components = components
            return calendar
        }
    }
}
