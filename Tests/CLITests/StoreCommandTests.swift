import Foundation
import Testing
import ICalKit

/// `ical import`, `export`, `query` (on the store), `calendars` and `events`, run as the
/// built binary acting as an app under its access level. No terminal: no prompt is shown.
@Suite struct StoreCommandTests {
    private struct Store {
        let folder: TemporaryFolder
        var path: String { folder.url.appendingPathComponent("store").path }

        init() throws { folder = try TemporaryFolder() }

        func run(_ arguments: [String]) throws -> ICalRunner.Output {
            try ICalRunner.run(arguments, environment: ["OPENEVENTKIT_STORE": path])
        }

        func grant(_ app: String, _ flags: [String]) throws {
            let output = try run(["privacy", "grant", app] + flags)
            #expect(output.status == 0, "\(output.stderr)")
        }
    }

    private let lessons = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path

    @Test func importNeedsADecisionAndSaysHowToGrantIt() throws {
        let store = try Store()
        defer { store.folder.remove() }
        let output = try store.run(["import", lessons])
        #expect(output.status == 77)
        #expect(output.stdout == "")
        #expect(output.stderr == """
            ical: importing events needs write-only access to events; org.openeventkit.ical has notDetermined.
              ical says why (NSCalendarsWriteOnlyAccessUsageDescription): ical adds the events you import or create on the command line to your calendar.
              Grant it with: ical privacy grant org.openeventkit.ical --events write-only

            """)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: store.path + "/calendar"))?.filter { $0.hasSuffix(".ics") }.isEmpty ?? true)
    }

    @Test func writeOnlyImportSucceedsAndTheSameAppThenFindsNothing() throws {
        let store = try Store()
        defer { store.folder.remove() }
        try store.grant("org.openeventkit.ical", ["--events", "write-only"])
        var output = try store.run(["import", lessons])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "Imported 1 new item into calendar.\n")
        output = try store.run(["query", "--at", "2026-12"])
        #expect(output.status == 77)
        #expect(output.stdout == "")
        #expect(output.stderr == """
            ical: querying the store needs full access to events; org.openeventkit.ical has writeOnly.
              ical says why (NSCalendarsFullAccessUsageDescription): ical lists, exports and changes your events when you ask it to on the command line.
              Write-only access can add events but never read them, not even the ones it added.
              Grant it with: ical privacy grant org.openeventkit.ical --events full

            """)
        // Importing the same UID again would change an item: write-only access may only add.
        output = try store.run(["import", lessons])
        #expect(output.status == 77)
        #expect(output.stderr.contains("replacing it needs full access"))
        #expect(output.stderr.contains("nothing was written"))
    }

    @Test func fullAccessExportRoundTripsImportedEventsLosslessly() throws {
        let store = try Store()
        defer { store.folder.remove() }
        try store.grant("org.openeventkit.ical", ["--events", "full", "--reminders", "full"])
        let samples = ["repeating-lessons", "drop-in-lessons", "monthly-events", "google-export"].map {
            ICalRunner.packageRoot.appendingPathComponent("samples/calendars/\($0).ics").path
        }
        var output = try store.run(["import"] + samples)
        #expect(output.status == 0, "\(output.stderr)")
        output = try store.run(["export"])
        #expect(output.status == 0, "\(output.stderr)")
        let exported = try ICalReader().read(Array(output.stdout.utf8), file: "export")
        let exportedItems = exported.calendars.flatMap(\.components).filter { !$0.matches(.timeZone) }
        var originalItems: [Component] = []
        for path in samples {
            let read = try ICalReader().read(contentsOfFile: path)
            originalItems += read.calendars.flatMap(\.components).filter { !$0.matches(.timeZone) }
        }
        func key(_ component: Component) -> String { ICalWriter().string(component) }
        #expect(Set(exportedItems.map(key)) == Set(originalItems.map(key)), "every component comes back with every property and parameter")
        #expect(exportedItems.count == originalItems.count)
        // Every TZID used is defined once.
        let zones = exported.calendars.flatMap(\.components).filter { $0.matches(.timeZone) }.compactMap { $0[.timeZoneIdentifier] }
        #expect(zones.count == Set(zones).count)

        // Re-importing the same file with full access replaces instead of duplicating.
        output = try store.run(["import", samples[0]])
        #expect(output.stdout == "Imported 0 new items and replaced 1 into calendar.\n")
    }

    /// Issue 14: a Google export means its floating times in X-WR-TIMEZONE. An item file holds
    /// one UID and not the source's calendar properties, so the import applies the zone (TZID
    /// and VTIMEZONE in the item): querying the store gives what querying the file gives.
    @Test func importedGoogleCalendarKeepsItsXWRTimeZone() throws {
        let store = try Store()
        defer { store.folder.remove() }
        try store.grant("org.openeventkit.ical", ["--events", "full"])
        let file = try store.folder.write("google.ics", """
            BEGIN:VCALENDAR\r
            PRODID:-//Google Inc//Google Calendar 70.9054//EN\r
            VERSION:2.0\r
            CALSCALE:GREGORIAN\r
            METHOD:PUBLISH\r
            X-WR-CALNAME:Chor\r
            X-WR-TIMEZONE:Europe/Berlin\r
            BEGIN:VEVENT\r
            DTSTART:20210916T210000\r
            DTEND:20210916T220000\r
            RRULE:FREQ=WEEKLY;COUNT=8\r
            EXDATE:20210930T210000\r
            DTSTAMP:20210901T000000Z\r
            UID:lesson@google.com\r
            SUMMARY:Probe\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            RECURRENCE-ID:20211007T210000\r
            DTSTART:20211007T193000\r
            DTEND:20211007T203000\r
            DTSTAMP:20210901T000000Z\r
            UID:lesson@google.com\r
            SUMMARY:Probe (früher)\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            DTSTART;VALUE=DATE:20211003\r
            DTEND;VALUE=DATE:20211004\r
            DTSTAMP:20210901T000000Z\r
            UID:feiertag@google.com\r
            SUMMARY:Tag der Deutschen Einheit\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let window = ["--between", "2021-09-01", "2021-12-01", "--format", "json"]
        let fromFile = try store.run(["query"] + window + [file])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        var output = try store.run(["import", file])
        #expect(output.status == 0, "\(output.stderr)")
        let fromStore = try store.run(["query"] + window)
        #expect(fromStore.status == 0, "\(fromStore.stderr)")
        func withoutSource(_ json: String) throws -> [[String: String]] {
            let array = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            return array.map { element in
                element.filter { $0.key != "source" }.mapValues { "\($0)" }
            }
        }
        let expected = try withoutSource(fromFile.stdout)
        #expect(expected.count == 8)   // 7 lessons (one excluded, one moved) and the holiday
        #expect(expected.first?["start"] == "2021-09-16T21:00:00+02:00")
        #expect(expected.first?["timeZone"] == "Europe/Berlin")
        #expect(try withoutSource(fromStore.stdout) == expected)
        // And under another display zone.
        let shifted = ["--tz", "America/New_York"]
        output = try store.run(["query"] + window + shifted)
        #expect(try withoutSource(output.stdout) == withoutSource(try store.run(["query"] + window + shifted + [file]).stdout))
    }

