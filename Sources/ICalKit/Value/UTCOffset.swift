/// An RFC 5545 UTC-OFFSET (§3.3.14): `+HHMM` or `-HHMMSS`, as in TZOFFSETFROM and TZOFFSETTO.
///
/// `-0000` is not allowed (RFC 5545 §3.3.14); `+0000` is UTC. Offsets range up to
/// ±23:59:59. In libical the value is an `int` number of seconds
/// (`icalproperty_get_tzoffsetfrom`).
public struct UTCOffset: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The offset east of UTC in seconds (negative west of it).
    public var seconds: Int

    /// Creates an offset, or nil beyond ±23:59:59.
    public init?(seconds: Int) {
        guard abs(seconds) < 86_400 else { return nil }
        self.seconds = seconds
    }

    /// Creates an offset from hours, minutes and seconds; the sign of `hours` (or of
    /// `minutes` when hours is 0) applies to the whole offset.
    public init?(hours: Int, minutes: Int = 0, seconds: Int = 0) {
        guard (0...59).contains(abs(minutes)), (0...59).contains(abs(seconds)) else { return nil }
        let negative = hours < 0 || (hours == 0 && (minutes < 0 || (minutes == 0 && seconds < 0)))
        let magnitude = abs(hours) * 3600 + abs(minutes) * 60 + abs(seconds)
        self.init(seconds: negative ? -magnitude : magnitude)
    }

    /// UTC: `+0000`.
    public static let zero = UTCOffset(seconds: 0)!

    /// Reads `+HHMM` or `±HHMMSS`; nil for anything else. `-0000`, which RFC 5545 forbids
    /// but Outlook writes for its GMT zones, reads as `+0000` (``warning(_:)`` says so).
    public init?(iCalendar text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 5 || bytes.count == 7,
              bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
              bytes.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        func number(_ at: Int) -> Int { Int(bytes[at] - 0x30) * 10 + Int(bytes[at + 1] - 0x30) }
        let hours = number(1), minutes = number(3), seconds = bytes.count == 7 ? number(5) : 0
        guard hours <= 23, minutes <= 59, seconds <= 59 else { return nil }
        let magnitude = hours * 3600 + minutes * 60 + seconds
        self.init(seconds: bytes[0] == UInt8(ascii: "-") ? -magnitude : magnitude)
    }

    /// `+0100`, `-0500`, `+053028` (seconds only when not zero).
    public var iCalendarText: String {
        let magnitude = abs(seconds)
        var text = (seconds < 0 ? "-" : "+") + CalendarDate.pad(magnitude / 3600, 2) + CalendarDate.pad(magnitude % 3600 / 60, 2)
        if magnitude % 60 != 0 { text += CalendarDate.pad(magnitude % 60, 2) }
        return text
    }

    public var description: String { iCalendarText }

    public static func < (lhs: UTCOffset, rhs: UTCOffset) -> Bool { lhs.seconds < rhs.seconds }
}

extension UTCOffset {
    /// Why `text` is not a UTC-OFFSET, or nil when it is one.
    static func problem(_ text: String) -> String? {
        if UTCOffset(iCalendar: text) != nil { return nil }
        return "expected +HHMM or -HHMMSS with hours 00...23"
    }

    /// What is wrong with a UTC-OFFSET that is read anyway: `-0000` (RFC 5545 §3.3.14 forbids
    /// it; Outlook writes it for GMT Standard Time).
    static func warning(_ text: String) -> String? {
        text == "-0000" || text == "-000000" ? "RFC 5545 does not allow -0000 (Outlook writes it for GMT); read as +0000" : nil
    }
}

extension UTCOffset {
    /// An offset in ISO 8601 form: `+01:00`, `-05:30`, `+00:00`; seconds only when not zero
    /// (`+00:53:28`).
    static func isoText(seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        if magnitude < 100 * 3600 {
            let withSeconds = magnitude % 60 != 0
            return CalendarDate.fixedText(withSeconds ? 9 : 6) { text in
                text[0] = seconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
                CalendarDate.put(magnitude / 3600, 2, into: text, at: 1)
                text[3] = UInt8(ascii: ":")
                CalendarDate.put(magnitude % 3600 / 60, 2, into: text, at: 4)
                if withSeconds {
                    text[6] = UInt8(ascii: ":")
                    CalendarDate.put(magnitude % 60, 2, into: text, at: 7)
                }
            }
        }
        var text = sign + CalendarDate.pad(magnitude / 3600, 2) + ":" + CalendarDate.pad(magnitude % 3600 / 60, 2)
        if magnitude % 60 != 0 { text += ":" + CalendarDate.pad(magnitude % 60, 2) }
        return text
    }
}
