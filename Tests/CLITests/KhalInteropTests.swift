import Foundation
import Testing

/// khal (from PyPI, into .build/khal-venv, test-only) and the store: khal lists what
/// OpenEventKit saved (through `ical`, which acts through EKEventStore), and OpenEventKit
/// reads a folder khal wrote.
@Suite(.serialized) struct KhalInteropTests {
    static let venv = ICalRunner.packageRoot.appendingPathComponent(".build/khal-venv")

    /// khal's executable, installed on first use (retried once).
    static let khal: Result<String, PythonPeers.PeerError> = {
        let khal = venv.appendingPathComponent("bin/khal").path
        if FileManager.default.isExecutableFile(atPath: khal) { return .success(khal) }
        let created = PythonPeers.run("/usr/bin/env", ["python3", "-m", "venv", venv.path])
        guard created.status == 0 else { return .failure(.init("python3 -m venv failed: \(created.stderr)")) }
        for _ in 0..<2 {
            let install = PythonPeers.run(venv.appendingPathComponent("bin/python").path,
                                          ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "khal"])
            if install.status == 0 { return .success(khal) }
        }
        return .failure(.init("pip could not install khal from PyPI"))
    }()

    /// A khal configuration for one calendar folder, in UTC.
    static func configuration(calendar: String, in folder: TemporaryFolder) throws -> String {
        try folder.write("khal.conf", """
            [calendars]
            [[lessons]]
            path = \(calendar)
            type = calendar
            [locale]
            timeformat = %H:%M
            dateformat = %Y-%m-%d
            longdateformat = %Y-%m-%d
            datetimeformat = %Y-%m-%d %H:%M
            longdatetimeformat = %Y-%m-%d %H:%M
            default_timezone = UTC
            local_timezone = UTC
            [sqlite]
            path = \(folder.url.appendingPathComponent("khal.db").path)

            """)
    }

    @Test func khalListsWhatOpenEventKitSaved() throws {
        let khal = try Self.khal.get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let environment = ["OPENEVENTKIT_STORE": store]
        _ = try ICalRunner.run(["privacy", "grant", "org.openeventkit.ical", "--events", "full"], environment: environment)
        var output = try ICalRunner.run(["events", "add", "--title", "Violin", "--start", "2026-12-01T16:00", "--duration", "45m",
                                         "--tz", "Europe/Berlin", "--repeat", "weekly", "--count", "3"], environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        output = try ICalRunner.run(["import", ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path],
                                    environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        let config = try Self.configuration(calendar: store + "/calendar", in: folder)
        let listed = PythonPeers.run(khal, ["-c", config, "list", "--format", "{start} {end} {title}", "--day-format", "", "2026-12-01", "30d"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").map(String.init) == [
            "2026-12-01 15:00 2026-12-01 15:45 Violin",
            "2026-12-07 15:30 2026-12-07 16:15 Piano lesson – grade 3 (Émilie)",
            "2026-12-08 15:00 2026-12-08 15:45 Violin",
            "2026-12-14 15:30 2026-12-14 16:15 Piano lesson – grade 3 (Émilie)",
            "2026-12-15 15:00 2026-12-15 15:45 Violin",
            "2026-12-21 15:30 2026-12-21 16:15 Piano lesson – grade 3 (Émilie)",
        ])
    }

    @Test func openEventKitReadsAFolderKhalWrote() throws {
        let khal = try Self.khal.get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("khal-store")
        let calendar = store.appendingPathComponent("lessons")
        try FileManager.default.createDirectory(at: calendar, withIntermediateDirectories: true)
        let config = try Self.configuration(calendar: calendar.path, in: folder)
        for arguments in [["2026-12-05", "10:00", "11:00", "Khal event"], ["2026-12-24", "Christmas Eve"],
                          ["2026-12-07", "18:00", "19:00", "Weekly khal", "--repeat", "weekly", "--until", "2026-12-28"]] {
            let created = PythonPeers.run(khal, ["-c", config, "new", "-a", "lessons"] + arguments)
            #expect(created.status == 0, "\(created.stderr)")
        }
        let environment = ["OPENEVENTKIT_STORE": store.path]
        _ = try ICalRunner.run(["privacy", "grant", "org.openeventkit.ical", "--events", "full"], environment: environment)
        let output = try ICalRunner.run(["query", "--at", "2026-12", "--format", "csv"], environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        let rows = output.stdout.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",").map(String.init) }
        // khal writes --until 2026-12-28 as UNTIL=20261228 on a 18:00 start: three instances.
        #expect(rows.count == 5)
        #expect(rows.filter { $0.contains("Weekly khal") }.count == 3)
        #expect(rows.contains { $0.contains("Khal event") && $0.contains("2026-12-05T10:00:00+00:00") })
        #expect(rows.contains { $0.contains("Christmas Eve") && $0.contains("2026-12-24") })
        let calendars = try ICalRunner.run(["calendars", "list"], environment: environment)
        #expect(calendars.stdout.contains("lessons"))
    }
}
