import Foundation
import Testing

/// `ical alarms` against independent implementations: Python's recurring-ical-events 3.8.2
/// (every alarm of every occurrence, over generated series, the sample calendars and
/// `ical lessons` output) and icalendar 7.3.2's RFC 9074 `Alarms` (which alarms are still
/// active, on single items). The peers are pinned in PythonPeers; the scripts are
/// Conformance/alarms_python.py and Conformance/normalize_alarms.py.
///
/// Every difference is either one of `knownDifferences`, each with its reason and the RFC's
/// verdict (also in docs/alarms-interop.md), or a failure. A known difference is applied
/// precisely: the peer script recomputes the disputed alarm by RFC 5545 arithmetic and marks
/// it with the difference's kind, and `ical` must then print the RFC's value exactly.
@Suite struct AlarmsInteropTests {
    /// A documented way in which a peer departs from RFC 5545, and why ical does not follow.
    struct KnownDifference {
        var kind: String
        var peer: String
        var reason: String
        var verdict: String
    }

    static let knownDifferences = [
        KnownDifference(
            kind: "wall-clock-hours",
            peer: "recurring-ical-events, icalendar",
            reason: """
                Both add a relative TRIGGER (and REPEAT's DURATION) to the occurrence's start as a \
                Python timedelta. An aware datetime plus a timedelta moves the wall clock, also for \
                hours, minutes and seconds, so an alarm -PT15M before 03:10 on the day clocks go \
                forward fires at 02:55 wall time, read as 01:55Z instead of 00:55Z.
                """,
            verdict: """
                RFC 5545 3.3.6: hours, minutes and seconds are exact durations, only days and weeks \
                are nominal. ical is right: 15 minutes before the start.
                """),
        KnownDifference(
            kind: "wall-clock-length",
            peer: "recurring-ical-events, icalendar",
            reason: """
                Both take an occurrence's length as a wall-clock timedelta (DTEND - DTSTART of two \
                aware datetimes in one zone, or DURATION added to the start), so an instance whose \
                span crosses a DST change, or a series whose DTSTART is in the repeated hour, ends \
                an hour off, and so does an alarm RELATED=END.
                """,
            verdict: """
                RFC 5545 3.8.5.3: with DTEND or DUE, "the same exact duration will apply to all the \
                members of the generated recurrence set"; 3.3.6: DURATION's hours are exact. ical \
                is right.
                """),
        KnownDifference(
            kind: "date-plus-time",
            peer: "recurring-ical-events",
            reason: """
                For an all-day item, it adds the timedelta to a date; Python's date arithmetic drops \
                the hours, so -PT15M becomes the day before at midnight and RELATED=END PT9H the end \
                day at midnight (REPEAT's DURATION in minutes is dropped the same way).
                """,
            verdict: """
                RFC 5545 3.6.6 defines the trigger as the start plus the duration; a DATE start is \
                midnight of that day in the zone the reader uses (floating, 3.3.4). ical is right: \
                23:45 the day before in --tz.
                """),
        KnownDifference(
            kind: "absolute-without-instance",
            peer: "recurring-ical-events",
            reason: """
                An absolute TRIGGER of a series' master rings once, at the same instant on both \
                sides; recurring-ical-events reports it with the master's DTSTART, ical with the \
                instance the master describes, its first, and with none (start null) when an \
                override has moved or cancelled it or EXDATE removed it. Only the reported \
                occurrence differs.
                """,
            verdict: """
                RFC 5545 3.8.6.3 ties an absolute trigger to no instance; both readings are allowed. \
                ical does not point at an instance that does not take place.
                """),
        KnownDifference(
            kind: "cancelled",
            peer: "recurring-ical-events",
            reason: """
                It lists the alarms of an instance that an override marks STATUS:CANCELLED; ical \
                leaves cancelled instances out, as `ical query` does.
                """,
            verdict: """
                RFC 5545 is silent on alarms of cancelled instances (3.8.1.11 only defines the \
                status); a cancelled event does not take place, so ical's choice, the one of \
                Apple's and Google's calendars, stands. Not an RFC violation on either side.
                """),
    ]

