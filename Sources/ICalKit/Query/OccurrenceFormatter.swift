/// Writes query results as a readable agenda, JSON, CSV or iCalendar.
///
/// Times follow ISO 8601: a date (`2026-12-05`) for all-day values, a local time without
/// offset (`2026-12-01T16:00:00`) for floating values, and a local time with its UTC offset
/// (`2026-12-01T16:00:00+01:00`) otherwise. With a ``displayZone`` every zoned or UTC
/// occurrence is shown in that zone; floating ones were read in it (to place them in the
/// window) but stay floating in JSON and CSV: their times without offset and `timeZone`
/// null, so the output never claims a zone the file does not have. Without one, each keeps
/// its own zone.
///
/// The JSON form is one array; each element has, in this order: `uid`, `recurrenceId` (null
/// for an event that does not recur), `summary`, `start`, `end` (for all-day occurrences the
/// exclusive end date, as in iCalendar), `allDay`, `timeZone` (the zone's name, `UTC`, or null
/// when floating), `component` (`VEVENT`, `VTODO`, `VJOURNAL`), `location`, `status`, `source`,
/// and, only when the component has RFC 7986 `CONFERENCE` properties, `conferences`: an array
/// of `{"label", "uri"}` in the component's order. The CSV form's last column, `conference`,
/// holds those URIs separated by spaces; the agenda shows the first one in `<>` after the
/// location.
/// Strings are exact: `"`, `\` and the C0 controls are escaped as JSON requires, and DEL, the
/// C1 controls, the bidirectional controls and U+2028/U+2029 (``TerminalText/isShownEscaped(_:)``)
/// as `\u` escapes of four hexadecimal digits (`\u001B`) too, so JSON on a terminal sends no control sequence and decodes to the same text.
///
/// The CSV form writes every cell exactly as it is, formula-like cells (`=`, `+`, `-`, `@`)
/// included: CSV here is data for programs, and guarding a cell against spreadsheet formulas
/// (OWASP's `'` prefix) would change it. Open untrusted CSV in a spreadsheet with care.
/// See <doc:TerminalText>.
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
        let offset: Int?
        switch value.zone {
        case .floating: offset = nil
        case .utc: offset = 0
        case .identifier: offset = zone?.utcOffset(atInstant: instant)
        }
        return iso(value, instant: instant, ownOffset: offset)
    }

    /// The ISO 8601 text of a start or end whose UTC offset in its own zone is known (nil:
    /// floating, or a zone that did not resolve, shown without an offset).
    func iso(_ value: DateTime, instant: Int64, ownOffset: Int?) -> String {
        if value.isDate { return value.local.date.description }
        // Floating times stay floating: shown as written, never with a zone's offset.
        if let displayZone, value.zone != .floating {
            return displayZone.local(at: instant).description + Self.offset(displayZone.utcOffset(atInstant: instant))
        }
        guard let ownOffset else { return value.local.description }
        return value.local.description + Self.offset(ownOffset)
    }

    /// The zone name JSON and CSV show for an occurrence.
    public func timeZoneName(_ match: OccurrenceQuery.Match) -> String? {
        timeZoneName(OccurrenceListing(match))
    }

    /// The zone name JSON and CSV show for a listing: the display zone's, else its own.
    public func timeZoneName(_ listing: OccurrenceListing) -> String? {
        if listing.start.isDate || listing.start.zone == .floating { return nil }
        if let displayZone { return displayZone.identifier }
        return listing.zoneName
    }

    static func offset(_ seconds: Int) -> String {
        UTCOffset.isoText(seconds: seconds)
    }

    private func startText(_ listing: OccurrenceListing) -> String {
        iso(listing.start, instant: listing.startInstant, ownOffset: listing.startOffset)
    }

    private func endText(_ listing: OccurrenceListing) -> String {
        iso(listing.end, instant: listing.endInstant, ownOffset: listing.endOffset)
    }

    // MARK: JSON

    /// One JSON array, one object per occurrence, with a trailing newline.
    public func json(_ matches: [OccurrenceQuery.Match]) -> String {
        json(matches.map(OccurrenceListing.init))
    }

    /// One JSON array, one object per listing, with a trailing newline.
    public func json(_ listings: [OccurrenceListing]) -> String {
        // Written as bytes: a month of a large store is thousands of objects.
        var out: [UInt8] = []
        out.reserveCapacity(listings.count * 360 + 4)
        out.append(UInt8(ascii: "["))
        for index in listings.indices {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            let listing = listings[index]
            func field(_ name: StaticString, _ value: String?) {
                Self.append(name, to: &out)
                Self.appendJSON(value, to: &out)
            }
            field("\n  {\"uid\": ", listing.uid)
            field(", \"recurrenceId\": ", listing.recurrenceIdentifier)
            field(", \"summary\": ", listing.summary)
            Self.append(", \"start\": \"", to: &out)
            appendISO(listing.start, instant: listing.startInstant, ownOffset: listing.startOffset, to: &out)
            Self.append("\", \"end\": \"", to: &out)
            appendISO(listing.end, instant: listing.endInstant, ownOffset: listing.endOffset, to: &out)
            field(listing.isAllDay ? "\", \"allDay\": true, \"timeZone\": " : "\", \"allDay\": false, \"timeZone\": ",
                  timeZoneName(listing))
            field(", \"component\": ", listing.componentName)
            field(", \"location\": ", listing.location)
            field(", \"status\": ", listing.status)
            field(", \"source\": ", listing.source)
            if !listing.conferences.isEmpty {
                Self.append(", \"conferences\": [", to: &out)
                for (number, link) in listing.conferences.enumerated() {
                    if number > 0 { Self.append(", ", to: &out) }
                    field("{\"label\": ", link.label)
                    field(", \"uri\": ", link.uri)
                    out.append(UInt8(ascii: "}"))
                }
                out.append(UInt8(ascii: "]"))
            }
            out.append(UInt8(ascii: "}"))
        }
        Self.append(listings.isEmpty ? "]\n" : "\n]\n", to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// A JSON string, or null.
    private static func appendJSON(_ text: String?, to out: inout [UInt8]) {
        guard let text else { return append("null", to: &out) }
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: needsJSONEscape) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if copied != true { out.append(contentsOf: jsonString(text).utf8) }
    }

    /// ``iso(_:instant:ownOffset:)`` written as bytes.
    private func appendISO(_ value: DateTime, instant: Int64, ownOffset: Int?, to out: inout [UInt8]) {
        if value.isDate { return Self.appendDate(value.local.date, to: &out) }
        let local: LocalDateTime, offset: Int?
        if let displayZone, value.zone != .floating {
            local = displayZone.local(at: instant)
            offset = displayZone.utcOffset(atInstant: instant)
        } else {
            local = value.local
            offset = ownOffset
        }
        Self.appendDate(local.date, to: &out)
        out.append(UInt8(ascii: "T"))
        Self.appendDigits(local.time.hour, 2, to: &out)
        out.append(UInt8(ascii: ":"))
        Self.appendDigits(local.time.minute, 2, to: &out)
        out.append(UInt8(ascii: ":"))
        Self.appendDigits(local.time.second, 2, to: &out)
        if let offset { Self.appendOffset(offset, to: &out) }
    }

    /// ``UTCOffset/isoText(seconds:)`` written as bytes: `+01:00`, `-03:30`, `+05:45:30`.
    private static func appendOffset(_ seconds: Int, to out: inout [UInt8]) {
        let magnitude = abs(seconds)
        guard magnitude < 100 * 3600 else { return out.append(contentsOf: offset(seconds).utf8) }
        out.append(seconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        appendDigits(magnitude / 3600, 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(magnitude % 3600 / 60, 2, to: &out)
        if magnitude % 60 != 0 {
            out.append(UInt8(ascii: ":"))
            appendDigits(magnitude % 60, 2, to: &out)
        }
    }

    private static func appendDate(_ date: CalendarDate, to out: inout [UInt8]) {
        guard (0...9999).contains(date.year) else { return out.append(contentsOf: date.description.utf8) }
        appendDigits(date.year, 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(date.month, 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(date.day, 2, to: &out)
    }

    /// A number from 0 of exactly `width` digits (the caller checks the range).
    private static func appendDigits(_ value: Int, _ width: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Whether a UTF-8 byte may start something a JSON string escapes: a C0 control, `"`, `\`,
    /// DEL, or the lead byte of a C1 control (0xC2), U+061C (0xD8) or a bidirectional control
    /// or separator (0xE2); the slow path decides by scalar.
    static func needsJSONEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
            || byte == 0xC2 || byte == 0xD8 || byte == 0xE2
    }

    static func jsonString(_ text: String) -> String {
        // Most text needs no escaping: copy it whole.
        if !text.utf8.contains(where: needsJSONEscape) {
            return "\"" + text + "\""
        }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where TerminalText.isShownEscaped(scalar):
                // C0 controls as JSON requires; DEL, C1, bidirectional controls and U+2028/9
                // too, so the exact text is never a control sequence on a terminal.
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
        csv(matches.map(OccurrenceListing.init))
    }

    /// RFC 4180 CSV: a header row, then one row per listing, CRLF line ends.
    public func csv(_ listings: [OccurrenceListing]) -> String {
        var rows = [["uid", "recurrence-id", "summary", "start", "end", "all-day", "time-zone", "component",
                     "location", "status", "source", "conference"]]
        for listing in listings {
            rows.append([
                listing.uid, listing.recurrenceIdentifier ?? "", listing.summary ?? "",
                startText(listing), endText(listing), listing.isAllDay ? "true" : "false",
                timeZoneName(listing) ?? "", listing.componentName, listing.location ?? "",
                listing.status ?? "", listing.source ?? "", listing.conferences.map(\.uri).joined(separator: " "),
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
    ///
    /// One occurrence is one line: the calendar's text (summary, location, zone name) is
    /// untrusted, so its control characters, line feeds and tabs included, are shown as
    /// ``TerminalText`` escapes (`\u{1B}`, `\u{0A}`), and no value can start a line of its own.
    /// The JSON and CSV forms keep the exact text.
    public func agenda(_ matches: [OccurrenceQuery.Match], color: Bool = false) -> String {
        agenda(matches.map(OccurrenceListing.init), color: color)
    }

    /// ``agenda(_:color:)`` of listings.
    public func agenda(_ listings: [OccurrenceListing], color: Bool = false) -> String {
        var out = ""
        var currentDay: CalendarDate?
        for listing in listings {
            let startLocal = displayedLocal(listing.start, instant: listing.startInstant)
            let endLocal = displayedLocal(listing.end, instant: listing.endInstant)
            if startLocal.date != currentDay {
                currentDay = startLocal.date
                let heading = "\(Self.weekdayNames[startLocal.date.isoWeekday - 1]) \(startLocal.date)"
                out += (out.isEmpty ? "" : "\n") + (color ? "\u{1B}[1m\(heading)\u{1B}[0m" : heading) + "\n"
            }
            var when: String
            if listing.isAllDay {
                let lastDay = listing.end.local.date.adding(days: -1)
                when = lastDay > listing.start.local.date ? "all day until \(lastDay)" : "all day"
            } else {
                when = Self.clock(startLocal.time)
                if endLocal != startLocal {
                    when += endLocal.date == startLocal.date ? "-" + Self.clock(endLocal.time)
                        : " - \(endLocal.date) " + Self.clock(endLocal.time)
                }
            }
            var line = "  " + when.padding(toLength: 12) + " " + (listing.summary.map { TerminalText.line($0) } ?? "(no title)")
            if let location = listing.location, !location.isEmpty { line += " @ " + TerminalText.line(location) }
            if let join = listing.conferences.first { line += " <" + TerminalText.line(join.uri) + ">" }
            if listing.isToDo { line += " [to-do]" }
            if listing.status.map({ ASCII.equalsIgnoringCase($0, "CANCELLED") }) == true { line += " [cancelled]" }
            if displayZone == nil, !listing.isAllDay, let zoneName = listing.zoneName { line += " (\(TerminalText.line(zoneName)))" }
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
