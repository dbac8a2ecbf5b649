import Foundation
import ICalKit
import Testing

/// `ical import` and `ical convert` stream their files (issue 15): the results must be the
/// bytes and store contents of reading each file whole, on every fixture, with the same
/// errors, and a failure must leave nothing written.
@Suite struct StreamedImportConvertTests {
    private static let fixtureRoot = ICalRunner.packageRoot.appendingPathComponent("Tests/ICalKitTests/Fixtures")

    /// Every .ics fixture and sample calendar in the repository.
    private static func calendarFiles(includingMalformed: Bool = true) -> [String] {
        var folders = [fixtureRoot.appendingPathComponent("valid"), ICalRunner.packageRoot.appendingPathComponent("samples/calendars")]
        if includingMalformed { folders.append(fixtureRoot.appendingPathComponent("malformed")) }
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".ics") }.sorted().map { folder.appendingPathComponent($0).path }
        }
    }

    // MARK: Convert

    @Test(arguments: [["--to", "ics"], ["--to", "jcal"], ["--to", "jcal", "--pretty"]])
    func streamedConvertWritesTheBytesOfTheTreeWriters(_ format: [String]) throws {
        for file in Self.calendarFiles() {
            let whole = try ICalReader().read(contentsOfFile: file)
            let output = try ICalRunner.run(["convert"] + format + [file])
            if whole.calendars.isEmpty {
                #expect(output.status == 1, "\(file)")
                #expect(output.stdout == "", "\(file)")
                #expect(output.stderr.contains("holds no calendar data; nothing written"), "\(file)")
                continue
            }
            let expected = format[1] == "ics" ? ICalWriter().bytes(whole.calendars)
                : JCalWriter().bytes(whole.calendars, pretty: format.contains("--pretty"))
            #expect(output.status == 0, "\(file): \(output.stderr)")
            #expect(output.stdout == String(decoding: expected, as: UTF8.self), "\(file)")
            for diagnostic in whole.diagnostics {
                #expect(output.stderr.contains("\(file):\(diagnostic.line):"), "\(file): \(diagnostic)")
            }
        }
    }

    @Test func severalInputsMakeOneDocumentAsBefore() throws {
        let files = Self.calendarFiles(includingMalformed: false).prefix(6)
        let calendars = try files.flatMap { try ICalReader().read(contentsOfFile: $0).calendars }
        for pretty in [false, true] {
            let output = try ICalRunner.run(["convert", "--to", "jcal"] + (pretty ? ["--pretty"] : []) + files)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout == JCalWriter().string(calendars, pretty: pretty))
        }
        let ics = try ICalRunner.run(["convert"] + files)
        #expect(ics.stdout == ICalWriter().string(calendars))
    }

    @Test func aStrictFailureWritesNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let good = try folder.write("good.ics", Self.calendar(events: ["a"]))
        let bad = try folder.write("bad.ics", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20261341T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        let target = folder.url.appendingPathComponent("out.ics").path
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: target))
        for format in ["ics", "jcal"] {
            let output = try ICalRunner.run(["convert", "--strict", "--to", format, good, bad, "-o", target])
            #expect(output.status == 1)
            #expect(output.stderr.contains("\(bad):4:"))
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "old\n")
            let toStandardOutput = try ICalRunner.run(["convert", "--strict", "--to", format, good, bad])
            #expect(toStandardOutput.status == 1)
            #expect(toStandardOutput.stdout == "")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["bad.ics", "good.ics", "out.ics"])
    }

    // MARK: Import

    private struct Store {
        let folder: TemporaryFolder
        let name: String
        var path: String { folder.url.appendingPathComponent(name).path }

        func run(_ arguments: [String]) throws -> ICalRunner.Output {
            try ICalRunner.run(arguments, environment: ["OPENEVENTKIT_STORE": path])
        }

        func grant(_ level: String) throws {
            let output = try run(["privacy", "grant", "org.openeventkit.ical", "--events", level, "--reminders", "full"])
            #expect(output.status == 0, "\(output.stderr)")
        }

        /// Every file of the store but its metadata, relative path to bytes.
        func files() -> [String: Data] {
            var result: [String: Data] = [:]
            guard let walker = FileManager.default.enumerator(atPath: path) else { return result }
            while let relative = walker.nextObject() as? String {
                if relative.hasPrefix(".openeventkit") { continue }
                var isFolder: ObjCBool = false
                let full = path + "/" + relative
                if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
                    result[relative] = FileManager.default.contents(atPath: full)
                }
            }
            return result
        }
    }

    private static func calendar(events uids: [String], properties: String = "", extra: String = "") -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\(properties)"
        for uid in uids {
            text += "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T100000Z\r\nSUMMARY:\(uid)\r\nEND:VEVENT\r\n"
        }
        return text + extra + "END:VCALENDAR\r\n"
    }

    /// The streamed import against the import of the whole tree, which a write into the
    /// store's default calendar (`ical convert FILE -o STORE/calendar/`) still makes.
    @Test func streamedImportStoresWhatTheTreeImportStores() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var compared = 0
        for (index, file) in Self.calendarFiles(includingMalformed: false).enumerated() {
            let streamed = Store(folder: folder, name: "streamed-\(index)")
            let tree = Store(folder: folder, name: "tree-\(index)")
            try streamed.grant("full")
            try tree.grant("full")
            let imported = try streamed.run(["import", file])
            let written = try tree.run(["convert", file, "-o", tree.path + "/calendar/"])
            #expect(imported.status == written.status, "\(file): \(imported.stderr) | \(written.stderr)")
            #expect(streamed.files() == tree.files(), "\(file)")
            compared += streamed.files().count
        }
        #expect(compared > 20)
    }

    @Test func overridesBeforeTheirMasterAndInAnotherCalendarJoinItsItem() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        let override = "BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20260303T100000\r\nDTSTART;TZID=Europe/Berlin:20260303T120000\r\nSUMMARY:moved\r\nEND:VEVENT\r\n"
        let master = "BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20260302T100000\r\nRRULE:FREQ=DAILY;COUNT=5\r\nSUMMARY:daily\r\nEND:VEVENT\r\n"
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\(zone)\(override)BEGIN:VEVENT\r\nUID:other\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            + "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\(zone)\(master)END:VCALENDAR\r\n"
        let file = try folder.write("split.ics", text)
        let streamed = Store(folder: folder, name: "streamed")
        let tree = Store(folder: folder, name: "tree")
        try streamed.grant("full")
        try tree.grant("full")
        let output = try streamed.run(["import", file])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "Imported 2 new items into calendar.\n")
        _ = try tree.run(["convert", file, "-o", tree.path + "/calendar/"])
        let files = streamed.files()
        #expect(files == tree.files())
        let item = files.first { $0.key.hasPrefix("calendar/series") }.map { String(decoding: $0.value, as: UTF8.self) } ?? ""
        #expect(item.components(separatedBy: "BEGIN:VEVENT").count == 3)
        #expect(item.components(separatedBy: "BEGIN:VTIMEZONE").count == 2)
        #expect(item.range(of: "RECURRENCE-ID")!.lowerBound < item.range(of: "RRULE")!.lowerBound, "file order kept")
    }

    @Test func aMalformedFileUnderStrictImportsNothingAndSaysWhere() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bad = try folder.write("bad.ics", Self.calendar(events: ["a", "b"], extra: "BEGIN:VEVENT\r\nUID:c\r\nno colon\r\nEND:VEVENT\r\n"))
        let store = Store(folder: folder, name: "store")
        try store.grant("full")
        let before = store.files()
        let output = try store.run(["import", "--strict", bad])
        #expect(output.status == 1)
        #expect(output.stderr.contains("\(bad):18:"))
        #expect(store.files() == before)
    }

    /// `ical import` killed (SIGKILL) while its batch writes item files: the next command
    /// that opens the store finds it as it was or with the whole batch, never part of it.
    @Test func aCrashHalfwayLeavesTheStoreAsItWasOrComplete() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = Store(folder: folder, name: "store")
        try store.grant("full")
        let count = 20_000
        let file = try folder.write("many.ics", Self.calendar(events: (0..<count).map { "crash-\($0)" }))
        let process = Process()
        process.executableURL = ICalRunner.executable
        process.arguments = ["import", file]
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "OPENEVENTKIT_STORE": store.path,
                               "HOME": folder.url.appendingPathComponent("home").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let calendarFolder = store.path + "/calendar"
        func entries() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: calendarFolder)) ?? [] }
        try process.run()
        // Kill it once the batch has begun writing its temporaries (or when it is done).
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline && entries().filter({ $0.hasPrefix(".oek-") }).count < 50 {
            usleep(1000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let output = try store.run(["calendars"])
        #expect(output.status == 0, "\(output.stderr)")
        let items = entries().filter { $0.hasSuffix(".ics") && !$0.hasPrefix(".") }
        #expect(items.count == 0 || items.count == count, "\(items.count) items: part of a batch")
        #expect(entries().filter { $0.hasPrefix(".oek-") }.isEmpty)
    }

    @Test func aFailureHalfwayLeavesTheStoreAsItWas() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = Store(folder: folder, name: "store")
        try store.grant("write-only")
        let first = try store.run(["import", try folder.write("b.ics", Self.calendar(events: ["b"]))])
        #expect(first.status == 0, "\(first.stderr)")
        let before = store.files()
        // a and its temporary file are written before b turns out to exist already (write-only may not replace it).
        let output = try store.run(["import", try folder.write("abc.ics", Self.calendar(events: ["a", "b", "c"]))])
        #expect(output.status == 77)
        #expect(output.stderr.contains("nothing was written"))
        #expect(store.files() == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.path + "/calendar").filter { $0.hasPrefix(".oek-") }
        #expect(leftovers.isEmpty)
    }
}
