import Testing
import ICalKit

@Suite struct CalendarRepairTests {
    static let stamp = DateTime(LocalDateTime(year: 2024, month: 5, day: 1)!, zone: .utc)
    static let repair = CalendarRepair(now: { stamp })

    @Test func windowsZonesBecomeIANAWithGeneratedVTimeZone() throws {
        let result = Self.repair.repair(try InterchangeFixtures.read(InterchangeFixtures.outlook), file: "in.ics")
        let calendar = try #require(result.calendars.first)
        let zones = calendar.components(.timeZone)
        #expect(zones.map { $0[.timeZoneIdentifier] } == ["Europe/Berlin"])
        #expect(zones.first?.components(.daylight).first?[.timeZoneName] == "CEST")
        let event = try #require(calendar.components(.event).first)
        #expect(event.dateTimeStart == DateTime(LocalDateTime(year: 2024, month: 6, day: 10, hour: 9)!, zone: .identifier("Europe/Berlin")))
        #expect(event.property(.dateTimeEnd)?[parameter: .timeZoneIdentifier] == "Europe/Berlin")
        #expect(calendar[.version] == "2.0")
        #expect(calendar[.productIdentifier] == "-//OpenEventKit//ical//EN")
        #expect(event.dateTimeStamp == Self.stamp)
        let lines = result.changes.map(\.description)
        #expect(lines.contains("in.ics:19: repaired: TZID \"W. Europe Standard Time\" -> \"Europe/Berlin\""))
        #expect(lines.contains("in.ics:20: repaired: TZID \"W. Europe Standard Time\" -> \"Europe/Berlin\""))
        #expect(lines.contains("in.ics:2: repaired: removed VTIMEZONE \"W. Europe Standard Time\"; \"Europe/Berlin\" is generated from tzdata instead"))
        #expect(lines.contains("in.ics:1: repaired: added VTIMEZONE \"Europe/Berlin\" generated from tzdata"))
        #expect(lines.contains("in.ics:1: repaired: added VERSION:2.0"))
        #expect(lines.contains("in.ics:17: repaired: added DTSTAMP:20240501T000000Z to VEVENT"))
        #expect(result.changes.map(\.line) == result.changes.map(\.line).sorted())
    }

