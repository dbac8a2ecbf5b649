// Seed fragment: MonthlyEvents' change loop, as written for EventKit (Apple's sample
// "Accessing Calendar using EventKit and EventKitUI", EventStoreManager). The three lines of
// the loop are the sample's own; the only change is the import. On Linux they compile
// because OpenEventKit adds `NotificationCenter.notifications(named:object:)`.
import Foundation
import OpenEventKit

/// Lists the month again each time the event store changes, as the sample's manager does.
@MainActor
final class MonthlyEventsListener {
    let store: EKEventStore
    private(set) var fetches: [[String]] = []
    private let start: Date

    init(store: EKEventStore, start: Date) {
        self.store = store
        self.start = start
    }

    /// Listens for event store changes; after each one, with full access, fetches the
    /// month's events again. Returns when the task running it is cancelled.
    func listenForCalendarChanges() async {
        let center = NotificationCenter.default
        let notifications = center.notifications(named: .EKEventStoreChanged).map({ (notification: Notification) in notification.name })

        for await _ in notifications {
            guard EKEventStore.authorizationStatus(for: .event) == .fullAccess else { return }
            fetchLatestEvents()
        }
    }

    private func fetchLatestEvents() {
        let end = Calendar.current.date(byAdding: .month, value: 1, to: start)!
        let predicate = store.predicateForEvents(withStart: start, end: end, calendars: nil)
        fetches.append(store.events(matching: predicate)
            .sorted { $0.compareStartDate(with: $1) == .orderedAscending }
            .map { $0.title })
    }
}
