import Foundation
import Testing

/// `ical query`'s plain spellings are read without ArgumentParser (QueryFastLane); every
/// spelling must mean exactly what ArgumentParser makes of it. Each case runs twice, as is
/// and with `ICAL_FAST_LANE=0` (ArgumentParser only), and compares the exit status, both
/// streams and the file written by `-o`.
@Suite struct QueryFastLaneTests {
    private let calendars = ICalRunner.packageRoot.appendingPathComponent("samples/calendars")

    /// Runs `arguments` both ways in `folder` and expects the same results.
    private func expectSameReading(_ arguments: [String], in folder: TemporaryFolder, store: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = folder.url.appendingPathComponent("out.txt").path
        var results: [(ICalRunner.Output, String?)] = []
        for lane in ["1", "0"] {
            try? FileManager.default.removeItem(atPath: written)
            let output = try ICalRunner.run(arguments, in: folder.url,
                                            environment: ["OPENEVENTKIT_STORE": store, "ICAL_FAST_LANE": lane])
            results.append((output, try? String(contentsOfFile: written, encoding: .utf8)))
        }
        let (fast, fastFile) = results[0], (full, fullFile) = results[1]
        #expect(fast.status == full.status, "\(arguments): status", sourceLocation: sourceLocation)
        #expect(fast.stdout == full.stdout, "\(arguments): stdout", sourceLocation: sourceLocation)
        #expect(fast.stderr == full.stderr, "\(arguments): stderr", sourceLocation: sourceLocation)
        #expect(fastFile == fullFile, "\(arguments): -o file", sourceLocation: sourceLocation)
    }

    @Test func everyOptionMeansWhatArgumentParserMakesOfIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        for setup in [["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"],
                      ["import", calendars.appendingPathComponent("repeating-lessons.ics").path],
                      ["import", calendars.appendingPathComponent("monthly-events.ics").path]] {
            let output = try ICalRunner.run(setup, environment: ["OPENEVENTKIT_STORE": store])
            try #require(output.status == 0, "\(setup): \(output.stderr)")
        }
        let lessons = calendars.appendingPathComponent("repeating-lessons.ics").path
        let google = calendars.appendingPathComponent("google-export.ics").path
        let outlook = calendars.appendingPathComponent("outlook-export.ics").path
        let cases: [[String]] = [
            // The store, each format, zones, windows.
            ["query"],
            ["query", "--at", "2026-12"],
            ["query", "--at", "2026-12", "--format", "json", "--tz", "Europe/Berlin"],
            ["query", "--between", "2026-09-01", "+30d", "--format", "csv"],
            ["query", "--between", "2026-09-01", "2026-10-01", "--format", "ics"],
            ["query", "--at", "2026", "--limit", "3", "--format", "text"],
            ["query", "--at", "2026", "--component", "vevent", "--component", "VTODO", "--include-cancelled"],
            ["query", "--at", "2026", "--rescan", "--calendar", "calendar", "--format", "json"],
            ["query", "--at", "2026-12", "--store", store, "-o", "out.txt"],
            ["query", "--at", "2026-12", "--output", "out.txt", "--format", "csv"],
            ["query", "--at", "2026-12", "--app", "/nonexistent/Info.plist"],
            // Files: inputs before, between and after options; --between's extra values are inputs.
            ["query", lessons, "--at", "2026-12"],
            ["query", "--at", "2026-12", lessons, "--tz", "America/New_York", google],
            ["query", "--between", "2026-01-01", "+1y", lessons, outlook, "--format", "json"],
            ["query", "--strict", "--at", "2026", google],
            ["query", "--at", "2026-12", "--store", store, lessons],
            // Errors: validation, values, unknown and repeated options, other spellings.
            ["query", "--limit", "0"],
            ["query", "--limit", "x"],
            ["query", "--at", "2026-12", "--between", "2026-12-01", "+1d"],
            ["query", "--between", "2026-12-01"],
            ["query", "--between"],
            ["query", "--at"],
            ["query", "--at", "2026-13"],
            ["query", "--tz", "Mars/Olympus", "--at", "2026"],
            ["query", "--format", "yaml"],
            ["query", "--component", "VALARM"],
            ["query", "--at", "2026", "--at", "2027"],
            ["query", "--rescan", "--rescan"],
            ["query", "--at=2026-12", "--format=json"],
            ["query", "--bogus"],
            ["query", "-h"],
            ["query", "--help"],
            ["query", "--version"],
            ["query", "--", lessons],
            ["query", "--at", "2026-12", "/nonexistent.ics"],
        ]
        for arguments in cases {
            try expectSameReading(arguments, in: folder, store: store)
        }
    }

    @Test func theStandardInputIsReadAsBefore() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let text = try String(contentsOfFile: calendars.appendingPathComponent("repeating-lessons.ics").path, encoding: .utf8)
        var outputs: [ICalRunner.Output] = []
        for lane in ["1", "0"] {
            outputs.append(try ICalRunner.run(["query", "--at", "2026-12", "-"], stdin: text, in: folder.url,
                                              environment: ["ICAL_FAST_LANE": lane]))
        }
        #expect(outputs[0].status == 0)
        #expect(outputs[0].stdout.contains("Piano"))
        #expect(outputs[0].stdout == outputs[1].stdout)
        #expect(outputs[0].stderr == outputs[1].stderr)
    }
}
