import Foundation
import ICalKit
import OpenEventKit
import Testing

@Suite struct EKRecurrenceRuleTests {
    /// A zoned DTSTART: UNTIL must be UTC.
    let zonedStart = DateTime(LocalDateTime(year: 2024, month: 1, day: 1, hour: 9)!, zone: .identifier("Test/PlusOne"))
    /// An all-day DTSTART: UNTIL must be a DATE.
    let dateStart = DateTime(date: CalendarDate(year: 2024, month: 1, day: 1)!)
    /// A floating DTSTART: UNTIL must be floating.
    let floatingStart = DateTime(LocalDateTime(year: 2024, month: 1, day: 1, hour: 9)!)
    /// A UTC DTSTART: UNTIL must be UTC.
    let utcStart = DateTime(LocalDateTime(year: 2024, month: 1, day: 1, hour: 9)!, zone: .utc)

    func read(_ text: String, start: DateTime? = nil, zone: (any TimeZoneRules)? = nil,
              sourceLocation: SourceLocation = #_sourceLocation) throws -> (RecurrenceRule, EKRecurrenceRule) {
        let rule = try #require(RecurrenceRule(iCalendar: text), sourceLocation: sourceLocation)
        let ekRule = try #require(EKRecurrenceRule(rule, start: start ?? zonedStart, zone: zone ?? plusOneHour),
                                  sourceLocation: sourceLocation)
        return (rule, ekRule)
    }

    static func numbers(_ values: [Int]) -> [NSNumber] { values.map { NSNumber(value: $0) } }

    // MARK: Initializers and properties

    @Test func simpleInitializer() {
        let end = EKRecurrenceEnd(occurrenceCount: 5)
        let rule = EKRecurrenceRule(recurrenceWith: .daily, interval: 3, end: end)
        #expect(rule.frequency == .daily)
        #expect(rule.interval == 3)
        #expect(rule.recurrenceEnd == end)
        #expect(rule.calendarIdentifier == "gregorian")
        #expect(rule.daysOfTheWeek == nil && rule.daysOfTheMonth == nil && rule.daysOfTheYear == nil)
        #expect(rule.weeksOfTheYear == nil && rule.monthsOfTheYear == nil && rule.setPositions == nil)
        #expect(EKRecurrenceRule(recurrenceWith: .yearly, interval: 1, end: nil).recurrenceEnd == nil)
    }

    /// EventKit sets the first day of the week to Monday (2) for weekly rules with an
    /// interval above 1 and leaves it 0 (not set) otherwise.
    @Test(arguments: [
        (EKRecurrenceFrequency.daily, 1, 0), (.daily, 2, 0), (.weekly, 1, 0), (.weekly, 2, 2), (.weekly, 5, 2),
        (.monthly, 2, 0), (.yearly, 3, 0),
    ])
    func firstDayOfTheWeek(_ frequency: EKRecurrenceFrequency, _ interval: Int, _ expected: Int) {
        #expect(EKRecurrenceRule(recurrenceWith: frequency, interval: interval, end: nil).firstDayOfTheWeek == expected)
    }

    @Test func fullInitializerKeepsEveryListThatApplies() {
        let days = [EKRecurrenceDayOfWeek(.monday, weekNumber: 1), EKRecurrenceDayOfWeek(.friday, weekNumber: -1)]
        let yearly = EKRecurrenceRule(
            recurrenceWith: .yearly, interval: 2, daysOfTheWeek: days, daysOfTheMonth: Self.numbers([1]),
            monthsOfTheYear: Self.numbers([1, 6]), weeksOfTheYear: Self.numbers([20, -1]),
            daysOfTheYear: Self.numbers([100, -1]), setPositions: Self.numbers([1, -1]), end: nil)
        #expect(yearly.daysOfTheWeek == days)
        #expect(yearly.daysOfTheMonth == nil)  // monthly only
        #expect(yearly.monthsOfTheYear == Self.numbers([1, 6]))
        #expect(yearly.weeksOfTheYear == Self.numbers([20, -1]))
        #expect(yearly.daysOfTheYear == Self.numbers([100, -1]))
        #expect(yearly.setPositions == Self.numbers([1, -1]))

        let monthly = EKRecurrenceRule(
            recurrenceWith: .monthly, interval: 1, daysOfTheWeek: days, daysOfTheMonth: Self.numbers([1, -3]),
            monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil, setPositions: Self.numbers([2]), end: nil)
        #expect(monthly.daysOfTheWeek == days)
        #expect(monthly.daysOfTheMonth == Self.numbers([1, -3]))
        #expect(monthly.setPositions == Self.numbers([2]))
    }

    /// Lists that do not apply to the frequency are ignored, as EventKit documents: dropped
    /// (nil) here, and not written.
    @Test(arguments: [
        (EKRecurrenceFrequency.daily, [false, false, false, false, false, false]),
        (.weekly, [true, false, false, false, false, true]),
        (.monthly, [true, true, false, false, false, true]),
        (.yearly, [true, false, true, true, true, true]),
    ])
    func listsThatDoNotApplyAreDropped(_ frequency: EKRecurrenceFrequency, _ kept: [Bool]) {
        let rule = EKRecurrenceRule(
            recurrenceWith: frequency, interval: 1, daysOfTheWeek: [EKRecurrenceDayOfWeek(.tuesday)],
            daysOfTheMonth: Self.numbers([15]), monthsOfTheYear: Self.numbers([3]), weeksOfTheYear: Self.numbers([10]),
            daysOfTheYear: Self.numbers([60]), setPositions: Self.numbers([1]), end: nil)
        let present = [rule.daysOfTheWeek != nil, rule.daysOfTheMonth != nil, rule.monthsOfTheYear != nil,
                       rule.weeksOfTheYear != nil, rule.daysOfTheYear != nil, rule.setPositions != nil]
        #expect(present == kept)
        let written = rule.iCalendarRule(start: utcStart, zone: nil)
        #expect(written.byDay.isEmpty == !kept[0] && written.byMonthDay.isEmpty == !kept[1])
        #expect(written.byMonth.isEmpty == !kept[2] && written.byWeekNumber.isEmpty == !kept[3])
        #expect(written.byYearDay.isEmpty == !kept[4] && written.bySetPosition.isEmpty == !kept[5])
    }

    @Test func setPositionsNeedAnotherListAndEmptyListsAreNil() {
        let alone = EKRecurrenceRule(
            recurrenceWith: .monthly, interval: 1, daysOfTheWeek: [], daysOfTheMonth: [], monthsOfTheYear: [],
            weeksOfTheYear: [], daysOfTheYear: [], setPositions: Self.numbers([-1]), end: nil)
        #expect(alone.daysOfTheWeek == nil && alone.daysOfTheMonth == nil && alone.setPositions == nil)
        #expect(alone.iCalendarRule(start: utcStart, zone: nil).iCalendarText == "FREQ=MONTHLY")
    }

    /// Week numbers are for monthly and yearly rules; a weekly rule keeps days with week
    /// number 0.
    @Test func weekNumbersInMonthlyAndWeeklyRules() {
        let monthly = EKRecurrenceRule(
            recurrenceWith: .monthly, interval: 1, daysOfTheWeek: [EKRecurrenceDayOfWeek(.monday, weekNumber: 2)],
            daysOfTheMonth: nil, monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil, setPositions: nil, end: nil)
        #expect(monthly.daysOfTheWeek?.first?.weekNumber == 2)
        let weekly = EKRecurrenceRule(
            recurrenceWith: .weekly, interval: 1, daysOfTheWeek: [EKRecurrenceDayOfWeek(.monday)],
            daysOfTheMonth: nil, monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil, setPositions: nil, end: nil)
        #expect(weekly.daysOfTheWeek == [EKRecurrenceDayOfWeek(.monday)])
        // A daily rule ignores its days, week numbers and all.
        let daily = EKRecurrenceRule(
            recurrenceWith: .daily, interval: 1, daysOfTheWeek: [EKRecurrenceDayOfWeek(.monday, weekNumber: 9)],
            daysOfTheMonth: nil, monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil, setPositions: nil, end: nil)
        #expect(daily.daysOfTheWeek == nil)
    }

    /// EventKit's header: "weekNumber must be zero when passing EKRecurrenceDayOfWeek objects
    /// to initialize a weekly recurrence" — it raises; this traps.
    @Test func weeklyRuleWithAWeekNumberTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = EKRecurrenceRule(
                recurrenceWith: .weekly, interval: 1, daysOfTheWeek: [EKRecurrenceDayOfWeek(.monday, weekNumber: 1)],
                daysOfTheMonth: nil, monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil, setPositions: nil,
                end: nil)
        }
    }

    @Test func settingTheEndCopiesItAndTellsTheOwner() throws {
        let rule = EKRecurrenceRule(recurrenceWith: .daily, interval: 1, end: nil)
        let counter = ChangeCounter()
        rule.ownerDidChange = { counter.count += 1 }
        let end = EKRecurrenceEnd(occurrenceCount: 4)
        rule.recurrenceEnd = end
        #expect(counter.count == 1)
        #expect(rule.recurrenceEnd == end)
        #expect(rule.recurrenceEnd !== end)  // @NSCopying
        rule.recurrenceEnd = nil
        #expect(counter.count == 2 && rule.recurrenceEnd == nil)
    }

    @Test func copyKeepsThePatternAndBelongsToNoItem() throws {
        let rule = EKRecurrenceRule(
            recurrenceWith: .monthly, interval: 2, daysOfTheWeek: [EKRecurrenceDayOfWeek(.friday, weekNumber: -1)],
            daysOfTheMonth: nil, monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil, setPositions: nil,
            end: EKRecurrenceEnd(occurrenceCount: 6))
        rule.ownerDidChange = {}
        let copy = try #require(rule.copy() as? EKRecurrenceRule)
        #expect(copy !== rule && copy.ownerDidChange == nil)
        #expect(copy.frequency == .monthly && copy.interval == 2)
        #expect(copy.daysOfTheWeek == rule.daysOfTheWeek && copy.recurrenceEnd == rule.recurrenceEnd)
        #expect(copy.iCalendarRule(start: utcStart, zone: nil) == rule.iCalendarRule(start: utcStart, zone: nil))
    }

    @Test func descriptionIsTheRuleAsEventKitWritesIt() {
        let rule = EKRecurrenceRule(
            recurrenceWith: .weekly, interval: 2, daysOfTheWeek: [EKRecurrenceDayOfWeek(.tuesday), EKRecurrenceDayOfWeek(.thursday)],
            daysOfTheMonth: nil, monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil, setPositions: nil,
            end: EKRecurrenceEnd(end: utcDate(2024, 6, 30, 12)))
        #expect(rule.description.hasPrefix("EKRecurrenceRule <0x"))
        #expect(rule.description.hasSuffix("> RRULE FREQ=WEEKLY;UNTIL=20240630T120000Z;INTERVAL=2;BYDAY=TU,TH;WKST=MO"))
        #expect(EKRecurrenceRule(recurrenceWith: .daily, interval: 1, end: nil).description.hasSuffix("RRULE FREQ=DAILY;INTERVAL=1"))
    }

    // MARK: Writing rules created through EventKit

    /// The RFC 5545 §3.8.5.3 patterns built through EventKit's initializer, and what they write.
    @Test func writtenRules() throws {
        func rule(_ type: EKRecurrenceFrequency, interval: Int = 1, days: [EKRecurrenceDayOfWeek]? = nil,
                  monthDays: [Int]? = nil, months: [Int]? = nil, weeks: [Int]? = nil, yearDays: [Int]? = nil,
                  positions: [Int]? = nil, end: EKRecurrenceEnd? = nil) -> EKRecurrenceRule {
            EKRecurrenceRule(recurrenceWith: type, interval: interval, daysOfTheWeek: days,
                             daysOfTheMonth: monthDays.map(Self.numbers), monthsOfTheYear: months.map(Self.numbers),
                             weeksOfTheYear: weeks.map(Self.numbers), daysOfTheYear: yearDays.map(Self.numbers),
                             setPositions: positions.map(Self.numbers), end: end)
        }
        let weekdays = [EKWeekday.monday, .tuesday, .wednesday, .thursday, .friday].map { EKRecurrenceDayOfWeek($0) }
        let cases: [(EKRecurrenceRule, String)] = [
            (rule(.monthly, days: [EKRecurrenceDayOfWeek(.friday, weekNumber: -1)]), "FREQ=MONTHLY;BYDAY=-1FR"),
            (rule(.yearly, days: [EKRecurrenceDayOfWeek(.sunday)], months: [1, 2]), "FREQ=YEARLY;BYDAY=SU;BYMONTH=1,2"),
            (rule(.weekly, interval: 2, days: [EKRecurrenceDayOfWeek(.tuesday), EKRecurrenceDayOfWeek(.thursday)]),
             "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;WKST=MO"),
            (rule(.monthly, monthDays: [-3]), "FREQ=MONTHLY;BYMONTHDAY=-3"),
            (rule(.yearly, days: [EKRecurrenceDayOfWeek(.monday)], weeks: [20]), "FREQ=YEARLY;BYDAY=MO;BYWEEKNO=20"),
            (rule(.monthly, days: weekdays, positions: [-2]), "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2"),
            (rule(.daily, end: EKRecurrenceEnd(occurrenceCount: 10)), "FREQ=DAILY;COUNT=10"),
            (rule(.yearly, interval: 3, yearDays: [1, 100, 200]), "FREQ=YEARLY;INTERVAL=3;BYYEARDAY=1,100,200"),
        ]
        for (rule, expected) in cases {
            let written = rule.iCalendarRule(start: utcStart, zone: nil)
            #expect(written.iCalendarText == expected)
            try written.validate()
        }
    }

    // MARK: Reading RRULEs

    /// RFC 5545 §3.8.5.3 rules: what EventKit shows, and an unchanged rule written back as read.
    @Test(arguments: [
        "FREQ=MONTHLY;BYDAY=-1FR",
        "FREQ=YEARLY;BYMONTH=1,2;BYDAY=SU",
        "FREQ=WEEKLY;INTERVAL=2;WKST=SU;BYDAY=TU,TH",
        "FREQ=MONTHLY;BYMONTHDAY=-3",
        "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO",
        "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2",
        "FREQ=DAILY;COUNT=10",
        "FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200",
        "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15",
    ])
    func unchangedRuleIsWrittenBackAsRead(_ text: String) throws {
        let (rule, ekRule) = try read(text)
        #expect(ekRule.source == rule)
        #expect(ekRule.iCalendarRule(start: zonedStart, zone: plusOneHour) == rule)

        // A rule built through EventKit's initializer from what was read writes the same
        // pattern (EventKit picks its own WKST).
        let rebuilt = EKRecurrenceRule(
            recurrenceWith: ekRule.frequency, interval: ekRule.interval, daysOfTheWeek: ekRule.daysOfTheWeek,
            daysOfTheMonth: ekRule.daysOfTheMonth, monthsOfTheYear: ekRule.monthsOfTheYear,
            weeksOfTheYear: ekRule.weeksOfTheYear, daysOfTheYear: ekRule.daysOfTheYear,
            setPositions: ekRule.setPositions, end: ekRule.recurrenceEnd)
        var written = rebuilt.iCalendarRule(start: zonedStart, zone: plusOneHour)
        var expected = rule
        written.weekStart = nil
        expected.weekStart = nil
        #expect(written == expected)

        // A new end changes COUNT / UNTIL and nothing else.
        ekRule.recurrenceEnd = EKRecurrenceEnd(occurrenceCount: 3)
        var ended = rule
        ended.count = 3
        ended.until = nil
        #expect(ekRule.iCalendarRule(start: zonedStart, zone: plusOneHour) == ended)
    }

    @Test func propertiesOfReadRules() throws {
        let lastFriday = try read("FREQ=MONTHLY;BYDAY=-1FR").1
        #expect(lastFriday.frequency == .monthly && lastFriday.interval == 1 && lastFriday.recurrenceEnd == nil)
        #expect(lastFriday.daysOfTheWeek == [EKRecurrenceDayOfWeek(.friday, weekNumber: -1)])

        let sundays = try read("FREQ=YEARLY;BYMONTH=1,2;BYDAY=SU").1
        #expect(sundays.monthsOfTheYear == Self.numbers([1, 2]))
        #expect(sundays.daysOfTheWeek == [EKRecurrenceDayOfWeek(.sunday)])

        let fortnightly = try read("FREQ=WEEKLY;INTERVAL=2;WKST=SU;BYDAY=TU,TH").1
        #expect(fortnightly.interval == 2 && fortnightly.firstDayOfTheWeek == 1)
        #expect(fortnightly.daysOfTheWeek == [EKRecurrenceDayOfWeek(.tuesday), EKRecurrenceDayOfWeek(.thursday)])

        #expect(try read("FREQ=MONTHLY;BYMONTHDAY=-3").1.daysOfTheMonth == Self.numbers([-3]))

        let week20 = try read("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO").1
        #expect(week20.weeksOfTheYear == Self.numbers([20]) && week20.daysOfTheWeek == [EKRecurrenceDayOfWeek(.monday)])

        let secondToLast = try read("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2").1
        #expect(secondToLast.setPositions == Self.numbers([-2]) && secondToLast.daysOfTheWeek?.count == 5)

        let counted = try read("FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200").1
        #expect(counted.interval == 3 && counted.recurrenceEnd == EKRecurrenceEnd(occurrenceCount: 10))
        #expect(counted.daysOfTheYear == Self.numbers([1, 100, 200]) && counted.calendarIdentifier == "gregorian")
    }

    /// WKST as read; without it, Monday (the iCalendar default) where it matters (weekly,
    /// interval above 1) and 0 elsewhere.
    @Test(arguments: [
        ("FREQ=WEEKLY;INTERVAL=2;WKST=SU", 1), ("FREQ=WEEKLY;INTERVAL=2", 2), ("FREQ=WEEKLY", 0),
        ("FREQ=MONTHLY", 0), ("FREQ=DAILY;WKST=MO", 2), ("FREQ=YEARLY;WKST=SA", 7),
    ])
    func firstDayOfTheWeekOfReadRules(_ text: String, _ expected: Int) throws {
        #expect(try read(text).1.firstDayOfTheWeek == expected)
    }

    @Test(arguments: ["FREQ=HOURLY", "FREQ=MINUTELY;INTERVAL=15", "FREQ=SECONDLY;COUNT=5"])
    func frequenciesEventKitCannotExpressAreNotRead(_ text: String) throws {
        let rule = try #require(RecurrenceRule(iCalendar: text))
        #expect(EKRecurrenceRule(rule, start: zonedStart, zone: plusOneHour) == nil)
    }

    /// Parts EventKit cannot express survive an unchanged round trip, and a changed end.
    @Test(arguments: [
        "FREQ=DAILY;BYHOUR=9,17",
        "FREQ=WEEKLY;BYDAY=MO;X-NAME=1",
        "FREQ=DAILY;BYHOUR=9;BYMINUTE=0,30;BYSECOND=0;X-NAME=1",
        "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
        "FREQ=MONTHLY;BYMONTH=1,7;BYMONTHDAY=1",
        "FREQ=WEEKLY;BYDAY=1MO",
        "FREQ=YEARLY;RSCALE=HEBREW;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD",
    ])
    func unknownPartsSurvive(_ text: String) throws {
        let (rule, ekRule) = try read(text)
        #expect(ekRule.iCalendarRule(start: zonedStart, zone: plusOneHour) == rule)
        ekRule.recurrenceEnd = EKRecurrenceEnd(end: utcDate(2024, 3, 1, 8))
        var expected = rule
        expected.until = DateTime(LocalDateTime(year: 2024, month: 3, day: 1, hour: 8)!, zone: .utc)
        #expect(ekRule.iCalendarRule(start: zonedStart, zone: plusOneHour) == expected)
    }

    /// What EventKit cannot express is not shown: days of a daily rule, months of a monthly
    /// rule, week numbers of a weekly rule, leap months, RSCALE's calendar.
    @Test func partsThatDoNotApplyAreNotShown() throws {
        #expect(try read("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR").1.daysOfTheWeek == nil)
        let monthly = try read("FREQ=MONTHLY;BYMONTH=1,7;BYMONTHDAY=1").1
        #expect(monthly.monthsOfTheYear == nil && monthly.daysOfTheMonth == Self.numbers([1]))
        #expect(try read("FREQ=WEEKLY;BYDAY=1MO,-1FR").1.daysOfTheWeek
            == [EKRecurrenceDayOfWeek(.monday), EKRecurrenceDayOfWeek(.friday)])
        let hebrew = try read("FREQ=YEARLY;RSCALE=HEBREW;BYMONTH=5L,6;BYMONTHDAY=8;SKIP=FORWARD").1
        #expect(hebrew.calendarIdentifier == "hebrew")
        #expect(hebrew.monthsOfTheYear == Self.numbers([6]))
        #expect(try read("FREQ=DAILY;BYSETPOS=1;BYHOUR=9").1.setPositions == nil)
    }

    // MARK: UNTIL

    /// UNTIL as read: a UTC time is its instant, a floating time is read in the zone, a DATE
    /// is the end of that day in the zone; no zone means UTC.
    @Test(arguments: [
        ("FREQ=DAILY;UNTIL=20240131T090000Z", true, utcDate(2024, 1, 31, 9)),
        ("FREQ=DAILY;UNTIL=20240131T090000Z", false, utcDate(2024, 1, 31, 9)),
        ("FREQ=DAILY;UNTIL=20240131T100000", true, utcDate(2024, 1, 31, 9)),
        ("FREQ=DAILY;UNTIL=20240131T100000", false, utcDate(2024, 1, 31, 10)),
        ("FREQ=DAILY;UNTIL=20240131", true, utcDate(2024, 1, 31, 22, 59, 59)),
        ("FREQ=DAILY;UNTIL=20240131", false, utcDate(2024, 1, 31, 23, 59, 59)),
    ])
    func untilAsRead(_ text: String, _ inZone: Bool, _ expected: Date) throws {
        let rule = try #require(RecurrenceRule(iCalendar: text))
        let ekRule = try #require(EKRecurrenceRule(rule, start: floatingStart, zone: inZone ? plusOneHour : nil))
        #expect(ekRule.recurrenceEnd?.endDate == expected)
        #expect(ekRule.recurrenceEnd?.occurrenceCount == 0)
    }

    @Test func untilInAnIANAZone() throws {
        let berlin = try #require(IANATimeZone(named: "Europe/Berlin"))
        let rule = try #require(RecurrenceRule(iCalendar: "FREQ=DAILY;UNTIL=20240731"))
        let ekRule = try #require(EKRecurrenceRule(rule, start: dateStart, zone: berlin))
        #expect(ekRule.recurrenceEnd?.endDate == utcDate(2024, 7, 31, 21, 59, 59))  // CEST, +02:00
        #expect(ekRule.iCalendarRule(start: dateStart, zone: berlin) == rule)
    }

    /// UNTIL written for each kind of DTSTART (RFC 5545 §3.3.10): DATE for a DATE start, a
    /// floating time for a floating start, UTC otherwise.
    @Test func untilWrittenForEachKindOfStart() {
        let rule = EKRecurrenceRule(recurrenceWith: .daily, interval: 1,
                                    end: EKRecurrenceEnd(end: utcDate(2024, 1, 31, 22, 59, 59).addingTimeInterval(0.75)))
        #expect(rule.iCalendarRule(start: dateStart, zone: plusOneHour).iCalendarText == "FREQ=DAILY;UNTIL=20240131")
        #expect(rule.iCalendarRule(start: dateStart, zone: nil).iCalendarText == "FREQ=DAILY;UNTIL=20240131")
        #expect(rule.iCalendarRule(start: floatingStart, zone: plusOneHour).iCalendarText == "FREQ=DAILY;UNTIL=20240131T235959")
        #expect(rule.iCalendarRule(start: floatingStart, zone: nil).iCalendarText == "FREQ=DAILY;UNTIL=20240131T225959")
        #expect(rule.iCalendarRule(start: zonedStart, zone: plusOneHour).iCalendarText == "FREQ=DAILY;UNTIL=20240131T225959Z")
        #expect(rule.iCalendarRule(start: utcStart, zone: nil).iCalendarText == "FREQ=DAILY;UNTIL=20240131T225959Z")
    }

    /// A DATE UNTIL read for an all-day series is written back as the same DATE once the end
    /// is set again to what was read; a series moved from all-day to timed gets a UTC UNTIL.
    @Test func untilFollowsTheKindOfStart() throws {
        let (rule, ekRule) = try read("FREQ=WEEKLY;UNTIL=20240131;BYDAY=WE", start: dateStart)
        #expect(ekRule.iCalendarRule(start: dateStart, zone: plusOneHour) == rule)
        var timed = rule
        timed.until = DateTime(LocalDateTime(year: 2024, month: 1, day: 31, hour: 22, minute: 59, second: 59)!, zone: .utc)
        #expect(ekRule.iCalendarRule(start: zonedStart, zone: plusOneHour) == timed)
        var floating = rule
        floating.until = DateTime(LocalDateTime(year: 2024, month: 1, day: 31, hour: 23, minute: 59, second: 59)!)
        #expect(ekRule.iCalendarRule(start: floatingStart, zone: plusOneHour) == floating)
    }

    /// A file whose UNTIL does not match its DTSTART is left as it is while nothing changes.
    @Test func mismatchedUntilIsKeptWhileUnchanged() throws {
        let (rule, ekRule) = try read("FREQ=DAILY;UNTIL=20240131T120000Z", start: dateStart)
        #expect(ekRule.iCalendarRule(start: dateStart, zone: plusOneHour) == rule)
        ekRule.recurrenceEnd = EKRecurrenceEnd(end: utcDate(2024, 2, 29, 22, 59, 59))
        #expect(ekRule.iCalendarRule(start: dateStart, zone: plusOneHour).iCalendarText == "FREQ=DAILY;UNTIL=20240229")
    }

    @Test func removingTheEndRemovesCountAndUntil() throws {
        let (_, counted) = try read("FREQ=DAILY;COUNT=4;BYHOUR=8")
        counted.recurrenceEnd = nil
        #expect(counted.iCalendarRule(start: zonedStart, zone: plusOneHour).iCalendarText == "FREQ=DAILY;BYHOUR=8")
        let (_, until) = try read("FREQ=DAILY;UNTIL=20240131T090000Z")
        until.recurrenceEnd = EKRecurrenceEnd(occurrenceCount: 2)
        #expect(until.iCalendarRule(start: zonedStart, zone: plusOneHour).iCalendarText == "FREQ=DAILY;COUNT=2")
    }
}
