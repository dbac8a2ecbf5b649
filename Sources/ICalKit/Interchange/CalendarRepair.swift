/// Rewrites calendars so that other programs accept them: the library behind
/// `ical convert --repair`.
///
/// What it changes, each change reported as a ``ConversionNote`` with file and line:
/// - **Windows and vendor-prefixed TZIDs** (`W. Europe Standard Time`,
///   `/mozilla.org/20050126_1/Europe/Berlin`, quoted names) become their IANA names on every
///   property that uses them, as ``TimeZoneResolver/resolveStandard(_:)`` resolves them.
///   The VTIMEZONEs defined under those names are removed; VTIMEZONEs generated from
///   tzdata replace them (Outlook's VTIMEZONEs hold only the current rule).
/// - **X-WR-TIMEZONE is applied.** Google Calendar and Apple Calendar write floating
///   DATE-TIMEs and mean them in the zone X-WR-TIMEZONE names; other programs read them as
///   floating. Every floating DATE-TIME in DTSTART, DTEND, DUE, RECURRENCE-ID, EXDATE and
///   RDATE gets that zone's IANA name as its TZID. DATE values stay all-day. A Windows
///   name in X-WR-TIMEZONE is rewritten to its IANA name too.
/// - **A floating RRULE UNTIL with a zoned DTSTART** is turned into UTC in DTSTART's zone
///   (RFC 5545 §3.3.10 wants UNTIL in UTC then); this follows from the X-WR-TIMEZONE step
///   and is also done where the TZID was there already.
/// - **Missing VTIMEZONEs** are generated from tzdata for every TZID used and not defined
///   (``TimeZoneExport/timeZones(neededBy:)``).
/// - **Missing DTSTAMP** in VEVENT, VTODO, VJOURNAL and VFREEBUSY is set to ``now``
///   (UTC, to the second).
/// - **Missing UID** gets a UUID-shaped value derived from the component's content
///   (everything but DTSTAMP), so repairing the same input twice gives the same UIDs.
///   Identical components without a UID get distinct UIDs, numbered in input order.
/// - **Missing VERSION and PRODID** of the VCALENDAR are added (`2.0`,
///   ``productIdentifier``).
///
/// TZIDs that cannot be resolved are reported as warnings and left as they are; embedded
/// VTIMEZONEs under names that are not IANA, Windows or vendor-prefixed names are kept.
public struct CalendarRepair: Sendable {
    /// The PRODID added to calendars that have none.
    public var productIdentifier: String
    /// The clock that gives DTSTAMP for components that have none.
    public var now: @Sendable () -> DateTime

    /// Creates a repair with a PRODID for calendars without one and a clock for DTSTAMP
    /// (the current time in UTC, to the second, when nil).
    public init(productIdentifier: String = "-//OpenEventKit//ical//EN",
                now: (@Sendable () -> DateTime)? = nil) {
        self.productIdentifier = productIdentifier
        self.now = now ?? { Component.currentUTCDateTime() }
    }

    /// The components that must have a UID and a DTSTAMP (RFC 5545 §3.6.1 to §3.6.4).
    static let stampedKinds: [ComponentKind] = [.event, .todo, .journal, .freeBusy]
    /// Date and time properties that X-WR-TIMEZONE applies to.
    static let zonedProperties: [PropertyKind] = [.dateTimeStart, .dateTimeEnd, .dateTimeDue, .recurrenceIdentifier,
                                                  .exceptionDates, .recurrenceDates]

    /// Repairs calendars read from one file; the changes come sorted by line. Components other than VCALENDAR at the top are
    /// repaired as if they were inside one (their UID and DTSTAMP only).
    public func repair(_ calendars: [Component], file: String?) -> (calendars: [Component], changes: [ConversionNote]) {
        var changes: [ConversionNote] = []
        var usedIdentifiers: Set<String> = []
        let repaired = calendars.map { calendar in
            repair(calendar, file: file, changes: &changes, usedIdentifiers: &usedIdentifiers)
        }
        let sorted = changes.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        return (repaired, sorted)
    }

