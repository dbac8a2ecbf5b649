import ICalKit

/// The component kinds an item holds, as the index stores them (a bit mask).
package struct ItemKinds: OptionSet, Sendable, Hashable {
    /// The bits, as the `kinds` column stores them.
    package let rawValue: Int64
    /// Kinds from their bits.
    package init(rawValue: Int64) { self.rawValue = rawValue }

    /// VEVENT.
    package static let event = ItemKinds(rawValue: 1)
    /// VTODO.
    package static let todo = ItemKinds(rawValue: 2)
    /// VJOURNAL.
    package static let journal = ItemKinds(rawValue: 4)

    /// The bits of a set of component kinds; kinds other than VEVENT, VTODO and VJOURNAL
    /// have none.
    package init(_ kinds: some Sequence<ComponentKind>) {
        var value: Int64 = 0
        for kind in kinds {
            switch kind {
            case .event: value |= Self.event.rawValue
            case .todo: value |= Self.todo.rawValue
            case .journal: value |= Self.journal.rawValue
            default: break
            }
        }
        self.init(rawValue: value)
    }
}

/// When an item can have occurrences, as the index records it.
package enum ItemSpan: Sendable, Hashable {
    /// Every occurrence the item can have, read with any floating zone whose UTC offset is
    /// within ±14 hours, starts at or after `firstStart` and ends at or before `lastEnd`
    /// (UTC instants in seconds); `lastEnd` is nil when the item recurs without end, or when
    /// its end could not be found within the expansion budget.
    case bounded(firstStart: Int64, lastEnd: Int64?)
    /// The item has a component without a usable date (a VTODO without DTSTART or DUE, a
    /// VEVENT whose DTSTART cannot be read): it is a candidate for every window.
    case undated
}

