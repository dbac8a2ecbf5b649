import Foundation
import ICalKit
import Testing

/// `ical convert --split` and `--repair` stream inputs of any size (issue 42): their files,
/// output, notes and exit status must be those of the whole reads they replaced
/// (``CalendarSplit`` and ``CalendarRepair`` over ``ICalReader``), on every fixture and
/// sample, on inputs made to be hard (overrides far from their master, VTIMEZONEs after the
/// events, duplicate UIDs and versions, UIDs that differ only in case or normalisation,
/// standard input), when the records spill under the smallest --memory, and past the old
/// 256 MiB whole-read limit.
@Suite struct StreamedSplitRepairTests {
    private static let stamp = "20240501T120000Z"

    private static func calendarFiles() -> [String] {
        let fixtureRoot = ICalRunner.packageRoot.appendingPathComponent("Tests/ICalKitTests/Fixtures")
        let folders = [fixtureRoot.appendingPathComponent("valid"), fixtureRoot.appendingPathComponent("malformed"),
                       ICalRunner.packageRoot.appendingPathComponent("samples/calendars")]
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".ics") }.sorted().map { folder.appendingPathComponent($0).path }
        }
    }

    /// Calendars made to be hard for a streamed split or repair.
    static let hardCalendars: [(name: String, text: String)] = {
        var late = "BEGIN:VCALENDAR\r\nX-WR-TIMEZONE:Eastern Standard Time\r\n"
        late += "BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20240101T000000Z\r\nDTSTART;TZID=W. Europe Standard Time:20240301T100000\r\n"
            + "RRULE:FREQ=DAILY;UNTIL=20240310T100000\r\nEND:VEVENT\r\n"
        for index in 0..<40 {
            late += "BEGIN:VEVENT\r\n" + (index % 7 == 0 ? "" : "UID:e\(index)\r\n")
                + "DTSTART:202403\(String(format: "%02d", index % 9 + 1))T100000\r\nSUMMARY:s\(index % 3)\r\n"
                + (index % 5 == 0 ? "DTEND;TZID=Custom/Zone:20240301T110000\r\n" : "")
                + (index % 4 == 0 ? "EXDATE;TZID=America/Chicago:20250301T100000\r\n" : "")
                + (index % 6 == 0 ? "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER;VALUE=DATE-TIME:20240301T090000\r\nEND:VALARM\r\n" : "")
                + "END:VEVENT\r\n"
        }
        // Identical events without UID: distinct UIDs, numbered.
        late += "BEGIN:VEVENT\r\nDTSTART:20240301T100000\r\nSUMMARY:twin\r\nEND:VEVENT\r\n"
        late += "BEGIN:VEVENT\r\nDTSTART:20240301T100000\r\nSUMMARY:twin\r\nEND:VEVENT\r\n"
        late += "BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20240102T000000Z\r\nRECURRENCE-ID;TZID=W. Europe Standard Time:20240303T100000\r\n"
            + "DTSTART;TZID=Mars/Olympus:20240303T120000\r\nEND:VEVENT\r\n"
        late += "BEGIN:VEVENT\r\nUID:e1\r\nSEQUENCE:2\r\nDTSTAMP:20200101T000000Z\r\nDTSTART;VALUE=DATE:20240301\r\nEND:VEVENT\r\n"
        late += "BEGIN:VTIMEZONE\r\nTZID:Custom/Zone\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0530\r\n"
            + "TZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        late += "BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\nTZOFFSETFROM:+0200\r\n"
            + "TZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\n"
            + "TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n"
        late += "END:VCALENDAR\r\n"
        // A second VCALENDAR in the same file: other versions of the same UIDs.
        late += "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//second//EN\r\nCALSCALE:GREGORIAN\r\nX-WR-TIMEZONE:Europe/Paris\r\n"
            + "BEGIN:VEVENT\r\nUID:series\r\nSEQUENCE:1\r\nDTSTAMP:20230101T000000Z\r\nDTSTART:20240301T100000\r\n"
            + "RRULE:FREQ=WEEKLY;UNTIL=20240501T100000\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:e2\r\nDTSTAMP:20250101T000000Z\r\nDTSTART:20240301T100000\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nDTSTART:20240301T100000\r\nSUMMARY:twin\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let event = { (uid: String, extra: String) in "BEGIN:VEVENT\r\nUID:\(uid)\r\n\(extra)END:VEVENT\r\n" }
        var names = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//names//EN\r\n"
        for uid in ["A/b", "a_b", "a?b", "\u{00DC}n\u{00EF}", "U\u{0308}n\u{0069}\u{0308}", "..x", ".hidden",
                    String(repeating: "long-", count: 40), String(repeating: "long-", count: 40) + "2"] {
            names += event(uid, "DTSTAMP:20240101T000000Z\r\nDTSTART;TZID=/mozilla.org/20050126_1/Europe/Berlin:20240301T100000\r\n")
        }
        names += event("e3", "DTSTAMP:20240101T000000Z\r\nDTSTART;TZID=Asia/Tokyo:20240301T100000\r\nRRULE:FREQ=DAILY\r\n")
        names += "END:VCALENDAR\r\n"
        return [("late-zones.ics", late), ("names.ics", names)]
    }()

    /// What the whole reads gave: standard error, the exit status, standard output, and
    /// each file the split wrote.
    private struct Outcome: Equatable, CustomStringConvertible {
        var status: Int32
        var stderr: String
        var stdout: String
        var files: [String: Data]

        var description: String { "status \(status)\n\(stderr)\(stdout.prefix(2000))\nfiles: \(files.keys.sorted())" }
    }

    private static func expected(_ paths: [String], names: [String]? = nil, repair: Bool, split: String?, format: String = "ics",
                                 pretty: Bool = false) throws -> Outcome {
        var stderr = ""
        var inputs: [CalendarSplit.Input] = []
        for (index, path) in paths.enumerated() {
            let name = names?[index] ?? path
            let result = names == nil
                ? try ICalReader().read(contentsOfFile: path)
                : try ICalReader().read(Array(try Data(contentsOf: URL(fileURLWithPath: path))), file: name)
            stderr += result.diagnostics.map { TerminalText.lines($0.description) + "\n" }.joined()
            if result.calendars.isEmpty {
                return Outcome(status: 1, stderr: stderr + "ical: \(name) holds no calendar data; nothing written\n", stdout: "", files: [:])
            }
            inputs.append(CalendarSplit.Input(file: name, calendars: result.calendars))
        }
        if repair {
            let fixed = DateTime(iCalendar: Self.stamp)!
            for index in inputs.indices {
                let result = CalendarRepair(now: { fixed }).repair(inputs[index].calendars, file: inputs[index].file)
                stderr += result.changes.map { $0.description + "\n" }.joined()
                inputs[index].calendars = result.calendars
            }
        }
        guard let split else {
            let calendars = inputs.flatMap(\.calendars)
            let stdout: String
            switch format {
            case "ics": stdout = ICalWriter().string(calendars)
            case "jcal": stdout = JCalWriter().string(calendars, pretty: pretty)
            case "json": stdout = ComponentJSONWriter(pretty: pretty).string(calendars)
            default: stdout = ComponentCSVWriter().string(calendars)
            }
            return Outcome(status: 0, stderr: stderr, stdout: stdout, files: [:])
        }
        let result = CalendarSplit().split(inputs)
        stderr += result.notes.map { $0.description + "\n" }.joined()
        if result.notes.contains(where: { $0.kind == .error }) {
            return Outcome(status: 1, stderr: stderr + "ical: nothing written to \(split)\n", stdout: "", files: [:])
        }
        var files: [String: Data] = [:]
        for item in result.items { files[item.fileName] = Data(ICalWriter().bytes(item.calendar)) }
        return Outcome(status: 0, stderr: stderr, stdout: "", files: files)
    }

    private static func actual(_ arguments: [String], split: String?, folder: TemporaryFolder, stdin: String? = nil) throws -> Outcome {
        let output = try ICalRunner.run(["convert"] + arguments + (split.map { ["--split", $0] } ?? []), stdin: stdin, in: folder.url)
        var files: [String: Data] = [:]
        if let split {
            let target = folder.url.appendingPathComponent(split)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: target.path)) ?? [] {
                files[name] = try Data(contentsOf: target.appendingPathComponent(name))
            }
            try? FileManager.default.removeItem(at: target)
        }
        return Outcome(status: output.status, stderr: output.stderr, stdout: output.stdout, files: files)
    }

    private static func hardFiles(in folder: TemporaryFolder) throws -> [String] {
        try hardCalendars.map { try folder.write($0.name, $0.text) }
    }

    @Test(arguments: [false, true])
    func splitGivesTheFilesOfTheWholeSplitOnEveryFixture(repair: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let flags = (repair ? ["--repair", "--stamp", Self.stamp] : []) + ["--memory", "16M"]
        let files = Self.calendarFiles() + (try Self.hardFiles(in: folder))
        for file in files {
            let expected = try Self.expected([file], repair: repair, split: "out")
            let actual = try Self.actual(flags + [file], split: "out", folder: folder)
            #expect(actual == expected, "\(file)")
        }
        // Every input together: duplicates across files, file names taken by other UIDs.
        let together = files.filter {
            !$0.contains("/malformed/") && !$0.hasSuffix("x-components-nested.ics") && (repair || !$0.hasSuffix("late-zones.ics"))
        }
        let expected = try Self.expected(together, repair: repair, split: "out")
        #expect(expected.status == 0 && expected.files.count > 50)
        #expect(try Self.actual(flags + together, split: "out", folder: folder) == expected)
    }

    @Test(arguments: ["ics", "jcal", "json", "csv"])
    func repairGivesTheOutputOfTheWholeRepairOnEveryFixture(_ format: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let files = Self.calendarFiles() + (try Self.hardFiles(in: folder))
        for pretty in format == "jcal" || format == "json" ? [false, true] : [false] {
            let flags = ["--repair", "--stamp", Self.stamp, "--memory", "16M", "--to", format] + (pretty ? ["--pretty"] : [])
            for file in files {
                let expected = try Self.expected([file], repair: true, split: nil, format: format, pretty: pretty)
                #expect(try Self.actual(flags + [file], split: nil, folder: folder) == expected, "\(file)")
            }
            let together = files.filter { !$0.contains("/malformed/") }
            let expected = try Self.expected(together, repair: true, split: nil, format: format, pretty: pretty)
            #expect(try Self.actual(flags + together, split: nil, folder: folder) == expected)
        }
    }

    @Test func standardInputIsSplitAndRepairedAsAFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hard = try Self.hardFiles(in: folder)
        let text = Self.hardCalendars[0].text
        for (repair, split) in [(true, "out"), (false, "out"), (true, nil)] as [(Bool, String?)] {
            let flags = repair ? ["--repair", "--stamp", Self.stamp] : []
            let expected = try Self.expected([hard[0], hard[1]], names: ["<stdin>", hard[1]], repair: repair, split: split)
            let actual = try Self.actual(flags + ["-", hard[1]], split: split, folder: folder, stdin: text)
            #expect(actual == expected)
        }
    }

    /// 24,000 events of 600 UIDs (masters, overrides and duplicates far apart, VTIMEZONE at
    /// the end): the records and notes spill under --memory 16M.
    @Test func recordsSpillUnderTheSmallestMemory() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        for index in 0..<24_000 {
            let uid = "series-\((index * 7_919) % 600)@example.com"
            let recurrence = index % 3 == 0 ? "" : "RECURRENCE-ID;TZID=Custom/Zone:202403\(String(format: "%02d", index % 28 + 1))T100000\r\n"
            text += "BEGIN:VEVENT\r\nUID:\(uid)\r\n\(recurrence)SEQUENCE:\(index % 4)\r\nDTSTAMP:2024\(String(format: "%02d", index % 12 + 1))01T000000Z\r\n"
                + "DTSTART;TZID=Custom/Zone:20240301T100000\r\nDTEND;TZID=Europe/Vienna:20240301T110000\r\nSUMMARY:Event \(index)\r\nEND:VEVENT\r\n"
        }
        text += "BEGIN:VTIMEZONE\r\nTZID:Custom/Zone\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0530\r\n"
            + "TZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nEND:VCALENDAR\r\n"
        let path = try folder.write("many.ics", text)
        for repair in [false, true] {
            let flags = (repair ? ["--repair", "--stamp", Self.stamp] : []) + ["--memory", "16M", path]
            let expected = try Self.expected([path], repair: repair, split: "out")
            #expect(expected.files.count == 600)
            #expect(try Self.actual(flags, split: "out", folder: folder) == expected)
        }
    }

    /// 4,000 VCALENDARs joined together, each with the same 1.6 KB VTIMEZONE (6.4 MB of
    /// them, past the quarter of --memory 16M kept for VTIMEZONEs): one copy is kept.
    @Test func joinedCalendarsRepeatingTheirTimeZonesKeepOneCopy() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Custom/Zone\r\nX-PAD:\(String(repeating: "z", count: 1_500))\r\nBEGIN:STANDARD\r\n"
            + "DTSTART:19700101T000000\r\nTZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        var text = ""
        for index in 0..<4_000 {
            text += "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//joined \(index % 3)//EN\r\n\(zone)BEGIN:VEVENT\r\nUID:e\(index % 300)\r\n"
                + "DTSTAMP:20240101T000000Z\r\nSEQUENCE:\(index % 5)\r\nDTSTART;TZID=Custom/Zone:20240301T100000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        }
        let path = try folder.write("joined.ics", text)
        for repair in [false, true] {
            let flags = (repair ? ["--repair", "--stamp", Self.stamp] : []) + ["--memory", "16M", path]
            let expected = try Self.expected([path], repair: repair, split: "out")
            #expect(expected.files.count == 300)
            #expect(try Self.actual(flags, split: "out", folder: folder) == expected)
        }
    }

    @Test func aTargetInTheWayStopsTheStreamedSplitBeforeAnythingIsWritten() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write("late.ics", Self.hardCalendars[0].text)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("out"), withIntermediateDirectories: true)
        _ = try folder.write("out/series.ics", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:someone-else\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        let output = try ICalRunner.run(["convert", "--repair", "--split", "out", path], in: folder.url)
        #expect(output.status == 1)
        #expect(output.stderr.hasSuffix("out/series.ics: exists and holds UID \"someone-else\", not UID \"series\"; not replaced, nothing was written\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("out").path) == ["series.ics"])
    }

    // MARK: Past the whole-read limit

    /// 300 MB piped into `ical convert - --repair --split DIR --memory 16M`: every item is
    /// written, and the child's peak memory stays far below the input's size.
    @Test func standardInputPastTheOldLimitIsRepairedAndSplitInBoundedMemory() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let target = folder.url.appendingPathComponent("vdir").path
        let result = try LargeInputTests.run(["convert", "-", "--repair", "--split", target, "--memory", "16M"], generating: true)
        #expect(result.status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: target).sorted()
        #expect(names == (0..<LargeInputTests.eventCount).map { "big-\($0)@example.com.ics" }.sorted())
        let first = try Data(contentsOf: URL(fileURLWithPath: target + "/big-7@example.com.ics"))
        #expect(first.count > 3_000_000)
        #expect(first.starts(with: Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit//Tests//EN\r\nBEGIN:VEVENT\r\nUID:big-7@example.com\r\n".utf8)))
        #expect(result.peak > 8 << 20 && result.peak < LargeInputTests.peakBound, "peak \(result.peak >> 20) MiB")
    }
}
