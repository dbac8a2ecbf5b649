/// An RFC 5545 GEO value (§3.8.1.6): latitude and longitude in degrees, `37.386013;-122.082932`.
///
/// The corresponding libical type is `struct icalgeotype`
/// (`icalproperty_get_geo`).
public struct GeographicPosition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Degrees north (negative south), -90...90.
    public var latitude: Double
    /// Degrees east (negative west), -180...180.
    public var longitude: Double

    /// Creates a position, or nil when a coordinate is out of range or not finite.
    public init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            return nil
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Reads `lat;lon`, each an RFC 5545 FLOAT (§3.3.7); nil when malformed or out of range.
    public init?(iCalendar text: some StringProtocol) {
        let halves = String(text).split(separator: ";", omittingEmptySubsequences: false)
        guard halves.count == 2, let latitude = Self.float(halves[0]), let longitude = Self.float(halves[1]) else {
            return nil
        }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// `37.386013;-122.082932`.
    public var iCalendarText: String { Self.format(latitude) + ";" + Self.format(longitude) }

    public var description: String { iCalendarText }

    /// Reads FLOAT: `["+" / "-"] 1*DIGIT ["." 1*DIGIT]`.
    static func float(_ text: Substring) -> Double? {
        var rest = text.utf8[...]
        if let first = rest.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        let parts = rest.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } })
        else { return nil }
        return Double(String(text).hasPrefix("+") ? String(text.dropFirst()) : String(text))
    }

    /// Writes a FLOAT without exponent: `37.386013`, `0.00001`, `-122.0`.
    static func format(_ value: Double) -> String {
        let text = value.description
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else { return text }
        let exponent = Int(text[text.index(after: e)...]) ?? 0
        var mantissa = String(text[..<e])
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa.removeFirst() }
        let pointIndex = mantissa.firstIndex(of: ".")
        let integerDigits = pointIndex.map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        let digits = mantissa.filter { $0 != "." }
        let position = integerDigits + exponent
        var result: String
        if position <= 0 {
            result = "0." + String(repeating: "0", count: -position) + digits
        } else if position >= digits.count {
            result = digits + String(repeating: "0", count: position - digits.count) + ".0"
        } else {
            result = String(digits.prefix(position)) + "." + String(digits.dropFirst(position))
        }
        if result.contains(".") && !result.hasSuffix(".0") {
            while result.hasSuffix("0") { result.removeLast() }
            if result.hasSuffix(".") { result += "0" }
        }
        return (negative ? "-" : "") + result
    }
}
