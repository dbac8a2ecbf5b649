/// A list of RFC 5545 TEXT values (§3.3.11) separated by unescaped commas, as in
/// CATEGORIES and RESOURCES: `work,Q3\, planning` is `["work", "Q3, planning"]`.
///
/// For a single TEXT value use ``Property/textValue``.
public struct TextList: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The decoded values.
    public var values: [String]

    /// Creates a list.
    public init(_ values: [String]) { self.values = values }

    /// Creates a list from a literal.
    public init(arrayLiteral elements: String...) { self.values = elements }

    /// Reads a list: splits at unescaped commas and decodes each value.
    public init(iCalendar text: some StringProtocol) {
        values = TextCoding.splitList(String(text)).map(TextCoding.unescape)
    }

    /// The values escaped and joined by commas.
    public var iCalendarText: String { values.map(TextCoding.escape).joined(separator: ",") }

    public var description: String { iCalendarText }
}
