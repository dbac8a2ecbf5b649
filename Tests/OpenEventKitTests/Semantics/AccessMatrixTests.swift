import Foundation
import Testing
@testable import OpenEventKit
import OpenEventKitBroker

/// Every authorization status against every EKEventStore operation: the store enforces the
/// levels on every path (EVENTKIT-API.md section 3), including write-only's surprises. Each
/// test runs twice: in process (a trusted program's store) and through the broker (a
/// sandboxed app's store, whose every call the broker checks again).
@Suite struct AccessMatrixTests {
    static let statuses: [EKAuthorizationStatus] = [.notDetermined, .restricted, .denied, .writeOnly, .fullAccess]

    /// Where the app's store is.
    enum Route: String, CaseIterable, CustomTestStringConvertible {
        case inProcess, broker
        var testDescription: String { rawValue }
    }

    /// An app's store over `authority`: in process, or through a broker session on a socket pair.
    static func store(at folder: StoreFolder, authority: any AccessAuthority, route: Route) throws -> EKEventStore {
        let backend = try FolderStore.open(at: folder.path)
        switch route {
        case .inProcess:
            return EKEventStore(backend: backend, authority: authority)
        case .broker:
            let (app, broker) = try FrameChannel.pair()
            let session = BrokerSession(store: backend, authority: authority, channel: broker)
            Thread.detachNewThread { session.serve() }
            return EKEventStore(broker: BrokerClient(channel: app))
        }
    }

    /// An app's store for `manifest` with its access controller (the broker's, through the broker).
    static func store(at folder: StoreFolder, manifest: AppManifest, prompt: ScriptedPrompt, route: Route) throws -> EKEventStore {
        let backend = try FolderStore.open(at: folder.path)
        switch route {
        case .inProcess:
            let box = StoreReference()
            let access = AccessController(manifest: manifest, storeRoot: folder.path, prompt: prompt, clock: { fixedNow },
                                          onChange: { _, _ in box.store?.accessDidChange() })
            let store = EKEventStore(backend: backend, authority: access)
            box.store = store
            return store
        case .broker:
            let (app, broker) = try FrameChannel.pair()
            let session = BrokerSession(store: backend, manifest: manifest, channel: broker, prompt: prompt, helpers: nil)
            Thread.detachNewThread { session.serve() }
            return EKEventStore(broker: BrokerClient(channel: app))
        }
    }

