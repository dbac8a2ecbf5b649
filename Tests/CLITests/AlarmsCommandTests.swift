import Foundation
import Testing

/// `ical alarms` (list, dismiss, snooze) and `ical alarms watch` with `--print` and `--exec`,
/// run as the built binary on files and on a store in a temporary folder. Time is pinned
/// (`ICAL_NOW`) or injected (`--clock-file`): no test waits for a real trigger.
@Suite struct AlarmsCommandTests {
    static let lesson = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:lesson@example.org\r
        DTSTAMP:20261101T000000Z\r
        DTSTART;TZID=Europe/Berlin:20261201T090000\r
        DTEND;TZID=Europe/Berlin:20261201T100000\r
        RRULE:FREQ=DAILY;COUNT=3\r
        SUMMARY:Piano lesson\r
        LOCATION:Room 2\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        DESCRIPTION:Lesson in 10 minutes\r
        TRIGGER:-PT10M\r
        END:VALARM\r
        END:VEVENT\r
        BEGIN:VTODO\r
        UID:homework@example.org\r
        DTSTAMP:20261101T000000Z\r
        DUE:20261201T170000Z\r
        SUMMARY:Homework\r
        BEGIN:VALARM\r
        ACTION:EMAIL\r
        SUMMARY:Homework due\r
        DESCRIPTION:Hand it in\r
        ATTENDEE:mailto:pupil@example.org\r
        TRIGGER;RELATED=END:-PT1H\r
        END:VALARM\r
        END:VTODO\r
        END:VCALENDAR\r

        """

    /// A store in a temporary folder with ical granted full access.
    struct Store {
        let folder: TemporaryFolder
        var path: String { folder.url.appendingPathComponent("store").path }
        var environment: [String: String] { ["OPENEVENTKIT_STORE": path, "TZ": "Europe/Berlin"] }

        init(importing text: String? = nil) throws {
            folder = try TemporaryFolder()
            if let text {
                #expect(try run(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"]).status == 0)
                let file = try folder.write("import.ics", text)
                let imported = try run(["import", file])
                #expect(imported.status == 0, "\(imported.stderr)")
            }
        }

        func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ICalRunner.Output {
            try ICalRunner.run(arguments, environment: environment.merging(extra) { $1 })
        }

        /// The text of every item file of a collection.
        func items(_ collection: String = "calendar") throws -> String {
            let folder = path + "/" + collection
            return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ics") }.sorted()
                .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }.joined()
        }
    }

    // MARK: List

    @Test func listsTriggersOfFilesAsTextJSONAndCSV() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("lesson.ics", Self.lesson)
        let text = try ICalRunner.run(["alarms", "--between", "2026-12-01", "+2d", "--tz", "Europe/Berlin", file])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == """
            2026-12-01 08:50 Tue  Piano lesson (starts 09:00)  DISPLAY: Lesson in 10 minutes
            2026-12-01 17:00 Tue  Homework (due 18:00)  EMAIL: Hand it in
            2026-12-02 08:50 Wed  Piano lesson (starts 09:00)  DISPLAY: Lesson in 10 minutes

