#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import ICalKit
import OpenEventKit

/// The system's event editor: the user adds, changes or deletes one event.
///
/// As on iOS 17 and later, the editor runs out of process with full access to the calendars,
/// whatever the app's own access: an app with no access at all can add events through it, and
/// is told only how the user left it (``EKEventEditViewAction``), never what was saved.
///
/// ```swift
/// let event = EKEvent(eventStore: store)
/// event.title = "Drop-in: jazz harmony"
/// event.startDate = start
/// event.endDate = start.addingTimeInterval(90 * 60)
/// let editor = EKEventEditViewController()
/// editor.eventStore = store
/// editor.event = event
/// editor.editViewDelegate = self
/// editor.present()            // Linux: instead of present(editor, animated: true)
/// ```
///
/// Linux: there is no UIKit. ``present()`` stands in for presenting the controller: it starts
/// the trusted helper `ical ui edit-event`, which shows the event as a form on the terminal
/// (`/dev/tty`), saves or deletes what the user confirms in the store, and reports the action;
/// then the delegate is called. See <doc:TerminalPresentation>.
@MainActor
open class EKEventEditViewController: NSObject {
    /// The store the event belongs to; set it before presenting.
    open var eventStore: EKEventStore!

    /// The event to edit; nil for a new event in the default calendar (the delegate's
    /// ``EKEventEditViewDelegate/eventEditViewControllerDefaultCalendar(forNewEvents:)``).
    /// It must belong to ``eventStore``.
    ///
    /// The object is not updated with what the user saved: an app without full access cannot
    /// read events, and one with full access fetches again after `EKEventStoreChanged`.
    open var event: EKEvent?

    /// Told how the user left the editor.
    open weak var editViewDelegate: (any EKEventEditViewDelegate)?

    /// The helper's process while the editor is on the terminal.
    private var helper: pid_t?
    private var canceledByApp = false

    /// Creates an editor; set ``eventStore`` (and ``event``) before presenting it.
    public override init() {
        super.init()
    }

    /// Cancels editing as if the user chose Cancel: nothing is saved and the delegate is told
    /// ``EKEventEditViewAction/canceled``. While the editor is on the terminal (work on the
    /// main queue runs during ``present()`` when it is called outside a Swift task), the
    /// helper is ended.
    open func cancelEditing() {
        if let helper {
            canceledByApp = true
            kill(helper, SIGTERM)
            return
        }
        editViewDelegate?.eventEditViewController(self, didCompleteWith: .canceled)
    }

    /// Shows the editor and waits until the user leaves it, then calls the delegate.
    ///
    /// Linux stand-in for UIKit's `present(_:animated:completion:)`: runs `ical ui
    /// edit-event` (found through `$OPENEVENTKIT_ICAL`, beside the running executable, or on
    /// `PATH`) on the controlling terminal. When the editor cannot be shown (no terminal, no
    /// helper, a store that could not be opened) the reason goes to standard error and the
    /// delegate is told ``EKEventEditViewAction/canceled``.
    ///
    /// - Precondition: ``eventStore`` is set, and ``event`` (when set) belongs to it.
    open func present() {
        guard let store = eventStore else {
            preconditionFailure("API misuse: set the EKEventEditViewController's eventStore before presenting it")
        }
        if let event, event.eventStore !== store {
            preconditionFailure("API misuse: the EKEventEditViewController's event belongs to another event store")
        }
        let action = runEditor(store)
        editViewDelegate?.eventEditViewController(self, didCompleteWith: action)
    }

    private func runEditor(_ store: EKEventStore) -> EKEventEditViewAction {
        guard let storePath = SystemHelper.storeArgument(for: store) else {
            SystemHelper.report("EKEventEditViewController: the event store could not be opened; the editor was canceled")
            return .canceled
        }
        let proposed = event ?? EKEvent(eventStore: store)
        var arguments = ["ui", "edit-event", "--store", storePath] + AppIdentity(store: store).arguments + ["--event", "-"]

        let isExisting = !proposed.isNew && store.authority.accessLevel(for: .event) == .full
        if isExisting, let identifier = proposed.eventIdentifier {
            arguments += ["--event-identifier", identifier]
            if proposed.hasRecurrenceRules || proposed.isDetached, let occurrence = proposed.occurrenceDate {
                arguments += ["--occurrence", Self.timestamp(occurrence)]
            }
        }
        // The calendar the form starts with: the event's, else the delegate's default.
        var calendar = proposed.calendar
        if calendar == nil && !isExisting {
            calendar = editViewDelegate?.eventEditViewControllerDefaultCalendar(forNewEvents: self)
        }
        if let calendar {
            if !calendar.isVirtual {
                arguments += ["--calendar", calendar.calendarIdentifier]
            } else if let target = store.writeOnlyTarget {
                arguments += ["--calendar", target]
            }
        }

        var wrapper = Component.calendar(productIdentifier: "-//OpenEventKit//OpenEventKitUI//EN")
        wrapper.components = [proposed.component]
        wrapper.components.insert(contentsOf: TimeZoneExport.timeZones(neededBy: [wrapper]), at: 0)
        let text = ICalWriter().string(wrapper)

        canceledByApp = false
        let outcome: SystemHelper.Outcome
        do {
            outcome = try SystemHelper.run(arguments, input: Data(text.utf8)) { pid in
                self.helper = pid
            }
        } catch {
            helper = nil
            SystemHelper.report("EKEventEditViewController: \(error); the editor was canceled")
            return .canceled
        }
        helper = nil
        if canceledByApp { return .canceled }
        switch outcome.output.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "saved" where outcome.status == 0: return .saved
        case "deleted" where outcome.status == 0: return .deleted
        case "canceled" where outcome.status == 0: return .canceled
        default:
            if let signal = outcome.signal {
                SystemHelper.report("EKEventEditViewController: the editor ended (signal \(signal)); treated as canceled")
            } else if outcome.status != 0 {
                SystemHelper.report("EKEventEditViewController: the editor failed (exit status \(outcome.status ?? -1)); treated as canceled")
            } else {
                SystemHelper.report("EKEventEditViewController: the editor answered “\(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))”; treated as canceled")
            }
            return .canceled
        }
    }

    /// An instant as the helper reads it: `2026-12-03T17:00:00Z`.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
