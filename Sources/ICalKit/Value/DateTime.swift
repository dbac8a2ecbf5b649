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
        let bytes = Array(text.utf8)
        guard DateSyntax.problem(String(text)) == nil else { return nil }
        guard let date = CalendarDate(iCalendar: String(decoding: bytes[0..<8], as: UTF8.self)) else { return nil }
        if bytes.count == 8 {
            self.init(date: date)
            return
        }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(bytes[$1] - 0x30) } }
        guard let time = TimeOfDay(hour: number(9..<11), minute: number(11..<13), second: number(13..<15)) else {
            return nil
        }
        let local = LocalDateTime(date: date, time: time)
        if bytes.count == 16 {
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
