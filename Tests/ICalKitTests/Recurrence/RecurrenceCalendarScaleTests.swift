import Foundation
import Testing
import ICalKit

/// RSCALE rules (RFC 7529), which libical expands through ICU: the RFC's examples, and
/// INTERVAL counted in the rule's calendar (issue 19; libical 3.0.16 gives
/// `RSCALE=CHINESE;FREQ=YEARLY;INTERVAL=2` from Chinese New Year 2013 as 2014, 2016...).
/// Cross-checked with Foundation's Chinese and Hebrew calendars.
@Suite struct RecurrenceCalendarScaleTests {
    typealias Support = RecurrenceTestSupport

    /// The starts of an all-day series from `start` (`YYYYMMDD`) until `end`.
    static func dates(_ rule: String, from start: String, to end: String) -> (starts: [String], truncation: ExpansionTruncation?) {
        let set = Support.set(Support.event("DTSTART;VALUE=DATE:\(start)", "RRULE:\(rule)"))
        let expansion = set.expand(in: Support.window(start + "T000000", end + "T000000"))
        return (Support.starts(expansion.occurrences), expansion.truncation)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let rule: String
        let start: String
        let end: String
        let expected: [String]
        var testDescription: String { rule + " from " + start }
    }

    static let cases: [Case] = [
        // RFC 7529 §4.2 (examples): Chinese New Year, the 8th of Adar I (SKIP=FORWARD to
        // Adar in common years), February 29 moved forward, the last day of each month.
        Case(rule: "RSCALE=CHINESE;FREQ=YEARLY;UNTIL=20161231", start: "20130210", end: "20200101",
             expected: ["20130210", "20140131", "20150219", "20160208"]),
        Case(rule: "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD;COUNT=5", start: "20140208", end: "20200101",
             expected: ["20140208", "20150227", "20160217", "20170306", "20180223"]),
        Case(rule: "RSCALE=GREGORIAN;FREQ=YEARLY;SKIP=FORWARD;COUNT=5", start: "20120229", end: "20200101",
             expected: ["20120229", "20130301", "20140301", "20150301", "20160229"]),
        Case(rule: "RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=BACKWARD;COUNT=4", start: "20120131", end: "20200101",
             expected: ["20120131", "20120229", "20120331", "20120430"]),

        // INTERVAL=2, YEARLY: every other Chinese New Year, from DTSTART's year.
        Case(rule: "RSCALE=CHINESE;FREQ=YEARLY;INTERVAL=2", start: "20130210", end: "20220101",
             expected: ["20130210", "20150219", "20170128", "20190205", "20210212"]),
        Case(rule: "RSCALE=CHINESE;FREQ=YEARLY;INTERVAL=2;COUNT=3", start: "20140131", end: "20300101",
             expected: ["20140131", "20160208", "20180216"]),
        // COUNT counts kept instances only.
        Case(rule: "RSCALE=CHINESE;FREQ=YEARLY;INTERVAL=3;COUNT=3", start: "20130210", end: "20300101",
             expected: ["20130210", "20160208", "20190205"]),
        // Leap month Adar I every other year: OMIT keeps only leap years among them,
        // FORWARD moves to Adar, BACKWARD to Shevat (the same Hebrew year either way).
        Case(rule: "RSCALE=HEBREW;FREQ=YEARLY;INTERVAL=2;BYMONTH=5L;BYMONTHDAY=8", start: "20140208", end: "20250101",
             expected: ["20140208", "20160217", "20220209", "20240217"]),
        Case(rule: "RSCALE=HEBREW;FREQ=YEARLY;INTERVAL=2;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD", start: "20140208", end: "20250101",
             expected: ["20140208", "20160217", "20180223", "20200304", "20220209", "20240217"]),
        Case(rule: "RSCALE=HEBREW;FREQ=YEARLY;INTERVAL=2;BYMONTH=5L;BYMONTHDAY=8;SKIP=BACKWARD", start: "20140208", end: "20250101",
             expected: ["20140208", "20160217", "20180124", "20200203", "20220209", "20240217"]),

        // INTERVAL with MONTHLY: the months of the calendar, leap months included. Chinese
        // 2014 has a leap ninth month (2014-10-24), so month 1 of 2015 is 13 months after
        // month 1 of 2014 and every other month from 2014-01-31 reaches it off the beat.
        Case(rule: "RSCALE=CHINESE;FREQ=MONTHLY;INTERVAL=2", start: "20140131", end: "20150401",
             expected: ["20140131", "20140331", "20140529", "20140727", "20140924", "20141122", "20150120", "20150320"]),
        // Every other month on the 30th (29-day months have none): OMIT, FORWARD (to the 1st
        // of the next month, which still belongs to the skipped month's period), BACKWARD.
        Case(rule: "RSCALE=GREGORIAN;FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=31", start: "20240131", end: "20250201",
             expected: ["20240131", "20240331", "20240531", "20240731", "20250131"]),
        Case(rule: "RSCALE=GREGORIAN;FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=31;SKIP=FORWARD", start: "20240131", end: "20250201",
             expected: ["20240131", "20240331", "20240531", "20240731", "20241001", "20241201", "20250131"]),
        Case(rule: "RSCALE=GREGORIAN;FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=31;SKIP=BACKWARD", start: "20240131", end: "20250201",
             expected: ["20240131", "20240331", "20240531", "20240731", "20240930", "20241130", "20250131"]),
        Case(rule: "RSCALE=GREGORIAN;FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=31;SKIP=FORWARD;COUNT=4", start: "20240131", end: "20260101",
             expected: ["20240131", "20240501", "20240731", "20241031"]),

        // Below MONTHLY the periods are the same in every calendar; libical 3.0.16 still
        // starts RSCALE=CHINESE;FREQ=DAILY;INTERVAL=3 two days late.
        Case(rule: "RSCALE=CHINESE;FREQ=DAILY;INTERVAL=3;COUNT=4", start: "20130210", end: "20140101",
             expected: ["20130210", "20130213", "20130216", "20130219"]),
        Case(rule: "RSCALE=CHINESE;FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR;COUNT=5", start: "20130211", end: "20140101",
             expected: ["20130211", "20130215", "20130225", "20130301", "20130311"]),
        // INTERVAL above libical's short (32,767): libical never sees it.
        Case(rule: "RSCALE=GREGORIAN;FREQ=YEARLY;INTERVAL=40000", start: "19500101", end: "21000101",
             expected: ["19500101"]),
        Case(rule: "RSCALE=GREGORIAN;FREQ=WEEKLY;INTERVAL=5000", start: "19500101", end: "20600101",
             expected: ["19500101", "20451029"]),
        Case(rule: "RSCALE=CHINESE;FREQ=MONTHLY;INTERVAL=32768", start: "20130210", end: "21000101",
             expected: ["20130210"]),
    ]

