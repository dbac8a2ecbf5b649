import Testing
@testable import ICalKit

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