    @Test func deniedAppGetsGuidance() throws {
        let store = try Store()
        defer { store.folder.remove() }
        let plist = try store.folder.write("Info.plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>CFBundleIdentifier</key><string>org.example.planner</string>
                <key>CFBundleDisplayName</key><string>Planner</string>
                <key>NSCalendarsFullAccessUsageDescription</key><string>Planner shows your week.</string>
            </dict>
            </plist>
            """)
        _ = try store.run(["privacy", "revoke", "org.example.planner", "--events"])
        let output = try store.run(["query", "--at", "2026-12", "--app", plist])
        #expect(output.status == 77)
        #expect(output.stderr == """
            ical: querying the store needs full access to events; org.example.planner has denied.
              Planner says why (NSCalendarsFullAccessUsageDescription): Planner shows your week.
              Grant it with: ical privacy grant org.example.planner --events full

            """)
    }

    @Test func calendarsAndEventsCommands() throws {
        let store = try Store()
        defer { store.folder.remove() }
        try store.grant("org.openeventkit.ical", ["--events", "full", "--reminders", "full"])
        var output = try store.run(["calendars", "create", "Lessons", "--color", "#FF8000"])
        #expect(output.status == 0, "\(output.stderr)")
        output = try store.run(["calendars", "default", "Lessons"])
        #expect(output.stdout == "'Lessons' is now the default for new events.\n")
        output = try store.run(["calendars", "list"])
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.contains { $0.hasPrefix("* ") && $0.hasSuffix("events     #FF8000  Lessons") })
        #expect(lines.contains { $0.hasPrefix("* reminders") && $0.hasSuffix("#63DA38  Reminders") })

        output = try store.run(["events", "add", "--title", "Violin", "--start", "2026-12-01T16:00", "--duration", "45m",
                                "--tz", "Europe/Berlin", "--repeat", "weekly", "--count", "3", "--location", "Room 4"])
        #expect(output.status == 0, "\(output.stderr)")
        let identifier = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!identifier.hasPrefix("calendar/"), "the new default calendar takes it")
        output = try store.run(["query", "--between", "2026-12-01", "2027-01-01", "--format", "json"])
        let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]]
        #expect(json?.map { $0["start"] as? String } == ["2026-12-01T16:00:00+01:00", "2026-12-08T16:00:00+01:00", "2026-12-15T16:00:00+01:00"])
        #expect(json?.first?["source"] as? String == identifier)

        output = try store.run(["events", "remove", identifier, "--occurrence", "2026-12-08T15:00"])
        #expect(output.status == 0, "\(output.stderr)")
        output = try store.run(["query", "--between", "2026-12-01", "2027-01-01", "--format", "json"])
        let after = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]]
        #expect(after?.count == 2)

        output = try store.run(["events", "remove", identifier])
        #expect(output.status == 0)
        output = try store.run(["events", "remove", identifier])
        #expect(output.status == 1)
        #expect(output.stderr.hasPrefix("ical: there is no event"))

        output = try store.run(["calendars", "remove", "Nope"])
        #expect(output.status == 1)
        #expect(output.stderr.hasPrefix("ical: there is no calendar 'Nope'"))
        output = try store.run(["calendars", "remove", "Lessons"])
        #expect(output.status == 0)
    }

    /// Another program's files reach `ical query` on the store: a new file through the
    /// folder's times, a file rewritten in place through `--rescan`; text, JSON and
    /// iCalendar output list the same occurrences, the first two from the occurrence cache.
    @Test func storeQueriesSeeOtherProgramsFiles() throws {
        let store = try Store()
        defer { store.folder.remove() }
        try store.grant("org.openeventkit.ical", ["--events", "full", "--reminders", "full"])
        var output = try store.run(["events", "add", "--title", "Violin", "--start", "2026-12-01T16:00", "--duration", "45m",
                                    "--tz", "Europe/Berlin", "--repeat", "weekly", "--count", "3"])
        #expect(output.status == 0, "\(output.stderr)")
        func summaries(_ extra: [String] = []) throws -> [String] {
            let output = try store.run(["query", "--at", "2026-12", "--format", "json"] + extra)
            #expect(output.status == 0, "\(output.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]]
            return json?.compactMap { $0["summary"] as? String } ?? []
        }
        #expect(try summaries() == ["Violin", "Violin", "Violin"])
        #expect(try summaries() == ["Violin", "Violin", "Violin"], "the second query reads the cache")

        let item = store.path + "/calendar/khal-1.ics"
        func event(_ summary: String) -> String {
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//khal//EN\r\nBEGIN:VEVENT\r\nUID:khal-1\r\nDTSTAMP:20261101T000000Z\r\n"
                + "DTSTART:20261210T100000Z\r\nDTEND:20261210T110000Z\r\nSUMMARY:\(summary)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        }
        try Data(event("From khal").utf8).write(to: URL(fileURLWithPath: item))
        #expect(try summaries() == ["Violin", "Violin", "From khal", "Violin"])

        // Rewritten in place (same inode): --rescan compares every file with the index.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: item))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(event("Edited in place").utf8))
        try handle.close()
        #expect(try summaries(["--rescan"]) == ["Violin", "Violin", "Edited in place", "Violin"])
        #expect(try summaries() == ["Violin", "Violin", "Edited in place", "Violin"])

        output = try store.run(["query", "--at", "2026-12", "--format", "ics"])
        #expect(output.stdout.components(separatedBy: "BEGIN:VEVENT").count - 1 == 4)
        #expect(output.stdout.contains("SUMMARY:Edited in place"))
        output = try store.run(["query", "--at", "2026-12"])
        #expect(output.stdout.components(separatedBy: "\n").filter { $0.contains("Violin") }.count == 3)
        #expect(output.stdout.contains("Edited in place"))

        // Text and CSV come from weeks rendered before the edit in each format: the edit
        // made them stale, and they are rendered again.
        for format in ["text", "csv"] {
            let before = try store.run(["query", "--at", "2026-12", "--format", format])
            try Data(event("Edited again").utf8).write(to: URL(fileURLWithPath: item))
            let after = try store.run(["query", "--at", "2026-12", "--format", format])
            #expect(before.stdout.contains("Edited in place") && !before.stdout.contains("Edited again"), "\(format)")
            #expect(after.stdout.contains("Edited again") && !after.stdout.contains("Edited in place"), "\(format)")
            #expect(after.stdout == before.stdout.replacingOccurrences(of: "Edited in place", with: "Edited again"), "\(format)")
            try Data(event("Edited in place").utf8).write(to: URL(fileURLWithPath: item))
        }
    }
}
