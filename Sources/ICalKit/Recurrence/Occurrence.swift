/// One instance of a recurring (or single) VEVENT, VTODO or VJOURNAL: when it starts and
/// ends, which instance of the series it is, and which component describes it.
///
/// Times keep their form: an instance of a floating series has floating ``start`` and
/// ``end`` and no instants; an instance in a named zone carries the zone's TZID and the
/// instants it names. See RFC 5545 §3.8.5 and ``RecurrenceSet``.
public struct Occurrence: Sendable, Hashable {
    /// The UID the series shares.
    public var uid: String
    /// The instance's original start, as the series generated it (in DTSTART's form and
    /// zone): the value a RECURRENCE-ID names this instance by. For an override without a
    /// master, its RECURRENCE-ID as written.
    public var recurrenceIdentifier: DateTime
    /// The start, in its zone, as a wall clock shows it (a time in a daylight-saving gap is
    /// moved forward per RFC 5545 §3.3.5).
    public var start: DateTime
    /// The end (exclusive), in the zone of DTEND (or of the start for DURATION).
    public var end: DateTime
    /// The start instant (seconds since 1970-01-01T00:00:00Z), nil when the start is floating.
    public var startInstant: Int64?
    /// The end instant, nil when the end is floating.
    public var endInstant: Int64?
    /// Whether the instance is all-day (its start is a DATE).
    public var isAllDay: Bool
    /// The component that applies: the master, or the override that replaces or (with
    /// `RANGE=THISANDFUTURE`) modifies this instance.
    public var component: Component
    /// Whether ``component`` is an override (a component with RECURRENCE-ID).
    public var isOverride: Bool

    /// Creates an occurrence.
    public init(uid: String, recurrenceIdentifier: DateTime, start: DateTime, end: DateTime,
                startInstant: Int64?, endInstant: Int64?, isAllDay: Bool, component: Component, isOverride: Bool) {
        self.uid = uid
        self.recurrenceIdentifier = recurrenceIdentifier
        self.start = start
        self.end = end
        self.startInstant = startInstant
        self.endInstant = endInstant
        self.isAllDay = isAllDay
        self.component = component
        self.isOverride = isOverride
    }
}

/// Limits on one expansion, so that no rule can hang the caller or exhaust memory
/// (`FREQ=SECONDLY` without an end, `FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30`).
///
/// When a limit is reached, the expansion stops and reports an ``ExpansionTruncation``;
/// everything returned before that is correct and in order.
public struct ExpansionBudget: Sendable, Hashable, Codable {
    /// The most occurrences one expansion returns.
    public var maximumOccurrences: Int
    /// The most iterator steps one expansion may take: each instance libical produces is a
    /// step (summed over the set's rules), and no rule is iterated over more than this many
    /// periods (FREQ × INTERVAL) of wall clock, so a rule that never matches is bounded too. A never-matching SECONDLY rule
    /// costs libical 1 to 3 µs per step, all of it under the process-wide libical lock.
    public var maximumIteratorSteps: Int
    /// The longest stretch of wall clock, in seconds, that a rule is iterated over in one
    /// expansion, measured from where iteration starts (DTSTART for rules with COUNT, which
    /// must be counted from the start; shortly before the window otherwise). A window
    /// reaching further is truncated.
    public var maximumSpan: Int64

    /// Creates a budget.
    public init(maximumOccurrences: Int = 10_000, maximumIteratorSteps: Int = 20_000,
                maximumSpan: Int64 = 200 * 366 * 86_400) {
        self.maximumOccurrences = max(0, maximumOccurrences)
        self.maximumIteratorSteps = max(1, maximumIteratorSteps)
        self.maximumSpan = max(1, maximumSpan)
    }

    /// 10,000 occurrences, 20,000 iterator steps, 200 years: a never-matching SECONDLY rule
    /// returns in a few tens of milliseconds, while a DAILY rule can still be counted from a
    /// DTSTART 54 years back, an HOURLY one 2 years back and a MINUTELY one 13 days back.
    public static let standard = ExpansionBudget()
}

/// Why an expansion stopped before the end of its window.
public enum ExpansionTruncation: String, Sendable, Hashable, Codable {
    /// ``ExpansionBudget/maximumOccurrences`` occurrences were returned.
    case occurrences
    /// ``ExpansionBudget/maximumIteratorSteps`` was reached.
    case iteratorSteps
    /// The rule would have had to be iterated further than the budget allows (its steps
    /// per period or ``ExpansionBudget/maximumSpan``).
    case span
}

/// The result of an eager expansion: the occurrences in start order, and whether a budget
/// cut it short.
public struct Expansion: Sendable, Hashable {
    /// The occurrences that intersect the window, in start order.
    public var occurrences: [Occurrence]
    /// Why the expansion stopped early, or nil when it is complete.
    public var truncation: ExpansionTruncation?

    /// Creates a result.
    public init(occurrences: [Occurrence], truncation: ExpansionTruncation?) {
        self.occurrences = occurrences
        self.truncation = truncation
    }

    /// Whether the expansion is complete.
    public var isComplete: Bool { truncation == nil }
}
