#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OpenEventKit
import OpenEventKitUI
import Testing

/// The controllers' side of the contract with the helper process: what they pass to
/// `ical ui ...` (arguments, the proposed event as iCalendar on standard input), how they
/// read its answer, what the delegate is told and what the app gets back. The helper here is
/// a stand-in script named by `$OPENEVENTKIT_ICAL` that records what it was given and
/// answers as told, so no terminal is involved; Tests/CLITests/UICommandTests.swift and
/// `make samples` run the real helper on a pseudo-terminal.
@Suite(.serialized) @MainActor struct PresentationTests {
    /// A store folder, a stand-in helper, and the app's manifest.
    final class Fixture {
        let folder: String
        var store: String { folder + "/store" }
        let manifest = AppManifest(bundleIdentifier: "org.example.lessons", displayName: "Lessons",
                                   usageDescriptions: [.calendarsWriteOnlyAccess: "Books lessons.", .calendarsFullAccess: "Lists lessons."])

        init(answer: String = "saved", status: Int32 = 0) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("ui-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let helper = folder + "/ical"
            try Data("""
                #!/bin/sh
                printf '%s\\n' "$@" > '\(folder)/arguments'
                cat > '\(folder)/input'
                printf '\(answer)\\n'
                exit \(status)

                """.utf8).write(to: URL(fileURLWithPath: helper))
            chmod(helper, 0o755)
            setenv("OPENEVENTKIT_ICAL", helper, 1)
            let user = try userStore()
            for title in ["Lessons", "School"] {
                let calendar = EKCalendar(for: .event, eventStore: user)
                calendar.title = title
                calendar.source = user.sources.first
                try user.saveCalendar(calendar, commit: true)
            }
        }

        func remove() {
            unsetenv("OPENEVENTKIT_ICAL")
            try? FileManager.default.removeItem(atPath: folder)
        }

        /// Records the app's decision as `ical privacy grant` does.
        func grant(_ status: EKAuthorizationStatus) throws {
            try AccessRecordsFile(storeRoot: store).updateAuthorizations { records in
                records.setDecision(AuthorizationDecision(status: status, decided: Date(), by: .settings), for: "org.example.lessons", .event)
            }
        }

        /// The store as the app sees it.
        func appStore() throws -> EKEventStore { try EKEventStore(storeURL: URL(fileURLWithPath: store), manifest: manifest) }

        /// The store as the user sees it.
        func userStore() throws -> EKEventStore { EKEventStore(backend: try FolderStore.open(at: store), authority: FullAccessAuthority()) }

        func calendar(_ title: String) throws -> String {
            try userStore().calendars(for: .event).first { $0.title == title }!.calendarIdentifier
        }

        /// The helper's arguments, one a line, or nil when it was not started.
        var arguments: [String]? {
            (try? String(contentsOfFile: folder + "/arguments", encoding: .utf8)).map { $0.split(separator: "\n").map(String.init) }
        }

        var input: String { (try? String(contentsOfFile: folder + "/input", encoding: .utf8)) ?? "" }

        func value(after option: String) -> String? {
            guard let arguments, let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
            return arguments[index + 1]
        }
    }

    /// Records what a delegate is told.
    final class Recorder: NSObject, EKEventEditViewDelegate, EKCalendarChooserDelegate {
        var actions: [EKEventEditViewAction] = []
        var calls: [String] = []
        var defaultCalendar: EKCalendar?

        func eventEditViewController(_ controller: EKEventEditViewController, didCompleteWith action: EKEventEditViewAction) {
            actions.append(action)
        }

        func eventEditViewControllerDefaultCalendar(forNewEvents controller: EKEventEditViewController) -> EKCalendar {
            calls.append("defaultCalendar")
            return defaultCalendar ?? controller.eventStore.defaultCalendarForNewEvents!
        }

        func calendarChooserSelectionDidChange(_ calendarChooser: EKCalendarChooser) { calls.append("selectionDidChange") }
        func calendarChooserDidFinish(_ calendarChooser: EKCalendarChooser) { calls.append("didFinish") }
        func calendarChooserDidCancel(_ calendarChooser: EKCalendarChooser) { calls.append("didCancel") }
    }

    /// A delegate that implements only the required method.
    final class MinimalDelegate: NSObject, EKEventEditViewDelegate {
        var actions: [EKEventEditViewAction] = []
        func eventEditViewController(_ controller: EKEventEditViewController, didCompleteWith action: EKEventEditViewAction) {
            actions.append(action)
        }
    }

    static let start = Date(timeIntervalSince1970: 1_796_317_200)   // 2026-12-03T17:00:00Z

