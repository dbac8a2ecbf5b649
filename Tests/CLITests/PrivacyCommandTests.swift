import Foundation
import Testing

/// `ical privacy`: the Settings screen, run as the built binary with a pinned clock
/// (ICAL_NOW=2026-11-22T10:00:00) and a fresh store folder each.
@Suite struct PrivacyCommandTests {
    private func run(_ arguments: [String], store: String, environment: [String: String] = [:]) throws -> ICalRunner.Output {
        try ICalRunner.run(["privacy"] + arguments + ["--store", store], environment: environment)
    }

    @Test func grantRestrictRevokeResetAndStatus() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path

        var output = try run(["status"], store: store)
        #expect(output.status == 0)
        #expect(output.stdout == "No app has asked for access yet.\n")
        #expect(!FileManager.default.fileExists(atPath: store), "status creates nothing")

        output = try run(["grant", "org.example.lessons", "--events", "write-only"], store: store)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "org.example.lessons: events writeOnly\n")
        output = try run(["grant", "org.example.planner", "--events", "full", "--reminders", "full"], store: store)
        #expect(output.stdout == "org.example.planner: events fullAccess, reminders fullAccess\n")
        output = try run(["restrict", "org.example.game"], store: store)
        #expect(output.stdout == "org.example.game: restricted\n")
        output = try run(["revoke", "org.example.planner", "--reminders"], store: store)
        #expect(output.stdout == "org.example.planner: reminders denied\n")

        output = try run(["status"], store: store)
        #expect(output.status == 0)
        #expect(output.stderr == "")
        #expect(output.stdout == """
            org.example.game
              events:    restricted by policy
              reminders: restricted by policy
            org.example.lessons
              events:    writeOnly (settings, 2026-11-22T10:00:00Z)
              reminders: notDetermined
            org.example.planner
              events:    fullAccess (settings, 2026-11-22T10:00:00Z)
              reminders: denied (settings, 2026-11-22T10:00:00Z)

            """)

        output = try run(["status", "--app", "org.example.unknown"], store: store)
        #expect(output.stdout == "org.example.unknown\n  events:    notDetermined\n  reminders: notDetermined\n")

        output = try run(["grant", "org.example.game", "--events", "full"], store: store)
        #expect(output.status == 0)
        #expect(output.stderr.contains("org.example.game is restricted by policy"))
        output = try run(["status", "--app", "org.example.game"], store: store)
        #expect(output.stdout.contains("events:    restricted by policy (fullAccess while unrestricted)"))
        output = try run(["unrestrict", "org.example.game"], store: store)
        #expect(output.stdout == "org.example.game: not restricted\n")

        output = try run(["reset", "org.example.lessons"], store: store)
        #expect(output.stdout == "org.example.lessons: reset; it will be asked again\n")
        output = try run(["revoke", "org.example.lessons"], store: store)
        #expect(output.stdout == "org.example.lessons: events denied, reminders denied\n")
        output = try run(["reset"], store: store)
        #expect(output.stdout == "Reset 3 apps; they will be asked again.\n")
        output = try run(["status"], store: store)
        #expect(output.stdout == "No app has asked for access yet.\n")

        let attributes = try FileManager.default.attributesOfItem(atPath: store + "/.openeventkit/authorizations.json")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func theStoreIsTheOptionElseTheEnvironmentElseTheDefault() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let fromOption = folder.url.appendingPathComponent("option").path
        let fromEnvironment = folder.url.appendingPathComponent("environment").path
        let home = folder.url.appendingPathComponent("home").path
        let environment = ["OPENEVENTKIT_STORE": fromEnvironment, "HOME": home]
        _ = try ICalRunner.run(["privacy", "grant", "org.example.a", "--events", "full", "--store", fromOption], environment: environment)
        _ = try ICalRunner.run(["privacy", "grant", "org.example.b", "--events", "full"], environment: environment)
        _ = try ICalRunner.run(["privacy", "grant", "org.example.c", "--events", "full"], environment: ["HOME": home])
        let inOption = try String(contentsOfFile: fromOption + "/.openeventkit/authorizations.json", encoding: .utf8)
        let inEnvironment = try String(contentsOfFile: fromEnvironment + "/.openeventkit/authorizations.json", encoding: .utf8)
        let inDefault = try String(contentsOfFile: home + "/.local/share/openeventkit/.openeventkit/authorizations.json", encoding: .utf8)
        #expect(inOption.contains("org.example.a") && !inOption.contains("org.example.b"))
        #expect(inEnvironment.contains("org.example.b") && !inEnvironment.contains("org.example.a"))
        #expect(inDefault.contains("org.example.c"))
    }

    @Test func processesGrantingAtOnceLoseNoDecision() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let processes = try (0..<8).map { index -> Process in
            let process = Process()
            process.executableURL = ICalRunner.executable
            process.arguments = ["privacy", "grant", "org.example.app\(index)", "--events", "full", "--store", store]
            process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "ICAL_NOW": "2026-11-22T10:00:00"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let status = try run(["status"], store: store)
        for index in 0..<8 { #expect(status.stdout.contains("org.example.app\(index)\n  events:    fullAccess"), "app\(index)") }
    }

    @Test func badInputIsAClearErrorAndWritesNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path

        var output = try run(["grant", "not a bundle id", "--events", "full"], store: store)
        #expect(output.status == 64)
        #expect(output.stderr.contains("'not a bundle id' is not a bundle identifier"))
        output = try run(["grant", "org.example.lessons"], store: store)
        #expect(output.status == 64)
        #expect(output.stderr.contains("--events full|write-only and/or --reminders full"))
        output = try run(["grant", "org.example.lessons", "--reminders", "write-only"], store: store)
        #expect(output.status == 64)
        #expect(!FileManager.default.fileExists(atPath: store))

        let records = store + "/.openeventkit/authorizations.json"
        try FileManager.default.createDirectory(atPath: store + "/.openeventkit", withIntermediateDirectories: true)
        try Data("{ \"apps\": ".utf8).write(to: URL(fileURLWithPath: records))
        for arguments in [["status"], ["grant", "org.example.lessons", "--events", "full"], ["reset"]] {
            output = try run(arguments, store: store)
            #expect(output.status == 1, "\(arguments)")
            #expect(output.stdout == "")
            #expect(output.stderr.hasPrefix("ical privacy: \(records): the authorizations file is corrupt"), "\(output.stderr)")
            #expect(output.stderr.contains("repair or remove the file"))
        }
        #expect(try String(contentsOfFile: records, encoding: .utf8) == "{ \"apps\": ")
    }

    @Test func helpIsGolden() throws {
        let expected = ICalRunner.packageRoot.appendingPathComponent("Tests/CLITests/Expected/privacy-help.txt")
        let output = try ICalRunner.run(["privacy", "--help"])
        #expect(output.status == 0)
        #expect(output.stdout == (try String(contentsOf: expected, encoding: .utf8)))
        for command in ["status", "grant", "revoke", "reset", "restrict", "unrestrict", "request"] {
            let help = try ICalRunner.run(["privacy", command, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Examples:\n  ical privacy \(command)"), "\(command)")
        }
    }

    // MARK: ical privacy request: the system prompt on a real terminal

    private func manifest(in folder: TemporaryFolder) throws -> String {
        try folder.write("Info.plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>org.example.lessons</string>
            <key>CFBundleDisplayName</key><string>Lessons</string>
            <key>NSCalendarsFullAccessUsageDescription</key><string>Lessons shows your timetable beside your events.</string>
            </dict></plist>
            """)
    }

    /// Runs `ical privacy request` under `script`, which gives it a pseudo-terminal as its
    /// controlling terminal (so the prompt opens /dev/tty), and answers when the question shows.
    private func requestOnTerminal(_ arguments: [String], answer: String) throws -> (status: Int32, transcript: String) {
        let command = ([ICalRunner.executable.path, "privacy", "request"] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["60", "script", "-qec", command, "/dev/null"]
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "ICAL_NOW": "2026-11-22T10:00:00"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var transcript = ""
        var answered = false
        while true {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            transcript += String(decoding: data, as: UTF8.self)
            if !answered && transcript.contains("[a/d] ") {
                input.fileHandleForWriting.write(Data((answer + "\n").utf8))
                answered = true
            }
        }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return (process.terminationStatus, transcript.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    @Test func allowOnTheTerminal() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let plist = try manifest(in: folder)
        let result = try requestOnTerminal(["--app", plist, "--events", "full", "--store", store], answer: "a")
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.transcript.contains("""
            Calendar access request
              App:    Lessons
              ID:     org.example.lessons
              Reason: Lessons shows your timetable beside your events.
            This app would like full access to your calendar.

            """), "\(result.transcript)")
        #expect(result.transcript.contains("Allow or Don't Allow? [a/d] a\nAllowed.\norg.example.lessons: granted (events fullAccess)\n"))
        let status = try run(["status", "--app", "org.example.lessons"], store: store)
        #expect(status.stdout.contains("events:    fullAccess (prompt, 2026-11-22T10:00:00Z)"))
        // Asked again: answered from the record, no prompt.
        let again = try requestOnTerminal(["--app", plist, "--events", "full", "--store", store], answer: "d")
        #expect(again.status == 0)
        #expect(!again.transcript.contains("[a/d]"))
    }

    @Test func dontAllowOnTheTerminal() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let result = try requestOnTerminal(["--app", try manifest(in: folder), "--events", "full", "--store", store], answer: "d")
        #expect(result.status == 1)
        #expect(result.transcript.contains("Not allowed.\norg.example.lessons: not granted (events denied)\n"))
    }

    @Test func withoutATerminalNothingIsAskedOrRecorded() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        // setsid: a new session with no controlling terminal, whatever runs the tests.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", ICalRunner.executable.path, "privacy", "request", "--app", try manifest(in: folder), "--events", "full", "--store", store]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: PipeReader.readAll(output.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(text == "org.example.lessons: not granted (events notDetermined)\n")
        #expect(!FileManager.default.fileExists(atPath: store + "/.openeventkit/authorizations.json"))
    }

    @Test func aMissingUsageKeyIsNamed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let plist = try manifest(in: folder)
        let output = try ICalRunner.run(["privacy", "request", "--app", plist, "--reminders", "full", "--store", folder.url.path + "/store"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("\(plist): the app manifest has no NSRemindersFullAccessUsageDescription"))
        let missing = try ICalRunner.run(["privacy", "request", "--app", folder.url.path + "/none.plist", "--events", "full", "--store", folder.url.path + "/store"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("\(folder.url.path)/none.plist: no app manifest here"))
    }
}
