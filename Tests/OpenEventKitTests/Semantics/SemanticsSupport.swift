import Foundation
import OpenEventKit

/// A temporary store for the semantics tests and the event store over it with a fixed
/// access level (package API: the access rules have their own tests; these exercise the
/// EventKit model through its public API).
final class TestStore {
    let folder: StoreFolder
    let store: EKEventStore

    init(events: EKAuthorizationStatus = .fullAccess, reminders: EKAuthorizationStatus = .fullAccess, folder: StoreFolder? = nil) throws {
        self.folder = try folder ?? StoreFolder()
        let backend = try FolderStore.open(at: self.folder.path)
        store = EKEventStore(backend: backend, authority: FixedAccessAuthority(events: events, reminders: reminders))
    }

    /// Another store instance on the same folder.
    func another(events: EKAuthorizationStatus = .fullAccess) throws -> EKEventStore {
        EKEventStore(backend: try FolderStore.open(at: folder.path), authority: FixedAccessAuthority(events: events, reminders: .fullAccess))
    }

    deinit { folder.remove() }

    /// The text of an item file.
    func file(_ relative: String) throws -> String {
        try String(contentsOfFile: folder.path + "/" + relative, encoding: .utf8)
    }

    /// The `.ics` files of a calendar folder.
    func files(in calendar: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/" + calendar)) ?? []).filter { $0.hasSuffix(".ics") }.sorted()
    }
}

/// A UTC date from `yyyy-MM-dd'T'HH:mm`.
func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
    formatter.timeZone = TimeZone(identifier: "UTC")
    guard let date = formatter.date(from: text + ":00") else { fatalError("bad date \(text)") }
    return date
}

/// Unfolds an iCalendar text's lines.
func unfolded(_ text: String) -> [String] {
    text.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\r\n\t", with: "")
        .components(separatedBy: "\r\n").filter { !$0.isEmpty }
}

/// A new, unsaved event: `start` in UTC (`yyyy-MM-dd'T'HH:mm`), lasting `minutes`, in
/// `calendar` or the store's default calendar for new events.
func newEvent(_ store: EKEventStore, _ title: String, _ start: String, minutes: Double = 60, calendar: EKCalendar? = nil) -> EKEvent {
    let event = EKEvent(eventStore: store)
    event.title = title
    event.startDate = utc(start)
    event.endDate = utc(start).addingTimeInterval(minutes * 60)
    event.calendar = calendar ?? store.defaultCalendarForNewEvents
    return event
}
