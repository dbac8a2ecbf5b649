import Foundation
import ICalKit

/// How a calendar item repeats: an iCalendar `RRULE` as EventKit models it.
///
/// A rule repeats daily, weekly, monthly or yearly, every ``interval`` units, optionally
/// restricted by days of the week, days of the month, months, weeks or days of the year and
/// set positions, until its ``recurrenceEnd``. When several lists are given, an occurrence must
/// satisfy all of them.
///
/// Rules are immutable apart from ``recurrenceEnd``: to change the pattern, create a new rule
/// and assign it to the item.
///
/// ## Which lists apply to which frequency
///
/// As EventKit documents, lists that do not apply to the frequency are ignored. Here they are
/// dropped: the property reads nil and nothing is written for it.
///
/// | list | applies to |
/// |---|---|
/// | `daysOfTheWeek` | weekly, monthly, yearly |
/// | `daysOfTheMonth` | monthly |
/// | `monthsOfTheYear`, `weeksOfTheYear`, `daysOfTheYear` | yearly |
/// | `setPositions` | weekly, monthly, yearly, and only with another list that applies |
///
/// An empty list is the same as nil.
///
/// ## Rules read from iCalendar
///
/// A rule read from a file shows what EventKit can express and keeps the rest: BYHOUR,
/// BYMINUTE, BYSECOND, RSCALE, SKIP, X- parts, and lists that do not apply to the frequency
/// are not shown but are written back as they were. A rule whose frequency EventKit cannot
/// express (SECONDLY, MINUTELY, HOURLY) is not read at all.
open class EKRecurrenceRule: EKObject, NSCopying {
    /// The calendar system the rule counts in: `gregorian`, or the lowercased RFC 7529
    /// `RSCALE` of a rule read from iCalendar (`hebrew`, `chinese`).
    public let calendarIdentifier: String

    /// When the recurrence ends; nil repeats forever. Setting it tells the owning item.
    @NSCopying open var recurrenceEnd: EKRecurrenceEnd? {
        didSet { noteChange() }
    }

    /// The unit the rule repeats in (`FREQ`).
    public let frequency: EKRecurrenceFrequency
    /// Every how many units the rule repeats, at least 1 (`INTERVAL`).
    public let interval: Int
    /// The day weeks start on (`WKST`): 0 when not set, else 1...7 with Sunday = 1.
    ///
    /// It matters only for weekly rules with an interval above 1, and EventKit sets it to 2
    /// (Monday) for those and leaves it 0 otherwise. A rule read from iCalendar reports its
    /// `WKST`, or 2 (the iCalendar default, Monday) for a weekly rule with an interval above 1.
    public let firstDayOfTheWeek: Int
    /// The days of the week (`BYDAY`); nil when not set. Weekly, monthly and yearly rules.
    public let daysOfTheWeek: [EKRecurrenceDayOfWeek]?
    /// The days of the month, ±1...31, negative counting from the end (`BYMONTHDAY`); nil
    /// when not set. Monthly rules.
    public let daysOfTheMonth: [NSNumber]?
    /// The days of the year, ±1...366 (`BYYEARDAY`); nil when not set. Yearly rules.
    public let daysOfTheYear: [NSNumber]?
    /// The weeks of the year, ±1...53 (`BYWEEKNO`); nil when not set. Yearly rules.
    public let weeksOfTheYear: [NSNumber]?
    /// The months of the year, 1...12 (`BYMONTH`); nil when not set. Yearly rules.
    public let monthsOfTheYear: [NSNumber]?
    /// Which of the occurrences each period yields to keep, ±1...366 (`BYSETPOS`); nil when
    /// not set. Weekly, monthly and yearly rules with another list.
    public let setPositions: [NSNumber]?

    /// The rule this one was read from, kept so that the parts EventKit cannot express
    /// survive; nil for a rule created through EventKit's initializers.
    package let source: RecurrenceRule?
    /// The end as read from ``source``, to tell whether ``recurrenceEnd`` changed since.
    private let sourceEnd: EKRecurrenceEnd?
    /// The kind of DTSTART ``source`` was read with, to tell whether UNTIL still fits it.
    private let sourceStartKind: StartKind?