    private func repair(_ input: Component, file: String?, changes: inout [ConversionNote],
                        usedIdentifiers: inout Set<String>) -> Component {
        var calendar = input
        let calendarLine = calendar.line ?? 1
        func report(_ kind: ConversionNote.Kind, _ line: Int?, _ message: String) {
            changes.append(ConversionNote(kind, file: file, line: line ?? calendarLine, message: message))
        }
        guard calendar.matches(.calendar) else {
            stamp(&calendar, report: report, usedIdentifiers: &usedIdentifiers)
            return calendar
        }

        // VERSION and PRODID.
        if calendar.property(.version) == nil {
            calendar.properties.insert(Property(.version, rawValue: "2.0"), at: 0)
            report(.repaired, calendarLine, "added VERSION:2.0")
        }
        if calendar.property(.productIdentifier) == nil {
            let index = calendar.properties.firstIndex { $0.matches(.version) }.map { $0 + 1 } ?? 0
            calendar.properties.insert(Property(.productIdentifier, rawValue: TextCoding.escape(productIdentifier)), at: index)
            report(.repaired, calendarLine, "added PRODID:\(productIdentifier)")
        }

        // TZIDs to rename: every Windows, vendor-prefixed or quoted name, used or defined.
        var renames: [String: String] = [:]
        var unknown: [String: Int] = [:]
        var unknownOrder: [String] = []
        let defined = Set(calendar.components(.timeZone).compactMap { $0[.timeZoneIdentifier]?.trimmingASCIIWhitespace() })
        var considered: Set<String> = []
        func consider(_ tzid: String, line: Int?) {
            guard considered.insert(tzid).inserted else { return }
            if let standard = TimeZoneResolver.resolveStandard(tzid) {
                if standard.source == .windows || standard.source == .vendorPrefix, standard.identifier != tzid {
                    renames[tzid] = standard.identifier
                }
            } else if !defined.contains(tzid) {
                unknown[tzid] = line ?? calendarLine
                unknownOrder.append(tzid)
            }
        }
        for tzid in defined { consider(tzid, line: nil) }
        Self.forEachProperty(of: &calendar) { property, _ in
            if let tzid = property[parameter: .timeZoneIdentifier] { consider(tzid, line: property.line) }
        }
        for tzid in unknownOrder {
            report(.warning, unknown[tzid], "TZID \"\(tzid)\" is not a known IANA, Windows or vendor-prefixed zone "
                   + "and has no VTIMEZONE; left as it is")
        }

        // Rename TZID parameters.
        if !renames.isEmpty {
            Self.forEachProperty(of: &calendar) { property, owner in
                guard let tzid = property[parameter: .timeZoneIdentifier], let name = renames[tzid] else { return }
                property.setParameter(.timeZoneIdentifier, to: name)
                report(.repaired, property.line ?? owner.line, "TZID \"\(tzid)\" -> \"\(name)\"")
            }
            calendar.components.removeAll { component in
                guard component.matches(.timeZone), let tzid = component[.timeZoneIdentifier]?.trimmingASCIIWhitespace(),
                      let name = renames[tzid] else { return false }
                report(.repaired, component.line, "removed VTIMEZONE \"\(tzid)\"; \"\(name)\" is generated from tzdata instead")
                return true
            }
        }

        // X-WR-TIMEZONE.
        if let index = calendar.properties.firstIndex(where: { $0.matches(.calendarTimeZone) }) {
            let property = calendar.properties[index]
            let name = property.textValue.trimmingASCIIWhitespace()
            if let zone = TimeZoneResolver.resolveStandard(name)?.rules as? IANATimeZone {
                if zone.identifier != name {
                    calendar.properties[index].textValue = zone.identifier
                    report(.repaired, property.line, "X-WR-TIMEZONE \"\(name)\" -> \"\(zone.identifier)\"")
                }
                withoutActuallyEscaping(report) { report in
                    Self.applyCalendarTimeZone(zone, toCalendar: &calendar, report: report)
                }
            } else {
                report(.warning, property.line, "X-WR-TIMEZONE \"\(name)\" is not a known zone; floating times left as they are")
            }
        }

        // RRULE UNTIL in UTC where DTSTART has a zone.
        var resolver: TimeZoneResolver?
        for index in calendar.components.indices where !calendar.components[index].matches(.timeZone) {
            let component = calendar.components[index]
            guard let start = component.dateTimeStart, let tzid = start.timeZoneIdentifier,
                  component.properties.contains(where: { $0.matches(.recurrenceRule) && Self.floatingUntil(in: $0.rawValue) != nil })
            else { continue }
            if resolver == nil { resolver = TimeZoneResolver(calendar: calendar) }
            guard let rules = resolver?.resolve(tzid)?.rules else { continue }
            for propertyIndex in component.properties.indices where component.properties[propertyIndex].matches(.recurrenceRule) {
                let property = component.properties[propertyIndex]
                guard let (part, until) = Self.floatingUntil(in: property.rawValue) else { continue }
                let utc = DateTime(LocalDateTime(secondsSinceEpoch: rules.instant(for: until.local)), zone: .utc)
                var parts = property.rawValue.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                parts[part] = "UNTIL=" + utc.iCalendarText
                calendar.components[index].properties[propertyIndex].rawValue = parts.joined(separator: ";")
                report(.repaired, property.line ?? component.line,
                       "RRULE UNTIL \(until.iCalendarText) is floating but DTSTART has TZID \"\(tzid)\"; "
                       + "in that zone it is \(utc.iCalendarText)")
            }
        }

        // Missing VTIMEZONEs.
        let generated = TimeZoneExport.timeZones(neededBy: [calendar])
        if !generated.isEmpty {
            let insertAt = calendar.components.firstIndex { !$0.matches(.timeZone) } ?? calendar.components.endIndex
            calendar.components.insert(contentsOf: generated, at: insertAt)
            for zone in generated {
                report(.repaired, calendarLine, "added VTIMEZONE \"\(zone[.timeZoneIdentifier] ?? "")\" generated from tzdata")
            }
        }

        // UID and DTSTAMP.
        for index in calendar.components.indices {
            stamp(&calendar.components[index], report: report, usedIdentifiers: &usedIdentifiers)
        }
        return calendar
    }

