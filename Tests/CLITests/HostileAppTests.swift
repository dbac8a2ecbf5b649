import Foundation
import Testing

/// The products built beside `ical` (swift build builds every executable target).
private enum Products {
    static var folder: URL { ICalRunner.executable.deletingLastPathComponent() }
    static var hostile: String { folder.appendingPathComponent("hostile-app").path }
    static var monthly: String { folder.appendingPathComponent("MonthlyEvents").path }

    /// The kernel's Landlock ABI, as the hostile app reads it (0 when it cannot run).
    static let landlockABI: Int = {
        guard FileManager.default.isExecutableFile(atPath: hostile),
            let output = try? ProgramRunner.run(hostile, ["--abi"]) else { return 0 }
        return Int(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }()
}

/// A store with events and reminders, its broker (started here, so its pid is known), and the
/// environment `ical run` gets.
/// Progress on standard error (the runs take tens of seconds).
private func progress(_ text: String) { FileHandle.standardError.write(Data("HostileAppTests: \(text)\n".utf8)) }

private final class HostileWorld {
    let folder: TemporaryFolder
    let store: String
    let environment: [String: String]
    let broker: Process
    let calendar: String
    let event: String

    init(hostileLevel: String?) throws {
        folder = try TemporaryFolder()
        store = folder.url.appendingPathComponent("store").path
        let home = folder.url.appendingPathComponent("home").path
        environment = [
            "HOME": home, "XDG_DATA_HOME": home + "/.local/share", "OPENEVENTKIT_STORE": store,
            "TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "ICAL_NOW": "2026-11-22T10:00:00",
        ]
        let sample = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/monthly-events.ics").path
        for arguments in [
            ["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"],
            ["import", sample],
            ["query"],   // the index exists before the hashes are taken
            ["privacy", "grant", "org.openeventkit.samples.MonthlyEvents", "--events", "full"],
        ] {
            let output = try ICalRunner.run(arguments + ["--store", store], environment: environment)
            #expect(output.status == 0, "ical \(arguments.joined(separator: " ")): \(output.stderr)")
        }
        if let hostileLevel {
            let output = try ICalRunner.run(["privacy", "grant", "org.openeventkit.tests.HostileApp", "--events", hostileLevel, "--store", store],
                                            environment: environment)
            #expect(output.status == 0, "\(output.stderr)")
        }
        calendar = "calendar"
        let folderPath = store + "/calendar"
        let names = try FileManager.default.contentsOfDirectory(atPath: folderPath).filter { $0.hasSuffix(".ics") }.sorted()
        let events = names.filter { name in
            ((try? String(contentsOfFile: folderPath + "/" + name, encoding: .utf8)) ?? "").contains("BEGIN:VEVENT")
        }
        guard let first = events.first else { throw CocoaError(.fileReadNoSuchFile) }
        event = first

        // The broker, started here with a long idle time: ical run finds it by its socket.
        broker = Process()
        broker.executableURL = ICalRunner.executable
        broker.arguments = ["broker", "--store", store, "--idle-timeout", "300"]
        broker.environment = environment
        broker.standardInput = FileHandle.nullDevice
        broker.standardOutput = FileHandle.nullDevice
        broker.standardError = FileHandle.nullDevice
        try broker.run()
        let deadline = Date().addingTimeInterval(20)
        while !brokerListening() {
            guard Date() < deadline, broker.isRunning else { throw CocoaError(.fileReadUnknown) }
            usleep(20_000)   // polling /proc/net/unix: the broker has no readiness pipe
        }
    }

    var identity: (dev: UInt64, ino: UInt64) {
        var info = stat()
        _ = stat(store, &info)
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    var address: String { "org.openeventkit.broker/\(getuid())/\(identity.dev)-\(identity.ino)" }

    func brokerListening() -> Bool {
        // procfs files report size 0: read to the end rather than by size.
        guard let handle = FileHandle(forReadingAtPath: "/proc/net/unix") else { return false }
        defer { try? handle.close() }
        let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return table.contains("@" + address)
    }

    /// Every file under the store (hidden ones too) with its bytes.
    func hashes() -> [String: Data] {
        var result: [String: Data] = [:]
        let root = URL(fileURLWithPath: store)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                let data = try? Data(contentsOf: url) else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            result[relative] = data
        }
        return result
    }

