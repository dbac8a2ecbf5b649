import Foundation
import Testing

/// The access matrix of `ical`'s file commands: every path form that leads into a store,
/// under every status, through every command that takes paths. A refusal exits 77 with the
/// store's own advice and leaves every byte of the store (items, metadata, index) as it was;
/// no process has a terminal, so no prompt is shown (notDetermined reads as "not allowed").
@Suite struct PathGateMatrixTests {
    /// The app's status, as `ical privacy` sets it.
    enum Status: String, CaseIterable, CustomTestStringConvertible {
        case notDetermined, denied, restricted, writeOnly, fullAccess
        var testDescription: String { rawValue }

        /// The `ical privacy` calls that leave the app with this status.
        var privacyCalls: [[String]] {
            let app = "org.openeventkit.ical"
            switch self {
            case .notDetermined: return [["privacy", "reset", app]]
            case .denied: return [["privacy", "revoke", app]]
            case .restricted: return [["privacy", "restrict", app]]
            case .writeOnly: return [["privacy", "reset", app], ["privacy", "grant", app, "--events", "write-only"]]
            case .fullAccess: return []
            }
        }
    }

    /// A folder with two stores: `home/store` (the configured one, $OPENEVENTKIT_STORE) and
    /// `second/store` (found by its marker only), each holding the sample lessons, links to
    /// the first store's parts, a calendar file outside every store, and `third`, a store
    /// with full access to import into.
    struct Setup {
        let folder: TemporaryFolder
        var root: String { folder.url.path }
        var store: String { root + "/home/store" }
        var second: String { root + "/second/store" }
        var item: String
        let outside: String

        init(status: Status) throws {
            folder = try TemporaryFolder()
            let lessons = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path
            outside = try folder.write("holidays.ics", try String(contentsOfFile: ICalRunner.packageRoot
                .appendingPathComponent("samples/calendars/holidays.ics").path, encoding: .utf8))
            item = ""
            for store in [store, second] {
                for call in [["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"],
                             ["import", lessons]] + status.privacyCalls {
                    let output = try ICalRunner.run(call + ["--store", store])
                    #expect(output.status == 0, "\(call): \(output.stderr)")
                }
            }
            // A third store that imports from the others may add and replace events.
            let grant = try ICalRunner.run(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full",
                                            "--store", root + "/third"])
            #expect(grant.status == 0, "\(grant.stderr)")
            let items = try FileManager.default.contentsOfDirectory(atPath: store + "/calendar").filter { $0.hasSuffix(".ics") }
            item = store + "/calendar/" + items[0]
            let manager = FileManager.default
            try manager.createSymbolicLink(atPath: root + "/link-store", withDestinationPath: store)
            try manager.createSymbolicLink(atPath: root + "/link-calendar", withDestinationPath: store + "/calendar")
            try manager.createSymbolicLink(atPath: root + "/link-item.ics", withDestinationPath: item)
        }

        /// Runs `ical` in the setup's folder with the first store configured.
        func run(_ arguments: [String]) throws -> ICalRunner.Output {
            try ICalRunner.run(arguments, in: folder.url, environment: ["OPENEVENTKIT_STORE": store])
        }