    // MARK: Creating rules

    /// A rule that repeats every `interval` units of `type`, until `end` (nil: forever).
    ///
    /// - Precondition: `interval` is greater than 0 (EventKit raises an exception otherwise).
    public convenience init(recurrenceWith type: EKRecurrenceFrequency, interval: Int, end: EKRecurrenceEnd?) {
        self.init(recurrenceWith: type, interval: interval, daysOfTheWeek: nil, daysOfTheMonth: nil,
                  monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil, setPositions: nil, end: end)
    }

    /// A rule that repeats every `interval` units of `type` on the given days, months, weeks
    /// and positions, until `end` (nil: forever).
    ///
    /// Lists that do not apply to `type` are ignored (see the table in the type's
    /// documentation); an empty list is the same as nil.
    ///
    /// - Parameters:
    ///   - type: daily, weekly, monthly or yearly (`FREQ`).
    ///   - interval: every how many units, greater than 0 (`INTERVAL`).
    ///   - days: days of the week (`BYDAY`); weekly, monthly and yearly. Week numbers must be
    ///     0 in a weekly rule and within ±53 otherwise.
    ///   - monthDays: days of the month, ±1...31 (`BYMONTHDAY`); monthly.
    ///   - months: months, 1...12 (`BYMONTH`); yearly.
    ///   - weeksOfTheYear: weeks of the year, ±1...53 (`BYWEEKNO`); yearly.
    ///   - daysOfTheYear: days of the year, ±1...366 (`BYYEARDAY`); yearly.
    ///   - setPositions: positions in each period's set, ±1...366 (`BYSETPOS`); weekly,
    ///     monthly and yearly, with another list.
    ///   - end: when the recurrence ends; nil repeats forever.
    /// - Precondition: `interval` is greater than 0, and every value of a list that applies
    ///   is in its range, week numbers of a weekly rule being 0. EventKit raises an
    ///   exception for these; this traps with a message that starts "API misuse".
    public init(
        recurrenceWith type: EKRecurrenceFrequency, interval: Int, daysOfTheWeek days: [EKRecurrenceDayOfWeek]?,
        daysOfTheMonth monthDays: [NSNumber]?, monthsOfTheYear months: [NSNumber]?, weeksOfTheYear: [NSNumber]?,
        daysOfTheYear: [NSNumber]?, setPositions: [NSNumber]?, end: EKRecurrenceEnd?
    ) {
        guard interval > 0 else {
            preconditionFailure("API misuse: an EKRecurrenceRule needs an interval greater than 0, not \(interval)")
        }
        let days = Self.applicable(days, to: type, in: [.weekly, .monthly, .yearly])
        for day in days ?? [] {
            if type == .weekly && day.weekNumber != 0 {
                preconditionFailure("API misuse: a weekly EKRecurrenceRule needs days of the week with week number 0, not \(day.weekNumber)")
            }
            if abs(day.weekNumber) > 53 {
                preconditionFailure("API misuse: an EKRecurrenceDayOfWeek week number must be within ±53, not \(day.weekNumber)")
            }
        }
        let monthDays = Self.checked(Self.applicable(monthDays, to: type, in: [.monthly]), "daysOfTheMonth", 1...31, signed: true)
        let months = Self.checked(Self.applicable(months, to: type, in: [.yearly]), "monthsOfTheYear", 1...12, signed: false)
        let weeks = Self.checked(Self.applicable(weeksOfTheYear, to: type, in: [.yearly]), "weeksOfTheYear", 1...53, signed: true)
        let yearDays = Self.checked(Self.applicable(daysOfTheYear, to: type, in: [.yearly]), "daysOfTheYear", 1...366, signed: true)
        let hasOtherList = days != nil || monthDays != nil || months != nil || weeks != nil || yearDays != nil
        let positions = hasOtherList
            ? Self.checked(Self.applicable(setPositions, to: type, in: [.weekly, .monthly, .yearly]), "setPositions", 1...366, signed: true)
            : nil

        self.calendarIdentifier = Self.gregorian
        self.recurrenceEnd = end?.copy() as? EKRecurrenceEnd
        self.frequency = type
        self.interval = interval
        self.firstDayOfTheWeek = type == .weekly && interval > 1 ? EKWeekday.monday.rawValue : 0
        self.daysOfTheWeek = days?.map { EKRecurrenceDayOfWeek(dayOfTheWeek: $0.dayOfTheWeek, weekNumber: $0.weekNumber) }
        self.daysOfTheMonth = monthDays
        self.monthsOfTheYear = months
        self.weeksOfTheYear = weeks
        self.daysOfTheYear = yearDays
        self.setPositions = positions
        self.source = nil
        self.sourceEnd = nil
        self.sourceStartKind = nil
        super.init()
    }

