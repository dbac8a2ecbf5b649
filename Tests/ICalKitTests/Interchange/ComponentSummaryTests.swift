import Testing
import ICalKit

@Suite struct ComponentSummaryTests {
    static let calendar = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:test
        BEGIN:VEVENT
        UID:zoned
        DTSTART;TZID=Europe/Berlin:20240701T090000
        DURATION:PT1H30M
        SUMMARY:Zoned\\, with comma
        CATEGORIES:Work,Home
        CATEGORIES:Extra
        SEQUENCE:3
        END:VEVENT
        BEGIN:VEVENT
        UID:allday
        DTSTART;VALUE=DATE:20240701
        DURATION:P2D
        END:VEVENT
        BEGIN:VEVENT
        UID:floating
        DTSTART:20240701T090000
        DTEND:20240701T100000
        END:VEVENT
        BEGIN:VEVENT
        UID:utc
        DTSTART:20240701T090000Z
        RECURRENCE-ID;TZID=America/New_York:20240110T090000
        END:VEVENT
        BEGIN:VTODO
        UID:todo
        DUE;TZID=Asia/Kolkata:20240701T090000
        END:VTODO
        END:VCALENDAR

        """

    @Test func timesKeepWhatTheValueSays() throws {
        let summaries = ComponentSummary.summaries(of: try InterchangeFixtures.read(Self.calendar))
        #expect(summaries.map(\.component) == ["VEVENT", "VEVENT", "VEVENT", "VEVENT", "VTODO"])
        #expect(summaries[0].start == "2024-07-01T09:00:00+02:00")
        #expect(summaries[0].end == "2024-07-01T10:30:00+02:00")
        #expect(summaries[0].timeZone == "Europe/Berlin")
        #expect(summaries[0].summary == "Zoned, with comma")
        #expect(summaries[0].categories == ["Work", "Home", "Extra"])
        #expect(summaries[0].sequence == 3)
        #expect(summaries[1].start == "2024-07-01")
        #expect(summaries[1].end == "2024-07-03")
        #expect(summaries[1].allDay)
        #expect(summaries[1].timeZone == nil)
        #expect(summaries[2].start == "2024-07-01T09:00:00")
        #expect(summaries[2].end == "2024-07-01T10:00:00")
        #expect(summaries[3].start == "2024-07-01T09:00:00Z")
        #expect(summaries[3].timeZone == "UTC")
        #expect(summaries[3].recurrenceIdentifier == "2024-01-10T09:00:00-05:00")
        #expect(summaries[4].end == "2024-07-01T09:00:00+05:30")
    }

    @Test func durationAcrossDaylightSavingIsExactTime() throws {
        let text = """
            BEGIN:VCALENDAR
            BEGIN:VEVENT
            UID:dst
            DTSTART;TZID=Europe/Berlin:20240331T013000
            DURATION:PT2H
            END:VEVENT
            END:VCALENDAR

            """
        let summary = try #require(ComponentSummary.summaries(of: try InterchangeFixtures.read(text)).first)
        #expect(summary.start == "2024-03-31T01:30:00+01:00")
        #expect(summary.end == "2024-03-31T04:30:00+02:00")
    }

    @Test func unknownZoneGivesNoOffset() throws {
        let text = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nDTSTART;TZID=Mars/Base:20240101T100000\nEND:VEVENT\nEND:VCALENDAR\n"
        let summary = try #require(ComponentSummary.summaries(of: try InterchangeFixtures.read(text)).first)
        #expect(summary.start == "2024-01-01T10:00:00")
        #expect(summary.timeZone == "Mars/Base")
    }

    @Test func propertiesAreKeptRaw() throws {
        let summary = try #require(ComponentSummary.summaries(of: try InterchangeFixtures.read(Self.calendar)).first)
        #expect(summary.properties.map(\.name) == ["UID", "DTSTART", "DURATION", "SUMMARY", "CATEGORIES", "CATEGORIES", "SEQUENCE"])
        #expect(summary.properties[1].parameters.first?.value == "Europe/Berlin")
        #expect(summary.properties[3].value == "Zoned\\, with comma")
    }
}
