import Foundation
import ICalKit
import OpenEventKit
import Testing

@Suite struct EKAlarmTests {
    /// An alarm as macOS Calendar writes it, with identity, acknowledgement and X- properties.
    static let appleAudioAlarm = """
        BEGIN:VALARM
        X-WR-ALARMUID:4D8E2B9C-1A3F-4C5D-8E7F-9A0B1C2D3E4F
        UID:4D8E2B9C-1A3F-4C5D-8E7F-9A0B1C2D3E4F
        TRIGGER:-PT30M
        ATTACH;VALUE=URI:Chord
        ACTION:AUDIO
        X-APPLE-DEFAULT-ALARM:TRUE
        ACKNOWLEDGED:20240913T233101Z
        END:VALARM
        """

    static func alarm(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Component {
        try component(.alarm, in: "BEGIN:VEVENT\nUID:e\nDTSTART:20240101T090000Z\n\(body)\nEND:VEVENT",
                      sourceLocation: sourceLocation)
    }

    // MARK: Creating

    @Test func absoluteAlarm() {
        let date = utcDate(2024, 6, 20, 7)
        let alarm = EKAlarm(absoluteDate: date)
        #expect(alarm.absoluteDate == date)
        #expect(alarm.relativeOffset == 0)
        #expect(alarm.type == .display && alarm.proximity == .none && alarm.structuredLocation == nil)
        #expect(alarm.emailAddress == nil && alarm.soundName == nil && alarm.url == nil)
        #expect(lines(alarm.component) == ["ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER;VALUE=DATE-TIME:20240620T070000Z"])
    }

    /// A relative alarm writes its offset as a DURATION: whole days as days, the rest in
    /// hours, minutes and seconds.
    @Test(arguments: [
        (-900.0, "TRIGGER:-PT15M"), (0, "TRIGGER:PT0S"), (-86_400, "TRIGGER:-P1D"), (-172_800, "TRIGGER:-P2D"),
        (5_400, "TRIGGER:PT1H30M"), (-93_600, "TRIGGER:-PT26H"), (-61.4, "TRIGGER:-PT1M1S"), (-604_800, "TRIGGER:-P7D"),
    ])
    func relativeAlarm(_ offset: TimeInterval, _ trigger: String) {
        let alarm = EKAlarm(relativeOffset: offset)
        #expect(alarm.relativeOffset == offset)
        #expect(alarm.absoluteDate == nil)
        #expect(lines(alarm.component) == ["ACTION:DISPLAY", "DESCRIPTION:Reminder", trigger])
    }

    @Test func absoluteAndRelativeClearEachOther() {
        let alarm = EKAlarm(relativeOffset: -600)
        alarm.absoluteDate = utcDate(2024, 1, 1, 8)
        #expect(alarm.absoluteDate == utcDate(2024, 1, 1, 8) && alarm.relativeOffset == 0)
        alarm.relativeOffset = -300
        #expect(alarm.absoluteDate == nil && alarm.relativeOffset == -300)
        alarm.absoluteDate = nil  // a relative alarm stays as it is
        #expect(alarm.absoluteDate == nil && alarm.relativeOffset == -300)
        alarm.absoluteDate = utcDate(2024, 1, 1, 8)
        alarm.absoluteDate = nil  // an absolute alarm fires at the start
        #expect(alarm.absoluteDate == nil && alarm.relativeOffset == 0)
    }

    /// The type follows from the other properties (email, then sound, then procedure), and
    /// setting one of them clears the other two.
    @Test func typeIsDerivedAndSettersClearEachOther() throws {
        let alarm = EKAlarm(relativeOffset: 0)
        #expect(alarm.type == .display)
        alarm.soundName = "Basso"
        #expect(alarm.type == .audio)
        alarm.emailAddress = "jane@example.com"
        #expect(alarm.type == .email && alarm.soundName == nil)
        let url = try #require(URL(string: "file:///usr/bin/true"))
        alarm.url = url
        #expect(alarm.type == .procedure && alarm.emailAddress == nil && alarm.url == url)
        alarm.soundName = "Glass"
        #expect(alarm.type == .audio && alarm.url == nil)
        alarm.emailAddress = nil
        #expect(alarm.type == .audio && alarm.soundName == "Glass")
        alarm.soundName = nil
        #expect(alarm.type == .display)
    }

    @Test func everySetterTellsTheOwner() {
        let alarm = EKAlarm(relativeOffset: 0)
        let counter = ChangeCounter()
        alarm.ownerDidChange = { counter.count += 1 }
        alarm.relativeOffset = -60
        alarm.absoluteDate = utcDate(2024, 1, 1)
        alarm.proximity = .enter
        alarm.emailAddress = "a@example.com"
        alarm.soundName = "Basso"
        alarm.url = URL(string: "file:///bin/true")
        alarm.structuredLocation = EKStructuredLocation(title: "Home")
        #expect(counter.count == 7)
        // The alarm keeps a copy of the location, and edits to that copy reach the owner.
        let stored = alarm.structuredLocation
        stored?.radius = 50
        #expect(counter.count == 8)
    }

    @Test func structuredLocationIsCopied() {
        let alarm = EKAlarm(relativeOffset: 0)
        let location = EKStructuredLocation(title: "Home")
        alarm.structuredLocation = location
        #expect(alarm.structuredLocation !== location && alarm.structuredLocation?.title == "Home")
        let counter = ChangeCounter()
        alarm.ownerDidChange = { counter.count += 1 }
        location.title = "Elsewhere"  // the caller's object is not the alarm's
        #expect(counter.count == 0 && alarm.structuredLocation?.title == "Home")
    }

    @Test func newAlarmsOfEachType() throws {
        let email = EKAlarm(relativeOffset: -3600)
        email.emailAddress = "jane@example.com"
        #expect(lines(email.component) == [
            "ACTION:EMAIL", "DESCRIPTION:Reminder", "SUMMARY:Reminder", "TRIGGER:-PT1H", "ATTENDEE:mailto:jane@example.com",
        ])
        let audio = EKAlarm(relativeOffset: 0)
        audio.soundName = "Basso"
        #expect(lines(audio.component) == ["ACTION:AUDIO", "TRIGGER:PT0S", "ATTACH;VALUE=URI:Basso"])
        let procedure = EKAlarm(relativeOffset: 0)
        procedure.url = URL(string: "file:///usr/bin/true")
        #expect(lines(procedure.component) == ["ACTION:PROCEDURE", "TRIGGER:PT0S", "ATTACH;VALUE=URI:file:///usr/bin/true"])
    }

    /// A location alarm as iOS writes it for a reminder.
    @Test func newProximityAlarm() {
        let alarm = EKAlarm(absoluteDate: utcDate(1976, 4, 1, 0, 55, 45))
        let location = EKStructuredLocation(title: "Home")
        location.geoLocation = CLLocation(latitude: 52.52, longitude: 13.405)
        location.radius = 100
        alarm.structuredLocation = location
        alarm.proximity = .enter
        #expect(lines(alarm.component) == [
            "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER;VALUE=DATE-TIME:19760401T005545Z", "X-APPLE-PROXIMITY:ARRIVE",
            "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-APPLE-RADIUS=100.0;X-TITLE=Home:geo:52.52,13.405",
        ])
    }

    @Test func description() {
        let alarm = EKAlarm(relativeOffset: -900)
        #expect(alarm.description.hasPrefix("EKAlarm <0x"))
        #expect(alarm.description.hasSuffix("{triggerDate = (null); triggerInterval = -900.0; type = 0; proximity = 0}"))
    }

    // MARK: Reading

    @Test func readsApplesAudioAlarmAndWritesItBackUnchanged() throws {
        let valarm = try Self.alarm(Self.appleAudioAlarm)
        let alarm = EKAlarm(component: valarm)
        #expect(alarm.relativeOffset == -1800 && alarm.absoluteDate == nil)
        #expect(alarm.type == .audio && alarm.soundName == "Chord")
        #expect(alarm.component == valarm)
    }

    /// Changing one value rewrites only its property: UID, X-WR-ALARMUID, ACKNOWLEDGED and
    /// the X- properties stay where they were.
    @Test func changingTheOffsetRewritesOnlyTheTrigger() throws {
        let valarm = try Self.alarm(Self.appleAudioAlarm)
        let alarm = EKAlarm(component: valarm)
        alarm.relativeOffset = -600
        var expected = valarm
        expected.properties[2].rawValue = "-PT10M"
        #expect(alarm.component == expected)

        alarm.soundName = "Basso"
        expected.properties[3].rawValue = "Basso"
        #expect(alarm.component == expected)
    }

    @Test(arguments: [
        ("TRIGGER:-PT15M\nACTION:DISPLAY\nDESCRIPTION:Footy", EKAlarmType.display, -900.0),
        ("TRIGGER;RELATED=START:-PT2H\nACTION:DISPLAY\nDESCRIPTION:x\nX-JMAP-ID:1a2b", .display, -7200),
        ("ACTION:EMAIL\nDESCRIPTION:d\nSUMMARY:s\nATTENDEE:mailto:lena@example.com\nTRIGGER:-P1D", .email, -86_400),
        ("ACTION:AUDIO\nTRIGGER:-P0DT0H30M0S", .audio, -1800),
        ("ACTION:PROCEDURE\nATTACH:file:///bin/true\nTRIGGER:PT0S", .procedure, 0),
        ("ACTION:NONE\nTRIGGER;VALUE=DATE-TIME:19760401T005545Z", .display, 0),
        ("ACTION:X-CUSTOM\nTRIGGER:PT5M", .display, 300),
    ])
    func readsEachKindAndWritesItBackUnchanged(_ body: String, _ type: EKAlarmType, _ offset: TimeInterval) throws {
        let valarm = try Self.alarm("BEGIN:VALARM\n\(body)\nEND:VALARM")
        let alarm = EKAlarm(component: valarm)
        #expect(alarm.type == type)
        #expect(alarm.relativeOffset == offset)
        #expect(alarm.component == valarm)
    }

    @Test func readsTheValuesOfEachKind() throws {
        let email = EKAlarm(component: try Self.alarm(
            "BEGIN:VALARM\nACTION:EMAIL\nATTENDEE;CN=Lena:mailto:lena@example.com\nTRIGGER:-P1D\nEND:VALARM"))
        #expect(email.emailAddress == "lena@example.com")
        let noRecipient = EKAlarm(component: try Self.alarm("BEGIN:VALARM\nACTION:EMAIL\nTRIGGER:-P1D\nEND:VALARM"))
        #expect(noRecipient.emailAddress == "" && noRecipient.type == .email)
        let defaultSound = EKAlarm(component: try Self.alarm("BEGIN:VALARM\nACTION:AUDIO\nTRIGGER:PT0S\nEND:VALARM"))
        #expect(defaultSound.soundName == "" && defaultSound.type == .audio)
        let procedure = EKAlarm(component: try Self.alarm(
            "BEGIN:VALARM\nACTION:PROCEDURE\nATTACH;VALUE=URI:file:///bin/true\nTRIGGER:PT0S\nEND:VALARM"))
        #expect(procedure.url == URL(string: "file:///bin/true"))
        let absolute = EKAlarm(component: try Self.alarm(
            "BEGIN:VALARM\nTRIGGER;VALUE=DATE-TIME:20240620T070000Z\nACTION:DISPLAY\nDESCRIPTION:Reminder\nEND:VALARM"))
        #expect(absolute.absoluteDate == utcDate(2024, 6, 20, 7) && absolute.relativeOffset == 0)
        let floating = EKAlarm(component: try Self.alarm(
            "BEGIN:VALARM\nTRIGGER;VALUE=DATE-TIME:20240620T070000\nACTION:DISPLAY\nDESCRIPTION:Reminder\nEND:VALARM"))
        #expect(floating.absoluteDate == utcDate(2024, 6, 20, 7))
    }

    /// RELATED=END is kept as read; setting the offset makes it count from the start.
    @Test func relatedToEnd() throws {
        let valarm = try Self.alarm("BEGIN:VALARM\nTRIGGER;RELATED=END:-PT5M\nACTION:DISPLAY\nDESCRIPTION:x\nEND:VALARM")
        let alarm = EKAlarm(component: valarm)
        #expect(alarm.relativeOffset == -300 && alarm.isRelativeToEnd)
        #expect(alarm.component == valarm)
        alarm.relativeOffset = -300
        #expect(!alarm.isRelativeToEnd)
        #expect(alarm.component.property(.trigger) == Property(.trigger, rawValue: "-PT5M"))
    }

    @Test(arguments: [
        ("X-APPLE-PROXIMITY:ARRIVE", EKAlarmProximity.enter), ("X-APPLE-PROXIMITY:DEPART", .leave),
        ("X-APPLE-PROXIMITY:depart", .leave), ("PROXIMITY:ARRIVE", .enter), ("PROXIMITY:CONNECT", .none), ("", .none),
    ])
    func readsProximity(_ line: String, _ proximity: EKAlarmProximity) throws {
        let body = "BEGIN:VALARM\nTRIGGER:PT0S\nACTION:DISPLAY\nDESCRIPTION:x\n" + (line.isEmpty ? "" : line + "\n") + "END:VALARM"
        #expect(EKAlarm(component: try Self.alarm(body)).proximity == proximity)
    }

    @Test func changingProximity() throws {
        let valarm = try Self.alarm("BEGIN:VALARM\nTRIGGER:PT0S\nACTION:DISPLAY\nDESCRIPTION:x\nX-APPLE-PROXIMITY:ARRIVE\nEND:VALARM")
        let alarm = EKAlarm(component: valarm)
        alarm.proximity = .leave
        #expect(alarm.component.property("X-APPLE-PROXIMITY")?.rawValue == "DEPART")
        alarm.proximity = .none
        #expect(alarm.component.property("X-APPLE-PROXIMITY") == nil)
        #expect(lines(alarm.component) == ["TRIGGER:PT0S", "ACTION:DISPLAY", "DESCRIPTION:x"])
    }

    /// A reminder's location alarm as iOS writes it: the geofence survives unchanged, and a
    /// new radius changes only X-APPLE-RADIUS.
    @Test func locationAlarm() throws {
        let valarm = try Self.alarm("""
            BEGIN:VALARM
            UID:A1
            X-WR-ALARMUID:A1
            TRIGGER;VALUE=DATE-TIME:19760401T005545Z
            ACTION:DISPLAY
            DESCRIPTION:Reminder
            X-APPLE-PROXIMITY:DEPART
            X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS=Main St 1;X-APPLE-RADIUS=70.5;X-TITLE=Home:geo:52.52,13.405
            END:VALARM
            """)
        let alarm = EKAlarm(component: valarm)
        #expect(alarm.proximity == .leave)
        let location = try #require(alarm.structuredLocation)
        #expect(location.title == "Home" && location.radius == 70.5)
        #expect(location.geoLocation?.coordinate.latitude == 52.52 && location.geoLocation?.coordinate.longitude == 13.405)
        #expect(alarm.component == valarm)

        location.radius = 200
        var expected = valarm
        expected.properties[6].setParameter("X-APPLE-RADIUS", to: "200.0")
        #expect(alarm.component == expected)

        alarm.structuredLocation = nil
        expected.properties.remove(at: 6)
        #expect(alarm.component == expected)
    }

    // MARK: Changing the type

    @Test func displayBecomesEmailAndBack() throws {
        let valarm = try Self.alarm("BEGIN:VALARM\nUID:A2\nTRIGGER:-PT15M\nACTION:DISPLAY\nDESCRIPTION:Call Lena\nX-FOO:bar\nEND:VALARM")
        let alarm = EKAlarm(component: valarm)
        alarm.emailAddress = "lena@example.com"
        #expect(lines(alarm.component) == [
            "UID:A2", "TRIGGER:-PT15M", "ACTION:EMAIL", "DESCRIPTION:Call Lena", "X-FOO:bar", "SUMMARY:Reminder",
            "ATTENDEE:mailto:lena@example.com",
        ])
        alarm.emailAddress = nil
        #expect(lines(alarm.component) == ["UID:A2", "TRIGGER:-PT15M", "ACTION:DISPLAY", "DESCRIPTION:Call Lena", "X-FOO:bar"])
    }

    @Test func audioBecomesDisplay() throws {
        let valarm = try Self.alarm(Self.appleAudioAlarm)
        let alarm = EKAlarm(component: valarm)
        alarm.soundName = nil
        #expect(lines(alarm.component) == [
            "X-WR-ALARMUID:4D8E2B9C-1A3F-4C5D-8E7F-9A0B1C2D3E4F", "UID:4D8E2B9C-1A3F-4C5D-8E7F-9A0B1C2D3E4F",
            "TRIGGER:-PT30M", "ACTION:DISPLAY", "X-APPLE-DEFAULT-ALARM:TRUE", "ACKNOWLEDGED:20240913T233101Z",
            "DESCRIPTION:Reminder",
        ])
    }

    @Test func newRecipientReplacesTheAttendee() throws {
        let valarm = try Self.alarm(
            "BEGIN:VALARM\nACTION:EMAIL\nDESCRIPTION:d\nSUMMARY:s\nATTENDEE:mailto:lena@example.com\nTRIGGER:-P1D\nEND:VALARM")
        let alarm = EKAlarm(component: valarm)
        alarm.emailAddress = "max@example.com"
        #expect(alarm.component.attendees.map(\.address) == ["mailto:max@example.com"])
        #expect(alarm.component.summary == "s" && alarm.component.descriptionText == "d")
    }

    // MARK: Copying

    @Test func copyKeepsTheAlarmButNotItsIdentity() throws {
        let valarm = try Self.alarm(Self.appleAudioAlarm)
        let alarm = EKAlarm(component: valarm)
        alarm.structuredLocation = EKStructuredLocation(title: "Home")
        alarm.ownerDidChange = {}
        let copy = try #require(alarm.copy() as? EKAlarm)
        #expect(copy !== alarm && copy.ownerDidChange == nil)
        #expect(copy.relativeOffset == -1800 && copy.soundName == "Chord" && copy.structuredLocation?.title == "Home")
        #expect(copy.structuredLocation !== alarm.structuredLocation)
        let written = copy.component
        #expect(written.property(.uniqueIdentifier) == nil && written.property("X-WR-ALARMUID") == nil)
        #expect(written.property("X-APPLE-DEFAULT-ALARM")?.rawValue == "TRUE")
        #expect(written.property("ACKNOWLEDGED") != nil)
    }
}