    @Test func generatedUIDsAreStableAndUnique() throws {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:x
            BEGIN:VEVENT
            DTSTART:20240101T100000Z
            SUMMARY:Same
            END:VEVENT
            BEGIN:VEVENT
            DTSTART:20240101T100000Z
            SUMMARY:Same
            END:VEVENT
            END:VCALENDAR

            """
        let first = Self.repair.repair(try InterchangeFixtures.read(text), file: "a.ics").calendars
        let later = CalendarRepair(now: { DateTime(LocalDateTime(year: 2030, month: 1, day: 1)!, zone: .utc) })
        let second = later.repair(try InterchangeFixtures.read(text), file: "a.ics").calendars
        let uids = first[0].components.compactMap(\.uid)
        #expect(uids.count == 2)
        #expect(uids[0] != uids[1])
        #expect(uids == second[0].components.compactMap(\.uid))
        #expect(uids.allSatisfy { $0.count == 36 && $0.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12] })
        // Repairing the repaired output changes nothing.
        let again = Self.repair.repair(first, file: "a.ics")
        #expect(again.changes.isEmpty)
        #expect(again.calendars == first)
    }

    @Test func calendarTimeZoneIsApplied() throws {
        let result = Self.repair.repair(try InterchangeFixtures.read(InterchangeFixtures.google), file: "g.ics")
        let calendar = try #require(result.calendars.first)
        let events = calendar.components(.event)
        #expect(events[0].dateTimeStart?.zone == .identifier("America/New_York"))
        #expect(events[0].dateTimeEnd?.zone == .identifier("America/New_York"))
        #expect(events[0].exceptionDates.first?.zone == .identifier("America/New_York"))
        #expect(events[0][.recurrenceRule] == "FREQ=WEEKLY;UNTIL=20240311T130000Z")
        #expect(events[1].dateTimeStart == DateTime(date: CalendarDate(year: 2024, month: 1, day: 20)!))
        #expect(events[1].property(.dateTimeStart)?[parameter: .timeZoneIdentifier] == nil)
        #expect(calendar.components(.timeZone).map { $0[.timeZoneIdentifier] } == ["America/New_York"])
        #expect(result.changes.map(\.description).contains(
            "g.ics:8: repaired: DTSTART 20240115T090000 is floating; X-WR-TIMEZONE gives it TZID \"America/New_York\""))
    }

    @Test func unknownTimeZoneIsReportedAndKept() throws {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:x
            BEGIN:VEVENT
            UID:u
            DTSTAMP:20240101T000000Z
            DTSTART;TZID=Mars/Olympus:20240101T100000
            END:VEVENT
            END:VCALENDAR

            """
        let input = try InterchangeFixtures.read(text)
        let result = Self.repair.repair(input, file: "m.ics")
        #expect(result.calendars == input)
        #expect(result.changes.map(\.description) == [
            "m.ics:7: warning: TZID \"Mars/Olympus\" is not a known IANA, Windows or vendor-prefixed zone and has no VTIMEZONE; left as it is",
        ])
    }

    @Test func vendorPrefixedTimeZoneIsRenamed() throws {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:x
            BEGIN:VEVENT
            UID:u
            DTSTAMP:20240101T000000Z
            DTSTART;TZID=/mozilla.org/20050126_1/Europe/Rome:20240101T100000
            END:VEVENT
            END:VCALENDAR

            """
        let result = Self.repair.repair(try InterchangeFixtures.read(text), file: "v.ics")
        #expect(result.calendars[0].components(.event)[0].dateTimeStart?.zone == .identifier("Europe/Rome"))
        #expect(result.calendars[0].components(.timeZone).count == 1)
    }
}

@Suite struct CalendarRepairUntilTests {
    @Test func floatingUntilWithZonedStartBecomesUTC() throws {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:x
            BEGIN:VEVENT
            UID:u
            DTSTAMP:20240101T000000Z
            DTSTART;TZID=Europe/Berlin:20240101T100000
            RRULE:FREQ=DAILY;UNTIL=20240110T100000;BYHOUR=10
            END:VEVENT
            END:VCALENDAR

            """
        let result = CalendarRepairTests.repair.repair(try InterchangeFixtures.read(text), file: "u.ics")
        #expect(result.calendars[0].components(.event)[0][.recurrenceRule] == "FREQ=DAILY;UNTIL=20240110T090000Z;BYHOUR=10")
        #expect(result.changes.map(\.description).contains(
            "u.ics:8: repaired: RRULE UNTIL 20240110T100000 is floating but DTSTART has TZID \"Europe/Berlin\"; in that zone it is 20240110T090000Z"))
    }
}

/// `applyingCalendarTimeZone` touches exactly the floating DATE-TIMEs, wherever they are.
@Suite struct CalendarTimeZoneApplicationTests {
    @Test func onlyFloatingDateTimesGetTheZone() throws {
        let text = """
            BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//t//t//EN\nX-WR-TIMEZONE:Europe/Berlin
            BEGIN:VTIMEZONE\nTZID:Custom\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0100\nEND:STANDARD\nEND:VTIMEZONE
            BEGIN:VEVENT\nUID:a\ndtstart:20260301T090000\nDTEND:20260301T100000Z\nRDATE:20260305T090000,20260306T090000
            EXDATE:20260307T090000,20260308T090000Z\nEND:VEVENT
            BEGIN:VEVENT\nUID:b\nDTSTART;VALUE=DATE:20260301\nRECURRENCE-ID;TZID=Custom:20260301T090000\nEND:VEVENT
            BEGIN:VTODO\nUID:c\nDUE:20260301T090000\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:-PT5M\nEND:VALARM\nEND:VTODO
            BEGIN:VEVENT\nUID:d\nDTSTART:20260301T090000Z\nSUMMARY:nothing floats\nEND:VEVENT
            END:VCALENDAR

            """
        let calendar = try #require(try ICalReader().read(text).calendars.first)
        let applied = CalendarRepair.applyingCalendarTimeZone(calendar)
        func tzids(_ component: Component) -> [String?] { component.properties.map { $0[parameter: .timeZoneIdentifier] } }
        let berlin: String? = "Europe/Berlin"
        // UID, DTSTART, DTEND (UTC), RDATE (all floating), EXDATE (one UTC).
        #expect(tzids(applied.components[1]) == [nil, berlin, nil, berlin, nil])
        #expect(tzids(applied.components[2]) == [nil, nil, "Custom"])
        #expect(tzids(applied.components[3]) == [nil, berlin])
        #expect(applied.components[3].components == calendar.components[3].components)
        #expect(applied.components[4] == calendar.components[4])
        #expect(applied.components[0] == calendar.components[0])
        // The calendar given is left as it was.
        #expect(tzids(calendar.components[1]) == [nil, nil, nil, nil, nil])
    }
}
