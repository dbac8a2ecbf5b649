import Testing
import ICalKit

/// The classes of wrong or missing instances of issue 19, each in the shape it was found,
/// with the instance lists RFC 5545 §3.3.10 defines (cross-checked with python-dateutil where
/// DTSTART is an instance), and the readings the RFC leaves open.
@Suite struct RecurrenceRuleClassTests {
    typealias Support = RecurrenceTestSupport

    /// The starts of a floating series from `start` over `[windowStart, windowEnd)` (UTC).
    static func starts(_ rule: String, from start: String, window: (String, String)? = nil,
                       to end: String) -> (starts: [String], truncation: ExpansionTruncation?) {
        let set = Support.set(Support.event(lines: ["DTSTART:\(start)", "RRULE:\(rule)"]))
        let expansion = set.expand(in: Support.window(window?.0 ?? start, window?.1 ?? end))
        return (Support.starts(expansion.occurrences), expansion.truncation)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let rule: String
        let start: String
        let end: String
        let expected: [String]
        var testDescription: String { rule }
    }

    static let definedCases: [Case] = [
        // BYSETPOS selects from the whole set of one period, after every other part.
        Case(rule: "FREQ=DAILY;BYHOUR=6,18;BYMINUTE=15,45;BYSETPOS=3,-3", start: "20240101T181500", end: "20240103T000000",
             expected: ["20240101T181500", "20240102T064500", "20240102T181500"]),
        Case(rule: "FREQ=HOURLY;BYMINUTE=15,45;BYSECOND=0,30;BYSETPOS=2,-1", start: "20240101T101530", end: "20240101T120000",
             expected: ["20240101T101530", "20240101T104530", "20240101T111530", "20240101T114530"]),
        Case(rule: "FREQ=MINUTELY;BYSECOND=10,20,30;BYSETPOS=-1", start: "20240101T101530", end: "20240101T101800",
             expected: ["20240101T101530", "20240101T101630", "20240101T101730"]),
        Case(rule: "FREQ=MONTHLY;BYMONTHDAY=1,15;BYHOUR=9,17;BYSETPOS=2,-2", start: "20240101T170000", end: "20240301T000000",
             expected: ["20240101T170000", "20240115T090000", "20240201T170000", "20240215T090000"]),
        // BYYEARDAY as a limit below DAILY, and with BYMONTH in YEARLY.
        Case(rule: "FREQ=MINUTELY;BYYEARDAY=60;BYHOUR=5;COUNT=3", start: "20240229T050000", end: "20260101T000000",
             expected: ["20240229T050000", "20240229T050100", "20240229T050200"]),
        Case(rule: "FREQ=SECONDLY;BYYEARDAY=100;BYHOUR=1;BYMINUTE=2;COUNT=2", start: "20240409T010200", end: "20260101T000000",
             expected: ["20240409T010200", "20240409T010201"]),
        Case(rule: "FREQ=YEARLY;BYMONTH=3;BYYEARDAY=60,61,100", start: "20240301T000000", end: "20270101T000000",
             expected: ["20240301T000000", "20250301T000000", "20250302T000000", "20260301T000000", "20260302T000000"]),
        // Week 52 and week -1 crossing the year end.
        Case(rule: "FREQ=YEARLY;BYWEEKNO=52;BYDAY=SU", start: "19990103T000000", end: "20020101T000000",
             expected: ["19990103T000000", "20000102T000000", "20001231T000000", "20011230T000000"]),
        Case(rule: "FREQ=YEARLY;BYWEEKNO=-1;BYDAY=SU", start: "19990103T000000", end: "20020101T000000",
             expected: ["19990103T000000", "20000102T000000", "20001231T000000", "20011230T000000"]),
        // Negative BYMONTHDAY as a limit.
        Case(rule: "FREQ=DAILY;BYMONTHDAY=-1,-2;COUNT=5", start: "20240130T000000", end: "20250101T000000",
             expected: ["20240130T000000", "20240131T000000", "20240228T000000", "20240229T000000", "20240330T000000"]),
        Case(rule: "FREQ=DAILY;BYMONTHDAY=20,-2", start: "20240120T000000", end: "20240301T000000",
             expected: ["20240120T000000", "20240130T000000", "20240220T000000", "20240228T000000"]),
        // Lists out of order or repeated.
        Case(rule: "FREQ=SECONDLY;BYSECOND=5,4", start: "20240101T000004", end: "20240101T000110",
             expected: ["20240101T000004", "20240101T000005", "20240101T000104", "20240101T000105"]),
        Case(rule: "FREQ=SECONDLY;BYSECOND=5,4,4", start: "20240101T000004", end: "20240101T000110",
             expected: ["20240101T000004", "20240101T000005", "20240101T000104", "20240101T000105"]),
        Case(rule: "FREQ=MINUTELY;BYMINUTE=30,10,10", start: "20240101T001000", end: "20240101T011100",
             expected: ["20240101T001000", "20240101T003000", "20240101T011000"]),
        // INTERVAL with limits below a day: every INTERVAL-th period from DTSTART's, kept
        // when it passes the limit.
        Case(rule: "FREQ=HOURLY;INTERVAL=7;BYHOUR=3,6", start: "20240106T060000", end: "20240114T000000",
             expected: ["20240106T060000", "20240107T030000", "20240113T060000"]),
        Case(rule: "FREQ=MINUTELY;INTERVAL=7;BYMINUTE=3,6", start: "20240101T010300", end: "20240101T090000",
             expected: ["20240101T010300", "20240101T020600", "20240101T080300"]),
        Case(rule: "FREQ=SECONDLY;INTERVAL=61;BYSECOND=3,6", start: "20240101T000303", end: "20240101T010500",
             expected: ["20240101T000303", "20240101T000606", "20240101T010403"]),
        // BYWEEKNO with INTERVAL counts week-years (python-dateutil counts calendar years
        // here and gives 2016-01-02 and 2022-01-01, which lies in week 52 of 2021).
        Case(rule: "FREQ=YEARLY;BYWEEKNO=53;BYDAY=TU,SA;INTERVAL=6", start: "20100102T000000", end: "20300101T000000",
             expected: ["20100102T000000", "20151229T000000", "20160102T000000"]),
        Case(rule: "FREQ=YEARLY;BYWEEKNO=1;BYDAY=TU;INTERVAL=3", start: "20241231T000000", end: "20320101T000000",
             expected: ["20241231T000000", "20280104T000000", "20301231T000000"]),
        // INTERVAL above 32,767.
        Case(rule: "FREQ=SECONDLY;INTERVAL=90061", start: "20240101T000000", end: "20240103T120000",
             expected: ["20240101T000000", "20240102T010101", "20240103T020202"]),
        Case(rule: "FREQ=DAILY;INTERVAL=40000", start: "19000101T000000", end: "20300101T000000",
             expected: ["19000101T000000", "20090708T000000"]),
        // Sparse rules: the next instance is far away, but reached in a few steps.
        Case(rule: "FREQ=MINUTELY;BYMONTH=1", start: "20240131T235900", end: "20250101T000200",
             expected: ["20240131T235900", "20250101T000000", "20250101T000100"]),
        Case(rule: "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=12;BYMINUTE=0;BYSECOND=0", start: "20240229T120000",
             end: "20330101T000000", expected: ["20240229T120000", "20280229T120000", "20320229T120000"]),
        Case(rule: "FREQ=HOURLY;BYMONTHDAY=31;BYMONTH=12;BYHOUR=23", start: "20201231T230000", end: "20240101T000000",
             expected: ["20201231T230000", "20211231T230000", "20221231T230000", "20231231T230000"]),
    ]