    /// The UID a repair gives a component without one: a hash of its content without
    /// DTSTAMP, numbered past the ones in `used` (which it joins).
    static func generatedIdentifier(for component: Component, avoiding used: inout Set<String>) -> String {
        var content = component
        content.removeProperties(.dateTimeStamp)
        let bytes = ICalWriter().bytes(content)
        var identifier = StableHash(bytes).uuidText
        var attempt = 1
        while used.contains(identifier) {
            attempt += 1
            identifier = StableHash(bytes + Array("#\(attempt)".utf8)).uuidText
        }
        used.insert(identifier)
        return identifier
    }

    /// Adds a missing UID and DTSTAMP to an event, to-do, journal or free/busy component.
    func stamp(_ component: inout Component, report: (ConversionNote.Kind, Int?, String) -> Void,
                       usedIdentifiers: inout Set<String>) {
        guard Self.stampedKinds.contains(where: { component.matches($0) }) else { return }
        if component.property(.uniqueIdentifier) == nil {
            let identifier = Self.generatedIdentifier(for: component, avoiding: &usedIdentifiers)
            component.uid = identifier
            report(.repaired, component.line, "added UID:\(identifier) to \(component.name.uppercased())")
        } else if let uid = component.uid {
            usedIdentifiers.insert(uid)
        }
        if component.property(.dateTimeStamp) == nil {
            let stamp = now()
            component.dateTimeStamp = stamp
            report(.repaired, component.line, "added DTSTAMP:\(stamp.iCalendarText) to \(component.name.uppercased())")
        }
    }

    /// The calendar with its X-WR-TIMEZONE applied, as ``repair(_:file:)`` applies it: every
    /// floating DATE-TIME in DTSTART, DTEND, DUE, RECURRENCE-ID, EXDATE and RDATE gets the
    /// zone's IANA name as its TZID (DATEs stay all-day). A calendar without X-WR-TIMEZONE,
    /// or with one that names no known zone, comes back unchanged. ``OccurrenceQuery`` reads
    /// calendars through this, so Google's floating times are the times Google means.
    public static func applyingCalendarTimeZone(_ calendar: Component) -> Component {
        guard let property = calendar.property(.calendarTimeZone),
              let zone = TimeZoneResolver.resolveStandard(property.textValue.trimmingASCIIWhitespace())?.rules as? IANATimeZone
        else { return calendar }
        var result = calendar
        applyCalendarTimeZone(zone, toCalendar: &result, report: nil)
        return result
    }

    /// Gives floating DATE-TIMEs the calendar's zone, and floating UNTILs UTC. Without
    /// `report` (a query's reading) no note is written, so none is built either.
    private static func applyCalendarTimeZone(_ zone: IANATimeZone, toCalendar calendar: inout Component,
                                       report: ((ConversionNote.Kind, Int?, String) -> Void)?) {
        // Only components that have a floating DATE-TIME are written to: a large calendar's
        // tree is shared with the caller's, and writing to a component copies its arrays.
        let count = calendar.components.count
        let parts = Threads.parts(of: count)
        guard report == nil, parts > 1 else {
            for index in calendar.components.indices
            where !calendar.components[index].matches(.timeZone) && takesCalendarTimeZone(calendar.components[index]) {
                applyCalendarTimeZone(zone, to: &calendar.components[index], report: report)
            }
            return
        }
        // Without notes, the components of a large calendar are given the zone in parts, one
        // per core: each part writes to its own components only.
        calendar.components.withUnsafeMutableBufferPointer { components in
            Threads.run(parts) { part in
                for index in Threads.range(part, of: parts, in: count)
                where !components[index].matches(.timeZone) && takesCalendarTimeZone(components[index]) {
                    applyCalendarTimeZone(zone, to: &components[index], report: nil)
                }
            }
        }
    }

