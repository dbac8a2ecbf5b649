/// The value type of a property in jCal: the third element of a property array
/// (`"date-time"`, `"text"`, `"unknown"`), always lowercase.
///
/// In iCalendar a property's type is its default (RFC 5545 §3.7-§3.8, RFC 7986 §5,
/// RFC 9073 §6) unless a `VALUE` parameter overrides it; in jCal the type is always
/// written and the `VALUE` parameter is not. ``type(of:)`` makes that choice for a
/// property, and ``defaultType(for:)`` gives the table. Properties nobody registered
/// (X- names and unknown IANA names) have no default: their type is ``unknown`` and their
/// value travels as the text written (RFC 7265 §5).
///
/// An open set: `VALUE=X-SOMETHING` gives the type `"x-something"`, whose value is kept as
/// its text.
///
/// See RFC 7265 §3.4.
public struct JCalValueType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The type name, lowercased.
    public let rawValue: String
    /// Creates a type from a name in any case.
    public init(rawValue: String) { self.rawValue = JCalValueType.lowercased(rawValue) }
    public var description: String { rawValue }

    public static let binary = JCalValueType(rawValue: "binary")
    public static let boolean = JCalValueType(rawValue: "boolean")
    public static let calendarAddress = JCalValueType(rawValue: "cal-address")
    public static let date = JCalValueType(rawValue: "date")
    public static let dateTime = JCalValueType(rawValue: "date-time")
    public static let duration = JCalValueType(rawValue: "duration")
    public static let float = JCalValueType(rawValue: "float")
    public static let integer = JCalValueType(rawValue: "integer")
    public static let period = JCalValueType(rawValue: "period")
    public static let recurrenceRule = JCalValueType(rawValue: "recur")
    public static let text = JCalValueType(rawValue: "text")
    public static let time = JCalValueType(rawValue: "time")
    public static let uri = JCalValueType(rawValue: "uri")
    public static let utcOffset = JCalValueType(rawValue: "utc-offset")
    /// The type of a property whose type is not known (RFC 7265 §5): the value is the
    /// iCalendar text exactly as written.
    public static let unknown = JCalValueType(rawValue: "unknown")

    /// The value types RFC 5545 §3.3 defines; any other name (an X- type) is carried as text.
    static let registered: Set<JCalValueType> = [
        .binary, .boolean, .calendarAddress, .date, .dateTime, .duration, .float, .integer,
        .period, .recurrenceRule, .text, .time, .uri, .utcOffset,
    ]

    /// The name as written in a `VALUE` parameter: uppercase.
    public var parameterValue: String { ASCII.uppercased(rawValue) }

    /// The default value type of a property (RFC 5545, RFC 7986, RFC 9073, RFC 7953,
    /// RFC 9074, RFC 7808, RFC 9253), or ``unknown`` for names without a registered type.
    public static func defaultType(for property: PropertyKind) -> JCalValueType {
        defaults[property] ?? .unknown
    }

    /// Whether a property has no default value type, so iCalendar must always name its type
    /// in a `VALUE` parameter: RFC 7986's IMAGE, CONFERENCE, SOURCE and REFRESH-INTERVAL
    /// ("no default"), and RFC 9073's STYLED-DESCRIPTION and STRUCTURED-DATA. Their
    /// ``defaultType(for:)`` is only the type assumed when a file leaves VALUE out.
    public static func requiresValueParameter(_ property: PropertyKind) -> Bool {
        withoutDefault.contains(property)
    }

    private static let withoutDefault: Set<PropertyKind> = [
        "IMAGE", "CONFERENCE", "SOURCE", "REFRESH-INTERVAL", "STYLED-DESCRIPTION", "STRUCTURED-DATA",
    ]

    /// The type a property has: its `VALUE` parameter when it has one (decoded, any case),
    /// else ``defaultType(for:)``.
    public static func type(of property: Property) -> JCalValueType {
        if let value = property.parameter(.valueType)?.value { return JCalValueType(rawValue: value) }
        return defaultType(for: property.kind)
    }

    /// Whether a property's value is a comma-separated list, written in jCal as one
    /// array element per value (RFC 7265 §3.4.1.2): CATEGORIES, RESOURCES, RDATE, EXDATE,
    /// FREEBUSY and RFC 9073's LOCATION-TYPE.
    public static func isMultiValued(_ property: PropertyKind) -> Bool {
        multiValued.contains(property)
    }

    private static let multiValued: Set<PropertyKind> = [
        .categories, .resources, .recurrenceDates, .exceptionDates, .freeBusy, "LOCATION-TYPE",
    ]

    private static let defaults: [PropertyKind: JCalValueType] = [
        // RFC 5545 §3.7 calendar properties
        .calendarScale: .text, .method: .text, .productIdentifier: .text, .version: .text,
        // §3.8.1 descriptive
        .attachment: .uri, .categories: .text, .classification: .text, .comment: .text,
        .description: .text, .geographicPosition: .float, .location: .text,
        .percentComplete: .integer, .priority: .integer, .resources: .text, .status: .text,
        .summary: .text,
        // §3.8.2 date and time
        .dateTimeCompleted: .dateTime, .dateTimeEnd: .dateTime, .dateTimeDue: .dateTime,
        .dateTimeStart: .dateTime, .duration: .duration, .freeBusy: .period,
        .timeTransparency: .text,
        // §3.8.3 time zone
        .timeZoneIdentifier: .text, .timeZoneName: .text, .timeZoneOffsetFrom: .utcOffset,
        .timeZoneOffsetTo: .utcOffset, .timeZoneURL: .uri,
        // §3.8.4 relationship
        .attendee: .calendarAddress, .contact: .text, .organizer: .calendarAddress,
        .recurrenceIdentifier: .dateTime, .relatedTo: .text, .url: .uri, .uniqueIdentifier: .text,
        // §3.8.5 recurrence (EXRULE from RFC 2445)
        .exceptionDates: .dateTime, .exceptionRule: .recurrenceRule, .recurrenceDates: .dateTime,
        .recurrenceRule: .recurrenceRule,
        // §3.8.6 alarm
        .action: .text, .repeatCount: .integer, .trigger: .duration,
        // §3.8.7 change management
        .created: .dateTime, .dateTimeStamp: .dateTime, .lastModified: .dateTime, .sequence: .integer,
        // §3.8.8 miscellaneous
        .requestStatus: .text,
        // RFC 7986 §5
        .name: .text, "REFRESH-INTERVAL": .duration, "SOURCE": .uri, .color: .text,
        "IMAGE": .uri, "CONFERENCE": .uri,
        // RFC 9073 §6
        "LOCATION-TYPE": .text, "PARTICIPANT-TYPE": .text, "RESOURCE-TYPE": .text,
        "CALENDAR-ADDRESS": .calendarAddress, "STYLED-DESCRIPTION": .text, "STRUCTURED-DATA": .text,
        // RFC 7953 §3.2, RFC 9074 §6, RFC 7808 §7, RFC 9253 §6-§8
        "BUSYTYPE": .text, "ACKNOWLEDGED": .dateTime, "PROXIMITY": .text,
        "TZUNTIL": .dateTime, "TZID-ALIAS-OF": .text,
        "LINK": .uri, "CONCEPT": .uri, "REFID": .text,
    ]

    private static func lowercased(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return name }
        return String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// Lowercases ASCII letters (jCal names are lowercase; RFC 7265 §3.3).
    static func lowercasedName(_ name: String) -> String { lowercased(name) }
}
