extension OccurrenceQuery {
    /// What ``source(streaming:name:memory:including:)`` read of a file.
    public struct StreamedSource {
        /// The file's calendar as the query needs it (nil: the file has no calendar data, or
        /// `including` left out every VCALENDAR).
        public var source: Source?
        /// The problems the read found, as a whole read reports them.
        public var diagnostics: [Diagnostic]
        /// How many components the file held besides its VTIMEZONEs, and how many of them
        /// were kept: those of the series that may have an occurrence in the window.
        public var componentCount: Int
        /// The components kept (see ``componentCount``).
        public var keptCount: Int
        /// How many sorted runs of component records went to a temporary file (0: the
        /// records fit in the memory budget).
        public var spilledRuns: Int
    }

    /// The records a streamed source keeps in memory before it sorts them to a temporary
    /// file, instead of an eighth of its budget: task-local, so that a test can spill a small
    /// file (`OccurrenceQuery.$recordCapacity.withValue(64) { … }`).
    @TaskLocal package static var recordCapacity: Int?

    /// One component of the file, as the first pass records it: 32 bytes, whatever the
    /// component.
    private struct ComponentRecord: BitwiseCopyable {
        /// The hash of the component's kind and UID (a number of its own without a UID).
        var key: UInt64
        var offset: Int64
        var line: Int64
        /// The text's length; the high bit marks a component that may have an occurrence in
        /// the window (a candidate).
        var length: UInt32
        var calendar: UInt32

        static let candidateBit: UInt32 = 1 << 31
        var isCandidate: Bool { length & Self.candidateBit != 0 }
        var byteCount: Int { Int(length & ~Self.candidateBit) }
    }

