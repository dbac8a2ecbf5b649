/// A property name, compared without regard to case (RFC 5545 §3.7, §3.8).
///
/// An open set: any IANA or X- name works (`PropertyKind(rawValue: "X-WR-CALNAME")`).
public struct PropertyKind: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    /// The name, uppercased.
    public let rawValue: String
    /// Creates a kind from a name in any case.
    public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
    /// Creates a kind from a literal name.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// Whether this is an experimental `X-` name.
    public var isExperimental: Bool { rawValue.hasPrefix("X-") }

    // Calendar properties (§3.7)
    public static let calendarScale: PropertyKind = "CALSCALE"
    public static let method: PropertyKind = "METHOD"
    public static let productIdentifier: PropertyKind = "PRODID"
    public static let version: PropertyKind = "VERSION"
    // Descriptive (§3.8.1)
    public static let attachment: PropertyKind = "ATTACH"
    public static let categories: PropertyKind = "CATEGORIES"
    public static let classification: PropertyKind = "CLASS"
    public static let comment: PropertyKind = "COMMENT"
    public static let description: PropertyKind = "DESCRIPTION"
    public static let geographicPosition: PropertyKind = "GEO"
    public static let location: PropertyKind = "LOCATION"
    public static let percentComplete: PropertyKind = "PERCENT-COMPLETE"
    public static let priority: PropertyKind = "PRIORITY"
    public static let resources: PropertyKind = "RESOURCES"
    public static let status: PropertyKind = "STATUS"
    public static let summary: PropertyKind = "SUMMARY"
    // Date and time (§3.8.2)
    public static let dateTimeCompleted: PropertyKind = "COMPLETED"
    public static let dateTimeEnd: PropertyKind = "DTEND"
    public static let dateTimeDue: PropertyKind = "DUE"
    public static let dateTimeStart: PropertyKind = "DTSTART"
    public static let duration: PropertyKind = "DURATION"
    public static let freeBusy: PropertyKind = "FREEBUSY"
    public static let timeTransparency: PropertyKind = "TRANSP"
    // Time zone (§3.8.3)
    public static let timeZoneIdentifier: PropertyKind = "TZID"
    public static let timeZoneName: PropertyKind = "TZNAME"
    public static let timeZoneOffsetFrom: PropertyKind = "TZOFFSETFROM"
    public static let timeZoneOffsetTo: PropertyKind = "TZOFFSETTO"
    public static let timeZoneURL: PropertyKind = "TZURL"
    // Relationship (§3.8.4)
    public static let attendee: PropertyKind = "ATTENDEE"
    public static let contact: PropertyKind = "CONTACT"
    public static let organizer: PropertyKind = "ORGANIZER"
    public static let recurrenceIdentifier: PropertyKind = "RECURRENCE-ID"
    public static let relatedTo: PropertyKind = "RELATED-TO"
    public static let url: PropertyKind = "URL"
    public static let uniqueIdentifier: PropertyKind = "UID"
    // Recurrence (§3.8.5)
    public static let exceptionDates: PropertyKind = "EXDATE"
    public static let exceptionRule: PropertyKind = "EXRULE"
    public static let recurrenceDates: PropertyKind = "RDATE"
    public static let recurrenceRule: PropertyKind = "RRULE"
    // Alarm (§3.8.6)
    public static let action: PropertyKind = "ACTION"
    public static let repeatCount: PropertyKind = "REPEAT"
    public static let trigger: PropertyKind = "TRIGGER"
    // Change management (§3.8.7)
    public static let created: PropertyKind = "CREATED"
    public static let dateTimeStamp: PropertyKind = "DTSTAMP"
    public static let lastModified: PropertyKind = "LAST-MODIFIED"
    public static let sequence: PropertyKind = "SEQUENCE"
    // Miscellaneous (§3.8.8)
    public static let requestStatus: PropertyKind = "REQUEST-STATUS"
    // RFC 7986
    public static let color: PropertyKind = "COLOR"
    public static let name: PropertyKind = "NAME"
    // Common extensions
    public static let calendarName: PropertyKind = "X-WR-CALNAME"
    public static let calendarTimeZone: PropertyKind = "X-WR-TIMEZONE"
}