    @Test(arguments: definedCases)
    func definedInstances(_ example: Case) {
        let result = Self.starts(example.rule, from: example.start, to: example.end)
        #expect(result.starts == example.expected)
        #expect(result.truncation == nil)
    }

    @Test func yearDayLimitInHourlyRule() {
        let result = Self.starts("FREQ=HOURLY;BYYEARDAY=1,-1;COUNT=30", from: "20240101T000000", to: "20260101T000000")
        #expect(result.starts.count == 30)
        #expect(result.starts.prefix(24).allSatisfy { $0.hasPrefix("20240101T") })
        #expect(Array(result.starts.suffix(6)) == (0...5).map { "20241231T0\($0)0000" })
        #expect(result.truncation == nil)
    }

    /// A rule that never matches spends its steps by the year, not by the second.
    @Test func impossibleSecondlyRuleStopsAtTheWindow() {
        let result = Self.starts("FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30", from: "20240101T000000", to: "20340101T000000")
        #expect(result.starts == ["20240101T000000"])
        #expect(result.truncation == nil)
    }

    /// A sub-daily rule whose periods never reach an allowed time of day is found empty at
    /// once (the periods' times of day repeat modulo gcd(period, one day)).
    @Test(arguments: ["FREQ=HOURLY;INTERVAL=24;BYHOUR=5", "FREQ=MINUTELY;INTERVAL=60;BYMINUTE=5",
                      "FREQ=SECONDLY;INTERVAL=120;BYSECOND=1,3,5"])
    func unreachableTimeOfDayEndsAtOnce(_ rule: String) {
        let result = Self.starts(rule, from: "20240101T030000", to: "20440101T000000")
        #expect(result.starts == ["20240101T030000"])
        #expect(result.truncation == nil)
    }