/// What the index keeps of one readable item: its UID, its component kinds and its span.
package struct ItemSummary: Sendable, Hashable {
    /// The first component's UID.
    package var uid: String?
    /// The kinds of its VEVENT, VTODO and VJOURNAL components.
    package var kinds: ItemKinds
    /// When it can have occurrences.
    package var span: ItemSpan

    /// Creates a summary.
    package init(uid: String?, kinds: ItemKinds, span: ItemSpan) {
        self.uid = uid
        self.kinds = kinds
        self.span = span
    }

    /// Summarises an item's VCALENDAR: groups its components into recurrence sets the way
    /// ``OccurrenceQuery`` does, and bounds each set conservatively (see ``ItemSpan``).
    ///
    /// The bounds are computed with ICalKit's own expansion, so they follow the same rules
    /// as the query that later reads the item, with two changes that can only widen them:
    ///
    /// - Floating times and dates are read in a fixed zone of UTC+14, the largest offset
    ///   of any zone. Read in any other zone (offset −14…+14 h), a floating start is at the
    ///   same instant or later, and a floating end at most 28 hours later, so ends that
    ///   float are widened by 28 hours. A UTC UNTIL on a floating series also admits the
    ///   most instances in UTC+14, so its last instance is found there.
    /// - The master is expanded without its EXDATEs, and every override (RECURRENCE-ID) is
    ///   bounded by itself, wherever it moved its instance, whether or not the master still
    ///   generates the instance it names. Excluding or replacing instances only removes
    ///   occurrences from this superset. An override's end is at least its start plus the
    ///   longest of the master's instances (plus 4 hours for a daylight-saving change in a
    ///   nominal DURATION), since an override without its own DTSTART takes the series'
    ///   length; a `RANGE=THISANDFUTURE` override also moves both bounds by its shift, plus
    ///   4 hours, and lengthens the end by its own length. A cancelled override only
    ///   removes occurrences and is left out.
    ///
    /// The one assumption: a floating value inside a zoned series (which ICalKit reads in
    /// the series' zone) is read in a zone whose offset is within ±14 hours, as every IANA
    /// zone's is; an embedded VTIMEZONE with a larger offset could move such an override
    /// outside its bounds.
    ///
    /// A master whose RRULEs all have COUNT or UNTIL (or that has none) is expanded to its
    /// end within ``budget``; when the budget is reached its end is unbounded. A master with
    /// an RRULE without COUNT and UNTIL is unbounded at once, and only its first occurrence
    /// (the earliest: occurrences come in start order) is computed. A recurrence set with no
    /// occurrence at all, in particular a VTODO without DTSTART and DUE, makes the item
    /// ``ItemSpan/undated``.
    ///
    /// Computed directly, with the same result as that expansion: a lone component
    /// without RECURRENCE-ID, RRULE or RDATE (most items) has its one occurrence computed
    /// without a set (``RecurrenceSet/spanGroups(_:floatingZone:budget:zoneLookup:)``), and
    /// a master's occurrences are walked as keys, without building them
    /// (``RecurrenceSet/masterOccurrenceKeys(_:window:floatingZone:budget:zoneLookup:_:)``).
    /// `direct: false` expands every set (what the tests compare it with).
    package init(calendar: Component, file: String? = nil, budget: ExpansionBudget = .standard, direct: Bool = true) {
        let components = calendar.components.filter { $0.matches(.event) || $0.matches(.todo) || $0.matches(.journal) }
        // Only the zones' rules are needed here, not the resolver's diagnostics nor its
        // comparison of embedded VTIMEZONEs with tzdata (its warnings are the query's to
        // report).
        let lookup: @Sendable (String) -> (any TimeZoneRules)?
        if direct {
            lookup = TimeZoneResolver.rulesLookup(calendar: calendar, file: file)
        } else {
            // With comparison years before any value's year, none is compared.
            let resolver = TimeZoneResolver(calendar: calendar, file: file, comparisonYears: Int.min...Int.min)
            lookup = { resolver.resolve($0)?.rules }
        }
        var first = Int64.max
        var last: Int64? = Int64.min
        var undated = components.isEmpty
        let groups = direct
            ? RecurrenceSet.spanGroups(components, floatingZone: Self.earliestFloatingZone, budget: budget, zoneLookup: lookup)
            : RecurrenceSet.grouping(components, zoneLookup: lookup).map(RecurrenceSet.SpanGroup.set)
        for group in groups {
            let found: (first: Int64, last: Int64?)?
            switch group {
            case .single(let start, let end, let endIsFloating):
                // What instants(of:) gives for the occurrence the expansion would make.
                found = (start, max(start, end + (endIsFloating ? Self.floatingEndWidening : 0)))
            case .loneMaster(let master):
                found = Self.masterBounds(master, lookup: lookup, budget: budget).map { ($0.first, $0.last) }
            case .set(let set):
                found = Self.bounds(of: set, lookup: lookup, budget: budget, direct: direct)
            }
            guard let bounds = found else {
                undated = true
                break
            }
            first = min(first, bounds.first)
            last = bounds.last.flatMap { end in last.map { max($0, end) } }
        }
        self.uid = components.first?.uid
        self.kinds = ItemKinds(components.map(\.kind))
        self.span = undated ? .undated : .bounded(firstStart: first, lastEnd: last)
    }

    // MARK: Bounds of one recurrence set

    /// The zone floating values are read in: the largest UTC offset of any zone.
    static let earliestFloatingZone = FixedOffsetZone(identifier: "UTC+14", offset: 14 * 3600)
    /// How much later a floating end can be in another zone than in ``earliestFloatingZone``
    /// (from +14 h to −14 h).
    static let floatingEndWidening: Int64 = 28 * 3600
    /// Slack for a daylight-saving change inside a nominal length or a THISANDFUTURE shift.
    static let daylightSavingSlack: Int64 = 4 * 3600
    /// Every instant the expansion knows (years 1 to 9999).
    static let everything: Range<Int64> = -62_135_596_800 ..< 253_402_300_799

    /// The start and end of one occurrence read in ``earliestFloatingZone``, the end
    /// widened when it floats.
    static func instants(of occurrence: Occurrence) -> (start: Int64, end: Int64) {
        let zone = earliestFloatingZone
        let start = occurrence.startInstant ?? zone.instant(for: occurrence.start.local)
        let end = occurrence.endInstant ?? (zone.instant(for: occurrence.end.local) + floatingEndWidening)
        return (start, max(start, end))
    }

    /// The instant of a value as ``TimeZoneResolver/instant(for:floatingZone:)`` reads it
    /// with ``earliestFloatingZone``: UTC as UTC, a TZID through `lookup` (floating when
    /// it does not resolve), floating values in that zone.
    static func instant(for value: DateTime, lookup: @Sendable (String) -> (any TimeZoneRules)?) -> Int64 {
        let rules: any TimeZoneRules
        switch value.zone {
        case .utc: rules = FixedOffsetZone.utc
        case .floating: rules = earliestFloatingZone
        case .identifier(let tzid): rules = lookup(tzid) ?? earliestFloatingZone
        }
        return rules.instant(for: value.local)
    }

    /// Whether a RRULE's text has COUNT or UNTIL.
    static func isBounded(_ rule: Property) -> Bool {
        rule.rawValue.split(separator: ";").contains { part in
            let name = part.split(separator: "=", maxSplits: 1).first.map { $0.uppercased().filter { $0 != " " } }
            return name == "COUNT" || name == "UNTIL"
        }
    }

    /// The master part of ``bounds(of:lookup:budget:direct:)``: the first start, the last
    /// end (nil when unbounded) and the longest length of a master's occurrences without its
    /// EXDATEs, walked as keys (``RecurrenceSet/masterOccurrenceKeys(_:window:floatingZone:budget:zoneLookup:_:)``:
    /// the same occurrences as its expansion, none built); nil when it has none.
    static func masterBounds(_ master: Component, lookup: @escaping @Sendable (String) -> (any TimeZoneRules)?,
                             budget: ExpansionBudget) -> (first: Int64, last: Int64?, longest: Int64)? {
        var first = Int64.max
        var last: Int64? = Int64.min
        var found = false
        var longest: Int64 = 0
        let bounded = master.properties(.recurrenceRule).allSatisfy(isBounded)
        let truncation = RecurrenceSet.masterOccurrenceKeys(master, window: everything, floatingZone: earliestFloatingZone,
                                                            budget: budget, zoneLookup: lookup) { start, end, endIsFloating in
            let end = max(start, end + (endIsFloating ? floatingEndWidening : 0))
            found = true
            first = min(first, start)
            last = last.map { max($0, end) }
            longest = max(longest, end - start)
            return bounded   // an unbounded master needs its first occurrence only
        }
        guard found else { return nil }
        if !bounded || truncation != nil { last = nil }
        return (first, last, longest)
    }

    /// Conservative bounds of one set: nil when it has no occurrence at all; `last` nil
    /// when unbounded.
    static func bounds(of set: RecurrenceSet, lookup: @escaping @Sendable (String) -> (any TimeZoneRules)?,
                       budget: ExpansionBudget, direct: Bool = true) -> (first: Int64, last: Int64?)? {
        var first = Int64.max
        var last: Int64? = Int64.min
        var found = false
        var longest: Int64 = 0

        if let master = set.master, direct {
            if let walked = masterBounds(master, lookup: lookup, budget: budget) {
                found = true
                (first, last, longest) = walked
            }
        } else if let master = set.master {
            var stripped = master
            stripped.removeProperties(.exceptionDates)
            let masterSet = RecurrenceSet(components: [stripped], zoneLookup: lookup)
            let bounded = master.properties(.recurrenceRule).allSatisfy(isBounded)
            var iterator = masterSet.occurrences(in: everything, floatingZone: earliestFloatingZone, budget: budget).makeIterator()
            while let occurrence = iterator.next() {
                let (start, end) = instants(of: occurrence)
                found = true
                first = min(first, start)
                last = last.map { max($0, end) }
                longest = max(longest, end - start)
                if !bounded { break }
            }
            if !bounded || iterator.truncation != nil { last = nil }
        }

        for override in set.overrides {
            let identifier = override.property(.recurrenceIdentifier)
            if override[.status].map({ $0.uppercased() == "CANCELLED" }) ?? false { continue }
            let single = RecurrenceSet(components: [override], zoneLookup: lookup)
            guard let occurrence = single.expand(in: everything, floatingZone: earliestFloatingZone, budget: budget)
                .occurrences.first else { continue }
            found = true
            var (start, end) = instants(of: occurrence)
            let ownLength = end - start
            // Without its own DTSTART (or with one that cannot be read), an override takes
            // the series' length, which the override alone does not know: allow the longest.
            end = max(end, start + longest + daylightSavingSlack)
            first = min(first, start)
            last = last.map { max($0, end) }
            let isThisAndFuture = identifier?[parameter: .range].map { $0.uppercased() == "THISANDFUTURE" } ?? false
            if isThisAndFuture, set.master != nil, first != .max {
                // Later instances move by the override's shift and take its length.
                let recurrenceStart = instant(for: occurrence.recurrenceIdentifier, lookup: lookup)
                let shift = start - recurrenceStart
                first = min(first, first + shift - daylightSavingSlack)
                let length = max(ownLength, longest) + (occurrence.endInstant == nil ? floatingEndWidening : 0)
                last = last.map { $0 + max(0, shift) + daylightSavingSlack + length }
            }
        }
        guard found else { return nil }
        return (first, last)
    }
}
