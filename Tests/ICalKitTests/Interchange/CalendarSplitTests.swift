import Foundation
import Testing
import ICalKit

@Suite struct CalendarSplitTests {
    static let first = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:first
        BEGIN:VEVENT
        UID:series
        DTSTAMP:20240101T000000Z
        DTSTART;TZID=Europe/Berlin:20240101T100000
        RRULE:FREQ=DAILY
        SUMMARY:v1
        END:VEVENT
        BEGIN:VEVENT
        UID:series
        RECURRENCE-ID;TZID=Europe/Berlin:20240102T100000
        DTSTAMP:20240101T000000Z
        DTSTART;TZID=Europe/Berlin:20240102T110000
        END:VEVENT
        BEGIN:VEVENT
        UID:single
        DTSTAMP:20240101T000000Z
        DTSTART:20240101T100000Z
        END:VEVENT
        END:VCALENDAR

        """
    static let second = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:second
        BEGIN:VEVENT
        UID:series
        SEQUENCE:2
        DTSTAMP:20231201T000000Z
        DTSTART;TZID=Europe/Berlin:20240101T100000
        RRULE:FREQ=DAILY
        SUMMARY:v2
        END:VEVENT
        END:VCALENDAR

        """

    static func inputs() throws -> [CalendarSplit.Input] {
        [CalendarSplit.Input(file: "a.ics", calendars: try InterchangeFixtures.read(first, file: "a.ics")),
         CalendarSplit.Input(file: "b.ics", calendars: try InterchangeFixtures.read(second, file: "b.ics"))]
    }

    @Test func oneCompleteCalendarPerUID() throws {
        let result = CalendarSplit().split(try Self.inputs())
        #expect(result.items.map(\.uid) == ["series", "single"])
        #expect(result.items.map(\.fileName) == ["series.ics", "single.ics"])
        let series = result.items[0].calendar
        #expect(series.components.map(\.name) == ["VTIMEZONE", "VEVENT", "VEVENT"])
        #expect(series.components(.event)[0].summary == "v2")
        #expect(series.components(.event)[1].recurrenceIdentifier != nil)
        #expect(series[.version] == "2.0")
        #expect(series[.productIdentifier] == "second")
        #expect(result.items[1].calendar.components.map(\.name) == ["VEVENT"])
        #expect(result.notes.map(\.description) == [
            "b.ics:4: warning: duplicate UID \"series\": kept b.ics:4 (SEQUENCE 2, DTSTAMP 20231201T000000Z), "
                + "dropped a.ics:4 (SEQUENCE 0, DTSTAMP 20240101T000000Z)",
        ])
    }

    @Test func laterStampWinsAtTheSameSequence() throws {
        let older = Self.first.replacingOccurrences(of: "SUMMARY:v1", with: "SUMMARY:old")
        let newer = Self.first.replacingOccurrences(of: "SUMMARY:v1", with: "SUMMARY:new")
            .replacingOccurrences(of: "DTSTAMP:20240101T000000Z\nDTSTART;TZID=Europe/Berlin:20240101T100000",
                                  with: "DTSTAMP:20240202T000000Z\nDTSTART;TZID=Europe/Berlin:20240101T100000")
        let result = CalendarSplit().split([
            CalendarSplit.Input(file: "new.ics", calendars: try InterchangeFixtures.read(newer)),
            CalendarSplit.Input(file: "old.ics", calendars: try InterchangeFixtures.read(older)),
        ])
        #expect(result.items[0].calendar.components(.event)[0].summary == "new")
    }

    @Test func missingUIDIsAnError() throws {
        let text = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:20240101T100000Z\nEND:VEVENT\nEND:VCALENDAR\n"
        let result = CalendarSplit().split([CalendarSplit.Input(file: "n.ics", calendars: try InterchangeFixtures.read(text))])
        #expect(result.items.isEmpty)
        #expect(result.notes.map(\.kind) == [.error])
    }

    @Test func fileNamesAreSafe() {
        var taken: Set<String> = []
        #expect(CalendarSplit.fileName(for: "../etc/passwd", taken: &taken) == "_._etc_passwd.ics")
        #expect(CalendarSplit.fileName(for: ".hidden", taken: &taken) == "_hidden.ics")
        #expect(CalendarSplit.fileName(for: "a\u{0}b\nc", taken: &taken) == "a_b_c.ics")
        #expect(CalendarSplit.fileName(for: "", taken: &taken) == "_.ics")
        #expect(CalendarSplit.fileName(for: "ok@example.com", taken: &taken) == "ok@example.com.ics")
        // Collisions: another UID that sanitises to the same name, or differs in case only.
        let clash = CalendarSplit.fileName(for: "a/b_c", taken: &taken)
        #expect(clash != "a_b_c.ics")
        #expect(clash.hasPrefix("a_b_c-") && clash.hasSuffix(".ics"))
        let upper = CalendarSplit.fileName(for: "OK@example.com", taken: &taken)
        #expect(upper.hasPrefix("OK@example.com-"))
        let long = CalendarSplit.fileName(for: String(repeating: "x", count: 500), taken: &taken)
        #expect(long.count == 100 + 1 + 16 + 4)
        for name in [clash, upper, long] {
            #expect(!name.contains("/") && !name.contains("..") && !name.hasPrefix("."))
        }
        // Deterministic.
        var again: Set<String> = []
        _ = CalendarSplit.fileName(for: "a\u{0}b\nc", taken: &again)
        #expect(CalendarSplit.fileName(for: "a/b_c", taken: &again) == clash)
    }

    @Test func writesOnlyWhatIsOursToReplace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("split-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let split = CalendarSplit()
        let items = split.split(try Self.inputs()).items
        try split.write(items, toFolder: folder)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["series.ics", "single.ics"])
        // The same items again: files already up to date are left untouched (same inode).
        let inode = try FileManager.default.attributesOfItem(atPath: folder + "/series.ics")[.systemFileNumber] as? Int
        try split.write(items, toFolder: folder)
        #expect(try FileManager.default.attributesOfItem(atPath: folder + "/series.ics")[.systemFileNumber] as? Int == inode)
        // A changed item with the same UID: replaced.
        var changed = items
        changed[0].calendar.components[changed[0].calendar.components.count - 1].summary = "changed"
        try split.write(changed, toFolder: folder)
        #expect(try String(contentsOfFile: folder + "/series.ics", encoding: .utf8).contains("SUMMARY:changed"))
        // Someone else's file in the way: nothing is written.
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:other\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
            .write(to: URL(fileURLWithPath: folder + "/single.ics"))
        try FileManager.default.removeItem(atPath: folder + "/series.ics")
        #expect(throws: ICalError.self) { try split.write(items, toFolder: folder) }
        #expect(!FileManager.default.fileExists(atPath: folder + "/series.ics"))
    }
}