            """)

        let json = try ICalRunner.run(["alarms", "--between", "2026-12-01", "+1d", "--format", "json", "--component", "VEVENT", file])
        #expect(json.status == 0, "\(json.stderr)")
        let objects = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(objects.count == 1)
        #expect(objects.first?["trigger"] as? String == "2026-12-01T07:50:00Z")
        #expect(objects.first?["start"] as? String == "2026-12-01T09:00:00+01:00")
        #expect(objects.first?["recurrenceId"] as? String == "2026-12-01T09:00:00+01:00")
        #expect(objects.first?["action"] as? String == "DISPLAY")
        #expect(objects.first?["summary"] as? String == "Piano lesson")
        #expect(objects.first?["key"] as? String == "lesson@example.org|20261201T090000;Europe/Berlin|index:0:-PT10M|1796111400")

        let csv = try ICalRunner.run(["alarms", "--at", "2026-12-01", "--format", "csv", file])
        #expect(csv.status == 0)
        let rows = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.first?.hasPrefix("trigger,triggerUTC,action,description,alarmSummary,repetition") == true)
        #expect(rows.count == 3)
        #expect(rows[2].contains("EMAIL,Hand it in,Homework due,0,false,false"))
    }

    @Test func badInputGetsAWarningWithFileAndLineAndABadWindowExitsWith2() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("bad.ics", Self.lesson.replacingOccurrences(of: "TRIGGER:-PT10M\r\n", with: "TRIGGER:-PT10M\r\nREPEAT:5\r\n"))
        let output = try ICalRunner.run(["alarms", "--at", "2026-12-01", file])
        #expect(output.status == 0)
        #expect(output.stderr.contains("bad.ics:16: warning: REPEAT without DURATION (RFC 5545 §3.6.6 requires both or neither); the alarm triggers once [VALARM REPEAT]"))
        let window = try ICalRunner.run(["alarms", "--at", "someday", file])
        #expect(window.status == 2)
        #expect(window.stderr.contains("someday"))
    }

    // MARK: The store

    @Test func theStoreNeedsFullAccessAndDismissAndSnoozeWriteRFC9074() throws {
        let store = try Store(importing: Self.lesson)
        defer { store.folder.remove() }
        let listed = try store.run(["alarms", "--between", "2026-12-01", "+3d", "--format", "json", "--component", "VEVENT"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let objects = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(objects.count == 3)
        let key = try #require(objects.first?["key"] as? String)
        #expect(objects.first?["source"] as? String == "calendar/lesson@example.org.ics")

        // Dismissed at the pinned now (ICAL_NOW), after the first trigger.
        let now = ["ICAL_NOW": "2026-12-01T07:55:00"]
        let dismissed = try store.run(["alarms", "dismiss", key], environment: now)
        #expect(dismissed.status == 0, "\(dismissed.stderr)")
        #expect(dismissed.stdout.hasPrefix("Dismissed: 2026-12-01 08:50 Tue  Piano lesson"))
        #expect(try store.items().contains("ACKNOWLEDGED:20261201T075500Z"))
        let after = try store.run(["alarms", "--between", "2026-12-01", "+3d", "--component", "VEVENT"])
        #expect(after.stdout.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 2)
        #expect(!after.stdout.contains("2026-12-01 08:50"))

        // Snoozed: a snooze alarm five minutes later (RFC 9074 §7).
        let second = try #require(objects[1]["key"] as? String)
        let snoozed = try store.run(["alarms", "snooze", second, "--for", "5m"], environment: ["ICAL_NOW": "2026-12-02T07:51:00"])
        #expect(snoozed.status == 0, "\(snoozed.stderr)")
        let item = try store.items()
        #expect(item.contains("RELATED-TO;RELTYPE=SNOOZE:"))
        #expect(item.contains("TRIGGER;VALUE=DATE-TIME:20261202T075600Z"))
        let ringing = try store.run(["alarms", "--at", "2026-12-02", "--component", "VEVENT"])
        #expect(ringing.stdout == "2026-12-02 08:56 Wed  Piano lesson (starts 09:00)  DISPLAY: Lesson in 10 minutes [snooze]\n")

        // An unknown key.
        let unknown = try store.run(["alarms", "dismiss", "nothing|x|uid:y|1796111400"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no alarm of the store has the key"))
    }

    @Test func withoutAccessTheStoreSaysHowToGrantIt() throws {
        let store = try Store()
        defer { store.folder.remove() }
        let listed = try store.run(["alarms"])
        #expect(listed.status == 77)
        #expect(listed.stderr.contains("Grant it with: ical privacy grant org.openeventkit.ical --events full"))
        let watch = try store.run(["alarms", "watch", "--print", "--once"])
        #expect(watch.status == 77)
        #expect(watch.stderr.contains("ringing alarms (ical alarms watch) needs full access to events"))
    }

    // MARK: Watch

    @Test func watchOnceRingsWhatIsDueOnceAndLeavesOutWhatIsTooOld() throws {
        let store = try Store(importing: Self.lesson)
        defer { store.folder.remove() }
        let clock = try store.folder.write("clock", "2026-12-02T07:50:30Z")
        let state = store.folder.url.appendingPathComponent("state/fired.json").path
        let arguments = ["alarms", "watch", "--print", "--once", "--clock-file", clock, "--state", state]
        let first = try store.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        // The 2026-12-01 trigger is a day old (more than --catch-up 1h); the EMAIL alarm is not carried out.
        #expect(first.stdout == "2026-12-02 08:50 Wed  Piano lesson (starts 09:00)  DISPLAY: Lesson in 10 minutes\n")
        let second = try store.run(arguments)
        #expect(second.status == 0)
        #expect(second.stdout == "")
        #expect(try String(contentsOfFile: state, encoding: .utf8).contains("1796197800"))

        // With a longer catch-up, the day-old trigger rings (once) too.
        let caught = try store.run(arguments + ["--catch-up", "2d"])
        #expect(caught.stdout == "2026-12-01 08:50 Tue  Piano lesson (starts 09:00)  DISPLAY: Lesson in 10 minutes\n")
        _ = try store.folder.write("clock", "2026-12-01T16:30:00Z")
        let todo = try store.run(["alarms", "watch", "--print", "--once", "--clock-file", clock,
                                  "--state", store.folder.url.appendingPathComponent("other.json").path])
        #expect(todo.stderr.contains("EMAIL alarms are not carried out by ical alarms watch"))
    }

    @Test func watchFollowsTheClockAndStoreChangesAndStopsOnSIGTERM() throws {
        let store = try Store(importing: Self.lesson)
        defer { store.folder.remove() }
        let clock = try store.folder.write("clock", "2026-12-01T07:00:00Z")
        let state = store.folder.url.appendingPathComponent("fired.json").path
        let watch = try Background(["alarms", "watch", "--print", "--clock-file", clock, "--state", state],
                                   environment: store.environment)
        defer { watch.stop() }
        // Nothing is due yet.
        #expect(watch.waitForOutput(lines: 1, seconds: 1) == false)

        // The clock reaches the trigger: it rings.
        _ = try store.folder.write("clock", "2026-12-01T07:50:00Z")
        #expect(watch.waitForOutput(lines: 1, seconds: 10))
        #expect(watch.lines() == ["2026-12-01 08:50 Tue  Piano lesson (starts 09:00)  DISPLAY: Lesson in 10 minutes"])

        // Another program adds an event whose alarm is due now: it rings without a clock change.
        let extra = Self.lesson.replacingOccurrences(of: "lesson@example.org", with: "extra@example.org")
            .replacingOccurrences(of: "Piano lesson", with: "Extra lesson")
            .replacingOccurrences(of: "TRIGGER:-PT10M", with: "TRIGGER:-PT20M")
        let file = try store.folder.write("extra.ics", extra)
        #expect(try store.run(["import", file]).status == 0)
        #expect(watch.waitForOutput(lines: 2, seconds: 10))
        #expect(watch.lines().last == "2026-12-01 08:40 Tue  Extra lesson (starts 09:00)  DISPLAY: Lesson in 10 minutes")

        // SIGTERM ends it cleanly.
        #expect(watch.terminate() == 0)
    }

    @Test func execGetsTheAlarmAsJSONAndTheRateLimitHoldsACalendarBack() throws {
        var body = ""
        for number in 0..<12 {
            body += """
                BEGIN:VEVENT\r
                UID:storm-\(number)@example.org\r
                DTSTAMP:20261101T000000Z\r
                DTSTART:20261201T090000Z\r
                SUMMARY:Storm \(number)\r
                BEGIN:VALARM\r
                ACTION:DISPLAY\r
                DESCRIPTION:now\r
                TRIGGER:PT0S\r
                END:VALARM\r
                END:VEVENT\r

