import Foundation
import ICalKit
import OpenEventKit
import Testing

@Suite struct EKRecurrenceDayOfWeekTests {
    @Test func initializers() {
        let every = EKRecurrenceDayOfWeek(.monday)
        #expect(every.dayOfTheWeek == .monday && every.weekNumber == 0)
        let last = EKRecurrenceDayOfWeek(.friday, weekNumber: -1)
        #expect(last.dayOfTheWeek == .friday && last.weekNumber == -1)
        let second = EKRecurrenceDayOfWeek(dayOfTheWeek: .tuesday, weekNumber: 2)
        #expect(second.dayOfTheWeek == .tuesday && second.weekNumber == 2)
    }

    @Test func equalityAndHashAreByValue() {
        let a = EKRecurrenceDayOfWeek(.sunday, weekNumber: 1)
        let b = EKRecurrenceDayOfWeek(dayOfTheWeek: .sunday, weekNumber: 1)
        #expect(a !== b)
        #expect(a.isEqual(b) && a == b && a.hash == b.hash)
        #expect(a != EKRecurrenceDayOfWeek(.sunday, weekNumber: 2))
        #expect(a != EKRecurrenceDayOfWeek(.monday, weekNumber: 1))
        #expect(!a.isEqual("SU"))
        #expect(Set([a, b, EKRecurrenceDayOfWeek(.sunday)]).count == 2)
    }

    @Test func copyIsEqualButDistinct() throws {
        let day = EKRecurrenceDayOfWeek(.thursday, weekNumber: 3)
        let copy = try #require(day.copy() as? EKRecurrenceDayOfWeek)
        #expect(copy !== day && copy == day)
    }

    @Test func descriptionIsTheByDayEntry() {
        #expect(EKRecurrenceDayOfWeek(.monday).description == "MO")
        #expect(EKRecurrenceDayOfWeek(.friday, weekNumber: -1).description == "-1FR")
        #expect(EKRecurrenceDayOfWeek(.saturday, weekNumber: 53).description == "53SA")
    }

    /// Every weekday maps onto its iCalendar token and back (Sunday = 1 in EventKit, SU).
    @Test(arguments: [
        (EKWeekday.sunday, RecurrenceRule.Weekday.sunday), (.monday, .monday), (.tuesday, .tuesday),
        (.wednesday, .wednesday), (.thursday, .thursday), (.friday, .friday), (.saturday, .saturday),
    ])
    func weekdayMapping(_ weekday: EKWeekday, _ token: RecurrenceRule.Weekday) {
        #expect(weekday.recurrenceWeekday == token)
        #expect(EKWeekday(token) == weekday)
    }

    @Test(arguments: ["MO", "1MO", "-1FR", "+2TU", "53SU", "-53SA"])
    func weekdayNumberRoundTrip(_ text: String) throws {
        let entry = try #require(RecurrenceRule.WeekdayNumber(iCalendar: text))
        let day = EKRecurrenceDayOfWeek(entry)
        #expect(day.weekNumber == (entry.ordinal ?? 0))
        #expect(day.weekdayNumber == entry)
    }

    @Test func ordinalOutOfRangeReadsAsEveryDay() {
        let day = EKRecurrenceDayOfWeek(RecurrenceRule.WeekdayNumber(ordinal: 60, weekday: .monday))
        #expect(day == EKRecurrenceDayOfWeek(.monday))
    }
}
