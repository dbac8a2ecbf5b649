import Foundation
import OpenEventKitBroker
import Testing

/// `ical run`: the app in its Landlock sandbox, talking to the store's broker; its exit status,
/// its refusals, the system prompt on ical run's terminal, and the samples run sandboxed.
///
/// Each test has its own store and `XDG_DATA_HOME` (the apps' containers) in a temporary
/// folder. The brokers `ical run` starts end on their own 60 s after their last app.
@Suite(.enabled(if: Landlock.abi >= Landlock.requiredABI,
                "ical run needs Landlock ABI \(Landlock.requiredABI) (Linux 6.12 or later); this kernel has ABI \(Landlock.abi)"))
struct RunCommandTests {
    /// A store, a data home for containers, and a folder for other files, all in one
    /// temporary folder (outside every folder the sandbox opens).
    struct World {
        let folder: TemporaryFolder
        var store: String { folder.url.appendingPathComponent("store").path }
        var dataHome: String { folder.url.appendingPathComponent("data").path }
        var environment: [String: String] {
            ["OPENEVENTKIT_STORE": store, "XDG_DATA_HOME": dataHome, "TZ": "Europe/Berlin",
             "OPENEVENTKIT_ICAL": ICalRunner.executable.path]
        }

        init() throws {
            folder = try TemporaryFolder()
            try ical(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"])
            try ical(["calendars", "create", "School"])
            try ical(["calendars", "create", "Lessons"])
            try ical(["import", ICalRunner.packageRoot.appendingPathComponent("samples/calendars/monthly-events.ics").path,
                      "--calendar", "School"])
        }

        @discardableResult
        func ical(_ arguments: [String], expecting status: Int32 = 0, environment extra: [String: String] = [:]) throws -> ICalRunner.Output {
            let output = try ICalRunner.run(arguments, environment: environment.merging(extra) { $1 })
            #expect(output.status == status, "ical \(arguments.joined(separator: " ")): \(output.stdout)\(output.stderr)")
            return output
        }

        func remove() { folder.remove() }
    }

    static let binFolder = ICalRunner.executable.deletingLastPathComponent()
    static func sample(_ name: String) -> String { binFolder.appendingPathComponent(name).path }
    static func manifest(_ name: String) -> String {
        ICalRunner.packageRoot.appendingPathComponent("samples/\(name)/Info.plist").path
    }

