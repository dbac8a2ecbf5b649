/// A parameter name, compared without regard to case (RFC 5545 §3.2).
///
/// An open set: any IANA or X- name works (`ParameterKind(rawValue: "X-FOO")`).
public struct ParameterKind: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    /// The name, uppercased.
    public let rawValue: String
    /// Creates a kind from a name in any case.
    public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
    /// Creates a kind from a literal name.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public static let altRepresentation: ParameterKind = "ALTREP"
    public static let commonName: ParameterKind = "CN"
    public static let calendarUserType: ParameterKind = "CUTYPE"
    public static let delegatedFrom: ParameterKind = "DELEGATED-FROM"
    public static let delegatedTo: ParameterKind = "DELEGATED-TO"
    public static let directory: ParameterKind = "DIR"
    public static let encoding: ParameterKind = "ENCODING"
    public static let formatType: ParameterKind = "FMTTYPE"
    public static let freeBusyType: ParameterKind = "FBTYPE"
    public static let language: ParameterKind = "LANGUAGE"
    public static let member: ParameterKind = "MEMBER"
    public static let participationStatus: ParameterKind = "PARTSTAT"
    public static let range: ParameterKind = "RANGE"
    public static let related: ParameterKind = "RELATED"
    public static let relationshipType: ParameterKind = "RELTYPE"
    public static let role: ParameterKind = "ROLE"
    public static let rsvp: ParameterKind = "RSVP"
    public static let sentBy: ParameterKind = "SENT-BY"
    public static let timeZoneIdentifier: ParameterKind = "TZID"
    public static let valueType: ParameterKind = "VALUE"
}
