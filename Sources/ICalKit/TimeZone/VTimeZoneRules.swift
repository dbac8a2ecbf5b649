import Synchronization

/// The rules of a zone a calendar defines itself, in a VTIMEZONE component
/// (RFC 5545 §3.6.5): its STANDARD and DAYLIGHT observances, each an onset (DTSTART) with
/// TZOFFSETFROM and TZOFFSETTO, repeated by an RRULE and RDATEs.
///
/// The onsets are computed without libical, by a small evaluator for the yearly rules
/// observances use (BYMONTH, BYDAY with ordinals, BYMONTHDAY, BYYEARDAY, UNTIL, COUNT).
/// The work is bounded: onsets stop after the year 2500, at 5,000 per RRULE and at
/// 100,000 per VTIMEZONE, so after 2500 the last offset stays in force. Before the earliest onset, that onset's
/// TZOFFSETFROM applies.
///
/// Local times are read as RFC 5545 §3.3.5 says, with the same code as ``IANATimeZone``:
/// a time in a gap takes the offset from before the gap, a time in an overlap its first
/// occurrence.
///
/// Problems that cost part of the definition (an observance without DTSTART, an RRULE
/// that is not yearly) are reported in ``diagnostics``; a component that defines no
/// offset at all throws. Identical VTIMEZONEs (as in every file of a folder of `.ics`
/// files) are expanded once and shared, process-wide and thread-safely.
public struct VTimeZoneRules: TimeZoneRules {
    /// The TZID exactly as the VTIMEZONE gives it.
    public let identifier: String
    /// The line of the VTIMEZONE's BEGIN, when it was read from a source.
    public let line: Int?
    /// Problems found in the definition, with file and line.
    public let diagnostics: [Diagnostic]
    let table: TransitionTable
    /// The most onsets one VTIMEZONE may define, over all its observances.
    static let maximumTransitions = 100_000

    /// Reads the rules of a VTIMEZONE component.
    ///
    /// - Parameters:
    ///   - component: A `VTIMEZONE`.
    ///   - file: The file name used in diagnostics.
    /// - Throws: ``ICalError/Code/timeZone`` when the component is not a VTIMEZONE, has no
    ///   TZID, or has no observance from which an offset can be read.
    public init(_ component: Component, file: String? = nil) throws(ICalError) {
        if let table = Self.remembered(component), let identifier = component[.timeZoneIdentifier]?.trimmingASCIIWhitespace() {
            self.identifier = identifier
            self.line = component.line
            self.diagnostics = []
            self.table = table
            return
        }
        guard component.matches(.timeZone) else {
            throw ICalError(.timeZone, "\(component.name) is not a VTIMEZONE", file: file, line: component.line)
        }
        guard let identifier = component[.timeZoneIdentifier]?.trimmingASCIIWhitespace(), !identifier.isEmpty else {
            throw ICalError(.timeZone, "VTIMEZONE has no TZID (RFC 5545 §3.6.5)", file: file, line: component.line)
        }
        self.identifier = identifier
        self.line = component.line
        var diagnostics: [Diagnostic] = []
        var changes: [(instant: Int64, from: Int, type: LocalTimeType)] = []
        for observance in component.components where observance.matches(.standard) || observance.matches(.daylight) {
            func report(_ message: String, property: String? = nil, line: Int? = nil) {
                diagnostics.append(Diagnostic(
                    .warning, .timeZone, line: line ?? observance.line ?? component.line ?? 0, file: file,
                    component: observance.name, property: property, message: "VTIMEZONE \(identifier): \(message)"))
            }
            guard changes.count < Self.maximumTransitions else {
                report("more than \(Self.maximumTransitions) onsets; this and later observances are ignored")
                break
            }
            guard let startProperty = observance.property(.dateTimeStart),
                  let start = DateTime(iCalendar: startProperty.rawValue) else {
                report("observance without a valid DTSTART is ignored", property: "DTSTART")
                continue
            }
            guard let fromProperty = observance.property(.timeZoneOffsetFrom),
                  let from = Self.utcOffset(fromProperty.rawValue),
                  let toProperty = observance.property(.timeZoneOffsetTo),
                  let to = Self.utcOffset(toProperty.rawValue) else {
                report("observance without a valid TZOFFSETFROM and TZOFFSETTO is ignored", property: "TZOFFSETTO")
                continue
            }
            let type = LocalTimeType(offset: to, isDaylight: observance.matches(.daylight),
                                     abbreviation: observance[text: .timeZoneName] ?? "")
            var onsets: [LocalDateTime] = [start.local]
            if let ruleProperty = observance.property(.recurrenceRule) {
                do {
                    let rule = try ObservanceRecurrence(ruleProperty.rawValue)
                    onsets = rule.onsets(start: start.local, offsetFrom: from)
                    if !rule.ignoredParts.isEmpty {
                        report("RRULE parts \(rule.ignoredParts.joined(separator: ", ")) are ignored",
                               property: "RRULE", line: ruleProperty.line)
                    }
                    if onsets.count >= ObservanceRecurrence.maximumOnsets {
                        report("RRULE stopped after \(ObservanceRecurrence.maximumOnsets) onsets",
                               property: "RRULE", line: ruleProperty.line)
                    }
                } catch {
                    report("RRULE cannot be used (\(error.message)); only DTSTART and RDATE are applied",
                           property: "RRULE", line: ruleProperty.line)
                }
            }
            for onset in onsets {
                changes.append((onset.secondsSinceEpoch - Int64(from), from, type))
            }
            for rdate in observance.properties(.recurrenceDates) {
                for item in rdate.rawValue.split(separator: ",") {
                    let text = item.split(separator: "/").first.map(String.init) ?? ""
                    guard let value = DateTime(iCalendar: text) else {
                        report("RDATE value '\(item)' is not a date and is ignored", property: "RDATE", line: rdate.line)
                        continue
                    }
                    let instant = value.zone == .utc ? value.local.secondsSinceEpoch
                        : value.local.secondsSinceEpoch - Int64(from)
                    if changes.count < Self.maximumTransitions { changes.append((instant, from, type)) }
                }
            }
        }
        guard let earliest = changes.min(by: { $0.instant < $1.instant }) else {
            throw ICalError(.timeZone, "VTIMEZONE \(identifier) has no STANDARD or DAYLIGHT observance that can be read",
                            file: file, line: component.line)
        }
        let initial = LocalTimeType(offset: earliest.from, isDaylight: false, abbreviation: "")
        self.table = TransitionTable(initial: initial, changes: changes.map { ($0.instant, $0.type) })
        self.diagnostics = diagnostics
        if diagnostics.isEmpty { Self.remember(component, table) }
    }

