/// Writes query results as a readable agenda, JSON, CSV or iCalendar.
///
/// Times follow ISO 8601: a date (`2026-12-05`) for all-day values, a local time without
/// offset (`2026-12-01T16:00:00`) for floating values, and a local time with its UTC offset
/// (`2026-12-01T16:00:00+01:00`) otherwise. With a ``displayZone`` every timed occurrence is
/// shown in that zone (floating ones were read in it); without one, each keeps its own zone.
///
/// The JSON form is one array; each element has, in this order: `uid`, `recurrenceId` (null
/// for an event that does not recur), `summary`, `start`, `end` (for all-day occurrences the
/// exclusive end date, as in iCalendar), `allDay`, `timeZone` (the zone's name, `UTC`, or null
/// when floating), `component` (`VEVENT`, `VTODO`, `VJOURNAL`), `location`, `status`, `source`.
public struct OccurrenceFormatter: Sendable {
    /// The zone to show timed occurrences in, or nil to keep each occurrence's own zone.
    public var displayZone: (any TimeZoneRules)?

    /// Creates a formatter.
    public init(displayZone: (any TimeZoneRules)? = nil) {
        self.displayZone = displayZone
    }

    // MARK: Times

    /// The ISO 8601 text of an occurrence's start or end.
    public func iso(_ value: DateTime, instant: Int64, zone: (any TimeZoneRules)?) -> String {
        if value.isDate { return value.local.date.description }
        if let displayZone {
            return displayZone.local(at: instant).description + Self.offset(displayZone.utcOffset(atInstant: instant))
        }
        switch value.zone {
        case .floating: return value.local.description
        case .utc: return value.local.description + "+00:00"
        case .identifier:
            guard let zone else { return value.local.description }
            return value.local.description + Self.offset(zone.utcOffset(atInstant: instant))
        }
    }

    /// The zone name JSON and CSV show for an occurrence.
    public func timeZoneName(_ match: OccurrenceQuery.Match) -> String? {
        let start = match.occurrence.start
        if start.isDate { return nil }
        if let displayZone { return displayZone.identifier }
        switch start.zone {
        case .floating: return nil
        case .utc: return "UTC"
        case .identifier(let tzid): return match.timeZone?.identifier ?? tzid
        }
    }

    static func offset(_ seconds: Int) -> String {
        UTCOffset.isoText(seconds: seconds)
    }

    private func startText(_ match: OccurrenceQuery.Match) -> String {
        iso(match.occurrence.start, instant: match.startInstant, zone: match.timeZone)
    }

    private func endText(_ match: OccurrenceQuery.Match) -> String {
        let zone = match.occurrence.end.timeZoneIdentifier == match.occurrence.start.timeZoneIdentifier ? match.timeZone : nil
        return iso(match.occurrence.end, instant: match.endInstant, zone: zone ?? endZone(match))
    }

    private func endZone(_ match: OccurrenceQuery.Match) -> (any TimeZoneRules)? {
        guard case .identifier(let tzid) = match.occurrence.end.zone else { return nil }
        return TimeZoneResolver.resolveStandard(tzid)?.rules
    }

    private func recurrenceIdentifierText(_ match: OccurrenceQuery.Match) -> String? {
        guard match.isRecurring else { return nil }
        let value = match.occurrence.recurrenceIdentifier
        if value.isDate { return value.local.date.description }
        switch value.zone {
        case .floating: return value.local.description
        case .utc: return value.local.description + "+00:00"
        case .identifier:
            guard let zone = match.timeZone else { return value.local.description }
            return value.local.description + Self.offset(zone.utcOffset(forLocal: value.local))
        }
    }

    // MARK: JSON

    /// One JSON array, one object per occurrence, with a trailing newline.
    public func json(_ matches: [OccurrenceQuery.Match]) -> String {
        var out = "["
        for (index, match) in matches.enumerated() {
            let component = match.occurrence.component
            out += index == 0 ? "\n  {" : ",\n  {"
            let fields: [(String, String)] = [
                ("uid", Self.jsonString(match.occurrence.uid)),
                ("recurrenceId", recurrenceIdentifierText(match).map(Self.jsonString) ?? "null"),
                ("summary", component.summary.map(Self.jsonString) ?? "null"),
                ("start", Self.jsonString(startText(match))),
                ("end", Self.jsonString(endText(match))),
                ("allDay", match.occurrence.isAllDay ? "true" : "false"),
                ("timeZone", timeZoneName(match).map(Self.jsonString) ?? "null"),
                ("component", Self.jsonString(ASCII.uppercased(component.name))),
                ("location", component.location.map(Self.jsonString) ?? "null"),
                ("status", component.status.map { Self.jsonString($0.rawValue) } ?? "null"),
                ("source", match.source.map(Self.jsonString) ?? "null"),
            ]
            out += fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ")
            out += "}"
        }
        out += matches.isEmpty ? "]\n" : "\n]\n"
        return out
    }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    // MARK: CSV