    func hostileArguments(phase: String, level: String) -> [String] {
        [Products.hostile, "--phase", phase, "--store", store, "--store-dev", String(identity.dev), "--store-ino", String(identity.ino),
         "--broker-pid", String(broker.processIdentifier), "--ical", ICalRunner.executable.path,
         "--calendar", calendar, "--event", event, "--title", "Student recital day", "--level", level]
    }

    /// `ical run` in a new session (no controlling terminal), standard input a pipe.
    func launch(manifest: String, _ program: [String]) throws -> RunningApp {
        try RunningApp(["--wait", ICalRunner.executable.path, "run", "--app", manifest, "--store", store, "--"] + program, environment: environment)
    }

    /// The honest app: MonthlyEvents lists December's events through the broker.
    func honestRun() throws -> ICalRunner.Output {
        let app = try launch(manifest: ICalRunner.packageRoot.appendingPathComponent("samples/MonthlyEvents/Info.plist").path,
                             [Products.monthly, "--list", "--from", "2026-12-01"])
        app.closeInput()
        return app.wait()
    }

    func stop() {
        // SIGKILL: the broker may have SIGTERM blocked (a signal mask inherited from this
        // test process, which posix_spawn passes on).
        if broker.isRunning { kill(broker.processIdentifier, SIGKILL) }
        broker.waitUntilExit()
        folder.remove()
    }
}

/// A running `setsid ical run …`, its output read line by line.
private final class RunningApp: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let lock = NSCondition()
    private var lines: [String] = []
    private var stdoutDone = false
    private var errorData = Data()
    private let errorDone = DispatchSemaphore(value: 0)

    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = arguments
        process.environment = environment
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        let reader = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    lock.withLock { lines.append(line); lock.broadcast() }
                }
            }
            lock.withLock { stdoutDone = true; lock.broadcast() }
        }
        let errorReader = error.fileHandleForReading
        Thread.detachNewThread { [self] in
            let data = errorReader.readDataToEndOfFile()
            lock.withLock { errorData = data }
            errorDone.signal()
        }
    }

    /// Waits (bounded) for a line starting with `prefix`; false when the output ended first.
    func waitForLine(_ prefix: String, timeout: Double = 120) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !lines.contains(where: { $0.hasPrefix(prefix) }) {
            if stdoutDone || !lock.wait(until: deadline) { return lines.contains(where: { $0.hasPrefix(prefix) }) }
        }
        return true
    }

    func closeInput() { try? input.fileHandleForWriting.close() }

    func wait() -> ICalRunner.Output {
        closeInput()
        process.waitUntilExit()
        _ = waitForLine("\u{0}", timeout: 30)   // until the output's end
        errorDone.wait()
        return lock.withLock {
            ICalRunner.Output(status: process.terminationStatus, stdout: lines.joined(separator: "\n") + "\n",
                              stderr: String(decoding: errorData, as: UTF8.self))
        }
    }
}

private let landlockReady = Products.landlockABI >= 6

@Suite("A hostile app under ical run", .serialized,
       .enabled(if: landlockReady, "Landlock ABI \(Products.landlockABI) on this kernel (or hostile-app not built); ical run needs ABI 6"))
struct HostileAppTests {
    private static let manifest = ICalRunner.packageRoot.appendingPathComponent("Tests/HostileApp/Info.plist").path

    /// The ATTEMPT lines of a run: every one held, and how many there were.
    private func expectAllHeld(_ output: ICalRunner.Output, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let attempts = output.stdout.split(separator: "\n").filter { $0.hasPrefix("ATTEMPT ") }
        for line in attempts where !line.contains(" held ") {
            Issue.record("\(line)", sourceLocation: sourceLocation)
        }
        #expect(output.stdout.contains(" escaped 0\n"), "\(output.stdout)\n\(output.stderr)", sourceLocation: sourceLocation)
        return attempts.count
    }

