/// SplitMix64: small, fast and the same on every platform, so a seed always gives the
/// same file (Swift's SystemRandomNumberGenerator cannot be seeded).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range`, uniform enough for test data.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// True `percent` times in 100.
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}

/// A proleptic Gregorian date with the arithmetic the generator needs. Days of the month
/// stay at or below 28 wherever months or years are added, so every step is a real date.
struct CivilDate: Comparable {
    var year: Int, month: Int, day: Int

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    func adding(days: Int) -> CivilDate { CivilDate(dayNumber: dayNumber + days) }

    func adding(months: Int) -> CivilDate {
        let total = year * 12 + (month - 1) + months
        return CivilDate(year: total / 12, month: total % 12 + 1, day: day)
    }

    /// 0 = Monday ... 6 = Sunday.
    var weekday: Int { ((dayNumber % 7) + 10) % 7 }

    static func < (a: CivilDate, b: CivilDate) -> Bool { a.dayNumber < b.dayNumber }
}

/// Builds canonical iCalendar output: CRLF line ends, folded at 75 octets without
/// splitting a UTF-8 sequence (continuation lines are a space and up to 74 octets).
struct ContentWriter {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func line(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            var used = 0
            var index = 0
            while index < utf8.count {
                let lead = utf8[index]
                let width = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
                if used + width > 75 {
                    bytes.append(0x0D); bytes.append(0x0A); bytes.append(0x20)
                    used = 1
                }
                for offset in 0..<width { bytes.append(utf8[index + offset]) }
                used += width
                index += width
            }
        }
        bytes.append(0x0D)
        bytes.append(0x0A)
    }
}

/// Zero-padded decimal.
func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

func dateString(_ date: CivilDate) -> String { pad(date.year, 4) + pad(date.month, 2) + pad(date.day, 2) }

func timeString(_ minutes: Int) -> String { "T" + pad(minutes / 60, 2) + pad(minutes % 60, 2) + "00" }

/// TEXT escaping (RFC 5545 §3.3.11).
func escapeText(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count + 8)
    for character in text {
        switch character {
        case "\\": out += "\\\\"
        case ";": out += "\\;"
        case ",": out += "\\,"
        case "\n": out += "\\n"
        default: out.append(character)
        }
    }
    return out
}