    @Test(arguments: cases)
    func expansion(_ testCase: Case) {
        let result = Self.dates(testCase.rule, from: testCase.start, to: testCase.end)
        #expect(result.starts == testCase.expected)
        #expect(result.truncation == nil)
    }

    /// Chinese New Year every `interval` years, and the same day of every `interval`-th
    /// Chinese or Hebrew month (leap months counted), against Foundation's calendars, until
    /// 2026: the ICU 72 that libical links (Debian 12) puts Chinese New Year 2027 on
    /// February 7 and 2030 on February 2, Foundation's newer ICU on February 6 and 3.
    @Test(arguments: [
        (Calendar.Identifier.chinese, "CHINESE", "YEARLY", 2, "19900127"),
        (.chinese, "CHINESE", "YEARLY", 5, "19600128"),
        (.chinese, "CHINESE", "MONTHLY", 2, "20130210"),
        (.chinese, "CHINESE", "MONTHLY", 5, "20130210"),
        (.hebrew, "HEBREW", "YEARLY", 2, "19940906"),
        (.hebrew, "HEBREW", "YEARLY", 3, "19940906"),
        (.hebrew, "HEBREW", "MONTHLY", 3, "20131204"),
        (.hebrew, "HEBREW", "MONTHLY", 2, "20140201"),
        (.islamicCivil, "ISLAMIC-CIVIL", "MONTHLY", 4, "20000106"),
    ])
    func againstFoundation(_ identifier: Calendar.Identifier, _ scale: String, _ frequency: String,
                           _ interval: Int, _ start: String) {
        var calendar = Calendar(identifier: identifier)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = calendar.timeZone
        let digits = start.compactMap { $0.wholeNumberValue }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + digits[$1] } }
        let first = gregorian.date(from: DateComponents(year: number(0..<4), month: number(4..<6), day: number(6..<8)))!
        let unit: Calendar.Component = frequency == "YEARLY" ? .year : .month
        var expected: [String] = []
        for index in 0..<1000 {
            let date = calendar.date(byAdding: unit, value: index * interval, to: first)!
            let parts = gregorian.dateComponents([.year, .month, .day], from: date)
            guard parts.year! < 2027 else { break }
            expected.append(String(format: "%04d%02d%02d", parts.year!, parts.month!, parts.day!))
        }
        let rule = "RSCALE=\(scale);FREQ=\(frequency);INTERVAL=\(interval);UNTIL=20261231"
        let result = Self.dates(rule, from: start, to: "20270101")
        #expect(expected.count > 5)
        #expect(result.starts == expected, "\(rule) from \(start)")
        #expect(result.truncation == nil)
    }

    /// A window far from DTSTART still counts the periods from DTSTART's.
    @Test func windowAfterStart() {
        let set = Support.set(Support.event("DTSTART;VALUE=DATE:20130210", "RRULE:RSCALE=CHINESE;FREQ=YEARLY;INTERVAL=2"))
        let expansion = set.expand(in: Support.window("20200101T000000", "20260101T000000"))
        #expect(Support.starts(expansion.occurrences) == ["20210212", "20230122", "20250129"])
        #expect(expansion.truncation == nil)
    }
}
