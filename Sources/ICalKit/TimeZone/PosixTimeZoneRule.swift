/// A POSIX TZ rule such as `CET-1CEST,M3.5.0,M10.5.0/3`, as found in the footer of a
/// TZif file (RFC 8536 §3.3, with its extensions: hours up to 167 and negative times).
/// It gives the offsets for every instant after the file's last transition.
struct PosixTimeZoneRule: Sendable, Hashable {
    /// A day of the year in a rule.
    enum Day: Sendable, Hashable {
        /// `Jn`: day 1...365, February 29 never counted.
        case julian(Int)
        /// `n`: day 0...365, February 29 counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday d (0 is Sunday) of week w (5 is the last) of month m.
        case monthWeekDay(month: Int, week: Int, weekday: Int)

        func date(inYear year: Int) -> CalendarDate {
            let firstDay = CalendarDate.daysSinceEpoch(year: year, month: 1, day: 1)
            switch self {
            case .julian(let day):
                let leap = DateSyntax.daysInMonth(year: year, month: 2) == 29
                return CalendarDate(daysSinceEpoch: firstDay + day - 1 + (leap && day >= 60 ? 1 : 0))
            case .zeroBased(let day):
                return CalendarDate(daysSinceEpoch: firstDay + day)
            case .monthWeekDay(let month, let week, let weekday):
                let first = CalendarDate.daysSinceEpoch(year: year, month: month, day: 1)
                let firstWeekday = CalendarDate(daysSinceEpoch: first).isoWeekday % 7  // 0 is Sunday
                var day = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
                let length = DateSyntax.daysInMonth(year: year, month: month)
                while day > length { day -= 7 }
                return CalendarDate(daysSinceEpoch: first + day - 1)
            }
        }
    }

    var standard: LocalTimeType
    var daylight: LocalTimeType?
    var start: Day = .monthWeekDay(month: 3, week: 2, weekday: 0)
    var startTime = 7200
    var end: Day = .monthWeekDay(month: 11, week: 1, weekday: 0)
    var endTime = 7200

