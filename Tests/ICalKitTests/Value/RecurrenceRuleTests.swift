import Foundation
import Testing
@testable import ICalKit

@Suite struct RecurrenceRuleValueTests {
    /// Every RRULE of RFC 5545 §3.8.5.3, with its canonical text when that differs.
    static let rfc5545Examples: [(String, String?)] = [
        ("FREQ=DAILY;COUNT=10", nil),
        ("FREQ=DAILY;UNTIL=19971224T000000Z", nil),
        ("FREQ=DAILY;INTERVAL=2", nil),
        ("FREQ=DAILY;INTERVAL=10;COUNT=5", "FREQ=DAILY;COUNT=5;INTERVAL=10"),
        ("FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA",
         "FREQ=YEARLY;UNTIL=20000131T140000Z;BYDAY=SU,MO,TU,WE,TH,FR,SA;BYMONTH=1"),
        ("FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1", nil),
        ("FREQ=WEEKLY;COUNT=10", nil),
        ("FREQ=WEEKLY;UNTIL=19971224T000000Z", nil),
        ("FREQ=WEEKLY;INTERVAL=2;WKST=SU", nil),
        ("FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH", "FREQ=WEEKLY;UNTIL=19971007T000000Z;BYDAY=TU,TH;WKST=SU"),
        ("FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH", "FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH;WKST=SU"),
        ("FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR",
         "FREQ=WEEKLY;UNTIL=19971224T000000Z;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU"),
        ("FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH", "FREQ=WEEKLY;COUNT=8;INTERVAL=2;BYDAY=TU,TH;WKST=SU"),
        ("FREQ=MONTHLY;COUNT=10;BYDAY=1FR", nil),
        ("FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR", nil),
        ("FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU", "FREQ=MONTHLY;COUNT=10;INTERVAL=2;BYDAY=1SU,-1SU"),
        ("FREQ=MONTHLY;COUNT=6;BYDAY=-2MO", nil),
        ("FREQ=MONTHLY;BYMONTHDAY=-3", nil),
        ("FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15", nil),
        ("FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1", nil),
        ("FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15",
         "FREQ=MONTHLY;COUNT=10;INTERVAL=18;BYMONTHDAY=10,11,12,13,14,15"),
        ("FREQ=MONTHLY;INTERVAL=2;BYDAY=TU", nil),
        ("FREQ=YEARLY;COUNT=10;BYMONTH=6,7", nil),
        ("FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3", "FREQ=YEARLY;COUNT=10;INTERVAL=2;BYMONTH=1,2,3"),
        ("FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200", "FREQ=YEARLY;COUNT=10;INTERVAL=3;BYYEARDAY=1,100,200"),
        ("FREQ=YEARLY;BYDAY=20MO", nil),
        ("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", "FREQ=YEARLY;BYDAY=MO;BYWEEKNO=20"),
        ("FREQ=YEARLY;BYMONTH=3;BYDAY=TH", "FREQ=YEARLY;BYDAY=TH;BYMONTH=3"),
        ("FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8", nil),
        ("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", nil),
        ("FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13", nil),
        ("FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8",
         "FREQ=YEARLY;INTERVAL=4;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8;BYMONTH=11"),
        ("FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3", nil),
        ("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2", nil),
        ("FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z", "FREQ=HOURLY;UNTIL=19970902T170000Z;INTERVAL=3"),
        ("FREQ=MINUTELY;INTERVAL=15;COUNT=6", "FREQ=MINUTELY;COUNT=6;INTERVAL=15"),
        ("FREQ=MINUTELY;INTERVAL=90;COUNT=4", "FREQ=MINUTELY;COUNT=4;INTERVAL=90"),
        ("FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40", "FREQ=DAILY;BYMINUTE=0,20,40;BYHOUR=9,10,11,12,13,14,15,16"),
        ("FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16", nil),
        ("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", "FREQ=WEEKLY;COUNT=4;INTERVAL=2;BYDAY=TU,SU;WKST=MO"),
        ("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", "FREQ=WEEKLY;COUNT=4;INTERVAL=2;BYDAY=TU,SU;WKST=SU"),
        ("FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5", "FREQ=MONTHLY;COUNT=5;BYMONTHDAY=15,30"),
    ]

    @Test(arguments: rfc5545Examples)
    func readsAndWritesRFC5545Examples(_ text: String, _ canonical: String?) throws {
        let rule = try RecurrenceRule(validating: text)
        #expect(rule.iCalendarText == (canonical ?? text))
        // Canonical text reads back to the same rule and writes identically.
        let again = try RecurrenceRule(validating: rule.iCalendarText)
        #expect(again == rule)
        #expect(again.iCalendarText == rule.iCalendarText)
        #expect(rule.warnings.isEmpty)
    }

