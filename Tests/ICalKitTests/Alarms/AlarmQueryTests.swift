import Testing
@testable import ICalKit

/// ``AlarmQuery``: RFC 5545 §3.6.6 and §3.8.6.3 (their examples), §3.3.6 (nominal days),
/// §3.3.5 (a trigger in a daylight-saving gap), RFC 9074 (ACKNOWLEDGED, snooze alarms), and
/// the bounds on bad input.
@Suite struct AlarmQueryTests {
    static let berlin = IANATimeZone(named: "Europe/Berlin")!

    /// A VCALENDAR around the given components.
    static func calendar(_ body: String) -> Component {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
            + body.split(separator: "\n").map { $0 + "\r\n" }.joined() + "END:VCALENDAR\r\n"
        return try! ICalReader().read(text, file: "alarms.ics").calendars[0]
    }

    static func instant(_ text: String) -> Int64 {
        let moment = try! QueryWindow.moment(text, now: LocalDateTime(secondsSinceEpoch: 0))
        return moment.local.secondsSinceEpoch - Int64(moment.utcOffset ?? 0)
    }

    static func run(_ body: String, from start: String, to end: String, zone: any TimeZoneRules = berlin,
                    acknowledged: Bool = false, limits: AlarmQuery.Limits = .standard) -> AlarmQuery.Result {
        var query = AlarmQuery(window: instant(start)..<instant(end), floatingZone: zone, limits: limits)
        query.includesAcknowledged = acknowledged
        return query.run([OccurrenceQuery.Source(calendar: calendar(body), name: "alarms.ics")])
    }

    /// The triggers as UTC text.
    static func triggers(_ result: AlarmQuery.Result) -> [String] {
        result.instances.map { AlarmFormatter(zone: FixedOffsetZone.utc).iso($0.triggerInstant, in: FixedOffsetZone.utc) }
    }

    // MARK: RFC 5545 §3.8.6.3 and §3.6.6

    @Test func relativeToStartAndEndAndAbsoluteTriggersOfTheRFC() {
        let result = Self.run("""
            BEGIN:VEVENT
            UID:rfc
            DTSTAMP:19970101T000000Z
            DTSTART:19970317T133000Z
            DTEND:19970317T143000Z
            SUMMARY:Meeting
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:fifteen minutes before
            TRIGGER:-PT15M
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:five minutes after the end
            TRIGGER;RELATED=END:PT5M
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:absolute
            TRIGGER;VALUE=DATE-TIME:19970317T050000Z
            END:VALARM
            END:VEVENT
            """, from: "1997-03-17T00:00:00Z", to: "1997-03-18T00:00:00Z")
        #expect(Self.triggers(result) == ["1997-03-17T05:00:00Z", "1997-03-17T13:15:00Z", "1997-03-17T14:35:00Z"])
        #expect(result.instances.map { $0.alarmDescription ?? "" } == ["absolute", "fifteen minutes before", "five minutes after the end"])
        #expect(result.diagnostics.isEmpty)
    }