    private init(copying rule: EKRecurrenceRule) {
        self.calendarIdentifier = rule.calendarIdentifier
        self.recurrenceEnd = rule.recurrenceEnd?.copy() as? EKRecurrenceEnd
        self.frequency = rule.frequency
        self.interval = rule.interval
        self.firstDayOfTheWeek = rule.firstDayOfTheWeek
        self.daysOfTheWeek = rule.daysOfTheWeek
        self.daysOfTheMonth = rule.daysOfTheMonth
        self.monthsOfTheYear = rule.monthsOfTheYear
        self.weeksOfTheYear = rule.weeksOfTheYear
        self.daysOfTheYear = rule.daysOfTheYear
        self.setPositions = rule.setPositions
        self.source = rule.source
        self.sourceEnd = rule.sourceEnd
        self.sourceStartKind = rule.sourceStartKind
        super.init()
    }

    /// A new rule with the same pattern and end (and, for a rule read from iCalendar, the
    /// same parts EventKit cannot express). The copy belongs to no item.
    open func copy(with zone: NSZone? = nil) -> Any {
        EKRecurrenceRule(copying: self)
    }

    /// `EKRecurrenceRule <0x…> RRULE FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;WKST=MO`, as EventKit
    /// writes it: INTERVAL always, a date end in UTC.
    open override var description: String {
        var rule = ruleFromProperties(start: DateTime(LocalDateTime(secondsSinceEpoch: 0), zone: .utc), zone: nil)
        rule.interval = interval
        return "EKRecurrenceRule <\(Unmanaged.passUnretained(self).toOpaque())> RRULE \(rule.iCalendarText)"
    }

    // MARK: iCalendar

