import Foundation
import Testing

@Suite struct ValidateCommandTests {
    @Test func handWrittenSamplesAreStrictlyValid() throws {
        let files = ["drop-in-lessons", "google-export", "holidays", "monthly-events", "repeating-lessons"]
            .map { "samples/calendars/\($0).ics" }
        let output = try ICalRunner.run(["validate", "--strict"] + files, in: ICalRunner.packageRoot)
        #expect(output.status == 0, "stdout: \(output.stdout) stderr: \(output.stderr)")
        #expect(output.stdout == "5 files, 19 components: 0 errors, 0 warnings\n")
    }

    /// The Outlook sample keeps Outlook's `-0000` offsets on purpose (the demo repairs them):
    /// exactly those two findings, as warnings, so a lenient validate still exits 0.
    @Test func outlookSampleHasOnlyItsKnownWarnings() throws {
        let output = try ICalRunner.run(["validate", "samples/calendars"], in: ICalRunner.packageRoot)
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("samples/calendars/outlook-export.ics:26: warning: [invalid-value] TZOFFSETTO '-0000'") == true)
        #expect(lines.dropFirst().first?.hasPrefix("samples/calendars/outlook-export.ics:31: warning: [invalid-value] TZOFFSETFROM '-0000'") == true)
        #expect(lines.last == "6 files, 25 components: 0 errors, 2 warnings")
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
            \(path):1: warning: [missing-prodid] VCALENDAR has no PRODID (RFC 5545 requires one)
            \(path):3: warning: [missing-dtstamp] VEVENT has no DTSTAMP
            \(path):3: error: [missing-dtstart] VEVENT has no DTSTART (required when the calendar has no METHOD)
            \(path):5: error: [invalid-value] DTSTART '20240231T100000Z' is not a valid date or date-time: day 31 does not exist in 2024-02; left out
            \(path):6: error: [syntax] line has no colon, so it is not a content line ("this line has no colon"); left out
            1 file, 1 component: 3 errors, 2 warnings

            """)
    }

    @Test func warningsFailOnlyWhenStrict() throws {
        let text = "BEGIN:VEVENT\r\nUID:x\r\nDTSTART:20240101T100000Z\r\nEND:VEVENT\r\n"
        let lenient = try ICalRunner.run(["validate", "-"], stdin: text)
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("<stdin>:1: warning: [placement] VEVENT is not inside a VCALENDAR; wrapped in one"))
        let strict = try ICalRunner.run(["validate", "--strict", "-"], stdin: text)
        #expect(strict.status == 1)
    }

    @Test func missingFileIsAnError() throws {
        let output = try ICalRunner.run(["validate", "/nonexistent/calendar.ics"])
        #expect(output.status == 1)
        #expect(output.stderr == "/nonexistent/calendar.ics: no such file or folder\n")
    }

    @Test func lintRulesWithFileLineAndRule() throws {
        let output = try ICalRunner.run(["validate", "-"], stdin: """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:x\r
            BEGIN:VEVENT\r
            UID:a\r
            DTSTAMP:20240101T000000Z\r
            DTSTART;TZID=W. Europe Standard Time:20240301T100000\r
            DTEND;TZID=Nowhere/Town:20240301T090000\r
            RRULE:FREQ=DAILY;COUNT=0\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        #expect(output.status == 1)
        #expect(output.stdout == """
            <stdin>:8: warning: [unknown-tzid] TZID "Nowhere/Town" has no VTIMEZONE here and is not an IANA, vendor-prefixed or Windows zone name
            <stdin>:9: warning: [rrule] RRULE 'FREQ=DAILY;COUNT=0': COUNT=0 is not a positive integer below 2^31; the bad part is ignored and the rest of the rule is kept
            <stdin>:9: error: [rrule] RRULE COUNT=0 must be a positive integer
            1 file, 1 component: 1 error, 2 warnings

            """)
    }

    @Test func strictFailsOnAnyFinding() throws {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n"
        #expect(try ICalRunner.run(["validate", "-"], stdin: text).status == 0)
        #expect(try ICalRunner.run(["validate", "--strict", "-"], stdin: text).status == 1)
    }

    @Test func jsonFormatForTools() throws {
        let output = try ICalRunner.run(["validate", "--format", "json", "-"],
                                        stdin: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n")
        #expect(output.status == 0)
        #expect(output.stdout == #"{"files":1,"components":0,"errors":0,"warnings":1,"findings":[{"file":"<stdin>","line":1,"#
            + #""severity":"warning","rule":"missing-prodid","component":"VCALENDAR","property":null,"#
            + #""message":"VCALENDAR has no PRODID (RFC 5545 requires one)"}]}"# + "\n")
        let parsed = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        #expect(parsed?["warnings"] as? Int == 1)
    }
}