    public func utcOffset(atInstant instant: Int64) -> Int {
        table.offset(atInstant: instant)
    }

    public func utcOffset(forLocal local: LocalDateTime) -> Int {
        table.utcOffset(forLocalSeconds: local.secondsSinceEpoch)
    }

    func quietSpan(forLocalSeconds local: Int64) -> (lower: Int64, upper: Int64, offset: Int)? {
        table.quietSpan(forLocalSeconds: local)
    }

    /// Whether a DAYLIGHT observance is in force at an instant.
    public func isDaylightSavingTime(atInstant instant: Int64) -> Bool {
        table.type(atInstant: instant).isDaylight
    }

    /// Every change of offset with an instant in `lower...upper`, in order.
    public func transitions(from lower: Int64, through upper: Int64) -> [TimeZoneTransition] {
        table.transitions(from: lower, through: upper)
    }

    // MARK: Sharing

    /// Tables of VTIMEZONEs read without problems, by content (the same VTIMEZONE in every
    /// file of a folder is expanded once). Bounded; emptied when full.
    private static let shared = Mutex<[Component: TransitionTable]>([:])
    private static let maximumShared = 512

    private static func remembered(_ component: Component) -> TransitionTable? {
        shared.withLock { $0[component] }
    }

    private static func remember(_ component: Component, _ table: TransitionTable) {
        shared.withLock { tables in
            if tables.count >= maximumShared { tables.removeAll(keepingCapacity: true) }
            tables[component] = table
        }
    }

    /// The instant of the earliest onset, before which the earliest TZOFFSETFROM applies.
    var firstOnset: Int64? { table.instants.first }

    /// The instant of the latest onset the observances define (bounded at the year 2500
    /// for open-ended rules), after which the last offset would be extrapolated.
    var lastOnset: Int64? { table.instants.last }

    /// Reads a UTC-OFFSET (`+0100`, `-0500`, `+053000`; RFC 5545 §3.3.14) in seconds,
    /// tolerating surrounding white space and `+01:00`-style colons.
    static func utcOffset(_ text: String) -> Int? {
        UTCOffset(iCalendar: text.trimmingASCIIWhitespace().filter { $0 != ":" })?.seconds
    }

    /// Writes a UTC-OFFSET: `+0100`, or `+005328` when there are seconds.
    static func utcOffsetText(_ offset: Int) -> String {
        let magnitude = abs(offset)
        var text = (offset < 0 ? "-" : "+") + CalendarDate.pad(magnitude / 3600, 2) + CalendarDate.pad(magnitude % 3600 / 60, 2)
        if magnitude % 60 != 0 { text += CalendarDate.pad(magnitude % 60, 2) }
        return text
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs, CR and LF.
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        if first == 0 && last == bytes.count - 1 { return self }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

extension VTimeZoneRules: QuietSpans {}
