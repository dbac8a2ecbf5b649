/// Checks iCalendar files beyond what reading them needs: the library behind
/// `ical validate`.
///
/// A file is read leniently with ``ICalReader`` (jCal is detected and read with
/// ``JCalReader``); every reader diagnostic becomes a finding whose rule is its code (or
/// ``LintRule/invalidRecurrenceRule`` for an RRULE the reader could not read). Then
/// each VCALENDAR and its components are checked against the rules in ``LintRule``, and,
/// for iCalendar text, every physical line is measured (``LintRule/lineTooLong``).
/// Duplicate UIDs are looked for within one file here, and across the files of one run by
/// ``LintSummary/add(_:)``. Findings carry the file and line of the
/// property or component involved.
public struct Linter: Sendable {
    /// The largest input read.
    public var maxInputSize: Int

    /// Creates a linter.
    public init(maxInputSize: Int = ICalReader.Limits.default.maxInputSize) {
        self.maxInputSize = maxInputSize
    }

    /// The components that must have a UID and a DTSTAMP.
    static let itemKinds: [ComponentKind] = [.event, .todo, .journal, .freeBusy]

    /// Reads and checks a file; `-` reads standard input (named `<stdin>`).
    ///
    /// - Throws: ``ICalError`` when the file cannot be read at all.
    public func lint(contentsOfFile path: String) throws(ICalError) -> LintReport {
        let bytes = try FileIO.readAll(path: path, limit: maxInputSize)
        return lint(bytes, file: path == "-" ? "<stdin>" : path)
    }

    /// Checks the bytes of one file.
    public func lint(_ bytes: [UInt8], file: String) -> LintReport {
        var findings: [LintFinding] = []
        let calendars: [Component]
        switch CalendarFormat.detect(bytes) {
        case .jCal:
            do {
                calendars = try JCalReader(maxInputSize: maxInputSize).read(bytes)
            } catch {
                return LintReport(findings: [LintFinding(.error, LintRule(rawValue: error.code.rawValue), file: file,
                                                         line: error.line ?? 0, message: error.message)],
                                  componentCount: 0)
            }
        case .iCalendar:
            do {
                let result = try ICalReader(mode: .lenient, limits: .init(maxInputSize: maxInputSize)).read(bytes, file: file)
                findings += result.diagnostics.map { diagnostic in
                    var finding = LintFinding(diagnostic, file: file)
                    if let property = diagnostic.property, ["RRULE", "EXRULE"].contains(property.uppercased()) {
                        finding.rule = .invalidRecurrenceRule
                    }
                    return finding
                }
                calendars = result.calendars
            } catch {
                return LintReport(findings: [LintFinding(.error, LintRule(rawValue: error.code.rawValue), file: file,
                                                         line: error.line ?? 0, message: error.message)],
                                  componentCount: 0)
            }
            findings += Self.longLines(bytes, file: file)
        }
        for calendar in calendars {
            findings += check(calendar, file: file)
        }
        findings += Self.duplicates(calendars, file: file)
        // Stable sort by line.
        let sorted = findings.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        var report = LintReport(findings: sorted, componentCount: calendars.reduce(0) { $0 + $1.components.count })
        for calendar in calendars {
            for component in calendar.components where Self.itemKinds.contains(where: { component.matches($0) }) {
                guard let uid = component.uid else { continue }
                report.identities.append(LintReport.Identity(
                    uid: uid, recurrenceIdentifier: component.recurrenceIdentifier?.iCalendarText ?? "",
                    sequence: component.sequence, file: file, line: component.line ?? 0, component: component.name.uppercased()))
            }
        }
        return report
    }

    /// Physical lines longer than 75 octets, without CR LF.
    static func longLines(_ bytes: [UInt8], file: String) -> [LintFinding] {
        var findings: [LintFinding] = []
        var line = 1
        var length = 0
        func finish() {
            if length > 75 {
                findings.append(LintFinding(.warning, .lineTooLong, file: file, line: line,
                    message: "line is \(length) octets long; RFC 5545 §3.1 folds lines at 75 octets"))
            }
        }
        for byte in bytes {
            if byte == 0x0A {
                finish()
                line += 1
                length = 0
            } else if byte != 0x0D {
                length += 1
            }
        }
        finish()
        return findings
    }

    private func check(_ calendar: Component, file: String) -> [LintFinding] {
        guard calendar.matches(.calendar) else { return [] }
        let resolver = TimeZoneResolver(calendar: calendar, file: file, comparisonYears: Self.years(usedIn: calendar))
        var findings = Self.calendarFindings(calendar, resolver: resolver, file: file)
        let hasMethod = calendar.property(.method) != nil
        var reportedTimeZones: Set<String> = []
        for component in calendar.components where !component.matches(.timeZone) {
            findings += check(component, file: file, resolver: resolver, hasMethod: hasMethod,
                              reportedTimeZones: &reportedTimeZones)
        }
        return findings
    }

