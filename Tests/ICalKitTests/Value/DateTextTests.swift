import Testing
@testable import ICalKit

/// Dates, times and offsets are written into one string of fixed width; the text must be
/// what padding each part and joining them gave, for every value, in range or not.
@Suite struct DateTextTests {
    /// The padded parts joined: the formulas the fixed-width text replaced.
    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    static func reference(_ date: CalendarDate) -> String { "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))" }

    static func reference(_ time: LocalDateTime) -> String {
        "\(reference(time.date))T\(pad(time.time.hour, 2)):\(pad(time.time.minute, 2)):\(pad(time.time.second, 2))"
    }

    static func referenceOffset(_ seconds: Int) -> String {
        let magnitude = abs(seconds)
        var text = (seconds < 0 ? "-" : "+") + pad(magnitude / 3600, 2) + ":" + pad(magnitude % 3600 / 60, 2)
        if magnitude % 60 != 0 { text += ":" + pad(magnitude % 60, 2) }
        return text
    }

    @Test func everyDateAndTimeReadsAsItsPaddedParts() {
        var generator = SplitMix64(seed: 0xDA7E)
        var values: [LocalDateTime] = [
            LocalDateTime(year: 0, month: 1, day: 1)!, LocalDateTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 60)!,
            LocalDateTime(year: 1970, month: 1, day: 1)!, LocalDateTime(year: 2024, month: 2, day: 29, hour: 9, minute: 5, second: 7)!,
        ]
        for _ in 0..<5000 {
            values.append(LocalDateTime(secondsSinceEpoch: Int64.random(in: -62_167_219_200...253_402_300_799, using: &generator)))
        }
        // Fields set out of their ranges (they are public): the text still pads each part.
        var odd = LocalDateTime(year: 2026, month: 11, day: 26, hour: 7)!
        for (year, month, day, hour) in [(-1, 1, 1, 0), (10_000, 1, 1, 0), (2026, 0, 0, 0), (2026, 100, 7, 0), (2026, 1, 1, 100),
                                         (-2026, -3, -4, -5), (123_456, 1, 1, 1)] {
            odd.date.year = year
            odd.date.month = month
            odd.date.day = day
            odd.time.hour = hour
            values.append(odd)
        }
        for value in values {
            #expect(value.description == Self.reference(value))
            #expect(value.date.description == Self.reference(value.date))
            let dateText = Self.pad(value.date.year, 4) + Self.pad(value.date.month, 2) + Self.pad(value.date.day, 2)
            #expect(value.date.iCalendarText == dateText)
            #expect(value.iCalendarText == dateText + "T" + Self.pad(value.time.hour, 2) + Self.pad(value.time.minute, 2)
                        + Self.pad(value.time.second, 2))
        }
    }

    @Test func everyOffsetReadsAsItsPaddedParts() {
        for seconds in Array(-100_000...100_000).filter({ $0 % 7 == 0 || $0 % 60 == 0 }) + [359_999, 360_000, -360_000, 1_000_000] {
            #expect(UTCOffset.isoText(seconds: seconds) == Self.referenceOffset(seconds), "\(seconds)")
        }
    }
}
