
/// Checks the values of properties whose type RFC 5545 fixes, so an impossible value is
/// reported at its line instead of surfacing later as a wrong time.
///
/// Unknown and X- properties are never checked: their values are kept exactly as read.
enum PropertyValidation {
    struct Problem {
        var severity: Diagnostic.Severity
        var message: String
    }

    /// The checks there are, one per group of property names.
    private enum Check {
        case dateOrDateTime, exceptionDates, recurrenceDates, duration, rule, utcOffset, position, trigger, integer
    }

    /// The check a property name calls for (compared without regard to case), or nil: the
    /// reader calls this for every property, so it compares the name with the few names of
    /// its length instead of building and hashing a ``PropertyKind``. No checked name
    /// starts with `X-`, so experimental properties are never checked.
    private static func check(for name: String) -> Check? {
        var name = name
        return name.withUTF8(check(forName:))
    }

    /// ``check(for:)`` on the name's bytes, compared in place with the names in capitals.
    private static func check(forName name: UnsafeBufferPointer<UInt8>) -> Check? {
        func equals(_ known: StaticString) -> Bool { ASCII.equalsIgnoringCase(name, known) }
        switch name.count {
        case 3:
            if equals("DUE") { return .dateOrDateTime }
            if equals("GEO") { return .position }
        case 5:
            if equals("DTEND") { return .dateOrDateTime }
            if equals("RDATE") { return .recurrenceDates }
            if equals("RRULE") { return .rule }
        case 6:
            if equals("EXDATE") { return .exceptionDates }
            if equals("EXRULE") { return .rule }
            if equals("REPEAT") { return .integer }
        case 7:
            if equals("DTSTART") || equals("DTSTAMP") || equals("CREATED") { return .dateOrDateTime }
            if equals("TRIGGER") { return .trigger }
        case 8:
            if equals("DURATION") { return .duration }
            if equals("SEQUENCE") || equals("PRIORITY") { return .integer }
        case 9:
            if equals("COMPLETED") { return .dateOrDateTime }
        case 10:
            if equals("TZOFFSETTO") { return .utcOffset }
        case 12:
            if equals("TZOFFSETFROM") { return .utcOffset }
        case 13:
            if equals("RECURRENCE-ID") || equals("LAST-MODIFIED") { return .dateOrDateTime }
        case 16:
            if equals("PERCENT-COMPLETE") { return .integer }
        default:
            break
        }
        return nil
    }

    static func problem(with property: Property, in component: ComponentKind) -> Problem? {
        guard let check = check(for: property.name) else { return nil }
        var valueType: String? { property[parameter: .valueType].map(ASCII.uppercased) }
        switch check {
        case .dateOrDateTime:
            return checkDateOrDateTime(property.rawValue, name: property.name)
        case .exceptionDates:
            return checkList(property.rawValue, name: property.name, periods: false)
        case .recurrenceDates:
            return checkList(property.rawValue, name: property.name, periods: valueType == "PERIOD")
        case .duration:
            return DurationSyntax.isValid(property.rawValue) ? nil
                : Problem(severity: .error, message: "DURATION '\(property.rawValue)' is not an RFC 5545 duration such as PT1H30M or P1D; left out")
        case .rule:
            switch RuleVerdicts.verdict(property.rawValue) {
            case .error(let message):
                return Problem(severity: .error, message: "\(property.name) '\(property.rawValue)' cannot be read: \(message); left out")
            case .salvaged(_, let message):
                return Problem(severity: .warning, message: "\(property.name) '\(property.rawValue)': \(message); "
                                + "the bad part is ignored and the rest of the rule is kept")
            case .warning(let message):
                return Problem(severity: .warning, message: "\(property.name) '\(property.rawValue)': \(message); kept")
            case .none:
                return nil
            }
        case .utcOffset:
            let text = String(property.rawValue.trimmingSpaces)
            if let message = UTCOffset.problem(text) {
                return Problem(severity: .error, message: "\(property.name) '\(property.rawValue)' is not a UTC offset: \(message); left out")
            }
            if let message = UTCOffset.warning(text) {
                return Problem(severity: .warning, message: "\(property.name) '\(property.rawValue)': \(message); kept")
            }
            return nil
        case .position:
            return property.geographicPositionValue != nil ? nil
                : Problem(severity: .error, message: "GEO '\(property.rawValue)' is not a latitude;longitude pair within ±90;±180 such as 37.386013;-122.082932; left out")
        case .trigger:
            if valueType == "DATE-TIME" {
                if let problem = checkDateOrDateTime(property.rawValue, name: property.name) { return problem }
                return property.rawValue.hasSuffix("Z") ? nil
                    : Problem(severity: .warning, message: "TRIGGER '\(property.rawValue)' with VALUE=DATE-TIME must be a UTC time (RFC 5545 §3.8.6.3); kept")
            }
            return DurationSyntax.isValid(property.rawValue) ? nil
                : Problem(severity: .error, message: "TRIGGER '\(property.rawValue)' is neither a duration nor (with VALUE=DATE-TIME) a date-time; left out")
        case .integer:
            return Int(property.rawValue.trimmingSpaces) == nil
                ? Problem(severity: .error, message: "\(property.name) '\(property.rawValue)' is not an integer; left out")
                : nil
        }
    }

