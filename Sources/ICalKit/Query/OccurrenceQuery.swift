/// A range query over calendars: every occurrence of every event, to-do and journal entry
/// that intersects a window, with overrides, RDATE, EXDATE and time zones applied, sorted
/// by start.
///
/// Each calendar gets its own ``TimeZoneResolver`` (its VTIMEZONEs, then tzdata, then
/// Windows names) and its own grouping by UID (see ``RecurrenceSet``). A calendar's
/// `X-WR-TIMEZONE` (Google, Apple) is applied first: its floating DATE-TIMEs are times in
/// that zone (``CalendarRepair/applyingCalendarTimeZone(_:)``). Other floating times and
/// dates are read in ``floatingZone`` to compare them with the window; they stay floating in
/// the results.
///
/// ```swift
/// let berlin = IANATimeZone(named: "Europe/Berlin")!
/// let window = try QueryWindow.at("2026-12", in: berlin, now: now)
/// let result = OccurrenceQuery(window: window.start..<window.end, floatingZone: berlin)
///     .run([OccurrenceQuery.Source(calendar: calendar, name: "lessons.ics")])
/// ```
public struct OccurrenceQuery: Sendable {
    /// A calendar to query and the name its results carry.
    public struct Source: Sendable {
        /// A VCALENDAR.
        public var calendar: Component
        /// The file or calendar name results and diagnostics carry.
        public var name: String?

        /// Creates a source.
        public init(calendar: Component, name: String? = nil) {
            self.calendar = calendar
            self.name = name
        }
    }

    /// One occurrence found, with its instants and where it came from.
    public struct Match: Sendable {
        /// The occurrence (its start and end keep their own zone, or float).
        public var occurrence: Occurrence
        /// The start instant (floating values read in the query's floating zone).
        public var startInstant: Int64
        /// The end instant (floating values read in the query's floating zone).
        public var endInstant: Int64
        /// Whether the occurrence belongs to a recurring series (its master has RRULE or
        /// RDATE, or it is an override), so its RECURRENCE-ID means something.
        public var isRecurring: Bool
        /// The source's name.
        public var source: String?
        /// The zone the start's TZID resolved to, when it has one and it resolved.
        public var timeZone: (any TimeZoneRules)?
    }

    /// What a query found.
    public struct Result: Sendable {
        /// The occurrences, by start instant, then end, then UID, then RECURRENCE-ID.
        public var matches: [Match]
        /// Time-zone problems of the calendars, and a warning for each series whose
        /// expansion stopped at the budget (its results are incomplete).
        public var diagnostics: [Diagnostic]
    }

    /// The window, in instants.
    public var window: Range<Int64>
    /// The zone floating times and dates are read in.
    public var floatingZone: any TimeZoneRules
    /// The component kinds to include (VEVENT, VTODO, VJOURNAL by default).
    public var kinds: Set<ComponentKind>
    /// The limits of each series' expansion.
    public var budget: ExpansionBudget
    /// Whether instances cancelled by an override (`STATUS:CANCELLED`) are listed, with
    /// their status, instead of left out (the default). See
    /// ``RecurrenceSet/includingCancelledInstances()``.
    public var includesCancelled = false

    /// Creates a query.
    public init(window: Range<Int64>, floatingZone: any TimeZoneRules,
                kinds: Set<ComponentKind> = [.event, .todo, .journal], budget: ExpansionBudget = .standard) {
        self.window = window
        self.floatingZone = floatingZone
        self.kinds = kinds
        self.budget = budget
    }

    /// Runs the query over calendars.
    public func run(_ sources: [Source]) -> Result {
        var matches: [Match] = []
        var diagnostics: [Diagnostic] = []
        for var source in sources {
            if source.calendar.property(.calendarTimeZone) != nil {
                source.calendar = CalendarRepair.applyingCalendarTimeZone(source.calendar)
            }
            let resolver = TimeZoneResolver(calendar: source.calendar, file: source.name)
            diagnostics += resolver.diagnostics
            let lookup: @Sendable (String) -> (any TimeZoneRules)? = { resolver.resolve($0)?.rules }
            var lastZone: (identifier: String, rules: (any TimeZoneRules)?)?
            let grouping = RecurrenceSet.Grouping(source.calendar.components, kinds: kinds)
            for group in grouping.groups.indices {
                // Most components of a large calendar are single events and series far from
                // the window: skip them before building a set, an expander and candidate streams.
                if grouping.isLone(group),
                   RecurrenceSet.loneComponentMisses(grouping.components[Int(grouping.groups[group].first)], window: window,
                                                     floatingZone: floatingZone, budget: budget, zoneLookup: lookup) {
                    continue
                }
                var set = RecurrenceSet(entries: grouping.entries(of: group), zoneLookup: lookup)
                if includesCancelled { set = set.includingCancelledInstances() }
                // Likewise a series whose overrides (and instances) all miss the window.
                if OccurrenceExpander.setMisses(set, window: window, floatingZone: floatingZone, budget: budget) {
                    continue
                }
                let recurring = set.masterRecurs || !set.overrides.isEmpty
                let expansion = set.expand(in: window, floatingZone: floatingZone, budget: budget)
                if let truncation = expansion.truncation {
                    diagnostics.append(Diagnostic(
                        .warning, .budgetExceeded, line: set.master?.line ?? set.overrides.first?.line ?? 0,
                        file: source.name, component: set.master?.name, property: "RRULE",
                        message: "expanding UID \(set.uid) stopped at the \(truncation.rawValue) budget; "
                            + "its occurrences in this window are incomplete"))
                }
                for occurrence in expansion.occurrences {
                    let start = occurrence.startInstant ?? floatingZone.instant(for: occurrence.start.local)
                    let end = occurrence.endInstant ?? floatingZone.instant(for: occurrence.end.local)
                    let zone: (any TimeZoneRules)?
                    if let tzid = occurrence.start.timeZoneIdentifier {
                        if let last = lastZone, last.identifier == tzid {
                            zone = last.rules
                        } else {
                            zone = resolver.resolve(tzid)?.rules
                            lastZone = (tzid, zone)
                        }
                    } else {
                        zone = nil
                    }
                    matches.append(Match(occurrence: occurrence, startInstant: start, endInstant: end,
                                         isRecurring: recurring || occurrence.isOverride, source: source.name,
                                         timeZone: zone))
                }
            }
        }
        // Sort positions by compact keys rather than the large Match values (ties keep the
        // order found), then move each Match into place by swapping, without copying it.
        let keys = matches.map { (start: $0.startInstant, end: $0.endInstant) }
        let order = matches.withUnsafeBufferPointer { matches in
            keys.indices.sorted { a, b in
                if keys[a].start != keys[b].start { return keys[a].start < keys[b].start }
                if keys[a].end != keys[b].end { return keys[a].end < keys[b].end }
                if matches[a].occurrence.uid != matches[b].occurrence.uid { return matches[a].occurrence.uid < matches[b].occurrence.uid }
                let lhs = matches[a].occurrence.recurrenceIdentifier.local, rhs = matches[b].occurrence.recurrenceIdentifier.local
                if lhs != rhs { return lhs < rhs }
                return a < b
            }
        }
        // Position i takes the Match at order[i]: follow each cycle of the permutation.
        var placed = [Bool](repeating: false, count: matches.count)
        for first in matches.indices where !placed[first] {
            var current = first
            while true {
                placed[current] = true
                let next = order[current]
                if next == first { break }
                matches.swapAt(current, next)
                current = next
            }
        }
        return Result(matches: matches, diagnostics: diagnostics)
    }
}
