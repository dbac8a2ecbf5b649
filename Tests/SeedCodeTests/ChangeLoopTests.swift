import Foundation
import OpenEventKit
import Testing

/// `NotificationCenter.notifications(named:object:)`, the Linux addition the seed's change
/// loop needs: buffering, the object filter, cancellation, the observer's end, and the seed's
/// loop woken by this process's and another process's changes.
extension SeedCodeTests {
    static let ping = Notification.Name("org.openeventkit.tests.ping")

    /// Waits up to `seconds` for `condition`.
    @MainActor static func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test @MainActor func notificationsPostedBeforeTheLoopAreBufferedInOrder() async {
        let center = NotificationCenter()
        let sequence = center.notifications(named: Self.ping)
        for number in 1...3 { center.post(name: Self.ping, object: nil, userInfo: ["n": number]) }
        center.post(name: Notification.Name("other"), object: nil)
        var received: [Int] = []
        for await notification in sequence {
            received.append(notification.userInfo?["n"] as? Int ?? 0)
            if received.count == 3 { break }
        }
        #expect(received == [1, 2, 3])
    }

    @Test @MainActor func theObjectFiltersBySender() async {
        let center = NotificationCenter()
        let sender = NSObject(), other = NSObject()
        let sequence = center.notifications(named: Self.ping, object: sender)
        center.post(name: Self.ping, object: other)
        center.post(name: Self.ping, object: sender)
        let iterator = sequence.makeAsyncIterator()
        let first = await iterator.next()
        #expect((first?.object as AnyObject?) === sender)
    }

    @Test @MainActor func aWaitingLoopIsWokenAndEndsWhenCancelled() async {
        let center = NotificationCenter()
        let sequence = center.notifications(named: Self.ping).map { $0.name }
        let counter = Counter()
        let task = Task { @MainActor in
            for await _ in sequence { counter.count += 1 }
            return counter.count
        }
        // The sequence buffers from its creation: both are delivered, however late the loop
        // starts. Cancel once the loop has taken them (not after a guessed delay).
        center.post(name: Self.ping, object: nil)
        center.post(name: Self.ping, object: nil)
        for _ in 0..<3_000 where counter.count < 2 { await Task.yield(); try? await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        #expect(await task.value == 2, "two notifications, then nil on cancellation")
    }

    @Test @MainActor func theObserverGoesWithTheSequence() async {
        let center = NotificationCenter()
        weak var released: NotificationCenter.Notifications?
        do {
            let sequence = center.notifications(named: Self.ping)
            released = sequence
            center.post(name: Self.ping, object: nil)
            for await _ in sequence { break }
        }
        #expect(released == nil, "the loop ended: sequence, iterator and observer are gone")
        center.post(name: Self.ping, object: nil)   // nothing observes it any more
    }

    @Test @MainActor func theBufferIsBounded() async {
        let center = NotificationCenter()
        let sequence = center.notifications(named: Self.ping)
        let limit = NotificationCenter.Notifications.bufferLimit
        for number in 0..<(limit + 10) { center.post(name: Self.ping, object: nil, userInfo: ["n": number]) }
        let iterator = sequence.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.userInfo?["n"] as? Int == 10, "the ten oldest were dropped")
    }

    // MARK: The seed's loop

    @Test @MainActor func theSeedLoopSeesThisProcessAndOtherProcesses() async throws {
        let fixture = try Fixture(events: .fullAccess)
        defer { fixture.remove() }
        let store = EKEventStore()
        let listener = MonthlyEventsListener(store: store, start: Self.december)
        let loop = Task { @MainActor in await listener.listenForCalendarChanges() }
        try await Task.sleep(for: .milliseconds(300))   // the loop has started observing

        // This process: the app saves an event.
        let event = EKEvent(eventStore: store)
        event.title = "Lesson"
        event.startDate = Self.december.addingTimeInterval(7 * 86_400 + 9 * 3600)
        event.endDate = event.startDate.addingTimeInterval(3600)
        event.calendar = store.defaultCalendarForNewEvents
        try store.save(event, span: .thisEvent)
        #expect(await Self.eventually { listener.fetches.last == ["Lesson"] }, "\(listener.fetches)")

        // Another process writes an item file into the store's calendar.
        let item = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Tests//EN\r\nBEGIN:VEVENT\r\nUID:recital@example.org\r\n"
            + "DTSTAMP:20261101T000000Z\r\nDTSTART:20261220T180000Z\r\nDTEND:20261220T200000Z\r\nSUMMARY:Recital\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "printf '%s' \"$1\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"", "sh", item,
                            fixture.path + "/calendar/recital.ics"]
        try writer.run()
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(await Self.eventually { listener.fetches.last == ["Lesson", "Recital"] }, "\(listener.fetches)")

        loop.cancel()
        await loop.value
    }
}

/// How many notifications a loop has taken, read by the test on the main actor.
@MainActor private final class Counter {
    var count = 0
}
