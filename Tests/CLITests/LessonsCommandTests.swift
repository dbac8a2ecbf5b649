import Foundation
import Testing

/// `ical lessons`, run as the built binary with TZ=UTC and ICAL_NOW pinned.
@Suite struct LessonsCommandTests {
    static let spec = """
        name: Chess club
        timezone: Europe/Berlin
        term:
          from: 2026-10-01
          count: 4
        alarms: [15m]
        holidays:
          - 2026-10-15
          - file: closed.ics
        lessons:
          - title: Chess
            teacher: Mr Board
            room: Library
            days: TH
            time: "16:30"
            length: 1h

        """

    static let closed = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//EN\r\nBEGIN:VEVENT\r\nUID:closed\r\n"
        + "DTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20261022\r\nDTEND;VALUE=DATE:20261024\r\n"
        + "SUMMARY:Closed\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    /// Four Thursday lessons from 1 October, the 15th and the 22nd left out, across the DST change.
    static let expected = """
        BEGIN:VCALENDAR\r
        PRODID:-//OpenEventKit//ical lessons//EN\r
        VERSION:2.0\r
        CALSCALE:GREGORIAN\r
        X-WR-CALNAME:Chess club\r
        BEGIN:VTIMEZONE\r
        TZID:Europe/Berlin\r
        BEGIN:DAYLIGHT\r
        DTSTART:20260329T020000\r
        TZOFFSETFROM:+0100\r
        TZOFFSETTO:+0200\r
        TZNAME:CEST\r
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
        END:DAYLIGHT\r
        BEGIN:STANDARD\r
        DTSTART:20261025T030000\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        TZNAME:CET\r
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
        END:STANDARD\r
        END:VTIMEZONE\r
        BEGIN:VEVENT\r
        UID:lesson-8da299368ec7d2b35ba6504c96889502@openeventkit\r
        DTSTAMP:20261122T100000Z\r
        DTSTART;TZID=Europe/Berlin:20261001T163000\r
        DTEND;TZID=Europe/Berlin:20261001T173000\r
        SUMMARY:Chess\r
        LOCATION:Library\r
        DESCRIPTION:Teacher: Mr Board\r
        RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=TH\r
        EXDATE;TZID=Europe/Berlin:20261015T163000,20261022T163000\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT15M\r
        DESCRIPTION:Chess\r
        END:VALARM\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    static let options = ["lessons", "--title", "Piano", "--days", "TU,TH", "--time", "16:00", "--duration", "45m",
                          "--from", "2026-09-07", "--tz", "Europe/Berlin"]

    func folderWithSpec() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        _ = try folder.write("term.yaml", Self.spec)
        _ = try folder.write("closed.ics", Self.closed)
        return folder
    }

    @Test func helpHasTheSchemaAndExamples() throws {
        let output = try ICalRunner.run(["lessons", "--help"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("Examples:\n  ical lessons --title Piano --days TU,TH --time 16:00 --duration 45m \\\n"))
        #expect(output.stdout.contains("ical lessons --spec samples/calendars/term.yaml -o term.ics"))
        #expect(output.stdout.contains("    - file: holidays.ics                   # relative to the spec"))
        #expect(output.stdout.contains("  --skip-date <date>      Leave out lessons on this date or FIRST..LAST range"))
        let root = try ICalRunner.run(["--help"])
        #expect(root.stdout.contains("lessons"))
    }

    @Test func aSmallSpecification() throws {
        let folder = try folderWithSpec()
        defer { folder.remove() }
        let output = try ICalRunner.run(["lessons", "--spec", "term.yaml"], in: folder.url)
        #expect(output.status == 0)
        #expect(output.stderr == "")
        #expect(output.stdout == Self.expected)
    }

    @Test func twoRunsGiveTheSameBytesAndTheFileIsStrictlyValid() throws {
        let folder = try folderWithSpec()
        defer { folder.remove() }
        let first = try ICalRunner.run(["lessons", "--spec", "term.yaml", "-o", "a.ics"], in: folder.url)
        let second = try ICalRunner.run(["lessons", "--spec", "term.yaml", "-o", "b.ics"], in: folder.url)
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stdout == "" && first.stderr == "")
        let a = try Data(contentsOf: folder.url.appendingPathComponent("a.ics"))
        let b = try Data(contentsOf: folder.url.appendingPathComponent("b.ics"))
        #expect(a == b)
        #expect(String(decoding: a, as: UTF8.self) == Self.expected)
        let validation = try ICalRunner.run(["validate", "--strict", "a.ics"], in: folder.url)
        #expect(validation.status == 0)
        #expect(validation.stdout == "1 file, 2 components: 0 errors, 0 warnings\n")
    }

    @Test func theSampleTermIsStrictlyValid() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sample = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/term.yaml").path
        let output = try ICalRunner.run(["lessons", "--spec", sample, "-o", "term.ics"], in: folder.url)
        #expect(output.status == 0, "\(output.stderr)")
        let validation = try ICalRunner.run(["validate", "--strict", "term.ics"], in: folder.url)
        #expect(validation.stdout == "1 file, 3 components: 0 errors, 0 warnings\n")
        let query = try ICalRunner.run(["query", "--at", "2026-10-20", "--tz", "Europe/Berlin", "term.ics"], in: folder.url)
        #expect(query.stdout == "")
    }

    @Test func optionsWithSkipFilesAndDates() throws {
        let folder = try folderWithSpec()
        defer { folder.remove() }
        let output = try ICalRunner.run(Self.options + ["--until", "2026-10-31", "--skip", "closed.ics",
                                                        "--skip-date", "2026-09-15..2026-09-17", "--alarm", "15m",
                                                        "--alarm", "1h", "--location", "Room 12", "--notes", "Bring music"],
                                        in: folder.url)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("DTSTART;TZID=Europe/Berlin:20260908T160000\r\nDTEND;TZID=Europe/Berlin:20260908T164500\r\n"))
        #expect(output.stdout.contains("RRULE:FREQ=WEEKLY;UNTIL=20261029T150000Z;BYDAY=TU,TH\r\n"))
        #expect(output.stdout.contains("EXDATE;TZID=Europe/Berlin:20260915T160000,20260917T160000,20261022T160000\r\n"))
        #expect(output.stdout.contains("LOCATION:Room 12\r\nDESCRIPTION:Bring music\r\n"))
        #expect(output.stdout.contains("TRIGGER:-PT15M\r\n") && output.stdout.contains("TRIGGER:-PT1H\r\n"))
        let every = try ICalRunner.run(Self.options + ["--count", "3", "--every", "2", "--floating"], in: folder.url)
        #expect(every.status == 2)
        #expect(every.stderr == "ical lessons: give either --tz or --floating, not both\n")
        let floating = try ICalRunner.run(Array(Self.options.dropLast(2)) + ["--count", "3", "--every", "2", "--floating"])
        #expect(floating.status == 0)
        #expect(floating.stdout.contains("DTSTART:20260908T160000\r\n"))
        #expect(floating.stdout.contains("RRULE:FREQ=WEEKLY;COUNT=3;INTERVAL=2;BYDAY=TU,TH;WKST=MO\r\n"))
        #expect(!floating.stdout.contains("VTIMEZONE"))
    }

    @Test func theSystemZoneIsTheDefault() throws {
        let output = try ICalRunner.run(Array(Self.options.dropLast(2)) + ["--count", "1"], environment: ["TZ": "America/New_York"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("DTSTART;TZID=America/New_York:20260908T160000\r\n"))
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var message: String
        var testDescription: String { message }
    }

    @Test(arguments: [
        ErrorCase(arguments: options + ["--until", "2026-12-18", "--tz", "Mars/Olympus"], status: 2,
                  message: "--tz: unknown time zone 'Mars/Olympus': use an IANA name such as Europe/Berlin"),
        ErrorCase(arguments: options + ["--until", "2026-09-01"], status: 2, message: "until (2026-09-01) is before from (2026-09-07)"),
        ErrorCase(arguments: options + ["--until", "2026-12-18", "--count", "3"], status: 2, message: "give either --until or --count, not both"),
        ErrorCase(arguments: options, status: 2, message: "give --until (the last day) or --count (the number of lessons)"),
        ErrorCase(arguments: options + ["--until", "2026-12-31", "--time", "4pm"], status: 2,
                  message: "--time: '4pm' is not a time of day: use HH:MM on a 24-hour clock, such as 16:00 or 9:30"),
        ErrorCase(arguments: options + ["--count", "3", "--duration", "45"], status: 2,
                  message: "--duration: '45' is not a length of time: use a number with h or m, such as 45m, 1h or 1h30m"),
        ErrorCase(arguments: options + ["--count", "3", "--from", "2026-02-30"], status: 2, message: "--from: '2026-02-30' is not a date that exists"),
        ErrorCase(arguments: options + ["--count", "3", "--days", ""], status: 2, message: "--days: no weekdays given: use codes such as MO,WE or TU,TH"),
        ErrorCase(arguments: options + ["--count", "3", "--tz", "floating"], status: 2,
                  message: "--tz floating is not a zone: use --floating for floating local times"),
        ErrorCase(arguments: options + ["--count", "3", "--skip", "missing.ics"], status: 1,
                  message: "--skip missing.ics: cannot open: No such file or directory"),
        ErrorCase(arguments: options + ["--count", "0"], status: 2, message: "--count: '0' is not a whole number from 1 to 5000"),
        ErrorCase(arguments: ["lessons", "--spec", "missing.yaml"], status: 1, message: "missing.yaml: cannot open: No such file or directory"),
        ErrorCase(arguments: ["lessons", "--spec", "term.yaml", "--days", "MO"], status: 2,
                  message: "--days cannot be combined with --spec: set it in the specification"),
        ErrorCase(arguments: ["lessons", "--spec", "bad.yaml"], status: 2,
                  message: "bad.yaml:4: lessons[0].length: 'soon' is not a length of time: use a number with h or m, such as 45m, 1h or 1h30m"),
    ])
    func errorsAreOneLineAndWriteNothing(_ testCase: ErrorCase) throws {
        let folder = try folderWithSpec()
        defer { folder.remove() }
        _ = try folder.write("bad.yaml", "term: {from: 2026-09-07, count: 3}\nlessons:\n  - title: Piano\n    length: soon\n    days: TU\n    time: \"16:00\"\n")
        let output = try ICalRunner.run(testCase.arguments + ["-o", "out.ics"], in: folder.url)
        #expect(output.status == testCase.status)
        #expect(output.stderr == "ical lessons: \(testCase.message)\n")
        #expect(output.stdout == "")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out.ics").path))
    }
}
