import Foundation
import Testing

/// `ical convert --to json|csv`, `--repair` and `--split`, run through the built binary.
@Suite struct ConvertInterchangeTests {
    static let outlook = """
        BEGIN:VCALENDAR\r
        BEGIN:VTIMEZONE\r
        TZID:W. Europe Standard Time\r
        BEGIN:STANDARD\r
        DTSTART:16010101T030000\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r
        END:STANDARD\r
        BEGIN:DAYLIGHT\r
        DTSTART:16010101T020000\r
        TZOFFSETFROM:+0100\r
        TZOFFSETTO:+0200\r
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r
        END:DAYLIGHT\r
        END:VTIMEZONE\r
        BEGIN:VEVENT\r
        SUMMARY:Planning\r
        DTSTART;TZID=W. Europe Standard Time:20240610T090000\r
        DTEND;TZID=W. Europe Standard Time:20240610T100000\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:mars@example.com\r
        DTSTAMP:20240101T000000Z\r
        DTSTART;TZID=Mars/Olympus:20240611T090000\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    static let google = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Google Inc//Google Calendar 70.9054//EN\r
        X-WR-TIMEZONE:America/New_York\r
        BEGIN:VEVENT\r
        UID:g1@google.com\r
        DTSTAMP:20240101T000000Z\r
        DTSTART:20240115T090000\r
        DTEND:20240115T093000\r
        RRULE:FREQ=WEEKLY;UNTIL=20240311T090000\r
        SUMMARY:Stand-up, "daily"\r
        CATEGORIES:Work,Team\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:g1@google.com\r
        RECURRENCE-ID:20240122T090000\r
        DTSTAMP:20240101T000000Z\r
        DTSTART:20240122T100000\r
        DTEND:20240122T103000\r
        SUMMARY:Stand-up (moved)\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:holiday@google.com\r
        DTSTAMP:20240101T000000Z\r
        DTSTART;VALUE=DATE:20240120\r
        DTEND;VALUE=DATE:20240121\r
        SUMMARY:Holiday\r
        DESCRIPTION:Two\\nlines\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    // MARK: json and csv

    @Test func jsonGolden() throws {
        let output = try ICalRunner.run(["convert", "-", "--to", "json"], stdin: Self.google)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.isEmpty)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        #expect(objects.count == 3)
        #expect(output.stdout.hasPrefix(#"[{"component":"VEVENT","uid":"g1@google.com","summary":"Stand-up, \"daily\"","#
            + #""start":"2024-01-15T09:00:00","end":"2024-01-15T09:30:00","allDay":false,"timeZone":null,"#
            + #""location":null,"description":null,"rrule":"FREQ=WEEKLY;UNTIL=20240311T090000","status":null,"#
            + #""categories":["Work","Team"],"recurrenceId":null,"sequence":null,"properties":[{"name":"UID","#))
        #expect(objects[1]["recurrenceId"] as? String == "2024-01-22T09:00:00")
        #expect(objects[2]["allDay"] as? Bool == true)
        #expect(objects[2]["description"] as? String == "Two\nlines")
    }

    @Test func repairedJSONHasOffsets() throws {
        let output = try ICalRunner.run(["convert", "-", "--repair", "--to", "json", "--pretty"], stdin: Self.google)
        #expect(output.status == 0, "\(output.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        #expect(objects[0]["start"] as? String == "2024-01-15T09:00:00-05:00")
        #expect(objects[0]["timeZone"] as? String == "America/New_York")
        #expect(output.stdout.hasPrefix("[\n  {\"component\": \"VEVENT\""))
    }

    @Test func csvGolden() throws {
        let output = try ICalRunner.run(["convert", "-", "--to", "csv"], stdin: Self.google)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "uid,summary,start,end,all-day,time zone,location,description,rrule,status,categories\r\n"
            + "g1@google.com,\"Stand-up, \"\"daily\"\"\",2024-01-15T09:00:00,2024-01-15T09:30:00,false,,,,"
            + "FREQ=WEEKLY;UNTIL=20240311T090000,,\"Work,Team\"\r\n"
            + "g1@google.com,Stand-up (moved),2024-01-22T10:00:00,2024-01-22T10:30:00,false,,,,,,\r\n"
            + "holiday@google.com,Holiday,2024-01-20,2024-01-21,true,,,\"Two\nlines\",,,\r\n")
    }

    @Test func prettyIsRejectedForCSV() throws {
        let output = try ICalRunner.run(["convert", "-", "--to", "csv", "--pretty"], stdin: Self.google)
        #expect(output.status == 64)
        #expect(output.stderr.contains("--pretty applies to --to jcal and --to json only."))
        #expect(output.stdout.isEmpty)
    }

    @Test func failedConversionWritesNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let target = folder.url.appendingPathComponent("out.json").path
        for format in ["json", "csv"] {
            let output = try ICalRunner.run(["convert", "-", "--to", format, "-o", target], stdin: "not a calendar\n")
            #expect(output.status == 1)
            #expect(output.stderr.contains("nothing written"))
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    @Test func inputWithoutCalendarDataWritesNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let good = try folder.write("good.ics", Self.google)
        let empty = try folder.write("empty.ics", "")
        let target = folder.url.appendingPathComponent("out.ics").path
        let output = try ICalRunner.run(["convert", good, empty, "-o", target])
        #expect(output.status == 1)
        #expect(output.stderr.hasSuffix("ical: \(empty) holds no calendar data; nothing written\n"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func missingInputAndUnwritableOutputAreReportedPlainly() throws {
        let missing = try ICalRunner.run(["convert", "/nonexistent/in.ics", "--to", "json"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "/nonexistent/in.ics: no such file or folder\n")
        let unwritable = try ICalRunner.run(["convert", "-", "--to", "csv", "-o", "/nonexistent/out.csv"], stdin: Self.google)
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr.hasPrefix("/nonexistent/out.csv: cannot create a temporary file beside it"))
    }

    // MARK: repair

    @Test func repairGolden() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.write("in.ics", Self.outlook)
        let target = folder.url.appendingPathComponent("out.ics").path
        let output = try ICalRunner.run(["convert", "in.ics", "--repair", "--stamp", "20240501T120000Z", "-o", target],
                                        in: folder.url)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr == """
            in.ics:1: repaired: added VERSION:2.0
            in.ics:1: repaired: added PRODID:-//OpenEventKit//ical//EN
            in.ics:1: repaired: added VTIMEZONE "Europe/Berlin" generated from tzdata
            in.ics:2: repaired: removed VTIMEZONE "W. Europe Standard Time"; "Europe/Berlin" is generated from tzdata instead
            in.ics:17: repaired: added UID:\(try Self.uid(in: target)) to VEVENT
            in.ics:17: repaired: added DTSTAMP:20240501T120000Z to VEVENT
            in.ics:19: repaired: TZID "W. Europe Standard Time" -> "Europe/Berlin"
            in.ics:20: repaired: TZID "W. Europe Standard Time" -> "Europe/Berlin"
            in.ics:25: warning: TZID "Mars/Olympus" is not a known IANA, Windows or vendor-prefixed zone and has no VTIMEZONE; left as it is

