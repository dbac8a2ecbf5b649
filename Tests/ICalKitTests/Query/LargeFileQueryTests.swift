import Foundation
import Testing
@testable import ICalKit

/// A file queried through a stream (``OccurrenceQuery/source(streaming:name:memory:including:)``,
/// what `ical query` does with a file too large for `--memory`) answers exactly as the same
/// file read whole: the same occurrences in the same order, and the same diagnostics, when
/// VTIMEZONEs come after the events, overrides are far from their masters, versions of a UID
/// are spread over the file, and when the records spill to disk.
@Suite struct LargeFileQueryTests {
    static let berlin = IANATimeZone(named: "Europe/Berlin")!
    static let march: Range<Int64> = 1_772_319_600..<1_774_994_400   // 2026-03-01 to 2026-04-01, Berlin

    /// One line per match: what a listing shows, and the order.
    static func lines(_ matches: [OccurrenceQuery.Match]) -> [String] {
        matches.map { match in
            let occurrence = match.occurrence
            return "\(occurrence.uid) \(match.startInstant) \(match.endInstant) \(match.isRecurring) \(occurrence.isOverride) "
                + "\(occurrence.component.property(.summary)?.rawValue ?? "-") \(match.timeZone?.identifier ?? "-")"
        }
    }

    /// The query over the file read whole and streamed, and the streamed source's figures.
    static func both(_ text: String, window: Range<Int64> = march, kinds: Set<ComponentKind> = [.event, .todo, .journal],
                     includingCancelled: Bool = false, recordCapacity: Int? = nil,
                     including: @escaping (Component) -> Bool = { _ in true })
        throws -> (whole: [String], streamed: [String], wholeDiagnostics: [String], streamedDiagnostics: [String],
                   source: OccurrenceQuery.StreamedSource) {
        try both(bytes: Data(text.utf8), window: window, kinds: kinds, includingCancelled: includingCancelled,
                 recordCapacity: recordCapacity, including: including)
    }

    static func both(bytes: Data, window: Range<Int64> = march, kinds: Set<ComponentKind> = [.event, .todo, .journal],
                     includingCancelled: Bool = false, recordCapacity: Int? = nil,
                     including: @escaping (Component) -> Bool = { _ in true })
        throws -> (whole: [String], streamed: [String], wholeDiagnostics: [String], streamedDiagnostics: [String],
                   source: OccurrenceQuery.StreamedSource) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("large-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("calendar.ics").path
        try bytes.write(to: URL(fileURLWithPath: path))
        var query = OccurrenceQuery(window: window, floatingZone: berlin, kinds: kinds)
        query.includesCancelled = includingCancelled

        let read = try ICalReader().read(contentsOfFile: path)
        let wholeSources = SeriesVersions.merged(read.calendars.filter(including)).map { [OccurrenceQuery.Source(calendar: $0, name: path)] } ?? []
        let whole = query.run(wholeSources)

        let stream = try #require(try ICalComponentStream.open(path))
        stream.partSize = 97   // many parts: components cross part boundaries
        let source = try OccurrenceQuery.$recordCapacity.withValue(recordCapacity) {
            try query.source(streaming: stream, name: path, including: including)
        }
        let streamed = query.stream(source.source.map { [$0] } ?? []).collect()
        return (lines(whole.matches), lines(streamed.matches),
                (read.diagnostics + whole.diagnostics).map(\.description),
                (source.diagnostics + streamed.diagnostics).map(\.description), source)
    }

