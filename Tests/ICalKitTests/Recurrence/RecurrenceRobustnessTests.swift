import Testing
import ICalKit

/// Malformed and extreme input never traps, hangs or returns out-of-order results.
@Suite struct RecurrenceRobustnessTests {
    typealias Support = RecurrenceTestSupport

    @Test(arguments: [
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=DAILY;INTERVAL=999999999"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=WEEKLY;BYSETPOS=0;BYDAY=MO"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2,4,6,9,11"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=MINUTELY;BYSECOND=60"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=DAILY;COUNT=0"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=DAILY;UNTIL=tomorrow"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=DAILY;COUNT=3;UNTIL=20240611T000000Z"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=HOURLY;BYDAY=1MO;BYWEEKNO=53;BYSETPOS=-1"],
        ["DTSTART:20240610T090000Z", "RRULE:FREQ=YEARLY;RSCALE=NOSUCHCALENDAR;BYMONTH=5L"],
        ["DTSTART:20240610T090000Z", "RDATE;VALUE=PERIOD:garbage/also,20240611T090000Z/", "EXDATE:nonsense"],
        ["DTSTART:20240610T090000Z", "DURATION:P100000000W", "RRULE:FREQ=YEARLY"],
        ["DTSTART:99991231T235959Z", "RRULE:FREQ=SECONDLY"],
        ["DTSTART:00000101T000000Z", "RRULE:FREQ=YEARLY;INTERVAL=1000"],
        ["DTSTART;TZID=:20240610T090000", "RRULE:FREQ=DAILY;COUNT=2"],
        ["DTSTART;VALUE=DATE:20240229", "RRULE:FREQ=YEARLY;UNTIL=20400301"],
    ])
    func malformedOrExtremeInput(_ lines: [String]) {
        let set = Support.set(Support.event(lines: lines))
        for window in [Int64.min..<Int64.max, Support.window("20240101T000000Z", "20250101T000000Z"), 0..<0] {
            let expansion = set.expand(in: window, budget: ExpansionBudget(maximumOccurrences: 200))
            let keys = expansion.occurrences.map { $0.startInstant ?? $0.start.local.secondsSinceEpoch }
            #expect(keys == keys.sorted())
            #expect(expansion.occurrences.count <= 200)
        }
    }

    @Test func leapDayYearlyOnlyInLeapYears() {
        let set = Support.set(Support.event(lines: ["DTSTART;VALUE=DATE:20240229", "RRULE:FREQ=YEARLY;UNTIL=20330301"]))
        #expect(Support.starts(set.expand(in: Support.window("20200101T000000Z", "20400101T000000Z")).occurrences)
            == ["20240229", "20280229", "20320229"])
    }
}