    @Test func modelsEveryPart() throws {
        let rule = try RecurrenceRule(validating:
            "FREQ=YEARLY;UNTIL=20250101T000000Z;INTERVAL=2;BYSECOND=3;BYMINUTE=2;BYHOUR=1;BYDAY=MO,-1FR;BYMONTHDAY=4;BYYEARDAY=-5;BYWEEKNO=6;BYMONTH=1,2;BYSETPOS=1,-1;WKST=SU;X-NAME=Value;X-OTHER=2")
        #expect(rule.frequency == .yearly)
        #expect(rule.until == DateTime(LocalDateTime(year: 2025, month: 1, day: 1)!, zone: .utc))
        #expect(rule.count == nil)
        #expect(rule.interval == 2)
        #expect(rule.bySecond == [3])
        #expect(rule.byMinute == [2])
        #expect(rule.byHour == [1])
        #expect(rule.byDay == [.init(weekday: .monday), .init(ordinal: -1, weekday: .friday)])
        #expect(rule.byMonthDay == [4])
        #expect(rule.byYearDay == [-5])
        #expect(rule.byWeekNumber == [6])
        #expect(rule.byMonth == [.init(1), .init(2)])
        #expect(rule.bySetPosition == [1, -1])
        #expect(rule.weekStart == .sunday)
        #expect(rule.extensions == [.init(name: "X-NAME", value: "Value"), .init(name: "X-OTHER", value: "2")])
        #expect(rule.iCalendarText.hasSuffix(";WKST=SU;X-NAME=Value;X-OTHER=2"))
        #expect(rule.libicalText.hasSuffix(";WKST=SU"))
    }

    @Test func untilForms() throws {
        #expect(try RecurrenceRule(validating: "FREQ=DAILY;UNTIL=20240101").until == DateTime(date: CalendarDate(year: 2024, month: 1, day: 1)!))
        #expect(try RecurrenceRule(validating: "FREQ=DAILY;UNTIL=20240101T100000").until?.zone == .floating)
        #expect(try RecurrenceRule(validating: "FREQ=DAILY;UNTIL=20240101T100000Z").until?.zone == .utc)
        var rule = RecurrenceRule(frequency: .daily, until: DateTime(LocalDateTime(year: 2024, month: 1, day: 1)!, zone: .identifier("Europe/Berlin")))
        #expect(throws: ICalError.self) { try rule.validate() }
        rule.until = DateTime(LocalDateTime(year: 2024, month: 1, day: 1)!, zone: .utc)
        #expect(throws: Never.self) { try rule.validate() }
    }

    /// RFC 7529 §4 and §5 examples, plus canonical forms (FREQ first).
    static let rfc7529Examples: [(String, String)] = [
        ("RSCALE=CHINESE;FREQ=YEARLY", "FREQ=YEARLY;RSCALE=CHINESE"),
        ("RSCALE=ETHIOPIC;FREQ=MONTHLY;BYMONTH=13", "FREQ=MONTHLY;RSCALE=ETHIOPIC;BYMONTH=13"),
        ("RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD",
         "FREQ=YEARLY;RSCALE=HEBREW;BYMONTHDAY=8;BYMONTH=5L;SKIP=FORWARD"),
        ("RSCALE=GREGORIAN;FREQ=YEARLY;SKIP=FORWARD", "FREQ=YEARLY;RSCALE=GREGORIAN;SKIP=FORWARD"),
        ("RSCALE=GREGORIAN;FREQ=MONTHLY;BYMONTHDAY=31;SKIP=BACKWARD", "FREQ=MONTHLY;RSCALE=GREGORIAN;BYMONTHDAY=31;SKIP=BACKWARD"),
        ("rscale=hebrew;freq=yearly;bymonth=5l", "FREQ=YEARLY;RSCALE=HEBREW;BYMONTH=5L"),
    ]

    @Test(arguments: rfc7529Examples)
    func readsRFC7529Rules(_ text: String, _ canonical: String) throws {
        let rule = try RecurrenceRule(validating: text)
        #expect(rule.calendarScale != nil)
        #expect(rule.iCalendarText == canonical)
        #expect(try RecurrenceRule(validating: canonical).iCalendarText == canonical)
    }

    @Test func leapMonth() throws {
        let rule = try RecurrenceRule(validating: "FREQ=YEARLY;RSCALE=HEBREW;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD")
        #expect(rule.byMonth == [.init(5, isLeap: true)])
        #expect(rule.skip == .forward)
        #expect(rule.calendarScale == "HEBREW")
    }

