import Testing
import ICalKit

/// Reading VTIMEZONE observances: RRULE forms, RDATE, UNTIL, bounds and RFC 5545 §3.3.5.
@Suite struct VTimeZoneRulesTests {
    static func zone(_ body: String) throws -> VTimeZoneRules {
        let text = "BEGIN:VCALENDAR\nBEGIN:VTIMEZONE\n" + body + "END:VTIMEZONE\nEND:VCALENDAR\n"
        let component = try #require(try ICalReader().read(text).calendars.first?.components(.timeZone).first)
        return try VTimeZoneRules(component)
    }

    static func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0) -> Int64 {
        LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi)!.secondsSinceEpoch
    }

    /// The RFC 5545 §3.6.5 example for New York with the pre-2007 and 2007 rules.
    static let newYork = """
        TZID:America/New_York
        BEGIN:DAYLIGHT
        DTSTART:19870405T020000
        RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=20060402T070000Z
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        TZNAME:EDT
        END:DAYLIGHT
        BEGIN:DAYLIGHT
        DTSTART:20070311T020000
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        TZNAME:EDT
        END:DAYLIGHT
        BEGIN:STANDARD
        DTSTART:19671029T020000
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;UNTIL=20061029T060000Z
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        TZNAME:EST
        END:STANDARD
        BEGIN:STANDARD
        DTSTART:20071104T020000
        RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        TZNAME:EST
        END:STANDARD

        """

    @Test func rfcExampleMatchesTzdata() throws {
        let rules = try Self.zone(Self.newYork)
        #expect(rules.diagnostics.isEmpty)
        let tzdata = try #require(IANATimeZone(named: "America/New_York"))
        for year in 1988...2040 {
            for month in 1...12 {
                for day in [1, 8, 15, 22, 28] {
                    let instant = Self.utc(year, month, day, 12)
                    #expect(rules.utcOffset(atInstant: instant) == tzdata.utcOffset(atInstant: instant))
                }
            }
        }
        #expect(rules.instant(for: LocalDateTime(year: 2024, month: 3, day: 10, hour: 2, minute: 30)!) == Self.utc(2024, 3, 10, 7, 30))
        #expect(rules.instant(for: LocalDateTime(year: 2024, month: 11, day: 3, hour: 1, minute: 30)!) == Self.utc(2024, 11, 3, 5, 30))
        #expect(rules.instant(for: LocalDateTime(year: 2005, month: 4, day: 3, hour: 2, minute: 30)!) == Self.utc(2005, 4, 3, 7, 30))
        #expect(rules.isDaylightSavingTime(atInstant: Self.utc(2024, 7, 1)))
        // Before the earliest onset, its TZOFFSETFROM applies.
        #expect(rules.utcOffset(atInstant: Self.utc(1900, 1, 1)) == -4 * 3600)
    }

    @Test func identicalDefinitionsAreSharedButKeepTheirLines() throws {
        var first = try #require(try ICalReader().read("BEGIN:VCALENDAR\nBEGIN:VTIMEZONE\n" + Self.newYork + "END:VTIMEZONE\nEND:VCALENDAR\n").calendars.first?.components(.timeZone).first)
        var second = first
        first.line = 10
        second.line = 99
        let a = try VTimeZoneRules(first, file: "a.ics")
        let b = try VTimeZoneRules(second, file: "b.ics")
        #expect(a.line == 10)
        #expect(b.line == 99)
        #expect(a.transitions(from: 0, through: Self.utc(2030, 1, 1)) == b.transitions(from: 0, through: Self.utc(2030, 1, 1)))
    }

    @Test func oldStyleMonthDayAndWeekdayRulesAndRDATE() throws {
        let rules = try Self.zone("""
            TZID:Old style
            BEGIN:DAYLIGHT
            DTSTART:20000402T020000
            RRULE:FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=1,2,3,4,5,6,7;BYDAY=SU;COUNT=3
            TZOFFSETFROM:-0500
            TZOFFSETTO:-0400
            END:DAYLIGHT
            BEGIN:STANDARD
            DTSTART:20001029T020000
            RDATE:20011028T020000,20021027T020000
            TZOFFSETFROM:-0400
            TZOFFSETTO:-0500
            END:STANDARD

            """)
        #expect(rules.utcOffset(atInstant: Self.utc(2001, 4, 1, 6, 59)) == -5 * 3600)
        #expect(rules.utcOffset(atInstant: Self.utc(2001, 4, 1, 7, 0)) == -4 * 3600)
        #expect(rules.utcOffset(atInstant: Self.utc(2002, 7, 1)) == -4 * 3600)
        // COUNT=3 ends the daylight onsets after 2002.
        #expect(rules.utcOffset(atInstant: Self.utc(2003, 7, 1)) == -5 * 3600)
        let onsets = rules.transitions(from: Self.utc(1999, 1, 1), through: Self.utc(2010, 1, 1))
        #expect(onsets.count == 6)
    }

    @Test func southernHemisphereAndHalfHourOffsets() throws {
        let rules = try Self.zone("""
            TZID:Australia/Lord_Howe
            BEGIN:STANDARD
            DTSTART:20080406T020000
            RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU
            TZOFFSETFROM:+1100
            TZOFFSETTO:+1030
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:20081005T020000
            RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU
            TZOFFSETFROM:+1030
            TZOFFSETTO:+1100
            END:DAYLIGHT

            """)
        let tzdata = try #require(IANATimeZone(named: "Australia/Lord_Howe"))
        for year in 2009...2035 {
            for month in 1...12 {
                let instant = Self.utc(year, month, 10)
                #expect(rules.utcOffset(atInstant: instant) == tzdata.utcOffset(atInstant: instant))
            }
        }
        // Gap 02:00-02:30 on 2024-10-06, overlap 01:30-02:00 on 2024-04-07.
        #expect(rules.instant(for: LocalDateTime(year: 2024, month: 10, day: 6, hour: 2, minute: 15)!) == Self.utc(2024, 10, 5, 15, 45))
        #expect(rules.instant(for: LocalDateTime(year: 2024, month: 4, day: 7, hour: 1, minute: 45)!) == Self.utc(2024, 4, 6, 14, 45))
    }

    @Test func boundsAndBadInput() throws {
        // No TZID, no observances: thrown, not trapped.
        let noTZID = Component(kind: .timeZone)
        #expect(throws: ICalError.self) { try VTimeZoneRules(noTZID) }
        #expect(throws: ICalError.self) { try VTimeZoneRules(Component(kind: .event)) }
        #expect(throws: ICalError.self) { try Self.zone("TZID:Empty\n") }
        // A daily rule is not expanded (reported); an unbounded yearly rule stops at 2500.
        let rules = try Self.zone("""
            TZID:Bounded
            BEGIN:STANDARD
            DTSTART:00010101T000000
            RRULE:FREQ=YEARLY
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0200
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:20000101T000000
            RRULE:FREQ=DAILY
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0300
            END:DAYLIGHT
            BEGIN:STANDARD
            DTSTART:20240101T000000
            TZOFFSETFROM:bad
            TZOFFSETTO:+0100
            END:STANDARD

            """)
        #expect(rules.diagnostics.count == 2)
        #expect(rules.utcOffset(atInstant: Self.utc(2100, 6, 1)) == 7200)
        #expect(rules.utcOffset(atInstant: Self.utc(3000, 6, 1)) == 7200)
    }
}
