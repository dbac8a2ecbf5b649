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
                guard let tzid = property[parameter: .timeZoneIdentifier], !defined.contains(tzid),
                      let zone = ranges[tzid]?.zone ?? (TimeZoneResolver.resolveStandard(tzid)?.rules as? IANATimeZone)
                else { continue }
                for item in property.rawValue.split(separator: ",") {
                    let text = item.split(separator: "/").first.map(String.init) ?? ""
                    guard let value = DateTime(iCalendar: text) else { continue }
                    let instant = zone.instant(for: value.local)
                    let lower = instant - 86_400
                    let upper = instant + (recurring ? 20 * 366 : 366) * 86_400
                    if let existing = ranges[tzid] {
                        ranges[tzid] = (zone, min(existing.lower, lower), max(existing.upper, upper))
                    } else {
                        ranges[tzid] = (zone, lower, upper)
                    }
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
