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

    /// Runs the query over calendars: every match, collected from ``stream(_:)``.
    public func run(_ sources: [Source]) -> Result {
        stream(sources).collect()
    }
}
