/// A component name, compared without regard to case (RFC 5545 §3.4, §3.6).
///
/// An open set: any IANA or X- name works (`ComponentKind(rawValue: "X-FOO")`).
public struct ComponentKind: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    /// The name, uppercased.
    public let rawValue: String
    /// Creates a kind from a name in any case.
    public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
    /// Creates a kind from a literal name.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public static let calendar: ComponentKind = "VCALENDAR"
    public static let event: ComponentKind = "VEVENT"
    public static let todo: ComponentKind = "VTODO"
    public static let journal: ComponentKind = "VJOURNAL"
    public static let freeBusy: ComponentKind = "VFREEBUSY"
    public static let timeZone: ComponentKind = "VTIMEZONE"
    public static let standard: ComponentKind = "STANDARD"
    public static let daylight: ComponentKind = "DAYLIGHT"
    public static let alarm: ComponentKind = "VALARM"
    public static let availability: ComponentKind = "VAVAILABILITY"
    public static let available: ComponentKind = "AVAILABLE"
    public static let participant: ComponentKind = "PARTICIPANT"
    public static let location: ComponentKind = "VLOCATION"
    public static let resource: ComponentKind = "VRESOURCE"

    /// The kinds RFC 5545 (and RFC 7953, RFC 9073) allow as this kind's parent, or nil when
    /// the kind is unknown or experimental and may stand anywhere.
    var allowedParents: Set<ComponentKind>? {
        // The reader asks at every BEGIN: the sets are built once.
        switch self {
        case .calendar: return Self.noParents
        case .event, .todo, .journal, .freeBusy, .timeZone, .availability: return Self.calendarParent
        case .standard, .daylight: return Self.timeZoneParent
        case .alarm: return Self.alarmParents
        case .available: return Self.availabilityParent
        default: return nil
        }
    }

    private static let noParents: Set<ComponentKind> = []
    private static let calendarParent: Set<ComponentKind> = [.calendar]
    private static let timeZoneParent: Set<ComponentKind> = [.timeZone]
    private static let alarmParents: Set<ComponentKind> = [.event, .todo]
    private static let availabilityParent: Set<ComponentKind> = [.availability]
}