    /// A store with one committed event (written with full access) and one reminder, reopened
    /// under `events` / `reminders`.
    private func seeded(events: EKAuthorizationStatus, reminders: EKAuthorizationStatus, route: Route) throws -> (TestStore, EKEventStore, eventID: String, uid: String) {
        let test = try TestStore()
        let event = newEvent(test.store, "Existing", "2026-12-02T10:00")
        try test.store.save(event, span: .thisEvent)
        let reminder = EKReminder(eventStore: test.store)
        reminder.title = "Existing reminder"
        reminder.calendar = test.store.defaultCalendarForNewReminders()
        try test.store.save(reminder, commit: true)
        let store = try Self.store(at: test.folder, authority: FixedAccessAuthority(events: events, reminders: reminders), route: route)
        return (test, store, try #require(event.eventIdentifier), try #require(event.calendarItemExternalIdentifier))
    }

    private func code(_ body: () throws -> Void) -> EKError.Code? {
        do { try body(); return nil } catch let error as EKError { return error.code } catch { return .last }
    }

    private func fetchReminders(_ store: EKEventStore) -> [String] {
        let semaphore = DispatchSemaphore(value: 0)
        let titles = Collected<String>()
        _ = store.fetchReminders(matching: store.predicateForReminders(in: nil)) { reminders in
            for reminder in reminders ?? [] { titles.append(reminder.title) }
            semaphore.signal()
        }
        semaphore.wait()
        return titles.values
    }

    @Test(arguments: statuses, Route.allCases)
    func eventOperations(_ status: EKAuthorizationStatus, route: Route) throws {
        let (test, store, identifier, uid) = try seeded(events: status, reminders: .notDetermined, route: route)
        _ = test
        let window = store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2026-12-31T00:00"), calendars: nil)
        var enumerated = 0
        store.enumerateEvents(matching: window) { _, _ in enumerated += 1 }
        switch status {
        case .fullAccess:
            #expect(store.sources.map(\.sourceIdentifier) == ["local"])
            #expect(store.calendars(for: .event).map(\.calendarIdentifier) == ["calendar"])
            #expect(store.defaultCalendarForNewEvents?.calendarIdentifier == "calendar")
            #expect(store.calendar(withIdentifier: "calendar") != nil)
            #expect(store.events(matching: window).map(\.title) == ["Existing"])
            #expect(enumerated == 1)
            #expect(store.event(withIdentifier: identifier)?.title == "Existing")
            #expect(store.calendarItem(withIdentifier: identifier) != nil)
            #expect(store.calendarItems(withExternalIdentifier: uid).count == 1)
            #expect(code { try store.save(newEvent(store, "New", "2026-12-03T10:00"), span: .thisEvent) } == nil)
            let existing = try #require(store.event(withIdentifier: identifier))
            existing.title = "Edited"
            #expect(code { try store.save(existing, span: .thisEvent) } == nil)
            #expect(code { try store.remove(existing, span: .thisEvent) } == nil)
            let calendar = EKCalendar(for: .event, eventStore: store)
            calendar.title = "New calendar"
            calendar.source = store.sources.first
            #expect(code { try store.saveCalendar(calendar, commit: true) } == nil)
            #expect(code { try store.removeCalendar(calendar, commit: true) } == nil)
        case .writeOnly:
            // One virtual source and calendar, which stand for no real calendar.
            #expect(store.sources.map(\.sourceIdentifier) == ["write-only"])
            #expect(store.delegateSources.isEmpty)
            let calendars = store.calendars(for: .event)
            #expect(calendars.count == 1)
            #expect(calendars.first?.calendarIdentifier == "write-only")
            #expect(store.defaultCalendarForNewEvents == calendars.first)
            #expect(store.sources.first?.calendars(for: .event) == Set(calendars))
            #expect(store.calendar(withIdentifier: "calendar") == nil)
            // Every fetch returns nothing, even the event the app just saved.
            let mine = newEvent(store, "Mine", "2026-12-03T10:00")
            #expect(code { try store.save(mine, span: .thisEvent) } == nil)
            #expect(store.events(matching: window).isEmpty)
            #expect(enumerated == 0)
            #expect(store.event(withIdentifier: identifier) == nil)
            #expect(store.event(withIdentifier: mine.eventIdentifier) == nil)
            #expect(store.calendarItem(withIdentifier: identifier) == nil)
            #expect(store.calendarItems(withExternalIdentifier: uid).isEmpty)
            #expect(store.calendarItems(withExternalIdentifier: mine.calendarItemExternalIdentifier).isEmpty)
            // The saved event landed in the user's default calendar.
            #expect(test.files(in: "calendar").count == 2)
            // It cannot be changed or removed, and no calendar can be created.
            mine.title = "Mine, edited"
            #expect(code { try store.save(mine, span: .thisEvent) } == .eventStoreNotAuthorized)
            #expect(code { try store.remove(mine, span: .thisEvent) } == .eventStoreNotAuthorized)
            let calendar = EKCalendar(for: .event, eventStore: store)
            calendar.title = "Mine"
            calendar.source = store.sources.first
            #expect(code { try store.saveCalendar(calendar, commit: true) } == .sourceDoesNotAllowCalendarAddDelete)
            #expect(code { try store.removeCalendar(calendars[0], commit: true) } == .sourceDoesNotAllowCalendarAddDelete)
        case .notDetermined, .restricted, .denied:
            #expect(store.sources.isEmpty)
            #expect(store.calendars(for: .event).isEmpty)
            #expect(store.defaultCalendarForNewEvents == nil)
            #expect(store.calendar(withIdentifier: "calendar") == nil)
            #expect(store.events(matching: window).isEmpty)
            #expect(enumerated == 0)
            #expect(store.event(withIdentifier: identifier) == nil)
            #expect(store.calendarItem(withIdentifier: identifier) == nil)
            #expect(store.calendarItems(withExternalIdentifier: uid).isEmpty)
            let event = EKEvent(eventStore: store)
            event.title = "Nope"
            event.startDate = utc("2026-12-03T10:00")
            event.endDate = utc("2026-12-03T11:00")
            event.calendar = EKCalendar(for: .event, eventStore: store)
            #expect(code { try store.save(event, span: .thisEvent) } == .eventStoreNotAuthorized)
            #expect(code { try store.remove(event, span: .thisEvent) } == .eventStoreNotAuthorized)
            let calendar = EKCalendar(for: .event, eventStore: store)
            calendar.title = "Nope"
            #expect(code { try store.saveCalendar(calendar, commit: true) } == .eventStoreNotAuthorized)
            #expect(test.files(in: "calendar").count == 1, "nothing was written")
        @unknown default:
            Issue.record("unexpected status")
        }
    }

    @Test(arguments: statuses, Route.allCases)
    func reminderOperations(_ status: EKAuthorizationStatus, route: Route) throws {
        let (test, store, _, _) = try seeded(events: .fullAccess, reminders: status, route: route)
        let reminder = EKReminder(eventStore: store)
        reminder.title = "New reminder"
        reminder.calendar = store.defaultCalendarForNewReminders() ?? EKCalendar(for: .reminder, eventStore: store)
        if status == .fullAccess {
            #expect(store.calendars(for: .reminder).map(\.calendarIdentifier) == ["reminders"])
            #expect(fetchReminders(store) == ["Existing reminder"])
            #expect(code { try store.save(reminder, commit: true) } == nil)
            #expect(code { try store.remove(reminder, commit: true) } == nil)
        } else {
            // There is no write-only level for reminders.
            #expect(store.calendars(for: .reminder).isEmpty)
            #expect(store.defaultCalendarForNewReminders() == nil)
            #expect(fetchReminders(store).isEmpty)
            #expect(code { try store.save(reminder, commit: true) } == .eventStoreNotAuthorized)
            #expect(code { try store.remove(reminder, commit: true) } == .eventStoreNotAuthorized)
            #expect(test.files(in: "reminders").count == 1)
        }
        // Event access is independent of reminder access.
        #expect(store.calendars(for: .event).count == 1)
    }

    /// TN3153: the first fetch under write-only asks to upgrade; allowed, the store posts
    /// EKEventStoreChanged and returns data from then on.
    @Test(arguments: Route.allCases)
    func firstFetchUnderWriteOnlyOffersTheUpgrade(route: Route) throws {
        let test = try TestStore()
        let event = newEvent(test.store, "Existing", "2026-12-02T10:00")
        try test.store.save(event, span: .thisEvent)
        try setPrior(.writeOnly, .event, in: test.folder)
        let prompt = ScriptedPrompt([.allow])
        let store = try Self.store(at: test.folder, manifest: lessonsManifest(), prompt: prompt, route: route)
        let posted = Collected<Bool>()
        let observer = NotificationCenter.default.addObserver(forName: .EKEventStoreChanged, object: store, queue: nil) { _ in posted.append(true) }
        defer { NotificationCenter.default.removeObserver(observer) }
        #expect(store.calendars(for: .event).map(\.calendarIdentifier) == ["write-only"])
        let window = store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2026-12-31T00:00"), calendars: nil)
        #expect(store.events(matching: window).map(\.title) == ["Existing"])
        #expect(prompt.asked.map(\.kind) == [.upgradeToFullAccessToEvents])
        if route == .broker { Thread.sleep(forTimeInterval: 0.2) }   // the broker's notice comes on its own
        #expect(!posted.values.isEmpty)
        #expect(store.calendars(for: .event).map(\.calendarIdentifier) == ["calendar"])
    }

    @Test(arguments: Route.allCases)
    func declinedUpgradeKeepsFetchesEmpty(route: Route) throws {
        let test = try TestStore()
        try setPrior(.writeOnly, .event, in: test.folder)
        let prompt = ScriptedPrompt([.deny])
        let store = try Self.store(at: test.folder, manifest: lessonsManifest(), prompt: prompt, route: route)
        let window = store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2026-12-31T00:00"), calendars: nil)
        #expect(store.events(matching: window).isEmpty)
        #expect(store.event(withIdentifier: "calendar/x.ics") == nil)
        #expect(prompt.asked.count == 1)
        #expect(store.authority.authorizationStatus(for: .event) == .writeOnly)
    }
}

private final class StoreReference: @unchecked Sendable {
    weak var store: EKEventStore?
}