    static func shell(_ words: [String]) -> String {
        words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    /// `ical run` with no terminal (a new session, standard input empty), as a service would.
    static func alone(_ arguments: [String], world: World) throws -> ICalRunner.Output {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(["TZ": "Europe/Berlin", "LC_ALL": "C.UTF-8", "ICAL_NOW": "2026-11-22T10:00:00"]) { $1 }
        environment.merge(world.environment) { $1 }
        environment["OPENEVENTKIT_MANIFEST"] = nil
        return try ProgramRunner.run("/usr/bin/setsid", ["-w", ICalRunner.executable.path] + arguments, environment: environment)
    }

    // MARK: Exit status and refusals

    @Test func theAppsExitStatusIsIcalRunsStatus() throws {
        let world = try World()
        defer { world.remove() }
        let failed = try world.ical(["run", "--app", Self.manifest("MonthlyEvents"), "--", "/bin/sh", "-c", "exit 7"], expecting: 7)
        #expect(failed.stderr.isEmpty, "\(failed.stderr)")
        try world.ical(["run", "--app", Self.manifest("MonthlyEvents"), "--", "/bin/sh", "-c", "exit 0"])
    }

    @Test func anOldLandlockIsRefusedWith78AndNothingRuns() throws {
        let world = try World()
        defer { world.remove() }
        let marker = world.folder.url.appendingPathComponent("marker").path
        let output = try world.ical(["run", "--app", Self.manifest("MonthlyEvents"), "--", "/bin/sh", "-c", "touch \(Self.shell([marker]))"],
                                    expecting: 78, environment: [Landlock.abiLimitVariable: "5"])
        #expect(output.stderr.contains("Landlock ABI 5"), "\(output.stderr)")
        #expect(output.stderr.contains("too old"), "\(output.stderr)")
        #expect(output.stderr.contains("Linux 6.12"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the app ran although Landlock is too old")
        // Landlock 0 reads as missing, with the same exit status.
        let missing = try world.ical(["run", "--app", Self.manifest("MonthlyEvents"), "--", "/bin/sh", "-c", "touch \(Self.shell([marker]))"],
                                     expecting: 78, environment: [Landlock.abiLimitVariable: "0"])
        #expect(missing.stderr.contains("not available"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func noProgramIsAUsageError() throws {
        let world = try World()
        defer { world.remove() }
        let output = try world.ical(["run", "--app", Self.manifest("MonthlyEvents")], expecting: 64)
        #expect(output.stderr.contains("name the program to run"), "\(output.stderr)")
        let dashes = try world.ical(["run", "--app", Self.manifest("MonthlyEvents"), "--"], expecting: 64)
        #expect(dashes.stderr.contains("name the program to run"), "\(dashes.stderr)")
    }

    @Test func aMissingProgramIsALaunchError() throws {
        let world = try World()
        defer { world.remove() }
        // Not in PATH, and a path that is not there.
        for missing in ["openeventkit-no-such-app", "/usr/bin/openeventkit-no-such-app"] {
            let output = try world.ical(["run", "--app", Self.manifest("MonthlyEvents"), "--", missing], expecting: 1)
            #expect(output.stderr.hasPrefix("ical run: "), "\(output.stderr)")
            #expect(output.stderr.contains(missing), "\(output.stderr)")
        }
    }

    @Test func aBadManifestIsNamed() throws {
        let world = try World()
        defer { world.remove() }
        let bad = try world.folder.write("Info.plist", "this is not a property list")
        let output = try world.ical(["run", "--app", bad, "--", "/bin/true"], expecting: 1)
        #expect(output.stderr.contains(bad), "\(output.stderr)")
        let absent = world.folder.url.appendingPathComponent("Missing.plist").path
        let missing = try world.ical(["run", "--app", absent, "--", "/bin/true"], expecting: 1)
        #expect(missing.stderr.contains(absent), "\(missing.stderr)")
    }

    @Test func aStoreInsideTheAppsFolderIsRefused() throws {
        let world = try World()
        defer { world.remove() }
        // The app's folder is readable in its sandbox: a store in it would be open to the app.
        let appFolder = world.folder.url.appendingPathComponent("app")
        try FileManager.default.createDirectory(at: appFolder, withIntermediateDirectories: true)
        let program = appFolder.appendingPathComponent("tool").path
        let marker = world.folder.url.appendingPathComponent("marker").path
        try Data("#!/bin/sh\ntouch '\(marker)'\n".utf8).write(to: URL(fileURLWithPath: program))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program)
        let store = appFolder.appendingPathComponent("store").path
        try world.ical(["privacy", "grant", "org.openeventkit.ical", "--events", "full"], environment: ["OPENEVENTKIT_STORE": store])
        let output = try world.ical(["run", "--app", Self.manifest("MonthlyEvents"), "--store", store, "--", program], expecting: 1)
        #expect(output.stderr.contains("store"), "\(output.stderr)")
        #expect(output.stderr.contains("the app's folder"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the app ran with the store in its folder")
    }

    // MARK: The system prompt

    @Test func aRequestShowsThePromptOnIcalRunsTerminalAndAllowIsRecorded() throws {
        let world = try World()
        defer { world.remove() }
        let command = Self.shell([ICalRunner.executable.path, "run", "--app", Self.manifest("MonthlyEvents"), "--",
                                  Self.sample("MonthlyEvents"), "--from", "2026-12-01", "--list"])
        let result = try TerminalDriver.run(command, steps: [.init(waitFor: "[a/d]", type: "a")], environment: world.environment)
        #expect(result.missed.isEmpty, "never shown: \(result.missed)\n\(result.transcript)")
        #expect(result.transcript.contains("Monthly Events lists the coming month"), "the usage description: \(result.transcript)")
        #expect(result.transcript.contains("Allowed."), "\(result.transcript)")
        #expect(result.transcript.contains("Staff meeting  [School]"), "the app lists after Allow: \(result.transcript)")
        #expect(result.status == 0, "\(result.transcript)")
        let status = try world.ical(["privacy", "status", "--app", "org.openeventkit.samples.MonthlyEvents"])
        #expect(status.stdout.contains("events:    fullAccess"), "\(status.stdout)")
    }