    /// Invalid rules and the exact message each gives.
    static let invalid: [(String, String)] = [
        ("", "FREQ is missing"),
        ("COUNT=3", "FREQ is missing"),
        ("FREQ=FORTNIGHTLY", "FREQ=FORTNIGHTLY is not one of SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY, YEARLY"),
        ("FREQ=DAILY;COUNT=3;UNTIL=20240101T000000Z", "COUNT and UNTIL must not both be given"),
        ("FREQ=DAILY;COUNT=0", "COUNT=0 is not a positive integer below 2^31"),
        ("FREQ=DAILY;COUNT=-1", "COUNT=-1 is not a positive integer"),
        ("FREQ=DAILY;INTERVAL=0", "INTERVAL=0 is not a positive integer up to 2147483647"),
        ("FREQ=DAILY;INTERVAL=2147483648", "INTERVAL=2147483648 is not a positive integer up to 2147483647"),
        ("RSCALE=GREGORIAN;FREQ=DAILY;INTERVAL=2147483648", "INTERVAL=2147483648 is not a positive integer up to 2147483647"),
        ("FREQ=DAILY;COUNT=2147483648", "COUNT=2147483648 is not a positive integer below 2^31"),
        ("FREQ=DAILY;INTERVAL=99999999999", "INTERVAL=99999999999 is not a positive integer"),
        ("FREQ=DAILY;BYSECOND=61", "BYSECOND has 61, outside 0...60"),
        ("FREQ=DAILY;BYMINUTE=60", "BYMINUTE has 60, outside 0...59"),
        ("FREQ=DAILY;BYHOUR=24", "BYHOUR has 24, outside 0...23"),
        ("FREQ=DAILY;BYHOUR=-1", "BYHOUR=-1 has '-1', not an hour"),
        ("FREQ=MONTHLY;BYMONTHDAY=0", "BYMONTHDAY has 0, outside ±1...31"),
        ("FREQ=MONTHLY;BYMONTHDAY=-32", "BYMONTHDAY has -32, outside ±1...31"),
        ("FREQ=YEARLY;BYYEARDAY=367", "BYYEARDAY has 367, outside ±1...366"),
        ("FREQ=YEARLY;BYWEEKNO=54", "BYWEEKNO has 54, outside ±1...53"),
        ("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0", "BYSETPOS has 0, outside ±1...366"),
        ("FREQ=YEARLY;BYDAY=54MO", "BYDAY has 54MO, whose ordinal is outside ±1...53"),
        ("FREQ=YEARLY;BYDAY=0MO", "BYDAY has 0MO, whose ordinal is outside ±1...53"),
        ("FREQ=DAILY;BYDAY=MO,", "BYDAY=MO, has '', not a weekday such as MO or -1FR"),
        ("FREQ=DAILY;BYDAY=MONDAY", "BYDAY=MONDAY has 'MONDAY', not a weekday such as MO or -1FR"),
        ("FREQ=YEARLY;BYMONTH=0", "BYMONTH has 0, outside 1...12 (month 13 needs RSCALE, RFC 7529)"),
        ("FREQ=YEARLY;BYMONTH=13", "BYMONTH has 13, outside 1...12 (month 13 needs RSCALE, RFC 7529)"),
        ("FREQ=YEARLY;RSCALE=HEBREW;BYMONTH=14", "BYMONTH has 14, outside 1...13"),
        ("FREQ=YEARLY;BYMONTH=5L", "BYMONTH has the leap month 5L, which needs RSCALE (RFC 7529)"),
        ("FREQ=YEARLY;BYMONTH=L", "BYMONTH=L has 'L', not a month such as 5 or 5L"),
        ("FREQ=MONTHLY;SKIP=FORWARD", "SKIP must not be given without RSCALE (RFC 7529 §4.1)"),
        ("FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=SIDEWAYS", "SKIP=SIDEWAYS is not one of OMIT, BACKWARD, FORWARD"),
        ("FREQ=DAILY;WKST=XX", "WKST=XX is not a weekday such as MO or SU"),
        ("FREQ=DAILY;UNTIL=20240231", "UNTIL=20240231: day 31 does not exist in 2024-02"),
        ("FREQ=DAILY;UNTIL=tomorrow", "UNTIL=tomorrow: the date part must be eight digits"),
        ("FREQ=DAILY;UNTIL=2024", "UNTIL=2024: expected YYYYMMDD or YYYYMMDDTHHMMSS with an optional Z"),
        ("FREQ=DAILY;COUNT=2;COUNT=3", "COUNT appears twice"),
        ("FREQ=DAILY;freq=weekly", "FREQ appears twice"),
        ("FREQ=DAILY;BYMINUTE=", "BYMINUTE has no value"),
        ("FREQ=DAILY;FOO", "part 'FOO' has no '='"),
        ("FREQ=DAILY;=3", "'' is not a rule part name"),
        ("FREQ=DAILY;X_Y=3", "'X_Y' is not a rule part name"),
        ("FREQ=DAILY;COUNT=2\n", "the rule holds a control character"),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidRules(_ text: String, _ message: String) {
        #expect(RecurrenceRule(iCalendar: text) == nil)
        #expect(RecurrenceRuleSyntax.problem(text) == message)
        do {
            _ = try RecurrenceRule(validating: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message == message)
        }
    }

    @Test func extensionPartsAreKeptButNotGivenToLibical() throws {
        // libical rejects any part it does not know, X- parts included.
        #expect(Libical.recurrenceRuleProblem("FREQ=DAILY;X-FOO=bar") == "libical's icalrecurrencetype_from_string cannot read 'FREQ=DAILY;X-FOO=bar'")
        let rule = try RecurrenceRule(validating: "FREQ=DAILY;X-FOO=bar;COUNT=2;FOO=baz")
        #expect(rule.extensions == [.init(name: "X-FOO", value: "bar"), .init(name: "FOO", value: "baz")])
        #expect(rule.iCalendarText == "FREQ=DAILY;COUNT=2;X-FOO=bar;FOO=baz")
        #expect(rule.libicalText == "FREQ=DAILY;COUNT=2")
        #expect(rule.warnings == ["FOO is not a rule part of RFC 5545 or RFC 7529; kept, but ignored in expansion"])
    }

    @Test func libicalCheck() {
        #expect(Libical.recurrenceRuleProblem("FREQ=DAILY;COUNT=2") == nil)
        #expect(Libical.recurrenceRuleProblem("RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L") == nil)
        #expect(Libical.recurrenceRuleProblem("FREQ=FORTNIGHTLY") != nil)
        #expect(Libical.recurrenceRuleProblem("FREQ=DAILY\u{0}") == "the rule holds a NUL byte")
        #expect(Libical.supportedCalendarScales.contains("GREGORIAN"))
    }

    static let softViolations: [(String, String)] = [
        ("FREQ=WEEKLY;BYDAY=1MO", "BYDAY with an ordinal is only for MONTHLY and YEARLY rules (RFC 5545 §3.3.10); the ordinal is ignored and the weekday applies"),
        ("FREQ=YEARLY;BYWEEKNO=1;BYDAY=1MO", "BYDAY with an ordinal must not be combined with BYWEEKNO (RFC 5545 §3.3.10)"),
        ("FREQ=DAILY;BYWEEKNO=3", "BYWEEKNO is only for YEARLY rules (RFC 5545 §3.3.10); applied as a limit on the week number"),
        ("FREQ=MONTHLY;BYYEARDAY=3", "BYYEARDAY must not be used in MONTHLY rules (RFC 5545 §3.3.10); applied as a limit on the day of the year"),
        ("FREQ=WEEKLY;BYMONTHDAY=3", "BYMONTHDAY must not be used in WEEKLY rules (RFC 5545 §3.3.10); applied as a limit on the day of the month"),
        ("FREQ=MONTHLY;BYSETPOS=1", "BYSETPOS must be used with another BYxxx part (RFC 5545 §3.3.10)"),
        ("FREQ=YEARLY;RSCALE=KLINGON", "RSCALE=KLINGON is not a calendar scale libical knows; the rule expands to nothing"),
    ]

    @Test(arguments: softViolations)
    func warnsAboutRulesLibicalTolerates(_ text: String, _ warning: String) throws {
        let rule = try RecurrenceRule(validating: text)
        #expect(rule.warnings == [warning])
        #expect(RecurrenceRuleSyntax.warning(text) == warning)
    }

    @Test func lenientSpellings() throws {
        let rule = try RecurrenceRule(validating: "freq=weekly;;byday=+1mo,tu;")
        #expect(rule.byDay == [.init(ordinal: 1, weekday: .monday), .init(weekday: .tuesday)])
        #expect(rule.iCalendarText == "FREQ=WEEKLY;BYDAY=1MO,TU")
    }

    @Test func buildsFromSwift() throws {
        var rule = RecurrenceRule(frequency: .monthly, count: 10, byDay: [.init(ordinal: -1, weekday: .friday)])
        #expect(rule.iCalendarText == "FREQ=MONTHLY;COUNT=10;BYDAY=-1FR")
        rule.count = nil
        rule.until = DateTime(date: CalendarDate(year: 2030, month: 12, day: 31)!)
        #expect(rule.iCalendarText == "FREQ=MONTHLY;UNTIL=20301231;BYDAY=-1FR")
        #expect(RecurrenceRule.Weekday.sunday.isoNumber == 7)
        #expect(RecurrenceRule.Weekday.monday.isoNumber == 1)
    }

    @Test func codableRoundTrip() throws {
        let rule = try RecurrenceRule(validating: "FREQ=YEARLY;RSCALE=HEBREW;UNTIL=20300101;BYMONTH=5L;SKIP=BACKWARD;X-A=b")
        let data = try JSONEncoder().encode(rule)
        #expect(try JSONDecoder().decode(RecurrenceRule.self, from: data) == rule)
    }

    @Test func readerReportsRuleProblems() throws {
        let text = """
            BEGIN:VCALENDAR\r
            BEGIN:VEVENT\r
            UID:1\r
            RRULE:FREQ=DAILY;COUNT=3;UNTIL=20240101T000000Z\r
            RRULE:FREQ=WEEKLY;BYDAY=1MO\r
            RRULE:FREQ=DAILY;X-FOO=1\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let result = try ICalReader().read(text)
        let event = try #require(result.calendars.first?.components(.event).first)
        #expect(event.properties(.recurrenceRule).map(\.rawValue) == ["FREQ=WEEKLY;BYDAY=1MO", "FREQ=DAILY;X-FOO=1"])
        #expect(result.diagnostics.map(\.severity) == [.error, .warning])
        #expect(result.diagnostics.first?.message.contains("COUNT and UNTIL must not both be given") == true)
        #expect(result.diagnostics.last?.message.contains("BYDAY with an ordinal") == true)
    }
}

@Suite struct RecurrenceRuleLibicalAgreementTests {
    /// Parts with valid, boundary and invalid values; rules are drawn from them with a fixed
    /// seed, so the test is deterministic.
    static let pool: [(String, [String])] = [
        ("INTERVAL", ["1", "2", "0", "32767", "32768", "+3"]),
        ("COUNT", ["1", "10", "0", "2147483647"]),
        ("UNTIL", ["20240101", "20240101T100000", "20240101T100000Z", "20240231"]),
        ("BYSECOND", ["0", "60", "61", "0,30"]),
        ("BYMINUTE", ["0", "59", "60", "15,45"]),
        ("BYHOUR", ["0", "23", "24", "9,17"]),
        ("BYDAY", ["MO", "1MO", "-1FR", "53SU", "-53SU", "54MO", "MO,TU,WE,TH,FR", "+2TH"]),
        ("BYMONTHDAY", ["1", "-1", "31", "-31", "0", "32", "1,15"]),
        ("BYYEARDAY", ["1", "-1", "366", "-366", "367", "100,200"]),
        ("BYWEEKNO", ["1", "-1", "53", "-53", "54", "20"]),
        ("BYMONTH", ["1", "12", "13", "5L", "0", "1,6,12"]),
        ("BYSETPOS", ["1", "-1", "366", "0", "367", "1,-1"]),
        ("WKST", ["MO", "SU", "XX"]),
        ("RSCALE", ["GREGORIAN", "HEBREW", "CHINESE"]),
        ("SKIP", ["OMIT", "BACKWARD", "FORWARD"]),
        ("X-FOO", ["bar"]),
    ]

    @Test func everyRuleSwiftAcceptsLibicalReadsToo() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = 0
        for _ in 0..<3000 {
            var parts = ["FREQ=" + RecurrenceRule.Frequency.allCases[next(7)].rawValue]
            for (name, values) in Self.pool where next(4) == 0 {
                parts.append(name + "=" + values[next(values.count)])
            }
            let text = parts.joined(separator: ";")
            guard let rule = RecurrenceRule(iCalendar: text) else { continue }
            accepted += 1
            // libical holds INTERVAL in a short; it never expands with a larger one (the Swift
            // engine expands Gregorian rules, and counts INTERVAL for RSCALE rules).
            if (rule.interval ?? 1) <= 32767 {
                #expect(Libical.recurrenceRuleProblem(rule.libicalText) == nil, "libical rejects \(text)")
            }
            #expect(RecurrenceRule(iCalendar: rule.iCalendarText) == rule)
        }
        #expect(accepted > 300)
    }
}