    func lesson(in store: EKEventStore) -> EKEvent {
        let event = EKEvent(eventStore: store)
        event.title = "Drop-in: jazz harmony"
        event.timeZone = TimeZone(identifier: "Europe/Berlin")
        event.startDate = Self.start
        event.endDate = Self.start.addingTimeInterval(5400)
        event.location = "Studio A"
        return event
    }

    // MARK: The editor

    @Test func anAppWithoutAccessProposesTheEventAndLearnsOnlyTheAction() throws {
        let fixture = try Fixture(answer: "saved")
        defer { fixture.remove() }
        let store = try fixture.appStore()
        let event = lesson(in: store)
        let delegate = MinimalDelegate()
        let editor = EKEventEditViewController()
        editor.eventStore = store
        editor.event = event
        editor.editViewDelegate = delegate
        let (_, messages) = ControllerMessages.capturing { editor.present() }

        #expect(messages.isEmpty)

        #expect(delegate.actions == [.saved])
        let arguments = try #require(fixture.arguments)
        #expect(Array(arguments.prefix(2)) == ["ui", "edit-event"])
        #expect(fixture.value(after: "--store") == fixture.store)
        #expect(fixture.value(after: "--app-id") == "org.example.lessons")
        #expect(fixture.value(after: "--app-name") == "Lessons")
        #expect(fixture.value(after: "--event") == "-")
        #expect(!arguments.contains("--event-identifier"))
        #expect(!arguments.contains("--calendar"), "an app without access names no calendar: the editor uses the default")
        let input = fixture.input
        #expect(input.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(input.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"))
        #expect(input.contains("SUMMARY:Drop-in: jazz harmony\r\n"))
        #expect(input.contains("DTSTART;TZID=Europe/Berlin:20261203T180000\r\n"))
        #expect(input.contains("LOCATION:Studio A\r\n"))
        // The app's object is not what the user saved: it stays a new, unsaved event.
        #expect(event.isNew && event.eventIdentifier == nil)
    }

    @Test(arguments: [("canceled", Int32(0), EKEventEditViewAction.canceled), ("deleted", 0, .deleted),
                      ("saved", 1, .canceled), ("what?", 0, .canceled)])
    func theHelpersAnswerIsTheAction(answer: String, status: Int32, action: EKEventEditViewAction) throws {
        let fixture = try Fixture(answer: answer, status: status)
        defer { fixture.remove() }
        let store = try fixture.appStore()
        let delegate = MinimalDelegate()
        let editor = EKEventEditViewController()
        editor.eventStore = store
        editor.editViewDelegate = delegate
        let (_, messages) = ControllerMessages.capturing { editor.present() }
        #expect(delegate.actions == [action])
        #expect(fixture.input.contains("BEGIN:VEVENT"), "with no event, a new one is proposed")
        switch (answer, status) {
        case ("what?", _): #expect(messages == ["EKEventEditViewController: the editor answered “what?”; treated as canceled"])
        case (_, 1): #expect(messages == ["EKEventEditViewController: the editor failed (exit status 1); treated as canceled"])
        default: #expect(messages.isEmpty)
        }
    }

