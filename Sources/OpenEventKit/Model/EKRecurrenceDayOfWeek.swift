import Foundation
import ICalKit

/// A day of the week in a recurrence rule, optionally the nth such day of the month or year:
/// one entry of an iCalendar `BYDAY` list (`MO`, `-1FR`).
///
/// A week number of 0 means every such day (`BYDAY=MO`); a positive number counts from the
/// start of the month or year, a negative one from its end (`-1FR` is the last Friday). Week
/// numbers only mean something in monthly and yearly rules: ``EKRecurrenceRule`` refuses a
/// non-zero week number in a weekly rule, as EventKit does.
///
/// Two days of the week are equal when their day and week number are.
open class EKRecurrenceDayOfWeek: NSObject, NSCopying {
    /// The day of the week (Sunday = 1).
    public let dayOfTheWeek: EKWeekday
    /// 0 for every such day, else ±1...53: the nth such day, negative counting from the end.
    public let weekNumber: Int

    /// Every such day in the period (week number 0): `BYDAY=MO`.
    public convenience init(_ dayOfTheWeek: EKWeekday) {
        self.init(dayOfTheWeek: dayOfTheWeek, weekNumber: 0)
    }

    /// The nth such day of the month or year (`BYDAY=2TU`, `BYDAY=-1FR`); 0 means every one.
    public convenience init(_ dayOfTheWeek: EKWeekday, weekNumber: Int) {
        self.init(dayOfTheWeek: dayOfTheWeek, weekNumber: weekNumber)
    }

    /// Creates a day of the week with a week number (0 for every such day, else ±1...53).
    ///
    /// As with EventKit, the week number is checked when the day is used to build an
    /// ``EKRecurrenceRule``, not here.
    public init(dayOfTheWeek: EKWeekday, weekNumber: Int) {
        self.dayOfTheWeek = dayOfTheWeek
        self.weekNumber = weekNumber
        super.init()
    }

    /// A new day of the week with the same day and week number.
    open func copy(with zone: NSZone? = nil) -> Any {
        EKRecurrenceDayOfWeek(dayOfTheWeek: dayOfTheWeek, weekNumber: weekNumber)
    }

    /// Equal when the other object is a day of the week with the same day and week number.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? EKRecurrenceDayOfWeek else { return false }
        return dayOfTheWeek == other.dayOfTheWeek && weekNumber == other.weekNumber
    }

    /// A hash consistent with ``isEqual(_:)``.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(dayOfTheWeek)
        hasher.combine(weekNumber)
        return hasher.finalize()
    }

    /// The day as a `BYDAY` entry would write it: `MO`, `2TU`, `-1FR`.
    open override var description: String {
        weekdayNumber.iCalendarText
    }

    // MARK: iCalendar

    /// Reads a `BYDAY` entry; an ordinal outside ±1...53 (which no valid rule holds) is read
    /// as 0, every such day.
    package convenience init(_ weekdayNumber: RecurrenceRule.WeekdayNumber) {
        var weekNumber = weekdayNumber.ordinal ?? 0
        if abs(weekNumber) > 53 { weekNumber = 0 }
        self.init(dayOfTheWeek: EKWeekday(weekdayNumber.weekday), weekNumber: weekNumber)
    }

    /// The `BYDAY` entry: no ordinal for week number 0.
    package var weekdayNumber: RecurrenceRule.WeekdayNumber {
        RecurrenceRule.WeekdayNumber(ordinal: weekNumber == 0 ? nil : weekNumber,
                                     weekday: dayOfTheWeek.recurrenceWeekday)
    }
}

extension EKWeekday {
    /// The EventKit weekday of an iCalendar weekday (`MO` is ``monday``, raw value 2).
    package init(_ weekday: RecurrenceRule.Weekday) {
        switch weekday {
        case .sunday: self = .sunday
        case .monday: self = .monday
        case .tuesday: self = .tuesday
        case .wednesday: self = .wednesday
        case .thursday: self = .thursday
        case .friday: self = .friday
        case .saturday: self = .saturday
        }
    }

    /// The iCalendar weekday (`MO` ... `SU`).
    package var recurrenceWeekday: RecurrenceRule.Weekday {
        switch self {
        case .sunday: return .sunday
        case .monday: return .monday
        case .tuesday: return .tuesday
        case .wednesday: return .wednesday
        case .thursday: return .thursday
        case .friday: return .friday
        case .saturday: return .saturday
        }
    }
}
