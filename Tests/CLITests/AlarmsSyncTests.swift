import Foundation
import Testing

/// Dismiss and snooze travel: one machine dismisses an alarm, `ical sync` carries RFC 9074's
/// ACKNOWLEDGED to a real Radicale on loopback, and a second machine that syncs no longer
/// rings it; a snooze alarm travels the same way.
@Suite(.serialized) struct AlarmsSyncTests {
    static let event = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//OpenEventKit tests//EN\r
        BEGIN:VEVENT\r
        UID:lesson@example.org\r
        DTSTAMP:20260101T000000Z\r
        DTSTART:20261201T090000Z\r
        DURATION:PT1H\r
        RRULE:FREQ=DAILY;COUNT=2\r
        SUMMARY:Piano lesson\r
        BEGIN:VALARM\r
        UID:alarm@example.org\r
        ACTION:DISPLAY\r
        DESCRIPTION:Lesson in 10 minutes\r
        TRIGGER:-PT10M\r
        END:VALARM\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// A machine: a store of its own, with the server's calendar as a source.
    struct Machine {
        let client: CalDAVSyncTests.Client

        init(_ server: DAVServers.Server) throws {
            client = try CalDAVSyncTests.Client()
            let secret = try client.folder.write("password", server.password + "\n")
            let added = try client.run(["sources", "add", "caldav", server.baseURL, "--name", "Lessons", "--user", server.user,
                                        "--password-command", "cat \(secret)"])
            #expect(added.status == 0, "\(added.stderr)")
        }

        func run(_ arguments: [String], now: String? = nil) throws -> ICalRunner.Output {
            try ICalRunner.run(arguments, environment: ["OPENEVENTKIT_STORE": client.store].merging(now.map { ["ICAL_NOW": $0] } ?? [:]) { $1 })
        }

        /// The triggers `ical alarms` lists for the two days, as UTC text.
        func triggers() throws -> [String] {
            let listed = try run(["alarms", "--between", "2026-12-01", "+2d", "--format", "json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let objects = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
            return objects.compactMap { $0["triggerUTC"] as? String }
        }

        func key(at trigger: String) throws -> String {
            let listed = try run(["alarms", "--between", "2026-12-01", "+2d", "--format", "json"])
            let objects = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
            return try #require(objects.first { $0["triggerUTC"] as? String == trigger }?["key"] as? String)
        }

        func sync() throws -> String {
            let sync = try run(["sync"])
            #expect(sync.status == 0, "\(sync.stderr)")
            return sync.stdout
        }
    }

    @Test func aDismissOrSnoozeOnOneMachineReachesTheOther() throws {
        let server = try DAVServers.Server(.radicale)
        defer { server.stop() }
        #expect(try server.request("PUT", server.calendarPath + "lesson.ics", headers: ["Content-Type": "text/calendar; charset=utf-8"],
                                   body: Self.event).status == 201)
        let laptop = try Machine(server)
        defer { laptop.client.folder.remove() }
        let desktop = try Machine(server)
        defer { desktop.client.folder.remove() }
        _ = try laptop.sync()
        _ = try desktop.sync()
        #expect(try desktop.triggers() == ["2026-12-01T08:50:00Z", "2026-12-02T08:50:00Z"])

        // The laptop dismisses the first day's alarm and syncs.
        let dismissed = try laptop.run(["alarms", "dismiss", try laptop.key(at: "2026-12-01T08:50:00Z")], now: "2026-12-01T08:51:00")
        #expect(dismissed.status == 0, "\(dismissed.stderr)")
        #expect(try laptop.sync().contains(": 0 down, 1 up"))
        let onServer = try server.request("GET", server.calendarPath + "lesson.ics")
        #expect(onServer.body.contains("ACKNOWLEDGED:20261201T085100Z"))

        // The desktop syncs: the dismissed alarm does not ring there either.
        #expect(try desktop.sync().contains(": 1 down, 0 up"))
        #expect(try desktop.triggers() == ["2026-12-02T08:50:00Z"])

        // The desktop snoozes the second day's alarm; the laptop gets the snooze alarm.
        let snoozed = try desktop.run(["alarms", "snooze", try desktop.key(at: "2026-12-02T08:50:00Z"), "--for", "10m"],
                                      now: "2026-12-02T08:50:30")
        #expect(snoozed.status == 0, "\(snoozed.stderr)")
        #expect(try desktop.sync().contains(": 0 down, 1 up"))
        #expect(try laptop.sync().contains(": 1 down, 0 up"))
        #expect(try laptop.triggers() == ["2026-12-02T09:00:30Z"])
    }
}