    @Test func audioAlarmWithRepeatAndDurationOfSection366() {
        // RFC 5545 §3.6.6: "an audio alarm that will sound at a precise time and repeat 4 more
        // times at 15-minute intervals".
        let result = Self.run("""
            BEGIN:VEVENT
            UID:audio
            DTSTAMP:19970101T000000Z
            DTSTART:19970317T133000Z
            SUMMARY:Audio
            BEGIN:VALARM
            TRIGGER;VALUE=DATE-TIME:19970317T133000Z
            REPEAT:4
            DURATION:PT15M
            ACTION:AUDIO
            ATTACH;FMTTYPE=audio/basic:ftp://example.com/pub/sounds/bell-01.aud
            END:VALARM
            END:VEVENT
            """, from: "1997-03-17T00:00:00Z", to: "1997-03-18T00:00:00Z")
        #expect(Self.triggers(result) == ["1997-03-17T13:30:00Z", "1997-03-17T13:45:00Z", "1997-03-17T14:00:00Z",
                                          "1997-03-17T14:15:00Z", "1997-03-17T14:30:00Z"])
        #expect(result.instances.map(\.repetition) == [0, 1, 2, 3, 4])
        #expect(result.instances.allSatisfy { $0.action == .audio })
    }

    @Test func displayAndEmailAlarmsOfSection366() {
        // "a display alarm that will trigger 30 minutes before the scheduled start … and repeat
        // 2 more times at 15-minute intervals"; "an email alarm that will trigger 2 days
        // before the scheduled due DATE-TIME of a to-do".
        let result = Self.run("""
            BEGIN:VEVENT
            UID:display
            DTSTAMP:19970101T000000Z
            DTSTART:19970317T133000Z
            SUMMARY:Display
            BEGIN:VALARM
            TRIGGER:-PT30M
            REPEAT:2
            DURATION:PT15M
            ACTION:DISPLAY
            DESCRIPTION:Breakfast meeting with executive\\nteam at 8:30 AM EST.
            END:VALARM
            END:VEVENT
            BEGIN:VTODO
            UID:todo
            DTSTAMP:19970101T000000Z
            DUE:19970320T120000Z
            SUMMARY:Report
            BEGIN:VALARM
            TRIGGER;RELATED=END:-P2D
            ACTION:EMAIL
            ATTENDEE:mailto:john_doe@example.com
            SUMMARY:*** REMINDER: SEND AGENDA FOR WEEKLY STAFF MEETING ***
            DESCRIPTION:A draft agenda needs to be sent out.
            END:VALARM
            END:VTODO
            """, from: "1997-03-17T00:00:00Z", to: "1997-03-19T00:00:00Z")
        #expect(Self.triggers(result) == ["1997-03-17T13:00:00Z", "1997-03-17T13:15:00Z", "1997-03-17T13:30:00Z",
                                          "1997-03-18T12:00:00Z"])
        #expect(result.instances.last?.action == .email)
        #expect(result.instances.last?.alarmSummary == "*** REMINDER: SEND AGENDA FOR WEEKLY STAFF MEETING ***")
        #expect(result.instances.last?.component.matches(.todo) == true)
    }

    // MARK: Time (RFC 5545 §3.3.6, §3.3.5)

    @Test func daysAreNominalAcrossADaylightSavingChange() {
        // 2026-03-29 09:00 CEST; a day before is 2026-03-28 09:00 CET (08:00Z), 23 hours
        // earlier, not 24 (07:00Z). Hours stay exact: -PT24H is 07:00Z.
        let result = Self.run("""
            BEGIN:VEVENT
            UID:dst
            DTSTAMP:20260101T000000Z
            DTSTART;TZID=Europe/Berlin:20260329T090000
            DURATION:PT1H
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:day
            TRIGGER:-P1D
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:hours
            TRIGGER:-PT24H
            END:VALARM
            END:VEVENT
            """, from: "2026-03-27T00:00:00Z", to: "2026-03-30T00:00:00Z")
        #expect(Self.triggers(result) == ["2026-03-28T07:00:00Z", "2026-03-28T08:00:00Z"])
        #expect(result.instances.map { $0.alarmDescription ?? "" } == ["hours", "day"])
    }

    @Test func aNominalTriggerInAGapIsReadWithTheOffsetBeforeIt() {
        // 2026-03-30 02:30 Berlin, -P1D: 2026-03-29 02:30 does not exist; RFC 5545 §3.3.5
        // reads it with the offset before the gap (+01:00): 01:30Z.
        let result = Self.run("""
            BEGIN:VEVENT
            UID:gap
            DTSTAMP:20260101T000000Z
            DTSTART;TZID=Europe/Berlin:20260330T023000
            DURATION:PT1H
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:gap
            TRIGGER:-P1D
            END:VALARM
            END:VEVENT
            """, from: "2026-03-28T00:00:00Z", to: "2026-03-31T00:00:00Z")
        #expect(Self.triggers(result) == ["2026-03-29T01:30:00Z"])
    }

    @Test func allDayAndFloatingEventsAreReadInTheUsersZone() {
        let body = """
            BEGIN:VEVENT
            UID:allday
            DTSTAMP:20260101T000000Z
            DTSTART;VALUE=DATE:20261202
            SUMMARY:Birthday
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:eve
            TRIGGER:-PT15M
            END:VALARM
            END:VEVENT
            BEGIN:VEVENT
            UID:floating
            DTSTAMP:20260101T000000Z
            DTSTART:20261202T090000
            DTEND:20261202T100000
            SUMMARY:Floating
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:floating
            TRIGGER:-PT10M
            END:VALARM
            END:VEVENT
            """
        let berlin = Self.run(body, from: "2026-12-01T00:00:00Z", to: "2026-12-03T00:00:00Z")
        #expect(Self.triggers(berlin) == ["2026-12-01T22:45:00Z", "2026-12-02T07:50:00Z"])
        let newYork = Self.run(body, from: "2026-12-01T00:00:00Z", to: "2026-12-03T00:00:00Z",
                               zone: IANATimeZone(named: "America/New_York")!)
        #expect(Self.triggers(newYork) == ["2026-12-02T04:45:00Z", "2026-12-02T13:50:00Z"])
    }

    // MARK: Series

    @Test func everyOccurrenceAlarmsAndOverridesReplaceTheMastersAlarms() {
        let result = Self.run("""
            BEGIN:VEVENT
            UID:lesson
            DTSTAMP:20260101T000000Z
            DTSTART;TZID=Europe/Berlin:20261201T090000
            DURATION:PT1H
            RRULE:FREQ=DAILY;COUNT=4
            EXDATE;TZID=Europe/Berlin:20261204T090000
            SUMMARY:Lesson
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:master
            TRIGGER:-PT10M
            END:VALARM
            END:VEVENT
            BEGIN:VEVENT
            UID:lesson
            DTSTAMP:20260101T000000Z
            RECURRENCE-ID;TZID=Europe/Berlin:20261202T090000
            DTSTART;TZID=Europe/Berlin:20261202T110000
            DURATION:PT1H
            SUMMARY:Lesson (moved)
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:override
            TRIGGER;RELATED=END:PT0S
            END:VALARM
            END:VEVENT
            BEGIN:VEVENT
            UID:lesson
            DTSTAMP:20260101T000000Z
            RECURRENCE-ID;TZID=Europe/Berlin:20261203T090000
            DTSTART;TZID=Europe/Berlin:20261203T090000
            DURATION:PT1H
            SUMMARY:Lesson (no alarm)
            END:VEVENT
            """, from: "2026-11-30T00:00:00Z", to: "2026-12-10T00:00:00Z")
        #expect(Self.triggers(result) == ["2026-12-01T07:50:00Z", "2026-12-02T11:00:00Z"])
        #expect(result.instances.map { $0.alarmDescription ?? "" } == ["master", "override"])
        #expect(result.instances[1].occurrence?.occurrence.isOverride == true)
    }

    @Test func anAbsoluteAlarmOfASeriesRingsOnceForItsFirstInstance() {
        let result = Self.run("""
            BEGIN:VEVENT
            UID:weekly
            DTSTAMP:20260101T000000Z
            DTSTART:20261201T090000Z
            DURATION:PT1H
            RRULE:FREQ=WEEKLY
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:once
            TRIGGER;VALUE=DATE-TIME:20261215T080000Z
            END:VALARM
            END:VEVENT
            """, from: "2026-11-01T00:00:00Z", to: "2027-02-01T00:00:00Z")
        #expect(Self.triggers(result) == ["2026-12-15T08:00:00Z"])
        #expect(result.instances.first?.occurrence?.startInstant == Self.instant("2026-12-01T09:00:00Z"))
    }

    @Test func toDosCountFromStartOrDueAndCompletedOnesAndCancelledEventsAreSilent() {
        let result = Self.run("""
            BEGIN:VTODO
            UID:due-only
            DTSTAMP:20260101T000000Z
            DUE:20261201T170000Z
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:due end
            TRIGGER;RELATED=END:-PT1H
            END:VALARM
            END:VTODO
            BEGIN:VTODO
            UID:start-due
            DTSTAMP:20260101T000000Z
            DTSTART:20261201T080000Z
            DUE:20261201T180000Z
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:start
            TRIGGER:PT0S
            END:VALARM
            END:VTODO
            BEGIN:VTODO
            UID:done
            DTSTAMP:20260101T000000Z
            DUE:20261201T170000Z
            STATUS:COMPLETED
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:done
            TRIGGER:-PT1H
            END:VALARM
            END:VTODO
            BEGIN:VEVENT
            UID:cancelled
            DTSTAMP:20260101T000000Z
            DTSTART:20261201T100000Z
            STATUS:CANCELLED
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:cancelled
            TRIGGER:-PT1H
            END:VALARM
            END:VEVENT
            """, from: "2026-12-01T00:00:00Z", to: "2026-12-02T00:00:00Z")
        #expect(result.instances.map { $0.alarmDescription ?? "" } == ["start", "due end"])
        #expect(Self.triggers(result) == ["2026-12-01T08:00:00Z", "2026-12-01T16:00:00Z"])
    }

    // MARK: RFC 9074

    @Test func acknowledgedTriggersAreLeftOutAndSnoozeAlarmsRing() {
        let body = """
            BEGIN:VEVENT
            UID:daily
            DTSTAMP:20260101T000000Z
            DTSTART:20261201T090000Z
            DURATION:PT1H
            RRULE:FREQ=DAILY;COUNT=3
            BEGIN:VALARM
            UID:alarm-1
            ACTION:DISPLAY
            DESCRIPTION:daily
            TRIGGER:-PT10M
            ACKNOWLEDGED:20261202T085500Z
            END:VALARM
            BEGIN:VALARM
            UID:snooze-1
            ACTION:DISPLAY
            DESCRIPTION:daily
            TRIGGER;VALUE=DATE-TIME:20261202T090000Z
            RELATED-TO;RELTYPE=SNOOZE:alarm-1
            END:VALARM
            END:VEVENT
            """
        let open = Self.run(body, from: "2026-12-01T00:00:00Z", to: "2026-12-04T00:00:00Z")
        #expect(Self.triggers(open) == ["2026-12-02T09:00:00Z", "2026-12-03T08:50:00Z"])
        #expect(open.instances[0].isSnooze && open.instances[0].snoozedAlarmUID == "alarm-1")
        let all = Self.run(body, from: "2026-12-01T00:00:00Z", to: "2026-12-04T00:00:00Z", acknowledged: true)
        #expect(Self.triggers(all) == ["2026-12-01T08:50:00Z", "2026-12-02T08:50:00Z", "2026-12-02T09:00:00Z",
                                       "2026-12-03T08:50:00Z"])
        #expect(all.instances.map(\.isAcknowledged) == [true, true, false, false])
    }

    @Test func thunderbirdsLastAckAcknowledgesTheEventsAlarms() {
        let body = """
            BEGIN:VEVENT
            UID:mozilla
            DTSTAMP:20240101T000000Z
            DTSTART:20240523T163000Z
            RRULE:FREQ=DAILY;COUNT=2
            X-MOZ-LASTACK:20240523T161500Z
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:Default Mozilla Description
            TRIGGER;VALUE=DURATION:-PT15M
            END:VALARM
            END:VEVENT
            """
        let open = Self.run(body, from: "2024-05-23T00:00:00Z", to: "2024-05-25T00:00:00Z")
        #expect(Self.triggers(open) == ["2024-05-24T16:15:00Z"])
        let all = Self.run(body, from: "2024-05-23T00:00:00Z", to: "2024-05-25T00:00:00Z", acknowledged: true)
        #expect(all.instances.map(\.isAcknowledged) == [true, false])
    }

    @Test func noneAndProximityAlarmsNeverTrigger() {
        let result = Self.run("""
            BEGIN:VEVENT
            UID:apple
            DTSTAMP:20260101T000000Z
            DTSTART:20261201T090000Z
            BEGIN:VALARM
            ACTION:NONE
            TRIGGER;VALUE=DATE-TIME:19760401T005545Z
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:arrive
            TRIGGER;VALUE=DATE-TIME:20261201T080000Z
            X-APPLE-PROXIMITY:ARRIVE
            END:VALARM
            END:VEVENT
            """, from: "1970-01-01T00:00:00Z", to: "2030-01-01T00:00:00Z")
        #expect(result.instances.isEmpty)
        #expect(result.diagnostics.isEmpty)
    }

    // MARK: Bad input

    @Test func alarmsTheRFCDoesNotAllowAreWarnedAbout() {
        let result = Self.run("""
            BEGIN:VEVENT
            UID:bad
            DTSTAMP:20260101T000000Z
            DTSTART:20261201T090000Z
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:no trigger
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:repeat without duration
            TRIGGER:-PT5M
            REPEAT:3
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:garbage
            TRIGGER:soon
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:local absolute
            TRIGGER;VALUE=DATE-TIME:20261201T080000
            END:VALARM
            END:VEVENT
            """, from: "2026-12-01T00:00:00Z", to: "2026-12-02T00:00:00Z")
        // The floating absolute trigger is read in Berlin: 07:00Z.
        #expect(Self.triggers(result) == ["2026-12-01T07:00:00Z", "2026-12-01T08:55:00Z"])
        let messages = result.diagnostics.map(\.message)
        #expect(messages.count == 4)
        // The reader leaves out `TRIGGER:soon` (its own error); the alarm then has none.
        #expect(messages.filter { $0.contains("without TRIGGER") }.count == 2)
        #expect(messages.contains { $0.contains("REPEAT without DURATION") })
        #expect(messages.contains { $0.contains("not in UTC") })
        #expect(result.diagnostics.allSatisfy { $0.file == "alarms.ics" && $0.line > 0 && $0.severity == .warning })
    }

    @Test func aHugeRepeatIsCutAndSaysSo() {
        let result = Self.run("""
            BEGIN:VEVENT
            UID:storm
            DTSTAMP:20260101T000000Z
            DTSTART:20261201T090000Z
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:storm
            TRIGGER:-PT10M
            REPEAT:2000000000
            DURATION:PT1S
            END:VALARM
            END:VEVENT
            """, from: "2026-12-01T00:00:00Z", to: "2026-12-02T00:00:00Z")
        #expect(result.instances.count == 1_001)
        #expect(result.diagnostics.contains { $0.message.contains("REPEAT 2000000000 is more than 1000") })
    }

    @Test func aRuleWithMillionsOfOccurrencesIsBounded() {
        let limits = AlarmQuery.Limits(maximumInstances: 5_000)
        let result = Self.run("""
            BEGIN:VEVENT
            UID:secondly
            DTSTAMP:20260101T000000Z
            DTSTART:20260101T000000Z
            RRULE:FREQ=SECONDLY
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:every second
            TRIGGER:-PT1S
            REPEAT:10
            DURATION:PT1S
            END:VALARM
            END:VEVENT
            """, from: "2026-01-01T00:00:00Z", to: "2027-01-01T00:00:00Z", limits: limits)
        #expect(result.instances.count <= 5_000)
        #expect(!result.instances.isEmpty)
        #expect(!result.diagnostics.isEmpty)
        // The earliest are kept, in order.
        #expect(result.instances.map(\.triggerInstant) == result.instances.map(\.triggerInstant).sorted())
    }

    @Test func aTriggerMoreThanAYearAwayIsNotHonoured() {
        let result = Self.run("""
            BEGIN:VEVENT
            UID:far
            DTSTAMP:20260101T000000Z
            DTSTART:20261201T090000Z
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:far
            TRIGGER:-P400D
            END:VALARM
            END:VEVENT
            """, from: "2025-01-01T00:00:00Z", to: "2027-01-01T00:00:00Z")
        #expect(result.instances.isEmpty)
        #expect(result.diagnostics.first?.message.contains("more than 366 days") == true)
    }
}
