import Foundation
import Testing

/// One answer for the same data: `ical query FILE` lists what `ical query` on a store lists
/// after `ical import FILE` into it (ignoring the UIDs import assigns to components without
/// one), for every fixture calendar of the repository and the samples, over 2000-2030 and
/// for the iTIP fixture over 1997-1999. See SeriesVersions (ICalKit).
@Suite struct SeriesVersionsInvariantTests {
    static let root = ICalRunner.packageRoot

    static var fixtures: [String] {
        var paths: [String] = []
        for folder in ["Tests/ICalKitTests/Fixtures/valid", "Tests/ICalKitTests/Fixtures/itip", "samples/calendars"] {
            let url = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            paths += names.filter { $0.hasSuffix(".ics") }.sorted().map { url.appendingPathComponent($0).path }
        }
        return paths
    }

    /// The occurrences of `ical query --format json` without UID and source, sorted.
    static func occurrences(_ json: String) throws -> [String] {
        guard let items = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else { return [] }
        return items.map { item in
            ["recurrenceId", "summary", "start", "end", "allDay", "timeZone", "component", "location", "status"]
                .map { "\(item[$0] ?? "nil")" }.joined(separator: "|")
        }.sorted()
    }

    @Test func fileQueryEqualsStoreQueryAfterImport() throws {
        let fixtures = Self.fixtures
        #expect(fixtures.count > 40)
        var compared = 0
        for (index, path) in fixtures.enumerated() {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let environment = ["OPENEVENTKIT_STORE": folder.url.appendingPathComponent("store\(index)").path, "TZ": "UTC"]
            let window = path.hasSuffix("itip-versions.ics") ? ["1997-01-01", "1999-01-01"] : ["2000-01-01", "2030-01-01"]
            let file = try ICalRunner.run(["query", "--between"] + window + ["--format", "json", path], environment: ["TZ": "UTC"])
            let grant = try ICalRunner.run(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"],
                                           environment: environment)
            #expect(grant.status == 0, "\(grant.stderr)")
            let imported = try ICalRunner.run(["import", path], environment: environment)
            let fileOccurrences = file.status == 0 ? try Self.occurrences(file.stdout) : []
            guard imported.status == 0 else {
                // Nothing importable (no event, to-do or journal): the file lists nothing either.
                #expect(fileOccurrences.isEmpty, "\(path): import failed (\(imported.stderr)) but the file lists occurrences")
                continue
            }
            let store = try ICalRunner.run(["query", "--between"] + window + ["--format", "json"], environment: environment)
            #expect(store.status == 0, "\(path): \(store.stderr)")
            let storeOccurrences = try Self.occurrences(store.stdout)
            #expect(fileOccurrences == storeOccurrences, "\(path): the file and the store after import differ")
            compared += 1
        }
        #expect(compared > 40)
    }

    /// The iTIP fixture: one weekly series from its versions (SEQUENCE 1 wins, the older
    /// copy and the attendee's REPLY are no versions of it, the CANCEL removes one
    /// instance), the yearly series despite a REPLY, and a UID that only a REPLY holds.
    @Test func iTIPVersionsMakeOneSeries() throws {
        let path = Self.root.appendingPathComponent("Tests/ICalKitTests/Fixtures/itip/itip-versions.ics").path
        let output = try ICalRunner.run(["query", "--between", "1997-01-01", "1998-01-01", "--format", "csv", path],
                                        environment: ["TZ": "UTC"])
        #expect(output.status == 0, "\(output.stderr)")
        let rows = output.stdout.split(whereSeparator: \.isNewline).dropFirst()  // CSV lines end in CRLF
        let weekly = rows.filter { $0.hasPrefix("guid-1@example.com,") }
        #expect(weekly.count == 9)
        #expect(weekly.allSatisfy { $0.contains("Weekly phone conference (two hours)") })
        #expect(!weekly.contains { $0.contains("1997-09-17") })
        #expect(rows.filter { $0.hasPrefix("guid-2@example.com,") }.count == 1)
        #expect(rows.filter { $0.hasPrefix("guid-3@example.com,") }.count == 1)
    }
}
