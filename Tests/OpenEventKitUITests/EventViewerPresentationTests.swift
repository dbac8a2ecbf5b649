import Foundation
import OpenEventKit
import OpenEventKitUI
import Testing

/// EKEventViewController's side of the contract with `ical ui view-event`: it shows only
/// an event the app could read (full access, a saved event), passes the helper the event's
/// identifier and the controller's options, and maps the helper's answer to the delegate's
/// action. The helper is the stand-in script of ``PresentationTests/Fixture``.
extension PresentationTests {
    final class ViewerRecorder: NSObject, EKEventViewDelegate {
        var actions: [EKEventViewAction] = []
        func eventViewController(_ controller: EKEventViewController, didCompleteWith action: EKEventViewAction) {
            actions.append(action)
        }
    }

    @Test func theViewerShowsAnEventTheAppFetchedWithFullAccess() throws {
        let fixture = try Fixture(answer: "responded")
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let store = try fixture.appStore()
        let saved = lesson(in: store)
        saved.calendar = store.defaultCalendarForNewEvents
        try store.save(saved, span: .thisEvent)
        let fetched = try #require(store.event(withIdentifier: saved.eventIdentifier))

        let delegate = ViewerRecorder()
        let viewer = EKEventViewController()
        #expect(viewer.allowsEditing == false && viewer.allowsCalendarPreview == true, "EventKitUI's defaults")
        viewer.event = fetched
        viewer.allowsEditing = true
        viewer.allowsCalendarPreview = false
        viewer.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { viewer.present() }

        #expect(messages.isEmpty)
        #expect(delegate.actions == [.responded])
        let arguments = try #require(fixture.arguments)
        #expect(Array(arguments.prefix(2)) == ["ui", "view-event"])
        #expect(fixture.value(after: "--store") == fixture.store)
        #expect(fixture.value(after: "--app-id") == "org.example.lessons")
        #expect(fixture.value(after: "--event-identifier") == saved.eventIdentifier)
        #expect(arguments.contains("--allows-editing"))
        #expect(arguments.contains("--no-calendar-preview"))
        #expect(!arguments.contains("--occurrence"), "not a recurring event")
        #expect(fixture.input.isEmpty, "the viewer reads the stored event, not the app's object")
    }

    @Test func aRecurringEventIsShownAtItsOccurrence() throws {
        let fixture = try Fixture(answer: "done")
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let store = try fixture.appStore()
        let weekly = lesson(in: store)
        weekly.calendar = store.defaultCalendarForNewEvents
        weekly.addRecurrenceRule(EKRecurrenceRule(recurrenceWith: .weekly, interval: 1, end: EKRecurrenceEnd(occurrenceCount: 4)))
        try store.save(weekly, span: .futureEvents)
        let second = try #require(store.events(matching: store.predicateForEvents(
            withStart: Self.start.addingTimeInterval(86_400), end: Self.start.addingTimeInterval(10 * 86_400), calendars: nil)).first)

        let delegate = ViewerRecorder()
        let viewer = EKEventViewController()
        viewer.event = second
        viewer.delegate = delegate
        viewer.present()
        #expect(delegate.actions == [.done])
        #expect(fixture.value(after: "--occurrence") == "2026-12-10T17:00:00Z")
        #expect(fixture.arguments?.contains("--allows-editing") == false)
    }

    @Test(arguments: [EKAuthorizationStatus.writeOnly, .denied])
    func withoutFullAccessTheViewerIsNotShown(status: EKAuthorizationStatus) throws {
        let fixture = try Fixture(answer: "deleted")
        defer { fixture.remove() }
        try fixture.grant(status)
        let store = try fixture.appStore()
        // The app cannot fetch events; an object it made itself is all it has.
        let event = lesson(in: store)
        let delegate = ViewerRecorder()
        let viewer = EKEventViewController()
        viewer.event = event
        viewer.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { viewer.present() }
        #expect(delegate.actions == [.done])
        #expect(fixture.arguments == nil, "the helper was not started")
        #expect(messages == ["EKEventViewController: the app has no full access to events, so it has no event to show; the viewer was not shown"])
    }

    @Test func anUnsavedEventIsNotShown() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let delegate = ViewerRecorder()
        let viewer = EKEventViewController()
        viewer.event = lesson(in: try fixture.appStore())
        viewer.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { viewer.present() }
        #expect(delegate.actions == [.done])
        #expect(fixture.arguments == nil)
        #expect(messages == ["EKEventViewController: the event was never saved, so the calendar has nothing to show; the viewer was not shown"])
    }

    @Test(arguments: [("deleted", Int32(0), EKEventViewAction.deleted), ("done", 0, .done), ("responded", 1, .done), ("what?", 0, .done)])
    func theViewerHelpersAnswerIsTheAction(answer: String, status: Int32, action: EKEventViewAction) throws {
        let fixture = try Fixture(answer: answer, status: status)
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let store = try fixture.appStore()
        let event = lesson(in: store)
        event.calendar = store.defaultCalendarForNewEvents
        try store.save(event, span: .thisEvent)
        let delegate = ViewerRecorder()
        let viewer = EKEventViewController()
        viewer.event = event
        viewer.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { viewer.present() }
        #expect(delegate.actions == [action])
        switch (answer, status) {
        case ("what?", _): #expect(messages == ["EKEventViewController: the viewer answered “what?”; treated as done"])
        case (_, 1): #expect(messages == ["EKEventViewController: the viewer failed (exit status 1); treated as done"])
        default: #expect(messages.isEmpty)
        }
    }

    @Test func theViewActionsHaveEventKitUIsRawValues() {
        #expect(EKEventViewAction.done.rawValue == 0)
        #expect(EKEventViewAction.responded.rawValue == 1)
        #expect(EKEventViewAction.deleted.rawValue == 2)
    }
}
