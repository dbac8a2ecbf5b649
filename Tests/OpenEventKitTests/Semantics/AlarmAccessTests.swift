import Foundation
import ICalKit
import Testing
@testable import OpenEventKit

/// The alarm additions (``EKEventStore/alarms(in:calendars:kinds:floatingZone:includingAcknowledged:)``
/// and ``EKEventStore/acknowledgeAlarm(_:_:at:)``) under every authorization status, in
/// process and through the broker: only full access lists alarms or writes ACKNOWLEDGED, and
/// write-only access lists nothing, not even the alarms of the events the app added.
@Suite struct AlarmAccessTests {
    static let window = AlarmQueryWindow.instant("2026-12-02T00:00:00Z")..<AlarmQueryWindow.instant("2026-12-03T00:00:00Z")

    /// A store with an event with a 10-minute alarm and a reminder with an alarm, written with
    /// full access, and the alarms a full-access store finds in it.
    private func seeded() throws -> (TestStore, [AlarmInstance]) {
        let test = try TestStore()
        let event = newEvent(test.store, "Lesson", "2026-12-02T10:00")
        event.addAlarm(EKAlarm(relativeOffset: -600))
        try test.store.save(event, span: .thisEvent)
        let reminder = EKReminder(eventStore: test.store)
        reminder.title = "Homework"
        reminder.calendar = test.store.defaultCalendarForNewReminders()
        reminder.dueDateComponents = DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"),
                                                    year: 2026, month: 12, day: 2, hour: 17, minute: 0)
        reminder.addAlarm(EKAlarm(absoluteDate: utc("2026-12-02T16:00")))
        try test.store.save(reminder, commit: true)
        let found = test.store.alarms(in: Self.window, floatingZone: FixedOffsetZone.utc).instances
        return (test, found)
    }

    private func code(_ body: () throws -> Void) -> EKError.Code? {
        do { try body(); return nil } catch let error as EKError { return error.code } catch { return .last }
    }

    @Test(arguments: AccessMatrixTests.statuses, AccessMatrixTests.Route.allCases)
    func alarmsNeedFullAccess(_ status: EKAuthorizationStatus, route: AccessMatrixTests.Route) throws {
        let (test, found) = try seeded()
        #expect(found.map { $0.component.name } == ["VEVENT", "VTODO"])
        let events = try AccessMatrixTests.store(at: test.folder, authority: FixedAccessAuthority(events: status, reminders: .denied),
                                                 route: route)
        let listed = events.alarms(in: Self.window, floatingZone: FixedOffsetZone.utc).instances
        let before = test.files(in: "calendar").map { (try? test.file("calendar/" + $0)) ?? "" }
        if status == .fullAccess {
            // Events only: reminders are denied.
            #expect(listed.map(\.triggerInstant) == [found[0].triggerInstant])
            #expect(code { try events.acknowledgeAlarm(found[0], .dismiss, at: utc("2026-12-02T09:51")) } == nil)
            let after = test.files(in: "calendar").map { (try? test.file("calendar/" + $0)) ?? "" }
            #expect(after.joined().contains("ACKNOWLEDGED:20261202T095100Z"))
            #expect(events.alarms(in: Self.window, floatingZone: FixedOffsetZone.utc).instances.isEmpty)
        } else {
            // Write-only and no access list nothing and change nothing.
            #expect(listed.isEmpty)
            #expect(code { try events.acknowledgeAlarm(found[0], .dismiss, at: utc("2026-12-02T09:51")) } == .eventStoreNotAuthorized)
            #expect(code { try events.acknowledgeAlarm(found[0], .snooze(until: 1_796_205_000), at: utc("2026-12-02T09:51")) }
                == .eventStoreNotAuthorized)
            let after = test.files(in: "calendar").map { (try? test.file("calendar/" + $0)) ?? "" }
            #expect(after == before)
        }
        // Reminders' alarms follow the reminders' level.
        #expect(code { try events.acknowledgeAlarm(found[1], .dismiss, at: utc("2026-12-02T16:01")) } == .eventStoreNotAuthorized)
    }
}

/// Instants for the alarm tests.
enum AlarmQueryWindow {
    static func instant(_ text: String) -> Int64 { Int64(utc(String(text.dropLast(4))).timeIntervalSince1970) }
}