    /// Reads a file too large to hold whole, one component at a time, and gives the
    /// calendar this query needs of it: every VTIMEZONE (the first per TZID), and the
    /// components of each series (a kind and UID) at least one component of which may have
    /// an occurrence in the window. ``stream(_:)`` over that source answers exactly as over
    /// the whole file, in the same order, while memory holds the series that matter (what
    /// the answer shows), not the file.
    ///
    /// The first pass reads every component once and records its UID, its place and whether
    /// it may touch the window, a test that errs on the side of keeping: it widens the window
    /// by two days on each side (so a VTIMEZONE that comes after the events, or an
    /// X-WR-TIMEZONE, cannot move an event out of it), and it keeps an override whose own time
    /// or whose RECURRENCE-ID is near the window, or that has a RANGE. The records (32 bytes
    /// each) are kept in memory up to an eighth of `memory` and sorted to a temporary file
    /// past it (``SpillSorter``), so a series' master and its overrides meet wherever they
    /// are in the file. The second pass reads the components of the series kept again from
    /// their places, in file order, and puts them back in their VCALENDARs, which then make
    /// one calendar as ``SeriesVersions/merged(_:)`` makes it of a whole file.
    ///
    /// - Parameters:
    ///   - stream: the file, opened with ``ICalComponentStream/open(_:reader:)``.
    ///   - name: the name its results carry.
    ///   - memory: the budget of the records in memory.
    ///   - including: which VCALENDARs (their properties, no components) to query.
    /// - Throws: what ``ICalComponentStream/read(_:)`` throws (in strict mode the first
    ///   error), and ``ICalError/Code-swift.struct/io`` when a temporary file cannot be
    ///   written or the file changed between the passes.
    public func source(streaming stream: ICalComponentStream, name: String, memory: MemoryBudget = .default,
                       including: (Component) -> Bool = { _ in true }) throws(ICalError) -> StreamedSource {
        let kinds = [ComponentKind.event, .todo, .journal]
        let wanted = kinds.map { self.kinds.contains($0) }
        let margin: Int64 = 2 * 86_400
        let widened = (window.lowerBound > Int64.min + margin ? window.lowerBound - margin : Int64.min)
            ..< (window.upperBound < Int64.max - margin ? window.upperBound + margin : Int64.max)
        let sorter = SpillSorter<ComponentRecord>(
            capacity: Self.recordCapacity ?? memory.share(of: 8, each: MemoryLayout<ComponentRecord>.stride)) {
            $0.key != $1.key ? $0.key < $1.key : $0.offset < $1.offset
        }

        // The VTIMEZONEs, the first per TZID, with the calendar each is in.
        var zones: [(calendar: Int, component: Component)] = []
        var zoneIdentifiers = Set<String>()
        var lookup: (@Sendable (String) -> (any TimeZoneRules)?)?
        var failure: ICalError?
        var components = 0
        var unique: UInt64 = 0

        func mayTouchWindow(_ component: Component) -> Bool {
            if lookup == nil {
                let resolver = TimeZoneResolver(calendar: Component(kind: .calendar, components: zones.map(\.component)),
                                                file: nil)
                lookup = { resolver.resolve($0)?.rules }
            }
            let fields = ComponentFields(component)
            guard let position = fields.recurrenceIdentifier else {
                return !RecurrenceSet.loneComponentMisses((component, fields), window: widened, floatingZone: floatingZone,
                                                          budget: budget, zoneLookup: lookup!)
            }
            // An override adds its own time and takes its RECURRENCE-ID's instance away;
            // with a RANGE it moves the instances after it too.
            let identifier = component.properties[position]
            if identifier.parameters.contains(where: { ASCII.equalsIgnoringCase($0.name, "RANGE") }) { return true }
            var own = component
            own.properties.removeAll {
                ASCII.equalsIgnoringCase($0.name, "RECURRENCE-ID") || ASCII.equalsIgnoringCase($0.name, "RRULE")
                    || ASCII.equalsIgnoringCase($0.name, "RDATE")
            }
            if !RecurrenceSet.loneComponentMisses((own, ComponentFields(own)), window: widened, floatingZone: floatingZone,
                                                  budget: budget, zoneLookup: lookup!) {
                return true
            }
            var replaced = own
            replaced.properties.removeAll {
                ASCII.equalsIgnoringCase($0.name, "DTSTART") || ASCII.equalsIgnoringCase($0.name, "DTEND")
                    || ASCII.equalsIgnoringCase($0.name, "DURATION") || ASCII.equalsIgnoringCase($0.name, "DUE")
            }
            var start = identifier
            start.name = "DTSTART"
            replaced.properties.append(start)
            return !RecurrenceSet.loneComponentMisses((replaced, ComponentFields(replaced)), window: widened,
                                                      floatingZone: floatingZone, budget: budget, zoneLookup: lookup!)
        }

        let summary = try stream.read { event in
            guard failure == nil, case .component(let item) = event else { return }
            let component = item.component
            if component.matches(.timeZone) {
                let identifier = String((component[.timeZoneIdentifier] ?? "").trimmingSpaces)
                if zoneIdentifiers.insert(identifier).inserted {
                    zones.append((item.calendarIndex, component))
                    lookup = nil
                }
                return
            }
            guard let kind = kinds.firstIndex(where: component.matches) else { return }
            components += 1
            guard wanted[kind] else { return }
            let key: UInt64
            if let uid = component.uid {
                var hasher = Hasher()
                hasher.combine(kind)
                hasher.combine(uid)
                key = UInt64(bitPattern: Int64(hasher.finalize()))
            } else {
                // Without a UID a component is a series of its own.
                unique &+= 0x9E37_79B9_7F4A_7C15
                key = unique
            }
            var length = UInt32(truncatingIfNeeded: item.location.bytes.count)
            if mayTouchWindow(component) { length |= ComponentRecord.candidateBit }
            do throws(ICalError) {
                try sorter.append(ComponentRecord(key: key, offset: Int64(item.location.bytes.lowerBound),
                                                  line: Int64(item.location.line), length: length,
                                                  calendar: UInt32(truncatingIfNeeded: item.calendarIndex)))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }

        // The series kept: every component of a key that has a candidate, read again.
        var kept: [(calendar: Int, offset: Int64, component: Component)] = []
        var group: [ComponentRecord] = []
        var groupHasCandidate = false
        func flush() throws(ICalError) {
            defer {
                group.removeAll(keepingCapacity: true)
                groupHasCandidate = false
            }
            guard groupHasCandidate else { return }
            for record in group {
                let location = ICalComponentStream.Location(bytes: Int(record.offset)..<(Int(record.offset) + record.byteCount),
                                                            line: Int(record.line))
                kept.append((Int(record.calendar), record.offset, try stream.component(at: location)))
            }
        }
        let spilled = sorter.spilledRuns
        try sorter.sorted { record throws(ICalError) in
            if let last = group.last, last.key != record.key { try flush() }
            group.append(record)
            if record.isCandidate { groupHasCandidate = true }
            return true
        }
        try flush()
        kept.sort { $0.offset < $1.offset }

        // The VCALENDARs again, with the components kept, then made one as a whole file is.
        var calendars = summary.calendars
        for (calendar, component) in zones where calendar < calendars.count {
            calendars[calendar].components.append(component)
        }
        for item in kept where item.calendar < calendars.count {
            calendars[item.calendar].components.append(item.component)
        }
        let included = calendars.filter { including($0) }
        let source = SeriesVersions.merged(included).map { Source(calendar: $0, name: name) }
        return StreamedSource(source: source, diagnostics: summary.diagnostics, componentCount: components,
                              keptCount: kept.count, spilledRuns: spilled)
    }
}
