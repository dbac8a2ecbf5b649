import ICalKit

/// Builders shared by the recurrence tests.
enum RecurrenceTestSupport {
    static let newYork = IANATimeZone(named: "America/New_York")!
    static let berlin = IANATimeZone(named: "Europe/Berlin")!
    static let sydney = IANATimeZone(named: "Australia/Sydney")!

    /// Reads VEVENT/VTODO lines (wrapped in a VCALENDAR) and returns the first recurrence set.
    static func set(_ lines: [String]) -> RecurrenceSet {
        sets(lines)[0]
    }

    /// Reads component lines wrapped in a VCALENDAR and groups them.
    static func sets(_ lines: [String]) -> [RecurrenceSet] {
        let text = (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//Tests//EN"] + lines + ["END:VCALENDAR"])
            .joined(separator: "\r\n") + "\r\n"
        let calendar = try! ICalReader().read(text).calendars[0]
        let resolver = TimeZoneResolver(calendar: calendar)
        return RecurrenceSet.sets(in: calendar, zoneLookup: { resolver.resolve($0)?.rules })
    }

    /// A VEVENT with a UID and the given lines.
    static func event(_ lines: String..., uid: String = "series@example.com") -> [String] {
        ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20240101T000000Z"] + lines + ["END:VEVENT"]
    }

    /// The instant a wall-clock text (`YYYYMMDDTHHMMSS`, or with `Z`) names in a zone.
    static func instant(_ text: String, _ zone: any TimeZoneRules = FixedOffsetZone.utc) -> Int64 {
        let value = DateTime(iCalendar: text)!
        if value.zone == .utc { return value.local.secondsSinceEpoch }
        return zone.instant(for: value.local)
    }

    /// A window between two wall-clock texts in a zone.
    static func window(_ start: String, _ end: String, _ zone: any TimeZoneRules = FixedOffsetZone.utc) -> Range<Int64> {
        instant(start, zone)..<instant(end, zone)
    }

    /// The start wall clocks (`YYYYMMDDTHHMMSS`) of an expansion.
    static func starts(_ occurrences: [Occurrence]) -> [String] {
        occurrences.map { $0.start.isDate ? $0.start.date.iCalendarText : $0.start.local.iCalendarText }
    }

    /// The end wall clocks of an expansion.
    static func ends(_ occurrences: [Occurrence]) -> [String] {
        occurrences.map { $0.end.isDate ? $0.end.date.iCalendarText : $0.end.local.iCalendarText }
    }

    /// UTC text of an instant.
    static func utc(_ instant: Int64?) -> String {
        guard let instant else { return "floating" }
        return LocalDateTime(secondsSinceEpoch: instant).iCalendarText + "Z"
    }
}