    /// Reads an `RRULE` of an item whose `DTSTART` is `start`; nil when its frequency is
    /// SECONDLY, MINUTELY or HOURLY, which EventKit cannot express.
    ///
    /// `COUNT` becomes ``EKRecurrenceEnd/init(occurrenceCount:)``. `UNTIL` becomes
    /// ``EKRecurrenceEnd/init(end:)``: a UTC `UNTIL` is its instant, a floating one is read in
    /// `zone`, and a DATE is the end of that day (23:59:59) in `zone`; `zone` nil means UTC.
    /// (A `UNTIL` in a named zone, which RFC 5545 forbids, is read like a floating one.)
    /// Lists that do not apply to the frequency, week numbers in a weekly rule, leap months
    /// and out-of-range values are not shown; they stay in ``source`` and are written back.
    package init?(_ rule: RecurrenceRule, start: DateTime, zone: (any TimeZoneRules)?) {
        let type: EKRecurrenceFrequency
        switch rule.frequency {
        case .daily: type = .daily
        case .weekly: type = .weekly
        case .monthly: type = .monthly
        case .yearly: type = .yearly
        case .secondly, .minutely, .hourly: return nil
        }
        let interval = max(rule.interval ?? 1, 1)
        let end: EKRecurrenceEnd?
        if let count = rule.count, count > 0 {
            end = EKRecurrenceEnd(occurrenceCount: count)
        } else if let until = rule.until {
            end = EKRecurrenceEnd(end: Self.date(until: until, zone: zone))
        } else {
            end = nil
        }

        func numbers(_ values: [Int], _ range: ClosedRange<Int>, signed: Bool) -> [Int] {
            values.filter { signed ? $0 != 0 && range.contains(abs($0)) : range.contains($0) }
        }
        var days: [EKRecurrenceDayOfWeek] = rule.byDay.map(EKRecurrenceDayOfWeek.init)
        if type == .weekly { days = days.map { EKRecurrenceDayOfWeek(dayOfTheWeek: $0.dayOfTheWeek, weekNumber: 0) } }
        let months = rule.byMonth.filter { !$0.isLeap && (1...12).contains($0.number) }.map(\.number)

        let shownDays = Self.applicable(days, to: type, in: [.weekly, .monthly, .yearly])
        let monthDays = Self.applicable(numbers(rule.byMonthDay, 1...31, signed: true), to: type, in: [.monthly])
        let shownMonths = Self.applicable(months, to: type, in: [.yearly])
        let weeks = Self.applicable(numbers(rule.byWeekNumber, 1...53, signed: true), to: type, in: [.yearly])
        let yearDays = Self.applicable(numbers(rule.byYearDay, 1...366, signed: true), to: type, in: [.yearly])
        let hasOtherList = shownDays != nil || monthDays != nil || shownMonths != nil || weeks != nil || yearDays != nil
        let positions = hasOtherList
            ? Self.applicable(numbers(rule.bySetPosition, 1...366, signed: true), to: type, in: [.weekly, .monthly, .yearly])
            : nil

        self.calendarIdentifier = rule.calendarScale.map { $0.lowercased() } ?? Self.gregorian
        self.recurrenceEnd = end
        self.frequency = type
        self.interval = interval
        if let weekStart = rule.weekStart {
            self.firstDayOfTheWeek = EKWeekday(weekStart).rawValue
        } else {
            self.firstDayOfTheWeek = type == .weekly && interval > 1 ? EKWeekday.monday.rawValue : 0
        }
        self.daysOfTheWeek = shownDays
        self.daysOfTheMonth = monthDays?.map(NSNumber.init(value:))
        self.monthsOfTheYear = shownMonths?.map(NSNumber.init(value:))
        self.weeksOfTheYear = weeks?.map(NSNumber.init(value:))
        self.daysOfTheYear = yearDays?.map(NSNumber.init(value:))
        self.setPositions = positions?.map(NSNumber.init(value:))
        self.source = rule
        self.sourceEnd = end
        self.sourceStartKind = StartKind(start)
        super.init()
    }

    /// The `RRULE` to write for an item whose `DTSTART` is `start`.
    ///
    /// A rule read from iCalendar whose end did not change, for an item whose `DTSTART` is
    /// still of the same kind (DATE, floating, or UTC / named zone), is returned exactly as
    /// read. Otherwise a rule read from iCalendar keeps every part but `COUNT` and `UNTIL`,
    /// and a rule created through EventKit's initializers is written from its properties
    /// (`INTERVAL` only when above 1, `WKST` only when ``firstDayOfTheWeek`` is set).
    ///
    /// `UNTIL` follows RFC 5545 §3.3.10: a DATE when `start` is a DATE (the day `endDate`
    /// falls on in `zone`), a floating time when `start` is floating (`endDate`'s wall-clock
    /// time in `zone`), and a UTC time otherwise. `zone` nil means UTC. Fractions of a
    /// second are dropped.
    package func iCalendarRule(start: DateTime, zone: (any TimeZoneRules)?) -> RecurrenceRule {
        guard var rule = source else { return ruleFromProperties(start: start, zone: zone) }
        if recurrenceEnd == sourceEnd && (rule.until == nil || StartKind(start) == sourceStartKind) {
            return rule
        }
        applyEnd(to: &rule, start: start, zone: zone)
        return rule
    }

    /// The rule written from the EventKit properties alone.
    private func ruleFromProperties(start: DateTime, zone: (any TimeZoneRules)?) -> RecurrenceRule {
        let frequency: RecurrenceRule.Frequency
        switch self.frequency {
        case .daily: frequency = .daily
        case .weekly: frequency = .weekly
        case .monthly: frequency = .monthly
        case .yearly: frequency = .yearly
        }
        let weekStart = EKWeekday(rawValue: firstDayOfTheWeek)?.recurrenceWeekday
        var rule = RecurrenceRule(
            frequency: frequency,
            interval: interval > 1 ? interval : nil,
            byDay: (daysOfTheWeek ?? []).map(\.weekdayNumber),
            byMonthDay: (daysOfTheMonth ?? []).map(\.intValue),
            byYearDay: (daysOfTheYear ?? []).map(\.intValue),
            byWeekNumber: (weeksOfTheYear ?? []).map(\.intValue),
            byMonth: (monthsOfTheYear ?? []).map { RecurrenceRule.Month($0.intValue) },
            bySetPosition: (setPositions ?? []).map(\.intValue),
            weekStart: weekStart,
            calendarScale: calendarIdentifier == Self.gregorian ? nil : calendarIdentifier.uppercased())
        applyEnd(to: &rule, start: start, zone: zone)
        return rule
    }

