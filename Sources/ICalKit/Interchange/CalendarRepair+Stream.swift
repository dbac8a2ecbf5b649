extension CalendarRepair {
    /// ``CalendarRepair/repair(_:file:)`` over a file of any size, read one component at a
    /// time with ``ICalComponentStream``: the components, notes and VTIMEZONEs are those of
    /// the repair of the whole file, while memory holds one component and what the repair
    /// knows of each VCALENDAR (its properties, VTIMEZONEs and TZIDs), not the file's tree.
    ///
    /// The repairs are per component once a few facts of its VCALENDAR are known, and those
    /// are gathered by a first read (``prepare()``):
    /// - the VCALENDAR's properties (VERSION, PRODID and X-WR-TIMEZONE, also when they come
    ///   after its components), its VTIMEZONEs (kept in memory, up to `zoneBudget` bytes
    ///   for the file's distinct ones), and the TZIDs its components use, in order, with the line of their
    ///   first use (for the warnings about unknown ones);
    /// - the VTIMEZONEs to generate from tzdata: each component is repaired as the second
    ///   read will repair it and its TZIDs are gathered (``TimeZoneExport/Needs``). When a
    ///   VTIMEZONE or a VCALENDAR property comes after a component (rare), what the
    ///   component's repair depends on was not known yet, and the file is read once more
    ///   for this.
    ///
    /// The last read (``read(_:_:)``) repairs each component and hands it out in file
    /// order, with the generated VTIMEZONEs before the VCALENDAR's first other component
    /// and the renamed VTIMEZONEs left out, as the whole repair puts them; each note comes
    /// with its place among the file's notes, for the caller to sort them (by line, then in
    /// the order the whole repair makes them) with a sort that spills (``RecordSorter``).
    ///
    /// Components without UID are given the same UIDs as by the whole repair: the content's
    /// hash, numbered when an earlier component has that UID. Only UIDs shaped as those
    /// hashes are remembered for this (what an earlier repair wrote), not every UID.
    package final class StreamedFile {
        /// The file read.
        package let stream: ICalComponentStream
        /// The file's name in notes.
        package let file: String?
        private var repair: CalendarRepair
        private let zoneBudget: Int
        private var facts: [Facts] = []
        private var renameCache: [String: String?] = [:]
        /// The UIDs shaped as generated ones, read or given so far (``read(_:_:)``).
        private var usedIdentifiers: Set<String> = []
        private var noteCount = 0

        /// The phases of the whole repair, in the order it makes its notes.
        private enum Phase: Int {
            case versionAndProduct, unknownTimeZones, renames, removedTimeZones, calendarTimeZone,
                 appliedCalendarTimeZone, until, generatedTimeZones, stamps
        }

        /// What the repair of one VCALENDAR needs to know of all of it.
        private struct Facts {
            /// Its properties as read (complete after the first read).
            var header: Component
            /// Its VTIMEZONEs as read, in order.
            var zones: [Component] = []
            /// How many of ``zones`` came before its first other component (-1: none came).
            var zonesBeforeFirstItem = -1
            var propertiesAtFirstItem = 0
            /// The TZIDs its components use, in order, with the line of the first use.
            var uses: [(tzid: String, line: Int?)] = []
            var seen: Set<String> = []
            var needs = TimeZoneExport.Needs()
            /// Whether a VTIMEZONE or property came after a component.
            var late = false
            // Known after the first read.
            var repairedHeader = Component(kind: .calendar)
            var zone: IANATimeZone?
            var generated: [Component] = []
            var resolver: TimeZoneResolver?
        }

        /// A repair of the file `stream` reads, its notes naming `file`, whose VTIMEZONEs
        /// may take `zoneBudget` bytes. The repair's clock should give one time (a DTSTAMP
        /// given is the same in every read).
        package init(_ repair: CalendarRepair, stream: ICalComponentStream, file: String?, zoneBudget: Int) {
            self.repair = repair
            self.stream = stream
            self.file = file
            self.zoneBudget = zoneBudget
        }

        /// The first read (two when something comes late): the file's summary, with its
        /// diagnostics as a whole read reports them.
        ///
        /// - Throws: what ``ICalComponentStream/read(_:)`` throws, and
        ///   ``ICalError/Code-swift.struct/limitExceeded`` when the file's VTIMEZONEs take
        ///   more than the budget.
        package func prepare() throws(ICalError) -> ICalComponentStream.Summary {
            facts = []
            var failure: ICalError?
            var interner = ComponentInterner(budget: zoneBudget)
            let summary = try stream.read { event in
                guard failure == nil else { return }
                switch event {
                case .component(let item):
                    let index = item.calendarIndex
                    while facts.count <= index { facts.append(Facts(header: item.calendar)) }
                    if item.component.matches(.timeZone) {
                        do throws(ICalError) {
                            facts[index].zones.append(try interner.intern(item.component, size: item.location.bytes.count,
                                                                          what: "its VTIMEZONEs", file: stream.file))
                        } catch {
                            failure = error
                            return
                        }
                        facts[index].resolver = nil
                        if facts[index].zonesBeforeFirstItem >= 0 { facts[index].late = true }
                        return
                    }
                    if facts[index].zonesBeforeFirstItem < 0 {
                        facts[index].zonesBeforeFirstItem = facts[index].zones.count
                        facts[index].propertiesAtFirstItem = item.calendar.properties.count
                        facts[index].header = item.calendar
                        facts[index].zone = Self.calendarZone(item.calendar)
                    }
                    Self.forEachTZID(item.component) { tzid, line in
                        if facts[index].seen.insert(tzid).inserted { facts[index].uses.append((tzid, line)) }
                    }
                    // What the last read will give, if nothing comes late.
                    var component = item.component
                    transform(&component, calendar: index, report: nil)
                    facts[index].needs.add(component)
                case .endOfCalendar(let header, let index):
                    while facts.count <= index { facts.append(Facts(header: header)) }
                    if facts[index].zonesBeforeFirstItem >= 0 && header.properties.count != facts[index].propertiesAtFirstItem {
                        facts[index].late = true
                    }
                    facts[index].header = header
                }
            }
            if let failure { throw failure }
            for index in facts.indices { finishFacts(index) }
            if facts.contains(where: \.late) {
                for index in facts.indices where facts[index].late { facts[index].needs = TimeZoneExport.Needs() }
                _ = try stream.read { event in
                    guard case .component(let item) = event, facts[item.calendarIndex].late,
                          !item.component.matches(.timeZone) else { return }
                    var component = item.component
                    transform(&component, calendar: item.calendarIndex, report: nil)
                    facts[item.calendarIndex].needs.add(component)
                }
            }
            for index in facts.indices {
                var needs = facts[index].needs
                needs.add(facts[index].repairedHeader)
                let defined = Set(keptZones(index).compactMap { $0[.timeZoneIdentifier]?.trimmingASCIIWhitespace() })
                facts[index].generated = needs.timeZones(excluding: defined)
                facts[index].needs = TimeZoneExport.Needs()
            }
            return summary
        }

        /// Each VCALENDAR as the repair writes it: its properties (no components) and its
        /// VTIMEZONEs in order, generated ones included. Known after ``prepare()``.
        package var calendars: [(header: Component, timeZones: [Component])] {
            facts.indices.map { index in
                let kept = keptZones(index)
                let before = facts[index].zonesBeforeFirstItem < 0
                    ? kept.count
                    : facts[index].zones[..<facts[index].zonesBeforeFirstItem].filter { !isRemoved($0) }.count
                return (facts[index].repairedHeader, Array(kept[..<before]) + facts[index].generated + kept[before...])
            }
        }

        /// The last read: hands out the repaired components, each with the UID given to it
        /// (nil when it had one), and each VCALENDAR's end with its repaired properties;
        /// `note` gets every note with its place among the file's notes (line, calendar,
        /// then the order the whole repair makes them in).
        package func read(_ note: (ConversionNote, [Int]) -> Void,
                          _ body: (ICalComponentStream.Event, _ givenIdentifier: String?) -> Void) throws(ICalError) {
            try withoutActuallyEscaping(note) { note throws(ICalError) in try read(escaping: note, body) }
        }

        private func read(escaping note: @escaping (ConversionNote, [Int]) -> Void,
                          _ body: (ICalComponentStream.Event, _ givenIdentifier: String?) -> Void) throws(ICalError) {
            usedIdentifiers = []
            noteCount = 0
            var started = Set<Int>()
            var itemSeen = Set<Int>()
            func start(_ index: Int) {
                guard started.insert(index).inserted else { return }
                calendarNotes(index, note)
            }
            func generated(_ index: Int) {
                guard itemSeen.insert(index).inserted else { return }
                for zone in facts[index].generated {
                    body(.component(ICalComponentStream.Item(component: zone, calendar: facts[index].repairedHeader, calendarIndex: index,
                                                             location: ICalComponentStream.Location(bytes: 0..<0, line: 0))), nil)
                }
            }
            _ = try stream.read { event in
                switch event {
                case .component(var item):
                    let index = item.calendarIndex
                    start(index)
                    let calendarLine = facts[index].header.line ?? 1
                    if item.component.matches(.timeZone) {
                        if let tzid = item.component[.timeZoneIdentifier]?.trimmingASCIIWhitespace(), let name = renamed(tzid) {
                            add(note, .repaired, item.component.line, calendarLine, index, .removedTimeZones,
                                "removed VTIMEZONE \"\(tzid)\"; \"\(name)\" is generated from tzdata instead")
                            return
                        }
                    } else {
                        generated(index)
                    }
                    var given: String?
                    if !item.component.matches(.timeZone) {
                        transform(&item.component, calendar: index) { kind, line, message, phase in
                            self.add(note, kind, line, calendarLine, index, phase, message)
                        }
                        given = stamp(&item.component, given: nil) { kind, line, message in
                            self.add(note, kind, line, calendarLine, index, .stamps, message)
                        }
                    }
                    item.calendar = facts[index].repairedHeader
                    body(.component(item), given)
                case .endOfCalendar(_, let index):
                    start(index)
                    generated(index)
                    body(.endOfCalendar(facts[index].repairedHeader, calendarIndex: index), nil)
                }
            }
        }

        /// The component at `location` of VCALENDAR `calendar` read again and repaired as
        /// ``read(_:_:)`` repaired it, `identifier` being the UID it gave (nil: none).
        package func repairedComponent(at location: ICalComponentStream.Location, calendar: Int,
                                       identifier: String?) throws(ICalError) -> Component {
            var component = try stream.component(at: location)
            guard !component.matches(.timeZone) else { return component }
            transform(&component, calendar: calendar, report: nil)
            _ = stamp(&component, given: identifier ?? "", report: nil)
            return component
        }

        // MARK: Steps

        private func add(_ note: (ConversionNote, [Int]) -> Void, _ kind: ConversionNote.Kind, _ line: Int?,
                         _ calendarLine: Int, _ calendar: Int, _ phase: Phase, _ message: String) {
            let line = line ?? calendarLine
            noteCount += 1
            note(ConversionNote(kind, file: file, line: line, message: message), [line, calendar, phase.rawValue, noteCount])
        }

        /// The notes about a VCALENDAR rather than one of its components.
        private func calendarNotes(_ index: Int, _ note: (ConversionNote, [Int]) -> Void) {
            let header = facts[index].header
            let calendarLine = header.line ?? 1
            func report(_ kind: ConversionNote.Kind, _ line: Int?, _ phase: Phase, _ message: String) {
                add(note, kind, line, calendarLine, index, phase, message)
            }
            if header.property(.version) == nil { report(.repaired, calendarLine, .versionAndProduct, "added VERSION:2.0") }
            if header.property(.productIdentifier) == nil {
                report(.repaired, calendarLine, .versionAndProduct, "added PRODID:\(repair.productIdentifier)")
            }
            let defined = Set(facts[index].zones.compactMap { $0[.timeZoneIdentifier]?.trimmingASCIIWhitespace() })
            for use in facts[index].uses where !defined.contains(use.tzid) && TimeZoneResolver.resolveStandard(use.tzid) == nil {
                report(.warning, use.line, .unknownTimeZones, "TZID \"\(use.tzid)\" is not a known IANA, Windows or vendor-prefixed zone "
                       + "and has no VTIMEZONE; left as it is")
            }
            if let property = header.properties.first(where: { $0.matches(.calendarTimeZone) }) {
                let name = property.textValue.trimmingASCIIWhitespace()
                if let zone = facts[index].zone {
                    if zone.identifier != name {
                        report(.repaired, property.line, .calendarTimeZone, "X-WR-TIMEZONE \"\(name)\" -> \"\(zone.identifier)\"")
                    }
                } else {
                    report(.warning, property.line, .calendarTimeZone,
                           "X-WR-TIMEZONE \"\(name)\" is not a known zone; floating times left as they are")
                }
            }
            for zone in facts[index].generated {
                report(.repaired, calendarLine, .generatedTimeZones,
                       "added VTIMEZONE \"\(zone[.timeZoneIdentifier] ?? "")\" generated from tzdata")
            }
        }

        /// The VCALENDAR's properties repaired and its zone, once they are all read.
        private func finishFacts(_ index: Int) {
            var header = facts[index].header
            if header.property(.version) == nil {
                header.properties.insert(Property(.version, rawValue: "2.0"), at: 0)
            }
            if header.property(.productIdentifier) == nil {
                let at = header.properties.firstIndex { $0.matches(.version) }.map { $0 + 1 } ?? 0
                header.properties.insert(Property(.productIdentifier, rawValue: TextCoding.escape(repair.productIdentifier)), at: at)
            }
            let zone = Self.calendarZone(header)
            if let zone, let position = header.properties.firstIndex(where: { $0.matches(.calendarTimeZone) }),
               zone.identifier != header.properties[position].textValue.trimmingASCIIWhitespace() {
                header.properties[position].textValue = zone.identifier
            }
            facts[index].repairedHeader = header
            facts[index].zone = zone
            facts[index].resolver = nil
        }

        /// The zone X-WR-TIMEZONE names, when it names a known one.
        private static func calendarZone(_ header: Component) -> IANATimeZone? {
            guard let property = header.properties.first(where: { $0.matches(.calendarTimeZone) }) else { return nil }
            return TimeZoneResolver.resolveStandard(property.textValue.trimmingASCIIWhitespace())?.rules as? IANATimeZone
        }

        /// The IANA name a Windows or vendor-prefixed TZID is renamed to.
        private func renamed(_ tzid: String) -> String? {
            if let known = renameCache[tzid] { return known }
            var name: String?
            if let standard = TimeZoneResolver.resolveStandard(tzid),
               standard.source == .windows || standard.source == .vendorPrefix, standard.identifier != tzid {
                name = standard.identifier
            }
            renameCache[tzid] = name
            return name
        }

        private func isRemoved(_ zone: Component) -> Bool {
            guard let tzid = zone[.timeZoneIdentifier]?.trimmingASCIIWhitespace() else { return false }
            return renamed(tzid) != nil
        }

        /// The VCALENDAR's VTIMEZONEs the repair keeps, in order.
        private func keptZones(_ index: Int) -> [Component] {
            facts[index].zones.filter { !isRemoved($0) }
        }

        /// Calls `body` with every TZID parameter below `component` (VTIMEZONEs excepted),
        /// in the order ``CalendarRepair/forEachProperty(of:_:)`` visits them.
        private static func forEachTZID(_ component: Component, _ body: (String, Int?) -> Void) {
            guard !component.matches(.timeZone) else { return }
            for property in component.properties {
                if let tzid = property[parameter: .timeZoneIdentifier] { body(tzid, property.line) }
            }
            for child in component.components { forEachTZID(child, body) }
        }

        /// The renames, X-WR-TIMEZONE and UNTIL repairs of one component (not a VTIMEZONE).
        private func transform(_ component: inout Component, calendar index: Int,
                               report: ((ConversionNote.Kind, Int?, String, Phase) -> Void)?) {
            // TZIDs renamed.
            func walk(_ component: inout Component) {
                guard !component.matches(.timeZone) else { return }
                let owner = component.line
                for position in component.properties.indices {
                    guard let tzid = component.properties[position][parameter: .timeZoneIdentifier], let name = renamed(tzid) else { continue }
                    component.properties[position].setParameter(.timeZoneIdentifier, to: name)
                    report?(.repaired, component.properties[position].line ?? owner, "TZID \"\(tzid)\" -> \"\(name)\"", .renames)
                }
                for position in component.components.indices { walk(&component.components[position]) }
            }
            walk(&component)
            // X-WR-TIMEZONE.
            if let zone = facts[index].zone, CalendarRepair.takesCalendarTimeZone(component) {
                if let report {
                    CalendarRepair.applyCalendarTimeZone(zone, to: &component) { kind, line, message in
                        report(kind, line, message, .appliedCalendarTimeZone)
                    }
                } else {
                    CalendarRepair.applyCalendarTimeZone(zone, to: &component, report: nil)
                }
            }
            // RRULE UNTIL in UTC where DTSTART has a zone.
            guard let start = component.dateTimeStart, let tzid = start.timeZoneIdentifier,
                  component.properties.contains(where: { $0.matches(.recurrenceRule) && CalendarRepair.floatingUntil(in: $0.rawValue) != nil })
            else { return }
            if facts[index].resolver == nil {
                facts[index].resolver = TimeZoneResolver(calendar: Component(kind: .calendar, components: keptZones(index)))
            }
            guard let rules = facts[index].resolver?.resolve(tzid)?.rules else { return }
            for position in component.properties.indices where component.properties[position].matches(.recurrenceRule) {
                let property = component.properties[position]
                guard let (part, until) = CalendarRepair.floatingUntil(in: property.rawValue) else { continue }
                let utc = DateTime(LocalDateTime(secondsSinceEpoch: rules.instant(for: until.local)), zone: .utc)
                var parts = property.rawValue.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                parts[part] = "UNTIL=" + utc.iCalendarText
                component.properties[position].rawValue = parts.joined(separator: ";")
                report?(.repaired, property.line ?? component.line,
                        "RRULE UNTIL \(until.iCalendarText) is floating but DTSTART has TZID \"\(tzid)\"; "
                        + "in that zone it is \(utc.iCalendarText)", .until)
            }
        }

        /// ``CalendarRepair/stamp(_:report:usedIdentifiers:)``, remembering only the UIDs
        /// shaped as generated ones; with `given`, the UID a read gave before is given again
        /// (nothing is remembered). Returns the UID given.
        private func stamp(_ component: inout Component, given: String?,
                           report: ((ConversionNote.Kind, Int?, String) -> Void)?) -> String? {
            guard CalendarRepair.stampedKinds.contains(where: { component.matches($0) }) else { return nil }
            var identifier: String?
            if component.property(.uniqueIdentifier) == nil {
                if let given {
                    identifier = given
                } else {
                    identifier = CalendarRepair.generatedIdentifier(for: component, avoiding: &usedIdentifiers)
                }
                component.uid = identifier
                report?(.repaired, component.line, "added UID:\(identifier ?? "") to \(component.name.uppercased())")
            } else if given == nil, let uid = component.uid, Self.mayBeGenerated(uid) {
                usedIdentifiers.insert(uid)
            }
            if component.property(.dateTimeStamp) == nil {
                let stamp = repair.now()
                component.dateTimeStamp = stamp
                report?(.repaired, component.line, "added DTSTAMP:\(stamp.iCalendarText) to \(component.name.uppercased())")
            }
            return identifier
        }

        /// Whether a UID could be one ``StableHash/uuidText`` gives (36 characters, the
        /// version digit 8): only those can be what a generated UID must not repeat.
        static func mayBeGenerated(_ uid: String) -> Bool {
            let utf8 = uid.utf8
            guard utf8.count == 36 else { return false }
            return utf8[utf8.index(utf8.startIndex, offsetBy: 14)] == UInt8(ascii: "8")
        }
    }
}
