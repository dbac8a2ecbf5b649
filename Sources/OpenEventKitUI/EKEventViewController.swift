import Foundation
import ICalKit
import OpenEventKit

/// The system's event viewer: shows one event of the user's calendar, lets the user answer
/// an invitation, and (when ``allowsEditing``) edit or delete the event.
///
/// Unlike the editor, the viewer shows an event the app already has: one it fetched, which
/// takes full access to events. An app with write-only access or none cannot present it
/// (the delegate is told ``EKEventViewAction/done`` and the reason goes to standard error),
/// as on Apple's systems, where such an app has no event to give it.
///
/// ```swift
/// let viewer = EKEventViewController()
/// viewer.event = event              // fetched with full access
/// viewer.allowsEditing = true
/// viewer.delegate = self
/// viewer.present()                  // Linux: instead of pushing it on a navigation controller
/// ```
///
/// Linux: there is no UIKit. ``present()`` stands in for showing the controller: it starts
/// the trusted helper `ical ui view-event`, which shows the stored event on the terminal
/// (`/dev/tty`), saves what the user does there, and reports the action; then the delegate
/// is called. The viewer shows the event as the store has it: edits the app made to the
/// object and did not save are not shown. See <doc:TerminalPresentation>.
@MainActor
open class EKEventViewController: NSObject {
    /// The event to show; set it before presenting. It must have been fetched (or saved)
    /// through a store with full access to events.
    open var event: EKEvent!

    /// Whether the user may edit or delete the event (false by default, as in EventKitUI).
    /// Even when true, an event of a read-only calendar and an invitation (an event with an
    /// organizer) cannot be edited, as in EventKitUI.
    open var allowsEditing = false

    /// Whether an invitation shows a preview of the user's day around it (true by default,
    /// as in EventKitUI).
    open var allowsCalendarPreview = true

    /// Told how the user left the viewer.
    open weak var delegate: (any EKEventViewDelegate)?

    /// Creates a viewer; set ``event`` before presenting it.
    public override init() {
        super.init()
    }

    /// Shows the event and waits until the user leaves the viewer, then calls the delegate.
    ///
    /// Linux stand-in for UIKit's presentation: runs `ical ui view-event` (found as for
    /// ``EKEventEditViewController/present()``) on the controlling terminal. When the viewer
    /// cannot be shown (the app has no full access to events, the event was never saved, no
    /// terminal, no helper) the reason goes to standard error and the delegate is told
    /// ``EKEventViewAction/done``.
    ///
    /// - Precondition: ``event`` is set.
    open func present() {
        guard let event else {
            preconditionFailure("API misuse: set the EKEventViewController's event before presenting it")
        }
        let action = runViewer(event)
        delegate?.eventViewController(self, didCompleteWith: action)
    }

    private func runViewer(_ event: EKEvent) -> EKEventViewAction {
        let store = event.eventStore
        guard let storePath = SystemHelper.storeArgument(for: store) else {
            SystemHelper.report("EKEventViewController: the event store could not be opened; the viewer was not shown")
            return .done
        }
        guard store.authority.accessLevel(for: .event) == .full else {
            SystemHelper.report("EKEventViewController: the app has no full access to events, so it has no event to show; the viewer was not shown")
            return .done
        }
        guard !event.isNew, let identifier = event.eventIdentifier else {
            SystemHelper.report("EKEventViewController: the event was never saved, so the calendar has nothing to show; the viewer was not shown")
            return .done
        }
        var arguments = ["ui", "view-event", "--store", storePath] + AppIdentity(store: store).arguments
            + ["--event-identifier", identifier]
        if event.hasRecurrenceRules || event.isDetached, let occurrence = event.occurrenceDate {
            arguments += ["--occurrence", EKEventEditViewController.timestamp(occurrence)]
        }
        if allowsEditing { arguments.append("--allows-editing") }
        if !allowsCalendarPreview { arguments.append("--no-calendar-preview") }

        let outcome: SystemHelper.Outcome
        do {
            outcome = try SystemHelper.run(arguments, input: Data())
        } catch {
            SystemHelper.report("EKEventViewController: \(error); the viewer was not shown")
            return .done
        }
        switch outcome.output.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "done" where outcome.status == 0: return .done
        case "responded" where outcome.status == 0: return .responded
        case "deleted" where outcome.status == 0: return .deleted
        default:
            if let signal = outcome.signal {
                SystemHelper.report("EKEventViewController: the viewer ended (signal \(signal)); treated as done")
            } else if outcome.status != 0 {
                SystemHelper.report("EKEventViewController: the viewer failed (exit status \(outcome.status ?? -1)); treated as done")
            } else {
                SystemHelper.report("EKEventViewController: the viewer answered “\(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))”; treated as done")
            }
            return .done
        }
    }
}