    /// Whether a component or one below it has a property X-WR-TIMEZONE gives a TZID.
    static func takesCalendarTimeZone(_ component: Component) -> Bool {
        // Read in place: every component of a calendar with X-WR-TIMEZONE comes here.
        component.properties.withUnsafeBufferPointer { properties in
            properties.indices.contains { takesCalendarTimeZone(properties[$0]) }
        } || component.components.contains(where: takesCalendarTimeZone)
    }

    /// Whether X-WR-TIMEZONE gives a property a TZID: a DTSTART, DTEND, DUE, RECURRENCE-ID,
    /// EXDATE or RDATE without TZID whose values are all floating DATE-TIMEs.
    static func takesCalendarTimeZone(_ property: Property) -> Bool {
        guard isZonedPropertyName(property.name),
              property[parameter: .timeZoneIdentifier] == nil,
              property.valueType == nil || property.valueType == "DATE-TIME" else { return false }
        return allFloatingDateTimes(property.rawValue)
    }

    /// Whether every comma-separated item of `value`, without the ASCII white space around
    /// it (space, tab, CR, LF), is a floating DATE-TIME: what
    /// `value.split(separator: ",").allSatisfy { DateTime(iCalendar: trimmed item) is floating }`
    /// gives, read in place. Every zoned property of a calendar with X-WR-TIMEZONE comes
    /// here, and most are UTC times or dates: a floating DATE-TIME is exactly 15 bytes
    /// (`YYYYMMDDTHHMMSS`), so any other length answers without reading a date.
    static func allFloatingDateTimes(_ value: String) -> Bool {
        @inline(__always) func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
        }
        let utf8 = value.utf8
        var start = utf8.startIndex
        while true {
            let end = utf8[start...].firstIndex(of: ASCII.comma) ?? utf8.endIndex
            var low = start, high = end
            while low < high && isSpace(utf8[low]) { utf8.formIndex(after: &low) }
            while high > low && isSpace(utf8[utf8.index(before: high)]) { utf8.formIndex(before: &high) }
            // Fifteen ASCII bytes (so `low` and `high` fall between characters), read as a date.
            guard utf8.distance(from: low, to: high) == 15, !utf8[low..<high].contains(where: { $0 >= 0x80 }),
                  let time = DateTime(iCalendar: value[low..<high]), !time.isDate, time.zone == .floating
            else { return false }
            if end == utf8.endIndex { return true }
            start = utf8.index(after: end)
        }
    }

    /// `zonedProperties.contains { name matches it }`, comparing a name with the one or two
    /// kinds of its length only.
    private static func isZonedPropertyName(_ name: String) -> Bool {
        func equals(_ known: StaticString) -> Bool { ASCII.equalsIgnoringCase(name, known) }
        switch name.utf8.count {
        case 3: return equals("DUE")
        case 5: return equals("DTEND") || equals("RDATE")
        case 6: return equals("EXDATE")
        case 7: return equals("DTSTART")
        case 13: return equals("RECURRENCE-ID")
        default: return false
        }
    }

    static func applyCalendarTimeZone(_ zone: IANATimeZone, to component: inout Component,
                                       report: ((ConversionNote.Kind, Int?, String) -> Void)?) {
        for index in component.properties.indices {
            let property = component.properties[index]
            guard takesCalendarTimeZone(property) else { continue }
            component.properties[index].setParameter(.timeZoneIdentifier, to: zone.identifier)
            report?(.repaired, property.line ?? component.line,
                    "\(property.name.uppercased()) \(property.rawValue) is floating; X-WR-TIMEZONE gives it TZID \"\(zone.identifier)\"")
        }
        for index in component.components.indices where takesCalendarTimeZone(component.components[index]) {
            applyCalendarTimeZone(zone, to: &component.components[index], report: report)
        }
    }

    /// The index of the `;`-separated part holding a floating DATE-TIME UNTIL, and its value.
    static func floatingUntil(in rule: String) -> (Int, DateTime)? {
        for (index, part) in rule.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pieces.count == 2, pieces[0].trimmingASCIIWhitespace().uppercased() == "UNTIL",
                  let until = DateTime(iCalendar: pieces[1].trimmingASCIIWhitespace()), !until.isDate,
                  until.zone == .floating else { continue }
            return (index, until)
        }
        return nil
    }

    /// Calls `body` for every property of every component below `calendar` except VTIMEZONEs,
    /// with the component that holds it.
    static func forEachProperty(of calendar: inout Component, _ body: (inout Property, Component) -> Void) {
        func walk(_ component: inout Component) {
            guard !component.matches(.timeZone) else { return }
            let snapshot = component
            for index in component.properties.indices { body(&component.properties[index], snapshot) }
            for index in component.components.indices { walk(&component.components[index]) }
        }
        for index in calendar.components.indices { walk(&calendar.components[index]) }
    }
}