    /// The window over the generated series, which start 2024-06 to 2026-09: both edges cut
    /// series, so occurrences outside with alarms inside (and the reverse) are tested.
    static let generatedWindow = ("2025-01-01T00:00:00Z", "2027-01-01T00:00:00Z")
    /// The window over the samples and over everything icalendar computes.
    static let wideWindow = ("2020-01-01T00:00:00Z", "2031-01-01T00:00:00Z")

    static let conformance = ICalRunner.packageRoot.appendingPathComponent("Conformance")

    @Test func generatedSeriesAreDeterministicAndValid() throws {
        let python = try PythonPeers.python.get()
        let first = try TemporaryFolder(), second = try TemporaryFolder()
        defer { first.remove(); second.remove() }
        let names = try AlarmSeriesGenerator().write(to: first.url)
        try AlarmSeriesGenerator().write(to: second.url)
        if let keep = ProcessInfo.processInfo.environment["ALARMS_INTEROP_KEEP"] {
            // For a look at the cases: ALARMS_INTEROP_KEEP=/tmp/alarms swift test --filter ...
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: first.url, to: URL(fileURLWithPath: keep))
        }
        #expect(names.count == 20)
        for name in names {
            #expect(try Data(contentsOf: first.url.appendingPathComponent(name))
                    == Data(contentsOf: second.url.appendingPathComponent(name)), "\(name) differs between runs")
        }
        let validate = try ICalRunner.run(["validate", "--strict", first.url.path])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        let peer = try Self.peer(python, "expand", first.url, Self.generatedWindow)
        #expect((peer["errors"] as? [String: Any])?.isEmpty == true, "\(peer["errors"] ?? "")")
        let alarms = peer["alarms"] as? [String: [[String]]] ?? [:]
        #expect(alarms.values.reduce(0) { $0 + $1.count } > 1000)
    }

    @Test func alarmsAgreeWithRecurringICalEventsOnGeneratedSeries() throws {
        let python = try PythonPeers.python.get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let names = try AlarmSeriesGenerator().write(to: folder.url)
        try compareWithRecurringICalEvents(python, folder: folder.url, files: names, window: Self.generatedWindow)
    }

    @Test func alarmsAgreeWithRecurringICalEventsOnSamplesAndLessons() throws {
        let python = try PythonPeers.python.get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let samples = ICalRunner.packageRoot.appendingPathComponent("samples/calendars")
        // The samples with VALARMs, and lessons whose spec asks for alarms (15m, 1h and 10m).
        let files = ["repeating-lessons.ics", "outlook-export.ics", "google-export.ics"]
        for name in files {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: folder.url.appendingPathComponent(name))
        }
        let lessons = try ICalRunner.run(["lessons", "--spec", samples.appendingPathComponent("term.yaml").path,
                                          "-o", folder.url.appendingPathComponent("term.ics").path])
        #expect(lessons.status == 0, "\(lessons.stderr)")
        try compareWithRecurringICalEvents(python, folder: folder.url, files: files + ["term.ics"], window: Self.wideWindow)
    }

    /// Without --include-acknowledged: RFC 9074's ACKNOWLEDGED (at or after the trigger: left
    /// out) and snooze alarms (listed as alarms of their own), against icalendar's `Alarms`,
    /// which computes one item without its recurrences: single, timed events and to-dos.
    @Test func activeAlarmsAgreeWithICalendarOnSingleItems() throws {
        let python = try PythonPeers.python.get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try AlarmSeriesGenerator().write(to: folder.url)
        let alarms = try ICalRunner.run(["alarms", "--between", Self.wideWindow.0, Self.wideWindow.1, "--tz", "UTC",
                                         "--format", "json", folder.url.path])
        #expect(alarms.status == 0, "\(alarms.stderr)")
        let ours = try Self.normalized(alarms.stdout, python: python)
        let peer = try Self.peer(python, "active", folder.url, nil)
        #expect((peer["errors"] as? [String: Any])?.isEmpty == true, "\(peer["errors"] ?? "")")
        let scope = peer["scope"] as? [String: [String]] ?? [:]
        let theirs = Self.applyingKnownDifferences(peer)
        var compared = 0, acknowledged = 0
        for (file, uids) in scope.sorted(by: { $0.key < $1.key }) {
            let inScope = Set(uids)
            let mine = (ours[file] ?? []).filter { inScope.contains($0[0]) }
            Self.expectSame(mine, theirs[file] ?? [], "\(file), active alarms of single items")
            compared += mine.count
            acknowledged += uids.count
        }
        #expect(compared > 50 && acknowledged > 20, "too little compared: \(compared) alarms of \(acknowledged) items")
        // The generated snoozes and acknowledgements are really there, so the comparison tested them.
        let text = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).map {
            try String(contentsOf: folder.url.appendingPathComponent($0), encoding: .utf8)
        }.joined()
        #expect(text.components(separatedBy: "RELTYPE=SNOOZE").count > 3)
        #expect(text.components(separatedBy: "ACKNOWLEDGED:").count > 10)
    }

    // MARK: - Helpers

    private func compareWithRecurringICalEvents(_ python: String, folder: URL, files: [String],
                                                window: (String, String)) throws {
        let alarms = try ICalRunner.run(["alarms", "--between", window.0, window.1, "--tz", "UTC", "--format", "json",
                                         "--include-acknowledged", folder.path])
        #expect(alarms.status == 0, "\(alarms.stderr)")
        let ours = try Self.normalized(alarms.stdout, python: python)
        let peer = try Self.peer(python, "expand", folder, window)
        #expect((peer["errors"] as? [String: Any])?.isEmpty == true, "\(peer["errors"] ?? "")")
        let theirs = Self.applyingKnownDifferences(peer)
        for file in files {
            Self.expectSame(ours[file] ?? [], theirs[file] ?? [], file)
        }
        // Both saw real work: every file has alarms.
        #expect(files.allSatisfy { !(ours[$0] ?? []).isEmpty }, "a file without alarms: \(files.filter { (ours[$0] ?? []).isEmpty })")
    }

    /// The peer's alarms with each correction of a documented kind applied: its entry replaced
    /// by the RFC's (or removed, when the RFC's falls outside the window or does not exist).
    static func applyingKnownDifferences(_ peer: [String: Any]) -> [String: [[String]]] {
        var alarms = peer["alarms"] as? [String: [[String]]] ?? [:]
        let known = Set(knownDifferences.map(\.kind))
        let corrections = peer["corrections"] as? [String: [[String: Any]]] ?? [:]
        for (file, notes) in corrections {
            for note in notes {
                guard let kind = note["kind"] as? String, known.contains(kind),
                      let entry = note["peer"] as? [String],
                      let index = alarms[file]?.firstIndex(of: entry) else { continue }
                alarms[file]?.remove(at: index)
                if let rfc = note["rfc"] as? [String] { alarms[file]?.append(rfc) }
            }
            alarms[file]?.sort { $0.lexicographicallyPrecedes($1) }
        }
        return alarms
    }

    static func expectSame(_ ours: [[String]], _ theirs: [[String]], _ what: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let sortedOurs = ours.sorted { $0.lexicographicallyPrecedes($1) }
        let sortedTheirs = theirs.sorted { $0.lexicographicallyPrecedes($1) }
        guard sortedOurs != sortedTheirs else { return }
        var onlyOurs = sortedOurs, onlyTheirs: [[String]] = []
        for entry in sortedTheirs {
            if let index = onlyOurs.firstIndex(of: entry) { onlyOurs.remove(at: index) } else { onlyTheirs.append(entry) }
        }
        let lines: [String] = onlyOurs.prefix(15).map { "  ical only: \($0)" } + onlyTheirs.prefix(15).map { "  peer only: \($0)" }
        let summary = "\(what): \(onlyOurs.count) alarms only in ical, \(onlyTheirs.count) only in the peer"
        Issue.record(Comment(rawValue: ([summary] + lines).joined(separator: "\n")), sourceLocation: sourceLocation)
    }

    static func peer(_ python: String, _ mode: String, _ folder: URL, _ window: (String, String)?) throws -> [String: Any] {
        let script = conformance.appendingPathComponent("alarms_python.py").path
        var arguments = [script, mode, folder.path]
        if let window { arguments += [window.0, window.1] }
        let result = PythonPeers.run(python, arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    static func normalized(_ json: String, python: String) throws -> [String: [[String]]] {
        let input = try TemporaryFolder()
        defer { input.remove() }
        let path = try input.write("alarms.json", json)
        let script = conformance.appendingPathComponent("normalize_alarms.py").path
        let result = PythonPeers.run("/bin/sh", ["-c", "\"\(python)\" \"\(script)\" < \"\(path)\""])
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [[String]]]) ?? [:]
    }
}
