import Foundation
import OpenEventKit

/// The system's calendar chooser: the user picks one calendar or several.
///
/// With full access the chooser lists the calendars as ``displayStyle`` asks and returns the
/// real `EKCalendar` objects. Under write-only access, as on Apple's systems, it ignores
/// the requested styles: it lists the writable event calendars, lets the user pick one, and
/// hands back the store's write-only calendar (`defaultCalendarForNewEvents`), which the app
/// can save events into (they land in the calendar the user picked) but cannot read. Without
/// access the chooser is not shown: the delegate is told
/// ``EKCalendarChooserDelegate/calendarChooserDidCancel(_:)`` and the reason goes to standard
/// error.
///
/// Linux: there is no UIKit. ``present()`` stands in for presenting the chooser: it starts
/// the trusted helper `ical ui choose-calendar`, which shows a numbered list on the terminal
/// (`/dev/tty`), then calls the delegate.
@MainActor
open class EKCalendarChooser: NSObject {
    /// One calendar or several.
    public let selectionStyle: EKCalendarChooserSelectionStyle
    /// Which calendars are listed (an init parameter in EventKitUI; readable here).
    public let displayStyle: EKCalendarChooserDisplayStyle
    /// The kind of calendar listed (an init parameter in EventKitUI; readable here).
    public let entityType: EKEntityType
    private let eventStore: EKEventStore

    /// The selected calendars: set it before presenting to preselect; after the user chose
    /// Done it holds the choice.
    open var selectedCalendars: Set<EKCalendar> = []
    /// Whether the chooser offers Done (false by default, as in EventKitUI).
    open var showsDoneButton = false
    /// Whether the chooser offers Cancel (false by default, as in EventKitUI).
    open var showsCancelButton = false
    /// Told of the user's choices.
    open weak var delegate: (any EKCalendarChooserDelegate)?

    /// A chooser of event calendars.
    public convenience init(selectionStyle: EKCalendarChooserSelectionStyle, displayStyle: EKCalendarChooserDisplayStyle,
                            eventStore: EKEventStore) {
        self.init(selectionStyle: selectionStyle, displayStyle: displayStyle, entityType: .event, eventStore: eventStore)
    }

    /// A chooser of the calendars of `entityType`.
    public init(selectionStyle style: EKCalendarChooserSelectionStyle, displayStyle: EKCalendarChooserDisplayStyle,
                entityType: EKEntityType, eventStore: EKEventStore) {
        self.selectionStyle = style
        self.displayStyle = displayStyle
        self.entityType = entityType
        self.eventStore = eventStore
        super.init()
    }

    /// Shows the chooser and waits until the user leaves it, then calls the delegate:
    /// ``EKCalendarChooserDelegate/calendarChooserSelectionDidChange(_:)`` when the selection
    /// changed, then ``EKCalendarChooserDelegate/calendarChooserDidFinish(_:)`` (Done) or
    /// ``EKCalendarChooserDelegate/calendarChooserDidCancel(_:)`` (Cancel; the selection is
    /// left as it was). Without either button, an empty line closes the chooser with only
    /// the selection reported.
    ///
    /// Linux stand-in for UIKit's `present(_:animated:completion:)`: runs `ical ui
    /// choose-calendar` (found through `$OPENEVENTKIT_ICAL`, beside the running executable,
    /// or on `PATH`) on the controlling terminal. When it cannot be shown (no access, no
    /// terminal, no helper) the reason goes to standard error and the delegate is told the
    /// user canceled.
    open func present() {
        let level = eventStore.authority.accessLevel(for: entityType)
        let kind = entityType == .event ? "events" : "reminders"
        guard level != .none else {
            let status = eventStore.authority.authorizationStatus(for: entityType)
            let app = AppIdentity(store: eventStore)
            SystemHelper.report("EKCalendarChooser: “\(app.displayName)” (\(app.bundleIdentifier)) has no access to \(kind) (\(status)); the calendar chooser needs write-only or full access")
            delegate?.calendarChooserDidCancel(self)
            return
        }
        guard let storePath = SystemHelper.storeArgument(for: eventStore) else {
            SystemHelper.report("EKCalendarChooser: the event store could not be opened; the chooser was canceled")
            delegate?.calendarChooserDidCancel(self)
            return
        }
        var arguments = ["ui", "choose-calendar", "--store", storePath] + AppIdentity(store: eventStore).arguments
        arguments += ["--entity-type", entityType == .event ? "event" : "reminder",
                      "--selection", selectionStyle == .single ? "single" : "multiple",
                      "--display", displayStyle == .allCalendars ? "all" : "writable"]
        if showsDoneButton { arguments.append("--done-button") }
        if showsCancelButton { arguments.append("--cancel-button") }
        for calendar in selectedCalendars.sorted(by: { $0.calendarIdentifier < $1.calendarIdentifier }) {
            if !calendar.isVirtual {
                arguments += ["--selected", calendar.calendarIdentifier]
            } else if let target = eventStore.writeOnlyTarget {
                arguments += ["--selected", target]
            }
        }

        let outcome: SystemHelper.Outcome
        do {
            outcome = try SystemHelper.run(arguments, input: Data())
        } catch {
            SystemHelper.report("EKCalendarChooser: \(error); the chooser was canceled")
            delegate?.calendarChooserDidCancel(self)
            return
        }
        let lines = outcome.output.split(separator: "\n").map(String.init)
        guard outcome.status == 0, let action = lines.first, ["done", "closed"].contains(action) else {
            if let signal = outcome.signal {
                SystemHelper.report("EKCalendarChooser: the chooser ended (signal \(signal)); treated as canceled")
            } else if outcome.status != 0 {
                SystemHelper.report("EKCalendarChooser: the chooser failed (exit status \(outcome.status ?? -1)); treated as canceled")
            }
            delegate?.calendarChooserDidCancel(self)
            return
        }
        let chosen = Array(lines.dropFirst())
        let selection: Set<EKCalendar>
        let changed: Bool
        if level == .writeOnly {
            changed = chosen.first != nil && (selectedCalendars.isEmpty || chosen.first != eventStore.writeOnlyTarget)
            // The app may write into the chosen calendar but not see it: it gets the store's
            // write-only calendar, whose saves now go to the chosen one.
            eventStore.writeOnlyTarget = chosen.first
            selection = chosen.isEmpty ? [] : Set([eventStore.defaultCalendarForNewEvents].compactMap { $0 })
        } else {
            selection = Set(chosen.compactMap { eventStore.calendar(withIdentifier: $0) })
            changed = selection != selectedCalendars
        }
        selectedCalendars = selection
        if changed { delegate?.calendarChooserSelectionDidChange(self) }
        if action == "done" { delegate?.calendarChooserDidFinish(self) }
    }
}
