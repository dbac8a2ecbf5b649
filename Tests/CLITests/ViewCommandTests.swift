import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `ical view month` and `ical view week`: the grids compared with golden files in
/// Tests/CLITests/Expected/ (fixed width, no colour), colour and NO_COLOR on a terminal,
/// the locale's first weekday, the store under its access, the HTML page, and errors.
///
/// Regenerate a golden file after checking the new output by eye, e.g.
/// `COLUMNS=80 TZ=UTC LC_ALL=C.UTF-8 ICAL_NOW=2026-11-22T10:00:00 .build/debug/ical view month 2026-10
///  --tz Europe/Berlin --holidays holidays.ics view.ics > Tests/CLITests/Expected/view-month-october.txt`
/// with the fixture below written to files.
@Suite struct ViewCommandTests {
    /// Lessons twice a week, two lessons overlapping a third on 22 October, an all-day day,
    /// a trip over four days into the next week, a handover inside the DST change of
    /// 25 October (02:30 CEST to 02:30 CET), and a title with an escape sequence.
    static let fixture = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//OpenEventKit//Tests//EN
        BEGIN:VEVENT
        UID:piano@test
        DTSTAMP:20260801T000000Z
        DTSTART;TZID=Europe/Berlin:20261006T160000
        DTEND;TZID=Europe/Berlin:20261006T164500
        RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20261105T230000Z
        SUMMARY:Piano
        LOCATION:Room 12
        END:VEVENT
        BEGIN:VEVENT
        UID:violin@test
        DTSTAMP:20260801T000000Z
        DTSTART;TZID=Europe/Berlin:20261022T163000
        DTEND;TZID=Europe/Berlin:20261022T171500
        SUMMARY:Violin
        LOCATION:Room 3
        END:VEVENT
        BEGIN:VEVENT
        UID:choir@test
        DTSTAMP:20260801T000000Z
        DTSTART;TZID=Europe/Berlin:20261022T160000
        DTEND;TZID=Europe/Berlin:20261022T180000
        SUMMARY:Choir
        END:VEVENT
        BEGIN:VEVENT
        UID:night@test
        DTSTAMP:20260801T000000Z
        DTSTART:20261025T003000Z
        DTEND:20261025T013000Z
        SUMMARY:Night shift handover
        END:VEVENT
        BEGIN:VEVENT
        UID:trip@test
        DTSTAMP:20260801T000000Z
        DTSTART;VALUE=DATE:20261023
        DTEND;VALUE=DATE:20261027
        SUMMARY:School trip
        END:VEVENT
        BEGIN:VEVENT
        UID:day@test
        DTSTAMP:20260801T000000Z
        DTSTART;VALUE=DATE:20261021
        SUMMARY:Open day
        END:VEVENT
        BEGIN:VEVENT
        UID:concert@test
        DTSTAMP:20260801T000000Z
        DTSTART;TZID=Europe/Berlin:20261024T190000
        DTEND;TZID=Europe/Berlin:20261024T213000
        SUMMARY:Concert\\, \u{1B}[31mred
        END:VEVENT
        END:VCALENDAR

        """

    static let holidays = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//OpenEventKit//Tests//EN
        BEGIN:VEVENT
        UID:break@test
        DTSTAMP:20260801T000000Z
        DTSTART;VALUE=DATE:20261019
        DTEND;VALUE=DATE:20261021
        SUMMARY:Autumn break
        END:VEVENT
        END:VCALENDAR

        """

    /// The fixture and the holidays in a fresh folder.
    private struct Files {
        let folder: TemporaryFolder
        let calendar: String
        let holidays: String

        init() throws {
            folder = try TemporaryFolder()
            calendar = try folder.write("view.ics", ViewCommandTests.fixture)
            holidays = try folder.write("holidays.ics", ViewCommandTests.holidays)
        }
    }

    private func expectGolden(_ name: String, _ output: ICalRunner.Output, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(output.status == 0, "\(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.stderr == "", sourceLocation: sourceLocation)
        let expected = try String(contentsOf: ICalRunner.packageRoot.appendingPathComponent("Tests/CLITests/Expected/\(name)"), encoding: .utf8)
        #expect(output.stdout == expected, sourceLocation: sourceLocation)
    }

    @Test func monthGridWithAllDayMultiDayOverlapsHolidaysAndTheDSTNote() throws {
        let files = try Files()
        defer { files.folder.remove() }
        let output = try ICalRunner.run(["view", "month", "2026-10", "--tz", "Europe/Berlin", "--holidays", files.holidays, files.calendar])
        try expectGolden("view-month-october.txt", output)
    }

    @Test func weekGridOfTheDSTChangeWithOverlappingLessons() throws {
        let files = try Files()
        defer { files.folder.remove() }
        let output = try ICalRunner.run(["view", "week", "2026-10-22", "--tz", "Europe/Berlin", "--holidays", files.holidays, files.calendar],
                                        environment: ["COLUMNS": "100"])
        try expectGolden("view-week-dst.txt", output)
    }

    @Test func narrowWeekStartingOnSunday() throws {
        let files = try Files()
        defer { files.folder.remove() }
        let output = try ICalRunner.run(["view", "week", "2026-W43", "--tz", "Europe/Berlin", "--first-weekday", "sunday", files.calendar],
                                        environment: ["COLUMNS": "60"])
        try expectGolden("view-week-sunday.txt", output)
        // Every line fits the width.
        for line in output.stdout.split(separator: "\n") { #expect(line.count <= 60, "\(line)") }
    }

    @Test func emptyMonth() throws {
        let files = try Files()
        defer { files.folder.remove() }
        let output = try ICalRunner.run(["view", "month", "2027-02", "--tz", "Europe/Berlin", files.calendar])
        try expectGolden("view-month-empty.txt", output)
    }

    @Test func monthFitsTheColumnsAndCutsBusyDays() throws {
        let files = try Files()
        defer { files.folder.remove() }
        for columns in [50, 80, 132] {
            let output = try ICalRunner.run(["view", "month", "2026-10", "--tz", "Europe/Berlin", "--lines", "2", files.calendar],
                                            environment: ["COLUMNS": String(columns)])
            #expect(output.status == 0)
            let lines = output.stdout.split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= columns }, "\(columns)")
            #expect(lines.contains { $0.count > columns - 8 }, "\(columns): the grid uses the width")
            // 22 October: Piano, Choir and Violin in two lines: one shown, then +2 more (+2 where narrow).
            #expect(output.stdout.contains(columns < 60 ? "│+2    │" : "+2 more"), "\(output.stdout)")
        }
    }

    @Test func untrustedTitlesAreShownEscaped() throws {
        let files = try Files()
        defer { files.folder.remove() }
        let output = try ICalRunner.run(["view", "week", "2026-10-24", "--tz", "Europe/Berlin", "--color", "always", files.calendar],
                                        environment: ["COLUMNS": "300"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("Concert, \\u{1B}[31mred"))
        #expect(!output.stdout.contains("\u{1B}[31m"))
        // The colour is ical's own: 24-bit foreground colours, reset after each cell.
        #expect(output.stdout.contains("\u{1B}[38;2;"))
    }

    @Test func colourOnATerminalUnlessNoColor() throws {
        let files = try Files()
        defer { files.folder.remove() }
        let command = "COLUMNS=80 '\(ICalRunner.executable.path)' view month 2026-10 --tz Europe/Berlin '\(files.calendar)'"
        let colored = try TerminalDriver.run(command, steps: [])
        #expect(colored.status == 0, "\(colored.transcript)")
        #expect(colored.transcript.contains("\u{1B}[38;2;"))
        let plain = try TerminalDriver.run(command, steps: [], environment: ["NO_COLOR": "1"])
        #expect(plain.status == 0)
        #expect(plain.transcript.contains("16:00 Pia"))
        #expect(!plain.transcript.contains("\u{1B}["))
        // Not a terminal: no colour either.
        let piped = try ICalRunner.run(["view", "month", "2026-10", "--tz", "Europe/Berlin", files.calendar])
        #expect(!piped.stdout.contains("\u{1B}"))
    }

    @Test func firstWeekdayComesFromTheLocale() throws {
        let files = try Files()
        defer { files.folder.remove() }
        let american = try ICalRunner.run(["view", "month", "2026-10", files.calendar], environment: ["LC_ALL": "en_US.UTF-8"])
        #expect(american.status == 0)
        #expect(american.stdout.split(separator: "\n")[2].hasPrefix("│Sun"))
        let german = try ICalRunner.run(["view", "month", "2026-10", files.calendar], environment: ["LC_ALL": "de_DE.UTF-8"])
        #expect(german.stdout.split(separator: "\n")[2].hasPrefix("│Mon"))
        let option = try ICalRunner.run(["view", "month", "2026-10", "--first-weekday", "sun", files.calendar],
                                        environment: ["LC_ALL": "de_DE.UTF-8"])
        #expect(option.stdout.split(separator: "\n")[2].hasPrefix("│Sun"))
    }

    @Test func theStoreIsReadUnderItsAccessWithTheCalendarsColours() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let calendar = try folder.write("view.ics", Self.fixture)
        let environment = ["OPENEVENTKIT_STORE": store]
        // No decision: nothing is read, exit 77 as for ical query.
        var output = try ICalRunner.run(["view", "month", "2026-10"], environment: environment)
        #expect(output.status == 77)
        #expect(output.stdout == "")
        #expect(try ICalRunner.run(["privacy", "grant", "org.openeventkit.ical", "--events", "full"], environment: environment).status == 0)
        #expect(try ICalRunner.run(["calendars", "create", "Lessons", "--color", "#FF8000"], environment: environment).status == 0)
        output = try ICalRunner.run(["import", "--calendar", "Lessons", calendar], environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        output = try ICalRunner.run(["view", "month", "2026-10", "--tz", "Europe/Berlin", "--calendar", "Lessons", "--color", "always"],
                                    environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("\u{1B}[38;2;255;128;0m16:00 Pia"), "\(output.stdout)")
        // Write-only access reads nothing.
        #expect(try ICalRunner.run(["privacy", "grant", "org.openeventkit.ical", "--events", "write-only"], environment: environment).status == 0)
        output = try ICalRunner.run(["view", "week", "2026-10-22"], environment: environment)
        #expect(output.status == 77)
        #expect(!output.stdout.contains("Piano"))
    }

    @Test func htmlIsOneSelfContainedPrintablePage() throws {
        let files = try Files()
        defer { files.folder.remove() }
        let page = files.folder.url.appendingPathComponent("week.html").path
        let output = try ICalRunner.run(["view", "week", "2026-10-22", "--tz", "Europe/Berlin", "--format", "html", "--paper", "a4",
                                         "--holidays", files.holidays, "--title", "Autumn <term>", "-o", page, files.calendar])
        #expect(output.status == 0, "\(output.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("@page { size: A4 landscape; margin: 10mm; }"))
        for forbidden in ["<script", "http://", "https://", "src=", "@import", "url("] {
            #expect(!html.contains(forbidden), "\(forbidden)")
        }
        #expect(html.contains("Autumn &lt;term&gt;"))
        #expect(html.contains("<div class=\"allday holiday\"><div class=\"hol\">Autumn break</div>"))
        #expect(html.contains("Concert, \\u{1B}[31mred"))
        #expect(html.contains("<b>16:00–16:45</b> Piano"))
        #expect(html.contains("clocks go back in Europe/Berlin"))
        let month = try ICalRunner.run(["view", "month", "2026-10", "--tz", "Europe/Berlin", "--format", "html", "--paper", "letter",
                                        "--holidays", files.holidays, files.calendar])
        #expect(month.stdout.contains("@page { size: letter landscape; margin: 10mm; }"))
        #expect(month.stdout.contains("<td class=\"holiday\"><span class=\"num\">19</span><span class=\"hol\">Autumn break</span>"))
    }

    @Test func svgIsOneWellFormedPicture() throws {
        let files = try Files()
        defer { files.folder.remove() }
        for view in [["month", "2026-10"], ["week", "2026-10-22"]] {
            let output = try ICalRunner.run(["view"] + view + ["--tz", "Europe/Berlin", "--format", "svg", "--paper", "letter",
                                                               "--holidays", files.holidays, "--title", "Autumn <term>", files.calendar])
            #expect(output.status == 0, "\(output.stderr)")
            let document = try XMLDocument(xmlString: output.stdout)
            #expect(document.rootElement()?.name == "svg")
            #expect(output.stdout.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1056\" height=\"816\""))
            for forbidden in ["<script", "href", "<image", "@import"] { #expect(!output.stdout.contains(forbidden), "\(forbidden)") }
            #expect(output.stdout.contains("Autumn &lt;term&gt;"))
            #expect(output.stdout.contains("fill=\"url(#holiday)\""))
            #expect(output.stdout.contains(">Autumn break</text>"))
            #expect(output.stdout.contains("clocks go back in Europe/Berlin"))
        }
    }

    @Test func lessonSpecificationHolidaysAreMarked() throws {
        let spec = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/term.yaml").path
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let term = folder.url.appendingPathComponent("term.ics").path
        #expect(try ICalRunner.run(["lessons", "--spec", spec, "-o", term]).status == 0)
        let output = try ICalRunner.run(["view", "month", "2026-12", "--tz", "Europe/Berlin", "--holidays", spec, term])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("│21 Winter…│"))
        // The exam week is named in the specification; the rehearsal on 26 November is not.
        #expect(output.stdout.contains("│14 Exams  │"))
        let november = try ICalRunner.run(["view", "week", "2026-11-26", "--tz", "Europe/Berlin", "--holidays", spec, term])
        #expect(november.stdout.contains("│Holiday  │"), "\(november.stdout)")
        #expect(output.stdout.contains("16:00 Pia…"))
    }

    @Test(arguments: [
        (["view", "month", "2026-10", "--first-weekday", "someday"], Int32(64), "--first-weekday"),
        (["view", "month", "2026-10", "--tz", "Mars/Olympus"], Int32(2), "unknown time zone 'Mars/Olympus'"),
        (["view", "month", "2026-10", "--lines", "0"], Int32(64), "--lines"),
        (["view", "week", "no-such-file.ics"], Int32(1), "no-such-file.ics"),
        (["view", "month", "2026-10", "--holidays", "missing.yaml", "x.ics"], Int32(1), "--holidays missing.yaml"),
        (["view", "month", "2026-10", "--store", "/tmp", "x.ics"], Int32(64), "--store and --app"),
    ])
    func badInputIsAClearError(arguments: [String], status: Int32, message: String) throws {
        let output = try ICalRunner.run(arguments)
        #expect(output.status == status, "\(output.stderr)")
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(output.stdout == "")
    }
}
