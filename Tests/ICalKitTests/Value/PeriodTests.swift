import Testing
@testable import ICalKit

@Suite struct PeriodValueTests {
    static func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> DateTime {
        DateTime(LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi)!, zone: .utc)
    }

    /// RFC 5545 §3.3.9 examples and round trips.
    @Test func rfcExamples() throws {
        let explicit = try #require(Period(iCalendar: "19970101T180000Z/19970102T070000Z"))
        #expect(explicit.start == Self.utc(1997, 1, 1, 18, 0))
        #expect(explicit.end == .dateTime(Self.utc(1997, 1, 2, 7, 0)))
        #expect(explicit.iCalendarText == "19970101T180000Z/19970102T070000Z")

        let withDuration = try #require(Period(iCalendar: "19970101T180000Z/PT5H30M"))
        #expect(withDuration.end == .duration(Duration(hours: 5, minutes: 30)))
        #expect(withDuration.iCalendarText == "19970101T180000Z/PT5H30M")
    }

    static let roundTrips = [
        "19970308T160000Z/PT8H30M", "19970308T230000Z/19970309T000000Z", "20240310T013000/P1D", "20240310T013000/P1W",
    ]

    @Test(arguments: roundTrips)
    func roundTrip(_ text: String) throws {
        #expect(Period(iCalendar: text)?.iCalendarText == text)
    }

    @Test func timeZoneIdentifierAppliesToBothHalves() throws {
        let period = try #require(Period(iCalendar: "20240612T080000/20240612T093000", timeZoneIdentifier: "America/New_York"))
        #expect(period.start.zone == .identifier("America/New_York"))
        guard case .dateTime(let end) = period.end else { Issue.record("expected an end"); return }
        #expect(end.zone == .identifier("America/New_York"))
    }

    static let invalid = [
        "", "19970101T180000Z", "19970101T180000Z/", "/PT1H", "19970101/19970102", "19970101T180000Z/19970102",
        "19970101T180000Z/-PT1H", "19970101T180000Z/PT0S", "19970102T180000Z/19970101T180000Z", "19970101T180000Z/PT1X",
        "19970231T180000Z/PT1H",
    ]

    @Test(arguments: invalid)
    func rejects(_ text: String) {
        #expect(Period(iCalendar: text) == nil)
    }
}

@Suite struct UTCOffsetValueTests {
    static let valid: [(String, Int, String)] = [
        ("-0500", -18_000, "-0500"), ("+0100", 3600, "+0100"), ("+0000", 0, "+0000"), ("+053028", 19_828, "+053028"),
        ("+053000", 19_800, "+0530"), ("-235959", -86_399, "-235959"), ("+2300", 82_800, "+2300"),
    ]

    @Test(arguments: valid)
    func reads(_ text: String, _ seconds: Int, _ canonical: String) throws {
        let offset = try #require(UTCOffset(iCalendar: text))
        #expect(offset.seconds == seconds)
        #expect(offset.iCalendarText == canonical)
    }

    static let invalid = ["-0000", "-000000", "0500", "+5", "+2400", "+0060", "+010060", "+01:00", "", "+01000", "Z"]

    @Test(arguments: invalid)
    func rejects(_ text: String) {
        #expect(UTCOffset(iCalendar: text) == nil)
        #expect(UTCOffset.problem(text) != nil)
    }

    @Test func messagesAndConstruction() {
        #expect(UTCOffset.problem("-0000") == "-0000 is not allowed; write +0000")
        #expect(UTCOffset.problem("+2400") == "expected +HHMM or -HHMMSS with hours 00...23")
        #expect(UTCOffset(hours: -5)?.iCalendarText == "-0500")
        #expect(UTCOffset(hours: 0, minutes: -30)?.iCalendarText == "-0030")
        #expect(UTCOffset(hours: 5, minutes: 45)?.seconds == 20_700)
        #expect(UTCOffset(seconds: 86_400) == nil)
        #expect(UTCOffset(hours: 1, minutes: 60) == nil)
        #expect(UTCOffset.zero < UTCOffset(hours: 1)!)
    }
}

@Suite struct SmallValueTests {
    static let positions: [(String, Double, Double, String)] = [
        ("37.386013;-122.082932", 37.386013, -122.082932, "37.386013;-122.082932"),
        ("+90;-180", 90, -180, "90.0;-180.0"),
        ("0.00001;1.5", 0.00001, 1.5, "0.00001;1.5"),
        ("-0.000000123;0", -0.000000123, 0, "-0.000000123;0.0"),
    ]

    @Test(arguments: positions)
    func geographicPosition(_ text: String, _ latitude: Double, _ longitude: Double, _ canonical: String) throws {
        let position = try #require(GeographicPosition(iCalendar: text))
        #expect(position.latitude == latitude)
        #expect(position.longitude == longitude)
        #expect(position.iCalendarText == canonical)
        #expect(GeographicPosition(iCalendar: canonical) == position)
    }

    static let invalidPositions = ["91;0", "0;180.5", "1,5;2", "1;", ";1", "1;2;3", "1e5;2", "1.;2", ".5;2", "nan;0", " 1;2"]

    @Test(arguments: invalidPositions)
    func rejectsPosition(_ text: String) {
        #expect(GeographicPosition(iCalendar: text) == nil)
    }

