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
