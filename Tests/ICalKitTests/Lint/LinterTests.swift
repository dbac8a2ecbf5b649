import Testing
import ICalKit

@Suite struct LinterTests {
    static func lint(_ text: String) -> [String] {
        Linter().lint(Array(text.replacingCRLF.utf8), file: "t.ics").findings.map(\.description)
    }

    @Test func cleanCalendarHasNoFindings() {
        #expect(Self.lint("""
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:x
            BEGIN:VEVENT
            UID:a
            DTSTAMP:20240101T000000Z
            DTSTART;TZID=Europe/Berlin:20240101T100000
            DTEND;TZID=Europe/Berlin:20240101T110000
            RRULE:FREQ=DAILY;UNTIL=20240110T090000Z
            EXDATE;TZID=Europe/Berlin:20240102T100000
            END:VEVENT
            END:VCALENDAR

            """).isEmpty)
    }

    @Test func everyRuleWithFileAndLine() {
        let findings = Self.lint("""
            BEGIN:VCALENDAR
            BEGIN:VEVENT
            UID:a
            DTSTAMP:20240101T000000Z
            DTSTART:20240301T100000Z
            DTEND:20240301T090000Z
            DURATION:PT1H
            RRULE:FREQ=DAILY;INTERVAL=0
            EXDATE;VALUE=DATE:20240302
            END:VEVENT
            BEGIN:VEVENT
            UID:a
            DTSTAMP:20240101T000000Z
            DTSTART;TZID=Nowhere/Town:20240301T100000
            RRULE:FREQ=DAILY;UNTIL=20240310
            DESCRIPTION:this is a very long line that goes on and on and on and on beyond 75 octets
            END:VEVENT
            BEGIN:VEVENT
            DTSTART;VALUE=DATE:20240301
            DTEND;VALUE=DATE:20240301
            END:VEVENT
            BEGIN:VTODO
            UID:t
            DTSTAMP:20240101T000000Z
            DTSTART:20240301T100000
            RRULE:FREQ=DAILY;UNTIL=20240310T100000Z
            END:VTODO
            END:VCALENDAR

            """)
        #expect(findings == [
            "t.ics:1: warning: [missing-version] VCALENDAR has no VERSION (RFC 5545 requires VERSION:2.0)",
            "t.ics:1: warning: [missing-prodid] VCALENDAR has no PRODID (RFC 5545 requires one)",
            "t.ics:6: error: [dtend-before-dtstart] DTEND 2024-03-01T09:00:00Z is not after DTSTART 2024-03-01T10:00:00Z",
            "t.ics:7: error: [dtend-and-duration] VEVENT has both DTEND and DURATION; only one is allowed",
            // Issue 14: the rule is kept without its bad part when read, and lint still flags the file.
            "t.ics:8: warning: [rrule] RRULE 'FREQ=DAILY;INTERVAL=0': INTERVAL=0 is not a positive integer up to 2147483647; the bad part is ignored and the rest of the rule is kept",
            "t.ics:8: error: [rrule] RRULE INTERVAL=0 must be a positive integer",
            "t.ics:9: warning: [exdate-type] EXDATE 2024-03-02 is a DATE but DTSTART is a DATE-TIME; it excludes no occurrence in most programs",
            "t.ics:11: warning: [duplicate-uid] UID \"a\" is used again (first at line 2) with no SEQUENCE; programs keep either one",
            "t.ics:14: warning: [unknown-tzid] TZID \"Nowhere/Town\" has no VTIMEZONE here and is not an IANA, vendor-prefixed or Windows zone name",
            "t.ics:15: error: [rrule] RRULE UNTIL=20240310 is a DATE but DTSTART is a DATE-TIME",
            "t.ics:16: warning: [line-length] line is 87 octets long; RFC 5545 §3.1 folds lines at 75 octets",
            "t.ics:18: error: [missing-uid] VEVENT has no UID",
            "t.ics:18: warning: [missing-dtstamp] VEVENT has no DTSTAMP",
            "t.ics:20: error: [dtend-before-dtstart] DTEND 2024-03-01 is not after DTSTART 2024-03-01",
            "t.ics:26: error: [rrule] RRULE UNTIL=20240310T100000Z must be floating because DTSTART is floating",
        ])
    }

    @Test func missingStartOnlyWithoutMethod() {
        let event = "BEGIN:VEVENT\nUID:a\nDTSTAMP:20240101T000000Z\nEND:VEVENT\n"
        let without = Self.lint("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:x\n" + event + "END:VCALENDAR\n")
        #expect(without == ["t.ics:4: error: [missing-dtstart] VEVENT has no DTSTART (required when the calendar has no METHOD)"])
        let with = Self.lint("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:x\nMETHOD:CANCEL\n" + event + "END:VCALENDAR\n")
        #expect(with.isEmpty)
    }

    @Test func sequenceTellsVersionsApart() {
        let text = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:x
            BEGIN:VEVENT
            UID:a
            DTSTAMP:20240101T000000Z
            DTSTART:20240101T100000Z
            END:VEVENT
            BEGIN:VEVENT
            UID:a
            SEQUENCE:1
            DTSTAMP:20240101T000000Z
            DTSTART:20240101T100000Z
            END:VEVENT
            END:VCALENDAR

            """
        #expect(Self.lint(text).isEmpty)
    }

    @Test func summaryLineAndJSON() {
        var summary = LintSummary()
        summary.add(Linter().lint(Array("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n".utf8), file: "s.ics"))
        #expect(summary.line == "1 file, 0 components: 0 errors, 1 warning")
        #expect(summary.json() == #"{"files":1,"components":0,"errors":0,"warnings":1,"findings":[{"file":"s.ics","line":1,"#
            + #""severity":"warning","rule":"missing-prodid","component":"VCALENDAR","property":null,"#
            + #""message":"VCALENDAR has no PRODID (RFC 5545 requires one)"}]}"# + "\n")
    }
}

@Suite struct LintSummaryTests {
    @Test func duplicatesAcrossFiles() {
        let item = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:same\r\nDTSTAMP:20240101T000000Z\r\n"
            + "DTSTART:20240101T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        var summary = LintSummary()
        summary.add(Linter().lint(Array(item.utf8), file: "a.ics"))
        summary.add(Linter().lint(Array(item.utf8), file: "b.ics"))
        #expect(summary.findings.map(\.description) == [
            "b.ics:4: warning: [duplicate-uid] UID \"same\" is also in a.ics:4 with no SEQUENCE; programs keep either one",
        ])
        #expect(summary.line == "2 files, 2 components: 0 errors, 1 warning")
    }
}
