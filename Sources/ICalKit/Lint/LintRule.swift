/// The name of a check ``Linter`` makes, printed in brackets by `ical validate`
/// (`[missing-uid]`). Problems found while reading carry the reader's
/// ``ICalError/Code-swift.struct`` as their rule (`[syntax]`, `[invalid-value]`, …).
public struct LintRule: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The rule name, kebab-case.
    public let rawValue: String
    /// Creates a rule from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// VCALENDAR without VERSION (RFC 5545 §3.7.4). Warning.
    public static let missingVersion = LintRule(rawValue: "missing-version")
    /// VCALENDAR without PRODID (RFC 5545 §3.7.3). Warning.
    public static let missingProductIdentifier = LintRule(rawValue: "missing-prodid")
    /// VEVENT, VTODO, VJOURNAL or VFREEBUSY without UID (RFC 5545 §3.8.4.7). Error.
    public static let missingUID = LintRule(rawValue: "missing-uid")
    /// VEVENT, VTODO, VJOURNAL or VFREEBUSY without DTSTAMP (RFC 5545 §3.8.7.2). Warning:
    /// most programs accept it.
    public static let missingDateTimeStamp = LintRule(rawValue: "missing-dtstamp")
    /// VEVENT without DTSTART in a calendar without METHOD (RFC 5545 §3.6.1). Error.
    public static let missingDateTimeStart = LintRule(rawValue: "missing-dtstart")
    /// DTEND (or DUE) not after DTSTART, or of another value type than DTSTART
    /// (RFC 5545 §3.8.2.2). Error.
    public static let endNotAfterStart = LintRule(rawValue: "dtend-before-dtstart")
    /// DTEND (or DUE) together with DURATION (RFC 5545 §3.6.1, §3.6.2). Error.
    public static let endWithDuration = LintRule(rawValue: "dtend-and-duration")
    /// A TZID that no VTIMEZONE defines and that is not an IANA, vendor-prefixed or Windows
    /// zone name (``TimeZoneResolver``), reported once per TZID and calendar at its first
    /// use. Warning.
    public static let unknownTimeZone = LintRule(rawValue: "unknown-tzid")
    /// RRULE with INTERVAL=0 or COUNT=0, or an UNTIL whose value type differs from DTSTART's
    /// (a DATE with a DATE-TIME start or the reverse; a floating UNTIL with a zoned start),
    /// RFC 5545 §3.3.10. Error.
    public static let invalidRecurrenceRule = LintRule(rawValue: "rrule")
    /// EXDATE whose value type (DATE or DATE-TIME) differs from DTSTART's (RFC 5545
    /// §3.8.5.1). Warning.
    public static let exceptionDateType = LintRule(rawValue: "exdate-type")
    /// The same UID (and RECURRENCE-ID) more than once in a file without a SEQUENCE that
    /// tells the versions apart. Warning.
    public static let duplicateUID = LintRule(rawValue: "duplicate-uid")
    /// A physical line longer than 75 octets, without its line break (RFC 5545 §3.1).
    /// Warning.
    public static let lineTooLong = LintRule(rawValue: "line-length")
    /// A VTIMEZONE or X-WR-TIMEZONE problem found by ``TimeZoneResolver``. Warning or error.
    public static let timeZone = LintRule(rawValue: "time-zone")
}
