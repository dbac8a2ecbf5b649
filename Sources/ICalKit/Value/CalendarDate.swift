/// A day in the proleptic Gregorian calendar: an RFC 5545 DATE (§3.3.4) without a zone.
public struct CalendarDate: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The year, 0...9999.
    public var year: Int
    /// The month, 1...12.
    public var month: Int
    /// The day of the month, 1...31.
    public var day: Int

    /// Creates a date, or nil when the day does not exist (`2024-02-31`).
    public init?(year: Int, month: Int, day: Int) {
        guard (0...9999).contains(year), (1...12).contains(month),
              (1...DateSyntax.daysInMonth(year: year, month: month)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    private init(unchecked year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Reads `YYYYMMDD`.
    public init?(iCalendar text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 8, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(bytes[$1] - 0x30) } }
        self.init(year: number(0..<4), month: number(4..<6), day: number(6..<8))
    }

    /// `YYYYMMDD`.
    public var iCalendarText: String {
        guard fitsFixedWidth else { return Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(day, 2) }
        return Self.fixedText(8) { text in
            Self.put(year, 4, into: text, at: 0)
            Self.put(month, 2, into: text, at: 4)
            Self.put(day, 2, into: text, at: 6)
        }
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        guard fitsFixedWidth else { return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))" }
        return Self.fixedText(10) { text in put(into: text, at: 0) }
    }

    /// Whether the fields fit four, two and two digits (always, unless set out of range).
    var fitsFixedWidth: Bool { (0...9999).contains(year) && (0...99).contains(month) && (0...99).contains(day) }

    /// Writes `YYYY-MM-DD` at `offset` (``fitsFixedWidth`` must hold).
    func put(into text: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        Self.put(year, 4, into: text, at: offset)
        text[offset + 4] = UInt8(ascii: "-")
        Self.put(month, 2, into: text, at: offset + 5)
        text[offset + 7] = UInt8(ascii: "-")
        Self.put(day, 2, into: text, at: offset + 8)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// A string of `count` ASCII bytes that `write` fills, made in one allocation (dates and
    /// times are written for every occurrence listed; interpolating padded parts made five
    /// strings for each).
    static func fixedText(_ count: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> String {
        String(unsafeUninitializedCapacity: count) { text in
            write(text)
            return count
        }
    }

    /// Writes `value`, from 0, as exactly `width` digits at `offset`.
    static func put(_ value: Int, _ width: Int, into text: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        // A plain countdown: `stride(from:through:by:)` is generic and was most of the cost
        // (this runs for every digit of every date written).
        var rest = value
        var index = offset + width
        while index > offset {
            index -= 1
            text[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }

    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int { Self.daysSinceEpoch(year: year, month: month, day: day) }

    /// Days since 1970-01-01 of a year, month and day that need not form a valid date
    /// (day 1 of any month always works). Howard Hinnant's days_from_civil.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` days after 1970-01-01. Howard Hinnant's civil_from_days.
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(unchecked: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The date `days` days later (or earlier, when negative).
    public func adding(days: Int) -> CalendarDate {
        CalendarDate(daysSinceEpoch: daysSinceEpoch + days)
    }

    /// The ISO weekday: 1 is Monday, 7 is Sunday.
    public var isoWeekday: Int {
        let weekday = (daysSinceEpoch + 3) % 7  // 1970-01-01 was a Thursday (ISO 4)
        return (weekday < 0 ? weekday + 7 : weekday) + 1
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// A wall-clock time of day, as in an RFC 5545 TIME (§3.3.12) without its zone.
public struct TimeOfDay: Sendable, Hashable, Codable, Comparable {
    /// 0...23.
    public var hour: Int
    /// 0...59.
    public var minute: Int
    /// 0...60 (60 only for a leap second, read as the next minute's 0 in arithmetic).
    public var second: Int

    /// Creates a time, or nil when it does not exist (hour 25).
    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Midnight.
    public static let midnight = TimeOfDay(hour: 0, minute: 0)!

    /// Seconds since midnight.
    public var secondsSinceMidnight: Int { hour * 3600 + minute * 60 + second }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
        lhs.secondsSinceMidnight < rhs.secondsSinceMidnight
    }
}

/// A date and a wall-clock time with no zone attached: what a clock on the wall shows.
public struct LocalDateTime: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The day.
    public var date: CalendarDate
    /// The time of day.
    public var time: TimeOfDay

    /// Creates a local date-time.
    public init(date: CalendarDate, time: TimeOfDay = .midnight) {
        self.date = date
        self.time = time
    }

    /// Creates a local date-time from its fields, or nil when it does not exist.
    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        guard let date = CalendarDate(year: year, month: month, day: day),
              let time = TimeOfDay(hour: hour, minute: minute, second: second) else { return nil }
        self.init(date: date, time: time)
    }

    /// Seconds since 1970-01-01T00:00:00 on the same wall clock, as if it were UTC.
    public var secondsSinceEpoch: Int64 {
        Int64(date.daysSinceEpoch) * 86_400 + Int64(time.secondsSinceMidnight)
    }

    /// The wall-clock time `seconds` seconds after 1970-01-01T00:00:00.
    public init(secondsSinceEpoch seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = Int(seconds - days * 86_400)
        self.init(date: CalendarDate(daysSinceEpoch: Int(days)),
                  time: TimeOfDay(hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60)!)
    }

    /// The same wall clock moved by `seconds` (no zone is involved).
    public func adding(seconds: Int64) -> LocalDateTime {
        LocalDateTime(secondsSinceEpoch: secondsSinceEpoch + seconds)
    }

    /// `YYYYMMDDTHHMMSS`.
    public var iCalendarText: String {
        guard fitsFixedWidth else {
            return date.iCalendarText + "T" + CalendarDate.pad(time.hour, 2) + CalendarDate.pad(time.minute, 2)
                + CalendarDate.pad(time.second, 2)
        }
        return CalendarDate.fixedText(15) { text in putICalendar(into: text, at: 0) }
    }

    /// Appends the bytes of ``iCalendarText``, followed by `Z` when `utc`, to `output`
    /// without making a string (the iCalendar output of a query writes one per time).
    func appendICalendarText(utc: Bool, to output: inout [UInt8]) {
        guard fitsFixedWidth else {
            output.append(contentsOf: iCalendarText.utf8)
            if utc { output.append(UInt8(ascii: "Z")) }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { text in
            putICalendar(into: text, at: 0)
            text[15] = UInt8(ascii: "Z")
            output.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<(utc ? 16 : 15)]))
        }
    }

    /// Writes `YYYYMMDDTHHMMSS` (15 bytes, fields that fit their widths) at `offset`.
    private func putICalendar(into text: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        CalendarDate.put(date.year, 4, into: text, at: offset)
        CalendarDate.put(date.month, 2, into: text, at: offset + 4)
        CalendarDate.put(date.day, 2, into: text, at: offset + 6)
        text[offset + 8] = UInt8(ascii: "T")
        CalendarDate.put(time.hour, 2, into: text, at: offset + 9)
        CalendarDate.put(time.minute, 2, into: text, at: offset + 11)
        CalendarDate.put(time.second, 2, into: text, at: offset + 13)
    }

    /// `YYYY-MM-DDTHH:MM:SS`.
    public var description: String {
        guard fitsFixedWidth else {
            return "\(date)T\(CalendarDate.pad(time.hour, 2)):\(CalendarDate.pad(time.minute, 2)):\(CalendarDate.pad(time.second, 2))"
        }
        return CalendarDate.fixedText(19) { text in put(into: text, at: 0) }
    }

    /// Writes `YYYY-MM-DDTHH:MM:SS` (19 bytes) at `offset`; the date must fit four, two and
    /// two digits (``CalendarDate/fitsFixedWidth``), the time is a valid time of day.
    func put(into text: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        date.put(into: text, at: offset)
        text[offset + 10] = UInt8(ascii: "T")
        CalendarDate.put(time.hour, 2, into: text, at: offset + 11)
        text[offset + 13] = UInt8(ascii: ":")
        CalendarDate.put(time.minute, 2, into: text, at: offset + 14)
        text[offset + 16] = UInt8(ascii: ":")
        CalendarDate.put(time.second, 2, into: text, at: offset + 17)
    }

    /// Whether every field fits its digits (always, unless set out of range).
    private var fitsFixedWidth: Bool {
        date.fitsFixedWidth && (0...99).contains(time.hour) && (0...99).contains(time.minute) && (0...99).contains(time.second)
    }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        (lhs.date, lhs.time) < (rhs.date, rhs.time)
    }
}