    @Test func floatFormatting() {
        #expect(GeographicPosition.format(1e20) == "100000000000000000000.0")
        #expect(GeographicPosition.format(-1.25e-7) == "-0.000000125")
        #expect(GeographicPosition(latitude: .infinity, longitude: 0) == nil)
    }

    static let uris: [(String, Bool)] = [
        ("mailto:jane_doe@example.com", true), ("https://example.com/calendar?x=1#y", true),
        ("urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", true), ("cid:part1.0001@example.org", true),
        ("example.com", false), (":nothing", false), ("1http://x", false), ("http://exa mple.com", false),
        ("ht_tp://x", false), ("", false),
    ]

    @Test(arguments: uris)
    func uri(_ text: String, _ valid: Bool) {
        #expect((URI(iCalendar: text) != nil) == valid)
        if valid { #expect(URI(iCalendar: text)?.iCalendarText == text) }
    }

    @Test func uriParts() throws {
        let uri = try #require(URI(rawValue: "MAILTO:Jane@example.com"))
        #expect(uri.scheme == "mailto")
        #expect(uri.schemeSpecificPart == "Jane@example.com")
    }

    @Test func textList() {
        let list = TextList(iCalendar: #"work,Q3\, planning,a\\b,line\nbreak"#)
        #expect(list.values == ["work", "Q3, planning", #"a\b"#, "line\nbreak"])
        #expect(list.iCalendarText == #"work,Q3\, planning,a\\b,line\nbreak"#)
        #expect(TextList(["x;y"]).iCalendarText == #"x\;y"#)
    }

    static let integers: [(String, Int?)] = [
        ("0", 0), ("1234567890", 1_234_567_890), ("-1234567890", -1_234_567_890), ("+42", 42),
        ("2147483647", 2_147_483_647), ("-2147483648", -2_147_483_648), ("2147483648", nil), ("", nil), ("1.5", nil),
        ("--1", nil), ("12a", nil),
    ]

    @Test(arguments: integers)
    func integer(_ text: String, _ value: Int?) {
        #expect(ScalarValue.integer(iCalendar: text) == value)
    }

    @Test func boolean() {
        #expect(ScalarValue.boolean(iCalendar: "TRUE") == true)
        #expect(ScalarValue.boolean(iCalendar: "false") == false)
        #expect(ScalarValue.boolean(iCalendar: "yes") == nil)
        #expect(ScalarValue.booleanText(true) == "TRUE")
        #expect(ScalarValue.integerText(-7) == "-7")
    }

    @Test func calendarUserAddressKeepsParameters() throws {
        // RFC 5545 §3.8.4.1 example, plus an X- parameter.
        let property = Property(.attendee, parameters: [
            Parameter(name: "ROLE", rawValue: "REQ-PARTICIPANT"), Parameter(name: "X-NUM-GUESTS", rawValue: "2"),
            Parameter(name: "PARTSTAT", rawValue: "TENTATIVE"), Parameter(name: "CN", rawValue: "Henry Cabot"),
            Parameter(name: "RSVP", rawValue: "TRUE"), Parameter(name: "CUTYPE", rawValue: "ROOM"),
        ], rawValue: "mailto:hcabot@example.com")
        var address = CalendarUserAddress(property)
        #expect(address.commonName == "Henry Cabot")
        #expect(address.role == .requiredParticipant)
        #expect(address.participationStatus == .tentative)
        #expect(address.rsvp == true)
        #expect(address.calendarUserType == .room)
        #expect(address.email == nil)
        #expect(address.emailAddress == "hcabot@example.com")
        #expect(address.property(.attendee) == property)

        address.participationStatus = .accepted
        address.commonName = "Cabot, Henry"
        address.email = "henry@example.org"
        #expect(address.parameters.map(\.name) == ["ROLE", "X-NUM-GUESTS", "PARTSTAT", "CN", "RSVP", "CUTYPE", "EMAIL"])
        #expect(address.parameters[2].rawValue == "ACCEPTED")
        #expect(address.parameters[3].rawValue == "\"Cabot, Henry\"")
        #expect(address.emailAddress == "henry@example.org")
        address.rsvp = nil
        #expect(!address.parameters.contains { $0.name == "RSVP" })
    }

    @Test func calendarUserAddressBuilt() {
        let jane = CalendarUserAddress(address: "mailto:jane@example.com", commonName: "Jane Doe", role: .chair, rsvp: false)
        #expect(jane.parameters == [
            Parameter(name: "CN", rawValue: "Jane Doe"), Parameter(name: "ROLE", rawValue: "CHAIR"),
            Parameter(name: "RSVP", rawValue: "FALSE"),
        ])
        #expect(jane.description == "Jane Doe <mailto:jane@example.com>")
    }

    @Test func openEnumerations() {
        #expect(Status(rawValue: "confirmed") == .confirmed)
        #expect(Status(rawValue: "X-POSTPONED").rawValue == "X-POSTPONED")
        #expect([Status.tentative, .confirmed, .cancelled, .needsAction, .completed, .inProcess, .draft, .final].map(\.rawValue)
            == ["TENTATIVE", "CONFIRMED", "CANCELLED", "NEEDS-ACTION", "COMPLETED", "IN-PROCESS", "DRAFT", "FINAL"])
        #expect(TimeTransparency(rawValue: "Transparent") == .transparent)
        #expect(AlarmAction(rawValue: "display") == .display)
    }
}
