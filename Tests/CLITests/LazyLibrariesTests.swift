import Foundation
import Testing

/// libical, libxml2 and libdbus-1 are opened with `dlopen` by their first use, not at start:
/// `ical` runs (and a warm store query answers) without mapping them or the ICU they bring, and a
/// missing or broken libical is reported, with what to install, when a rule needs it.
@Suite struct LazyLibrariesTests {
    private let lessons = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path

    /// A rule only libical expands (RFC 7529's RSCALE), three occurrences.
    private let chineseMonths = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//OpenEventKit//Tests//EN\r
        BEGIN:VEVENT\r
        UID:rscale@example.com\r
        DTSTAMP:20260101T000000Z\r
        DTSTART:20260101T100000Z\r
        RRULE:RSCALE=CHINESE;FREQ=MONTHLY;COUNT=3\r
        SUMMARY:Lunar\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// The shared libraries the dynamic loader opened for `arguments` (LD_DEBUG=files).
    private func loadedLibraries(_ arguments: [String], store: String) throws -> (ICalRunner.Output, [String]) {
        let output = try ICalRunner.run(arguments, environment: ["OPENEVENTKIT_STORE": store, "LD_DEBUG": "files"])
        let opened = output.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " })
        }
        return (output, opened)
    }

    /// A store holding the repeating lessons, with full access granted and its index and
    /// weeks warm for December 2026 (JSON and text).
    private func warmStore(in folder: TemporaryFolder) throws -> String {
        let store = folder.url.appendingPathComponent("store").path
        for arguments in [["privacy", "grant", "org.openeventkit.ical", "--events", "full"], ["import", lessons],
                          ["query", "--at", "2026-12", "--format", "json"], ["query", "--at", "2026-12", "--format", "text"]] {
            let output = try ICalRunner.run(arguments, environment: ["OPENEVENTKIT_STORE": store])
            #expect(output.status == 0, "\(output.stderr)")
        }
        return store
    }

    @Test func aWarmStoreQueryLoadsNeitherLibicalNorLibxml2() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try warmStore(in: folder)
        let rscale = try folder.write("rscale.ics", chineseMonths)
        for arguments in [["--version"], ["query", "--at", "2026-12", "--format", "json"],
                          ["query", "--at", "2026-12", "--format", "text"]] {
            let (output, opened) = try loadedLibraries(arguments, store: store)
            #expect(output.status == 0, "\(arguments): \(output.stderr.suffix(500))")
            #expect(opened.contains { $0.hasPrefix("libc.so") }, "LD_DEBUG=files names what is opened: \(opened)")
            #expect(opened.allSatisfy { !$0.contains("libical") && !$0.contains("libxml2") && !$0.contains("libicu")
                                   && !$0.contains("libdbus") },
                    "\(arguments) opened \(opened)")
        }
        // The control: a rule only libical expands opens it.
        let (output, opened) = try loadedLibraries(["query", "--between", "2026-01-01", "2027-01-01", rscale], store: store)
        #expect(output.status == 0, "\(output.stderr.suffix(500))")
        #expect(opened.contains { $0.contains("libical.so.3") }, "\(opened)")
        #expect(output.stdout.components(separatedBy: "Lunar").count - 1 == 3)
    }

    @Test func aBrokenLibicalIsReportedWhenARuleNeedsIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try warmStore(in: folder)
        let libraries = folder.url.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        _ = try folder.write("lib/libical.so.3", "not a library")
        let rscale = try folder.write("rscale.ics", chineseMonths)
        let environment = ["LD_LIBRARY_PATH": libraries.path, "OPENEVENTKIT_STORE": store]

        var output = try ICalRunner.run(["query", "--at", "2026-12", "--format", "text"], environment: environment)
        #expect(output.status == 0, "a warm store query needs no libical: \(output.stderr)")
        #expect(output.stdout.contains("Piano"), "\(output.stdout)")

        output = try ICalRunner.run(["query", "--between", "2026-01-01", "2027-01-01", rscale], environment: environment)
        #expect(output.status == 1)
        #expect(output.stdout == "")
        #expect(output.stderr.hasPrefix("ical: libical could not be loaded (\(libraries.path)/libical.so.3: "), "\(output.stderr)")
        #expect(output.stderr.hasSuffix("); install it (Debian: apt-get install libical3)\n"), "\(output.stderr)")
    }
}
