import Testing
@testable import ICalKit

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

    static let invalid = ["0500", "+5", "+2400", "+0060", "+010060", "+01:00", "", "+01000", "Z"]

    @Test(arguments: invalid)
    func rejects(_ text: String) {
        #expect(UTCOffset(iCalendar: text) == nil)
        #expect(UTCOffset.problem(text) != nil)
    }

    @Test func messagesAndConstruction() {
        // Outlook writes -0000 for GMT Standard Time: read as +0000, with a warning.
        #expect(UTCOffset(iCalendar: "-0000") == .zero)
        #expect(UTCOffset.problem("-0000") == nil)
        #expect(UTCOffset.warning("-0000") == "RFC 5545 does not allow -0000 (Outlook writes it for GMT); read as +0000")
        #expect(UTCOffset.problem("+2400") == "expected +HHMM or -HHMMSS with hours 00...23")
        #expect(UTCOffset(hours: -5)?.iCalendarText == "-0500")
        #expect(UTCOffset(hours: 0, minutes: -30)?.iCalendarText == "-0030")
        #expect(UTCOffset(hours: 5, minutes: 45)?.seconds == 20_700)
        #expect(UTCOffset(seconds: 86_400) == nil)
        #expect(UTCOffset(hours: 1, minutes: 60) == nil)
        #expect(UTCOffset.zero < UTCOffset(hours: 1)!)
    }
}
