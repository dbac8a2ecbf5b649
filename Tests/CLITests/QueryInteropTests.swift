import Foundation
import Testing

/// `ical query --format json` against Python's recurring-ical-events on the sample calendars
/// and on `ical lessons` output, and Python's icalendar reading what `ical` writes.
@Suite struct QueryInteropTests {
    @Test func queryAgreesWithRecurringICalEventsOnSamplesAndLessons() throws {
        let python = try PythonPeers.python.get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let samples = ICalRunner.packageRoot.appendingPathComponent("samples/calendars")
        for name in ["repeating-lessons.ics", "drop-in-lessons.ics", "monthly-events.ics", "holidays.ics",
                     "outlook-export.ics", "google-export.ics"] {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: folder.url.appendingPathComponent(name))
        }
        let lessons = try ICalRunner.run(["lessons", "--spec", samples.appendingPathComponent("term.yaml").path,
                                          "-o", folder.url.appendingPathComponent("term.ics").path])
        #expect(lessons.status == 0, "\(lessons.stderr)")

        // ICalKit through the real command, over the window the peer script uses.
        let query = try ICalRunner.run(["query", "--between", "2020-01-01", "2031-01-01", "--component", "VEVENT",
                                        "--format", "json", folder.url.path])
        #expect(query.status == 0, "\(query.stderr)")
        let conformance = ICalRunner.packageRoot.appendingPathComponent("Conformance")
        let ours = try normalized(query.stdout, python: python, script: conformance.appendingPathComponent("normalize_ical.py").path)
        let peer = PythonPeers.run(python, [conformance.appendingPathComponent("expand_python.py").path, folder.url.path])
        #expect(peer.status == 0, "\(peer.stderr)")
        let theirs = try JSONSerialization.jsonObject(with: Data(peer.stdout.utf8)) as? [String: [[String]]]

        let files = ["repeating-lessons.ics", "drop-in-lessons.ics", "monthly-events.ics", "holidays.ics",
                     "outlook-export.ics", "google-export.ics", "term.ics"]
        for file in files {
            #expect(ours[file] ?? [] == theirs?[file] ?? [], "\(file) differs")
        }
        // Both saw real work: every file has occurrences.
        #expect(files.allSatisfy { !(ours[$0] ?? []).isEmpty })
    }

    @Test func pythonIcalendarReadsQueryAndLessonsOutput() throws {
        let python = try PythonPeers.python.get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let samples = ICalRunner.packageRoot.appendingPathComponent("samples/calendars")
        let outputs = [
            ["lessons", "--spec", samples.appendingPathComponent("term.yaml").path, "-o", "term.ics"],
            ["query", "--at", "2026-12", "--format", "ics", "-o", "december.ics", samples.path],
            ["query", "--at", "2026-11", "--tz", "America/New_York", "--format", "ics", "-o", "november.ics", samples.path],
        ]
        for arguments in outputs {
            let output = try ICalRunner.run(arguments, in: folder.url)
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
        }
        let script = """
            import sys, icalendar
            for path in sys.argv[1:]:
                calendar = icalendar.Calendar.from_ical(open(path, "rb").read())
                for component in calendar.walk():
                    assert not component.errors, (path, component.name, component.errors)
                    for name in ("DTSTART", "DTEND", "RECURRENCE-ID", "DTSTAMP", "DUE", "EXDATE"):
                        if component.get(name) is not None:
                            component.decoded(name)
            print("ok")
            """
        let result = PythonPeers.run(python, ["-c", script] + ["term.ics", "december.ics", "november.ics"].map {
            folder.url.appendingPathComponent($0).path
        })
        #expect(result.status == 0 && result.stdout == "ok\n", "\(result.stdout)\(result.stderr)")
    }

    private func normalized(_ json: String, python: String, script: String) throws -> [String: [[String]]] {
        let input = try TemporaryFolder()
        defer { input.remove() }
        let path = try input.write("query.json", json)
        let result = PythonPeers.run("/bin/sh", ["-c", "\"\(python)\" \"\(script)\" < \"\(path)\""])
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [[String]]]) ?? [:]
    }
}
