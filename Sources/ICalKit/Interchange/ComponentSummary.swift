/// One event, to-do or journal flattened into the fields scripts and spreadsheets use:
/// the model behind `ical convert --to json` and `--to csv`.
///
/// Times are ISO 8601 text that keeps what the iCalendar value says:
/// - an all-day value (DATE) is a date: `2024-03-10`;
/// - a floating DATE-TIME is a local time without an offset: `2024-03-10T09:00:00`;
/// - a UTC DATE-TIME is written with `Z`: `2024-03-10T09:00:00Z`;
/// - a DATE-TIME with a TZID is the local time with the zone's offset at that time:
///   `2024-03-10T09:00:00+01:00`, and ``timeZone`` names the TZID as written. A TZID that
///   cannot be resolved (see ``TimeZoneResolver``) gives the local time without an offset.
///
/// ``end`` is DTEND (DUE for a VTODO); without one it is DTSTART plus DURATION (days are
/// nominal, the time part exact, as RFC 5545 §3.3.6 says), and empty when neither is there.
/// ``properties`` keeps every property of the component raw, in order, so nothing is
/// hidden from a script.
public struct ComponentSummary: Sendable, Hashable {
    /// One property as written: its name, its parameters and its raw value.
    public struct RawProperty: Sendable, Hashable {
        /// The property name as written.
        public var name: String
        /// The parameters in order (``Parameter/value`` gives each decoded).
        public var parameters: [Parameter]
        /// The value as written, escapes included.
        public var value: String
    }

    /// The component name: `VEVENT`, `VTODO` or `VJOURNAL`.
    public var component: String
    /// UID, when present.
    public var uid: String?
    /// SUMMARY as decoded TEXT.
    public var summary: String?
    /// DTSTART as ISO 8601 text (see the type's documentation).
    public var start: String?
    /// DTEND, DUE or DTSTART plus DURATION as ISO 8601 text.
    public var end: String?
    /// Whether DTSTART is a DATE.
    public var allDay: Bool
    /// The TZID of DTSTART as written, or `UTC` for a UTC start; nil when floating or all-day.
    public var timeZone: String?
    /// LOCATION as decoded TEXT.
    public var location: String?
    /// DESCRIPTION as decoded TEXT.
    public var description: String?
    /// The first RRULE as written.
    public var recurrenceRule: String?
    /// STATUS as written.
    public var status: String?
    /// CATEGORIES across every CATEGORIES property.
    public var categories: [String]
    /// RECURRENCE-ID as ISO 8601 text, for an override of one occurrence.
    public var recurrenceIdentifier: String?
    /// SEQUENCE, when present and an integer.
    public var sequence: Int?
    /// Every property, raw, in order.
    public var properties: [RawProperty]

    /// The components a summary is made for: VEVENT, VTODO and VJOURNAL.
    public static let summarizedKinds: [ComponentKind] = [.event, .todo, .journal]

    /// Flattens one component, resolving TZIDs with `resolver` (built for its calendar).
    public init(_ component: Component, resolver: TimeZoneResolver) {
        self.component = component.name.uppercased()
        uid = component.uid
        summary = component.summary
        let startValue = component.dateTimeStart
        start = startValue.map { Self.isoText($0, resolver: resolver) }
        var endValue = component.dateTimeEnd ?? component.due
        if endValue == nil, let startValue, let duration = component.duration {
            endValue = Self.adding(duration, to: startValue, resolver: resolver)
        }
        end = endValue.map { Self.isoText($0, resolver: resolver) }
        allDay = startValue?.isDate ?? false
        switch startValue?.zone {
        case .identifier(let tzid)?: timeZone = tzid
        case .utc?: timeZone = "UTC"
        default: timeZone = nil
        }
        location = component.location
        description = component.descriptionText
        recurrenceRule = component.property(.recurrenceRule)?.rawValue
        status = component.property(.status)?.rawValue
        categories = component.categories
        recurrenceIdentifier = component.recurrenceIdentifier.map { Self.isoText($0, resolver: resolver) }
        sequence = component.sequence
        properties = component.properties.map { property in
            RawProperty(name: property.name,
                        parameters: property.parameters,
                        value: property.rawValue)
        }
    }

    /// Flattens every VEVENT, VTODO and VJOURNAL of the calendars, in order.
    public static func summaries(of calendars: [Component]) -> [ComponentSummary] {
        var result: [ComponentSummary] = []
        for calendar in calendars {
            let resolver = TimeZoneResolver(calendar: calendar)
            let items = calendar.matches(.calendar) ? calendar.components : [calendar]
            for item in items where summarizedKinds.contains(where: { item.matches($0) }) {
                result.append(ComponentSummary(item, resolver: resolver))
            }
        }
        return result
    }

    /// ISO 8601 text for a value: a date, a floating local time, UTC with `Z`, or a zoned
    /// local time with its offset.
    public static func isoText(_ value: DateTime, resolver: TimeZoneResolver) -> String {
        if value.isDate { return value.date.description }
        switch value.zone {
        case .floating: return value.local.description
        case .utc: return value.local.description + "Z"
        case .identifier(let tzid):
            guard let resolution = resolver.resolve(tzid) else { return value.local.description }
            let offset = resolution.rules.utcOffset(forLocal: value.local)
            return value.local.description + offsetText(offset)
        }
    }

    /// `+01:00`, `-05:30`, `+00:00`; seconds are written only when not zero.
    static func offsetText(_ seconds: Int) -> String {
        UTCOffset.isoText(seconds: seconds)
    }

    /// `start + duration`: whole days are added to the local date, the rest as elapsed time
    /// in the value's zone (RFC 5545 §3.3.6).
    static func adding(_ duration: Duration, to start: DateTime, resolver: TimeZoneResolver) -> DateTime {
        var result = start
        result.local = LocalDateTime(secondsSinceEpoch: start.local.secondsSinceEpoch + Int64(duration.nominalDays) * 86_400)
        guard !start.isDate else { return result }
        let exact = duration.exactSeconds
        guard exact != 0 else { return result }
        let rules = resolver.resolution(for: start, floatingZone: FixedOffsetZone.utc).rules
        let instant = rules.instant(for: result.local) + exact
        result.local = rules.local(at: instant)
        return result
    }
}
