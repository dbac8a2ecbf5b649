/// One change of a zone's offset from UTC: the instant it happens and the offsets on
/// either side, as a VTIMEZONE observance describes it (RFC 5545 §3.6.5).
public struct TimeZoneTransition: Sendable, Hashable, Codable {
    /// The instant of the change, in seconds since 1970-01-01T00:00:00Z.
    public var instant: Int64
    /// The offset from UTC in force before the change, in seconds (TZOFFSETFROM).
    public var offsetBefore: Int
    /// The offset from UTC in force from the change on, in seconds (TZOFFSETTO).
    public var offsetAfter: Int
    /// Whether the time from the change on is daylight-saving time (a DAYLIGHT observance).
    public var isDaylightSavingTime: Bool
    /// The abbreviation from the change on (`CEST`, `+0530`), or empty when unknown (TZNAME).
    public var abbreviation: String

    /// Creates a transition.
    public init(instant: Int64, offsetBefore: Int, offsetAfter: Int, isDaylightSavingTime: Bool, abbreviation: String) {
        self.instant = instant
        self.offsetBefore = offsetBefore
        self.offsetAfter = offsetAfter
        self.isDaylightSavingTime = isDaylightSavingTime
        self.abbreviation = abbreviation
    }

    /// The wall-clock time at which the change happens, read with the offset before it
    /// (what a VTIMEZONE observance's DTSTART holds).
    public var localOnset: LocalDateTime {
        LocalDateTime(secondsSinceEpoch: instant + Int64(offsetBefore))
    }
}
