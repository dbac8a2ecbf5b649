import Testing
@testable import ICalKit

/// Issue 14: the shapes real exports have that the RFC examples do not (iCalcreator's
/// truncated VTIMEZONEs, Google's X-WR-TIMEZONE and DATE values with a Z, a rule with one
/// bad part, escaped TEXT in a UID), each read the way users and the peers expect.
@Suite struct RealWorldShapesTests {
    static let utc = FixedOffsetZone.utc

    static func query(_ text: String, from: String, to: String, floatingZone: any TimeZoneRules = utc)
        throws -> (listings: [OccurrenceListing], diagnostics: [Diagnostic]) {
        let read = try ICalReader().read(text, file: "feed.ics")
        let start = try #require(DateTime(iCalendar: from)).local.secondsSinceEpoch
        let end = try #require(DateTime(iCalendar: to)).local.secondsSinceEpoch
        let result = OccurrenceQuery(window: start..<end, floatingZone: floatingZone)
            .run(read.calendars.map { OccurrenceQuery.Source(calendar: $0, name: "feed.ics") })
        return (result.matches.map(OccurrenceListing.init), read.diagnostics + result.diagnostics)
    }

    /// The VTIMEZONE iCalcreator writes: the zone's name, one STANDARD and one DAYLIGHT
    /// onset, each with one RDATE.
    static let iCalcreatorBerlin = """
        BEGIN:VTIMEZONE\r
        TZID:Europe/Berlin\r
        X-LIC-LOCATION:Europe/Berlin\r
        BEGIN:STANDARD\r
        DTSTART:20181028T030000\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        RDATE:20181028T030000\r
        TZNAME:CET\r
        END:STANDARD\r
        BEGIN:DAYLIGHT\r
        DTSTART:20190331T020000\r
        TZOFFSETFROM:+0100\r
        TZOFFSETTO:+0200\r
        RDATE:20190331T020000\r
        TZNAME:CEST\r
        END:DAYLIGHT\r
        END:VTIMEZONE\r

        """

