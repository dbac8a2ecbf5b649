/// The VTIMEZONE components an export needs (RFC 5545 §3.6.5: every TZID a calendar uses
/// must be defined by a VTIMEZONE in it).
public enum TimeZoneExport {
    /// VTIMEZONE components, generated from tzdata, for every TZID the calendars use and
    /// do not define themselves, sorted by TZID.
    ///
    /// Each TZID is resolved as ``TimeZoneResolver/resolveStandard(_:)`` does (IANA name,
    /// vendor prefix, Windows name). The VTIMEZONE's TZID is the TZID as the calendars write
    /// it, so their references stay valid; for an IANA TZID that is the plain IANA name.
    /// The definition covers the values that use the TZID, from one day before the
    /// earliest to one year after the latest, or twenty years after it when a component
    /// with an RRULE uses the TZID (a regular current rule also continues past the range,
    /// see ``IANATimeZone/vTimeZone(from:through:timeZoneIdentifier:)``). TZIDs that cannot
    /// be resolved are left out; ``TimeZoneResolver`` reports them.
    public static func timeZones(neededBy calendars: [Component]) -> [Component] {
        var needs = Needs()
        for calendar in calendars {
            let defined = Set(calendar.components(.timeZone).compactMap { $0[.timeZoneIdentifier]?.trimmingASCIIWhitespace() })
            needs.add(calendar, defined: defined)
        }
        return needs.timeZones()
    }

    /// The TZIDs components use and the span of their values, gathered one component at a
    /// time: ``timeZones(neededBy:)`` for a calendar written as a stream, whose components
    /// are not all held at once.
    package struct Needs {
        private var ranges: [String: (zone: IANATimeZone, lower: Int64, upper: Int64)] = [:]

        package init() {}

        /// Adds the TZIDs `component` and its subcomponents use (VTIMEZONEs and the TZIDs
        /// in `defined` excepted).
        package mutating func add(_ component: Component, defined: Set<String> = []) {
            guard !component.matches(.timeZone) else { return }
            let recurring = component.property(.recurrenceRule) != nil
            for property in component.properties {
                guard let tzid = property[parameter: .timeZoneIdentifier], !defined.contains(tzid) else { continue }
                let existing = ranges[tzid]
                guard let zone = existing?.zone ?? (TimeZoneResolver.resolveStandard(tzid)?.rules as? IANATimeZone)
                else { continue }
                var bounds = existing.map { (lower: $0.lower, upper: $0.upper) }
                func add(_ text: some StringProtocol) {
                    guard let value = DateTime(iCalendar: text) else { return }
                    let instant = zone.instant(for: value.local)
                    let lower = instant - 86_400
                    let upper = instant + (recurring ? 20 * 366 : 366) * 86_400
                    bounds = bounds.map { (min($0.lower, lower), max($0.upper, upper)) } ?? (lower, upper)
                }
                let raw = property.rawValue
                if raw.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "/") }) {
                    for item in raw.split(separator: ",") { add(item.split(separator: "/").first.map(String.init) ?? "") }
                } else {
                    // One value (every DTSTART, DTEND and RECURRENCE-ID): what splitting gives.
                    add(raw)
                }
                if let bounds, existing == nil || bounds != (existing!.lower, existing!.upper) {
                    ranges[tzid] = (zone, bounds.lower, bounds.upper)
                }
            }
            for child in component.components { add(child, defined: defined) }
        }

        /// The VTIMEZONEs, sorted by TZID.
        package func timeZones() -> [Component] {
            ranges.keys.sorted().compactMap { tzid in
                ranges[tzid].map { $0.zone.vTimeZone(from: $0.lower, through: $0.upper, timeZoneIdentifier: tzid) }
            }
        }
    }
}
