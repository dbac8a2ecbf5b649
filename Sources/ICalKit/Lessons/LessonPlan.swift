/// A recurring lesson calendar: one or more weekly lesson slots over a term, with holidays
/// left out, turned into a VCALENDAR that any calendar program can import.
///
/// Each slot becomes one VEVENT:
/// - `DTSTART` is the first lesson actually held: the first of the slot's weekdays on or
///   after ``from`` that is not a holiday, at the slot's time in the plan's zone (a TZID),
///   or floating when the plan has no zone. `DTEND` is `DTSTART` plus the slot's length.
/// - `RRULE:FREQ=WEEKLY;BYDAY=...` with `INTERVAL` (and `WKST=MO`) for slots every few
///   weeks. Weeks start on Monday and are counted from the week of the first of the slot's
///   weekdays on or after ``from``. The rule ends either with `UNTIL`, the start of the last
///   lesson on or before the term's last day, in UTC as RFC 5545 §3.3.10 requires for a
///   zoned `DTSTART` (a local time for floating lessons), or with `COUNT`.
/// - `EXDATE`s, in the same zone as `DTSTART`, for every lesson the rule would generate on a
///   holiday (see ``LessonHolidays``).
/// - `SUMMARY`, `LOCATION` (the room), `DESCRIPTION` (the teacher and the notes), and one
///   `VALARM` (`ACTION:DISPLAY`) per alarm, that long before the lesson.
/// - A `UID` derived from the slot's title, weekdays, time, the plan's zone and ``from``
///   (a hash), so generating the calendar again gives the same UIDs and a calendar program
///   that imports it again updates the lessons instead of duplicating them. Changing the
///   room, length, notes, alarms, end or holidays keeps the UID.
///
/// ``End-swift.enum/count(_:)`` counts lessons held: holidays do not use up the count, so
/// `COUNT` is the number of lessons plus the number left out as `EXDATE`s among them.
///
/// The calendar carries the VTIMEZONE its zone needs (``TimeZoneExport``), a `DTSTAMP` from
/// the clock the caller passes, and `X-WR-CALNAME` when the plan has a ``name``.
///
/// ```swift
/// var plan = LessonPlan(from: CalendarDate(year: 2026, month: 9, day: 7)!,
///                       end: .until(CalendarDate(year: 2026, month: 12, day: 18)!),
///                       timeZoneIdentifier: "Europe/Berlin")
/// plan.slots = [LessonPlan.Slot(title: "Piano", weekdays: [.tuesday, .thursday],
///                               time: TimeOfDay(hour: 16, minute: 0)!, length: Duration(minutes: 45))]
/// plan.holidays.insert(CalendarDate(year: 2026, month: 10, day: 3)!)
/// let generated = try plan.generate(stamp: DateTime(LocalDateTime(year: 2026, month: 8, day: 1)!, zone: .utc))
/// let text = ICalWriter().string(generated.calendar)
/// ```
///
/// A plan can also be read from a YAML specification, see
/// ``read(specification:file:directory:defaultTimeZoneIdentifier:reader:)``.
public struct LessonPlan: Sendable {
    /// How the lessons end.
    public enum End: Sendable, Hashable {
        /// On the last of the slot's lesson days on or before this date (inclusive).
        case until(CalendarDate)
        /// After this many lessons held, holidays not counted.
        case count(Int)
    }

    /// One weekly lesson: what, when, how long, where.
    public struct Slot: Sendable, Hashable {
        /// The SUMMARY.
        public var title: String
        /// The teacher, written at the top of the DESCRIPTION.
        public var teacher: String?
        /// The room, written as LOCATION.
        public var location: String?
        /// Free text for the DESCRIPTION.
        public var notes: String?
        /// The weekdays the lesson is on (in any order; written Monday first, without duplicates).
        public var weekdays: [RecurrenceRule.Weekday]
        /// The wall-clock start time.
        public var time: TimeOfDay
        /// How long a lesson lasts.
        public var length: Duration
        /// Every how many weeks (1: every week).
        public var interval: Int
        /// How long before the lesson each alarm goes off; nil uses the plan's ``LessonPlan/alarms``.
        public var alarms: [Duration]?
        /// The line of a specification this slot was read from, for error messages.
        public var sourceLine: Int?

        /// Creates a slot.
        public init(title: String, teacher: String? = nil, location: String? = nil, notes: String? = nil,
                    weekdays: [RecurrenceRule.Weekday], time: TimeOfDay, length: Duration, interval: Int = 1,
                    alarms: [Duration]? = nil, sourceLine: Int? = nil) {
            self.title = title
            self.teacher = teacher
            self.location = location
            self.notes = notes
            self.weekdays = weekdays
            self.time = time
            self.length = length
            self.interval = interval
            self.alarms = alarms
            self.sourceLine = sourceLine
        }
    }