    @Test func noHelperIsACancel() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        setenv("OPENEVENTKIT_ICAL", fixture.folder + "/missing", 1)
        let delegate = MinimalDelegate()
        let editor = EKEventEditViewController()
        editor.eventStore = try fixture.appStore()
        editor.editViewDelegate = delegate
        let (_, messages) = ControllerMessages.capturing { editor.present() }
        #expect(delegate.actions == [.canceled])
        #expect(fixture.arguments == nil)
        #expect(messages == ["EKEventEditViewController: OPENEVENTKIT_ICAL is \(fixture.folder)/missing, which is not an executable file; the editor was canceled"])
    }

    @Test func cancelEditingTellsTheDelegate() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let delegate = MinimalDelegate()
        let editor = EKEventEditViewController()
        editor.eventStore = try fixture.appStore()
        editor.editViewDelegate = delegate
        editor.cancelEditing()
        #expect(delegate.actions == [.canceled])
        #expect(fixture.arguments == nil, "nothing was shown")
    }

    @Test func aFullAccessAppEditsAStoredOccurrence() throws {
        let fixture = try Fixture(answer: "saved")
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let store = try fixture.appStore()
        let weekly = lesson(in: store)
        weekly.addRecurrenceRule(EKRecurrenceRule(recurrenceWith: .weekly, interval: 1, end: EKRecurrenceEnd(occurrenceCount: 4)))
        weekly.calendar = store.calendars(for: .event).first { $0.title == "Lessons" }
        try store.save(weekly, span: .futureEvents)
        let second = store.events(matching: store.predicateForEvents(withStart: Self.start.addingTimeInterval(86_400),
                                                                     end: Self.start.addingTimeInterval(8 * 86_400), calendars: nil))
        let occurrence = try #require(second.first)
        let editor = EKEventEditViewController()
        editor.eventStore = store
        editor.event = occurrence
        let (_, messages) = ControllerMessages.capturing { editor.present() }

        #expect(messages.isEmpty)
        #expect(fixture.value(after: "--event-identifier") == occurrence.eventIdentifier)
        #expect(fixture.value(after: "--occurrence") == "2026-12-10T17:00:00Z")
        #expect(fixture.value(after: "--calendar") == (try fixture.calendar("Lessons")))
    }

    @Test func theDelegateChoosesTheCalendarOfANewEvent() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let store = try fixture.appStore()
        let delegate = Recorder()
        delegate.defaultCalendar = store.calendars(for: .event).first { $0.title == "School" }
        let editor = EKEventEditViewController()
        editor.eventStore = store
        editor.editViewDelegate = delegate
        let (_, messages) = ControllerMessages.capturing { editor.present() }

        #expect(messages.isEmpty)
        #expect(delegate.calls == ["defaultCalendar"])
        #expect(fixture.value(after: "--calendar") == (try fixture.calendar("School")))
        #expect(delegate.actions == [.saved])
    }

    @Test func underWriteOnlyTheEditorStartsInTheChosenCalendar() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.grant(.writeOnly)
        let store = try fixture.appStore()
        store.writeOnlyTarget = try fixture.calendar("School")     // as the chooser leaves it
        let event = lesson(in: store)
        event.calendar = store.defaultCalendarForNewEvents             // the write-only calendar
        let editor = EKEventEditViewController()
        editor.eventStore = store
        editor.event = event
        let (_, messages) = ControllerMessages.capturing { editor.present() }
        #expect(messages.isEmpty)
        #expect(fixture.value(after: "--calendar") == (try fixture.calendar("School")))
        #expect(fixture.arguments?.contains("--event-identifier") == false)
    }

    // MARK: The chooser

    @Test func withoutAccessTheChooserCancelsWithoutAHelper() throws {
        let fixture = try Fixture(answer: "done")
        defer { fixture.remove() }
        try fixture.grant(.denied)
        let delegate = Recorder()
        let chooser = EKCalendarChooser(selectionStyle: .single, displayStyle: .allCalendars, eventStore: try fixture.appStore())
        chooser.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { chooser.present() }
        #expect(delegate.calls == ["didCancel"])
        #expect(fixture.arguments == nil)
        #expect(messages == ["EKCalendarChooser: “Lessons” (org.example.lessons) has no access to events (denied); the calendar chooser needs write-only or full access"])
    }

    @Test func underWriteOnlyTheAppGetsACalendarToSaveIntoButNotToRead() throws {
        let fixture = try Fixture(answer: "done\\nLESSONS")
        defer { fixture.remove() }
        try fixture.grant(.writeOnly)
        let lessons = try fixture.calendar("Lessons")
        try Data(try String(contentsOfFile: fixture.folder + "/ical", encoding: .utf8)
            .replacingOccurrences(of: "LESSONS", with: lessons).utf8).write(to: URL(fileURLWithPath: fixture.folder + "/ical"))
        let store = try fixture.appStore()
        let delegate = Recorder()
        let chooser = EKCalendarChooser(selectionStyle: .multiple, displayStyle: .allCalendars, entityType: .event, eventStore: store)
        chooser.showsDoneButton = true
        chooser.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { chooser.present() }

        #expect(messages.isEmpty)

        #expect(delegate.calls == ["selectionDidChange", "didFinish"])
        #expect(fixture.value(after: "--selection") == "multiple", "the helper applies the write-only rules itself")
        #expect(fixture.arguments?.contains("--done-button") == true)
        #expect(fixture.arguments?.contains("--cancel-button") == false)
        let chosen = try #require(chooser.selectedCalendars.first)
        #expect(chooser.selectedCalendars.count == 1)
        #expect(chosen == store.defaultCalendarForNewEvents, "the write-only calendar")
        #expect(chosen.calendarIdentifier != lessons)

        let event = lesson(in: store)
        event.calendar = chosen
        try store.save(event, span: .thisEvent)
        let user = try fixture.userStore()
        let saved = user.events(matching: user.predicateForEvents(withStart: Self.start, end: Self.start.addingTimeInterval(3600), calendars: nil))
        #expect(saved.map { $0.calendar.calendarIdentifier } == [lessons], "saved where the user chose")
        #expect(store.events(matching: store.predicateForEvents(withStart: Self.start, end: Self.start.addingTimeInterval(3600), calendars: nil)).isEmpty)
    }

    @Test func underFullAccessTheAppGetsTheRealCalendars() throws {
        let fixture = try Fixture(answer: "done\\nA\\nB")
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let (lessons, school) = (try fixture.calendar("Lessons"), try fixture.calendar("School"))
        try Data(try String(contentsOfFile: fixture.folder + "/ical", encoding: .utf8)
            .replacingOccurrences(of: "\\nA\\nB", with: "\\n\(lessons)\\n\(school)").utf8).write(to: URL(fileURLWithPath: fixture.folder + "/ical"))
        let store = try fixture.appStore()
        let delegate = Recorder()
        let chooser = EKCalendarChooser(selectionStyle: .multiple, displayStyle: .writableCalendarsOnly, eventStore: store)
        chooser.selectedCalendars = [store.defaultCalendarForNewEvents!]
        chooser.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { chooser.present() }

        #expect(messages.isEmpty)
        #expect(fixture.value(after: "--display") == "writable")
        #expect(fixture.value(after: "--selected") == "calendar")
        #expect(Set(chooser.selectedCalendars.map(\.title)) == ["Lessons", "School"])
        #expect(delegate.calls == ["selectionDidChange", "didFinish"])
    }

    /// `ETXTBSY`: while any process has the helper open for writing (here the test itself;
    /// in a test run, another thread's `fork` child that inherited the descriptor of a script
    /// just written), `exec` fails. The controller tries again for a moment.
    @Test func aHelperStillOpenForWritingForAMomentStarts() throws {
        let fixture = try Fixture(answer: "saved")
        defer { fixture.remove() }
        let writer = open(fixture.folder + "/ical", O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        let closer = Thread { usleep(100_000); close(writer) }
        closer.start()
        let store = try fixture.appStore()
        let delegate = MinimalDelegate()
        let editor = EKEventEditViewController()
        editor.eventStore = store
        editor.event = lesson(in: store)
        editor.editViewDelegate = delegate
        let (_, messages) = ControllerMessages.capturing { editor.present() }

        #expect(messages.isEmpty)
        #expect(delegate.actions == [.saved])
        #expect(fixture.arguments?.prefix(2) == ["ui", "edit-event"])
    }

    @Test func aCanceledChooserKeepsTheSelection() throws {
        let fixture = try Fixture(answer: "canceled")
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let store = try fixture.appStore()
        let delegate = Recorder()
        let chooser = EKCalendarChooser(selectionStyle: .single, displayStyle: .allCalendars, eventStore: store)
        let before: Set<EKCalendar> = [store.defaultCalendarForNewEvents!]
        chooser.selectedCalendars = before
        chooser.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { chooser.present() }

        #expect(messages.isEmpty)
        #expect(delegate.calls == ["didCancel"])
        #expect(chooser.selectedCalendars == before)
        #expect(chooser.selectionStyle == .single && chooser.displayStyle == .allCalendars && chooser.entityType == .event)
        #expect(!chooser.showsDoneButton && !chooser.showsCancelButton, "EventKitUI's defaults")
    }

    @Test func aChooserClosedWithoutButtonsReportsOnlyTheSelection() throws {
        let fixture = try Fixture(answer: "closed\\ncalendar")
        defer { fixture.remove() }
        try fixture.grant(.fullAccess)
        let store = try fixture.appStore()
        let delegate = Recorder()
        let chooser = EKCalendarChooser(selectionStyle: .single, displayStyle: .allCalendars, eventStore: store)
        chooser.delegate = delegate
        let (_, messages) = ControllerMessages.capturing { chooser.present() }
        #expect(messages.isEmpty)
        #expect(delegate.calls == ["selectionDidChange"], "neither Done nor Cancel was offered")
        #expect(chooser.selectedCalendars.map(\.calendarIdentifier) == ["calendar"])
        #expect(fixture.arguments?.contains("--done-button") == false)
    }

    // MARK: Shapes

    @Test func rawValuesAreEventKitUIs() {
        #expect(EKEventEditViewAction.canceled.rawValue == 0)
        #expect(EKEventEditViewAction.saved.rawValue == 1)
        #expect(EKEventEditViewAction.deleted.rawValue == 2)
        #expect(EKCalendarChooserSelectionStyle.single.rawValue == 0)
        #expect(EKCalendarChooserSelectionStyle.multiple.rawValue == 1)
        #expect(EKCalendarChooserDisplayStyle.allCalendars.rawValue == 0)
        #expect(EKCalendarChooserDisplayStyle.writableCalendarsOnly.rawValue == 1)
    }

    @available(*, deprecated)
    @Test func theOldSpellingOfCanceled() {
        #expect(EKEventEditViewAction.cancelled == .canceled)
    }
}
