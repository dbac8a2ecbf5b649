import Foundation
import Testing

/// `ical ui edit-event` and `ical ui choose-calendar`, the trusted helpers behind
/// OpenEventKitUI, run as the built binary on a pseudo-terminal with scripted keystrokes.
/// The helper's standard output (what the app learns) goes to a file, apart from the
/// terminal (what the user sees).
@Suite struct UICommandTests {
    /// A fresh store with the calendars Calendar (the default), Lessons and School.
    struct Store {
        let folder: TemporaryFolder
        var path: String { folder.url.appendingPathComponent("store").path }
        var environment: [String: String] { ["OPENEVENTKIT_STORE": path] }

        init() throws {
            folder = try TemporaryFolder()
            _ = try ical(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"])
            _ = try ical(["calendars", "create", "Lessons"])
            _ = try ical(["calendars", "create", "School"])
        }

        @discardableResult
        func ical(_ arguments: [String]) throws -> ICalRunner.Output {
            let output = try ICalRunner.run(arguments, environment: environment)
            #expect(output.status == 0, "ical \(arguments.joined(separator: " ")): \(output.stderr)")
            return output
        }

        /// The identifier of the calendar with this title.
        func calendar(_ title: String) throws -> String {
            let names = try FileManager.default.contentsOfDirectory(atPath: path)
            for name in names where !name.hasPrefix(".") {
                let displayName = try? String(contentsOfFile: path + "/" + name + "/displayname", encoding: .utf8)
                if displayName?.trimmingCharacters(in: .whitespacesAndNewlines) == title { return name }
            }
            throw CocoaError(.fileNoSuchFile)
        }

        /// The text of every item file of a calendar.
        func items(in title: String) throws -> [String] {
            let folder = path + "/" + (try calendar(title))
            return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ics") }.sorted()
                .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
        }

        func remove() { folder.remove() }
    }

