/// How the VCALENDARs of one file (or one import) make up series: the one rule that
/// ``OccurrenceQuery`` on a file and the store's import both follow, so a file and the store
/// it was imported into answer a query the same way.
///
/// - All the VCALENDARs of one file are one set of components: the versions of a UID are
///   grouped across them, in file order (a file of iTIP messages holds one VCALENDAR per
///   message, with SEQUENCE 0...n of the same UIDs). Among the versions,
///   ``RecurrenceSet`` picks per RECURRENCE-ID the highest SEQUENCE, then the latest
///   DTSTAMP, then the one given last.
/// - Components of an iTIP message that does not define the event (METHOD REPLY, REFRESH,
///   COUNTER or DECLINECOUNTER, RFC 5546 §1.4 and §3.2: an attendee's answer, a request for
///   the latest version, a proposal and its refusal) are not versions of a UID that a
///   defining VCALENDAR of the same file (PUBLISH, REQUEST, ADD, CANCEL or no METHOD) also
///   holds: a REPLY's VEVENT carries the attendee's status, not the series. A UID that only
///   such messages hold keeps them (they are all there is to show).
/// - Each VCALENDAR's X-WR-TIMEZONE is applied to its own components first
///   (``CalendarRepair/applyingCalendarTimeZone(_:)``); the VTIMEZONEs of all of them are
///   kept, the first per TZID.
public enum SeriesVersions {
    /// iTIP methods whose components are not versions of the event.
    public static let nonDefiningMethods: Set<String> = ["REPLY", "REFRESH", "COUNTER", "DECLINECOUNTER"]

    /// Whether a VCALENDAR's components are versions of their events: false for the iTIP
    /// methods in ``nonDefiningMethods``.
    public static func definesEvents(_ calendar: Component) -> Bool {
        guard let method = calendar.property(.method)?.rawValue else { return true }
        return !nonDefiningMethods.contains(ASCII.uppercased(String(method.trimmingSpaces)))
    }

    /// The UIDs that the defining VCALENDARs of a file hold.
    public static func definedUIDs(_ calendars: [Component]) -> Set<String> {
        var uids = Set<String>()
        for calendar in calendars where definesEvents(calendar) {
            for component in calendar.components { if let uid = component.uid { uids.insert(uid) } }
        }
        return uids
    }

    /// Whether a component of `calendar` is a version of its UID, given the UIDs the file's
    /// defining calendars hold (``definedUIDs(_:)``).
    public static func isVersion(_ component: Component, of calendar: Component, definedUIDs: Set<String>) -> Bool {
        if definesEvents(calendar) { return true }
        guard let uid = component.uid else { return true }
        return !definedUIDs.contains(uid)
    }

    /// A file's VCALENDARs as one: each one's X-WR-TIMEZONE applied, then every component
    /// that is a version of its UID in file order, after the VTIMEZONEs (the first per
    /// TZID). The calendar properties are the first VCALENDAR's, without X-WR-TIMEZONE and
    /// METHOD. A single defining VCALENDAR is returned as it is; nil for none.
    public static func merged(_ calendars: [Component]) -> Component? {
        guard let first = calendars.first else { return nil }
        if calendars.count == 1 && definesEvents(first) { return first }
        let defined = definedUIDs(calendars)
        var merged = first
        merged.properties.removeAll {
            ASCII.equalsIgnoringCase($0.name, "X-WR-TIMEZONE") || ASCII.equalsIgnoringCase($0.name, "METHOD")
        }
        var zones: [Component] = []
        var zoneIdentifiers = Set<String>()
        var items: [Component] = []
        var others: [Component] = []
        for calendar in calendars {
            let repaired = calendar.property(.calendarTimeZone) != nil ? CalendarRepair.applyingCalendarTimeZone(calendar) : calendar
            for component in repaired.components {
                if component.matches(.timeZone) {
                    let identifier = String((component[.timeZoneIdentifier] ?? "").trimmingSpaces)
                    if zoneIdentifiers.insert(identifier).inserted { zones.append(component) }
                } else if component.matches(.event) || component.matches(.todo) || component.matches(.journal) {
                    if isVersion(component, of: calendar, definedUIDs: defined) { items.append(component) }
                } else {
                    others.append(component)
                }
            }
        }
        merged.components = zones + items + others
        return merged
    }
}
