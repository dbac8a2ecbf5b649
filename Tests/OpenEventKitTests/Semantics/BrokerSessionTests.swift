import Foundation
import Testing
@testable import OpenEventKit
import OpenEventKitBroker

/// The broker's own checks, asked directly as a hostile app would ask them (any call, any
/// arguments, no library in between), and the broker-side store's freshness.
@Suite struct BrokerSessionTests {
    /// A seeded store (one event, one reminder) and a session over it at fixed levels.
    private func session(events: EKAuthorizationStatus, reminders: EKAuthorizationStatus) throws -> (TestStore, BrokerSession) {
        let test = try TestStore()
        try test.store.save(newEvent(test.store, "Existing", "2026-12-02T10:00"), span: .thisEvent)
        let reminder = EKReminder(eventStore: test.store)
        reminder.title = "Existing reminder"
        reminder.calendar = test.store.defaultCalendarForNewReminders()
        try test.store.save(reminder, commit: true)
        let (_, broker) = try FrameChannel.pair()
        let session = BrokerSession(store: try FolderStore.open(at: test.folder.path),
                                    authority: FixedAccessAuthority(events: events, reminders: reminders), channel: broker)
        _ = session.answer(.hello(version: BrokerWire.version))
        return (test, session)
    }

    private func refused(_ reply: BrokerReply) -> Bool {
        if case .failure = reply { return true }
        return false
    }

    private func event(_ uid: String, todo: Bool = false) -> Data {
        let kind = todo ? "VTODO" : "VEVENT"
        let dates = todo ? "" : "DTSTART:20261203T100000Z\r\nDTEND:20261203T110000Z\r\n"
        return Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile//EN\r\nBEGIN:\(kind)\r\nUID:\(uid)\r\nDTSTAMP:20261101T000000Z\r\n\(dates)SUMMARY:forged\r\nEND:\(kind)\r\nEND:VCALENDAR\r\n".utf8)
    }

    private func snapshot(_ test: TestStore) -> [String: Data] {
        var files: [String: Data] = [:]
        for calendar in ["calendar", "reminders"] {
            for name in test.files(in: calendar) {
                files[calendar + "/" + name] = FileManager.default.contents(atPath: test.folder.path + "/" + calendar + "/" + name)
            }
        }
        return files
    }

    @Test(arguments: [EKAuthorizationStatus.denied, .writeOnly])
    func readsAndChangesBeyondTheLevelAreRefused(_ status: EKAuthorizationStatus) throws {
        let (test, session) = try session(events: status, reminders: .denied)
        let before = snapshot(test)
        let existing = try #require(test.files(in: "calendar").first)
        // Reading: nothing of the store.
        guard case .collections(let list) = session.answer(.collections) else { Issue.record("no answer"); return }
        #expect(list.isEmpty)
        #expect(refused(session.answer(.readCollection(collection: "calendar", known: [:]))))
        #expect(refused(session.answer(.readItem(collection: "calendar", name: existing))))
        #expect(refused(session.answer(.items(collection: "reminders"))))
        #expect(refused(session.answer(.readItem(collection: "calendar", name: "../.openeventkit/authorizations.json"))))
        guard case .snapshot(let collections) = session.answer(.snapshot) else { Issue.record("no snapshot"); return }
        #expect(collections.isEmpty)
        // Changing: nothing that exists, nothing outside the virtual calendar, no reminders.
        let forged: [[BrokerOperation]] = [
            [.putItem(collection: "calendar", name: "x.ics", bytes: event("x"), expecting: .absent)],
            [.putItem(collection: "write-only", name: existing, bytes: event("y"), expecting: .any)],
            [.putItem(collection: "write-only", name: "todo.ics", bytes: event("todo", todo: true), expecting: .absent)],
            [.deleteItem(collection: "calendar", name: existing, expecting: .any)],
            [.createCollection(identifier: "mine", title: "Mine", color: nil)],
            [.deleteCollection(identifier: "calendar")],
            [.setDefaults(eventCalendar: "reminders", reminderList: nil)],
            [.putItem(collection: "../x", name: "y.ics", bytes: event("z"), expecting: .absent)],
        ]
        for batch in forged {
            #expect(refused(session.answer(.commit(batch))), "\(batch)")
        }
        // Write-only: a new event into the virtual calendar lands in the default calendar,
        // and cannot be read back.
        let put = session.answer(.commit([.putItem(collection: "write-only", name: "new.ics", bytes: event("new"), expecting: .absent)]))
        if status == .writeOnly {
            guard case .committed(let written) = put else { Issue.record("not committed: \(put)"); return }
            #expect(written.map(\.collection) == ["write-only"], "the app is not told where it went")
            #expect(test.files(in: "calendar").contains("new.ics"))
            #expect(refused(session.answer(.readItem(collection: "calendar", name: "new.ics"))))
            #expect(refused(session.answer(.readItem(collection: "write-only", name: "new.ics"))))
        } else {
            #expect(refused(put))
            #expect(snapshot(test) == before)
        }
        var after = snapshot(test)
        after["calendar/new.ics"] = nil
        #expect(after == before, "nothing else changed")
    }

    /// Numbers from the app are checked, never trusted to fit: a negative or huge entity
    /// type is an error answer, not a trap that would end the broker for every app.
    @Test func outOfRangeNumbersAreErrors() throws {
        let (_, session) = try session(events: .fullAccess, reminders: .fullAccess)
        for raw in [-1, Int.min, Int.max, 2, 99] {
            #expect(refused(session.answer(.status(entityType: raw))))
            #expect(refused(session.answer(.level(entityType: raw))))
            #expect(refused(session.answer(.fetchUnderWriteOnly(entityType: raw))))
        }
    }

