import Foundation
import GRDB
import Testing

/// Issue 20: calendar text and app manifests are untrusted, and nothing from them reaches the
/// terminal as a control code. A calendar and a manifest carrying every control class go
/// through every human-readable output of the built `ical` (query text, validate, calendars,
/// events, import, privacy status, the guidance for a missing access, the permission prompt
/// and the ui helpers on a pseudo-terminal); none of their control characters arrives. JSON
/// keeps the exact text and iCalendar output loses nothing. CSV writes formula-like cells as
/// they are (the documented choice).
@Suite struct TerminalSafetyTests {
    /// Every class: CSI and OSC 52 (sets the clipboard) sequences, BEL, other C0 controls,
    /// DEL, C1 (U+009B is CSI, U+0085 NEL), the bidirectional override, isolates and marks,
    /// the line and paragraph separators, a tab, and a line feed that starts a fake record.
    static let hostile = "A\u{1B}[31mred \u{1B}]52;c;aGk=\u{07} bel\u{07} c0\u{01}\u{08}\u{0B}\u{0C}\u{1F} del\u{7F}"
        + " csi\u{9B}2J nel\u{85} rlo\u{202E} lri\u{2066} pdi\u{2069} alm\u{061C} lrm\u{200E} ls\u{2028} ps\u{2029}"
        + " tab\t lf\nRecord: fake"
    /// The same with a carriage return, which only jCal (and manifests) can carry in a value.
    static let hostileWithCR = hostile + " cr\r Allow or Don't Allow? [a/d]"
    /// How the calendar reader gives a jCal value with a CR back: as a line feed.
    static let hostileWithCRAsRead = hostileWithCR.replacingOccurrences(of: "\r", with: "\n")

    /// What each class looks like once shown.
    static let visibleMarks = ["\\u{1B}[31mred", "\\u{1B}]52;c;aGk=\\u{07}", "\\u{9B}2J", "\\u{7F}", "\\u{202E}",
                               "\\u{2066}", "\\u{2028}", "\\u{09}", "\\u{0A}Record: fake"]

    /// An iCalendar TEXT value.
    static func text(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ";", with: "\\;")
            .replacingOccurrences(of: ",", with: "\\,").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Two events: the hostile one, and one whose cells look like spreadsheet formulas.
    static let calendar = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Tests//EN",
        "BEGIN:VEVENT", "UID:uid-" + hostile.replacingOccurrences(of: "\n", with: ""), "DTSTAMP:20261101T000000Z",
        "DTSTART:20261201T160000Z", "DTEND:20261201T170000Z",
        "SUMMARY:" + text(hostile), "LOCATION:" + text(hostile), "DESCRIPTION:" + text(hostile), "END:VEVENT",
        "BEGIN:VEVENT", "UID:-2+3", "DTSTAMP:20261101T000000Z", "DTSTART:20261202T160000Z", "DTEND:20261202T170000Z",
        "SUMMARY:=HYPERLINK(\"https://example.com/?q=1\"\\,\"open\")", "LOCATION:@SUM(A1:A9)", "DESCRIPTION:+cmd|' /C calc'!A0",
        "END:VEVENT",
        "X-NO-COLON " + hostile.replacingOccurrences(of: "\n", with: ""),
        "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    /// A jCal calendar whose event's summary and location hold a carriage return too.
    static func jCal() throws -> String {
        let value = String(decoding: try JSONSerialization.data(withJSONObject: hostileWithCR, options: .fragmentsAllowed), as: UTF8.self)
        return """
            ["vcalendar",[["version",{},"text","2.0"],["prodid",{},"text","-//Tests//EN"]],[["vevent",[\
            ["uid",{},"text","cr-1"],["dtstamp",{},"date-time","2026-11-01T00:00:00Z"],\
            ["dtstart",{},"date-time","2026-12-03T16:00:00Z"],["dtend",{},"date-time","2026-12-03T17:00:00Z"],\
            ["summary",{},"text",\(value)],["location",{},"text",\(value)]],[]]]]
            """
    }

    /// A binary property list (XML cannot carry C0 controls) whose name, identifier and usage
    /// strings carry every class, CR included.
    static func manifest(in folder: TemporaryFolder) throws -> String {
        let list: [String: Any] = [
            "CFBundleIdentifier": "org.example.evil" + hostileWithCR,
            "CFBundleDisplayName": "Evil" + hostileWithCR,
            "NSCalendarsFullAccessUsageDescription": "Because\u{1B}[2J\rAllowed.\n" + hostileWithCR
                + String(repeating: "\nline", count: 40) + String(repeating: "x", count: 3000),
            "NSCalendarsWriteOnlyAccessUsageDescription": "Write" + hostileWithCR,
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: list, format: .binary, options: 0)
        let path = folder.url.appendingPathComponent("Info.plist").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Fails on any control character but the line feed (no CR, no tab), any C1 control, any
    /// bidirectional control or separator.
    static func expectNoControls(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bad = text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x0A: false
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
        #expect(bad.isEmpty, "\(what): \(bad.map { "U+" + String($0.value, radix: 16, uppercase: true) })",
                sourceLocation: sourceLocation)
    }

