/// One occurrence as a listing shows it: the values ``OccurrenceFormatter`` writes as an
/// agenda, JSON or CSV, computed once from an ``OccurrenceQuery/Match`` and small enough to
/// be stored (a store's query index keeps listings of the weeks it has answered, so that a
/// repeated query reads them instead of reparsing and expanding items).
///
/// Everything that depends on the occurrence's own time zone is resolved here (the UTC
/// offsets of the start and end, the zone's name, the RECURRENCE-ID's text); what depends
/// on the zone a listing is *shown* in is left to the formatter, from the instants.
public struct OccurrenceListing: Sendable, Hashable {
    /// The UID the series shares.
    public var uid: String
    /// The RECURRENCE-ID in ISO 8601 form (see ``OccurrenceFormatter``), nil for an
    /// occurrence of an item that does not recur.
    public var recurrenceIdentifier: String?
    /// SUMMARY of the component that applies.
    public var summary: String?
    /// LOCATION of the component that applies.
    public var location: String?
    /// STATUS of the component that applies, as written.
    public var status: String?
    /// The component's name in upper case: VEVENT, VTODO or VJOURNAL.
    public var componentName: String
    /// The start, in its own zone, or floating, or a date.
    public var start: DateTime
    /// The end (exclusive), in its own zone, or floating, or a date.
    public var end: DateTime
    /// The start instant (a floating start read in the query's floating zone).
    public var startInstant: Int64
    /// The end instant (a floating end read in the query's floating zone).
    public var endInstant: Int64
    /// The start's UTC offset in its own zone; nil when floating, a date, or in a zone
    /// that did not resolve (shown without an offset).
    public var startOffset: Int?
    /// The end's UTC offset in its own zone, with the same rules.
    public var endOffset: Int?
    /// The name of the start's own zone: the resolved zone's identifier (else the TZID as
    /// written), `UTC`, or nil for floating and all-day occurrences.
    public var zoneName: String?
    /// Whether the occurrence is all-day.
    public var isAllDay: Bool
    /// The name of the source the occurrence came from (a file, or `collection/item.ics`).
    public var source: String?
    /// The ways to join a virtual conference: the component's RFC 7986 `CONFERENCE`
    /// properties, in order (the first is the preferred one).
    public var conferences: [ConferenceLink]

    /// One RFC 7986 `CONFERENCE` property: its URI and its `LABEL`.
    public struct ConferenceLink: Sendable, Hashable {
        /// The `LABEL` parameter; nil when there is none.
        public var label: String?
        /// The property's value: the URI to join with.
        public var uri: String

        /// A link with its URI and label.
        public init(label: String?, uri: String) {
            self.label = label
            self.uri = uri
        }

        /// The component's `CONFERENCE` links, in order; at most 20.
        public static func links(of component: Component) -> [ConferenceLink] {
            component.properties("CONFERENCE").prefix(20).map { property in
                ConferenceLink(label: property.parameters.first { $0.matches("LABEL") }?.value, uri: property.rawValue)
            }
        }
    }

    /// Creates a listing from its values.
    public init(uid: String, recurrenceIdentifier: String?, summary: String?, location: String?, status: String?,
                componentName: String, start: DateTime, end: DateTime, startInstant: Int64, endInstant: Int64,
                startOffset: Int?, endOffset: Int?, zoneName: String?, isAllDay: Bool, source: String?,
                conferences: [ConferenceLink] = []) {
        self.uid = uid
        self.recurrenceIdentifier = recurrenceIdentifier
        self.summary = summary
        self.location = location
        self.status = status
        self.componentName = componentName
        self.start = start
        self.end = end
        self.startInstant = startInstant
        self.endInstant = endInstant
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.zoneName = zoneName
        self.isAllDay = isAllDay
        self.source = source
        self.conferences = conferences
    }

    /// The listing of a query's match.
    public init(_ match: OccurrenceQuery.Match) {
        let occurrence = match.occurrence
        let component = occurrence.component
        self.init(uid: occurrence.uid, recurrenceIdentifier: Self.recurrenceIdentifierText(match),
                  summary: component.summary, location: component.location, status: component.status?.rawValue,
                  componentName: ASCII.uppercased(component.name), start: occurrence.start, end: occurrence.end,
                  startInstant: match.startInstant, endInstant: match.endInstant,
                  startOffset: Self.offset(occurrence.start, instant: match.startInstant, zone: match.timeZone),
                  endOffset: Self.offset(occurrence.end, instant: match.endInstant, zone: Self.endZone(match)),
                  zoneName: Self.zoneName(match), isAllDay: occurrence.isAllDay, source: match.source,
                  conferences: ConferenceLink.links(of: component))
    }

    /// Whether the component is a to-do.
    public var isToDo: Bool { componentName == "VTODO" }

    /// The UTC offset a value is shown with in its own zone: none for dates, floating
    /// values and zones that did not resolve.
    static func offset(_ value: DateTime, instant: Int64, zone: (any TimeZoneRules)?) -> Int? {
        if value.isDate { return nil }
        switch value.zone {
        case .floating: return nil
        case .utc: return 0
        case .identifier: return zone?.utcOffset(atInstant: instant)
        }
    }

    /// The end's zone: the start's when they share a TZID, else the end's TZID from tzdata.
    private static func endZone(_ match: OccurrenceQuery.Match) -> (any TimeZoneRules)? {
        let occurrence = match.occurrence
        if endsInStartZone(occurrence), let zone = match.timeZone { return zone }
        return standardEndZone(occurrence)
    }

    /// Whether an occurrence's end is read in its start's zone (they share a TZID, or neither has one).
    static func endsInStartZone(_ occurrence: Occurrence) -> Bool {
        occurrence.end.timeZoneIdentifier == occurrence.start.timeZoneIdentifier
    }

    /// The end's TZID resolved from tzdata, when it has one.
    static func standardEndZone(_ occurrence: Occurrence) -> (any TimeZoneRules)? {
        guard case .identifier(let tzid) = occurrence.end.zone else { return nil }
        return TimeZoneResolver.resolveStandard(tzid)?.rules
    }

    private static func zoneName(_ match: OccurrenceQuery.Match) -> String? {
        let start = match.occurrence.start
        if start.isDate { return nil }
        switch start.zone {
        case .floating: return nil
        case .utc: return "UTC"
        case .identifier(let tzid): return match.timeZone?.identifier ?? tzid
        }
    }

    private static func recurrenceIdentifierText(_ match: OccurrenceQuery.Match) -> String? {
        var text: [UInt8] = []
        guard appendRecurrenceIdentifierText(match, to: &text) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the RECURRENCE-ID's ISO 8601 text (``recurrenceIdentifier``); false, and
    /// nothing appended, for an occurrence of an item that does not recur.
    static func appendRecurrenceIdentifierText(_ match: OccurrenceQuery.Match, to out: inout [UInt8]) -> Bool {
        guard match.isRecurring else { return false }
        let value = match.occurrence.recurrenceIdentifier
        if value.isDate {
            OccurrenceFormatter.appendDate(value.local.date, to: &out)
            return true
        }
        OccurrenceFormatter.appendDateTime(value.local, to: &out)
        switch value.zone {
        case .floating: break
        case .utc: OccurrenceFormatter.appendOffset(0, to: &out)
        case .identifier:
            if let zone = match.timeZone { OccurrenceFormatter.appendOffset(zone.utcOffset(forLocal: value.local), to: &out) }
        }
        return true
    }
}