        /// Every file of both stores with its bytes: what a refused command must not change.
        func snapshot() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for store in [store, second] {
                let enumerator = FileManager.default.enumerator(atPath: store)
                while let relative = enumerator?.nextObject() as? String {
                    let path = store + "/" + relative
                    var isFolder: ObjCBool = false
                    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                       !relative.hasSuffix("/lock") {
                        files[path] = try Data(contentsOf: URL(fileURLWithPath: path))
                    }
                }
            }
            return files
        }

        /// The paths that lead into a store, by name.
        var storePaths: [(String, String)] {
            [("store root", store), ("calendar folder", store + "/calendar"), ("item file", item),
             ("link to the store", root + "/link-store"), ("link to a calendar", root + "/link-calendar"),
             ("link to an item", root + "/link-item.ics"), ("relative path", "home/store/calendar/../calendar"),
             ("second store (marker)", second), ("second store's calendar", second + "/calendar")]
        }
    }

    // MARK: Reading

    @Test(arguments: Status.allCases)
    func readingAStorePathNeedsFullAccess(status: Status) throws {
        let setup = try Setup(status: status)
        defer { setup.folder.remove() }
        let before = try setup.snapshot()
        for (form, path) in setup.storePaths {
            let commands: [[String]] = [
                ["query", "--at", "2026-09", path], ["convert", path], ["validate", path],
                ["import", "--store", setup.root + "/third", path],
            ]
            for command in commands {
                let output = try setup.run(command)
                let cell = "\(status) × \(form) × \(command[0])"
                if status == .fullAccess {
                    #expect(output.status == 0, "\(cell): \(output.stderr)")
                    if command[0] == "query" { #expect(output.stdout.contains("Piano lesson"), "\(cell)") }
                    if command[0] == "convert" { #expect(output.stdout.contains("BEGIN:VEVENT"), "\(cell)") }
                } else {
                    #expect(output.status == 77, "\(cell): \(output.stderr)")
                    #expect(output.stdout.isEmpty, "\(cell): \(output.stdout)")
                    #expect(output.stderr.contains("needs full access to events; org.openeventkit.ical has \(status)."), "\(cell): \(output.stderr)")
                    // No line of an item reaches a caller that may not read it.
                    #expect(!output.stderr.contains("Piano") && !output.stderr.contains("BEGIN:"), "\(cell): \(output.stderr)")
                    let advice = status == .restricted ? "ical privacy unrestrict org.openeventkit.ical" : "ical privacy grant org.openeventkit.ical --events full"
                    #expect(output.stderr.contains(advice), "\(cell): \(output.stderr)")
                }
            }
        }
        #expect(try setup.snapshot() == before, "\(status): a read changed the stores")
    }

    @Test(arguments: Status.allCases)
    func aWalkSkipsTheStoresItMayNotRead(status: Status) throws {
        let setup = try Setup(status: status)
        defer { setup.folder.remove() }
        let before = try setup.snapshot()
        // The setup's folder holds both stores (two levels down), links into the first, and a
        // calendar of its own.
        for parent in [setup.root + "/home", setup.root + "/second", "."] {
            let output = try setup.run(["query", "--at", "2026", parent])
            let cell = "\(status) × \(parent)"
            #expect(output.status == 0, "\(cell): \(output.stderr)")
            if status == .fullAccess {
                #expect(output.stdout.contains("Piano lesson"), "\(cell)")
                #expect(!output.stderr.contains("skipping"), "\(cell): \(output.stderr)")
            } else {
                #expect(!output.stdout.contains("Piano lesson"), "\(cell): \(output.stdout)")
                #expect(output.stderr.contains("ical: warning: skipping "), "\(cell): \(output.stderr)")
            }
            if parent == "." {
                #expect(output.stdout.contains("Autumn break"), "\(cell): the calendar outside the stores is read")
            }
        }
        #expect(try setup.snapshot() == before)
    }

    @Test func standardInputIsAPlainStream() throws {
        let setup = try Setup(status: .denied)
        defer { setup.folder.remove() }
        let output = try ICalRunner.run(["query", "--at", "2026-09", "-"], stdin: try String(contentsOfFile: setup.item, encoding: .utf8),
                                        environment: ["OPENEVENTKIT_STORE": setup.store])
        #expect(output.status == 0)
        #expect(output.stdout.contains("Piano lesson"))
    }

    @Test func theStoresMetadataIsNeverReadAsAFile() throws {
        let setup = try Setup(status: .fullAccess)
        defer { setup.folder.remove() }
        for path in [setup.store + "/.openeventkit/authorizations.json", setup.second + "/.openeventkit/store.json"] {
            let output = try setup.run(["validate", path])
            #expect(output.status == 77, "\(output.stderr)")
            #expect(output.stderr.contains("which ical never reads or writes as a file"), "\(output.stderr)")
            #expect(!output.stdout.contains("org.openeventkit.ical"))
        }
    }

    // MARK: Writing

    /// The write forms: where the output goes, and the commands that write there.
    static let writeTargets: [(form: String, target: @Sendable (Setup) -> String)] = [
        ("new item in the default calendar", { $0.store + "/calendar/new.ics" }),
        ("link to a calendar", { $0.root + "/link-calendar/new.ics" }),
        ("relative path", { _ in "home/store/./calendar/new.ics" }),
        ("second store's calendar", { $0.second + "/calendar/new.ics" }),
    ]

    static func writeCommands(_ setup: Setup, _ target: String) -> [(String, [String])] {
        [("convert -o", ["convert", setup.outside, "-o", target]),
         ("lessons -o", ["lessons", "--title", "Cello", "--days", "WE", "--time", "15:00", "--duration", "30m",
                         "--from", "2026-09-09", "--count", "2", "--tz", "Europe/Berlin", "-o", target]),
         ("convert --split", ["convert", setup.outside, "--split", (target as NSString).deletingLastPathComponent])]
    }

    @Test(arguments: Status.allCases, 0..<4)
    func writingIntoAStoreIsAnImportOrRefused(status: Status, targetIndex: Int) throws {
        let (form, makeTarget) = Self.writeTargets[targetIndex]
        for commandIndex in 0..<3 {
            // A store of its own per cell: a write-only app may add each UID only once.
            let setup = try Setup(status: status)
            defer { setup.folder.remove() }
            let (name, command) = Self.writeCommands(setup, makeTarget(setup))[commandIndex]
            let before = try setup.snapshot()
            let output = try setup.run(command)
            let cell = "\(status) × \(form) × \(name)"
            #expect(!FileManager.default.fileExists(atPath: setup.store + "/calendar/new.ics"), "\(cell): a file was written")
            switch status {
            case .writeOnly, .fullAccess:
                // Calendar data into the default calendar: one import batch.
                #expect(output.status == 0, "\(cell): \(output.stderr)")
                #expect(output.stderr.contains("its items were imported as one batch, not written as a file"), "\(cell): \(output.stderr)")
                #expect(try setup.snapshot() != before, "\(cell): nothing was imported")
                // The same UIDs again would change items: write-only access may only add.
                let again = try setup.run(command)
                #expect(again.status == (status == .writeOnly ? 77 : 0), "\(cell) again: \(again.stderr)")
            default:
                #expect(output.status == 77, "\(cell): \(output.stderr)")
                #expect(output.stderr.contains("needs write-only access to events; org.openeventkit.ical has \(status)."), "\(cell): \(output.stderr)")
                #expect(try setup.snapshot() == before, "\(cell): the store changed")
            }
        }
    }

    @Test(arguments: Status.allCases)
    func otherOutputIntoAStoreIsRefused(status: Status) throws {
        let setup = try Setup(status: status)
        defer { setup.folder.remove() }
        let before = try setup.snapshot()
        let commands: [[String]] = [
            ["convert", setup.outside, "--to", "json", "-o", setup.store + "/calendar/x.json"],
            ["convert", setup.outside, "--to", "csv", "-o", setup.root + "/link-store/x.csv"],
            ["query", "--at", "2026", setup.outside, "-o", setup.second + "/calendar/agenda.txt"],
            ["convert", setup.outside, "-o", setup.store + "/.openeventkit/store.json"],
            ["convert", setup.outside, "-o", setup.store + "/nocalendar/new.ics"],
        ]
        for command in commands {
            let output = try setup.run(command)
            #expect(output.status == 77, "\(status) × \(command): \(output.stderr)")
            #expect(output.stderr.contains("Files go into a store only through it: ical import FILE"), "\(status) × \(command): \(output.stderr)")
        }
        #expect(try setup.snapshot() == before)
    }

    @Test func exportIntoAnotherStoreIsAnImportThere() throws {
        let setup = try Setup(status: .fullAccess)
        defer { setup.folder.remove() }
        let lessons = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/holidays.ics").path
        var output = try setup.run(["import", lessons])
        #expect(output.status == 0, "\(output.stderr)")
        let before = try FileManager.default.contentsOfDirectory(atPath: setup.second + "/calendar").count
        output = try setup.run(["export", "-o", setup.second + "/calendar/"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("imported as one batch"), "\(output.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.second + "/calendar").count > before)
    }

    @Test func readingHolidaysFromAStoreNeedsFullAccess() throws {
        let setup = try Setup(status: .denied)
        defer { setup.folder.remove() }
        let output = try setup.run(["lessons", "--title", "Cello", "--days", "WE", "--time", "15:00", "--duration", "30m",
                                    "--from", "2026-09-09", "--count", "2", "--tz", "Europe/Berlin", "--skip", setup.item])
        #expect(output.status == 77, "\(output.stderr)")
        #expect(output.stderr.contains("reading the holidays in \(setup.item)"), "\(output.stderr)")
        #expect(output.stdout.isEmpty)

        // A specification's holiday file is checked the same way, and so is the
        // specification itself.
        let spec = try setup.folder.write("term.yaml", """
            timezone: Europe/Berlin
            term: {from: 2026-09-07, count: 2}
            holidays:
              - file: link-calendar/\((setup.item as NSString).lastPathComponent)
            lessons:
              - {title: Cello, days: WE, time: "15:00", length: 30m}
            """)
        let fromSpec = try setup.run(["lessons", "--spec", spec])
        #expect(fromSpec.status == 77, "\(fromSpec.stderr)")
        #expect(fromSpec.stderr.contains("needs full access to events; org.openeventkit.ical has denied."), "\(fromSpec.stderr)")
        #expect(fromSpec.stdout.isEmpty)
        try FileManager.default.copyItem(atPath: spec, toPath: setup.store + "/calendar/term.yaml")
        let specInStore = try setup.run(["lessons", "--spec", setup.store + "/calendar/term.yaml"])
        #expect(specInStore.status == 77, "\(specInStore.stderr)")
        #expect(specInStore.stderr.contains("reading the specification \(setup.store)/calendar/term.yaml"), "\(specInStore.stderr)")
    }
}