    @Test func eventsOnlyFullAccessSeesNoReminders() throws {
        let (test, session) = try session(events: .fullAccess, reminders: .denied)
        guard case .collections(let list) = session.answer(.collections) else { Issue.record("no answer"); return }
        #expect(list.map(\.identifier) == ["calendar"])
        let reminder = try #require(test.files(in: "reminders").first)
        #expect(refused(session.answer(.readItem(collection: "reminders", name: reminder))))
        #expect(refused(session.answer(.commit([.deleteItem(collection: "reminders", name: reminder, expecting: .any)]))))
        #expect(refused(session.answer(.commit([.putItem(collection: "calendar", name: "t.ics", bytes: event("t", todo: true), expecting: .absent)]))))
        #expect(test.files(in: "reminders") == [reminder])
    }

    @Test func protocolRules() throws {
        let test = try TestStore()
        let (app, broker) = try FrameChannel.pair()
        let session = BrokerSession(store: try FolderStore.open(at: test.folder.path),
                                    authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), channel: broker)
        #expect(refused(session.answer(.hello(version: 999))))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { session.serve(); done.signal() }
        // A call before hello ends the connection; so does garbage, and an oversized frame.
        try app.send(Data(#"{"id":1,"call":{"collections":{}}}"#.utf8))
        let answer = try #require(try app.receive(idle: 10))
        #expect(String(decoding: answer, as: UTF8.self).contains("hello"))
        #expect(try app.receive(idle: 10) == nil)
        #expect(done.wait(timeout: .now() + 10) == .success)
    }

    @Test func garbageAndOversizedFramesEndOnlyThatConnection() throws {
        let test = try TestStore()
        for bytes in [[UInt8](repeating: 0x41, count: 64), [0x7f, 0xff, 0xff, 0xff, 0x7b]] {
            let (app, broker) = try FrameChannel.pair()
            let session = BrokerSession(store: try FolderStore.open(at: test.folder.path),
                                        authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), channel: broker)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread { session.serve(); done.signal() }
            _ = bytes.withUnsafeBytes { send(app.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #expect(done.wait(timeout: .now() + 40) == .success)
        }
        // Another app is served as before.
        let store = try AccessMatrixTests.store(at: test.folder, authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), route: .broker)
        #expect(store.calendars(for: .event).map(\.calendarIdentifier) == ["calendar"])
    }

    /// Another program's change reaches a sandboxed app as EKEventStoreChanged: the broker's
    /// watcher sees it and sends a notice on the app's socket.
    @Test func otherProgramsChangesArePostedToTheApp() async throws {
        let test = try TestStore()
        let app = try AccessMatrixTests.store(at: test.folder, authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), route: .broker)
        #expect(app.calendars(for: .event).count == 1)   // the session is greeted and watching
        let posted = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: .EKEventStoreChanged, object: app, queue: nil) { _ in posted.signal() }
        defer { NotificationCenter.default.removeObserver(observer) }
        let other = try test.another()
        try other.save(newEvent(other, "From elsewhere", "2026-12-03T10:00"), span: .thisEvent)
        #expect(posted.wait(timeout: .now() + 20) == .success)
        let window = app.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2026-12-31T00:00"), calendars: nil)
        #expect(app.events(matching: window).map(\.title) == ["From elsewhere"])
    }

    /// Calendars mirrored from a server keep their source and writability in a sandboxed app;
    /// the app learns the source's name, never its address or account.
    @Test(arguments: AccessMatrixTests.Route.allCases)
    func remoteSourcesReachTheApp(route: AccessMatrixTests.Route) throws {
        let test = try TestStore()
        try RemoteSourceFiles(storeRoot: test.folder.path).setSources([
            RemoteSourceRecord(name: "school", kind: .subscription, url: "https://user:secret@example.invalid/feed.ics",
                               calendars: [MirroredCalendar(collection: "calendar", href: "https://example.invalid/feed.ics", writable: false, supportsSync: false)]),
        ])
        let app = try AccessMatrixTests.store(at: test.folder, authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), route: route)
        let calendar = try #require(app.calendar(withIdentifier: "calendar"))
        #expect(calendar.source?.title == "school")
        #expect(calendar.source?.sourceType == .subscribed)
        #expect(!calendar.allowsContentModifications)
        if route == .broker {
            let (_, broker) = try FrameChannel.pair()
            let session = BrokerSession(store: try FolderStore.open(at: test.folder.path),
                                        authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), channel: broker)
            let reply = session.answer(.remoteSources)
            #expect(!"\(reply)".contains("secret") && !"\(reply)".contains("example.invalid"))
        }
    }

    /// A window query answered again from memory while the broker's token stands, and read
    /// again when another program changed the store.
    @Test func repeatedQueriesSeeOtherProgramsChanges() throws {
        let test = try TestStore()
        try test.store.save(newEvent(test.store, "First", "2026-12-02T10:00"), span: .thisEvent)
        let app = try AccessMatrixTests.store(at: test.folder, authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), route: .broker)
        let window = app.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2026-12-31T00:00"), calendars: nil)
        #expect(app.events(matching: window).map(\.title) == ["First"])
        #expect(app.events(matching: window).map(\.title) == ["First"])
        let other = try test.another()
        try other.save(newEvent(other, "Second", "2026-12-03T10:00"), span: .thisEvent)
        #expect(app.events(matching: window).map(\.title) == ["First", "Second"])
        let otherWindow = other.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2026-12-31T00:00"), calendars: nil)
        let first = try #require(other.events(matching: otherWindow).first)
        try other.remove(first, span: .thisEvent)
        #expect(app.events(matching: window).map(\.title) == ["Second"])
    }
}