    /// A window far from DTSTART gives the same instances as the expansion from DTSTART:
    /// starting near the window keeps INTERVAL's alignment.
    @Test(arguments: [
        "FREQ=HOURLY;INTERVAL=7;BYHOUR=3,6", "FREQ=MINUTELY;INTERVAL=13;BYMINUTE=0,1,2,3,4,5,6,7",
        "FREQ=DAILY;INTERVAL=3", "FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,FR", "FREQ=MONTHLY;INTERVAL=5;BYDAY=-1FR",
        "FREQ=YEARLY;INTERVAL=3;BYWEEKNO=1,53;BYDAY=MO,SU", "FREQ=SECONDLY;INTERVAL=90061",
        "FREQ=DAILY;BYHOUR=6,18;BYMINUTE=15,45;BYSETPOS=3,-3",
    ])
    func windowFarFromStartKeepsAlignment(_ rule: String) {
        let full = Self.starts(rule, from: "20240101T061500", window: ("20240101T000000", "20500101T000000"),
                               to: "20500101T000000")
        let late = Self.starts(rule, from: "20240101T061500", window: ("20450101T000000", "20460101T000000"),
                               to: "20460101T000000")
        let expected = full.starts.filter { $0 >= "20450101T000000" && $0 < "20460101T000000" }
        if full.truncation == nil {
            #expect(late.starts == expected)
        } else {
            // The full expansion hit the occurrence budget: compare its overlap only.
            #expect(Array(late.starts.prefix(expected.count)) == expected)
        }
        #expect(late.truncation == nil)
        #expect(!late.starts.isEmpty)
    }

    // MARK: Readings RFC 5545 leaves open

    /// YEARLY with BYWEEKNO but no BYDAY takes DTSTART's weekday, in every listed week,
    /// including the weeks that begin in late December.
    @Test func yearlyWeekNumberWithoutWeekdayTakesStartsWeekday() {
        let result = Self.starts("FREQ=YEARLY;BYWEEKNO=1,2", from: "20240102T090000", to: "20260101T000000")
        #expect(result.starts == ["20240102T090000", "20240109T090000", "20241231T090000", "20250107T090000",
                                  "20251230T090000"])
    }

    /// YEARLY with BYMONTHDAY but no BYMONTH takes DTSTART's month.
    @Test func yearlyMonthDayWithoutMonthTakesStartsMonth() {
        let result = Self.starts("FREQ=YEARLY;BYMONTHDAY=1,15", from: "20240301T090000", to: "20260101T000000")
        #expect(result.starts == ["20240301T090000", "20240315T090000", "20250301T090000", "20250315T090000"])
    }

    /// An off-rule DTSTART is the first instance, then the rule's first COUNT-1 instances.
    @Test func offRuleStartCountsAsFirstInstance() {
        let result = Self.starts("FREQ=DAILY;BYMONTHDAY=-1,-2;COUNT=5", from: "20240101T000000", to: "20250101T000000")
        #expect(result.starts == ["20240101T000000", "20240130T000000", "20240131T000000", "20240228T000000",
                                  "20240229T000000"])
        #expect(result.truncation == nil)
    }

    /// Parts RFC 5545 forbids for the FREQ limit the days; an ordinal BYDAY below MONTHLY
    /// is its plain weekday. Each rule also gets a warning that says so.
    @Test(arguments: [
        Case(rule: "FREQ=WEEKLY;BYWEEKNO=20;BYDAY=MO,TH", start: "20240513T090000", end: "20250601T000000",
             expected: ["20240513T090000", "20240516T090000", "20250512T090000", "20250515T090000"]),
        Case(rule: "FREQ=DAILY;BYYEARDAY=100,200", start: "20240409T090000", end: "20250501T000000",
             expected: ["20240409T090000", "20240718T090000", "20250410T090000"]),
        Case(rule: "FREQ=MONTHLY;BYYEARDAY=1", start: "20240101T090000", end: "20260601T000000",
             expected: ["20240101T090000", "20250101T090000", "20260101T090000"]),
        Case(rule: "FREQ=WEEKLY;BYMONTHDAY=13", start: "20240113T090000", end: "20240401T000000",
             expected: ["20240113T090000", "20240213T090000", "20240313T090000"]),
        Case(rule: "FREQ=WEEKLY;BYDAY=1MO,FR", start: "20240101T090000", end: "20240109T000000",
             expected: ["20240101T090000", "20240105T090000", "20240108T090000"]),
    ])
    func forbiddenPartsLimit(_ example: Case) throws {
        let result = Self.starts(example.rule, from: example.start, to: example.end)
        #expect(result.starts == example.expected)
        let warnings = try RecurrenceRule(validating: example.rule).warnings
        #expect(warnings.count == 1)
        #expect(warnings.allSatisfy { $0.contains("applied as a limit") || $0.contains("the weekday applies") })
    }
}
