import Foundation
import Testing
import ICalKit
@testable import OpenEventKit

/// EKEventStore's range queries give the same occurrences with the query index as without
/// it, and pick up other programs' edits.
@Suite struct IndexedQueryTests {
    /// A store of seeded random items in two calendars.
    private func randomStore(seed: UInt64, count: Int) throws -> TestStore {
        let test = try TestStore()
        var generator = RandomItemGenerator(seed: seed)
        for index in 0..<count {
            try test.folder.write((index % 3 == 0 ? "work" : "calendar") + "/item-\(index).ics", generator.item(index))
        }
        return test
    }

    private func key(_ event: EKEvent) -> String {
        "\(event.eventIdentifier ?? "") \(event.occurrenceDate?.timeIntervalSince1970 ?? 0) \(event.startDate?.timeIntervalSince1970 ?? 0) \(event.endDate?.timeIntervalSince1970 ?? 0) \(event.title ?? "")"
    }

    @Test(arguments: [UInt64(7), 99])
    func indexedAndUnindexedQueriesAgree(seed: UInt64) throws {
        let test = try randomStore(seed: seed, count: 300)
        let indexed = test.store
        let plain = try test.another()
        plain.usesIndex = false
        var generator = SeededGenerator(state: seed)
        var compared = 0
        for _ in 0..<40 {
            let start = Date(timeIntervalSince1970: Double(Int64.random(in: 1_704_067_200...1_830_297_600, using: &generator)))
            let length = Double(Int.random(in: 1...(60 * 86_400), using: &generator))
            let window = (start, start.addingTimeInterval(length))
            let fromIndex = indexed.events(matching: indexed.predicateForEvents(withStart: window.0, end: window.1, calendars: nil)).map(key).sorted()
            let fromFiles = plain.events(matching: plain.predicateForEvents(withStart: window.0, end: window.1, calendars: nil)).map(key).sorted()
            #expect(fromIndex == fromFiles)
            compared += fromFiles.count
        }
        #expect(compared > 100, "the windows found real work")
        #expect(FileManager.default.fileExists(atPath: test.folder.path + "/.openeventkit/index.sqlite"))
    }

    @Test func editsByOtherProgramsArePickedUp() throws {
        let test = try TestStore()
        let store = test.store
        let december = { store.events(matching: store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2027-01-01T00:00"), calendars: nil)).map(\.title!) }
        #expect(december().isEmpty)
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//x//EN\r
            BEGIN:VEVENT\r
            UID:moved\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20261203T100000Z\r
            SUMMARY:Outside edit\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        try test.folder.write("calendar/moved.ics", text)
        store.refreshSourcesIfNecessary()
        #expect(december() == ["Outside edit"])
        // Rewritten in place to another month: the old span must not hide it, nor keep it.
        Thread.sleep(forTimeInterval: 0.01)
        try test.folder.write("calendar/moved.ics", text.replacingOccurrences(of: "20261203", with: "20270115"))
        store.refreshSourcesIfNecessary()
        #expect(december().isEmpty)
        let january = store.events(matching: store.predicateForEvents(withStart: utc("2027-01-01T00:00"), end: utc("2027-02-01T00:00"), calendars: nil))
        #expect(january.map(\.title) == ["Outside edit"])
        // A store opened later (another process) sees the change on its first query.
        try FileManager.default.removeItem(atPath: test.folder.path + "/calendar/moved.ics")
        let later = try test.another()
        #expect(later.events(matching: later.predicateForEvents(withStart: utc("2027-01-01T00:00"), end: utc("2027-02-01T00:00"), calendars: nil)).isEmpty)
    }

    @Test func damagedIndexIsRebuiltWithANotice() throws {
        let test = try TestStore()
        let event = newEvent(test.store, "Kept", "2026-12-02T10:00")
        try test.store.save(event, span: .thisEvent)
        _ = test.store.events(matching: test.store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2027-01-01T00:00"), calendars: nil))
        try Data("garbage, not SQLite".utf8).write(to: URL(fileURLWithPath: test.folder.path + "/.openeventkit/index.sqlite"))
        try? FileManager.default.removeItem(atPath: test.folder.path + "/.openeventkit/index.sqlite-wal")
        let later = try test.another()
        let found = later.events(matching: later.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2027-01-01T00:00"), calendars: nil))
        #expect(found.map(\.title) == ["Kept"])
        #expect(later.readDiagnostics.contains { $0.file?.hasSuffix("index.sqlite") == true && $0.severity == .warning })
    }
}
