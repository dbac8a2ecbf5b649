/// Writes alarm triggers (``AlarmInstance``) as lines of text, JSON or CSV.
///
/// Trigger times are shown in ``zone`` (the user's), with their UTC offset; the occurrence's
/// start and end as `ical query` shows them (``OccurrenceFormatter``: a date for all-day, a
/// local time without offset for floating, with its own offset otherwise, or in the display
/// zone when there is one).
///
/// The JSON form is one array, by trigger; each element has, in this order: `trigger` (ISO
/// 8601 in ``zone``), `triggerUTC` (`…Z`), `action`, `description` (the alarm's), `alarmSummary`
/// (the alarm's SUMMARY), `repetition` (0 for the trigger itself, 1… for `REPEAT`),
/// `acknowledged`, `snooze` (a snooze alarm, RFC 9074 §7), `alarmUid`, `uid`, `recurrenceId`,
/// `summary` (the event's or to-do's), `start`, `end`, `allDay`, `component`, `source` and `key` (``AlarmInstance/key``).
/// `start`, `end` and `recurrenceId` are null for an absolute alarm of an item without a
/// time. The CSV form has the same columns under a header row. Text is one line per
/// trigger, safe for a terminal (``TerminalText``).
public struct AlarmFormatter: Sendable {
    /// The zone trigger times are shown in.
    public var zone: any TimeZoneRules
    /// How occurrences' starts and ends are shown.
    public var occurrences: OccurrenceFormatter

    /// Creates a formatter.
    public init(zone: any TimeZoneRules, occurrences: OccurrenceFormatter = OccurrenceFormatter()) {
        self.zone = zone
        self.occurrences = occurrences
    }

    /// The fields of one trigger, as JSON and CSV name them.
    public struct Fields: Sendable, Hashable {
        /// The trigger instant in the formatter's zone, ISO 8601 with its offset.
        public var trigger: String
        /// The trigger instant in UTC (`…Z`).
        public var triggerUTC: String
        /// The alarm's ACTION.
        public var action: String
        /// The alarm's DESCRIPTION.
        public var description: String?
        /// The alarm's SUMMARY.
        public var alarmSummary: String?
        /// 0 for the trigger itself, 1… for its repetitions.
        public var repetition: Int
        /// Whether the trigger is acknowledged (RFC 9074 `ACKNOWLEDGED`).
        public var acknowledged: Bool
        /// Whether the alarm is a snooze alarm.
        public var snooze: Bool
        /// The alarm's UID.
        public var alarmUID: String?
        /// The event's or to-do's UID.
        public var uid: String
        /// The occurrence's RECURRENCE-ID as `ical query` shows it; nil when the item does not recur.
        public var recurrenceIdentifier: String?
        /// The event's or to-do's SUMMARY.
        public var summary: String?
        /// The occurrence's start as `ical query` shows it.
        public var start: String?
        /// The occurrence's end as `ical query` shows it.
        public var end: String?
        /// Whether the occurrence is all-day.
        public var allDay: Bool
        /// `VEVENT` or `VTODO`.
        public var component: String
        /// The source's name.
        public var source: String?
    }

    /// The fields of a trigger.
    public func fields(_ instance: AlarmInstance) -> Fields {
        let listing = instance.occurrence.map(OccurrenceListing.init)
        return Fields(
            trigger: iso(instance.triggerInstant, in: zone),
            triggerUTC: iso(instance.triggerInstant, in: FixedOffsetZone.utc),
            action: instance.action.rawValue,
            description: instance.alarmDescription,
            alarmSummary: instance.alarmSummary,
            repetition: instance.repetition,
            acknowledged: instance.isAcknowledged,
            snooze: instance.isSnooze,
            alarmUID: instance.alarmUID,
            uid: instance.uid,
            recurrenceIdentifier: listing?.recurrenceIdentifier,
            summary: instance.occurrence?.occurrence.component.summary ?? instance.component.summary,
            start: listing.map { occurrences.iso($0.start, instant: $0.startInstant, ownOffset: $0.startOffset) },
            end: listing.map { occurrences.iso($0.end, instant: $0.endInstant, ownOffset: $0.endOffset) },
            allDay: listing?.isAllDay ?? false,
            component: ASCII.uppercased(instance.component.name),
            source: instance.source)
    }

    /// An instant as ISO 8601 in a zone: `2026-12-01T08:50:00+01:00`, `…Z` in UTC.
    public func iso(_ instant: Int64, in zone: any TimeZoneRules) -> String {
        let offset = zone.utcOffset(atInstant: instant)
        let local = LocalDateTime(secondsSinceEpoch: instant + Int64(offset)).description
        return zone.identifier == "UTC" && offset == 0 ? local + "Z" : local + OccurrenceFormatter.offset(offset)
    }

