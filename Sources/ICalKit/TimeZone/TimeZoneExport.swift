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
        /// One TZID: its zone (nil when it does not resolve to tzdata) and the span its values
        /// need (nil until a value is added).
        private struct Entry {
            let tzid: String
            let zone: IANATimeZone?
            var bounds: (lower: Int64, upper: Int64)?
            /// The zone's last quiet span, for reading values with a subtraction.
            var spans: QuietSpanCache
        }

        private var entries: [Entry] = []
        private var indices: [String: Int] = [:]

        package init() {}

        /// Adds the TZIDs `component` and its subcomponents use (VTIMEZONEs and the TZIDs
        /// in `defined` excepted).
        package mutating func add(_ component: Component, defined: Set<String> = []) {
            guard !component.matches(.timeZone) else { return }
            let recurring = component.property(.recurrenceRule) != nil
            for property in component.properties {
                guard let tzid = property[parameter: .timeZoneIdentifier], !defined.contains(tzid),
                      let entry = entry(for: tzid) else { continue }
                let raw = property.rawValue
                if raw.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "/") }) {
                    for item in raw.split(separator: ",") {
                        add(item.split(separator: "/").first.map(String.init) ?? "", entry: entry, recurring: recurring)
                    }
                } else {
                    // One value (every DTSTART, DTEND and RECURRENCE-ID): what splitting gives.
                    add(raw, entry: entry, recurring: recurring)
                }
            }
            for child in component.components { add(child, defined: defined) }
        }

        /// The entry of a TZID that resolves to tzdata (``TimeZoneResolver/resolveStandard(_:)``),
        /// for ``add(_:entry:recurring:)``; nil when it does not resolve. The answer for a
        /// TZID is looked up once and kept.
        package mutating func entry(for tzid: String) -> Int? {
            let index: Int
            if let known = indices[tzid] {
                index = known
            } else {
                index = entries.count
                let zone = TimeZoneResolver.resolveStandard(tzid)?.rules as? IANATimeZone
                entries.append(Entry(tzid: tzid, zone: zone, spans: QuietSpanCache(zone ?? FixedOffsetZone.utc)))
                indices[tzid] = index
            }
            return entries[index].zone == nil ? nil : index
        }

        /// Adds one value's local time, as written with the entry's TZID, to the entry's span:
        /// from one day before to one year after it, or twenty years after it for a value of a
        /// component with an RRULE.
        package mutating func add(_ local: LocalDateTime, entry index: Int, recurring: Bool) {
            guard let zone = entries[index].zone else { return }
            let seconds = local.secondsSinceEpoch
            let instant = entries[index].spans.offset(forLocalSeconds: seconds).map { seconds - Int64($0) }
                ?? zone.instant(for: local)
            let lower = instant - 86_400
            let upper = instant + (recurring ? 20 * 366 : 366) * 86_400
            if let bounds = entries[index].bounds {
                if lower < bounds.lower || upper > bounds.upper {
                    entries[index].bounds = (min(bounds.lower, lower), max(bounds.upper, upper))
                }
            } else {
                entries[index].bounds = (lower, upper)
            }
        }

        private mutating func add(_ text: some StringProtocol, entry: Int, recurring: Bool) {
            guard let value = DateTime(iCalendar: text) else { return }
            add(value.local, entry: entry, recurring: recurring)
        }

        /// The VTIMEZONEs, sorted by TZID.
        package func timeZones() -> [Component] {
            timeZones(excluding: [])
        }

        /// The VTIMEZONEs of the TZIDs not in `defined`, sorted by TZID: what adding every
        /// component with `defined` gives, for a caller that learns of the calendar's own
        /// VTIMEZONEs only after its components (a streamed read).
        package func timeZones(excluding defined: Set<String>) -> [Component] {
            entries.sorted { $0.tzid < $1.tzid }.compactMap { entry in
                guard !defined.contains(entry.tzid), let zone = entry.zone, let bounds = entry.bounds else { return nil }
                return zone.vTimeZone(from: bounds.lower, through: bounds.upper, timeZoneIdentifier: entry.tzid)
            }
        }
    }
}
