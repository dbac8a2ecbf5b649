import Testing
@testable import ICalKit

/// ``AlarmAcknowledgement``: dismiss and snooze written as RFC 9074 says, everything else of
/// the item kept.
@Suite struct AlarmAcknowledgementTests {
    static let body = """
        BEGIN:VEVENT
        UID:lesson
        DTSTAMP:20260101T000000Z
        DTSTART:20261201T090000Z
        DURATION:PT1H
        RRULE:FREQ=DAILY;COUNT=3
        SUMMARY:Lesson
        X-CUSTOM;X-PARAM=1:kept
        BEGIN:VALARM
        ACTION:DISPLAY
        DESCRIPTION:Lesson soon
        TRIGGER:-PT10M
        X-ALARM-EXTRA:kept too
        END:VALARM
        END:VEVENT
        """

    static func instance(_ calendar: Component, at text: String, acknowledged: Bool = true) -> AlarmInstance {
        let at = AlarmQueryTests.instant(text)
        var query = AlarmQuery(window: at..<(at + 1), floatingZone: FixedOffsetZone.utc)
        query.includesAcknowledged = acknowledged
        return query.run([OccurrenceQuery.Source(calendar: calendar, name: "c/lesson.ics")]).instances[0]
    }

    static func alarms(_ calendar: Component) -> [Component] {
        calendar.components.first { $0.matches(.event) }!.components.filter { $0.matches(.alarm) }
    }

    static func uids() -> () -> String {
        var number = 0
        return { number += 1; return "uid-\(number)" }
    }

    @Test func dismissSetsAcknowledgedAndKeepsEverythingElse() throws {
        let calendar = AlarmQueryTests.calendar(Self.body)
        let ringing = Self.instance(calendar, at: "2026-12-02T08:50:00Z")
        let now = AlarmQueryTests.instant("2026-12-02T08:51:00Z")
        let dismissed = try AlarmAcknowledgement.apply(.dismiss, to: ringing, in: calendar, at: now, newUID: Self.uids())
        let alarms = Self.alarms(dismissed)
        #expect(alarms.count == 1)
        #expect(alarms[0].property("ACKNOWLEDGED")?.rawValue == "20261202T085100Z")
        #expect(alarms[0].property("X-ALARM-EXTRA")?.rawValue == "kept too")
        #expect(dismissed.components[0].property("X-CUSTOM")?.rawValue == "kept")

        // The written item, read again: the dismissed trigger and the earlier one are
        // acknowledged, the next day's still rings.
        let reread = try ICalReader().read(ICalWriter().string(dismissed), file: "again.ics").calendars[0]
        let window = AlarmQueryTests.instant("2026-12-01T00:00:00Z")..<AlarmQueryTests.instant("2026-12-04T00:00:00Z")
        let result = AlarmQuery(window: window, floatingZone: FixedOffsetZone.utc).run([OccurrenceQuery.Source(calendar: reread)])
        #expect(AlarmQueryTests.triggers(result) == ["2026-12-03T08:50:00Z"])
    }

    @Test func snoozeAddsOneSnoozeAlarmAndSnoozingAgainReplacesIt() throws {
        let calendar = AlarmQueryTests.calendar(Self.body)
        let uids = Self.uids()
        let ringing = Self.instance(calendar, at: "2026-12-02T08:50:00Z")
        let now = AlarmQueryTests.instant("2026-12-02T08:51:00Z")
        let snoozed = try AlarmAcknowledgement.apply(.snooze(until: now + 300), to: ringing, in: calendar, at: now, newUID: uids)
        var alarms = Self.alarms(snoozed)
        #expect(alarms.count == 2)
        // The alarm got a UID (RFC 9074 §4) to be named by the snooze alarm.
        #expect(alarms[0].property(.uniqueIdentifier)?.rawValue == "uid-1")
        #expect(alarms[0].property("ACKNOWLEDGED")?.rawValue == "20261202T085100Z")
        #expect(alarms[1].property(.uniqueIdentifier)?.rawValue == "uid-2")
        #expect(alarms[1].property(.trigger)?.rawValue == "20261202T085600Z")
        #expect(alarms[1].property(.trigger)?.valueType == "DATE-TIME")
        #expect(alarms[1].property(.relatedTo)?.rawValue == "uid-1")
        #expect(alarms[1].property(.relatedTo)?.parameters.first?.value == "SNOOZE")
        #expect(alarms[1].descriptionText == "Lesson soon")
        #expect(alarms[1].property("ACKNOWLEDGED") == nil)

        // The snooze alarm rings; snoozing it again replaces it.
        let again = Self.instance(snoozed, at: "2026-12-02T08:56:00Z", acknowledged: false)
        #expect(again.isSnooze)
        let later = now + 300
        let resnoozed = try AlarmAcknowledgement.apply(.snooze(until: later + 600), to: again, in: snoozed, at: later, newUID: uids)
        alarms = Self.alarms(resnoozed)
        #expect(alarms.count == 2)
        #expect(alarms[1].property(.uniqueIdentifier)?.rawValue == "uid-3")
        #expect(alarms[1].property(.trigger)?.rawValue == "20261202T090600Z")
        #expect(alarms[0].property("ACKNOWLEDGED")?.rawValue == "20261202T085600Z")

        // Dismissing the snooze alarm removes it and acknowledges the alarm.
        let last = Self.instance(resnoozed, at: "2026-12-02T09:06:00Z", acknowledged: false)
        let done = try AlarmAcknowledgement.apply(.dismiss, to: last, in: resnoozed, at: later + 600, newUID: uids)
        alarms = Self.alarms(done)
        #expect(alarms.count == 1)
        #expect(alarms[0].property("ACKNOWLEDGED")?.rawValue == "20261202T090600Z")
    }

    @Test func anAlarmChangedSinceItRangIsAnError() throws {
        let calendar = AlarmQueryTests.calendar(Self.body)
        let ringing = Self.instance(calendar, at: "2026-12-02T08:50:00Z")
        let changed = AlarmQueryTests.calendar(Self.body.replacing("TRIGGER:-PT10M", with: "TRIGGER:-PT20M"))
        #expect(throws: ICalError.self) {
            _ = try AlarmAcknowledgement.apply(.dismiss, to: ringing, in: changed, at: 0, newUID: Self.uids())
        }
    }
}