            """)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit//ical//EN\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"))
        #expect(written.contains("DTSTART;TZID=Europe/Berlin:20240610T090000\r\n"))
        #expect(written.contains("DTSTART;TZID=Mars/Olympus:20240611T090000\r\n"))
        #expect(!written.contains("W. Europe"))
        // Deterministic: the same input repaired again gives the same bytes.
        let again = try ICalRunner.run(["convert", input, "--repair", "--stamp", "20240501T120000Z"])
        #expect(Data(again.stdout.utf8) == (try Data(contentsOf: URL(fileURLWithPath: target))))
        // The repaired output needs no more repairs.
        let twice = try ICalRunner.run(["convert", target, "--repair"])
        #expect(twice.status == 0)
        #expect(twice.stderr.hasPrefix(target + ":"))
        #expect(twice.stderr.hasSuffix(": warning: TZID \"Mars/Olympus\" is not a known IANA, Windows or vendor-prefixed zone and has no VTIMEZONE; left as it is\n"))
        #expect(twice.stderr.split(separator: "\n").count == 1)
    }

    static func uid(in path: String) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let line = text.components(separatedBy: "\r\n").first { $0.hasPrefix("UID:") && $0.count == 40 }
        return String(line?.dropFirst(4) ?? "")
    }

    @Test func repairAppliesCalendarTimeZone() throws {
        let output = try ICalRunner.run(["convert", "-", "--repair"], stdin: Self.google)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("DTSTART;TZID=America/New_York:20240115T090000\r\n"))
        #expect(output.stdout.contains("RRULE:FREQ=WEEKLY;UNTIL=20240311T130000Z\r\n"))
        #expect(output.stdout.contains("RECURRENCE-ID;TZID=America/New_York:20240122T090000\r\n"))
        #expect(output.stdout.contains("DTSTART;VALUE=DATE:20240120\r\n"))
        #expect(output.stderr.contains(
            "<stdin>:8: repaired: DTSTART 20240115T090000 is floating; X-WR-TIMEZONE gives it TZID \"America/New_York\"\n"))
    }

    @Test func badStampIsAUsageError() throws {
        let output = try ICalRunner.run(["convert", "-", "--repair", "--stamp", "tomorrow"], stdin: Self.google)
        #expect(output.status == 64)
        #expect(output.stderr.contains("--stamp must be a UTC date-time"))
    }

    // MARK: split

    @Test func splitIntoVdir() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try folder.write("google.ics", Self.google)
        _ = try folder.write("newer.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:x\r
            BEGIN:VEVENT\r
            UID:holiday@google.com\r
            SEQUENCE:1\r
            DTSTAMP:20240101T000000Z\r
            DTSTART;VALUE=DATE:20240120\r
            SUMMARY:Holiday (renamed)\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let output = try ICalRunner.run(["convert", "--repair", "--split", "vdir", "google.ics", "newer.ics"], in: folder.url)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("newer.ics:4: warning: duplicate UID \"holiday@google.com\": kept newer.ics:4 "
            + "(SEQUENCE 1, DTSTAMP 20240101T000000Z), dropped google.ics:22 (SEQUENCE 0, DTSTAMP 20240101T000000Z)\n"))
        let vdir = folder.url.appendingPathComponent("vdir").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: vdir).sorted() == ["g1@google.com.ics", "holiday@google.com.ics"])
        let series = try String(contentsOfFile: vdir + "/g1@google.com.ics", encoding: .utf8)
        #expect(series.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Google Inc//Google Calendar 70.9054//EN\r\n"
            + "X-WR-TIMEZONE:America/New_York\r\nBEGIN:VTIMEZONE\r\nTZID:America/New_York\r\n"))
        #expect(series.components(separatedBy: "BEGIN:VEVENT").count == 3)
        let holiday = try String(contentsOfFile: vdir + "/holiday@google.com.ics", encoding: .utf8)
        #expect(holiday.contains("SUMMARY:Holiday (renamed)"))
        #expect(!holiday.contains("VTIMEZONE"))
        // Running again replaces our own files.
        let again = try ICalRunner.run(["convert", "--repair", "--split", "vdir", "google.ics", "newer.ics"], in: folder.url)
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func splitRefusesOtherFilesAndWritesNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try folder.write("google.ics", Self.google)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("vdir"), withIntermediateDirectories: true)
        _ = try folder.write("vdir/holiday@google.com.ics", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:someone-else\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        let output = try ICalRunner.run(["convert", "--split", "vdir", "google.ics"], in: folder.url)
        #expect(output.status == 1)
        #expect(output.stderr == "vdir/holiday@google.com.ics: exists and holds UID \"someone-else\", not UID \"holiday@google.com\"; "
            + "not replaced, nothing was written\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("vdir").path) == ["holiday@google.com.ics"])
    }

    @Test func splitWithoutUIDFailsAndWritesNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = try ICalRunner.run(["convert", "--split", "vdir", "-"], stdin: Self.outlook, in: folder.url)
        #expect(output.status == 1)
        #expect(output.stderr.contains("<stdin>:17: error: VEVENT has no UID, so it cannot be split into its own file; --repair gives it a stable one\n"))
        #expect(output.stderr.hasSuffix("ical: nothing written to vdir\n"))
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("vdir").path))
    }

    @Test func splitRejectsOutputAndOtherFormats() throws {
        let withOutput = try ICalRunner.run(["convert", "--split", "d", "-o", "x.ics", "-"], stdin: Self.google)
        #expect(withOutput.status == 64)
        #expect(withOutput.stderr.contains("--split writes into its folder; it cannot be used with --output."))
        let withFormat = try ICalRunner.run(["convert", "--split", "d", "--to", "json", "-"], stdin: Self.google)
        #expect(withFormat.status == 64)
    }

    // MARK: interoperability

    @Test func pythonIcalendarReadsEverythingWeWrite() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try folder.write("outlook.ics", Self.outlook)
        _ = try folder.write("google.ics", Self.google)
        var written: [String] = []
        for (name, arguments) in [
            ("canonical.ics", ["convert", "google.ics", "-o", "canonical.ics"]),
            ("repaired-outlook.ics", ["convert", "outlook.ics", "--repair", "-o", "repaired-outlook.ics"]),
            ("repaired-google.ics", ["convert", "google.ics", "--repair", "-o", "repaired-google.ics"]),
            ("merged.ics", ["convert", "--repair", "google.ics", "outlook.ics", "-o", "merged.ics"]),
        ] {
            let output = try ICalRunner.run(arguments, in: folder.url)
            #expect(output.status == 0, "\(name): \(output.stderr)")
            written.append(folder.url.appendingPathComponent(name).path)
        }
        let split = try ICalRunner.run(["convert", "--repair", "--split", "vdir", "google.ics", "outlook.ics"], in: folder.url)
        #expect(split.status == 0, "\(split.stderr)")
        let vdir = folder.url.appendingPathComponent("vdir").path
        written += try FileManager.default.contentsOfDirectory(atPath: vdir).sorted().map { vdir + "/" + $0 }
        #expect(written.count == 4 + 4)

        let script = """
            import sys, icalendar
            for path in sys.argv[1:]:
                calendars = icalendar.Calendar.from_ical(open(path, "rb").read(), multiple=True)
                for component in [c for calendar in calendars for c in calendar.walk()]:
                    if component.errors:
                        print(path, component.name, component.errors)
                        sys.exit(1)
                    for name in ("DTSTART", "DTEND", "RECURRENCE-ID", "DTSTAMP", "DUE"):
                        value = component.get(name)
                        if value is not None:
                            value.dt
            print("ok", len(sys.argv) - 1)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try PythonPeers.python.get())
        process.arguments = ["-c", script] + written
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let (outData, errData) = PipeReader.readAll(out.fileHandleForReading, err.fileHandleForReading)
        let stdout = String(decoding: outData, as: UTF8.self)
        let stderr = String(decoding: errData, as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stdout)\(stderr)")
        #expect(stdout == "ok \(written.count)\n")
    }
}
