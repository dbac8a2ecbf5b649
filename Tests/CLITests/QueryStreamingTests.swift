import Foundation
import Testing

/// `ical query` on files writes its occurrences as the streams of the series are merged, in
/// pieces: output larger than a piece is whole and the same to standard output and to `-o`,
/// and an error in the middle leaves a `-o` file as it was (all or nothing) and fails with a
/// clear message on standard output.
@Suite struct QueryStreamingTests {
    /// Five years of a daily series and a weekly one: 2,088 occurrences, 140 KB (text) to
    /// 600 KB in a format, more than one 128 KiB piece.
    static let calendar = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//OpenEventKit//Tests//EN\r
        BEGIN:VEVENT\r
        UID:daily@example.com\r
        DTSTAMP:20200101T000000Z\r
        DTSTART;TZID=Europe/Berlin:20200101T090000\r
        DURATION:PT1H\r
        RRULE:FREQ=DAILY\r
        SUMMARY:Daily stand-up\r
        LOCATION:Room 1\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:weekly@example.com\r
        DTSTAMP:20200101T000000Z\r
        DTSTART:20200106T170000\r
        DURATION:PT90M\r
        RRULE:FREQ=WEEKLY\r
        SUMMARY:Choir\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// Runs `ical` through `sh -c` with the file size limit of `blocks` (512-byte blocks;
    /// SIGXFSZ ignored, so a write past it fails with EFBIG instead of killing the process).
    static func runLimited(_ arguments: [String], blocks: Int, stdoutFile: String, in folder: URL) throws
        -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let quoted = ([ICalRunner.executable.path] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(blocks); exec \(quoted) > '\(stdoutFile)'"]
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "HOME": folder.path, "PATH": "/usr/bin:/bin",
                               "TMPDIR": folder.path, "ICAL_NOW": "2026-11-22T10:00:00"]
        process.currentDirectoryURL = folder
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: PipeReader.readAll(errors.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    @Test(arguments: ["text", "json", "csv", "ics"])
    func largeOutputIsTheSameToStandardOutputAndToAFile(_ format: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.write("series.ics", Self.calendar)
        let arguments = ["query", "--between", "2020-01-01", "2025-01-01", "--format", format, input]
        let printed = try ICalRunner.run(arguments)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stderr.isEmpty)
        #expect(printed.stdout.utf8.count > 131_072)  // more than one 128 KiB piece
        let file = folder.url.appendingPathComponent("out.\(format)").path
        let written = try ICalRunner.run(arguments + ["-o", file])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.isEmpty)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == printed.stdout)
        // 1,827 days and 261 Mondays from 2020-01-06.
        let count: Int
        switch format {
        case "json": count = printed.stdout.components(separatedBy: "\n  {\"uid\"").count - 1
        case "csv": count = printed.stdout.components(separatedBy: "\r\n").count - 2
        case "ics": count = printed.stdout.components(separatedBy: "BEGIN:VEVENT").count - 1
        default: count = printed.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.count
        }
        #expect(count == 1827 + 261)
        if format == "json" {
            let parsed = try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [[String: Any]]
            #expect(parsed?.count == 1827 + 261)
            #expect(parsed?.first?["uid"] as? String == "daily@example.com")
            #expect(parsed?.last?["start"] as? String == "2024-12-31T09:00:00+01:00")
        }
    }

    /// The limit keeps the earliest occurrences, as a whole listing cut at that count.
    @Test func limitKeepsTheEarliest() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.write("series.ics", Self.calendar)
        let all = try ICalRunner.run(["query", "--between", "2020-01-01", "2020-02-01", "--format", "csv", input])
        let limited = try ICalRunner.run(["query", "--between", "2020-01-01", "2020-02-01", "--format", "csv",
                                          "--limit", "5", input])
        #expect(limited.status == 0)
        let rows = all.stdout.components(separatedBy: "\r\n")
        #expect(limited.stdout == rows.prefix(6).joined(separator: "\r\n") + "\r\n")
    }

    /// A write that fails after output began (the file size limit here) leaves `-o FILE` as
    /// it was, with no temporary file beside it, and exits 1 with the reason.
    @Test(arguments: ["json", "ics"])
    func aFailedWriteLeavesTheFileAsItWas(_ format: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.write("series.ics", Self.calendar)
        let target = try folder.write("agenda.out", "the previous agenda\n")
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        // 256 blocks: 128 KiB, less than the output; enough for sh and the input.
        let result = try Self.runLimited(["query", "--between", "2020-01-01", "2025-01-01", "--format", format,
                                          "-o", target, input],
                                         blocks: 256, stdoutFile: folder.url.appendingPathComponent("stdout").path, in: folder.url)
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write: File too large"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "the previous agenda\n")
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != "stdout" }.sorted()
        #expect(after == before)
    }

    /// On standard output a failure after output began still exits 1 with the reason.
    @Test func aFailedWriteToStandardOutputFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.write("series.ics", Self.calendar)
        let result = try Self.runLimited(["query", "--between", "2020-01-01", "2025-01-01", "--format", "text", input],
                                         blocks: 256, stdoutFile: folder.url.appendingPathComponent("stdout").path, in: folder.url)
        #expect(result.status == 1)
        #expect(result.stderr == "<stdout>: cannot write: File too large\n")
    }
}
