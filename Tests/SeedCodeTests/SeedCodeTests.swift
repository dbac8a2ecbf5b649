#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OpenEventKit
import Testing

/// The seed's EventKit fragments (the other files of this target, unchanged but for the
/// import) run against a fresh store as the running app, with the user's decisions recorded
/// beforehand the way `ical privacy grant` records them, so that no system prompt is shown.
///
/// The fragments use `EKEventStore()`, which opens the store named by `$OPENEVENTKIT_STORE`
/// as the app whose Info.plist `$OPENEVENTKIT_MANIFEST` names: the suite sets both (and
/// nothing else of the process), so its tests run one at a time.
@Suite(.serialized) struct SeedCodeTests {
    static let appIdentifier = "org.example.seed"

    /// A fresh store folder made the default store, with the app's manifest as the main one
    /// and the given decisions recorded.
    final class Fixture {
        let path: String

        init(keys: Set<AppManifest.UsageDescriptionKey> = Set(AppManifest.UsageDescriptionKey.allCases),
             events: EKAuthorizationStatus? = nil, reminders: EKAuthorizationStatus? = nil, upgradeDeclined: Bool = false) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)").path
            _ = try FolderStore.open(at: path)
            setenv("OPENEVENTKIT_STORE", path, 1)
            var plist = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>\n"
            plist += "<key>CFBundleIdentifier</key><string>\(SeedCodeTests.appIdentifier)</string>\n"
            for key in keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                plist += "<key>\(key.rawValue)</key><string>The seed app uses this for \(key.rawValue).</string>\n"
            }
            let manifest = path + "-Info.plist"
            try Data((plist + "</dict></plist>\n").utf8).write(to: URL(fileURLWithPath: manifest))
            setenv("OPENEVENTKIT_MANIFEST", manifest, 1)
            try record(events: events, reminders: reminders, upgradeDeclined: upgradeDeclined)
        }

        /// Records decisions as the Settings screen (`ical privacy grant`) does.
        func record(events: EKAuthorizationStatus? = nil, reminders: EKAuthorizationStatus? = nil, upgradeDeclined: Bool = false) throws {
            let files = AccessRecordsFile(storeRoot: path)
            try files.updateAuthorizations { records in
                let now = Date(timeIntervalSince1970: 1_795_341_600)
                if let events {
                    records.setDecision(AuthorizationDecision(status: events, decided: now, by: .settings, upgradeDeclined: upgradeDeclined),
                                        for: SeedCodeTests.appIdentifier, .event)
                }
                if let reminders {
                    records.setDecision(AuthorizationDecision(status: reminders, decided: now, by: .settings),
                                        for: SeedCodeTests.appIdentifier, .reminder)
                }
            }
        }

        /// The store as the user sees it (full access), to check what the fragments did.
        func userStore() throws -> EKEventStore {
            EKEventStore(backend: try FolderStore.open(at: path), authority: FullAccessAuthority())
        }

        /// Every event the user's calendars hold in `[start, end)`.
        func events(from start: Date, to end: Date) throws -> [EKEvent] {
            let store = try userStore()
            return store.events(matching: store.predicateForEvents(withStart: start, end: end, calendars: nil))
        }

        /// Puts the process back: no default store, no manifest, the files gone.
        func remove() {
            unsetenv("OPENEVENTKIT_STORE")
            unsetenv("OPENEVENTKIT_MANIFEST")
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-Info.plist")
        }
    }

    static let december = Date(timeIntervalSince1970: 1_796_083_200)   // 2026-12-01T00:00:00Z

    // MARK: Adding an event with write-only access

    @Test func writeOnlyAccessAddsTheEventToTheDefaultCalendar() async throws {
        let fixture = try Fixture(events: .writeOnly, upgradeDeclined: true)
        defer { fixture.remove() }
        let start = Self.december.addingTimeInterval(3 * 86_400 + 17 * 3600)
        #expect(try await addEventWithWriteOnlyAccess(title: "Drop-in: jazz harmony", start: start))

        let saved = try fixture.events(from: Self.december, to: Self.december.addingTimeInterval(31 * 86_400))
        #expect(saved.map(\.title) == ["Drop-in: jazz harmony"])
        #expect(saved.first?.startDate == start)
        #expect(saved.first?.endDate == start.addingTimeInterval(3600))
        #expect(saved.first?.calendar.calendarIdentifier == "calendar", "the store's default calendar")
        // Write-only: the app cannot read back what it added.
        #expect(try await fetchMonthOfEvents(from: Self.december).isEmpty)
    }

    @Test func deniedAccessAddsNothing() async throws {
        let fixture = try Fixture(events: .denied)
        defer { fixture.remove() }
        #expect(try await addEventWithWriteOnlyAccess(title: "Nope", start: Self.december) == false)
        #expect(try fixture.events(from: Self.december, to: Self.december.addingTimeInterval(86_400)).isEmpty)
    }

    @Test func aManifestWithoutTheWriteOnlyKeyFailsTheRequest() async throws {
        let fixture = try Fixture(keys: [.calendarsFullAccess])
        defer { fixture.remove() }
        await #expect(throws: AccessError.self) {
            _ = try await addEventWithWriteOnlyAccess(title: "Nope", start: Self.december)
        }
    }

    // MARK: Fetching a month with full access

    @Test func fullAccessFetchesTheMonthSortedByStart() async throws {
        let fixture = try Fixture(events: .fullAccess)
        defer { fixture.remove() }
        let store = try fixture.userStore()
        let other = EKCalendar(for: .event, eventStore: store)
        other.title = "School"
        other.source = store.sources.first
        try store.saveCalendar(other, commit: true)
        for (title, day, calendar) in [("Recital", 20, other), ("Lesson", 7, store.defaultCalendarForNewEvents!),
                                       ("Meeting", 2, other), ("Next year", 40, other)] {
            let event = EKEvent(eventStore: store)
            event.title = title
            event.startDate = Self.december.addingTimeInterval(Double(day) * 86_400 + 9 * 3600)
            event.endDate = event.startDate.addingTimeInterval(3600)
            event.calendar = calendar
            try store.save(event, span: .thisEvent)
        }
        let weekly = EKEvent(eventStore: store)
        weekly.title = "Choir"
        weekly.startDate = Self.december.addingTimeInterval(-3 * 86_400 + 18 * 3600)
        weekly.endDate = weekly.startDate.addingTimeInterval(7200)
        weekly.addRecurrenceRule(EKRecurrenceRule(recurrenceWith: .weekly, interval: 1, end: EKRecurrenceEnd(occurrenceCount: 3)))
        weekly.calendar = other
        try store.save(weekly, span: .futureEvents)

        let month = try await fetchMonthOfEvents(from: Self.december)
        #expect(month.map(\.title) == ["Meeting", "Choir", "Lesson", "Choir", "Recital"])
        #expect(month.map(\.startDate) == month.map(\.startDate).sorted())
        #expect(Set(month.map { $0.calendar.title }) == ["Calendar", "School"])
    }

    @Test func withoutFullAccessTheMonthIsEmpty() async throws {
        let fixture = try Fixture(events: .denied)
        defer { fixture.remove() }
        let store = try fixture.userStore()
        let event = EKEvent(eventStore: store)
        event.title = "Private"
        event.startDate = Self.december.addingTimeInterval(3600)
        event.endDate = event.startDate.addingTimeInterval(3600)
        event.calendar = store.defaultCalendarForNewEvents
        try store.save(event, span: .thisEvent)
        #expect(try await fetchMonthOfEvents(from: Self.december).isEmpty)
    }

    // MARK: CalendarPermissionsViewModel

    @Test @MainActor func theViewModelTracksBothStatuses() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let model = CalendarPermissionsViewModel()
        #expect(model.calendarAuthorizationStatus == .notDetermined)
        #expect(model.reminderAuthorizationStatus == .notDetermined)
        #expect(model.calendarStatusText == "Not determined")
        #expect(!model.canAddEvents && !model.needsSettings)

        // The user decides in settings; the model sees it when it refreshes.
        try fixture.record(events: .writeOnly, reminders: .denied)
        #expect(model.calendarAuthorizationStatus == .notDetermined, "a stored property until refreshed")
        model.refreshAuthorizationStatus()
        #expect(model.hasWriteOnlyCalendarAccess && model.canAddEvents && !model.hasFullCalendarAccess)
        #expect(model.calendarStatusText == "Write only")
        #expect(model.reminderStatusText == "Denied")
        #expect(model.needsSettings)

        // Decided requests answer from the record, without a prompt.
        await model.requestWriteOnlyCalendarAccess()
        #expect(model.calendarAuthorizationStatus == .writeOnly)
        #expect(model.errorMessage == nil)
        await model.requestReminderAccess()
        #expect(model.reminderAuthorizationStatus == .denied)

        try fixture.record(events: .fullAccess, reminders: .fullAccess)
        await model.requestFullCalendarAccess()
        #expect(model.hasFullCalendarAccess && model.hasReminderAccess && !model.needsSettings)
        #expect(model.calendarStatusText == "Full access")
    }

    @Test @MainActor func theViewModelReportsAMissingUsageKey() async throws {
        let fixture = try Fixture(keys: [.calendarsFullAccess])
        defer { fixture.remove() }
        let model = CalendarPermissionsViewModel()
        await model.requestReminderAccess()
        #expect(model.reminderAuthorizationStatus == .notDetermined, "nothing recorded")
        #expect(model.errorMessage?.contains("NSRemindersFullAccessUsageDescription") == true, "\(model.errorMessage ?? "nil")")
    }

    @Test @MainActor func aRestrictedAppReadsRestricted() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try AccessRecordsFile(storeRoot: fixture.path).updatePolicy { $0.setRestricted(SeedCodeTests.appIdentifier, true) }
        let model = CalendarPermissionsViewModel()
        #expect(model.calendarAuthorizationStatus == .restricted)
        #expect(model.reminderStatusText == "Restricted")
        await model.requestFullCalendarAccess()
        #expect(model.calendarAuthorizationStatus == .restricted)
        #expect(model.needsSettings)
    }
}
