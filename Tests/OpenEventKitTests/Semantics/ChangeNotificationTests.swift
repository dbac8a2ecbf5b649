import Foundation
import Testing
import OpenEventKit

/// EKEventStoreChanged: posted for this store's commits, for other stores of the process on
/// the same folder, and for changes other programs make to the folder.
@Suite(.serialized) struct ChangeNotificationTests {
    /// Counts the notifications a store posts.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private var token: NSObjectProtocol?
        init(_ store: EKEventStore) {
            token = NotificationCenter.default.addObserver(forName: .EKEventStoreChanged, object: store, queue: nil) { [weak self] _ in
                guard let self else { return }
                self.lock.lock(); self.count += 1; self.lock.unlock()
            }
        }
        deinit { if let token { NotificationCenter.default.removeObserver(token) } }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }

        /// Waits up to `seconds` for at least `expected` notifications.
        func wait(for expected: Int, seconds: Double = 5) -> Int {
            let deadline = Date().addingTimeInterval(seconds)
            while value < expected && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            return value
        }
    }

    private func save(_ store: EKEventStore, _ title: String) throws {
        let event = EKEvent(eventStore: store)
        event.title = title
        event.startDate = utc("2026-12-01T10:00")
        event.endDate = utc("2026-12-01T11:00")
        event.calendar = store.defaultCalendarForNewEvents
        try store.save(event, span: .thisEvent)
    }

    @Test func ownCommitAndOtherStoresInTheProcess() throws {
        let test = try TestStore()
        let other = try test.another()
        let mine = Counter(test.store), theirs = Counter(other)
        try save(test.store, "One")
        #expect(mine.value >= 1)
        #expect(theirs.wait(for: 1) >= 1)
    }

    @Test func anotherProgramChangingTheFolder() throws {
        let test = try TestStore()
        let counter = Counter(test.store)
        try test.folder.write("calendar/external.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//x//EN\r
            BEGIN:VEVENT\r
            UID:external\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20261201T100000Z\r
            SUMMARY:External\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        #expect(counter.wait(for: 1) >= 1)
        let before = counter.value
        try FileManager.default.removeItem(atPath: test.folder.path + "/calendar/external.ics")
        #expect(counter.wait(for: before + 1) >= before + 1)
    }

    @Test func refreshPicksUpChangesAndObjectsRefresh() throws {
        let test = try TestStore()
        try save(test.store, "Original")
        let event = try #require(test.store.events(matching: test.store.predicateForEvents(
            withStart: utc("2026-12-01T00:00"), end: utc("2026-12-02T00:00"), calendars: nil)).first)
        let path = test.folder.path + "/" + event.eventIdentifier
        let text = try String(contentsOfFile: path, encoding: .utf8)
        Thread.sleep(forTimeInterval: 0.01)
        try text.replacingOccurrences(of: "SUMMARY:Original", with: "SUMMARY:Changed outside")
            .replacingOccurrences(of: "END:VEVENT", with: "LOCATION:Hall\r\nEND:VEVENT")
            .write(toFile: path, atomically: true, encoding: .utf8)
        event.notes = "My unsaved note"
        #expect(event.refresh())
        #expect(event.title == "Changed outside")
        #expect(event.notes == "My unsaved note", "refresh keeps local edits")
        event.reset()
        #expect(event.notes == nil, "reset drops them")
        #expect(event.location == "Hall")
        event.title = "Local"
        event.rollback()
        #expect(event.title == "Changed outside")
        try FileManager.default.removeItem(atPath: path)
        #expect(!event.refresh(), "a deleted event does not refresh")
    }
}
