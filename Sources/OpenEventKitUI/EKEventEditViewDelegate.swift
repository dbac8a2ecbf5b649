import Foundation
import OpenEventKit

/// What an ``EKEventEditViewController`` tells the app.
///
/// Only ``eventEditViewController(_:didCompleteWith:)`` is required;
/// ``eventEditViewControllerDefaultCalendar(forNewEvents:)`` has a default implementation
/// (a protocol extension stands in for Objective-C's `@optional`).
@MainActor
public protocol EKEventEditViewDelegate: NSObjectProtocol {
    /// The user finished with the editor: saved, canceled or deleted.
    ///
    /// On Apple's systems the app dismisses the controller here; on Linux the editor has
    /// already left the terminal when this is called.
    func eventEditViewController(_ controller: EKEventEditViewController, didCompleteWith action: EKEventEditViewAction)

    /// The calendar a new event starts in. The user may still pick another one.
    func eventEditViewControllerDefaultCalendar(forNewEvents controller: EKEventEditViewController) -> EKCalendar
}

extension EKEventEditViewDelegate {
    /// The default: the store's default calendar for new events; for an app that may not see
    /// calendars (no access), a placeholder that stands for the user's default calendar, which
    /// the editor resolves with its own full access.
    public func eventEditViewControllerDefaultCalendar(forNewEvents controller: EKEventEditViewController) -> EKCalendar {
        controller.eventStore.defaultCalendarForNewEvents ?? controller.eventStore.virtualCalendar()
    }
}
