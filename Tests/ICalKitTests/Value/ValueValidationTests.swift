import Foundation
import Testing
@testable import ICalKit

@Suite struct ValueValidationTests {
    static func read(_ lines: [String]) throws -> ReadResult {
        try ICalReader().read((["BEGIN:VCALENDAR"] + lines + ["END:VCALENDAR"]).map { $0 + "\r\n" }.joined())
    }

    static let rejected: [(String, String)] = [
        ("TZOFFSETFROM:+2500", "TZOFFSETFROM '+2500' is not a UTC offset: expected +HHMM or -HHMMSS with hours 00...23; left out"),
        ("TZOFFSETTO:+2500", "TZOFFSETTO '+2500' is not a UTC offset: expected +HHMM or -HHMMSS with hours 00...23; left out"),
        ("GEO:91;0", "GEO '91;0' is not a latitude;longitude pair within ±90;±180 such as 37.386013;-122.082932; left out"),
        ("RRULE:FREQ=YEARLY;BYMONTH=5L", "RRULE 'FREQ=YEARLY;BYMONTH=5L' cannot be read: BYMONTH has the leap month 5L, which needs RSCALE (RFC 7529); left out"),
    ]

    @Test(arguments: rejected)
    func rejectsInvalidValues(_ line: String, _ message: String) throws {
        let result = try Self.read(["BEGIN:VTIMEZONE", "TZID:X", "BEGIN:STANDARD", line, "END:STANDARD", "END:VTIMEZONE"])
        #expect(result.diagnostics.map(\.message) == [message])
        #expect(result.diagnostics.first?.severity == .error)
        let standard = result.calendars.first?.components(.timeZone).first?.components(.standard).first
        #expect(standard?.properties.isEmpty == true)
    }

    @Test func acceptsValidValuesAndNeverChecksExtensions() throws {
        let result = try Self.read([
            "BEGIN:VTIMEZONE", "TZID:X", "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200",
            "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
            "BEGIN:VEVENT", "UID:1", "GEO:-33.8688;151.2093", "X-GEO:999;999", "X-OFFSET:-0000", "X-RULE:FREQ=NEVER",
            "END:VEVENT",
        ])
        #expect(result.diagnostics.isEmpty)
        let standard = try #require(result.calendars.first?.components(.timeZone).first?.components(.standard).first)
        #expect(standard.property(.timeZoneOffsetFrom)?.utcOffsetValue == UTCOffset(hours: 2))
        #expect(standard.property(.timeZoneOffsetTo)?.utcOffsetValue == UTCOffset(hours: 1))
        let event = try #require(result.calendars.first?.components(.event).first)
        #expect(event.properties.count == 5)
    }

    @Test func absoluteTriggerMustBeUTC() throws {
        let result = try Self.read([
            "BEGIN:VEVENT", "UID:1", "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER;VALUE=DATE-TIME:20240101T100000", "END:VALARM",
            "END:VEVENT",
        ])
        #expect(result.diagnostics.map(\.severity) == [.warning])
        #expect(result.diagnostics.first?.message
            == "TRIGGER '20240101T100000' with VALUE=DATE-TIME must be a UTC time (RFC 5545 §3.8.6.3); kept")
        let alarm = result.calendars.first?.components(.event).first?.components(.alarm).first
        #expect(alarm?.trigger == .absolute(DateTime(LocalDateTime(year: 2024, month: 1, day: 1, hour: 10)!)))
    }

    @Test func codableValues() throws {
        func roundTrip<T: Codable & Equatable>(_ value: T) throws {
            #expect(try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value)) == value)
        }
        try roundTrip(Period(iCalendar: "19970101T180000Z/PT5H30M")!)
        try roundTrip(UTCOffset(iCalendar: "-053028")!)
        try roundTrip(GeographicPosition(iCalendar: "37.386013;-122.082932")!)
        try roundTrip(URI(rawValue: "mailto:a@example.com")!)
        try roundTrip(CalendarUserAddress(address: "mailto:a@example.com", commonName: "A", rsvp: true))
        try roundTrip(TextList(["a", "b,c"]))
        try roundTrip(AlarmTrigger.relative(Duration(minutes: 5), relatedTo: .end))
        try roundTrip(RecurrenceDate.period(Period(iCalendar: "19970101T180000Z/19970102T070000Z")!))
        try roundTrip(Status.confirmed)
    }
}
