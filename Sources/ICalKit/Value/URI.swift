/// An RFC 5545 URI value (§3.3.13, RFC 3986), kept exactly as written.
///
/// Used by URL, TZURL, ATTACH;VALUE=URI and, through ``CalendarUserAddress``, by the
/// CAL-ADDRESS properties. Only the scheme and the absence of spaces and control
/// characters are checked; the rest is kept as written so it round-trips byte for byte.
/// libical keeps URIs as plain strings (`icalproperty_get_url`).
public struct URI: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The URI exactly as written.
    public let rawValue: String

    /// Wraps `rawValue`, or nil when it has no `scheme:` or holds spaces or control characters.
    public init?(rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Reads a URI value as written (same as ``init(rawValue:)``).
    public init?(iCalendar text: some StringProtocol) {
        self.init(rawValue: String(text))
    }

    /// The text as written.
    public var iCalendarText: String { rawValue }

    /// The scheme, lowercased (`mailto`, `https`).
    public var scheme: String {
        String(rawValue.prefix { $0 != ":" }).lowercased()
    }

    /// The part after `scheme:` (for `mailto:jane@example.com`, `jane@example.com`).
    public var schemeSpecificPart: String {
        guard let colon = rawValue.firstIndex(of: ":") else { return "" }
        return String(rawValue[rawValue.index(after: colon)...])
    }

    public var description: String { rawValue }

    /// `scheme ":" ...` with scheme = ALPHA *(ALPHA / DIGIT / "+" / "-" / "."); no spaces,
    /// no control characters.
    static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: ASCII.colon), colon > 0 else { return false }
        func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        guard isAlpha(bytes[0]) else { return false }
        for byte in bytes[1..<colon] {
            guard isAlpha(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E else {
                return false
            }
        }
        return !bytes.contains { $0 <= 0x20 || $0 == 0x7F }
    }
}