    // MARK: Formats

    /// One JSON or CSV value.
    enum Cell {
        case text(String?)
        case number(Int)
        case flag(Bool)
    }

    /// A trigger's columns, in the order JSON and CSV write them (``csvHeader``).
    func cells(_ instance: AlarmInstance) -> [Cell] {
        let f = fields(instance)
        return [.text(f.trigger), .text(f.triggerUTC), .text(f.action), .text(f.description), .text(f.alarmSummary),
                .number(f.repetition), .flag(f.acknowledged), .flag(f.snooze), .text(f.alarmUID), .text(f.uid),
                .text(f.recurrenceIdentifier), .text(f.summary), .text(f.start), .text(f.end), .flag(f.allDay),
                .text(f.component), .text(f.source), .text(instance.key)]
    }

    /// One JSON array, one object per trigger, with a trailing newline.
    public func json(_ instances: [AlarmInstance]) -> String {
        guard !instances.isEmpty else { return "[]\n" }
        var out = "["
        for (number, instance) in instances.enumerated() {
            out += number == 0 ? "\n  {" : ",\n  {"
            out += zip(Self.csvHeader, cells(instance)).map { name, cell in
                let value = switch cell {
                case .text(let text): text.map(OccurrenceFormatter.jsonString) ?? "null"
                case .number(let number): String(number)
                case .flag(let flag): String(flag)
                }
                return "\"\(name)\": \(value)"
            }.joined(separator: ", ")
            out += "}"
        }
        return out + "\n]\n"
    }

    /// The columns, in order: the keys of the JSON objects and the CSV header.
    public static let csvHeader = ["trigger", "triggerUTC", "action", "description", "alarmSummary", "repetition",
                                   "acknowledged", "snooze", "alarmUid", "uid", "recurrenceId", "summary", "start", "end",
                                   "allDay", "component", "source", "key"]

    /// RFC 4180 CSV with a header row; every cell exactly as it is (see ``OccurrenceFormatter``).
    public func csv(_ instances: [AlarmInstance]) -> String {
        var out = ComponentCSVWriter.row(Self.csvHeader)
        for instance in instances {
            out += ComponentCSVWriter.row(cells(instance).map { cell in
                switch cell {
                case .text(let text): text ?? ""
                case .number(let number): String(number)
                case .flag(let flag): String(flag)
                }
            })
        }
        return out
    }

    /// One line per trigger: `2026-12-01 08:50 Tue  Piano lesson (starts 09:00)  DISPLAY: Reminder`,
    /// with `[acknowledged]`, `[snooze]` and `[repeat N]` when they apply; "No alarms." when
    /// there are none.
    public func text(_ instances: [AlarmInstance]) -> String {
        guard !instances.isEmpty else { return "No alarms.\n" }
        var out = ""
        for instance in instances {
            out += line(instance) + "\n"
        }
        return out
    }

    /// The text line of one trigger, safe for a terminal.
    public func line(_ instance: AlarmInstance) -> String {
        let local = zone.local(at: instance.triggerInstant)
        var line = "\(local.date) \(OccurrenceFormatter.clock(local.time)) \(Self.weekdays[local.date.isoWeekday - 1])  "
        line += instance.occurrence?.occurrence.component.summary ?? instance.component.summary ?? "(no title)"
        if let start = startText(instance, triggerDay: local.date) { line += " (\(start))" }
        line += "  " + instance.action.rawValue
        if let text = instance.alarmDescription ?? instance.alarmSummary, !text.isEmpty { line += ": " + text }
        if instance.repetition > 0 { line += " [repeat \(instance.repetition)]" }
        if instance.isSnooze { line += " [snooze]" }
        if instance.isAcknowledged { line += " [acknowledged]" }
        return TerminalText.line(line)
    }

    /// "starts 09:00", "starts Wed 2026-12-02 09:00", "all day 2026-12-02", "due 17:00"
    /// in the display zone (floating and all-day values as written).
    public func startText(_ instance: AlarmInstance, triggerDay: CalendarDate) -> String? {
        guard let match = instance.occurrence else { return nil }
        let occurrence = match.occurrence
        let verb = instance.component.matches(.todo) && occurrence.component.property(.dateTimeStart) == nil ? "due" : "starts"
        if occurrence.isAllDay {
            return "all day \(occurrence.start.local.date)"
        }
        let local = occurrence.start.zone == .floating ? occurrence.start.local : zone.local(at: match.startInstant)
        let clock = OccurrenceFormatter.clock(local.time)
        if local.date == triggerDay { return "\(verb) \(clock)" }
        return "\(verb) \(Self.weekdays[local.date.isoWeekday - 1]) \(local.date) \(clock)"
    }

    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
}
