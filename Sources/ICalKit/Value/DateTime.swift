/// An RFC 5545 DATE or DATE-TIME value with the way its zone is given: a DATE, a floating
/// local time, a UTC time, or a local time in a named zone (TZID).
///
/// This is the value as written; turning it into an instant needs the zone's rules (see
/// ``TimeZoneRules``). The TZID is kept exactly as written (including vendor prefixes and
/// quotes removed by the parameter decoding), so writing it back loses nothing.
///
/// See RFC 5545 §3.3.4 and §3.3.5.
public struct DateTime: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How a value's zone is given.
    public enum Zone: Sendable, Hashable, Codable {
        /// A local time read in whatever zone the reader chooses (form #1), and every DATE.
        case floating
        /// UTC, written with a trailing `Z` (form #2).
        case utc
        /// A local time in the zone the TZID names (form #3), the TZID exactly as written.
        case identifier(String)
    }

    /// The wall-clock date and time (midnight for a DATE).
    public var local: LocalDateTime
    /// Whether this is a DATE (an all-day value) rather than a DATE-TIME.
    public var isDate: Bool
    /// How the zone is given (always ``Zone/floating`` for a DATE).
    public var zone: Zone

    /// Creates a DATE-TIME.
    public init(_ local: LocalDateTime, zone: Zone = .floating) {
        self.local = local
        self.isDate = false
        self.zone = zone
    }

    /// Creates a DATE.
    public init(date: CalendarDate) {
        self.local = LocalDateTime(date: date)
        self.isDate = true
        self.zone = .floating
    }

    /// Reads a value as written: `YYYYMMDD`, `YYYYMMDDTHHMMSS` or `YYYYMMDDTHHMMSSZ`, with the
    /// property's TZID parameter, if any. A TZID on a UTC or DATE value is ignored, as
    /// RFC 5545 says it must not be there. Returns nil for text that is not a real date.
    public init?(iCalendar text: some StringProtocol, timeZoneIdentifier: String? = nil) {
        // The DateSyntax grammar (8, 15 or 16 ASCII bytes naming a real day and time), read
        // straight from the UTF-8 bytes: this runs for every DTSTART, DTEND, EXDATE and
        // RECURRENCE-ID of a query, so it allocates nothing.
        let utf8 = text.utf8
        let count = utf8.count
        // A DATE written with a 'Z' (`20121210Z`, Google birthday exports) is the date: a
        // DATE has no zone to be in (the reader warns about it).
        guard count == 8 || count == 9 || count == 15 || count == 16 else { return nil }
        var bytes: (UInt64, UInt64) = (0, 0)
        var index = 0
        for byte in utf8 {
            if index < 8 {
                bytes.0 |= UInt64(byte) << (8 * UInt64(index))
            } else {
                bytes.1 |= UInt64(byte) << (8 * UInt64(index - 8))
            }
            index += 1
        }
        @inline(__always) func byte(_ position: Int) -> UInt8 {
            position < 8 ? UInt8(truncatingIfNeeded: bytes.0 >> (8 * UInt64(position)))
                : UInt8(truncatingIfNeeded: bytes.1 >> (8 * UInt64(position - 8)))
        }
        @inline(__always) func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for position in range {
                let digit = byte(position)
                guard digit >= 0x30 && digit <= 0x39 else { return nil }
                value = value * 10 + Int(digit - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
              (1...12).contains(month), (1...DateSyntax.daysInMonth(year: year, month: month)).contains(day),
              let date = CalendarDate(year: year, month: month, day: day) else { return nil }
        if count == 8 || (count == 9 && byte(8) == UInt8(ascii: "Z")) {
            self.init(date: date)
            return
        }
        guard byte(8) == UInt8(ascii: "T"), let hour = number(9..<11), let minute = number(11..<13),
              let second = number(13..<15), count == 15 || byte(15) == UInt8(ascii: "Z"),
              let time = TimeOfDay(hour: hour, minute: minute, second: second) else { return nil }
        let local = LocalDateTime(date: date, time: time)
        if count == 16 {
            self.init(local, zone: .utc)
        } else if let timeZoneIdentifier, !timeZoneIdentifier.isEmpty {
            self.init(local, zone: .identifier(timeZoneIdentifier))
        } else {
            self.init(local, zone: .floating)
        }
    }

    /// The value as written: `YYYYMMDD`, `YYYYMMDDTHHMMSS` or `YYYYMMDDTHHMMSSZ`.
    public var iCalendarText: String {
        if isDate { return local.date.iCalendarText }
        return local.iCalendarText + (zone == .utc ? "Z" : "")
    }

    /// Appends the bytes of ``iCalendarText`` to `output`, without making a string.
    func appendICalendarText(to output: inout [UInt8]) {
        if isDate {
            output.append(contentsOf: local.date.iCalendarText.utf8)
        } else {
            local.appendICalendarText(utc: zone == .utc, to: &output)
        }
    }

    /// The TZID to write as the property's parameter, if any.
    public var timeZoneIdentifier: String? {
        if case .identifier(let identifier) = zone { return identifier }
        return nil
    }

    /// Whether the value is floating (a floating DATE-TIME or any DATE).
    public var isFloating: Bool { zone == .floating }

    /// The date part.
    public var date: CalendarDate { local.date }

    /// `2024-03-10`, `2024-03-10T02:30:00`, `2024-03-10T02:30:00Z` or
    /// `2024-03-10T02:30:00 [America/New_York]`.
    public var description: String {
        if isDate { return local.date.description }
        switch zone {
        case .floating: return local.description
        case .utc: return local.description + "Z"
        case .identifier(let identifier): return "\(local) [\(identifier)]"
        }
    }
}
