// Seed fragment: fetching a month of events with full access, as written for EventKit.
// The only change from the original is the import.
import Foundation
import OpenEventKit

/// Asks for full access and returns every event of the month from `start`, across all
/// calendars, sorted by start date; empty when the user did not allow it.
func fetchMonthOfEvents(from start: Date) async throws -> [EKEvent] {
    let store = EKEventStore()
    guard try await store.requestFullAccessToEvents() else { return [] }

    let end = Calendar.current.date(byAdding: .month, value: 1, to: start)!
    let predicate = store.predicateForEvents(withStart: start, end: end, calendars: nil)
    return store.events(matching: predicate)
        .sorted { $0.compareStartDate(with: $1) == .orderedAscending }
}