    private func expectHonestServed(_ world: HostileWorld, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let honest = try world.honestRun()
        #expect(honest.status == 0, "\(honest.stderr)", sourceLocation: sourceLocation)
        #expect(honest.stdout.contains("Student recital day"), "\(honest.stdout)", sourceLocation: sourceLocation)
    }

    @Test("Under write-only access: every escape holds; only the one allowed event appears; the broker serves on",
          .timeLimit(.minutes(5)))
    func writeOnlyHostileApp() throws {
        let world = try HostileWorld(hostileLevel: "write-only")
        defer { world.stop() }
        let before = world.hashes()
        #expect(before[".openeventkit/authorizations.json"] != nil)
        #expect(before.keys.contains { $0.hasPrefix(".openeventkit/index") })

        // The main phase; the honest app runs during the flood.
        progress("store ready, broker \(world.broker.processIdentifier)")
        let hostile = try world.launch(manifest: Self.manifest, world.hostileArguments(phase: "main", level: "write-only"))
        #expect(hostile.waitForLine("FLOOD started"))
        progress("flood started")
        try expectHonestServed(world)
        progress("honest app served during the flood")
        let output = hostile.wait()
        progress("main phase ended")
        var count = expectAllHeld(output)
        #expect(output.status == 0, "\(output.stderr)")

        // The destructive wire attacks, one run each; the broker serves the honest app after each.
        for phase in ["before-hello", "version", "garbage", "oversized"] {
            let run = try world.launch(manifest: Self.manifest, world.hostileArguments(phase: phase, level: "write-only")).wait()
            count += expectAllHeld(run)
            try expectHonestServed(world)
            progress("phase \(phase) done")
        }
        // A frame cut short, then silence: the honest app is served while it hangs.
        let silent = try world.launch(manifest: Self.manifest, world.hostileArguments(phase: "truncated", level: "write-only"))
        #expect(silent.waitForLine("SILENT"))
        try expectHonestServed(world)
        count += expectAllHeld(silent.wait())

        #expect(count >= 30, "only \(count) attempts")
        #expect(world.broker.isRunning)
        try expectHonestServed(world)

        // Byte-identical, but for the event the app was allowed to add (and the index that
        // records it).
        let after = world.hashes()
        let isIndex: (String) -> Bool = { $0.hasPrefix(".openeventkit/index") }
        let added = Set(after.keys).subtracting(before.keys).filter { !isIndex($0) }
        #expect(added.count == 1, "\(added.sorted())")
        if let new = added.first {
            #expect(new.hasPrefix(world.calendar + "/"))
            let text = try String(contentsOfFile: world.store + "/" + new, encoding: .utf8)
            #expect(text.contains("SUMMARY:HOSTILE-ADDED"))
            #expect(!text.contains("VTODO"))
        }
        for (name, hash) in before where !isIndex(name) {
            #expect(after[name] == hash, "\(name) changed or vanished")
        }
    }

    @Test("With no access at all: every escape holds and nothing in the store changes", .timeLimit(.minutes(5)))
    func noAccessHostileApp() throws {
        let world = try HostileWorld(hostileLevel: nil)
        defer { world.stop() }
        let before = world.hashes()
        let hostile = try world.launch(manifest: Self.manifest, world.hostileArguments(phase: "main", level: "none"))
        #expect(hostile.waitForLine("FLOOD started"))
        try expectHonestServed(world)
        let output = hostile.wait()
        #expect(expectAllHeld(output) >= 30)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(world.broker.isRunning)
        try expectHonestServed(world)
        // Byte-identical, but for the index's files: the broker refreshes the index for the
        // honest app's queries meanwhile (the hostile app's own writes to it are attempts
        // that must hold, above).
        let after = world.hashes()
        let isIndex: (String) -> Bool = { $0.hasPrefix(".openeventkit/index") }
        #expect(Set(after.keys) == Set(before.keys), "\(Set(after.keys).symmetricDifference(before.keys).sorted())")
        let changed = before.filter { !isIndex($0.key) && after[$0.key] != $0.value }.keys.sorted()
        #expect(changed.isEmpty, "changed: \(changed)")
        let authorizations = try String(contentsOfFile: world.store + "/.openeventkit/authorizations.json", encoding: .utf8)
        #expect(!authorizations.contains("HostileApp"))
    }
}