    static func expectVisible(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for mark in visibleMarks {
            #expect(text.contains(mark), "\(what) does not show \(mark)", sourceLocation: sourceLocation)
        }
    }

    /// No line starts like a record of its own (`Record: fake` stays on its line), and no line
    /// but the prompt's own asks its question.
    static func expectNoFakeRecord(_ text: String, _ what: String, questions: Int = 0,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(!lines.contains { $0.hasPrefix("Record") }, "\(what): \(text)", sourceLocation: sourceLocation)
        #expect(lines.filter { $0.hasPrefix("Allow or Don't Allow?") }.count == questions, "\(what): \(text)",
                sourceLocation: sourceLocation)
    }

    private func ical(_ arguments: [String], environment: [String: String] = [:]) throws -> ICalRunner.Output {
        try ICalRunner.run(arguments, environment: environment)
    }

    /// Runs `ical` in a new session with no controlling terminal (setsid), so no prompt can show
    /// whatever terminal runs the tests.
    private func withoutTerminal(_ arguments: [String]) throws -> ICalRunner.Output {
        try ProgramRunner.run("/usr/bin/setsid", ["--wait", ICalRunner.executable.path] + arguments,
                              environment: ["TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin",
                                            "ICAL_NOW": "2026-11-22T10:00:00"])
    }

    // MARK: Files

    @Test func queryTextShowsEveryControlVisiblyAndJSONKeepsItExact() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ics = try folder.write("hostile.ics", Self.calendar)
        let jcal = try folder.write("hostile.json", try Self.jCal())

        let text = try ical(["query", "--at", "2026-12", ics, jcal])
        #expect(text.status == 0, "\(text.stderr)")
        Self.expectNoControls(text.stdout, "query text")
        Self.expectNoControls(text.stderr, "query diagnostics")
        Self.expectVisible(text.stdout, "query text")
        Self.expectNoFakeRecord(text.stdout, "query text")
        #expect(text.stdout.contains("\\u{0A} Allow or Don't Allow? [a/d]"))
        #expect(text.stderr.contains("X-NO-COLON"), "the diagnostic quotes the line: \(text.stderr)")
        // One line per occurrence (and a heading and a blank line per day).
        #expect(text.stdout.split(separator: "\n", omittingEmptySubsequences: false).count == 9, "\(text.stdout)")

        let json = try ical(["query", "--at", "2026-12", "--format", "json", ics, jcal])
        #expect(json.status == 0)
        Self.expectNoControls(json.stdout, "query json")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["summary"] as? String } == [Self.hostile, "=HYPERLINK(\"https://example.com/?q=1\",\"open\")", Self.hostileWithCRAsRead])
        #expect(objects[0]["uid"] as? String == "uid-" + Self.hostile.replacingOccurrences(of: "\n", with: ""))
        #expect(objects[2]["location"] as? String == Self.hostileWithCRAsRead)
    }

    @Test func iCalendarOutputIsLossless() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ics = try folder.write("hostile.ics", Self.calendar)
        let jcal = try folder.write("hostile.json", try Self.jCal())
        for arguments in [["query", "--at", "2026-12", "--format", "ics", ics, jcal], ["convert", ics, "--to", "ics"]] {
            let output = try ical(arguments)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains("SUMMARY:" + Self.text(Self.hostile).prefix(40)), "raw bytes kept: \(arguments)")
            let copy = try folder.write("copy.ics", output.stdout)
            let json = try ical(["query", "--at", "2026-12", "--format", "json", copy])
            let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(objects.first?["summary"] as? String == Self.hostile, "\(arguments)")
            #expect(objects.first?["location"] as? String == Self.hostile, "\(arguments)")
            if arguments[0] == "query" { #expect(objects.last?["summary"] as? String == Self.hostileWithCRAsRead) }
        }
        // jCal and the JSON summary keep the exact text too.
        let jcalOut = try ical(["convert", ics, "--to", "jcal"])
        Self.expectNoControls(jcalOut.stdout, "jCal output")
        let back = try folder.write("back.json", jcalOut.stdout)
        let json = try ical(["query", "--at", "2026-12", "--format", "json", back])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(objects.first?["summary"] as? String == Self.hostile)
    }

    @Test func validateAndConvertDiagnosticsQuoteSafely() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write("evil\u{1B}[2J\u{202E}\nname.ics", Self.calendar)
        let validate = try ical(["validate", path])
        #expect(validate.status == 1)
        Self.expectNoControls(validate.stdout, "validate")
        Self.expectNoControls(validate.stderr, "validate stderr")
        #expect(validate.stdout.contains("evil\\u{1B}[2J\\u{202E}\\u{0A}name.ics:22: error: [syntax]"), "\(validate.stdout)")
        Self.expectNoFakeRecord(validate.stdout, "validate")
        let folderRun = try ical(["validate", folder.url.path])
        Self.expectNoControls(folderRun.stdout + folderRun.stderr, "validate of a folder")

        let convert = try ical(["convert", path, "--to", "json"])
        Self.expectNoControls(convert.stderr, "convert diagnostics")
        Self.expectNoControls(convert.stdout, "convert json")
        let strict = try ical(["query", "--strict", "--at", "2026-12", path])
        #expect(strict.status == 1)
        Self.expectNoControls(strict.stderr, "strict query")
    }

    // MARK: CSV

    /// The documented choice: CSV is data, so formula-like cells are written exactly as they
    /// are (no `'` prefix); only RFC 4180 quoting applies.
    @Test func csvWritesFormulaLikeCellsAsTheyAre() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ics = try folder.write("hostile.ics", Self.calendar)
        let query = try ical(["query", "--at", "2026-12-02", "--format", "csv", ics])
        #expect(query.status == 0)
        #expect(query.stdout.contains("\r\n-2+3,,\"=HYPERLINK(\"\"https://example.com/?q=1\"\",\"\"open\"\")\",2026-12-02T16:00:00+00:00,"
            + "2026-12-02T17:00:00+00:00,false,UTC,VEVENT,@SUM(A1:A9),,"), "\(query.stdout)")
        let convert = try ical(["convert", ics, "--to", "csv"])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(convert.stdout.contains(",@SUM(A1:A9),"), "\(convert.stdout)")
        #expect(convert.stdout.contains("+cmd|' /C calc'!A0"), "\(convert.stdout)")
        #expect(convert.stdout.contains("\n-2+3,") || convert.stdout.contains(",-2+3,"), "\(convert.stdout)")
        #expect(!convert.stdout.contains("'=") && !convert.stdout.contains("'@"))
    }

    // MARK: The store

    @Test func storeOutputsShowEveryControlVisibly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["OPENEVENTKIT_STORE": folder.url.appendingPathComponent("store").path]
        func run(_ arguments: [String]) throws -> ICalRunner.Output {
            let output = try ical(arguments, environment: environment)
            Self.expectNoControls(output.stdout, "ical \(arguments.first ?? "") stdout")
            Self.expectNoControls(output.stderr, "ical \(arguments.first ?? "") stderr")
            Self.expectNoFakeRecord(output.stdout + output.stderr, "ical \(arguments)")
            return output
        }
        _ = try run(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"])
        let title = "Cal " + Self.hostileWithCR
        let created = try run(["calendars", "create", title])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("\\u{1B}]52;c;aGk=\\u{07}"))
        let ics = try folder.write("hostile.ics", Self.calendar)
        let imported = try run(["import", ics, "--calendar", title])
        #expect(imported.status == 0, "\(imported.stderr)")
        let list = try run(["calendars", "list"])
        #expect(list.status == 0)
        Self.expectVisible(list.stdout, "calendars list")
        #expect(list.stdout.split(separator: "\n").count == 3, "one line per calendar: \(list.stdout)")
        #expect(list.stdout.contains("cr\\u{0D} Allow or Don't Allow? [a/d]\n"))
        let query = try run(["query", "--at", "2026-12"])
        #expect(query.status == 0, "\(query.stderr)")
        Self.expectVisible(query.stdout, "store query")
        let missing = try run(["query", "--at", "2026-12", "--calendar", "none\u{1B}[2J"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("'none\\u{1B}[2J'"), "\(missing.stderr)")

        let added = try run(["events", "add", "--title", Self.hostileWithCR, "--location", Self.hostile,
                             "--start", "2026-12-05T10:00", "--calendar", title])
        #expect(added.status == 0, "\(added.stderr)")
        let identifier = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let removed = try run(["events", "remove", identifier])
        #expect(removed.status == 0, "\(removed.stderr)")
        let unknown = try run(["events", "remove", "x/\u{1B}]52;c;aGk=\u{07}.ics"])
        #expect(unknown.status == 1)
        let removedCalendar = try run(["calendars", "remove", title])
        #expect(removedCalendar.status == 0, "\(removedCalendar.stderr)")
    }

    /// The query index's rendered weeks (bytes written ahead, kept in the index file or
    /// beside it) are copied to files and pipes, never to a terminal: a query on a terminal
    /// writes every value escaped as it goes, so even a tampered rendering sends no control
    /// sequence there.
    @Test func aTerminalQueryNeverCopiesRenderedBytes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        _ = try ical(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--store", store])
        let ics = try folder.write("lesson.ics", [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Tests//EN", "BEGIN:VEVENT", "UID:lesson-1",
            "DTSTAMP:20261101T000000Z", "DTSTART:20261201T160000Z", "DTEND:20261201T170000Z",
            "SUMMARY:Violin lesson", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n"))
        #expect(try ical(["import", ics, "--store", store]).status == 0)
        let piped = try ical(["query", "--at", "2026-12", "--store", store])
        #expect(piped.stdout.contains("Violin lesson"), "\(piped.stdout)")

        // The renderings of the index, changed as only someone writing its files could (a
        // week in its row, or from 256 KiB on in a file of its own).
        let indexPath = store + "/.openeventkit/index.sqlite"
        let original = Array("Violin".utf8), hostile = Array("\u{1B}[31mX".utf8)
        var changed = 0
        func replaced(_ bytes: [UInt8]) -> [UInt8] {
            var result: [UInt8] = [], index = 0
            while index < bytes.count {
                if bytes[index...].starts(with: original) {
                    result += hostile
                    index += original.count
                    changed += 1
                } else {
                    result.append(bytes[index])
                    index += 1
                }
            }
            return result
        }
        let index = try DatabaseQueue(path: indexPath)
        try index.write { db in
            for row in try Row.fetchAll(db, sql: "SELECT rowid, file, bytes FROM rendering") {
                if let file = row["file"] as String? {
                    let url = URL(fileURLWithPath: indexPath + "-renderings/" + file)
                    try Data(replaced([UInt8](try Data(contentsOf: url)))).write(to: url)
                } else {
                    let bytes = [UInt8]((row["bytes"] as Data?) ?? Data())
                    try db.execute(sql: "UPDATE rendering SET bytes = ? WHERE rowid = ?",
                                   arguments: [Data(replaced(bytes)), row["rowid"] as Int64])
                }
            }
        }
        try index.close()
        #expect(changed > 0, "the pipe's query rendered its weeks")
        // To a pipe the rendering is copied (this is what was changed)...
        #expect(try ical(["query", "--at", "2026-12", "--store", store]).stdout.contains("\u{1B}[31mX lesson"))
        // ...on a terminal every value is written from the cached rows, escaped.
        let terminal = try TerminalDriver.run(
            ([ICalRunner.executable.path, "query", "--at", "2026-12", "--store", store])
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " "),
            steps: [])
        #expect(terminal.status == 0, "\(terminal.transcript)")
        #expect(terminal.transcript.contains("Violin lesson"), "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("\u{1B}[31m"), "\(terminal.transcript)")
    }

    // MARK: The manifest: guidance, privacy status and the prompt

    @Test func theGuidanceAndPrivacyStatusShowTheManifestSafely() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let plist = try Self.manifest(in: folder)
        // No terminal: nothing is asked; the guidance quotes the app's name and usage string.
        let query = try withoutTerminal(["query", "--at", "2026-12", "--store", store, "--app", plist])
        #expect(query.status == 77)
        Self.expectNoControls(query.stdout + query.stderr, "guidance")
        Self.expectNoFakeRecord(query.stderr, "guidance")
        #expect(query.stderr.contains("  Evil"), "\(query.stderr)")
        #expect(query.stderr.split(separator: "\n").count == 3, "\(query.stderr)")
        #expect(query.stderr.contains("Because\\u{1B}[2J\\u{0D}Allowed.\\u{0A}"), "\(query.stderr)")

        let request = try TerminalDriver.run(
            ([ICalRunner.executable.path, "privacy", "request", "--app", plist, "--events", "full", "--store", store])
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " "),
            steps: [.init(waitFor: "[a/d] ", type: "d")])
        #expect(request.missed.isEmpty, "\(request.transcript)")
        let status = try ical(["privacy", "status", "--store", store])
        #expect(status.status == 0)
        Self.expectNoControls(status.stdout + status.stderr, "privacy status")
        Self.expectNoFakeRecord(status.stdout, "privacy status")
        #expect(status.stdout.contains("org.example.evilA\\u{1B}[31mred"), "\(status.stdout)")
    }

    @Test func thePromptShowsTheAppsTextOnItsOwnLinesAndAsksAfterIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let plist = try Self.manifest(in: folder)
        let command = ([ICalRunner.executable.path, "privacy", "request", "--app", plist, "--events", "full", "--store", store])
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try TerminalDriver.run(command, steps: [.init(waitFor: "[a/d] ", type: "a")])
        #expect(result.missed.isEmpty, "\(result.transcript)")
        #expect(result.status == 0, "\(result.transcript)")
        // The pseudo-terminal's own CR LF line ends are removed by the driver: any CR left came from the manifest.
        Self.expectNoControls(result.transcript, "the prompt")
        let lines = result.transcript.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let heading = try #require(lines.firstIndex(of: "Calendar access request"), "\(result.transcript)")
        #expect(lines[heading + 1].hasPrefix("  App:    EvilA\\u{1B}[31mred"))
        #expect(lines[heading + 1].count <= "  App:    ".count + 200)
        #expect(lines[heading + 2].hasPrefix("  ID:     org.example.evilA\\u{1B}[31mred"))
        #expect(lines[heading + 3].hasPrefix("  Reason: Because\\u{1B}[2J\\u{0D}Allowed."))
        // The usage string's own lines are indented under it, ten at most, its length bounded.
        let question = try #require(lines.firstIndex(of: "This app would like full access to your calendar."), "\(result.transcript)")
        let reason = lines[(heading + 4)..<question]
        #expect(reason.allSatisfy { $0.hasPrefix("          ") }, "\(reason)")
        #expect(reason.count == 9, "\(reason)")
        #expect(reason.joined().count <= 1000 + 10 * 10)
        #expect(lines[question + 1] == "Allowing lets it see, change and delete all your events and calendars.")
        #expect(lines[question + 2] == "(change it later with `ical privacy`)")
        #expect(lines[question + 3] == "Allow or Don't Allow? [a/d] a")
        #expect(lines[question + 4] == "Allowed.")
        // Nothing of the app's text after the question but ical's own answer and result.
        Self.expectNoFakeRecord(result.transcript, "the prompt", questions: 1)
    }

    // MARK: The ui helpers

    @Test func theUIHelpersShowTheStoreAndTheAppSafely() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let environment = ["OPENEVENTKIT_STORE": store]
        _ = try ical(["privacy", "grant", "org.openeventkit.ical", "--events", "full"], environment: environment)
        _ = try ical(["privacy", "grant", "org.example.x", "--events", "write-only"], environment: environment)
        let created = try ical(["calendars", "create", "Cal " + Self.hostileWithCR], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let proposal = try folder.write("proposal.ics", Self.calendar)
        func shell(_ words: [String]) -> String {
            words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        }
        let name = "App " + Self.hostileWithCR
        let chooser = try TerminalDriver.run(
            shell([ICalRunner.executable.path, "ui", "choose-calendar", "--app-id", "org.example.x", "--app-name", name, "--store", store])
                + " > /dev/null",
            steps: [.init(waitFor: "> ", type: "")])
        #expect(chooser.missed.isEmpty, "\(chooser.transcript)")
        Self.expectNoControls(chooser.transcript, "choose-calendar")
        Self.expectNoFakeRecord(chooser.transcript, "choose-calendar")
        #expect(chooser.transcript.contains("Cal A\\u{1B}[31mred"), "\(chooser.transcript)")
        #expect(chooser.transcript.contains("“App A\\u{1B}[31mred"), "\(chooser.transcript)")

        let editor = try TerminalDriver.run(
            shell([ICalRunner.executable.path, "ui", "edit-event", "--app-id", "org.example.x", "--app-name", name,
                   "--event", proposal, "--store", store]) + " > /dev/null",
            steps: [.init(waitFor: "> ", type: "8"), .init(waitFor: "(a number)", type: ""), .init(waitFor: "> ", type: "c")])
        #expect(editor.missed.isEmpty, "\(editor.transcript)")
        Self.expectNoControls(editor.transcript, "edit-event")
        Self.expectNoFakeRecord(editor.transcript, "edit-event")
        #expect(editor.transcript.contains("  1  Title      A\\u{1B}[31mred"), "\(editor.transcript)")
        #expect(editor.transcript.contains("  6  Location   A\\u{1B}[31mred"), "\(editor.transcript)")
        #expect(editor.transcript.contains("  7  Notes      A\\u{1B}[31mred"), "\(editor.transcript)")
    }
}
