import Testing
@testable import ICalKit

/// The in-place test of X-WR-TIMEZONE's reach (``CalendarRepair/allFloatingDateTimes(_:)``)
/// against the formula it replaced: split at commas, trim each item, read it as a date.
@Suite struct CalendarTimeZoneScanTests {
    /// The replaced formula, as it stood.
    static func reference(_ value: String) -> Bool {
        let values = value.split(separator: ",", omittingEmptySubsequences: false)
        return !values.isEmpty
            && values.allSatisfy({ DateTime(iCalendar: String($0).trimmingASCIIWhitespace()).map { !$0.isDate && $0.zone == .floating } ?? false })
    }

    static let edgeCases: [String] = [
        "", ",", " ", "20240101T100000", "20240101T100000Z", "20240101", "20240101Z", " 20240101T100000 ",
        "\t20240101T100000\r\n", "20240101T100000,20240102T100000", "20240101T100000,20240102T100000Z",
        "20240101T100000,", ",20240101T100000", "20240101T100000,,20240102T100000", "20240231T100000",
        "20240101T250000", "20240101t100000", "2024-01-01T10:00:00", "20240101T1000", "20240101T100000 Z",
        "20240101T100000,\u{301}20240102T100000", "20240101T100000\u{301}", "é20240101T10000", "20240101T10000é",
        "20240101T100000, 20240102T100000", "20240101T100000 ,20240102T100000", "00000101T000000", "99991231T235960",
        "20240101T100000,20240101", "\u{600},20240101T100000", "20240101T100000\u{600},20240102T100000",
        "20240101T100000;20240102T100000", "+20240101T100000", "20240101T100000\n", "\n,\n",
    ]

    @Test func edgeCasesAgreeWithTheSplittingFormula() {
        for value in Self.edgeCases {
            #expect(CalendarRepair.allFloatingDateTimes(value) == Self.reference(value), "\(value.debugDescription)")
        }
    }

    @Test func randomValuesAgreeWithTheSplittingFormula() {
        var generator = SplitMix64(seed: 15)
        let pieces = ["2024", "0101", "0229", "0230", "T", "t", "1000", "00", "59", "60", "Z", ",", " ", "\t", "\r", "\n",
                      "é", "\u{301}", "1", "9", "-", ":", ";", "20240101T100000", "20240101", "20240101T100000Z"]
        var floating = 0
        for _ in 0..<20_000 {
            var value = ""
            for _ in 0..<Int(generator.next() % 6) { value += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let expected = Self.reference(value)
            if expected { floating += 1 }
            #expect(CalendarRepair.allFloatingDateTimes(value) == expected, "\(value.debugDescription)")
        }
        // The generator reaches both answers.
        #expect(floating > 100)
    }

    @Test func propertiesTakeTheZoneAsBefore() {
        let properties = [
            Property(name: "DTSTART", rawValue: "20240101T100000"),
            Property(name: "dtend", rawValue: "20240101T100000"),
            Property(name: "DTSTART", parameters: [Parameter(name: "TZID", rawValue: "Europe/Berlin")], rawValue: "20240101T100000"),
            Property(name: "DTSTART", parameters: [Parameter(name: "VALUE", rawValue: "DATE")], rawValue: "20240101"),
            Property(name: "DTSTART", parameters: [Parameter(name: "VALUE", rawValue: "date-time")], rawValue: "20240101T100000"),
            Property(name: "EXDATE", rawValue: "20240101T100000,20240108T100000"),
            Property(name: "RDATE", rawValue: "20240101T100000Z"),
            Property(name: "RECURRENCE-ID", rawValue: " 20240101T100000"),
            Property(name: "DUE", rawValue: "20240101T100000"),
            Property(name: "SUMMARY", rawValue: "20240101T100000"),
        ]
        let expected = [true, true, false, false, true, true, false, true, true, false]
        #expect(properties.map(CalendarRepair.takesCalendarTimeZone) == expected)
    }
}