    @Test func truncatedIANANamedVTimeZoneUsesTzdataOutsideItsSpan() throws {
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//kigkonsult.se iCalcreator 2.26//\r
            \(Self.iCalcreatorBerlin)BEGIN:VEVENT\r
            UID:lesson@example.com\r
            DTSTAMP:20190101T000000Z\r
            DTSTART;TZID=Europe/Berlin:20161203T140000\r
            DTEND;TZID=Europe/Berlin:20161203T153000\r
            RRULE:FREQ=YEARLY;COUNT=6\r
            SUMMARY:Lesson\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:summer@example.com\r
            DTSTAMP:20190101T000000Z\r
            DTSTART;TZID=Europe/Berlin:20210701T140000\r
            SUMMARY:Summer\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let (listings, diagnostics) = try Self.query(text, from: "20160101T000000Z", to: "20230101T000000Z")
        let formatter = OccurrenceFormatter()
        // Every December lesson at 14:00 CET (+01:00): before the first onset, inside the
        // span and every winter after the last onset; the July one at CEST.
        #expect(listings.map { formatter.iso($0.start, instant: $0.startInstant, ownOffset: $0.startOffset) } == [
            "2016-12-03T14:00:00+01:00", "2017-12-03T14:00:00+01:00", "2018-12-03T14:00:00+01:00",
            "2019-12-03T14:00:00+01:00", "2020-12-03T14:00:00+01:00", "2021-07-01T14:00:00+02:00",
            "2021-12-03T14:00:00+01:00",
        ])
        // Warned once, naming the span.
        let warnings = diagnostics.filter { $0.code == .timeZone }
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("outside the span its observances cover (2018-10-28 to 2019-03-31)") == true)
        #expect(warnings.first?.message.contains("tzdata is used") == true)
    }

    @Test func noRealWinterShowsASummerOffsetUnderAStaleVTimeZone() throws {
        // Pre-2007 US rules under an IANA name, open-ended: 2010's first week of November is
        // EDT in those rules' eyes for nothing; tzdata (EDT until 2010-11-07) is used.
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:-//x//EN
            BEGIN:VTIMEZONE
            TZID:America/New_York
            BEGIN:DAYLIGHT
            DTSTART:19870405T020000
            TZOFFSETFROM:-0500
            TZOFFSETTO:-0400
            RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU
            END:DAYLIGHT
            BEGIN:STANDARD
            DTSTART:19671029T020000
            TZOFFSETFROM:-0400
            TZOFFSETTO:-0500
            RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
            END:STANDARD
            END:VTIMEZONE
            BEGIN:VEVENT
            UID:x
            DTSTAMP:20100101T000000Z
            DTSTART;TZID=America/New_York:20101103T090000
            END:VEVENT
            END:VCALENDAR

            """
        let (listings, diagnostics) = try Self.query(text, from: "20101101T000000Z", to: "20101110T000000Z")
        #expect(listings.first?.startOffset == -4 * 3600)
        #expect(diagnostics.contains { $0.message.contains("disagrees with tzdata") })
    }

    @Test func xWRTimeZoneGivesFloatingTimesTheCalendarsZone() throws {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:-//Google Inc//Google Calendar 70.9054//EN
            X-WR-CALNAME:Lessons
            X-WR-TIMEZONE:Europe/Berlin
            BEGIN:VEVENT
            UID:g1@google.com
            DTSTAMP:20210901T000000Z
            DTSTART:20210916T210000
            DTEND:20210916T220000
            SUMMARY:Evening
            END:VEVENT
            BEGIN:VEVENT
            UID:g2@google.com
            DTSTAMP:20210901T000000Z
            DTSTART;VALUE=DATE:20210917
            SUMMARY:All day stays all day
            END:VEVENT
            END:VCALENDAR

            """
        let (listings, _) = try Self.query(text, from: "20210916T000000Z", to: "20210918T000000Z",
                                           floatingZone: IANATimeZone(named: "America/New_York")!)
        let evening = try #require(listings.first { $0.uid == "g1@google.com" })
        #expect(evening.startInstant == LocalDateTime(year: 2021, month: 9, day: 16, hour: 19)!.secondsSinceEpoch)
        #expect(evening.zoneName == "Europe/Berlin")
        #expect(listings.first { $0.uid == "g2@google.com" }?.isAllDay == true)
    }

    @Test func oneBadRulePartIsDroppedWithAWarning() throws {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:-//x//EN
            BEGIN:VEVENT
            UID:r
            DTSTAMP:20231201T000000Z
            DTSTART:20231106T100000Z
            RRULE:FREQ=WEEKLY;UNTIL=20240331;COUNT=-1;INTERVAL=4;BYDAY=MO
            END:VEVENT
            END:VCALENDAR

            """
        let (listings, diagnostics) = try Self.query(text, from: "20231101T000000Z", to: "20250101T000000Z")
        #expect(listings.map(\.start.local.date.description) == ["2023-11-06", "2023-12-04", "2024-01-01", "2024-01-29",
                                                                  "2024-02-26", "2024-03-25"])
        let warning = try #require(diagnostics.first { $0.property == "RRULE" })
        #expect(warning.severity == .warning)
        #expect(warning.message.contains("COUNT=-1"))
        #expect(warning.message.contains("rest of the rule is kept"))
        // Written back as read.
        let written = ICalWriter().string(try ICalReader().read(text).calendars[0])
        #expect(written.contains("RRULE:FREQ=WEEKLY;UNTIL=20240331;COUNT=-1;INTERVAL=4;BYDAY=MO"))
    }

    /// recurring-ical-events' bad_rrule_missing_until_event.ics: a typo in a part name
    /// (`UNTL`), which RFC 5545 has no room for; the part is ignored with a warning and the
    /// rest of the rule expands (weekly on Thursdays, no end), as with an X- part.
    @Test(arguments: ["FREQ=WEEKLY;UNTL=20191023;BYDAY=TH;WKST=SU", "FREQ=WEEKLY;X-FOO=1;BYDAY=TH"])
    func unknownRulePartIsIgnoredInExpansion(_ rule: String) throws {
        let text = """
            BEGIN:VCALENDAR\r
            BEGIN:VEVENT\r
            SUMMARY:blabla\r
            DTSTART;TZID=Europe/London:20190801T140000\r
            DTEND;TZID=Europe/London:20190801T150000\r
            DTSTAMP:20190801T083416Z\r
            UID:blabla\r
            RRULE:\(rule)\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let (listings, diagnostics) = try Self.query(text, from: "20190801T000000Z", to: "20191101T000000Z")
        #expect(listings.count == 14)
        #expect(listings.map(\.start.local.date.description).last == "2019-10-31")
        if rule.contains("UNTL") {
            let warning = try #require(diagnostics.first { $0.property == "RRULE" })
            #expect(warning.message.contains("UNTL is not a rule part"))
        }
    }

    /// icalendar's issue_165_missing_event.ics (Microsoft Exchange): BYDAY with a space after
    /// each comma. The items are read without the spaces (weekdays, not Mondays only).
    @Test func listWithSpacesAroundItsItemsIsReadWithoutThem() throws {
        let text = """
            BEGIN:VCALENDAR\r
            METHOD:REQUEST\r
            PRODID:Microsoft CDO for Microsoft Exchange\r
            VERSION:2.0\r
            BEGIN:VEVENT\r
            UID:standup@example.com\r
            DTSTAMP:20150703T071009Z\r
            DTSTART;TZID=Europe/Berlin:20150703T100000\r
            DTEND;TZID=Europe/Berlin:20150703T103000\r
            RRULE:FREQ=DAILY;UNTIL=20150722T080000Z;INTERVAL=1;BYDAY=MO, TU, WE, TH, FR;WKST=SU\r
            SUMMARY:Sprint 25 Daily Standup\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let (listings, diagnostics) = try Self.query(text, from: "20150701T000000Z", to: "20150801T000000Z")
        #expect(listings.map(\.start.local.date.day) == [3, 6, 7, 8, 9, 10, 13, 14, 15, 16, 17, 20, 21, 22])
        let warning = try #require(diagnostics.first { $0.property == "RRULE" })
        #expect(warning.message.contains("spaces around its items, read as BYDAY=MO,TU,WE,TH,FR"))
    }

    @Test(arguments: [
        ("FREQ=DAILY;COUNT=3;BYHOUR=9,25", ["BYHOUR"]),
        ("FREQ=DAILY;COUNT=3;BYDAY=MO,XX", ["BYDAY"]),
        ("FREQ=DAILY;COUNT=3;INTERVAL=0", ["INTERVAL"]),
        ("FREQ=DAILY;COUNT=3;COUNT=4", ["COUNT"]),
    ])
    func salvageableRules(_ rule: String, _ dropped: [String]) throws {
        let salvaged = try #require(RecurrenceRule.salvaging(rule))
        #expect(salvaged.rule.count == 3)
        #expect(salvaged.dropped.count == dropped.count)
        #expect(salvaged.dropped.allSatisfy { message in dropped.contains { message.contains($0) } })
    }

    @Test func aListKeepsItsGoodItems() throws {
        let salvaged = try #require(RecurrenceRule.salvaging("FREQ=WEEKLY;BYDAY=MO,XX;COUNT=-1;UNTIL=20240331"))
        #expect(salvaged.rule.byDay.map(\.iCalendarText) == ["MO"])
        #expect(salvaged.rule.count == nil)
        #expect(salvaged.dropped.count == 2)
    }

    // A filter with no good item is not dropped: the rule would mean something else.
    @Test(arguments: ["FREQ=FORTNIGHTLY;COUNT=2", "FREQ=DAILY;COUNT=2;UNTIL=20240101", "FREQ=DAILY;COUNT=2",
                      "FREQ=WEEKLY;BYDAY=XX", "FREQ=YEARLY;BYMONTH=5L"])
    func rulesThatCannotBeSalvaged(_ rule: String) {
        #expect(RecurrenceRule.salvaging(rule) == nil)
    }

    @Test func dateValuesWithAZAreReadAsTheDate() throws {
        // Google's birthday calendar.
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:-//Google Inc//Google Calendar 70.9054//EN
            BEGIN:VEVENT
            UID:BIRTHDAY_1
            DTSTAMP:20121201T000000Z
            DTSTART;VALUE=DATE:20121210
            RRULE:FREQ=YEARLY
            RDATE;VALUE=DATE:20121210Z
            EXDATE;VALUE=DATE:20131210Z
            SUMMARY:Birthday
            END:VEVENT
            END:VCALENDAR

            """
        let (listings, diagnostics) = try Self.query(text, from: "20121201T000000Z", to: "20150101T000000Z")
        #expect(listings.map(\.start.local.date.description) == ["2012-12-10", "2014-12-10"])
        #expect(listings.allSatisfy { $0.isAllDay })
        let warnings = diagnostics.filter { $0.message.contains("DATE with a 'Z'") }
        #expect(warnings.count == 2)
        #expect(warnings.allSatisfy { $0.severity == .warning })
        #expect(DateTime(iCalendar: "20121210Z")?.isDate == true)
    }

    @Test func textValuesAreUnescapedInEveryListingFormat() throws {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:-//x//EN
            BEGIN:VEVENT
            UID:esc\\,comma\\;semi\\\\back
            DTSTAMP:20240101T000000Z
            DTSTART:20240102T100000Z
            RRULE:FREQ=DAILY;COUNT=1
            SUMMARY:a\\, b\\; c\\\\d\\ne
            LOCATION:Room 1\\, Floor 2
            END:VEVENT
            END:VCALENDAR

            """
        let (listings, _) = try Self.query(text, from: "20240101T000000Z", to: "20240105T000000Z")
        let listing = try #require(listings.first)
        #expect(listing.uid == "esc,comma;semi\\back")
        #expect(listing.summary == "a, b; c\\d\ne")
        #expect(listing.location == "Room 1, Floor 2")
        let formatter = OccurrenceFormatter()
        #expect(formatter.json(listings).contains(#""uid": "esc,comma;semi\\back""#))
        #expect(formatter.csv(listings).contains(#""esc,comma;semi\back""#))
        #expect(formatter.agenda(listings).contains("a, b; c\\d"))
    }

    @Test func floatingTimesUnderADisplayZoneStayFloating() throws {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:-//x//EN
            BEGIN:VEVENT
            UID:f
            DTSTAMP:20240101T000000Z
            DTSTART:20240102T100000
            DTEND:20240102T110000
            END:VEVENT
            END:VCALENDAR

            """
        let (listings, _) = try Self.query(text, from: "20240101T000000Z", to: "20240105T000000Z")
        let formatter = OccurrenceFormatter(displayZone: Self.utc)
        #expect(formatter.timeZoneName(listings[0]) == nil)
        #expect(formatter.json(listings).contains(#""start": "2024-01-02T10:00:00", "end": "2024-01-02T11:00:00", "allDay": false, "timeZone": null"#))
    }
}
