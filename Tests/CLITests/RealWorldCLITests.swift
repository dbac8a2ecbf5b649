import Foundation
import Synchronization
import Testing

/// Issue 14's CLI items with the shapes users hit: pasting what `ical` prints into --at and
/// --between, a query with no window, cancelled instances on request, and -o onto a
/// symbolic link, a FIFO or a device.
@Suite struct RealWorldCLITests {
    static let lessons = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:lesson@example.com\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;TZID=Europe/Berlin:20261102T170000\r
        DTEND;TZID=Europe/Berlin:20261102T180000\r
        RRULE:FREQ=WEEKLY;COUNT=4\r
        SUMMARY:Piano\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:lesson@example.com\r
        DTSTAMP:20260101T000000Z\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261109T170000\r
        DTSTART;TZID=Europe/Berlin:20261109T170000\r
        DTEND;TZID=Europe/Berlin:20261109T180000\r
        STATUS:CANCELLED\r
        SUMMARY:Piano (cancelled)\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test(arguments: [
        ["--at", "2026-11-16T16:00:00Z"],
        ["--at", "2026-11-16T17:00:00+01:00"],
        ["--at", "2026-11-16T17:00+0100"],
        ["--at", "20261116T160000Z"],
        ["--at", "2026-11-16T16:00:00.000Z"],
        ["--at", "2026-W47-1"],
        ["--at", "2026-W47"],
        ["--between", "2026-11-16T00:00:00Z", "2026-11-17T00:00:00+01:00"],
        ["--between", "2026-11-15T23:00:00-01:00", "+1d"],
    ])
    func windowsInTheFormsIcalPrints(_ window: [String]) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("lessons.ics", Self.lessons)
        let output = try ICalRunner.run(["query"] + window + ["--format", "csv", file])
        #expect(output.status == 0, "\(output.stderr)")
        let rows = output.stdout.split(separator: "\r\n").dropFirst()
        #expect(rows.count == 1)
        #expect(rows.first?.contains("2026-11-16T17:00:00+01:00") == true)
    }

    @Test(arguments: ["2026-11-16Z", "2026-11-16T17:00+25:00", "2026-W54", "2026-W47-8", "2025-W53"])
    func badISOFormsAreRefused(_ moment: String) throws {
        let output = try ICalRunner.run(["query", "--at", moment, "-"], stdin: Self.lessons)
        #expect(output.status == 2)
        #expect(!output.stderr.isEmpty)
    }

    @Test func theJSONStartOfAnOccurrenceIsAValidWindow() throws {
        // Round trip: what `ical query --format json` prints is accepted back.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("lessons.ics", Self.lessons)
        let json = try ICalRunner.run(["query", "--between", "2026-11", "+60d", "--format", "json", file])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let start = try #require(objects.last?["start"] as? String)
        let again = try ICalRunner.run(["query", "--at", start, "--format", "json", file])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains(start))
    }

    @Test func noWindowIsTodayAndTheNextSixDays() throws {
        // ICAL_NOW is pinned to 2026-11-22T10:00:00 (UTC); the lesson of 2026-11-23 is in,
        // so is one on the 2026-11-29 border, not 2026-11-30.
        let text = Self.lessons.replacingOccurrences(of: "COUNT=4", with: "COUNT=8")
        let output = try ICalRunner.run(["query", "--format", "csv", "-"], stdin: text)
        #expect(output.status == 0, "\(output.stderr)")
        let rows = output.stdout.split(separator: "\r\n").dropFirst()
        #expect(rows.count == 1)
        #expect(rows.first?.contains("2026-11-23T17:00:00+01:00") == true)
        let help = try ICalRunner.run(["query", "--help"])
        #expect(help.stdout.contains("today and the next six days"))
    }

    @Test func cancelledInstancesAreLeftOutUnlessAskedFor() throws {
        let left = try ICalRunner.run(["query", "--at", "2026-11", "--format", "csv", "-"], stdin: Self.lessons)
        #expect(left.status == 0)
        #expect(!left.stdout.contains("2026-11-09"))
        #expect(left.stdout.split(separator: "\r\n").count == 4)

        let csv = try ICalRunner.run(["query", "--at", "2026-11", "--include-cancelled", "--format", "csv", "-"], stdin: Self.lessons)
        #expect(csv.stdout.contains("Piano (cancelled),2026-11-09T17:00:00+01:00,2026-11-09T18:00:00+01:00,false,Europe/Berlin,VEVENT,,CANCELLED,"))
        let json = try ICalRunner.run(["query", "--at", "2026-11", "--include-cancelled", "--format", "json", "-"], stdin: Self.lessons)
        #expect(json.stdout.contains(#""status": "CANCELLED""#))
        let text = try ICalRunner.run(["query", "--at", "2026-11", "--include-cancelled", "-"], stdin: Self.lessons)
        #expect(text.stdout.contains("17:00-18:00  Piano (cancelled) [cancelled]"))
        let ics = try ICalRunner.run(["query", "--at", "2026-11", "--include-cancelled", "--format", "ics", "-"], stdin: Self.lessons)
        #expect(ics.stdout.contains("STATUS:CANCELLED\r\n"))
    }

    @Test func outputOntoASymbolicLinkWritesTheTarget() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("lessons.ics", Self.lessons)
        let target = try folder.write("real.csv", "old\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
        let link = folder.url.appendingPathComponent("out.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.csv")
        let output = try ICalRunner.run(["query", "--at", "2026-11", "--format", "csv", "-o", link, file])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.csv")
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("uid,"))
        #expect((try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int) == 0o600)
        // Every writer goes the same way: convert and lessons too.
        let converted = try ICalRunner.run(["convert", file, "--to", "json", "-o", link])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.csv")
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("["))
        // A dangling link creates its target.
        let dangling = folder.url.appendingPathComponent("dangling.ics").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "made.ics")
        #expect(try ICalRunner.run(["convert", file, "-o", dangling]).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("made.ics").path))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling) == "made.ics")
    }

    @Test func outputOntoAFIFOWritesIntoIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("lessons.ics", Self.lessons)
        let fifo = folder.url.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Mutex<Data>(Data())
        let reader = Thread {
            let data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
            received.withLock { $0 = data }
        }
        reader.start()
        let output = try ICalRunner.run(["query", "--at", "2026-11", "--format", "csv", "-o", fifo, file])
        #expect(output.status == 0, "\(output.stderr)")
        for _ in 0..<100 where received.withLock({ $0.isEmpty }) { usleep(20_000) }
        #expect(String(decoding: received.withLock { $0 }, as: UTF8.self).hasPrefix("uid,"))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
    }

    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
    func outputOntoACharacterDeviceWritesIntoIt() throws {
        // /dev/null takes the bytes and stays a device; /dev/full reports the error.
        let null = try ICalRunner.run(["query", "--at", "2026-11", "--format", "csv", "-o", "/dev/null", "-"], stdin: Self.lessons)
        #expect(null.status == 0, "\(null.stderr)")
        let full = try ICalRunner.run(["query", "--at", "2026-11", "--format", "csv", "-o", "/dev/full", "-"], stdin: Self.lessons)
        #expect(full.status == 1)
        #expect(full.stderr.contains("No space left on device"))
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }
}
