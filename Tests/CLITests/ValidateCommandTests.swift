import Foundation
import Testing

@Suite struct ValidateCommandTests {
    @Test func samplesAreValid() throws {
        let output = try ICalRunner.run(["validate", "samples/calendars"], in: ICalRunner.packageRoot)
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout == "4 files, 14 components: 0 errors, 0 warnings\n")
    }

    @Test func reportsErrorsWithFileAndLineAndFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write("bad.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            BEGIN:VEVENT\r
            UID:a\r
            DTSTART:20240231T100000Z\r
            this line has no colon\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let output = try ICalRunner.run(["validate", path])
        #expect(output.status == 1)
        #expect(output.stdout == """
            \(path):5: error: DTSTART '20240231T100000Z' is not a valid date or date-time: day 31 does not exist in 2024-02; left out [VEVENT DTSTART]
            \(path):6: error: line has no colon, so it is not a content line ("this line has no colon"); left out [VEVENT]
            1 file, 1 component: 2 errors, 0 warnings

            """)
    }

    @Test func warningsFailOnlyWhenStrict() throws {
        let text = "BEGIN:VEVENT\r\nUID:x\r\nDTSTART:20240101T100000Z\r\nEND:VEVENT\r\n"
        let lenient = try ICalRunner.run(["validate", "-"], stdin: text)
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("<stdin>:1: warning: VEVENT is not inside a VCALENDAR; wrapped in one"))
        let strict = try ICalRunner.run(["validate", "--strict", "-"], stdin: text)
        #expect(strict.status == 1)
    }

    @Test func missingFileIsAnError() throws {
        let output = try ICalRunner.run(["validate", "/nonexistent/calendar.ics"])
        #expect(output.status == 1)
        #expect(output.stderr == "/nonexistent/calendar.ics: no such file or folder\n")
    }
}