    /// What reading a RECUR value gives, remembered per text: a large calendar repeats
    /// the same rules (and every file the same VTIMEZONE rules), and each reading parses
    /// the rule and asks libical under its lock.
    enum RuleVerdicts {
        enum Verdict: Sendable {
            /// The rule cannot be read: why.
            case error(String)
            /// The rule is read, but breaks a softer RFC 5545 rule: the first one.
            case warning(String)
            /// The rule cannot be read as written, but is well defined without its bad
            /// parts: the rule to expand, and what was dropped.
            case salvaged(String, String)
            /// The rule is fine.
            case none
        }

        private static let known = ReadMostlyCache<String, Verdict>()
        /// How many verdicts ``known`` keeps before it starts again: enough for every
        /// distinct RRULE of a large file, so that a query's expansion, which asks again
        /// after the reader asked for each, does not parse them a second time (a few
        /// megabytes at most).
        static let knownLimit = 65_536

        /// The text to expand a rule from: the rule without its bad parts when only they
        /// made it unreadable (see ``RecurrenceRule/salvaging(_:)``), else as written.
        static func expandableText(_ text: String) -> String {
            if case .salvaged(let rule, _) = verdict(text) { return rule }
            return text
        }

        static func verdict(_ text: String) -> Verdict {
            if let verdict = known[text] { return verdict }
            // One reading gives both the error and, for a readable rule, the first warning.
            let verdict: Verdict
            do {
                let rule = try RecurrenceRule(validating: text)
                verdict = rule.warnings.first.map(Verdict.warning) ?? .none
            } catch {
                if let salvaged = RecurrenceRule.salvaging(text) {
                    verdict = .salvaged(salvaged.rule.iCalendarText, salvaged.dropped.joined(separator: "; "))
                } else {
                    verdict = .error(error.message)
                }
            }
            known.update { known in
                if known.count >= knownLimit { known.removeAll(keepingCapacity: true) }
                known[text] = verdict
            }
            return verdict
        }
    }

    private static func checkDateOrDateTime(_ raw: String, name: String) -> Problem? {
        guard let message = DateSyntax.problem(raw) else {
            return DateSyntax.isZonedDate(raw) ? zonedDateWarning(raw, name: name) : nil
        }
        return Problem(severity: .error, message: "\(name) '\(raw)' is not a valid date or date-time: \(message); left out")
    }

    /// A DATE written with a 'Z', which Google's birthday calendars do: read as the date.
    private static func zonedDateWarning(_ item: some StringProtocol, name: String) -> Problem {
        Problem(severity: .warning,
                message: "\(name) value '\(item)' is a DATE with a 'Z' (a DATE has no time zone); read as the date \(item.dropLast()); kept")
    }

    private static func checkList(_ raw: String, name: String, periods: Bool) -> Problem? {
        var zonedDate: Problem?
        for item in raw.split(separator: ",", omittingEmptySubsequences: false) {
            var text = Substring(item)
            if periods, let slash = text.firstIndex(of: "/") {
                let end = text[text.index(after: slash)...]
                if end.hasPrefix("P") || end.hasPrefix("+P") || end.hasPrefix("-P") {
                    if !DurationSyntax.isValid(String(end)) {
                        return Problem(severity: .error, message: "\(name) period '\(item)' has an invalid duration; left out")
                    }
                } else if let message = DateSyntax.problem(String(end)) {
                    return Problem(severity: .error, message: "\(name) period '\(item)' has an invalid end: \(message); left out")
                }
                text = text[..<slash]
            }
            if let message = DateSyntax.problem(String(text)) {
                return Problem(severity: .error, message: "\(name) value '\(item)' is not a valid date or date-time: \(message); left out")
            }
            if zonedDate == nil, DateSyntax.isZonedDate(text) { zonedDate = zonedDateWarning(text, name: name) }
        }
        return zonedDate
    }
}