    /// On a real terminal (the kernel here still allows TIOCSTI: `dev.tty.legacy_tiocsti`), the
    /// app cannot push keystrokes into the terminal it shares with ical run's prompt: it runs
    /// in a session of its own, so the terminal is not its controlling terminal, and /dev/tty
    /// does not open.
    @Test func theAppCannotTypeIntoIcalRunsTerminal() throws {
        let world = try World()
        defer { world.remove() }
        let manifest = world.folder.url.appendingPathComponent("Info.plist")
        try #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>org.example.typist</string></dict></plist>"#
            .write(to: manifest, atomically: true, encoding: .utf8)
        let script = """
            import fcntl, os, termios
            print("terminal", os.isatty(0))
            try:
                fcntl.ioctl(0, termios.TIOCSTI, b"a"); print("TIOCSTI typed")
            except OSError as error: print("TIOCSTI refused", error.errno)
            try:
                os.open("/dev/tty", os.O_RDWR); print("/dev/tty opened")
            except OSError as error: print("/dev/tty refused", error.errno)
            """
        let command = Self.shell([ICalRunner.executable.path, "run", "--app", manifest.path, "--", "/usr/bin/python3", "-c", script])
        let result = try TerminalDriver.run(command, steps: [], environment: world.environment)
        #expect(result.transcript.contains("terminal True"), "\(result.transcript)")
        #expect(result.transcript.contains("TIOCSTI refused 1"), "\(result.transcript)")
        #expect(result.transcript.contains("/dev/tty refused 6"), "\(result.transcript)")
        #expect(result.status == 0, "\(result.transcript)")
    }

    @Test func withoutATerminalTheRequestIsFalseAndNothingIsRecorded() throws {
        let world = try World()
        defer { world.remove() }
        let output = try Self.alone(["run", "--app", Self.manifest("MonthlyEvents"), "--", Self.sample("MonthlyEvents"),
                                     "--from", "2026-12-01", "--list"], world: world)
        #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.contains("needs full access"), "\(output.stdout)")
        let status = try world.ical(["privacy", "status", "--app", "org.openeventkit.samples.MonthlyEvents"])
        #expect(status.stdout.contains("events:    notDetermined"), "\(status.stdout)")
    }

    // MARK: The samples, sandboxed (what make samples checks, in short)

    @Test func monthlyEventsListsTheSameSandboxedAndDeletesThroughTheBroker() throws {
        let world = try World()
        defer { world.remove() }
        try world.ical(["privacy", "grant", "org.openeventkit.samples.MonthlyEvents", "--events", "full"])
        var environment = ProcessInfo.processInfo.environment.merging(world.environment) { $1 }
        environment["OPENEVENTKIT_MANIFEST"] = nil
        environment["LC_ALL"] = "C.UTF-8"
        let unsandboxed = try ProgramRunner.run(Self.sample("MonthlyEvents"), ["--from", "2026-12-01", "--list"], environment: environment)
        let sandboxed = try Self.alone(["run", "--app", Self.manifest("MonthlyEvents"), "--", Self.sample("MonthlyEvents"),
                                        "--from", "2026-12-01", "--list"], world: world)
        #expect(unsandboxed.status == 0 && sandboxed.status == 0, "\(unsandboxed.stdout)\(sandboxed.stdout)\(sandboxed.stderr)")
        #expect(sandboxed.stdout == unsandboxed.stdout)
        #expect(sandboxed.stdout.contains("Staff meeting  [School]"), "\(sandboxed.stdout)")
        // --delete 1 removes the first occurrence through the broker.
        let deleted = try Self.alone(["run", "--app", Self.manifest("MonthlyEvents"), "--", Self.sample("MonthlyEvents"),
                                      "--from", "2026-12-01", "--delete", "1"], world: world)
        #expect(deleted.status == 0, "\(deleted.stdout)\(deleted.stderr)")
        let after = try ProgramRunner.run(Self.sample("MonthlyEvents"), ["--from", "2026-12-01", "--list"], environment: environment)
        #expect(!after.stdout.contains("Wed 2 Dec 2026 17:00–18:00  Staff meeting"), "\(after.stdout)")
    }

