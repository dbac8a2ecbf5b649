import Foundation
import OpenEventKit
import Testing

/// OpenEventKit's D-Bus notification client against a real server: dunst on a private session
/// bus and a virtual X server (``NotificationServer``), one per test.
@Suite(.serialized)
struct DesktopNotificationsTests {
    typealias Event = DesktopNotifications.Event

    /// The hints an alarm sends.
    static let alarmHints = DesktopNotifications.Hints(
        urgency: .critical, category: "x-openeventkit.alarm", desktopEntry: "ical", resident: true,
        vendor: ["x-openeventkit-uid": "lesson-1@example.com"])

    /// Shows a notification with Snooze and Dismiss.
    static func notifyAlarm(_ client: DesktopNotifications, summary: String = "Piano lesson",
                            body: String = "Room 4, in 10 minutes") throws -> UInt32 {
        try client.notify(appName: "ical", summary: summary, body: body,
                          actions: [(key: "snooze", label: "Snooze"), (key: "dismiss", label: "Dismiss")],
                          hints: alarmHints)
    }

    /// Collects `client`'s events, polling its descriptor, until `done` holds for them or 10 s
    /// pass.
    static func events(of client: DesktopNotifications, until done: ([Event]) -> Bool) -> [Event] {
        var events = client.events()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while !done(events), clock.now < deadline, client.isConnected {
            var descriptor = pollfd(fd: client.fileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
            events += client.events()
        }
        return events
    }

    @Test func serverInformationNamesDunst() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address)
        let information = try client.serverInformation()
        #expect(information.name == "dunst")
        #expect(information.specVersion == "1.2")
        let capabilities = try client.capabilities()
        #expect(capabilities.contains("actions"))
        #expect(capabilities.contains("body"))
        #expect(client.uniqueName.hasPrefix(":"))
    }

    @Test func notifyShowsSummaryBodyHintsAndActions() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address)
        let id = try Self.notifyAlarm(client)
        #expect(client.liveNotifications == [id])
        let shown = try server.waitForNotification(summary: "Piano lesson")
        #expect(shown.id == id)
        #expect(shown.appName == "ical")
        #expect(shown.body == "Room 4, in 10 minutes")
        #expect(shown.category == "x-openeventkit.alarm")
        #expect(shown.urgency == "CRITICAL")
        #expect(shown.desktopEntry == "ical")
        #expect(shown.displayed)
        #expect(try server.displayedCount() == 1)
        #expect(try server.actions() == [
            .init(id: id, key: "snooze", label: "Snooze"), .init(id: id, key: "dismiss", label: "Dismiss"),
        ])

        // Replacing keeps the id and shows the new text.
        let replaced = try client.notify(appName: "ical", replacing: id, summary: "Piano lesson (snoozed)",
                                         body: "in 5 minutes", actions: [], hints: .init())
        #expect(replaced == id)
        _ = try server.waitForNotification(summary: "Piano lesson (snoozed)")
    }

    @Test func choosingSnoozeInvokesTheAction() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address)
        let id = try Self.notifyAlarm(client)
        _ = try server.waitForNotification(summary: "Piano lesson")
        try server.invokeAction("snooze")
        let events = Self.events(of: client) { $0.contains(.actionInvoked(id: id, action: "snooze")) }
        #expect(events.first == .actionInvoked(id: id, action: "snooze"))
    }

    @Test func closingByTheUserReportsReasonTwo() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address)
        let id = try Self.notifyAlarm(client)
        _ = try server.waitForNotification(summary: "Piano lesson")
        try server.closeAll()
        let events = Self.events(of: client) { !$0.isEmpty }
        #expect(events == [.closed(id: id, reason: 2)])
        #expect(client.liveNotifications.isEmpty)
        #expect(server.waitUntil { (try? server.notifications().first?.displayed) == false })
    }

    @Test func closeReportsReasonThree() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address)
        let id = try Self.notifyAlarm(client)
        _ = try server.waitForNotification(summary: "Piano lesson")
        try client.close(id)
        let events = Self.events(of: client) { !$0.isEmpty }
        #expect(events == [.closed(id: id, reason: 3)])
        #expect(server.waitUntil { (try? server.displayedCount()) == 0 })
    }

    @Test func signalsFromAnotherConnectionAreIgnored() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address)
        let id = try Self.notifyAlarm(client)
        _ = try server.waitForNotification(summary: "Piano lesson")
        // Another client fakes a click on Snooze, a close of our notification, and signals
        // about an id we never created. They reach our connection (its match rules) before
        // the real close below, and must all be dropped.
        let signal = ["--type=signal", "/org/freedesktop/Notifications"]
        try server.tool("dbus-send", signal + ["org.freedesktop.Notifications.ActionInvoked", "uint32:\(id)", "string:snooze"])
        try server.tool("dbus-send", signal + ["org.freedesktop.Notifications.NotificationClosed", "uint32:\(id)", "uint32:2"])
        try server.tool("dbus-send", signal + ["org.freedesktop.Notifications.ActionInvoked", "uint32:\(id + 100)",
                                               "string:snooze"])
        try client.close(id)
        let events = Self.events(of: client) { !$0.isEmpty }
        #expect(events == [.closed(id: id, reason: 3)])
        // And a signal from the real server about an id another client created is dropped too.
        let other = try DesktopNotifications(address: server.address)
        let foreign = try Self.notifyAlarm(other, summary: "Someone else's")
        _ = try server.waitForNotification(summary: "Someone else's")
        try server.closeAll()
        #expect(Self.events(of: other) { !$0.isEmpty } == [.closed(id: foreign, reason: 2)])
        #expect(client.events().isEmpty)
    }

    @Test func bodyMarkupIsEscapedWhenAdvertised() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address)
        #expect(try client.capabilities().contains("body-markup"))
        _ = try client.notify(appName: "ical", summary: "Markup <b>test</b>",
                              body: "Bring <i>music</i> & a <a href=\"http://x\">pen</a>", actions: [], hints: .init())
        let shown = try server.waitForNotification(summary: "Markup <b>test</b>")
        #expect(shown.body == "Bring &lt;i&gt;music&lt;/i&gt; &amp; a &lt;a href=\"http://x\"&gt;pen&lt;/a&gt;")
    }

    @Test func untrustedTextIsSanitizedAndBounded() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address)
        let invalid = String(decoding: [0x41, 0xFF, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x42] as [UInt8], as: UTF8.self)
        let noncharacters = String(String.UnicodeScalarView([0xFFFF, 0xFDD0, 0x1FFFE].compactMap(Unicode.Scalar.init)))
        let summary = "Alarm\u{0}\u{1B}[31m red\u{7}" + noncharacters + "\u{9F} " + invalid
        let body = "line one\nline\ttwo\u{0}\u{8}" + String(repeating: "é", count: 5000)
        let id = try client.notify(appName: "ical\u{0}\n", summary: summary, body: body,
                                   actions: [(key: "snooze\u{1}", label: "Sn\u{0}ooze")], hints: .init(category: "x\u{0}y"))
        #expect(id > 0)
        let expectedSummary = "Alarm[31m red " + invalid
        let shown = try server.waitForNotification(summary: expectedSummary)
        #expect(shown.appName == "ical ")
        #expect(shown.category == "xy")
        #expect(shown.body.hasPrefix("line one\nline two" + "ééé"))
        #expect(shown.body.hasSuffix("é…"))
        #expect(shown.body.unicodeScalars.count == DesktopNotifications.bodyLimit)
        #expect(try server.actions() == [.init(id: id, key: "snooze", label: "Snooze")])

        let long = try client.notify(appName: "ical", summary: String(repeating: "s", count: 300), body: "",
                                     actions: [], hints: .init())
        let cut = try server.waitForNotification(summary: String(repeating: "s", count: 199) + "…")
        #expect(cut.id == long)
    }

    /// Control characters, newlines and noncharacters are removed, and long text is cut. One
    /// test with a loop, not arguments: the runner prints a test's arguments, and a newline or
    /// control character in them would break its output (and the other tests that read it).
    @Test func sanitizing() {
        let cases: [(input: String, expected: String, newlines: Bool)] = [
            ("plain", "plain", false),
            ("a\u{0}b\u{1}c\u{7F}d\u{85}e", "abcde", false),
            ("tab\there", "tab here", false),
            ("two\nlines", "two lines", false),
            ("two\nlines", "two\nlines", true),
            (String(String.UnicodeScalarView([0xFFFE, 0xFFFF, 0x1FFFF, 0xFDD0, 0x6F, 0x6B, 0x10FFFF].compactMap(Unicode.Scalar.init))),
             "ok", false),
            ("abcdefghijk", "abcdefgh…", false),
            ("abcdefghi", "abcdefghi", false),
        ]
        for (input, expected, newlines) in cases {
            let sanitized = DesktopNotifications.sanitized(input, limit: 9, newlines: newlines)
            #expect(sanitized == expected, "\(input.debugDescription) gave \(sanitized.debugDescription)")
        }
    }

    @Test func markupEscaping() {
        #expect(DesktopNotifications.escapingMarkup("a<b>&c</b> \"d\"") == "a&lt;b&gt;&amp;c&lt;/b&gt; \"d\"")
    }

    @Test func aMissingBusThrowsAClearError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oek-nobus-\(UUID().uuidString)")
        #expect {
            _ = try DesktopNotifications(address: "unix:path=\(folder.path)/bus")
        } throws: { error in
            guard let error = error as? DesktopNotificationsError else { return false }
            return error.code == .noSessionBus && error.message.contains("cannot connect to the D-Bus session bus")
        }
    }

    @Test func aBusWithoutAServerThrowsAClearError() throws {
        let server = try NotificationServer(startsDunst: false)
        defer { server.stop() }
        #expect {
            _ = try DesktopNotifications(address: server.address)
        } throws: { error in
            guard let error = error as? DesktopNotificationsError else { return false }
            return error.code == .noNotificationServer && error.message.contains("no notification server")
        }
    }

    @Test func aServerThatDoesNotAnswerTimesOut() throws {
        let server = try NotificationServer()
        defer { server.stop() }
        let client = try DesktopNotifications(address: server.address, timeout: .milliseconds(300))
        server.suspendNotificationServer(true)
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            _ = try Self.notifyAlarm(client)
        } throws: { error in
            (error as? DesktopNotificationsError)?.code == .timedOut
        }
        #expect(clock.now - start < .seconds(3))
        server.suspendNotificationServer(false)
        #expect(try client.serverInformation().name == "dunst")
    }

    @Test func aServerThatGoesAwayGivesErrors() throws {
        let server = try NotificationServer()
        let client = try DesktopNotifications(address: server.address, timeout: .seconds(2))
        let id = try Self.notifyAlarm(client)
        server.stopNotificationServer()
        #expect(throws: DesktopNotificationsError.self) { try Self.notifyAlarm(client) }
        #expect(throws: DesktopNotificationsError.self) { try client.close(id) }
        #expect(client.isConnected)
        // The bus goes away too: the connection reports it, and calls throw `disconnected`.
        server.stop()
        _ = Self.events(of: client) { _ in false }
        #expect(!client.isConnected)
        #expect {
            _ = try client.serverInformation()
        } throws: { error in
            (error as? DesktopNotificationsError)?.code == .disconnected
        }
    }
}
