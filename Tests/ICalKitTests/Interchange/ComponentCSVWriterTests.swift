import Testing
import ICalKit

@Suite struct ComponentCSVWriterTests {
    @Test func rfc4180Quoting() throws {
        let text = """
            BEGIN:VCALENDAR
            BEGIN:VEVENT
            UID:q
            DTSTART;VALUE=DATE:20240701
            SUMMARY:Say "hi"\\, then go
            DESCRIPTION:two\\nlines
            CATEGORIES:A,B
            END:VEVENT
            END:VCALENDAR

            """
        let csv = ComponentCSVWriter().string(try InterchangeFixtures.read(text))
        #expect(csv == "uid,summary,start,end,all-day,time zone,location,description,rrule,status,categories\r\n"
            + "q,\"Say \"\"hi\"\", then go\",2024-07-01,,true,,,\"two\nlines\",,,\"A,B\"\r\n")
    }

    @Test func headerOnlyWithoutComponents() {
        #expect(ComponentCSVWriter().string([Component]())
            == "uid,summary,start,end,all-day,time zone,location,description,rrule,status,categories\r\n")
    }
}