                """
        }
        let store = try Store(importing: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + body + "END:VCALENDAR\r\n")
        defer { store.folder.remove() }
        let clock = try store.folder.write("clock", "2026-12-01T09:00:00Z")
        let received = store.folder.url.appendingPathComponent("received").path
        let output = try store.run(["alarms", "watch", "--once", "--rate-limit", "3", "--clock-file", clock,
                                    "--state", store.folder.url.appendingPathComponent("fired.json").path,
                                    "--exec", "cat >> '\(received)'; echo >> '\(received)'"])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = try String(contentsOfFile: received, encoding: .utf8).components(separatedBy: "\n").filter { !$0.isEmpty }
        #expect(lines.count == 4)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(first?["summary"] as? String == "Storm 0")
        #expect(first?["trigger"] as? String == "2026-12-01T10:00:00+01:00")
        #expect(first?["key"] as? String == "storm-0@example.org||index:0:PT0S|1796115600")
        let summary = try JSONSerialization.jsonObject(with: Data(lines[3].utf8)) as? [String: Any]
        #expect(summary?["heldBack"] as? Int == 9)
    }
}

/// An `ical` process running in the background, its standard output collected line by line.
final class Background {
    private let process: Process
    private let output = LockedText()

    init(_ arguments: [String], environment: [String: String]) throws {
        process = Process()
        process.executableURL = ICalRunner.executable
        process.arguments = arguments
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ical-home-\(UUID().uuidString)")
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "HOME": home.path, "PATH": "/usr/bin:/bin"]
            .merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        let output = self.output
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                output.append(String(decoding: data, as: UTF8.self))
            }
        }
    }

    /// The complete lines written so far.
    func lines() -> [String] {
        Array(output.text.components(separatedBy: "\n").dropLast())
    }

    /// Waits (at most `seconds`) until at least `lines` lines were written.
    func waitForOutput(lines count: Int, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if lines().count >= count { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return lines().count >= count
    }

    /// Sends SIGTERM and returns the exit status (waits at most 10 seconds, then kills).
    func terminate() -> Int32 {
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while Self.isAlive(pid) && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if Self.isAlive(pid) { kill(pid, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether a child is still running (not ended, nor a zombie waiting to be reaped).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    func stop() {
        if process.isRunning { _ = terminate() }
    }
}

/// Text appended by one thread and read by another.
final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ""

    var text: String { lock.withLock { value } }

    func append(_ more: String) { lock.withLock { value += more } }
}
