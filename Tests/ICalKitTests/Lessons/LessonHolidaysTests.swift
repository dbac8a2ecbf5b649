import Testing
import ICalKit

/// Which days ``LessonHolidays`` covers.
@Suite struct LessonHolidaysTests {
    let berlin = IANATimeZone(named: "Europe/Berlin")!

    func date(_ text: String) -> CalendarDate { try! LessonText.date(text) }

    func holidays(_ events: String) throws -> LessonHolidays {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//EN\r\n" + events + "END:VCALENDAR\r\n"
        var holidays = LessonHolidays()
        holidays.add(calendar: try #require(try ICalReader().read(text).calendars.first), name: "test.ics")
        return holidays
    }

    func days(_ holidays: LessonHolidays, _ first: String, _ last: String, zone: (any TimeZoneRules)? = nil) -> [String] {
        holidays.days(from: date(first), through: date(last), in: zone ?? berlin).dates.map(\.description).sorted()
    }

    @Test func datesAndRangesAreClippedToTheWindow() {
        var holidays = LessonHolidays()
        #expect(holidays.isEmpty)
        holidays.insert(date("2026-10-03"))
        holidays.insert(date("2026-09-28")...date("2026-10-01"))
        #expect(!holidays.isEmpty)
        #expect(days(holidays, "2026-09-30", "2026-10-31") == ["2026-09-30", "2026-10-01", "2026-10-03"])
        #expect(days(holidays, "2026-10-04", "2026-10-31") == [])
    }

    @Test func allDayEventsEndBeforeTheirEndDate() throws {
        let calendar = try holidays("""
            BEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20261019\r\nDTEND;VALUE=DATE:20261022\r\nEND:VEVENT\r
            BEGIN:VEVENT\r\nUID:b\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20261101\r\nEND:VEVENT\r

            """)
        #expect(days(calendar, "2026-10-01", "2026-11-30") == ["2026-10-19", "2026-10-20", "2026-10-21", "2026-11-01"])
    }

    @Test func recurringHolidaysCountEveryYear() throws {
        let calendar = try holidays("""
            BEGIN:VEVENT\r\nUID:y\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:19901003\r\nRRULE:FREQ=YEARLY\r\nEXDATE;VALUE=DATE:20271003\r\nEND:VEVENT\r

            """)
        #expect(days(calendar, "2026-01-01", "2028-12-31") == ["2026-10-03", "2028-10-03"])
    }

    @Test func timedEventsCoverTheDaysTheyTouchInTheLessonsZone() throws {
        let calendar = try holidays("""
            BEGIN:VEVENT\r\nUID:night\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261112T210000Z\r\nDTEND:20261113T010000Z\r\nEND:VEVENT\r
            BEGIN:VEVENT\r\nUID:midnight\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261116T190000Z\r\nDTEND:20261116T230000Z\r\nEND:VEVENT\r
            BEGIN:VEVENT\r\nUID:instant\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261120T120000Z\r\nEND:VEVENT\r

            """)
        #expect(days(calendar, "2026-11-01", "2026-11-30") == ["2026-11-12", "2026-11-13", "2026-11-16", "2026-11-20"])
        // Read in UTC (floating lessons), the night event stays on the 12th and the 13th, the
        // evening one on the 16th.
        #expect(days(calendar, "2026-11-01", "2026-11-30", zone: FixedOffsetZone.utc)
                == ["2026-11-12", "2026-11-13", "2026-11-16", "2026-11-20"])
        // In Tokyo the evening event is on the 17th.
        let tokyo = IANATimeZone(named: "Asia/Tokyo")!
        #expect(days(calendar, "2026-11-01", "2026-11-30", zone: tokyo) == ["2026-11-13", "2026-11-17", "2026-11-20"])
    }

    @Test func unreadableFilesThrow() {
        var holidays = LessonHolidays()
        #expect(throws: ICalError.self) { try holidays.add(contentsOfFile: "/nonexistent/holidays.ics") }
        #expect(holidays.isEmpty)
    }
}