    /// What ``generate(stamp:)`` made.
    public struct Generated: Sendable {
        /// The VCALENDAR: VTIMEZONE first, then one VEVENT per slot, in slot order.
        public var calendar: Component
        /// Problems met expanding the holiday calendars (unresolvable zones, budgets).
        public var diagnostics: [Diagnostic]
    }

    /// The PRODID of generated calendars.
    public static let productIdentifier = "-//OpenEventKit//ical lessons//EN"

    /// The most lessons the rule of one slot may generate (holidays included).
    public static let maximumLessons = 5_000

    /// The lesson slots, one VEVENT each.
    public var slots: [Slot]
    /// The first day of the term.
    public var from: CalendarDate
    /// How the term ends.
    public var end: End
    /// The IANA (or Windows) zone the times are in; nil for floating times.
    public var timeZoneIdentifier: String?
    /// How long before a lesson each alarm goes off, for slots that name none.
    public var alarms: [Duration]
    /// The days without lessons.
    public var holidays: LessonHolidays
    /// The calendar's name (`X-WR-CALNAME`).
    public var name: String?
    /// The specification file the plan was read from, for error messages.
    public var sourceFile: String?

    /// Creates a plan without slots.
    public init(from: CalendarDate, end: End, timeZoneIdentifier: String?, slots: [Slot] = [],
                alarms: [Duration] = [], holidays: LessonHolidays = LessonHolidays(), name: String? = nil) {
        self.slots = slots
        self.from = from
        self.end = end
        self.timeZoneIdentifier = timeZoneIdentifier
        self.alarms = alarms
        self.holidays = holidays
        self.name = name
        self.sourceFile = nil
    }

    /// Builds the calendar.
    ///
    /// - Parameter stamp: the DTSTAMP of every event (a UTC date-time; pass the current
    ///   time, or a fixed one for reproducible output).
    /// - Throws: ``ICalError`` with code ``ICalError/Code-swift.struct/invalidArgument`` (and
    ///   the specification's file and line when the plan has them) when the zone is
    ///   unknown, the term ends before it starts, a count is not positive, a slot has no
    ///   weekdays, no lessons, or more than ``maximumLessons``, or two slots would get the
    ///   same UID.
    public func generate(stamp: DateTime) throws(ICalError) -> Generated {
        let zone = try resolvedZone()
        try checkTerm()
        guard !slots.isEmpty else { throw error("no lessons are described", line: nil) }
        var events: [Component] = []
        var diagnostics: [Diagnostic] = []
        var lineOfUID: [String: Int?] = [:]
        for slot in slots {
            let (event, found) = try makeEvent(slot, zone: zone, stamp: stamp)
            let uid = event.uid ?? ""
            if let other = lineOfUID[uid] {
                let place = other.map { " (line \($0))" } ?? ""
                throw error("'\(slot.title)' repeats the lessons of an earlier slot\(place): same title, days, time and zone",
                            line: slot.sourceLine)
            }
            lineOfUID[uid] = slot.sourceLine
            events.append(event)
            for diagnostic in found where !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
        }
        var calendar = Component.calendar(productIdentifier: Self.productIdentifier)
        calendar.addProperty(Property(.calendarScale, rawValue: "GREGORIAN"))
        if let name, !name.isEmpty {
            var property = Property(.calendarName, rawValue: "")
            property.textValue = name
            calendar.addProperty(property)
        }
        let draft = Component(kind: .calendar, components: events)
        TimeZoneExport.timeZones(neededBy: [draft]).forEach { calendar.addComponent($0) }
        events.forEach { calendar.addComponent($0) }
        return Generated(calendar: calendar, diagnostics: diagnostics)
    }

    // MARK: Steps

    /// The zone, resolved: nil for floating lessons.
    private func resolvedZone() throws(ICalError) -> IANATimeZone? {
        guard let timeZoneIdentifier else { return nil }
        guard let zone = TimeZoneResolver.resolveStandard(timeZoneIdentifier)?.rules as? IANATimeZone else {
            throw error("unknown time zone '\(timeZoneIdentifier)': use an IANA name such as Europe/Berlin", line: nil)
        }
        return zone
    }

    private func checkTerm() throws(ICalError) {
        switch end {
        case .until(let last) where last < from:
            throw error("until (\(last)) is before from (\(from))", line: nil)
        case .count(let count) where count < 1:
            throw error("count must be at least 1, not \(count)", line: nil)
        default: break
        }
    }