    static func calendar(_ body: String, properties: String = "") -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit//Tests//EN\r\n\(properties)\(body)END:VCALENDAR\r\n"
    }

    static func event(_ uid: String, _ start: String, summary: String? = nil, extra: String = "") -> String {
        "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260101T000000Z\r\nDTSTART\(start)\r\nDURATION:PT1H\r\nSUMMARY:\(summary ?? uid)\r\n\(extra)END:VEVENT\r\n"
    }

    /// Events far from the window, as a large file mostly holds.
    static func filler(_ count: Int, prefix: String = "far") -> String {
        (0..<count).map { event("\(prefix)-\($0)@example.com", ":2019\(String(format: "%02d", $0 % 12 + 1))10T100000Z") }.joined()
    }

    @Test func aTimeZoneDefinedAfterTheEventsIsUsed() throws {
        // A zone of +13:00 named like no IANA zone: its events are read in it, though it
        // comes last (an event at 2026-04-01 08:00 there is still March in Berlin).
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Custom Pacific\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+1300\r\nTZOFFSETTO:+1300\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        let text = Self.calendar(Self.filler(50)
            + Self.event("edge@example.com", ";TZID=Custom Pacific:20260401T080000")
            + Self.event("outside@example.com", ";TZID=Custom Pacific:20260401T140000")
            + Self.event("weekly@example.com", ";TZID=Custom Pacific:20250101T090000", extra: "RRULE:FREQ=WEEKLY\r\n")
            + zone)
        let result = try Self.both(text)
        #expect(result.streamed == result.whole)
        #expect(result.streamedDiagnostics == result.wholeDiagnostics)
        #expect(result.whole.contains { $0.hasPrefix("edge@example.com") })
        #expect(!result.whole.contains { $0.hasPrefix("outside@example.com") })
        #expect(result.source.keptCount < result.source.componentCount / 4)
    }

    @Test func overridesFarFromTheirMaster() throws {
        // The master first, its overrides after hundreds of other events: one moves an
        // instance into March from February, one moves a March instance out, one cancels.
        let master = Self.event("series@example.com", ";TZID=Europe/Berlin:20260105T090000", summary: "Series",
                                extra: "RRULE:FREQ=WEEKLY;COUNT=20\r\n")
        let intoWindow = Self.event("series@example.com", ";TZID=Europe/Berlin:20260303T090000", summary: "Moved in",
                                    extra: "RECURRENCE-ID;TZID=Europe/Berlin:20260223T090000\r\n")
        let outOfWindow = Self.event("series@example.com", ";TZID=Europe/Berlin:20260501T090000", summary: "Moved out",
                                     extra: "RECURRENCE-ID;TZID=Europe/Berlin:20260309T090000\r\n")
        let cancelled = Self.event("series@example.com", ";TZID=Europe/Berlin:20260316T090000", summary: "Cancelled",
                                   extra: "RECURRENCE-ID;TZID=Europe/Berlin:20260316T090000\r\nSTATUS:CANCELLED\r\n")
        // A series ended before March whose override moves its last instance into it.
        let ended = Self.event("ended@example.com", ";TZID=Europe/Berlin:20250106T100000", summary: "Ended",
                               extra: "RRULE:FREQ=WEEKLY;UNTIL=20250301T000000Z\r\n")
        let endedMoved = Self.event("ended@example.com", ";TZID=Europe/Berlin:20260310T100000", summary: "Ended, moved",
                                    extra: "RECURRENCE-ID;TZID=Europe/Berlin:20250224T100000\r\n")
        let text = Self.calendar(master + ended + Self.filler(300) + intoWindow + outOfWindow + cancelled
                                 + Self.filler(300, prefix: "later") + endedMoved)
        for cancelledToo in [false, true] {
            let result = try Self.both(text, includingCancelled: cancelledToo)
            #expect(result.streamed == result.whole)
            #expect(result.streamedDiagnostics == result.wholeDiagnostics)
            #expect(result.whole.contains { $0.contains("Moved in") } && result.whole.contains { $0.contains("Ended, moved") })
            #expect(!result.whole.contains { $0.contains("Moved out") })
        }
    }

    @Test func thisAndFutureAndVersionsSpreadOverTheFile() throws {
        // RANGE=THISANDFUTURE from a January instance moves every later one by a day; the
        // second version of "versioned" (SEQUENCE 1, at the end) moves it out of March.
        let series = Self.event("range@example.com", ";TZID=Europe/Berlin:20260105T080000", summary: "Range",
                                extra: "RRULE:FREQ=WEEKLY;COUNT=15\r\n")
        let range = Self.event("range@example.com", ";TZID=Europe/Berlin:20260113T080000", summary: "Range moved",
                               extra: "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20260112T080000\r\n")
        let first = Self.event("versioned@example.com", ":20260310T100000Z", summary: "Version 0", extra: "SEQUENCE:0\r\n")
        let second = Self.event("versioned@example.com", ":20260610T100000Z", summary: "Version 1", extra: "SEQUENCE:1\r\n")
        let noUID = "BEGIN:VEVENT\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260311T100000Z\r\nSUMMARY:No UID\r\nEND:VEVENT\r\n"
        let todo = "BEGIN:VTODO\r\nUID:todo@example.com\r\nDTSTAMP:20260101T000000Z\r\nDUE:20260320T100000Z\r\nSUMMARY:Task\r\nEND:VTODO\r\n"
        let text = Self.calendar(series + first + noUID + todo + Self.filler(200) + range + second)
        for kinds: Set<ComponentKind> in [[.event], [.todo], [.event, .todo, .journal]] {
            let result = try Self.both(text, kinds: kinds)
            #expect(result.streamed == result.whole)
            #expect(result.streamedDiagnostics == result.wholeDiagnostics)
        }
        let all = try Self.both(text)
        #expect(!all.whole.contains { $0.contains("Version 0") })
        #expect(all.whole.contains { $0.contains("No UID") })
    }

    @Test func calendarsWithMethodsAndCalendarZonesAndAFilter() throws {
        // Floating events under X-WR-TIMEZONE (New York) near the window's edges, a REPLY
        // for a UID a PUBLISH defines, and a calendar left out by its name.
        let publish = Self.calendar(Self.event("meeting@example.com", ":20260302T100000Z", summary: "Meeting")
                                        + Self.event("late@example.com", ":20260228T200000", summary: "Late floating")
                                        + Self.filler(40),
                                    properties: "METHOD:PUBLISH\r\nX-WR-CALNAME:Work\r\nX-WR-TIMEZONE:America/New_York\r\n")
        let reply = Self.calendar(Self.event("meeting@example.com", ":20260302T100000Z", summary: "Reply",
                                             extra: "ATTENDEE;PARTSTAT=ACCEPTED:mailto:a@example.com\r\n"),
                                  properties: "METHOD:REPLY\r\n")
        let other = Self.calendar(Self.event("home@example.com", ":20260305T100000Z", summary: "Home"),
                                  properties: "X-WR-CALNAME:Home\r\n")
        let text = publish + reply + other
        let all = try Self.both(text)
        #expect(all.streamed == all.whole)
        #expect(all.streamedDiagnostics == all.wholeDiagnostics)
        #expect(all.whole.contains { $0.contains("Late floating") } && !all.whole.contains { $0.contains("Reply") })
        let work: (Component) -> Bool = { $0.property(.calendarName)?.textValue != "Home" }
        let filtered = try Self.both(text, including: work)
        #expect(filtered.streamed == filtered.whole)
        #expect(!filtered.whole.contains { $0.contains("Home") })
    }

    @Test func recordsSpilledToDiskGiveTheSameAnswer() throws {
        // 64 records in memory: the file's 2,000 components go to disk in runs, and a
        // series' master and overrides (first and last in the file) still meet.
        let master = Self.event("spill@example.com", ";TZID=Europe/Berlin:20260102T120000", summary: "Spilled series",
                                extra: "RRULE:FREQ=DAILY;COUNT=120\r\n")
        let override = Self.event("spill@example.com", ";TZID=Europe/Berlin:20260315T180000", summary: "Spilled override",
                                  extra: "RECURRENCE-ID;TZID=Europe/Berlin:20260314T120000\r\n")
        var near = ""
        for day in 0..<600 {
            near += Self.event("near-\(day)@example.com", ":2026\(day % 2 == 0 ? "03" : "02")\(String(format: "%02d", day % 28 + 1))T0\(day % 10)0000Z")
        }
        let text = Self.calendar(master + Self.filler(1_400) + near + override)
        let result = try Self.both(text, recordCapacity: 64)
        #expect(result.source.spilledRuns > 10)
        #expect(result.streamed == result.whole)
        #expect(result.streamedDiagnostics == result.wholeDiagnostics)
        #expect(result.whole.contains { $0.contains("Spilled override") })
        #expect(result.whole.count > 300)
    }

    @Test func everyFixtureAnswersTheSameStreamed() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        let files = (FileManager.default.enumerator(atPath: fixtures.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".ics") }.sorted()
        #expect(files.count > 20)
        let windows: [Range<Int64>] = [946_684_800..<2_208_988_800, Self.march, 1_729_375_200..<1_730_239_200]
        for file in files {
            let bytes = try Data(contentsOf: fixtures.appendingPathComponent(file))
            for window in windows {
                let result = try Self.both(bytes: bytes, window: window, recordCapacity: 16)
                #expect(result.streamed == result.whole, "\(file)")
                #expect(result.streamedDiagnostics == result.wholeDiagnostics, "\(file)")
            }
        }
    }
}
