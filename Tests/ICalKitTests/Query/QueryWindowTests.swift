import Testing
@testable import ICalKit

@Suite struct QueryWindowTests {
    let now = LocalDateTime(year: 2026, month: 11, day: 22, hour: 10, minute: 15, second: 7)!
    let berlin = IANATimeZone(named: "Europe/Berlin")!

    struct AtCase: Sendable, CustomTestStringConvertible {
        var text: String
        var start: String
        var end: String
        var testDescription: String { text }
    }

    @Test(arguments: [
        AtCase(text: "2026", start: "2026-01-01T00:00:00", end: "2027-01-01T00:00:00"),
        AtCase(text: "2026-12", start: "2026-12-01T00:00:00", end: "2027-01-01T00:00:00"),
        AtCase(text: "2026-02", start: "2026-02-01T00:00:00", end: "2026-03-01T00:00:00"),
        AtCase(text: "2026-12-01", start: "2026-12-01T00:00:00", end: "2026-12-02T00:00:00"),
        AtCase(text: "2026-12-31T23", start: "2026-12-31T23:00:00", end: "2027-01-01T00:00:00"),
        AtCase(text: "2026-12-01T16:30", start: "2026-12-01T16:30:00", end: "2026-12-01T16:31:00"),
        AtCase(text: "2026-12-01 16:30:00", start: "2026-12-01T16:30:00", end: "2026-12-01T16:30:01"),
        AtCase(text: "today", start: "2026-11-22T00:00:00", end: "2026-11-23T00:00:00"),
        AtCase(text: "tomorrow", start: "2026-11-23T00:00:00", end: "2026-11-24T00:00:00"),
        AtCase(text: "now", start: "2026-11-22T10:15:07", end: "2026-11-22T10:15:08"),
    ])
    func atCoversThePrecision(_ testCase: AtCase) throws {
        let window = try QueryWindow.at(testCase.text, in: FixedOffsetZone.utc, now: now)
        #expect(window.localStart.description == testCase.start)
        #expect(window.localEnd.description == testCase.end)
        #expect(window.end - window.start == window.localEnd.secondsSinceEpoch - window.localStart.secondsSinceEpoch)
    }

    @Test func windowIsReadInTheZone() throws {
        let window = try QueryWindow.at("2026-12-01", in: berlin, now: now)
        #expect(window.start == LocalDateTime(year: 2026, month: 11, day: 30, hour: 23)!.secondsSinceEpoch)
        #expect(window.end - window.start == 86_400)
    }

    @Test func dayAcrossDSTIsNominal() throws {
        // 2026-03-29 is 23 hours long in Berlin; +1d keeps the wall clock, +24h does not.
        let nominal = try QueryWindow.between("2026-03-29", "+1d", in: berlin, now: now)
        #expect(nominal.end - nominal.start == 23 * 3600)
        #expect(nominal.localEnd.description == "2026-03-30T00:00:00")
        let exact = try QueryWindow.between("2026-03-29", "+24h", in: berlin, now: now)
        #expect(exact.end - exact.start == 24 * 3600)
        #expect(exact.localEnd.description == "2026-03-30T01:00:00")
    }

    @Test(arguments: [("+7d", 7 * 86_400), ("+1d12h", 36 * 3600), ("+30m", 1800), ("+2w", 14 * 86_400), ("+1h30m15s", 5415)])
    func relativeEnds(_ text: String, _ seconds: Int) throws {
        let window = try QueryWindow.between("2026-12-01T09:00", text, in: FixedOffsetZone.utc, now: now)
        #expect(window.end - window.start == Int64(seconds))
    }

    @Test(arguments: ["2026-13", "2026-02-30", "2026-12-01T25", "26-12-01", "2026/12/01", "soon", "2026-12-01T16:30:60", ""])
    func invalidMomentsAreRejected(_ text: String) {
        #expect(throws: ICalError.self) { try QueryWindow.at(text, in: FixedOffsetZone.utc, now: now) }
    }

    @Test(arguments: ["+", "+7", "+7x", "7d", "+0d", "+d"])
    func invalidRelativeEndsAreRejected(_ text: String) {
        #expect(throws: ICalError.self) { try QueryWindow.between("2026-12-01", text, in: FixedOffsetZone.utc, now: now) }
    }

    @Test func endMustFollowStart() {
        #expect(throws: ICalError.self) { try QueryWindow.between("2026-12-02", "2026-12-01", in: FixedOffsetZone.utc, now: now) }
    }
}
