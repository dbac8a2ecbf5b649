/// An RFC 5545 PERIOD (§3.3.9): a start and either an end or a duration.
///
/// Used by `RDATE;VALUE=PERIOD` and `FREEBUSY`. A TZID on the property applies to both
/// date-times. The corresponding libical type is `struct icalperiodtype`, read by
/// `icalperiodtype_from_string`.
///
/// ```swift
/// let period = Period(iCalendar: "19970308T160000Z/PT8H30M")
/// period?.end   // .duration(Duration(hours: 8, minutes: 30))
/// ```
public struct Period: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How a period ends.
    public enum End: Sendable, Hashable, Codable {
        /// An explicit end (`period-explicit`).
        case dateTime(DateTime)
        /// A positive duration from the start (`period-start`).
        case duration(Duration)
    }

    /// The start, a DATE-TIME.
    public var start: DateTime
    /// The end or the duration.
    public var end: End

    /// Creates a period with an explicit end.
    public init(start: DateTime, end: DateTime) {
        self.start = start
        self.end = .dateTime(end)
    }

    /// Creates a period from a start and a duration.
    public init(start: DateTime, duration: Duration) {
        self.start = start
        self.end = .duration(duration)
    }

    /// Reads `start/end` or `start/duration`, with the property's TZID (if any) applying to
    /// both date-times. Returns nil when either half is invalid, a half is a DATE, the
    /// duration is negative or zero, or an explicit end with the same zone form lies before
    /// the start.
    public init?(iCalendar text: some StringProtocol, timeZoneIdentifier: String? = nil) {
        let text = String(text)
        let halves = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2,
              let start = DateTime(iCalendar: halves[0], timeZoneIdentifier: timeZoneIdentifier), !start.isDate
        else { return nil }
        let second = halves[1]
        if second.hasPrefix("P") || second.hasPrefix("+P") || second.hasPrefix("-P") {
            guard let duration = Duration(iCalendar: second), !duration.isNegative, duration.nominalSeconds > 0 else {
                return nil
            }
            self.init(start: start, duration: duration)
        } else {
            guard let end = DateTime(iCalendar: second, timeZoneIdentifier: timeZoneIdentifier), !end.isDate else {
                return nil
            }
            if end.zone == start.zone && end.local < start.local { return nil }
            self.init(start: start, end: end)
        }
    }

    /// `19970101T180000Z/19970102T070000Z` or `19970101T180000Z/PT5H30M`.
    public var iCalendarText: String {
        switch end {
        case .dateTime(let end): return start.iCalendarText + "/" + end.iCalendarText
        case .duration(let duration): return start.iCalendarText + "/" + duration.iCalendarText
        }
    }

    public var description: String { iCalendarText }
}