    /// Reads a rule; nil when the text is not one.
    init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard let standardName = scanner.name(), let standardOffset = scanner.time(maxHours: 24) else { return nil }
        standard = LocalTimeType(offset: -standardOffset, isDaylight: false, abbreviation: standardName)
        if scanner.atEnd { return }
        guard let daylightName = scanner.name() else { return nil }
        var daylightOffset = standard.offset + 3600
        if !scanner.atEnd && scanner.peek != UInt8(ascii: ",") {
            guard let offset = scanner.time(maxHours: 24) else { return nil }
            daylightOffset = -offset
        }
        daylight = LocalTimeType(offset: daylightOffset, isDaylight: true, abbreviation: daylightName)
        if scanner.atEnd { return }  // POSIX leaves the rule to the implementation: US rules.
        guard scanner.take(UInt8(ascii: ",")), let start = scanner.day() else { return nil }
        self.start = start
        if scanner.take(UInt8(ascii: "/")) {
            guard let time = scanner.time(maxHours: 167) else { return nil }
            startTime = time
        }
        guard scanner.take(UInt8(ascii: ",")), let end = scanner.day() else { return nil }
        self.end = end
        if scanner.take(UInt8(ascii: "/")) {
            guard let time = scanner.time(maxHours: 167) else { return nil }
            endTime = time
        }
        guard scanner.atEnd else { return nil }
    }

    /// The changes the rule makes in one calendar year, in order.
    func changes(inYear year: Int) -> [(instant: Int64, type: LocalTimeType)] {
        guard let daylight else { return [] }
        let begin = Int64(start.date(inYear: year).daysSinceEpoch) * 86_400 + Int64(startTime) - Int64(standard.offset)
        let finish = Int64(end.date(inYear: year).daysSinceEpoch) * 86_400 + Int64(endTime) - Int64(daylight.offset)
        let changes = [(instant: begin, type: daylight), (instant: finish, type: standard)]
        return begin <= finish ? changes : changes.reversed()
    }

    /// Every change with an instant in `lower...upper`, in order.
    func transitions(from lower: Int64, through upper: Int64) -> [(instant: Int64, type: LocalTimeType)] {
        guard daylight != nil, lower <= upper else { return [] }
        let firstYear = Self.year(of: lower) - 1
        let lastYear = Self.year(of: upper) + 1
        guard firstYear <= lastYear else { return [] }
        var result: [(instant: Int64, type: LocalTimeType)] = []
        for year in firstYear...lastYear {
            for change in changes(inYear: year) where change.instant >= lower && change.instant <= upper {
                result.append(change)
            }
        }
        return result
    }

    /// The local time type in force at an instant.
    func type(atInstant instant: Int64) -> LocalTimeType {
        guard let daylight else { return standard }
        let year = Self.year(of: instant)
        var current: LocalTimeType?
        for candidate in (year - 1)...(year + 1) {
            for change in changes(inYear: candidate) where change.instant <= instant {
                current = change.type
            }
        }
        return current ?? (changes(inYear: year).first?.type == daylight ? standard : daylight)
    }

    /// The calendar year of an instant, clamped to a range where date arithmetic is safe.
    static func year(of instant: Int64) -> Int {
        let clamped = min(max(instant, -50_000_000_000_000), 50_000_000_000_000)
        let days = clamped >= 0 ? clamped / 86_400 : (clamped - 86_399) / 86_400
        return CalendarDate(daysSinceEpoch: Int(days)).year
    }

    /// Reads the parts of a POSIX TZ string.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[index] }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        /// `EST` (three or more letters) or `<+0530>` (quoted).
        mutating func name() -> String? {
            let begin = index
            if take(UInt8(ascii: "<")) {
                while let byte = peek, byte != UInt8(ascii: ">") { index += 1 }
                guard take(UInt8(ascii: ">")) else { return nil }
                let name = String(decoding: bytes[(begin + 1)..<(index - 1)], as: UTF8.self)
                return name.isEmpty ? nil : name
            }
            while let byte = peek, (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") { index += 1 }
            guard index - begin >= 3 else { return nil }
            return String(decoding: bytes[begin..<index], as: UTF8.self)
        }

        /// `[+-]hh[:mm[:ss]]` in seconds.
        mutating func time(maxHours: Int) -> Int? {
            var sign = 1
            if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
            guard let hours = number(maxDigits: 3), hours <= maxHours else { return nil }
            var seconds = hours * 3600
            if take(UInt8(ascii: ":")) {
                guard let minutes = number(maxDigits: 2), minutes < 60 else { return nil }
                seconds += minutes * 60
                if take(UInt8(ascii: ":")) {
                    guard let extra = number(maxDigits: 2), extra < 60 else { return nil }
                    seconds += extra
                }
            }
            return sign * seconds
        }

        /// `Jn`, `n` or `Mm.w.d`.
        mutating func day() -> Day? {
            if take(UInt8(ascii: "J")) {
                guard let day = number(maxDigits: 3), (1...365).contains(day) else { return nil }
                return .julian(day)
            }
            if take(UInt8(ascii: "M")) {
                guard let month = number(maxDigits: 2), (1...12).contains(month), take(UInt8(ascii: ".")),
                      let week = number(maxDigits: 1), (1...5).contains(week), take(UInt8(ascii: ".")),
                      let weekday = number(maxDigits: 1), (0...6).contains(weekday) else { return nil }
                return .monthWeekDay(month: month, week: week, weekday: weekday)
            }
            guard let day = number(maxDigits: 3), (0...365).contains(day) else { return nil }
            return .zeroBased(day)
        }

        mutating func number(maxDigits: Int) -> Int? {
            var value = 0
            var digits = 0
            while let byte = peek, byte >= 0x30, byte <= 0x39, digits < maxDigits {
                value = value * 10 + Int(byte - 0x30)
                digits += 1
                index += 1
            }
            return digits == 0 ? nil : value
        }
    }
}