    /// The findings about a VCALENDAR itself: its VERSION and PRODID, its VTIMEZONEs and
    /// X-WR-TIMEZONE (as `resolver`, made for it, reports them).
    static func calendarFindings(_ calendar: Component, resolver: TimeZoneResolver, file: String) -> [LintFinding] {
        var findings: [LintFinding] = []
        let calendarLine = calendar.line ?? 0
        if calendar.property(.version) == nil {
            findings.append(LintFinding(.warning, .missingVersion, file: file, line: calendarLine, component: "VCALENDAR",
                                        message: "VCALENDAR has no VERSION (RFC 5545 requires VERSION:2.0)"))
        }
        if calendar.property(.productIdentifier) == nil {
            findings.append(LintFinding(.warning, .missingProductIdentifier, file: file, line: calendarLine, component: "VCALENDAR",
                                        message: "VCALENDAR has no PRODID (RFC 5545 requires one)"))
        }
        for diagnostic in resolver.diagnostics where diagnostic.component == "VTIMEZONE" || diagnostic.property != nil
            && ASCII.equalsIgnoringCase(diagnostic.property ?? "", PropertyKind.calendarTimeZone.rawValue) {
            var finding = LintFinding(diagnostic, file: file)
            finding.rule = .timeZone
            findings.append(finding)
        }
        return findings
    }

    /// The findings about one component of a calendar (not a VTIMEZONE) and those inside it.
    func check(_ component: Component, file: String, resolver: TimeZoneResolver, hasMethod: Bool,
                       reportedTimeZones: inout Set<String>) -> [LintFinding] {
        var findings: [LintFinding] = []
        let name = component.name.uppercased()
        let line = component.line ?? 0
        func add(_ severity: Diagnostic.Severity, _ rule: LintRule, _ property: Property?, _ message: String) {
            findings.append(LintFinding(severity, rule, file: file, line: property?.line ?? line, component: name,
                                        property: property?.name.uppercased(), message: message))
        }
        let isItem = Self.itemKinds.contains { component.matches($0) }
        if isItem {
            if component.property(.uniqueIdentifier) == nil {
                add(.error, .missingUID, nil, "\(name) has no UID")
            }
            if component.property(.dateTimeStamp) == nil {
                add(.warning, .missingDateTimeStamp, nil, "\(name) has no DTSTAMP")
            }
        }
        if component.matches(.event), !hasMethod, component.property(.dateTimeStart) == nil {
            add(.error, .missingDateTimeStart, nil, "VEVENT has no DTSTART (required when the calendar has no METHOD)")
        }
        let start = component.dateTimeStart
        let endProperty = component.property(.dateTimeEnd) ?? component.property(.dateTimeDue)
        if let endProperty, let durationProperty = component.property(.duration) {
            add(.error, .endWithDuration, durationProperty,
                "\(name) has both \(endProperty.name.uppercased()) and DURATION; only one is allowed")
        }
        if let start, let endProperty, let end = endProperty.dateTimeValue {
            let endName = endProperty.name.uppercased()
            if start.isDate != end.isDate {
                add(.error, .endNotAfterStart, endProperty,
                    "\(endName) is a \(end.isDate ? "DATE" : "DATE-TIME") but DTSTART is a \(start.isDate ? "DATE" : "DATE-TIME")")
            } else if [start, end].allSatisfy({ value in value.timeZoneIdentifier.map { resolver.resolve($0) != nil } ?? true }) {
                // Compared only when both zones are known; an unknown TZID is its own finding.
                let startInstant = resolver.instant(for: start, floatingZone: FixedOffsetZone.utc)
                let endInstant = resolver.instant(for: end, floatingZone: FixedOffsetZone.utc)
                if endInstant <= startInstant {
                    add(.error, .endNotAfterStart, endProperty,
                        "\(endName) \(end) is not after DTSTART \(start)")
                }
            }
        }
        for property in component.properties {
            if let tzid = property[parameter: .timeZoneIdentifier], resolver.resolve(tzid) == nil,
               !reportedTimeZones.contains(tzid) {
                reportedTimeZones.insert(tzid)
                add(.warning, .unknownTimeZone, property,
                    "TZID \"\(tzid)\" has no VTIMEZONE here and is not an IANA, vendor-prefixed or Windows zone name")
            }
            if property.matches(.recurrenceRule) {
                for problem in Self.recurrenceRuleProblems(property.rawValue, start: start) {
                    add(.error, .invalidRecurrenceRule, property, problem)
                }
            }
            if property.matches(.exceptionDates), let start {
                let values = property.dateTimeValues
                if let mismatch = values.first(where: { $0.isDate != start.isDate }) {
                    add(.warning, .exceptionDateType, property,
                        "EXDATE \(mismatch) is a \(mismatch.isDate ? "DATE" : "DATE-TIME") but DTSTART is a "
                        + "\(start.isDate ? "DATE" : "DATE-TIME"); it excludes no occurrence in most programs")
                }
            }
        }
        for child in component.components {
            findings += check(child, file: file, resolver: resolver, hasMethod: hasMethod, reportedTimeZones: &reportedTimeZones)
        }
        return findings
    }

