import Foundation
import ICalKit
import Testing

/// ``LintRun`` (streamed, spilling) against ``Linter`` over whole reads plus
/// ``LintSummary``: the same findings in the same order, and the same counts.
@Suite struct LintRunTests {
    /// What a run of whole reads gives: findings (with whether each is across files) and the line.
    private static func whole(_ paths: [String]) -> (findings: [String], line: String) {
        var summary = LintSummary()
        var printed: [String] = []
        for path in paths {
            do {
                let report = try Linter().lint(contentsOfFile: path)
                printed += report.findings.map(\.description)
                summary.add(report)
            } catch {
                summary.fileCount += 1
                summary.unreadableCount += 1
            }
        }
        let json = summary.findings.map { LintSummary.json($0) }
        return (printed + ["--"] + json, summary.line)
    }

    private static func streamed(_ paths: [String], recordMemory: Int) throws -> (findings: [String], line: String, spilled: Bool) {
        let run = LintRun(recordMemory: recordMemory)
        for path in paths {
            do { try run.add(contentsOfFile: path) } catch { run.addUnreadable() }
        }
        let totals = try run.finish()
        var printed: [String] = []
        var json: [String] = []
        try run.forEachFinding { finding, acrossFiles in
            if !acrossFiles { printed.append(finding.description) }
            json.append(LintSummary.json(finding))
        }
        return (printed + ["--"] + json, totals.line, run.spilled)
    }

    private static var fixtures: [String] {
        Fixtures.valid.map { Fixtures.path("valid", $0) } + Fixtures.malformed.map { Fixtures.path("malformed", $0) }
    }

    @Test(arguments: [1 << 24, 200])
    func sameFindingsAsWholeReadsOnEveryFixture(recordMemory: Int) throws {
        for path in Self.fixtures {
            let expected = Self.whole([path])
            let actual = try Self.streamed([path], recordMemory: recordMemory)
            #expect(actual.findings == expected.findings, "\(path)")
            #expect(actual.line == expected.line, "\(path)")
        }
        let all = Self.fixtures + Self.fixtures.prefix(5)
        let expected = Self.whole(all)
        let actual = try Self.streamed(all, recordMemory: recordMemory)
        #expect(actual.findings == expected.findings)
        #expect(actual.line == expected.line)
        if recordMemory == 200 { #expect(actual.spilled) }
    }

    /// VTIMEZONEs and METHOD after the events, far duplicates, long lines, a second calendar.
    @Test(arguments: [1 << 24, 200])
    func lateTimeZonesAndFarDuplicates(recordMemory: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lintrun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n"
        for index in 0..<300 {
            text += "BEGIN:VEVENT\r\nUID:u\(index % 120)\r\nDTSTAMP:20240101T000000Z\r\n"
            text += "DTSTART;TZID=Custom/Zone:20240301T100000\r\nDTEND;TZID=Custom/Zone:20240301T090000\r\n"
            if index % 50 == 0 { text += "DTEND;TZID=Nowhere/Zone:20240301T110000\r\nSUMMARY:\(String(repeating: "x", count: 90))\r\n" }
            if index % 7 == 0 { text += "SEQUENCE:\(index % 3)\r\n" }
            text += "END:VEVENT\r\n"
        }
        text += "BEGIN:VTIMEZONE\r\nTZID:Custom/Zone\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n"
            + "TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
            + "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n"
            + "TZOFFSETFROM:+0300\r\nTZOFFSETTO:+0300\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
            + "METHOD:PUBLISH\r\nEND:VCALENDAR\r\n"
        text += "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:u5\r\nDTSTART;TZID=Europe/Berlin:20240301T100000\r\nEND:VEVENT\r\n"
            + "BEGIN:VTODO\r\nUID:u6\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let late = folder.appendingPathComponent("late.ics").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: late))
        let other = folder.appendingPathComponent("other.ics").path
        try Data(text.replacingOccurrences(of: "UID:u1", with: "UID:v1").utf8).write(to: URL(fileURLWithPath: other))
        let paths = [late, folder.appendingPathComponent("missing.ics").path, other]
        let expected = Self.whole(paths)
        let actual = try Self.streamed(paths, recordMemory: recordMemory)
        #expect(actual.findings == expected.findings)
        #expect(actual.line == expected.line)
        #expect(expected.findings.contains { $0.contains("duplicate-uid") && $0.contains("is also in") })
        #expect(expected.findings.contains { $0.contains("[unknown-tzid]") })
        #expect(!expected.findings.contains { $0.contains("Custom/Zone\" has no VTIMEZONE") })
    }
}