    /// RFC 4180 CSV: a header row, then one row per occurrence, CRLF line ends.
    public func csv(_ matches: [OccurrenceQuery.Match]) -> String {
        var rows = [["uid", "recurrence-id", "summary", "start", "end", "all-day", "time-zone", "component",
                     "location", "status", "source"]]
        for match in matches {
            let component = match.occurrence.component
            rows.append([
                match.occurrence.uid, recurrenceIdentifierText(match) ?? "", component.summary ?? "",
                startText(match), endText(match), match.occurrence.isAllDay ? "true" : "false",
                timeZoneName(match) ?? "", ASCII.uppercased(component.name), component.location ?? "",
                component.status?.rawValue ?? "", match.source ?? "",
            ])
        }
        return rows.map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }

    // MARK: Text

    /// A readable agenda grouped by day (the day in the display zone, or the occurrence's own
    /// local day), all-day ranges with their inclusive last day. `color` adds ANSI bold to the
    /// day headings (for a terminal only).
    public func agenda(_ matches: [OccurrenceQuery.Match], color: Bool = false) -> String {
        var out = ""
        var currentDay: CalendarDate?
        for match in matches {
            let occurrence = match.occurrence
            let startLocal = displayedLocal(occurrence.start, instant: match.startInstant)
            let endLocal = displayedLocal(occurrence.end, instant: match.endInstant)
            if startLocal.date != currentDay {
                currentDay = startLocal.date
                let heading = "\(Self.weekdayNames[startLocal.date.isoWeekday - 1]) \(startLocal.date)"
                out += (out.isEmpty ? "" : "\n") + (color ? "\u{1B}[1m\(heading)\u{1B}[0m" : heading) + "\n"
            }
            var when: String
            if occurrence.isAllDay {
                let lastDay = occurrence.end.local.date.adding(days: -1)
                when = lastDay > occurrence.start.local.date ? "all day until \(lastDay)" : "all day"
            } else {
                when = Self.clock(startLocal.time)
                if endLocal != startLocal {
                    when += endLocal.date == startLocal.date ? "-" + Self.clock(endLocal.time)
                        : " - \(endLocal.date) " + Self.clock(endLocal.time)
                }
            }
            var line = "  " + when.padding(toLength: 12) + " " + (occurrence.component.summary ?? "(no title)")
            if let location = occurrence.component.location, !location.isEmpty { line += " @ " + location }
            if occurrence.component.matches(.todo) { line += " [to-do]" }
            if displayZone == nil, !occurrence.isAllDay {
                switch occurrence.start.zone {
                case .utc: line += " (UTC)"
                case .identifier(let tzid): line += " (\(match.timeZone?.identifier ?? tzid))"
                case .floating: break
                }
            }
            out += line + "\n"
        }
        return out
    }

    private func displayedLocal(_ value: DateTime, instant: Int64) -> LocalDateTime {
        if value.isDate { return value.local }
        if let displayZone { return displayZone.local(at: instant) }
        return value.local
    }

    static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    static func clock(_ time: TimeOfDay) -> String {
        CalendarDate.pad(time.hour, 2) + ":" + CalendarDate.pad(time.minute, 2)
            + (time.second != 0 ? ":" + CalendarDate.pad(time.second, 2) : "")
    }

    // MARK: iCalendar

    /// A VCALENDAR holding each occurrence as its own component (the override, or a copy of
    /// the master) with the occurrence's DTSTART and DTEND (DUE for to-dos), its
    /// RECURRENCE-ID when it belongs to a series, no RRULE, RDATE, EXDATE or EXRULE, and the
    /// VTIMEZONEs the result needs, generated from tzdata. Times keep their own zones.
    public func calendar(_ matches: [OccurrenceQuery.Match]) -> Component {
        var calendar = Component.calendar(productIdentifier: "-//OpenEventKit//ical query//EN")
        var items: [Component] = []
        for match in matches {
            let occurrence = match.occurrence
            var component = occurrence.component
            for kind in [PropertyKind.recurrenceRule, .recurrenceDates, .exceptionDates, .exceptionRule, .duration] {
                component.removeProperties(kind)
            }
            component.dateTimeStart = occurrence.start
            if component.matches(.todo) {
                component.removeProperties(.dateTimeEnd)
                if component.due != nil || occurrence.end != occurrence.start { component.due = occurrence.end }
            } else if !component.matches(.journal) {
                component.dateTimeEnd = occurrence.end
            }
            if match.isRecurring {
                component.recurrenceIdentifier = occurrence.recurrenceIdentifier
                component.recurrenceIdentifierRange = nil
            }
            items.append(component)
        }
        calendar.components = items
        calendar.components = TimeZoneExport.timeZones(neededBy: [calendar]) + items
        return calendar
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        let count = self.count
        return count >= length ? self : self + String(repeating: " ", count: length - count)
    }

    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
