// Seed fragment: adding an event with write-only access, as written for EventKit.
// The only change from the original is the import.
import Foundation
import OpenEventKit

/// Asks for write-only access and adds a one-hour event to the default calendar.
/// Returns false when the user did not allow it.
func addEventWithWriteOnlyAccess(title: String, start: Date) async throws -> Bool {
    let eventStore = EKEventStore()
    guard try await eventStore.requestWriteOnlyAccessToEvents() else { return false }

    let newEvent = EKEvent(eventStore: eventStore)
    newEvent.title = title
    newEvent.startDate = start
    newEvent.endDate = start.addingTimeInterval(60 * 60)
    newEvent.calendar = eventStore.defaultCalendarForNewEvents
    try eventStore.save(newEvent, span: .thisEvent)
    return true
}