    /// The years a calendar's zoned values fall in, from the earliest to the latest (20
    /// years more for a recurring component), within 1970...2037: the years over which its
    /// VTIMEZONEs are compared with tzdata. A VTIMEZONE that states only today's rules (as
    /// most programs write them) then is not reported for disagreeing in 1970.
    static func years(usedIn calendar: Component) -> ClosedRange<Int> {
        var span = YearSpan()
        span.add(calendar)
        return span.years
    }

    /// ``years(usedIn:)`` gathered one component at a time (a streamed read).
    struct YearSpan {
        private var lower = Int.max, upper = Int.min

        /// Adds the zoned values of `component` and, with `children`, of those below it
        /// (VTIMEZONEs passed over).
        mutating func add(_ component: Component, children: Bool = true) {
            guard !component.matches(.timeZone) else { return }
            let recurring = component.property(.recurrenceRule) != nil
            for property in component.properties where property[parameter: .timeZoneIdentifier] != nil {
                for value in property.dateTimeValues {
                    lower = min(lower, value.date.year)
                    upper = max(upper, value.date.year + (recurring ? 20 : 0))
                }
            }
            if children { for child in component.components { add(child) } }
        }

        /// The years, clamped to 1970...2037 (all of them when nothing was added).
        var years: ClosedRange<Int> {
            guard lower <= upper else { return 1970...2037 }
            let clampedLower = min(max(lower, 1970), 2037)
            return clampedLower...max(clampedLower, min(upper, 2037))
        }
    }

    /// INTERVAL=0, COUNT=0 and an UNTIL of the wrong type for DTSTART, read from the text.
    static func recurrenceRuleProblems(_ text: String, start: DateTime?) -> [String] {
        var problems: [String] = []
        for part in text.split(separator: ";") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { String($0).trimmingASCIIWhitespace() }
            guard pieces.count == 2 else { continue }
            switch pieces[0].uppercased() {
            case "INTERVAL" where Int(pieces[1]).map({ $0 <= 0 }) ?? false:
                problems.append("RRULE INTERVAL=\(pieces[1]) must be a positive integer")
            case "COUNT" where Int(pieces[1]).map({ $0 <= 0 }) ?? false:
                problems.append("RRULE COUNT=\(pieces[1]) must be a positive integer")
            case "UNTIL":
                guard let until = DateTime(iCalendar: pieces[1]) else {
                    problems.append("RRULE UNTIL=\(pieces[1]) is not a DATE or DATE-TIME")
                    continue
                }
                guard let start else { continue }
                if until.isDate != start.isDate {
                    problems.append("RRULE UNTIL=\(pieces[1]) is a \(until.isDate ? "DATE" : "DATE-TIME") but DTSTART is a "
                                    + "\(start.isDate ? "DATE" : "DATE-TIME")")
                } else if !start.isDate, start.zone != .floating, until.zone != .utc {
                    problems.append("RRULE UNTIL=\(pieces[1]) must be in UTC (ending in Z) because DTSTART has a zone")
                } else if !start.isDate, start.zone == .floating, until.zone != .floating {
                    problems.append("RRULE UNTIL=\(pieces[1]) must be floating because DTSTART is floating")
                }
            default:
                continue
            }
        }
        return problems
    }

    /// Components that share a UID and RECURRENCE-ID, where SEQUENCE does not tell them apart.
    static func duplicates(_ calendars: [Component], file: String) -> [LintFinding] {
        var seen: [String: [Component]] = [:]
        var findings: [LintFinding] = []
        for calendar in calendars {
            for component in calendar.components where itemKinds.contains(where: { component.matches($0) }) {
                guard let uid = component.uid else { continue }
                let key = uid + "\u{0}" + (component.recurrenceIdentifier?.iCalendarText ?? "")
                if let earlier = seen[key]?.first(where: { $0.sequence == component.sequence }) {
                    let recurrence = component.recurrenceIdentifier.map { " and RECURRENCE-ID \($0.iCalendarText)" } ?? ""
                    let sequence = component.sequence.map { "the same SEQUENCE \($0)" } ?? "no SEQUENCE"
                    findings.append(LintFinding(.warning, .duplicateUID, file: file, line: component.line ?? 0,
                        component: component.name.uppercased(), property: "UID",
                        message: "UID \"\(uid)\"\(recurrence) is used again (first at line \(earlier.line ?? 0)) with "
                            + "\(sequence); programs keep either one"))
                }
                seen[key, default: []].append(component)
            }
        }
        return findings
    }
}
