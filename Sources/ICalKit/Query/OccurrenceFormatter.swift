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

    // MARK: JSON

    /// One JSON array, one object per occurrence, with a trailing newline.
    public func json(_ matches: [OccurrenceQuery.Match]) -> String {
        json(matches.map(OccurrenceListing.init))
    }

    /// One JSON array, one object per listing, with a trailing newline.
    public func json(_ listings: [OccurrenceListing]) -> String {
        String(decoding: bytes(PackedListings(listings), as: .json), as: UTF8.self)
    }

    /// The output formats of listings.
    package enum ListingFormat: Sendable {
        case json, csv
        /// The agenda; `color` adds ANSI bold to the day headings.
        case agenda(color: Bool)
    }

    /// Packed listings written in a format: the bytes ``json(_:)-([OccurrenceListing])``,
    /// ``csv(_:)-([OccurrenceListing])`` or ``agenda(_:color:)-([OccurrenceListing])``
    /// return as text.
    package func bytes(_ listings: PackedListings, as format: ListingFormat) -> [UInt8] {
        var all: [UInt8] = []
        write(listings, as: format, reserving: listings.bytes.count + listings.count * 160 + 256,
              flushingAt: .max) { (out: inout [UInt8]) in swap(&all, &out) }
        return all
    }

    /// Packed listings written in a format (as ``bytes(_:as:)``) in pieces: `flush` is
    /// given the bytes each time `flushingAt` of them wait, and at the end, and takes them
    /// (it leaves the array empty, or the bytes are written again). A large query's output
    /// is never held whole.
    package func write<Failure: Error>(_ listings: PackedListings, as format: ListingFormat,
                                       reserving capacity: Int = 1 << 18, flushingAt threshold: Int = 1 << 18,
                                       _ flush: (inout [UInt8]) throws(Failure) -> Void) throws(Failure) {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        var writer = ListingWriter(formatter: self, format: format)
        writer.begin(to: &out)
        try listings.forEach { (listing: PackedListing) throws(Failure) in
            writer.append(listing, to: &out)
            if out.count >= threshold { try flush(&out) }
        }
        writer.finish(to: &out)
        try flush(&out)
    }

    /// Writes listings one at a time in a format, with the state between them (JSON's
    /// commas, the agenda's current day): ``bytes(_:as:)`` for a whole listing, and a
    /// streamed query (``write(_:as:limit:chunkSize:to:)``) one occurrence at a time.
    package struct ListingWriter {
        let formatter: OccurrenceFormatter
        let format: ListingFormat
        private var count = 0
        private var currentDay: CalendarDate?

        package init(formatter: OccurrenceFormatter, format: ListingFormat) {
            self.formatter = formatter
            self.format = format
        }

        /// What comes before the first listing: JSON's `[`, the CSV header.
        package func begin(to out: inout [UInt8]) {
            switch format {
            case .json:
                out.append(UInt8(ascii: "["))
            case .csv:
                OccurrenceFormatter.append(
                    "uid,recurrence-id,summary,start,end,all-day,time-zone,component,location,status,source,conference\r\n",
                    to: &out)
            case .agenda:
                break
            }
        }

        /// Appends one listing.
        package mutating func append(_ listing: PackedListing, to out: inout [UInt8]) {
            // Gathered in a buffer of its own and appended at once: the formats write a
            // listing in some forty small pieces.
            var piece = ByteBuffer(capacity: 1024)
            let day = formatter.appendEntry(listing, format: format, jsonParts: jsonParts, to: &piece)
            piece.withUnsafeBytes { append(entry: $0, day: day, to: &out) }
        }

        /// Appends one listing's entry (``OccurrenceFormatter/appendEntry(_:format:jsonParts:to:)``,
        /// made now or earlier), with what goes between it and the one before: JSON's comma,
        /// the agenda's heading when `day` (the entry's day) is a new one.
        package mutating func append(entry: UnsafeRawBufferPointer, day: CalendarDate?, to out: inout [UInt8]) {
            appendSeparator(day: day, to: &out)
            out.append(contentsOf: entry)
        }

        /// Counts entries written with nothing from the writer between them and the ones
        /// before (CSV's; JSON's that carry their comma; an agenda's of the same day).
        package mutating func countWritten(_ entries: Int) {
            count += entries
        }

        /// Appends what goes between the next entry and the one before (JSON's comma, the
        /// agenda's heading when `day` is a new one) and counts the entry, whose bytes the
        /// caller writes next.
        package mutating func appendSeparator(day: CalendarDate?, to out: inout [UInt8]) {
            defer { count += 1 }
            switch format {
            case .json:
                if count > 0 { out.append(UInt8(ascii: ",")) }
            case .csv:
                break
            case .agenda(let color):
                if let day, day != currentDay {
                    if currentDay != nil { out.append(0x0A) }
                    currentDay = day
                    if color { OccurrenceFormatter.append("\u{1B}[1m", to: &out) }
                    out.append(utf8: OccurrenceFormatter.weekdayNames[day.isoWeekday - 1])
                    out.append(UInt8(ascii: " "))
                    OccurrenceFormatter.appendDate(day, to: &out)
                    if color { OccurrenceFormatter.append("\u{1B}[0m", to: &out) }
                    out.append(0x0A)
                }
            }
        }

        /// Appends one match, as ``OccurrenceListing/init(_:)`` makes it.
        ///
        /// A streamed query writes hundreds of thousands of occurrences of a few thousand
        /// components, so what a listing takes from its component and source (UID, summary,
        /// location, status, name, source, zone name, conference links) is made once per
        /// component, by ``OccurrenceListing/init(_:)`` itself, and kept as a template; each
        /// match then fills in only its own times, offsets and RECURRENCE-ID.
        package mutating func append(_ match: OccurrenceQuery.Match, to out: inout [UInt8]) {
            let template = templates.template(for: match)
            var listing = template.listing
            let occurrence = match.occurrence
            let start = PackedListings.form(occurrence.start).form, end = PackedListings.form(occurrence.end).form
            listing.startInstant = match.startInstant
            listing.endInstant = match.endInstant
            listing.startLocal = occurrence.start.local.secondsSinceEpoch
            listing.endLocal = occurrence.end.local.secondsSinceEpoch
            listing.startForm = start
            listing.endForm = end
            listing.isAllDay = occurrence.isAllDay
            listing.startOffset = OccurrenceListing.offset(occurrence.start, instant: match.startInstant, zone: match.timeZone)
            listing.endOffset = OccurrenceListing.offset(occurrence.end, instant: match.endInstant,
                                                         zone: template.endsInStartZone ? match.timeZone ?? template.standardEndZone : template.standardEndZone)
            recurrenceText.removeAll(keepingCapacity: true)
            let hasRecurrenceText = OccurrenceListing.appendRecurrenceIdentifierText(match, to: &recurrenceText)
            if case .json = format, template.json == nil { template.json = formatter.jsonParts(template.listing) }
            jsonParts = template.json
            recurrenceText.withUnsafeBytes { text in
                listing.recurrenceIdentifier = hasRecurrenceText ? text : nil
                withExtendedLifetime(template) { append(listing, to: &out) }
            }
            jsonParts = nil
        }

        /// The templates of the components written so far.
        private var templates = ListingTemplates()
        /// A reused buffer for one match's RECURRENCE-ID text.
        private var recurrenceText: [UInt8] = []
        /// The JSON parts of the template of the match being appended (see ``JSONParts``).
        private var jsonParts: JSONParts?

        /// What comes after the last listing: JSON's `]`.
        package func finish(to out: inout [UInt8]) {
            if case .json = format { OccurrenceFormatter.append(count == 0 ? "]\n" : "\n]\n", to: &out) }
        }
    }

    /// Appends a listing's entry in a format: what ``ListingWriter`` writes for it less what
    /// depends on the entries before it (JSON's comma, the agenda's day heading), so that an
    /// entry can be made once and written by many queries (the store's rendered weeks).
    /// Returns the agenda's day of the entry (nil in the other formats). `jsonParts`: the
    /// listing's template's parts, when it has them.
    package func appendEntry(_ listing: PackedListing, format: ListingFormat, jsonParts: JSONParts? = nil,
                             to out: inout ByteBuffer) -> CalendarDate? {
        switch format {
        case .json:
            if let jsonParts {
                appendJSON(listing, parts: jsonParts, to: &out)
            } else {
                appendJSON(listing, to: &out)
            }
            return nil
        case .csv:
            appendCSV(listing, to: &out)
            return nil
        case .agenda:
            return appendAgenda(listing, to: &out)
        }
    }

    fileprivate func appendJSON(_ listing: PackedListing, to out: inout ByteBuffer) {
        Self.appendJSONHead(listing, to: &out)
        Self.appendJSON(listing.recurrenceIdentifier, to: &out)
        Self.appendJSONSummary(listing, to: &out)
        appendJSONTimes(listing, to: &out)
        appendTimeZoneName(listing, to: &out) { name, out in Self.appendJSON(name, to: &out) }
        Self.appendJSONTail(listing, to: &out)
    }

    /// The parts of a listing's JSON object that come from its component and source alone
    /// (``ListingTemplates``), made once per template and copied for each match: the object
    /// is these parts with the match's RECURRENCE-ID, times and zone between them, in the
    /// order ``appendJSON(_:to:)`` writes it. (A class: a match's writer holds it with one
    /// retain.)
    package final class JSONParts {
        /// From the object's start to the RECURRENCE-ID's value.
        let head: [UInt8]
        /// From the summary to the start's value.
        let summary: [UInt8]
        /// The zone name's value, for a listing that shows one (else it is `null`).
        let zone: [UInt8]
        /// From the component's name to the object's end.
        let tail: [UInt8]

        init(head: [UInt8], summary: [UInt8], zone: [UInt8], tail: [UInt8]) {
            self.head = head
            self.summary = summary
            self.zone = zone
            self.tail = tail
        }
    }

    /// The constant parts of a template's JSON (see ``JSONParts``).
    func jsonParts(_ listing: PackedListing) -> JSONParts {
        var head: [UInt8] = [], summary: [UInt8] = [], zone: [UInt8] = [], tail: [UInt8] = []
        Self.appendJSONHead(listing, to: &head)
        Self.appendJSONSummary(listing, to: &summary)
        withShownZoneName(listing) { Self.appendJSON($0, to: &zone) }
        Self.appendJSONTail(listing, to: &tail)
        return JSONParts(head: head, summary: summary, zone: zone, tail: tail)
    }

    /// Appends a listing's JSON from its template's `parts` and its own RECURRENCE-ID, times
    /// and zone: the bytes of ``appendJSON(_:to:)``.
    fileprivate func appendJSON(_ listing: PackedListing, parts: JSONParts, to out: inout ByteBuffer) {
        out.append(bytes: parts.head)
        Self.appendJSON(listing.recurrenceIdentifier, to: &out)
        out.append(bytes: parts.summary)
        appendJSONTimes(listing, to: &out)
        if Self.showsZoneName(startForm: listing.startForm) {
            out.append(bytes: parts.zone)
        } else {
            Self.append("null", to: &out)
        }
        out.append(bytes: parts.tail)
    }

    private static func appendJSONHead<Out: ByteSink & ~Copyable>(_ listing: PackedListing, to out: inout Out) {
        append("\n  {\"uid\": ", to: &out)
        appendJSON(listing.uid, to: &out)
        append(", \"recurrenceId\": ", to: &out)
    }

    private static func appendJSONSummary<Out: ByteSink & ~Copyable>(_ listing: PackedListing, to out: inout Out) {
        append(", \"summary\": ", to: &out)
        appendJSON(listing.summary, to: &out)
        append(", \"start\": \"", to: &out)
    }

    /// From the start's value to the time zone's key.
    private func appendJSONTimes(_ listing: PackedListing, to out: inout ByteBuffer) {
        appendISO(local: listing.startLocal, form: listing.startForm, instant: listing.startInstant,
                  ownOffset: listing.startOffset, to: &out)
        Self.append("\", \"end\": \"", to: &out)
        appendISO(local: listing.endLocal, form: listing.endForm, instant: listing.endInstant,
                  ownOffset: listing.endOffset, to: &out)
        Self.append(listing.isAllDay ? "\", \"allDay\": true, \"timeZone\": " : "\", \"allDay\": false, \"timeZone\": ",
                    to: &out)
    }

    private static func appendJSONTail<Out: ByteSink & ~Copyable>(_ listing: PackedListing, to out: inout Out) {
        func field(_ name: StaticString, _ value: UnsafeRawBufferPointer?) {
            append(name, to: &out)
            appendJSON(value, to: &out)
        }
        field(", \"component\": ", listing.componentName)
        field(", \"location\": ", listing.location)
        field(", \"status\": ", listing.status)
        field(", \"source\": ", listing.source)
        if listing.linkCount > 0 {
            append(", \"conferences\": [", to: &out)
            var number = 0
            listing.forEachLink { label, uri in
                if number > 0 { append(", ", to: &out) }
                number += 1
                field("{\"label\": ", label)
                field(", \"uri\": ", uri)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The zone name JSON and CSV show (``timeZoneName(_:)-(OccurrenceListing)``), written by
    /// `write`, or `write(nil)`.
    private func appendTimeZoneName(_ listing: PackedListing, to out: inout ByteBuffer,
                                    _ write: (UnsafeRawBufferPointer?, inout ByteBuffer) -> Void) {
        guard Self.showsZoneName(startForm: listing.startForm) else { return write(nil, &out) }
        withShownZoneName(listing) { write($0, &out) }
    }

    /// The zone name a listing whose start has a zone shows: the display zone's identifier,
    /// else the listing's own.
    private func withShownZoneName(_ listing: PackedListing, _ body: (UnsafeRawBufferPointer?) -> Void) {
        guard let displayZone else { return body(listing.zoneName) }
        var name = displayZone.identifier
        name.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// Whether a listing whose start has this form shows a zone name: not for a DATE or a
    /// floating time.
    private static func showsZoneName(startForm: UInt8) -> Bool { startForm & 4 == 0 && startForm & 3 != 0 }

    static func append<Out: ByteSink & ~Copyable>(_ text: StaticString, to out: inout Out) {
        out.append(text)
    }

    /// A JSON string, or null: the bytes ``jsonString(_:)`` gives for the text, escaped byte by
    /// byte without a `String` (most listings' text has a dash, a quote mark or an emoji whose
    /// lead byte must be looked at). Text that is not valid UTF-8 goes through
    /// ``jsonString(_:)``, which repairs it as `String(decoding:as:)` does.
    static func appendJSON<Out: ByteSink & ~Copyable>(_ text: UnsafeRawBufferPointer?, to out: inout Out) {
        guard let text else { return append("null", to: &out) }
        guard let first = firstEscapeCandidate(text) else {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: text)
            out.append(UInt8(ascii: "\""))
            return
        }
        guard isValidUTF8(text) else { return out.append(utf8: jsonString(PackedListing.string(text))) }
        out.append(UInt8(ascii: "\""))
        var copied = 0, next: Int? = first
        while let index = next {
            let (value, length) = scalar(at: index, in: text)
            let escape: StaticString?
            switch value {
            case 0x22: escape = "\\\""
            case 0x5C: escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            default:
                guard TerminalText.isShownEscaped(Unicode.Scalar(value)!) else {
                    next = firstEscapeCandidate(text, from: index + length)
                    continue
                }
                escape = nil
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[copied..<index]))
            if let escape {
                append(escape, to: &out)
            } else {
                // \u and four lowercase hex digits: every scalar escaped here is below U+10000.
                append("\\u", to: &out)
                for shift in stride(from: 12, through: 0, by: -4) {
                    let digit = UInt8((value >> UInt32(shift)) & 0xF)
                    out.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
                }
            }
            copied = index + length
            next = firstEscapeCandidate(text, from: copied)
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[copied...]))
        out.append(UInt8(ascii: "\""))
    }

    /// The scalar value and byte length of the scalar at `index` of valid UTF-8, whose first
    /// byte is one ``needsJSONEscape(_:)`` looks at (ASCII, or the lead byte 0xC2, 0xD8 or 0xE2).
    private static func scalar(at index: Int, in text: UnsafeRawBufferPointer) -> (value: UInt32, length: Int) {
        let byte = text[index]
        switch byte {
        case 0xC2, 0xD8:
            return (UInt32(byte & 0x1F) << 6 | UInt32(text[index + 1] & 0x3F), 2)
        case 0xE2:
            return (UInt32(byte & 0x0F) << 12 | UInt32(text[index + 1] & 0x3F) << 6 | UInt32(text[index + 2] & 0x3F), 3)
        default:
            return (UInt32(byte), 1)
        }
    }

    /// Whether bytes hold a scalar ``TerminalText`` shows escaped, or are not valid UTF-8
    /// (which `String(decoding:as:)` repairs): whether they must go through a `String`.
    private static func needsTerminalEscape(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let first = firstEscapeCandidate(text) else { return false }
        guard isValidUTF8(text) else { return true }
        var next: Int? = first
        while let index = next {
            let (value, length) = scalar(at: index, in: text)
            if TerminalText.isShownEscaped(Unicode.Scalar(value)!) { return true }
            next = firstEscapeCandidate(text, from: index + length)
        }
        return false
    }

    /// Whether bytes are well-formed UTF-8.
    private static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// ``iso(_:instant:ownOffset:)`` of a packed start or end, written as bytes.
    private func appendISO(local seconds: Int64, form: UInt8, instant: Int64, ownOffset: Int?, to out: inout ByteBuffer) {
        if form & 4 != 0 { return Self.appendDate(LocalDateTime(secondsSinceEpoch: seconds).date, to: &out) }
        let local: LocalDateTime, offset: Int?
        if let displayZone, form & 3 != 0 {
            // The zone's local(at:), with the one offset lookup both need.
            let zoneOffset = displayZone.utcOffset(atInstant: instant)
            local = LocalDateTime(secondsSinceEpoch: instant + Int64(zoneOffset))
            offset = zoneOffset
        } else {
            local = LocalDateTime(secondsSinceEpoch: seconds)
            offset = ownOffset
        }
        Self.appendDateTime(local, to: &out)
        if let offset { Self.appendOffset(offset, to: &out) }
    }

    /// ``UTCOffset/isoText(seconds:)`` written as bytes: `+01:00`, `-03:30`, `+05:45:30`.
    static func appendOffset<Out: ByteSink & ~Copyable>(_ seconds: Int, to out: inout Out) {
        let magnitude = abs(seconds)
        guard magnitude < 100 * 3600 else { return out.append(utf8: offset(seconds)) }
        out.append(seconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        appendDigits(magnitude / 3600, 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(magnitude % 3600 / 60, 2, to: &out)
        if magnitude % 60 != 0 {
            out.append(UInt8(ascii: ":"))
            appendDigits(magnitude % 60, 2, to: &out)
        }
    }

    static func appendDate<Out: ByteSink & ~Copyable>(_ date: CalendarDate, to out: inout Out) {
        guard (0...9999).contains(date.year) else { return out.append(utf8: date.description) }
        appendFixed(10, to: &out) { date.put(into: $0, at: 0) }
    }

    /// `YYYY-MM-DDTHH:MM:SS`, appended at once (``LocalDateTime/description``'s text).
    static func appendDateTime<Out: ByteSink & ~Copyable>(_ local: LocalDateTime, to out: inout Out) {
        guard (0...9999).contains(local.date.year) else { return out.append(utf8: local.description) }
        appendFixed(19, to: &out) { local.put(into: $0, at: 0) }
    }

    /// A number from 0 of exactly `width` digits (the caller checks the range), appended once.
    private static func appendDigits<Out: ByteSink & ~Copyable>(_ value: Int, _ width: Int, to out: inout Out) {
        appendFixed(width, to: &out) { CalendarDate.put(value, width, into: $0, at: 0) }
    }

    /// Appends `count` bytes that `write` fills in a buffer on the stack.
    private static func appendFixed<Out: ByteSink & ~Copyable>(_ count: Int, to out: inout Out,
                                    _ write: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { text in
            write(text)
            out.append(contentsOf: UnsafeRawBufferPointer(text))
        }
    }

    /// The index of the first byte ``needsJSONEscape(_:)`` looks at, or nil. Eight bytes at a
    /// time: a word without such a byte (most of a listing's text, whatever its script) is
    /// passed over whole.
    static func firstEscapeCandidate(_ text: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        /// Whether a word may have a byte below `limit` (at most 0x80): never false when it has
        /// one; a borrow may make it true when it has not (the bytes are then looked at).
        func mayHaveLess(_ word: UInt64, _ limit: UInt64) -> Bool { (word &- ones &* limit) & ~word & highs != 0 }
        /// Whether a word may have a byte equal to `byte` (as ``mayHaveLess(_:_:)``).
        func mayHave(_ word: UInt64, _ byte: UInt64) -> Bool { mayHaveLess(word ^ (ones &* byte), 1) }
        var index = start
        while index < text.count {
            if index + 8 <= text.count, let base = text.baseAddress {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let candidate = mayHaveLess(word, 0x20) || mayHave(word, 0x22) || mayHave(word, 0x5C) || mayHave(word, 0x7F)
                    || (word & highs != 0 && (mayHave(word, 0xC2) || mayHave(word, 0xD8) || mayHave(word, 0xE2)))
                if candidate, let found = (index..<(index + 8)).first(where: { needsJSONEscape(text[$0]) }) { return found }
                index += 8
            } else {
                if needsJSONEscape(text[index]) { return index }
                index += 1
            }
        }
        return nil
    }

    /// Whether a UTF-8 byte may start something a JSON string escapes: a C0 control, `"`, `\`,
    /// DEL, or the lead byte of a C1 control (0xC2), U+061C (0xD8) or a bidirectional control
    /// or separator (0xE2); the slow path decides by scalar.
    static func needsJSONEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
            || byte == 0xC2 || byte == 0xD8 || byte == 0xE2
    }

    package static func jsonString(_ text: String) -> String {
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
        String(decoding: bytes(PackedListings(listings), as: .csv), as: UTF8.self)
    }

    fileprivate func appendCSV(_ listing: PackedListing, to out: inout ByteBuffer) {
        func cell(_ value: UnsafeRawBufferPointer?) {
            Self.appendCSVField(value, to: &out)
            out.append(UInt8(ascii: ","))
        }
        cell(listing.uid)
        cell(listing.recurrenceIdentifier)
        cell(listing.summary)
        appendISO(local: listing.startLocal, form: listing.startForm, instant: listing.startInstant,
                  ownOffset: listing.startOffset, to: &out)
        out.append(UInt8(ascii: ","))
        appendISO(local: listing.endLocal, form: listing.endForm, instant: listing.endInstant,
                  ownOffset: listing.endOffset, to: &out)
        Self.append(listing.isAllDay ? ",true," : ",false,", to: &out)
        appendTimeZoneName(listing, to: &out) { name, out in Self.appendCSVField(name, to: &out) }
        out.append(UInt8(ascii: ","))
        cell(listing.componentName)
        cell(listing.location)
        cell(listing.status)
        cell(listing.source)
        // The links' URIs, separated by spaces, as one cell.
        var uris: [UInt8] = []
        listing.forEachLink { _, uri in
            if !uris.isEmpty { uris.append(UInt8(ascii: " ")) }
            uris.append(contentsOf: uri)
        }
        uris.withUnsafeBytes { Self.appendCSVField($0, to: &out) }
        Self.append("\r\n", to: &out)
    }

    /// A CSV cell: as it is, or quoted with its quotes doubled when it holds a comma, a quote,
    /// a line feed or a carriage return. Nil is an empty cell.
    private static func appendCSVField<Out: ByteSink & ~Copyable>(_ text: UnsafeRawBufferPointer?, to out: inout Out) {
        guard let text else { return }
        let quoted = text.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard quoted else { return out.append(contentsOf: text) }
        out.append(UInt8(ascii: "\""))
        for byte in text {
            out.append(byte)
            if byte == UInt8(ascii: "\"") { out.append(byte) }
        }
        out.append(UInt8(ascii: "\""))
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
        String(decoding: bytes(PackedListings(listings), as: .agenda(color: color)), as: UTF8.self)
    }

    /// Appends a listing's agenda line (its day's heading is the writer's) and returns its day.
    fileprivate func appendAgenda(_ listing: PackedListing, to out: inout ByteBuffer) -> CalendarDate {
        let startLocal = displayedLocal(local: listing.startLocal, form: listing.startForm, instant: listing.startInstant)
        let endLocal = displayedLocal(local: listing.endLocal, form: listing.endForm, instant: listing.endInstant)
        Self.append("  ", to: &out)
        let whenStart = out.count
        if listing.isAllDay {
            let lastDay = LocalDateTime(secondsSinceEpoch: listing.endLocal).date.adding(days: -1)
            Self.append("all day", to: &out)
            if lastDay > LocalDateTime(secondsSinceEpoch: listing.startLocal).date {
                Self.append(" until ", to: &out)
                Self.appendDate(lastDay, to: &out)
            }
        } else {
            Self.appendClock(startLocal.time, to: &out)
            if endLocal != startLocal {
                if endLocal.date == startLocal.date {
                    out.append(UInt8(ascii: "-"))
                } else {
                    Self.append(" - ", to: &out)
                    Self.appendDate(endLocal.date, to: &out)
                    out.append(UInt8(ascii: " "))
                }
                Self.appendClock(endLocal.time, to: &out)
            }
        }
        // The time column is ASCII: its width is its byte count.
        let width = out.count - whenStart
        for _ in width..<max(width, 12) { out.append(UInt8(ascii: " ")) }
        out.append(UInt8(ascii: " "))
        if let summary = listing.summary { Self.appendLine(summary, to: &out) } else { Self.append("(no title)", to: &out) }
        if let location = listing.location, !location.isEmpty {
            Self.append(" @ ", to: &out)
            Self.appendLine(location, to: &out)
        }
        var firstLink = true
        listing.forEachLink { _, uri in
            guard firstLink else { return }
            firstLink = false
            Self.append(" <", to: &out)
            Self.appendLine(uri, to: &out)
            out.append(UInt8(ascii: ">"))
        }
        if listing.isToDo { Self.append(" [to-do]", to: &out) }
        if let status = listing.status, ASCII.equalsIgnoringCase(PackedListing.string(status), "CANCELLED") {
            Self.append(" [cancelled]", to: &out)
        }
        if displayZone == nil, !listing.isAllDay, let zoneName = listing.zoneName {
            Self.append(" (", to: &out)
            Self.appendLine(zoneName, to: &out)
            out.append(UInt8(ascii: ")"))
        }
        out.append(0x0A)
        return startLocal.date
    }

    /// ``TerminalText/line(_:maximumLength:)`` of bytes: copied when nothing in them is
    /// shown escaped.
    static func appendLine<Out: ByteSink & ~Copyable>(_ text: UnsafeRawBufferPointer, to out: inout Out) {
        if needsTerminalEscape(text) {
            out.append(utf8: TerminalText.line(PackedListing.string(text)))
        } else {
            out.append(contentsOf: text)
        }
    }

    private static func appendClock<Out: ByteSink & ~Copyable>(_ time: TimeOfDay, to out: inout Out) {
        appendDigits(time.hour, 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(time.minute, 2, to: &out)
        if time.second != 0 {
            out.append(UInt8(ascii: ":"))
            appendDigits(time.second, 2, to: &out)
        }
    }

    private func displayedLocal(local: Int64, form: UInt8, instant: Int64) -> LocalDateTime {
        if form & 4 == 0, let displayZone { return displayZone.local(at: instant) }
        return LocalDateTime(secondsSinceEpoch: local)
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
        for match in matches { items.append(item(match)) }
        calendar.components = items
        calendar.components = TimeZoneExport.timeZones(neededBy: [calendar]) + items
        return calendar
    }

    /// The component ``calendar(_:)`` holds for one occurrence.
    func item(_ match: OccurrenceQuery.Match) -> Component {
        var component = match.occurrence.component
        for kind in Self.seriesKinds { component.removeProperties(kind) }
        Self.setTimes(of: match, in: &component)
        return component
    }

    /// The properties that make a component a series, which an occurrence's item drops.
    static let seriesKinds: [PropertyKind] = [.recurrenceRule, .recurrenceDates, .exceptionDates, .exceptionRule, .duration]

    /// The properties ``setTimes(of:in:)`` sets, and the only ones it touches.
    static let timeKinds: [PropertyKind] = [.dateTimeStart, .dateTimeEnd, .dateTimeDue, .recurrenceIdentifier]

    /// Gives an item the occurrence's start, end (DTEND, or DUE for a to-do) and
    /// RECURRENCE-ID; it changes no property but those of ``timeKinds``.
    static func setTimes(of match: OccurrenceQuery.Match, in component: inout Component) {
        let occurrence = match.occurrence
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
    }
}