    private func makeEvent(_ given: Slot, zone: IANATimeZone?, stamp: DateTime) throws(ICalError) -> (Component, [Diagnostic]) {
        var slot = given
        slot.weekdays = LessonText.weekOrder.filter(Set(given.weekdays).contains)
        guard !slot.weekdays.isEmpty else { throw error("'\(slot.title)' has no weekdays", line: slot.sourceLine) }
        guard slot.interval >= 1 else {
            throw error("'\(slot.title)': every must be at least 1 week, not \(slot.interval)", line: slot.sourceLine)
        }
        guard !slot.length.isNegative, slot.length.nominalSeconds > 0 else {
            throw error("'\(slot.title)': the length must be more than no time", line: slot.sourceLine)
        }
        let schedule = LessonSchedule(from: from, weekdays: slot.weekdays, interval: slot.interval)
        let lessons = try schedule.lessons(end: end, holidays: holidays, zone: zone, maximum: Self.maximumLessons)
            .mapError { error($0, line: slot.sourceLine, title: slot.title) }.get()
        let zoneValue: DateTime.Zone = zone.map { .identifier($0.identifier) } ?? .floating
        func dateTime(_ date: CalendarDate) -> DateTime {
            DateTime(LocalDateTime(date: date, time: slot.time), zone: zoneValue)
        }

        let start = LocalDateTime(date: lessons.first, time: slot.time)
        var event = Component.event(uid: uid(for: slot, zone: zone), start: dateTime(lessons.first),
                                    end: DateTime(endTime(start: start, length: slot.length, zone: zone), zone: zoneValue),
                                    summary: slot.title, stamp: stamp)
        if let location = slot.location, !location.isEmpty { event.location = location }
        let description = [slot.teacher.map { "Teacher: \($0)" }, slot.notes]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n")
        if !description.isEmpty { event.descriptionText = description }

        var rule = RecurrenceRule(frequency: .weekly, interval: slot.interval > 1 ? slot.interval : nil,
                                  byDay: slot.weekdays.map { RecurrenceRule.WeekdayNumber(weekday: $0) },
                                  weekStart: slot.interval > 1 ? .monday : nil)
        switch lessons.end {
        case .count(let count):
            rule.count = count
        case .until(let last):
            let local = LocalDateTime(date: last, time: slot.time)
            if let zone {
                rule.until = DateTime(LocalDateTime(secondsSinceEpoch: zone.instant(for: local)), zone: .utc)
            } else {
                rule.until = DateTime(local, zone: .floating)
            }
        }
        event.recurrenceRules = [rule]
        if !lessons.excluded.isEmpty { event.exceptionDates = lessons.excluded.map(dateTime) }

        var seen: Set<Duration> = []
        for before in slot.alarms ?? alarms where seen.insert(before).inserted {
            var offset = before
            offset.isNegative = true
            event.addComponent(.alarm(action: .display, trigger: .relative(offset, relatedTo: .start),
                                      description: slot.title))
        }
        return (event, lessons.diagnostics)
    }

    /// The wall-clock end: nominal days move the date, hours and minutes are exact
    /// (RFC 5545 §3.3.6), so a lesson across a DST change lasts its real length.
    private func endTime(start: LocalDateTime, length: Duration, zone: IANATimeZone?) -> LocalDateTime {
        let day = LocalDateTime(date: start.date.adding(days: length.nominalDays), time: start.time)
        guard let zone else { return day.adding(seconds: length.exactSeconds) }
        return zone.local(at: zone.instant(for: day) + length.exactSeconds)
    }

    /// A UID from what identifies a slot's lessons: title, weekdays, time, zone and term start.
    private func uid(for slot: Slot, zone: IANATimeZone?) -> String {
        let key = [slot.title, slot.weekdays.map(\.rawValue).joined(separator: ","),
                   LocalDateTime(date: from, time: slot.time).iCalendarText,
                   zone?.identifier ?? "floating", String(slot.interval)].joined(separator: "\u{1F}")
        return "lesson-" + StableHash(Array(key.utf8)).hex + "@openeventkit"
    }

    private func error(_ message: String, line: Int?) -> ICalError {
        ICalError(.invalidArgument, message, file: sourceFile, line: line)
    }

    private func error(_ problem: LessonSchedule.Problem, line: Int?, title: String) -> ICalError {
        switch problem {
        case .noDays:
            let last: String
            if case .until(let date) = end { last = date.description } else { last = "the term's end" }
            return error("'\(title)' has no lessons: none of its weekdays falls between \(from) and \(last)", line: line)
        case .noLessons:
            let range: String
            switch end {
            case .until(let last): range = "between \(from) and \(last)"
            case .count: range = "from \(from) on"
            }
            return error("'\(title)' has no lessons \(range): every lesson day is a holiday", line: line)
        case .tooMany(let maximum):
            return error("'\(title)' would have more than \(maximum) lessons; shorten the term", line: line)
        }
    }
}