    @Test func dropInLessonsSavesThroughTheEditorOnIcalRunsTerminal() throws {
        let world = try World()
        defer { world.remove() }
        // Sandboxed, the app reads its catalogue from its container, not from samples/.
        let container = URL(fileURLWithPath: world.dataHome).appendingPathComponent("openeventkit-apps/org.openeventkit.samples.DropInLessons")
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let catalogue = container.appendingPathComponent("drop-in-lessons.ics").path
        try FileManager.default.copyItem(atPath: ICalRunner.packageRoot.appendingPathComponent("samples/calendars/drop-in-lessons.ics").path,
                                         toPath: catalogue)
        let command = Self.shell([ICalRunner.executable.path, "run", "--app", Self.manifest("DropInLessons"), "--",
                                  Self.sample("DropInLessons"), "--book", "2", "--lessons", catalogue])
        let result = try TerminalDriver.run(command, steps: [
            .init(waitFor: "> ", type: "1"), .init(waitFor: "keeps it", type: "Sandboxed sight-reading"),
            .init(waitFor: "> ", type: "s"),
        ], environment: world.environment)
        #expect(result.missed.isEmpty, "never shown: \(result.missed)\n\(result.transcript)")
        #expect(result.transcript.contains("wants to add an event to your calendar"), "\(result.transcript)")
        #expect(result.transcript.contains("Saved to your calendar."), "\(result.transcript)")
        #expect(result.transcript.contains("Events DropInLessons can read around that day: 0."), "\(result.transcript)")
        #expect(result.status == 0, "\(result.transcript)")
        let query = try world.ical(["query", "--at", "2026-12-10"])
        #expect(query.stdout.contains("Sandboxed sight-reading"), "\(query.stdout)")
        // No terminal: the editor cancels, nothing is saved.
        let alone = try Self.alone(["run", "--app", Self.manifest("DropInLessons"), "--", Self.sample("DropInLessons"),
                                    "--book", "1", "--lessons", catalogue], world: world)
        #expect(alone.status == 0 || alone.status == 1, "\(alone.stdout)\(alone.stderr)")
        let none = try world.ical(["query", "--at", "2026-12-03"])
        #expect(!none.stdout.contains("jazz harmony"), "\(none.stdout)")
    }

    @Test func monthlyEventsHearsAnotherProgramsChangeThroughTheBroker() throws {
        let world = try World()
        defer { world.remove() }
        try world.ical(["privacy", "grant", "org.openeventkit.samples.MonthlyEvents", "--events", "full"])
        let add = Self.shell([ICalRunner.executable.path, "events", "add", "--title", "Extra rehearsal", "--start", "2026-12-22T18:00",
                              "--tz", "Europe/Berlin", "--calendar", "School"])
        // Another program adds an event 3 s after the app starts, while it waits for an answer.
        let command = "(sleep 3; " + add + " > /dev/null) & "
            + Self.shell([ICalRunner.executable.path, "run", "--app", Self.manifest("MonthlyEvents"), "--",
                          Self.sample("MonthlyEvents"), "--from", "2026-12-01"])
        let result = try TerminalDriver.run(command, steps: [.init(waitFor: "Extra rehearsal  [School]", type: "")],
                                            environment: world.environment)
        #expect(result.missed.isEmpty, "never shown: \(result.missed)\n\(result.transcript)")
        #expect(result.transcript.contains("The calendar changed (EKEventStoreChanged):"), "\(result.transcript)")
        #expect(result.status == 0, "\(result.transcript)")
    }
}
