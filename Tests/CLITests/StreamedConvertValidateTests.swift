import Foundation
import ICalKit
import Testing

/// `ical convert` (every format) and `ical validate` stream files and standard input of any
/// size (issue 42): their output must be that of whole reads on every fixture, also when
/// VTIMEZONEs or calendar properties come after the events, when spilling under the
/// smallest --memory, and past the old 256 MiB whole-read limit.
@Suite struct StreamedConvertValidateTests {
    private static let fixtureRoot = ICalRunner.packageRoot.appendingPathComponent("Tests/ICalKitTests/Fixtures")

    private static func calendarFiles() -> [String] {
        let folders = [fixtureRoot.appendingPathComponent("valid"), fixtureRoot.appendingPathComponent("malformed"),
                       ICalRunner.packageRoot.appendingPathComponent("samples/calendars")]
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".ics") }.sorted().map { folder.appendingPathComponent($0).path }
        }
    }

    /// What a whole read converts to.
    private static func expected(_ calendars: [Component], _ format: String, pretty: Bool = false) -> String {
        switch format {
        case "ics": return ICalWriter().string(calendars)
        case "jcal": return JCalWriter().string(calendars, pretty: pretty)
        case "json": return ComponentJSONWriter(pretty: pretty).string(calendars)
        default: return ComponentCSVWriter().string(calendars)
        }
    }

    /// A calendar whose VTIMEZONE, METHOD and X-WR-CALNAME come after its events, and a
    /// series whose override is far from its master.
    private static let lateCalendar: String = {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        text += "BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20240101T000000Z\r\nDTSTART;TZID=Custom/Zone:20240301T100000\r\n"
            + "RRULE:FREQ=DAILY;COUNT=5\r\nEND:VEVENT\r\n"
        for index in 0..<40 {
            text += "BEGIN:VEVENT\r\nUID:e\(index)\r\nDTSTAMP:20240101T000000Z\r\nDTSTART;TZID=Custom/Zone:20240301T100000\r\n"
                + "DTEND;TZID=Custom/Zone:20240301T110000\r\nSUMMARY:Event \(index)\r\nEND:VEVENT\r\n"
        }
        text += "BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20240101T000000Z\r\nRECURRENCE-ID;TZID=Custom/Zone:20240303T100000\r\n"
            + "DTSTART;TZID=Custom/Zone:20240303T120000\r\nEND:VEVENT\r\n"
        text += "X-WR-CALNAME:Late\r\nMETHOD:PUBLISH\r\n"
        text += "BEGIN:VTIMEZONE\r\nTZID:Custom/Zone\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n"
            + "TZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nEND:VCALENDAR\r\n"
        return text
    }()

    @Test(arguments: ["ics", "jcal", "json", "csv"])
    func everyFormatGivesTheOutputOfAWholeRead(_ format: String) throws {
        for file in Self.calendarFiles() {
            let whole = try ICalReader().read(contentsOfFile: file)
            let output = try ICalRunner.run(["convert", "--to", format, file])
            if whole.calendars.isEmpty {
                #expect(output.status == 1, "\(file)")
                continue
            }
            #expect(output.status == 0, "\(file): \(output.stderr)")
            #expect(output.stdout == Self.expected(whole.calendars, format), "\(file)")
        }
        let files = Self.calendarFiles().filter { !$0.contains("malformed") }
        let calendars = try files.flatMap { try ICalReader().read(contentsOfFile: $0).calendars }
        let merged = try ICalRunner.run(["convert", "--to", format] + files)
        #expect(merged.stdout == Self.expected(calendars, format))
    }

    @Test(arguments: ["ics", "jcal", "json", "csv"])
    func lateTimeZonesAndPropertiesFromAFileAndStandardInput(_ format: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write("late.ics", Self.lateCalendar)
        let whole = try ICalReader().read(Self.lateCalendar, file: path).calendars
        for pretty in format == "jcal" || format == "json" ? [false, true] : [false] {
            let flags = pretty ? ["--pretty"] : []
            let fromFile = try ICalRunner.run(["convert", "--to", format, "--memory", "16M", path] + flags)
            #expect(fromFile.status == 0, "\(fromFile.stderr)")
            #expect(fromFile.stdout == Self.expected(whole, format, pretty: pretty))
            let fromStandardInput = try ICalRunner.run(["convert", "--to", format, "-"] + flags, stdin: Self.lateCalendar)
            #expect(fromStandardInput.stdout == Self.expected(whole, format, pretty: pretty))
        }
        if format == "json" {
            #expect(Self.expected(whole, format).contains("2024-03-01T10:00:00+05:30"))
        }
    }

    /// What `ical validate` printed before streaming: ``Linter`` over whole reads.
    private static func wholeValidate(_ paths: [String], names: [String]? = nil) -> String {
        var summary = LintSummary()
        var text = ""
        for (index, path) in paths.enumerated() {
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            let report = Linter().lint(Array(bytes), file: names?[index] ?? path)
            text += report.findings.map { "\($0)\n" }.joined()
            summary.add(report)
        }
        return text + summary.line + "\n"
    }

    @Test func validateGivesTheFindingsOfWholeReads() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let late = try folder.write("late.ics", Self.lateCalendar)
        let again = try folder.write("again.ics", Self.lateCalendar.replacingOccurrences(of: "UID:e1", with: "UID:f1"))
        for files in [Self.calendarFiles(), [late, again]] {
            for memory in ["512M", "16M"] {
                let output = try ICalRunner.run(["validate", "--memory", memory] + files)
                #expect(output.stdout == Self.wholeValidate(files))
            }
            var summary = LintSummary()
            for file in files { summary.add(try Linter().lint(contentsOfFile: file)) }
            let json = try ICalRunner.run(["validate", "--format", "json", "--memory", "16M"] + files)
            #expect(json.stdout == summary.json())
        }
        let standardInput = try ICalRunner.run(["validate", "-"], stdin: Self.lateCalendar)
        #expect(standardInput.stdout == Self.wholeValidate([late], names: ["<stdin>"]))
    }

    // MARK: Past the whole-read limit

    /// Runs `ical` with `count` events of a megabyte each written to its standard input as
    /// they are made (nothing is held or stored by the test).
    private static func runWithGeneratedInput(_ arguments: [String], events count: Int) throws -> ICalRunner.Output {
        let process = Process()
        process.executableURL = ICalRunner.executable
        process.arguments = arguments
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin",
                               "HOME": FileManager.default.temporaryDirectory.appendingPathComponent("ical-home-\(UUID().uuidString)").path]
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let writer = Thread {
            let handle = input.fileHandleForWriting
            let padding = String(repeating: "x", count: 1 << 20)
            handle.write(Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n".utf8))
            for index in 0..<count {
                handle.write(Data(("BEGIN:VEVENT\r\nUID:e\(index)\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240101T100000Z\r\n"
                    + "X-PAD:\(padding)\r\nEND:VEVENT\r\n").utf8))
            }
            handle.write(Data("END:VCALENDAR\r\n".utf8))
            try? handle.close()
        }
        writer.start()
        let (stdoutData, stderrData) = PipeReader.readAll(out.fileHandleForReading, err.fileHandleForReading)
        process.waitUntilExit()
        return ICalRunner.Output(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                                 stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// 270 events of a megabyte (283 MB, past the 256 MiB that whole reads refuse) piped in.
    @Test func standardInputPastTheWholeReadLimit() throws {
        let events = 270
        let validate = try Self.runWithGeneratedInput(["validate", "--quiet", "--memory", "16M", "-"], events: events)
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout == "1 file, \(events) components: 0 errors, \(events) warnings\n")
        let convert = try Self.runWithGeneratedInput(["convert", "--to", "csv", "--memory", "16M", "-"], events: events)
        #expect(convert.status == 0, "\(convert.stderr)")
        let rows = convert.stdout.split(separator: "\r\n")
        #expect(rows.count == events + 1)
        #expect(rows.last == "e\(events - 1),,2024-01-01T10:00:00Z,,false,UTC,,,,,")
    }
}
