import Foundation
import Testing

/// `ical alarms watch` on a real desktop: a private session bus (`dbus-daemon`), `Xvfb` and
/// `dunst` (``NotificationServer``). A notification appears at the alarm's (injected) time,
/// its Dismiss and Snooze buttons, chosen through dunst's own menu, write RFC 9074's
/// ACKNOWLEDGED and snooze alarm into the item in the store, and the snooze alarm rings again.
@Suite(.serialized) struct AlarmsNotificationTests {
    @Test func aNotificationRingsAndItsButtonsDismissAndSnooze() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let store = try AlarmsCommandTests.Store(importing: AlarmsCommandTests.lesson)
        defer { store.folder.remove() }
        let clock = try store.folder.write("clock", "2026-12-01T07:50:00Z")
        let state = store.folder.url.appendingPathComponent("fired.json").path
        let watch = try Background(["alarms", "watch", "--clock-file", clock, "--state", state, "--snooze", "5m"],
                                   environment: server.environment.merging(store.environment) { $1 })
        defer { watch.stop() }

        // The 08:50 (Berlin) alarm of the first lesson rings.
        let shown = try server.waitForNotification(summary: "Piano lesson")
        #expect(shown.appName == "ical")
        #expect(shown.body.contains("Starts 09:00, in 10 minutes"))
        #expect(shown.body.contains("Room 2"))
        #expect(shown.body.contains("Lesson in 10 minutes"))
        #expect(shown.category == "x-openeventkit.alarm")
        // (Its two buttons are chosen below; dunst's menu is not opened without a choice, after
        // which dunst 1.9 opens it no more.)

        // Dismiss: ACKNOWLEDGED in the item, and the notification is gone.
        try server.invokeAction("dismiss")
        #expect(server.waitUntil { ((try? store.items()) ?? "").contains("ACKNOWLEDGED:20261201T075000Z") })
        #expect(server.waitUntil { ((try? server.displayedCount()) ?? 1) == 0 })

        // The next day's alarm; Snooze: ACKNOWLEDGED and a snooze alarm five minutes later.
        _ = try store.folder.write("clock", "2026-12-02T07:50:00Z")
        #expect(server.waitUntil { ((try? server.notifications()) ?? []).count == 2 && ((try? server.displayedCount()) ?? 0) == 1 })
        try server.invokeAction("snooze")
        #expect(server.waitUntil { ((try? store.items()) ?? "").contains("TRIGGER;VALUE=DATE-TIME:20261202T075500Z") })
        let item = try store.items()
        #expect(item.contains("ACKNOWLEDGED:20261202T075000Z"))
        #expect(item.contains("RELATED-TO;RELTYPE=SNOOZE:"))

        // Five minutes later the snooze alarm rings; closing it dismisses it: the snooze alarm
        // is removed and the alarm acknowledged again.
        let before = try server.notifications().count
        _ = try store.folder.write("clock", "2026-12-02T07:55:00Z")
        #expect(server.waitUntil { ((try? server.notifications()) ?? []).count == before + 1 })
        #expect(try server.notifications().last?.summary == "Piano lesson")
        try server.closeAll()
        #expect(server.waitUntil { ((try? store.items()) ?? "").contains("ACKNOWLEDGED:20261202T075500Z") })
        #expect(!(try store.items()).contains("RELTYPE=SNOOZE"))

        // Nothing rings twice: the listing has no unacknowledged trigger left before now.
        let listed = try store.run(["alarms", "--between", "2026-12-01", "2026-12-02T09:00", "--component", "VEVENT"])
        #expect(listed.stdout == "No alarms.\n")
        #expect(watch.terminate() == 0)
    }

    @Test func withoutASessionBusTheWatchSaysWhatToDo() throws {
        let store = try AlarmsCommandTests.Store(importing: AlarmsCommandTests.lesson)
        defer { store.folder.remove() }
        let output = try store.run(["alarms", "watch", "--once"],
                                   environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=" + store.folder.url.appendingPathComponent("no-bus").path,
                                                 "XDG_RUNTIME_DIR": store.folder.url.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("--print writes a line"))
    }
}
