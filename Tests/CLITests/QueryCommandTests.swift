import Foundation
import Testing

/// `ical query` on the sample calendars, with TZ and "now" pinned (ICalRunner pins
/// TZ=UTC and ICAL_NOW=2026-11-22T10:00:00).
@Suite struct QueryCommandTests {
    let samples = ICalRunner.packageRoot.appendingPathComponent("samples/calendars")

    @Test func agendaForAWeekInBerlin() throws {
        let output = try ICalRunner.run(["query", "--between", "2026-12-01", "+7d", "--tz", "Europe/Berlin", "."], in: samples)
        #expect(output.status == 0, "\(output.stderr)")
        // The Outlook export writes TZOFFSETTO:-0000 for GMT, read as +0000 with a warning.
        #expect(output.stderr.split(separator: "\n").count == 2)
        #expect(output.stderr.contains("./outlook-export.ics:26: warning: TZOFFSETTO '-0000'"))
        #expect(output.stdout == """
            Tuesday 2026-12-01
              17:00-18:00  Elternsprechstunde @ Musikschule, Raum 2

            Wednesday 2026-12-02
              17:00-18:00  Staff meeting

            Thursday 2026-12-03
              17:00-18:30  Online-Workshop mit London
              18:00-19:30  Drop-in: jazz harmony @ Studio A
              19:00-21:00  Chorprobe @ Probenraum, Musikschule

            Saturday 2026-12-05
              all day      Student recital day

            Monday 2026-12-07
              16:30-17:15  Piano lesson – grade 3 (Émilie) @ Musikschule Mitte, Raum 2

            """)
    }

    /// Output that cannot be written (a full disk) is an error with exit status 1, not a
    /// silent success.
    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
    func unwritableOutputFails() throws {
        let (status, message) = try Self.runOntoAFullDisk(["query", "--between", "2026-12-01", "+7d", "--format", "json",
                                                           samples.appendingPathComponent("repeating-lessons.ics").path])
        #expect(status == 1)
        #expect(message == "<stdout>: cannot write: No space left on device\n")
    }

    /// Runs `ical` with its standard output on `/dev/full`: the exit status and standard error.
    static func runOntoAFullDisk(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = ICalRunner.executable
        process.arguments = arguments
        process.environment = ["TZ": "UTC", "ICAL_NOW": "2026-11-22T10:00:00", "PATH": "/usr/bin:/bin"]
        process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: PipeReader.readAll(errors.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    @Test func overrideReplacesItsInstanceAndExdateRemovesOne() throws {
        // 2026-10-26 is an EXDATE; the 2026-11-09 lesson moved to Tuesday 2026-11-10 17:00.
        let output = try ICalRunner.run(["query", "--between", "2026-10-19", "2026-11-17", "--format", "csv",
                                         "repeating-lessons.ics"], in: samples)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == """
            uid,recurrence-id,summary,start,end,all-day,time-zone,component,location,status,source,conference\r
            piano-weekly@openeventkit.example,2026-10-19T16:30:00+02:00,Piano lesson – grade 3 (Émilie),2026-10-19T16:30:00+02:00,2026-10-19T17:15:00+02:00,false,Europe/Berlin,VEVENT,"Musikschule Mitte, Raum 2",,repeating-lessons.ics,\r
            piano-weekly@openeventkit.example,2026-11-02T16:30:00+01:00,Piano lesson – grade 3 (Émilie),2026-11-02T16:30:00+01:00,2026-11-02T17:15:00+01:00,false,Europe/Berlin,VEVENT,"Musikschule Mitte, Raum 2",,repeating-lessons.ics,\r
            piano-weekly@openeventkit.example,2026-11-09T16:30:00+01:00,Piano lesson – grade 3 (Émilie) moved to Tuesday,2026-11-10T17:00:00+01:00,2026-11-10T17:45:00+01:00,false,Europe/Berlin,VEVENT,"Musikschule Mitte, Raum 5",,repeating-lessons.ics,\r
            piano-weekly@openeventkit.example,2026-11-16T16:30:00+01:00,Piano lesson – grade 3 (Émilie),2026-11-16T16:30:00+01:00,2026-11-16T17:15:00+01:00,false,Europe/Berlin,VEVENT,"Musikschule Mitte, Raum 2",,repeating-lessons.ics,\r

            """)
    }

    @Test func jsonHasTheDocumentedShape() throws {
        let output = try ICalRunner.run(["query", "--at", "2026-12-05", "--format", "json", "monthly-events.ics"], in: samples)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == """
            [
              {"uid": "recital@openeventkit.example", "recurrenceId": "2026-12-05", "summary": "Student recital day", "start": "2026-12-05", "end": "2026-12-06", "allDay": true, "timeZone": null, "component": "VEVENT", "location": null, "status": null, "source": "monthly-events.ics"}
            ]

            """)
        let parsed = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.count == 1)
    }

    @Test func componentFilterAndLimit() throws {
        let todos = try ICalRunner.run(["query", "--at", "2026-12", "--component", "VTODO", "--format", "csv", "."], in: samples)
        #expect(todos.stdout.split(separator: "\r\n").count == 2)
        #expect(todos.stdout.contains("grades@openeventkit.example"))
        let limited = try ICalRunner.run(["query", "--at", "2026-12", "--limit", "2", "--format", "csv", "."], in: samples)
        #expect(limited.stdout.split(separator: "\r\n").count == 3)
    }

    @Test func icsOutputIsAValidCalendarWithItsTimeZones() throws {
        let output = try ICalRunner.run(["query", "--at", "2026-11-10", "--format", "ics", "repeating-lessons.ics"], in: samples)
        #expect(output.status == 0)
        #expect(output.stdout.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:20261025T030000\r\n"))
        #expect(output.stdout.contains("RECURRENCE-ID;TZID=Europe/Berlin:20261109T163000\r\nDTSTART;TZID=Europe/Berlin:20261110T170000\r\n"))
        #expect(!output.stdout.contains("RRULE:FREQ=WEEKLY"))
        let validate = try ICalRunner.run(["validate", "--strict", "-"], stdin: output.stdout)
        #expect(validate.status == 0, "\(validate.stdout)")
    }

    @Test func todayIsRelativeToNow() throws {
        let output = try ICalRunner.run(["query", "--between", "today", "+30d", "--format", "csv", "repeating-lessons.ics"], in: samples)
        let rows = output.stdout.split(separator: "\r\n")
        #expect(rows.count == 6)  // header and 2026-11-23, 11-30, 12-07, 12-14, 12-21
        #expect(rows[1].contains("2026-11-23T16:30:00+01:00"))
    }

    @Test func badWindowAndZoneAreUsageErrors() throws {
        let badWhen = try ICalRunner.run(["query", "--at", "2026-13", "x.ics"], in: samples)
        #expect(badWhen.status == 2)
        #expect(badWhen.stderr == "ical: '2026-13' names a time that does not exist\n")
        let garbled = try ICalRunner.run(["query", "--at", "soon", "x.ics"], in: samples)
        #expect(garbled.status == 2)
        #expect(garbled.stderr.hasPrefix("ical: 'soon' is not a time: use 2026, 2026-12"))
        let reversed = try ICalRunner.run(["query", "--between", "2026-12-02", "2026-12-01", "x.ics"], in: samples)
        #expect(reversed.status == 2)
        #expect(reversed.stderr.contains("is not after the start"))
        let zone = try ICalRunner.run(["query", "--at", "2026", "--tz", "Mars/Olympus", "x.ics"], in: samples)
        #expect(zone.status == 2)
        #expect(zone.stderr == "ical: unknown time zone 'Mars/Olympus' (use an IANA name such as Europe/Berlin)\n")
        // No input is the store (since the store commands), queried as ical under its access:
        // denied here, so the guidance and 77 without a prompt.
        let storeFolder = try TemporaryFolder()
        defer { storeFolder.remove() }
        let store = storeFolder.url.appendingPathComponent("store").path
        _ = try ICalRunner.run(["privacy", "revoke", "org.openeventkit.ical", "--store", store])
        let missing = try ICalRunner.run(["query", "--at", "2026", "--store", store], in: samples)
        #expect(missing.status == 77)
        #expect(missing.stderr.contains("ical privacy grant org.openeventkit.ical --events full"), "\(missing.stderr)")
        let storeAndFiles = try ICalRunner.run(["query", "--at", "2026", "--store", "/tmp/x", "x.ics"], in: samples)
        #expect(storeAndFiles.status == 64)
        let both = try ICalRunner.run(["query", "--at", "2026", "--between", "2026", "2027", "x.ics"], in: samples)
        #expect(both.status == 64)
    }

    @Test func nothingIsWrittenToOutputOnFailure() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let target = folder.url.appendingPathComponent("out.ics").path
        let output = try ICalRunner.run(["query", "--at", "2026", "-o", target, "/nonexistent.ics"])
        #expect(output.status == 1)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// A store in `folder` with full access for `ical` and the repeating lessons imported.
    private func lessonsStore(in folder: TemporaryFolder) throws -> String {
        let store = folder.url.appendingPathComponent("store").path
        for setup in [["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"],
                      ["import", samples.appendingPathComponent("repeating-lessons.ics").path]] {
            let output = try ICalRunner.run(setup + ["--store", store])
            try #require(output.status == 0, "\(setup): \(output.stderr)")
        }
        return store
    }

    /// Runs `ical` with `arguments`, its standard output redirected by the shell
    /// (`redirection`: `>` or `>>`) to `target`; its exit status.
    static func run(_ arguments: [String], redirecting redirection: String, to target: String, home: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let quoted = ([ICalRunner.executable.path] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        process.arguments = ["-c", "exec \(quoted) \(redirection) '\(target)'"]
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "HOME": home, "PATH": "/usr/bin:/bin"]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A store query holds the query index alone (SQLite's exclusive locking, the log's
    /// index in memory: no `index.sqlite-shm` is made) while its output cannot make it wait:
    /// `-o`, standard output redirected to a file or to `/dev/null`; onto a pipe it shares
    /// the index, as a reader at the other end could hold the query up for as long as it
    /// likes. The output is the same every way.
    @Test func aStoreQueryHoldsTheIndexAloneOnlyWhileItsOutputCannotWait() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try lessonsStore(in: folder)
        let shared = store + "/.openeventkit/index.sqlite-shm"
        let query = ["query", "--between", "2026-09-01", "+60d", "--format", "json", "--store", store]
        let piped = try ICalRunner.run(query)
        #expect(piped.status == 0 && piped.stdout.contains("Piano lesson"), "\(piped.stderr)")
        #expect(FileManager.default.fileExists(atPath: shared))
        func redirected(to target: String) throws -> Int32 {
            try Self.run(query, redirecting: ">", to: target, home: folder.url.path)
        }
        let file = folder.url.appendingPathComponent("out.json").path
        let runs: [(String, () throws -> Int32)] = [
            ("-o", { try ICalRunner.run(query + ["-o", file]).status }),
            ("> file", { try redirected(to: file) }),
            ("> /dev/null", { try redirected(to: "/dev/null") }),
        ]
        for (way, run) in runs {
            try? FileManager.default.removeItem(atPath: shared)
            try? FileManager.default.removeItem(atPath: file)
            #expect(try run() == 0, "\(way)")
            #expect(!FileManager.default.fileExists(atPath: shared), "\(way): the index was held alone")
            if way != "> /dev/null" {
                #expect(try String(contentsOfFile: file, encoding: .utf8) == piped.stdout, "\(way)")
            }
        }
        #expect(try ICalRunner.run(query).stdout == piped.stdout)
        #expect(FileManager.default.fileExists(atPath: shared), "onto a pipe the index is shared")
    }

    /// A store query's output is opened before the store is read, and a repeated query
    /// writes the index's rendered weeks one at a time: a query that fails leaves its output
    /// file as it was, with no temporary file beside it, and a repeated query writes what the
    /// first wrote, or fails as it does when its output cannot be written.
    @Test func storeQueriesWriteTheirOutputWholeOrNotAtAll() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try lessonsStore(in: folder)
        let target = folder.url.appendingPathComponent("out.json").path
        try "before\n".write(toFile: target, atomically: true, encoding: .utf8)
        let query = ["query", "--between", "2026-09-01", "+60d", "--format", "json", "--store", store]
        let failed = try ICalRunner.run(query + ["--app", "/nonexistent/Info.plist", "-o", target])
        #expect(failed.status != 0)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "before\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["out.json", "store"])
        let first = try ICalRunner.run(query)
        #expect(first.status == 0 && first.stdout.contains("Piano lesson"), "\(first.stderr)")
        for _ in 0..<2 {
            let written = try ICalRunner.run(query + ["-o", target])
            #expect(written.status == 0 && written.stdout.isEmpty, "\(written.stderr)")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == first.stdout)
            #expect(try ICalRunner.run(query).stdout == first.stdout)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["out.json", "store"])
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { return }
        let (status, message) = try Self.runOntoAFullDisk(query)
        #expect(status == 1)
        #expect(message == "<stdout>: cannot write: No space left on device\n")
    }

    /// A repeated store query writes its dense weeks from their files in the index's
    /// renderings folder (a week of 256 KiB or more stored in a file of its own, mapped as
    /// it is written) onto a pipe, into `-o`'s file, into a file standard output was
    /// redirected to, and appended to one: every way writes what the first query wrote, in
    /// JSON and CSV.
    @Test func repeatedQueriesWriteTheStoredWeeksEveryWay() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        // Twelve hourly series through March: weeks of hundreds of kilobytes.
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Tests//EN"]
        for number in 0..<12 {
            lines += ["BEGIN:VEVENT", "UID:hourly-\(number)", "DTSTAMP:20260101T000000Z",
                      "DTSTART:20260226T\(String(format: "%02d", number))0500Z", "DURATION:PT\(20 + number)M",
                      "RRULE:FREQ=HOURLY;COUNT=1000",
                      "SUMMARY:Hourly \(number), with a summary long enough for a few hundred bytes an entry",
                      "LOCATION:Room \(number)", "END:VEVENT"]
        }
        let ics = try folder.write("hourly.ics", (lines + ["END:VCALENDAR", ""]).joined(separator: "\r\n"))
        for setup in [["privacy", "grant", "org.openeventkit.ical", "--events", "full"], ["import", ics]] {
            let output = try ICalRunner.run(setup + ["--store", store])
            try #require(output.status == 0, "\(setup): \(output.stderr)")
        }
        let renderings = store + "/.openeventkit/index.sqlite-renderings"
        for format in ["json", "csv"] {
            let query = ["query", "--at", "2026-03", "--tz", "UTC", "--format", format, "--store", store]
            let first = try ICalRunner.run(query)
            #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
            #expect(first.stdout.utf8.count > 500_000, "\(format): \(first.stdout.utf8.count) bytes")
            let stored = try FileManager.default.contentsOfDirectory(atPath: renderings)
            #expect(stored.count >= (format == "json" ? 4 : 8), "\(format): the month's weeks are in files: \(stored)")
            let file = folder.url.appendingPathComponent("out." + format).path
            func redirected(_ redirection: String) throws -> Int32 {
                try Self.run(query, redirecting: redirection, to: file, home: folder.url.path)
            }
            let again = try ICalRunner.run(query)
            #expect(again.status == 0 && again.stdout == first.stdout, "\(format): onto a pipe")
            #expect(try ICalRunner.run(query + ["-o", file]).status == 0)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == first.stdout, "\(format): -o")
            #expect(try redirected(">") == 0)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == first.stdout, "\(format): > file")
            try "before\n".write(toFile: file, atomically: false, encoding: .utf8)
            #expect(try redirected(">>") == 0)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "before\n" + first.stdout, "\(format): >> file")
        }
    }

    @Test func pathologicalRuleIsBoundedAndWarned() throws {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\nUID:s\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240101T000000Z\r\nRRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let output = try ICalRunner.run(["query", "--at", "2024", "-"], stdin: text)
        // DTSTART is always the first instance (RFC 5545 §3.8.5.3); the rule never matches,
        // which the engine finds by skipping whole years: the answer is complete, no warning.
        #expect(output.status == 0)
        #expect(output.stdout == "Monday 2024-01-01\n  00:00        (no title) (UTC)\n")
        #expect(output.stderr == "")
        // A rule that really has millions of instances in the window stops at the budget.
        let dense = text.replacingOccurrences(of: "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30", with: "FREQ=SECONDLY")
        let bounded = try ICalRunner.run(["query", "--at", "2024", "--format", "csv", "-"], stdin: dense)
        #expect(bounded.status == 0)
        #expect(bounded.stderr == "<stdin>:4: warning: expanding UID s stopped at the occurrences budget; its occurrences in this window are incomplete [VEVENT RRULE]\n")
    }
}

@Suite struct StrictReadingTests {
    static let bare = "BEGIN:VEVENT\r\nUID:x\r\nDTSTART:20261201T100000Z\r\nEND:VEVENT\r\n"

    @Test func strictTurnsWarningsIntoErrorsForConvertAndQuery() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.write("bare.ics", Self.bare)
        let target = folder.url.appendingPathComponent("out.ics").path
        let lenient = try ICalRunner.run(["convert", input, "-o", target])
        #expect(lenient.status == 0)
        try FileManager.default.removeItem(atPath: target)
        let convert = try ICalRunner.run(["convert", "--strict", input, "-o", target])
        #expect(convert.status == 1)
        #expect(convert.stderr.hasSuffix("ical: --strict: \(input) has 1 problem; nothing written\n"))
        #expect(!FileManager.default.fileExists(atPath: target))
        let query = try ICalRunner.run(["query", "--strict", "--at", "2026-12", input])
        #expect(query.status == 1)
        #expect(query.stdout.isEmpty)
    }
}
