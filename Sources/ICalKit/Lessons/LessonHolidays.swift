/// The days no lesson takes place: single dates, ranges of dates, and every day covered by
/// an event of a holiday calendar.
///
/// A calendar's events are expanded with ``OccurrenceQuery`` (RRULE, RDATE, EXDATE and
/// overrides applied), so a yearly recurring holiday counts in every year of a term. An
/// event covers every day it touches in the lessons' zone: an all-day event its dates up to
/// but not including its DTEND date (RFC 5545 §3.6.1), a timed event every date from its
/// start up to the moment it ends (an event ending at midnight does not cover the next
/// day), and an event without length the day it starts. Dates (all-day values) and floating
/// times are read in the lessons' zone; for floating lessons, zoned and UTC holiday times
/// are read in UTC.
///
/// ```swift
/// var holidays = LessonHolidays()
/// holidays.insert(CalendarDate(year: 2026, month: 10, day: 3)!)
/// holidays.insert(CalendarDate(year: 2026, month: 10, day: 19)!...CalendarDate(year: 2026, month: 10, day: 30)!)
/// holidays.add(calendar: schoolHolidays, name: "holidays.ics")
/// ```
public struct LessonHolidays: Sendable {
    /// The dates and ranges given one by one.
    public var ranges: [ClosedRange<CalendarDate>]
    /// The holiday calendars, each a VCALENDAR.
    public var calendars: [OccurrenceQuery.Source]
    /// The names given to dates and ranges (a specification's `name:`), by range.
    public var names: [ClosedRange<CalendarDate>: String]

    /// No holidays.
    public init() {
        ranges = []
        calendars = []
        names = [:]
    }

    /// Leaves out every date in an inclusive range, under a name (such as "Exams") when
    /// there is one.
    public mutating func insert(_ range: ClosedRange<CalendarDate>, name: String?) {
        ranges.append(range)
        if let name { names[range] = name }
    }

    /// Leaves out one date.
    public mutating func insert(_ date: CalendarDate) {
        ranges.append(date...date)
    }

    /// Leaves out every date in an inclusive range.
    public mutating func insert(_ range: ClosedRange<CalendarDate>) {
        ranges.append(range)
    }

    /// Leaves out every day covered by an event, to-do or journal entry of a calendar.
    ///
    /// - Parameters:
    ///   - calendar: a VCALENDAR.
    ///   - name: the file or calendar name its diagnostics carry.
    public mutating func add(calendar: Component, name: String? = nil) {
        calendars.append(OccurrenceQuery.Source(calendar: calendar, name: name))
    }

    /// Leaves out every day covered by an event of an iCalendar or jCal file.
    ///
    /// - Returns: the problems the reader reported (a lenient reader keeps going).
    /// - Throws: ``ICalError`` when the file cannot be read or holds no calendar.
    @discardableResult
    public mutating func add(contentsOfFile path: String, reader: ICalReader = ICalReader()) throws(ICalError) -> [Diagnostic] {
        let result = try reader.read(contentsOfFileInAnyFormat: path)
        guard !result.calendars.isEmpty else {
            throw ICalError(.noCalendarData, "no calendar data in it", file: path)
        }
        result.calendars.forEach { add(calendar: $0, name: path) }
        return result.diagnostics
    }

    /// Whether there are no holidays at all.
    public var isEmpty: Bool { ranges.isEmpty && calendars.isEmpty }

    /// The holiday dates between two dates (inclusive), the calendars' events read in a zone
    /// (nil for floating lessons: UTC).
    ///
    /// - Returns: the dates, and the diagnostics of expanding the calendars (time zones that
    ///   could not be resolved, expansions stopped at their budget).
    public func days(from first: CalendarDate, through last: CalendarDate,
                     in zone: (any TimeZoneRules)?) -> (dates: Set<CalendarDate>, diagnostics: [Diagnostic]) {
        var dates: Set<CalendarDate> = []
        guard first <= last else { return (dates, []) }
        for range in ranges where range.overlaps(first...last) {
            var day = max(range.lowerBound, first)
            let end = min(range.upperBound, last)
            while day <= end {
                dates.insert(day)
                day = day.adding(days: 1)
            }
        }
        guard !calendars.isEmpty else { return (dates, []) }
        let rules: any TimeZoneRules = zone ?? FixedOffsetZone.utc
        // Every event that touches a day in the range intersects this window, including
        // one that starts before the range or ends after it.
        let window = rules.instant(for: LocalDateTime(date: first))..<rules.instant(for: LocalDateTime(date: last.adding(days: 1)))
        let result = OccurrenceQuery(window: window, floatingZone: rules).run(calendars)
        for match in result.matches {
            let occurrence = match.occurrence
            var day: CalendarDate
            var end: CalendarDate
            if occurrence.isAllDay {
                day = occurrence.start.date
                end = max(occurrence.start.date, occurrence.end.date.adding(days: -1))
            } else {
                day = rules.local(at: match.startInstant).date
                end = match.endInstant > match.startInstant ? rules.local(at: match.endInstant - 1).date : day
            }
            day = max(day, first)
            end = min(end, last)
            while day <= end {
                dates.insert(day)
                day = day.adding(days: 1)
            }
        }
        return (dates, result.diagnostics)
    }
}