    /// Writes ``recurrenceEnd`` as COUNT or UNTIL (removing the other).
    private func applyEnd(to rule: inout RecurrenceRule, start: DateTime, zone: (any TimeZoneRules)?) {
        rule.count = nil
        rule.until = nil
        guard let recurrenceEnd else { return }
        if let endDate = recurrenceEnd.endDate {
            rule.until = Self.until(endDate, start: start, zone: zone)
        } else if recurrenceEnd.occurrenceCount > 0 {
            rule.count = recurrenceEnd.occurrenceCount
        }
    }

    // MARK: Helpers

    private static let gregorian = "gregorian"

    /// What kind of DTSTART a rule was read for; UNTIL must have the matching form.
    private enum StartKind: Equatable {
        /// A DATE: UNTIL is a DATE.
        case date
        /// A floating DATE-TIME: UNTIL is floating.
        case floating
        /// A UTC or zoned DATE-TIME: UNTIL is UTC.
        case absolute

        init(_ start: DateTime) {
            if start.isDate {
                self = .date
            } else if start.zone == .floating {
                self = .floating
            } else {
                self = .absolute
            }
        }
    }

    /// The end date an UNTIL names (see ``init(_:start:zone:)``).
    private static func date(until: DateTime, zone: (any TimeZoneRules)?) -> Date {
        let rules: any TimeZoneRules = zone ?? FixedOffsetZone.utc
        let instant: Int64
        if until.isDate {
            let endOfDay = LocalDateTime(date: until.date, time: TimeOfDay(hour: 23, minute: 59, second: 59) ?? .midnight)
            instant = rules.instant(for: endOfDay)
        } else if until.zone == .utc {
            instant = until.local.secondsSinceEpoch
        } else {
            instant = rules.instant(for: until.local)
        }
        return Date(timeIntervalSince1970: TimeInterval(instant))
    }

    /// The UNTIL to write for an end date (see ``iCalendarRule(start:zone:)``).
    private static func until(_ endDate: Date, start: DateTime, zone: (any TimeZoneRules)?) -> DateTime {
        let rules: any TimeZoneRules = zone ?? FixedOffsetZone.utc
        let instant = Int64(endDate.timeIntervalSince1970.rounded(.down))
        switch StartKind(start) {
        case .date: return DateTime(date: rules.local(at: instant).date)
        case .floating: return DateTime(rules.local(at: instant), zone: .floating)
        case .absolute: return DateTime(LocalDateTime(secondsSinceEpoch: instant), zone: .utc)
        }
    }

    /// `list` when `type` is one of `frequencies` and the list is not empty, else nil.
    private static func applicable<Element>(
        _ list: [Element]?, to type: EKRecurrenceFrequency, in frequencies: Set<EKRecurrenceFrequency>
    ) -> [Element]? {
        guard let list, !list.isEmpty, frequencies.contains(type) else { return nil }
        return list
    }

    /// `list`, after checking that every value is in range (non-zero and within ±range when
    /// `signed`); traps otherwise, as EventKit raises.
    private static func checked(_ list: [NSNumber]?, _ name: String, _ range: ClosedRange<Int>, signed: Bool) -> [NSNumber]? {
        for number in list ?? [] {
            let value = number.intValue
            let fits = signed ? value != 0 && range.contains(abs(value)) : range.contains(value)
            if !fits {
                preconditionFailure("API misuse: EKRecurrenceRule \(name) holds \(value), outside \(signed ? "±" : "")\(range.lowerBound)...\(range.upperBound)")
            }
        }
        return list
    }
}