    static let proposal = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Tests//EN\r
        BEGIN:VEVENT\r
        UID:dropin-1@openeventkit.example\r
        DTSTART;TZID=Europe/Berlin:20261203T180000\r
        DURATION:PT1H30M\r
        SUMMARY:Drop-in: jazz harmony\r
        LOCATION:Studio A\r
        X-SCHOOL-LEVEL:beginners\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    func shell(_ words: [String]) -> String {
        words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    /// Runs `ical ui ARGUMENTS > OUT` on a terminal; returns the run and what the helper printed.
    func onTerminal(_ arguments: [String], store: Store, steps: [(String, String)],
                    input: String? = nil, environment: [String: String] = [:]) throws -> (TerminalDriver.Result, String) {
        let output = store.folder.url.appendingPathComponent("action-\(UUID().uuidString).txt").path
        var command = shell([ICalRunner.executable.path, "ui"] + arguments + ["--store", store.path]) + " > " + shell([output])
        if let input { command += " < " + shell([try store.folder.write("input-\(UUID().uuidString).ics", input)]) }
        let result = try TerminalDriver.run(command, steps: steps.map { TerminalDriver.Step(waitFor: $0.0, type: $0.1) },
                                            environment: environment)
        #expect(result.missed.isEmpty, "never shown: \(result.missed)\n\(result.transcript)")
        return (result, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    // MARK: The editor

    @Test func theEditorSavesWhatTheUserConfirmsAndReportsOnlyTheAction() throws {
        let store = try Store()
        defer { store.remove() }
        let (run, action) = try onTerminal(
            ["edit-event", "--app-id", "org.example.dropin", "--app-name", "Drop-in Lessons", "--event", "-"], store: store,
            steps: [("> ", "1"), ("keeps it", "Jazz harmony (drop-in)"),
                    ("> ", "2"), ("HH:MM)", "2026-12-03 19:15"),
                    ("> ", "3"), ("HH:MM)", "2026-12-03 19:00"),      // before the start: refused
                    ("> ", "5"), ("floating)", "Mars/Olympus"),        // not a zone: refused
                    ("> ", "5"), ("floating)", "Europe/London"),
                    ("> ", "6"), ("clears it", "-"),
                    ("> ", "7"), ("clears it", "Bring the Real Book."),
                    ("> ", "8"), ("(a number)", "2"),
                    ("> ", "delete"),                                  // not for a new event
                    ("> ", "s")],
            input: Self.proposal)
        #expect(action == "saved\n")
        let transcript = run.transcript
        #expect(transcript.contains("“Drop-in Lessons” wants to add an event to your calendar.\n"))
        #expect(transcript.contains("""
              1  Title      Drop-in: jazz harmony
              2  Starts     2026-12-03 18:00
              3  Ends       2026-12-03 19:30
              4  All-day    no
              5  Time zone  Europe/Berlin
              6  Location   Studio A
              7  Notes      \n  8  Calendar   Calendar
            """))
        #expect(transcript.contains("  2  Starts     2026-12-03 19:15\n  3  Ends       2026-12-03 20:45\n"), "the length is kept")
        #expect(transcript.contains("The end cannot be before the start (2026-12-03 19:15)."))
        #expect(transcript.contains("'Mars/Olympus' is not a time zone this system knows."))
        #expect(transcript.contains("  8  Calendar   Lessons\n"))
        #expect(transcript.contains("Type a field's number to change it; s Save, c Cancel, l List.\n> s\nSaved.\n"))
        #expect(!transcript.contains("saved\n"), "the action goes to standard output only")

        let items = try store.items(in: "Lessons")
        #expect(items.count == 1)
        let item = items.first ?? ""
        #expect(item.contains("SUMMARY:Jazz harmony (drop-in)\r\n"))
        #expect(item.contains("DTSTART;TZID=Europe/London:20261203T191500\r\n"), "a new zone keeps the form's wall-clock times")
        #expect(item.contains("DTEND;TZID=Europe/London:20261203T204500\r\n"))
        #expect(item.contains("DESCRIPTION:Bring the Real Book.\r\n"))
        #expect(!item.contains("LOCATION"))
        #expect(item.contains("X-SCHOOL-LEVEL:beginners\r\n"), "what the form does not show is kept")
        #expect(item.contains("UID:dropin-1@openeventkit.example\r\n"))
        #expect(try store.items(in: "Calendar").isEmpty)
    }

    @Test func cancelSavesNothing() throws {
        let store = try Store()
        defer { store.remove() }
        let (run, action) = try onTerminal(["edit-event", "--app-id", "org.example.dropin", "--event", "-"], store: store,
                                           steps: [("> ", "1"), ("keeps it", "Changed"), ("> ", "c")], input: Self.proposal)
        #expect(action == "canceled\n")
        #expect(run.transcript.contains("“org.example.dropin” wants to add an event"), "the bundle identifier without --app-name")
        #expect(run.transcript.contains("> c\nCanceled.\n"))
        #expect(try store.items(in: "Calendar").isEmpty && store.items(in: "Lessons").isEmpty)
    }

    @Test func aNewEventWithoutAProposalStartsAtTheNextHourAndCanBeAllDay() throws {
        let store = try Store()
        defer { store.remove() }
        let (run, action) = try onTerminal(["edit-event", "--app-id", "org.example.app", "--calendar", try store.calendar("School")],
                                           store: store,
                                           steps: [("> ", "1"), ("keeps it", "Sports day"), ("> ", "4"), ("(y/n)", "y"),
                                                   ("> ", "3"), ("YYYY-MM-DD)", "2026-11-24"), ("> ", "s")])
        #expect(action == "saved\n")
        #expect(run.transcript.contains("  2  Starts     2026-11-22 11:00\n"), "ICAL_NOW is 10:00 UTC")
        #expect(run.transcript.contains("  8  Calendar   School\n"))
        let item = try store.items(in: "School").first ?? ""
        #expect(item.contains("DTSTART;VALUE=DATE:20261122\r\n"))
        #expect(item.contains("DTEND;VALUE=DATE:20261125\r\n"), "the last day is the 24th; DTEND is exclusive")
    }

    @Test func anExistingOccurrenceIsChangedForThisEventOnly() throws {
        let store = try Store()
        defer { store.remove() }
        let identifier = try store.ical(["events", "add", "--title", "Violin", "--start", "2026-12-01T16:00", "--duration", "45m",
                                         "--tz", "Europe/Berlin", "--repeat", "weekly", "--count", "4"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try ICalRunner.run(["privacy", "grant", "org.example.planner", "--events", "full", "--store", store.path])
        let (run, action) = try onTerminal(
            ["edit-event", "--app-id", "org.example.planner", "--event-identifier", identifier, "--occurrence", "2026-12-08T15:00:00Z"],
            store: store, steps: [("> ", "1"), ("keeps it", "Violin (with piano)"), ("> ", "s"), ("[t/f]", "t")])
        #expect(action == "saved\n")
        #expect(run.transcript.contains("“org.example.planner” wants to change an event in your calendar."))
        #expect(run.transcript.contains("  2  Starts     2026-12-08 16:00\n"))
        #expect(run.transcript.contains("     Repeats    FREQ=WEEKLY;COUNT=4\n"))
        #expect(run.transcript.contains("s Save, c Cancel, delete Delete, l List."))
        let agenda = try store.ical(["query", "--between", "2026-12-01", "+4w", "--format", "csv"]).stdout
        #expect(agenda.components(separatedBy: ",Violin,").count == 4, "\(agenda)")
        #expect(agenda.contains(",Violin (with piano),2026-12-08T16:00:00+01:00"), "\(agenda)")
    }

    @Test func anExistingEventIsDeletedOnlyForAnAppWithFullAccess() throws {
        let store = try Store()
        defer { store.remove() }
        let identifier = try store.ical(["events", "add", "--title", "Parents' evening", "--start", "2026-12-02T18:00", "--tz", "UTC"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // An app that may not read events cannot open a stored one: it is proposed as new.
        let (denied, added) = try onTerminal(["edit-event", "--app-id", "org.example.nosy", "--event-identifier", identifier],
                                             store: store, steps: [("> ", "delete"), ("> ", "c")])
        #expect(added == "canceled\n")
        #expect(denied.transcript.contains("has no full access to events; --event-identifier is ignored"))
        #expect(!denied.transcript.contains("delete Delete"))

        _ = try ICalRunner.run(["privacy", "grant", "org.example.planner", "--events", "full", "--store", store.path])
        let (run, action) = try onTerminal(["edit-event", "--app-id", "org.example.planner", "--event-identifier", identifier],
                                           store: store, steps: [("> ", "delete"), ("[y/n]", "y")])
        #expect(action == "deleted\n")
        #expect(run.transcript.contains("Delete “Parents' evening”? [y/n] y\nDeleted.\n"))
        #expect(try store.items(in: "Calendar").isEmpty)
    }

    @Test func withoutATerminalTheEditorCancels() throws {
        let store = try Store()
        defer { store.remove() }
        let run = try ProgramRunner.run("/usr/bin/setsid", ["--wait", ICalRunner.executable.path, "ui", "edit-event",
                                                           "--app-id", "org.example.dropin", "--store", store.path])
        let (stdout, stderr) = (run.stdout, run.stderr)
        #expect(run.status == 0)
        #expect(stdout == "canceled\n")
        #expect(stderr.hasPrefix("ical ui edit-event: no terminal (/dev/tty cannot be opened"), "\(stderr)")
        #expect(stderr.hasSuffix("the editor was canceled\n"))
        #expect(try store.items(in: "Calendar").isEmpty)
    }

    // MARK: The chooser

    @Test func writeOnlyAppsChooseOneWritableEventCalendar() throws {
        let store = try Store()
        defer { store.remove() }
        _ = try ICalRunner.run(["privacy", "grant", "org.example.lessons", "--events", "write-only", "--store", store.path])
        let (run, result) = try onTerminal(
            ["choose-calendar", "--app-id", "org.example.lessons", "--app-name", "Lessons", "--selection", "multiple",
             "--display", "all", "--done-button", "--cancel-button"],
            store: store, steps: [("> ", "3"), ("> ", "2"), ("> ", "d")])
        #expect(result == "done\n\(try store.calendar("Lessons"))\n")
        #expect(run.transcript.contains("“Lessons” asks you to choose a calendar.\nIt can add events to the calendar you choose, but not see any of its events.\n"))
        #expect(run.transcript.contains("  1  (•) Calendar\n  2  ( ) Lessons\n  3  ( ) School\n"), "single selection, the default preselected; no reminder list")
        #expect(run.transcript.contains("  1  ( ) Calendar\n  2  (•) Lessons\n  3  ( ) School\n"))
        #expect(!run.transcript.contains("Reminders"))
    }

    @Test func fullAccessAppsChooseSeveralCalendars() throws {
        let store = try Store()
        defer { store.remove() }
        _ = try ICalRunner.run(["privacy", "grant", "org.example.planner", "--events", "full", "--store", store.path])
        let (run, result) = try onTerminal(
            ["choose-calendar", "--app-id", "org.example.planner", "--selection", "multiple", "--selected", "calendar", "--done-button"],
            store: store, steps: [("> ", "3"), ("> ", "1"), ("> ", "2"), ("> ", "x"), ("> ", "d")])
        #expect(result == "done\n\(try store.calendar("Lessons"))\n\(try store.calendar("School"))\n")
        #expect(run.transcript.contains("  1  [x] Calendar\n  2  [ ] Lessons\n  3  [ ] School\n"))
        #expect(run.transcript.contains("Type a number to select or deselect a calendar; d Done."))
    }

    @Test func cancelAndCloseAreReported() throws {
        let store = try Store()
        defer { store.remove() }
        _ = try ICalRunner.run(["privacy", "grant", "org.example.planner", "--events", "full", "--reminders", "full", "--store", store.path])
        let (_, canceled) = try onTerminal(["choose-calendar", "--app-id", "org.example.planner", "--cancel-button"],
                                           store: store, steps: [("> ", "2"), ("> ", "c")])
        #expect(canceled == "canceled\n")
        let (run, closed) = try onTerminal(["choose-calendar", "--app-id", "org.example.planner", "--entity-type", "reminder"],
                                           store: store, steps: [("> ", "1"), ("> ", "")])
        #expect(closed == "closed\nreminders\n")
        #expect(run.transcript.contains("asks you to choose a list.\n\n  1  ( ) Reminders\nType a number to choose a list; an empty line closes.\n"))
        #expect(run.transcript.contains("  1  (•) Reminders\n"))
    }

    @Test func withoutAccessTheChooserIsNotShown() throws {
        let store = try Store()
        defer { store.remove() }
        _ = try ICalRunner.run(["privacy", "revoke", "org.example.nosy", "--store", store.path])
        let output = try ICalRunner.run(["ui", "choose-calendar", "--app-id", "org.example.nosy", "--store", store.path])
        #expect(output.status == 0)
        #expect(output.stdout == "canceled\n")
        #expect(output.stderr == "ical ui choose-calendar: org.example.nosy has no access to events (denied); the calendar chooser needs write-only or full access\n")
    }

    @Test func helpHasExamples() throws {
        for command in [["ui"], ["ui", "edit-event"], ["ui", "choose-calendar"]] {
            let output = try ICalRunner.run(command + ["--help"])
            #expect(output.status == 0)
            #expect(output.stdout.contains("Examples:\n  ical ui "), "\(command)")
        }
    }
}