extension String {
    var trimmingSpaces: Substring {
        // A first or last Character that is a space is a first or last byte 0x20: without
        // one there is nothing to trim (most values), and no Characters need be formed.
        if utf8.first != 0x20 && utf8.last != 0x20 { return self[...] }
        let trimmed = drop { $0 == " " }
        return trimmed.dropLast(trimmed.reversed().prefix { $0 == " " }.count)
    }
}

/// The DATE and DATE-TIME grammar of RFC 5545 §3.3.4 and §3.3.5, with calendar checks
/// (no 20240231, no hour 25) that libical does not make.
enum DateSyntax {
    /// nil when `raw` is `YYYYMMDD` or `YYYYMMDDTHHMMSS[Z]` naming a real instant.
    static func problem(_ raw: String) -> String? {
        // Every date of every file goes through here: read the bytes in place when they are.
        if let result = raw.utf8.withContiguousStorageIfAvailable({ problem(bytes: $0) }) { return result }
        return problem(bytes: Array(raw.utf8))
    }

    private static func problem<Bytes: RandomAccessCollection<UInt8>>(bytes: Bytes) -> String? where Bytes.Index == Int {
        guard bytes.count == 8 || bytes.count == 15 || bytes.count == 16
                || (bytes.count == 9 && bytes[8] == UInt8(ascii: "Z")) else {
            return "expected YYYYMMDD or YYYYMMDDTHHMMSS with an optional Z"
        }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8) else {
            return "the date part must be eight digits"
        }
        guard (1...12).contains(month) else { return "month \(month) does not exist" }
        let days = daysInMonth(year: year, month: month)
        guard (1...days).contains(day) else {
            return "day \(day) does not exist in \(year)-\(month < 10 ? "0" : "")\(month)"
        }
        guard bytes.count > 9 else { return nil }  // YYYYMMDD, or YYYYMMDDZ (see `zonedDate`)
        guard bytes[8] == UInt8(ascii: "T") else { return "expected 'T' between date and time" }
        guard let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15) else {
            return "the time part must be six digits"
        }
        guard hour <= 23 else { return "hour \(hour) does not exist" }
        guard minute <= 59 else { return "minute \(minute) does not exist" }
        guard second <= 60 else { return "second \(second) does not exist" }
        if bytes.count == 16 && bytes[15] != UInt8(ascii: "Z") { return "only 'Z' may follow the time" }
        return nil
    }

    /// Whether `raw` is a DATE written with a 'Z' (`20121210Z`): read as the date, with a warning.
    static func isZonedDate(_ raw: some StringProtocol) -> Bool {
        // Every date the reader checks comes here: most are not 9 bytes long.
        let utf8 = raw.utf8
        guard utf8.count == 9 else { return false }
        var index = utf8.startIndex
        for _ in 0..<8 {
            guard utf8[index] >= 0x30 && utf8[index] <= 0x39 else { return false }
            utf8.formIndex(after: &index)
        }
        return utf8[index] == UInt8(ascii: "Z")
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// The DURATION grammar of RFC 5545 §3.3.6 (`P1W`, `-PT15M`, `P1DT2H`).
enum DurationSyntax {
    static func isValid(_ raw: String) -> Bool {
        var bytes = Substring(raw).utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        guard bytes.first == UInt8(ascii: "P") else { return false }
        bytes = bytes.dropFirst()
        var inTime = false
        var digits = 0
        var sawPart = false
        var sawWeek = false
        var order = 0  // D=1 H=2 M=3 S=4 to enforce order
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "T"):
                guard !inTime, digits == 0, !sawWeek else { return false }
                inTime = true
            case UInt8(ascii: "W"):
                guard !inTime, digits > 0, !sawPart else { return false }
                sawWeek = true; sawPart = true; digits = 0
            case UInt8(ascii: "D"):
                guard !inTime, digits > 0, !sawWeek, order < 1 else { return false }
                order = 1; sawPart = true; digits = 0
            case UInt8(ascii: "H"), UInt8(ascii: "M"), UInt8(ascii: "S"):
                let rank = byte == UInt8(ascii: "H") ? 2 : byte == UInt8(ascii: "M") ? 3 : 4
                guard inTime, digits > 0, order < rank else { return false }
                order = rank; sawPart = true; digits = 0
            default: return false
            }
        }
        if sawWeek && order > 0 { return false }
        return sawPart && digits == 0 && (!inTime || order >= 2)
    }
}
