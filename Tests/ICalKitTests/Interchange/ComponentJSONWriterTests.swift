import Foundation
import Testing
import ICalKit

@Suite struct ComponentJSONWriterTests {
    @Test func exactShape() throws {
        let text = """
            BEGIN:VCALENDAR
            BEGIN:VEVENT
            UID:a@example.com
            DTSTART;TZID=Europe/Berlin:20240311T090000
            DTEND;TZID=Europe/Berlin:20240311T091500
            SUMMARY:Stand-up "daily"
            RRULE:FREQ=WEEKLY;BYDAY=MO
            STATUS:CONFIRMED
            CATEGORIES:Work
            X-NOTE;X-P="a:b":line1\\nline2
            END:VEVENT
            END:VCALENDAR

            """
        let json = ComponentJSONWriter().string(try InterchangeFixtures.read(text))
        #expect(json == #"[{"component":"VEVENT","uid":"a@example.com","summary":"Stand-up \"daily\"","# +
            #""start":"2024-03-11T09:00:00+01:00","end":"2024-03-11T09:15:00+01:00","allDay":false,"# +
            #""timeZone":"Europe/Berlin","location":null,"description":null,"rrule":"FREQ=WEEKLY;BYDAY=MO","# +
            #""status":"CONFIRMED","categories":["Work"],"recurrenceId":null,"sequence":null,"properties":["# +
            #"{"name":"UID","parameters":{},"value":"a@example.com"},"# +
            #"{"name":"DTSTART","parameters":{"TZID":"Europe/Berlin"},"value":"20240311T090000"},"# +
            #"{"name":"DTEND","parameters":{"TZID":"Europe/Berlin"},"value":"20240311T091500"},"# +
            #"{"name":"SUMMARY","parameters":{},"value":"Stand-up \"daily\""},"# +
            #"{"name":"RRULE","parameters":{},"value":"FREQ=WEEKLY;BYDAY=MO"},"# +
            #"{"name":"STATUS","parameters":{},"value":"CONFIRMED"},"# +
            #"{"name":"CATEGORIES","parameters":{},"value":"Work"},"# +
            #"{"name":"X-NOTE","parameters":{"X-P":"a:b"},"value":"line1\\nline2"}]}]"# + "\n")
    }

    @Test func isValidJSONAndDeterministic() throws {
        let calendars = try InterchangeFixtures.read(ComponentSummaryTests.calendar)
        for pretty in [false, true] {
            let text = ComponentJSONWriter(pretty: pretty).string(calendars)
            #expect(text == ComponentJSONWriter(pretty: pretty).string(calendars))
            let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
            #expect(parsed?.count == 5)
            #expect(parsed?.first?["categories"] as? [String] == ["Work", "Home", "Extra"])
        }
    }

    @Test func emptyInputIsAnEmptyArray() {
        #expect(ComponentJSONWriter().string([Component]()) == "[]\n")
        #expect(ComponentJSONWriter(pretty: true).string([Component]()) == "[]\n")
    }
}
