// Seed fragment: the view model that tracks calendar and reminder authorization, as written
// for EventKit and SwiftUI, minus SwiftUI and Combine (absent on Linux): a plain main-actor
// class with the same properties and logic instead of an ObservableObject with @Published
// properties. The only other change is the import.
import Foundation
import OpenEventKit

@MainActor
final class CalendarPermissionsViewModel {
    private let eventStore = EKEventStore()

    /// The app's access to events.
    private(set) var calendarAuthorizationStatus: EKAuthorizationStatus
    /// The app's access to reminders.
    private(set) var reminderAuthorizationStatus: EKAuthorizationStatus
    /// What went wrong with the last request, if anything.
    private(set) var errorMessage: String?

    init() {
        calendarAuthorizationStatus = EKEventStore.authorizationStatus(for: .event)
        reminderAuthorizationStatus = EKEventStore.authorizationStatus(for: .reminder)
    }

    var hasFullCalendarAccess: Bool { calendarAuthorizationStatus == .fullAccess }
    var hasWriteOnlyCalendarAccess: Bool { calendarAuthorizationStatus == .writeOnly }
    var canAddEvents: Bool { hasFullCalendarAccess || hasWriteOnlyCalendarAccess }
    var hasReminderAccess: Bool { reminderAuthorizationStatus == .fullAccess }

    /// Whether the app should send the user to Settings rather than ask again.
    var needsSettings: Bool {
        [.denied, .restricted].contains(calendarAuthorizationStatus) || [.denied, .restricted].contains(reminderAuthorizationStatus)
    }

    var calendarStatusText: String { Self.text(for: calendarAuthorizationStatus) }
    var reminderStatusText: String { Self.text(for: reminderAuthorizationStatus) }

    func refreshAuthorizationStatus() {
        calendarAuthorizationStatus = EKEventStore.authorizationStatus(for: .event)
        reminderAuthorizationStatus = EKEventStore.authorizationStatus(for: .reminder)
    }

    func requestFullCalendarAccess() async {
        do {
            _ = try await eventStore.requestFullAccessToEvents()
            errorMessage = nil
        } catch {
            errorMessage = error.localizedDescription
        }
        refreshAuthorizationStatus()
    }

    func requestWriteOnlyCalendarAccess() async {
        do {
            _ = try await eventStore.requestWriteOnlyAccessToEvents()
            errorMessage = nil
        } catch {
            errorMessage = error.localizedDescription
        }
        refreshAuthorizationStatus()
    }

    func requestReminderAccess() async {
        do {
            _ = try await eventStore.requestFullAccessToReminders()
            errorMessage = nil
        } catch {
            errorMessage = error.localizedDescription
        }
        refreshAuthorizationStatus()
    }

    static func text(for status: EKAuthorizationStatus) -> String {
        switch status {
        case .notDetermined: return "Not determined"
        case .restricted: return "Restricted"
        case .denied: return "Denied"
        case .fullAccess: return "Full access"
        case .writeOnly: return "Write only"
        @unknown default: return "Unknown"
        }
    }
}
