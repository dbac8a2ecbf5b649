/// An RFC 5545 RECUR value (§3.3.10), with the RFC 7529 parts RSCALE and SKIP: the text
/// of an `RRULE` or `EXRULE` property.
///
/// Every part is modelled. Parts of no RFC are kept in ``extensions`` in the order they
/// were read, so nothing is lost; libical cannot read them, so they are left out of what is
/// handed to it. ``iCalendarText`` writes the canonical order (FREQ first, then RSCALE,
/// UNTIL, COUNT, INTERVAL, the BYxxx parts in RFC order, WKST, SKIP and the extensions),
/// so a rule written in that order is read and written back unchanged.
///
/// ```swift
/// let rule = RecurrenceRule(iCalendar: "FREQ=MONTHLY;COUNT=10;BYDAY=1FR")
/// rule?.byDay     // [WeekdayNumber(ordinal: 1, weekday: .friday)]
/// ```
///
/// See RFC 5545 §3.3.10 and RFC 7529. The corresponding libical type is
/// `struct icalrecurrencetype`, read by `icalrecurrencetype_from_string`.
public struct RecurrenceRule: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How often the rule repeats (the FREQ part).
    public enum Frequency: String, Sendable, Hashable, Codable, CaseIterable {
        case secondly = "SECONDLY"
        case minutely = "MINUTELY"
        case hourly = "HOURLY"
        case daily = "DAILY"
        case weekly = "WEEKLY"
        case monthly = "MONTHLY"
        case yearly = "YEARLY"
    }

    /// A day of the week as RECUR writes it (`MO` ... `SU`).
    ///
    /// The corresponding libical type is `icalrecurrencetype_weekday`.
    public enum Weekday: String, Sendable, Hashable, Codable, CaseIterable {
        case monday = "MO"
        case tuesday = "TU"
        case wednesday = "WE"
        case thursday = "TH"
        case friday = "FR"
        case saturday = "SA"
        case sunday = "SU"

        /// The ISO weekday number: 1 is Monday, 7 is Sunday (as ``CalendarDate/isoWeekday``).
        public var isoNumber: Int {
            switch self {
            case .monday: return 1
            case .tuesday: return 2
            case .wednesday: return 3
            case .thursday: return 4
            case .friday: return 5
            case .saturday: return 6
            case .sunday: return 7
            }
        }
    }

    /// One BYDAY entry: a weekday with an optional ordinal (`MO`, `1FR`, `-1SU`).
    ///
    /// See RFC 5545 §3.3.10 (`weekdaynum`).
    public struct WeekdayNumber: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The nth occurrence in the month or year (±1...53), or nil for every occurrence.
        public var ordinal: Int?
        /// The weekday.
        public var weekday: Weekday

        /// Creates an entry; `ordinal` nil means every such weekday in the period.
        public init(ordinal: Int? = nil, weekday: Weekday) {
            self.ordinal = ordinal
            self.weekday = weekday
        }

        /// Reads `MO`, `+1MO`, `-2FR` (the ordinal is not range-checked here).
        public init?(iCalendar text: some StringProtocol) {
            let text = String(text)
            guard text.utf8.count >= 2, let weekday = Weekday(rawValue: ASCII.uppercased(String(text.suffix(2)))) else {
                return nil
            }
            let ordinalText = text.dropLast(2)
            if ordinalText.isEmpty {
                self.init(weekday: weekday)
            } else {
                guard let ordinal = RecurrenceRule.integer(ordinalText, signed: true) else { return nil }
                self.init(ordinal: ordinal, weekday: weekday)
            }
        }

        /// `MO`, `1FR`, `-1SU`.
        public var iCalendarText: String { (ordinal.map(String.init) ?? "") + weekday.rawValue }
        public var description: String { iCalendarText }
    }

    /// One BYMONTH entry: a month number, possibly a leap month (`5L`, RFC 7529).
    public struct Month: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The month number in the rule's calendar scale (1...12, or 13 in some scales).
        public var number: Int
        /// Whether this is the leap month after month `number` (RFC 7529 `L` suffix).
        public var isLeap: Bool

        /// Creates a month entry.
        public init(_ number: Int, isLeap: Bool = false) {
            self.number = number
            self.isLeap = isLeap
        }

        /// Reads `5` or `5L` (the number is not range-checked here).
        public init?(iCalendar text: some StringProtocol) {
            var digits = Substring(text)
            let isLeap = digits.hasSuffix("L") || digits.hasSuffix("l")
            if isLeap { digits = digits.dropLast() }
            guard let number = RecurrenceRule.integer(digits, signed: false) else { return nil }
            self.init(number, isLeap: isLeap)
        }

        /// `5` or `5L`.
        public var iCalendarText: String { String(number) + (isLeap ? "L" : "") }
        public var description: String { iCalendarText }
    }

    /// What to do when a recurrence names a day the calendar scale lacks (RFC 7529 SKIP).
    public enum Skip: String, Sendable, Hashable, Codable, CaseIterable {
        /// Leave the instance out (the default).
        case omit = "OMIT"
        /// Use the day before.
        case backward = "BACKWARD"
        /// Use the day after.
        case forward = "FORWARD"
    }

    /// A rule part of no RFC (`X-NAME=value`), kept exactly as written.
    public struct Part: Sendable, Hashable, Codable {
        /// The part name as written.
        public var name: String
        /// The value as written.
        public var value: String

        /// Creates a part.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// FREQ: how often the rule repeats. Required.
    public var frequency: Frequency
    /// INTERVAL (1...2147483647), or nil when not written (meaning 1).
    public var interval: Int?
    /// COUNT (≥ 1): how many instances, DTSTART included. Not together with ``until``.
    public var count: Int?
    /// UNTIL: the last possible instance, a DATE, a floating or a UTC DATE-TIME.
    public var until: DateTime?
    /// BYSECOND (0...60).
    public var bySecond: [Int]
    /// BYMINUTE (0...59).
    public var byMinute: [Int]
    /// BYHOUR (0...23).
    public var byHour: [Int]
    /// BYDAY: weekdays, with ordinals for MONTHLY and YEARLY rules.
    public var byDay: [WeekdayNumber]
    /// BYMONTHDAY (±1...31).
    public var byMonthDay: [Int]
    /// BYYEARDAY (±1...366).
    public var byYearDay: [Int]
    /// BYWEEKNO (±1...53), YEARLY rules only.
    public var byWeekNumber: [Int]
    /// BYMONTH, with RFC 7529 leap months.
    public var byMonth: [Month]
    /// BYSETPOS (±1...366), only together with another BYxxx part.
    public var bySetPosition: [Int]
    /// WKST: the first day of the week, or nil when not written (meaning Monday).
    public var weekStart: Weekday?
    /// RSCALE: the CLDR calendar scale (RFC 7529), uppercased, or nil for Gregorian.
    public var calendarScale: String?
    /// SKIP (RFC 7529), only together with ``calendarScale``; nil when not written (OMIT).
    public var skip: Skip?
    /// Parts of no RFC (X- names and unknown names), in the order read.
    public var extensions: [Part]

    /// Creates a rule from its parts.
    public init(
        frequency: Frequency, interval: Int? = nil, count: Int? = nil, until: DateTime? = nil,
        bySecond: [Int] = [], byMinute: [Int] = [], byHour: [Int] = [], byDay: [WeekdayNumber] = [],
        byMonthDay: [Int] = [], byYearDay: [Int] = [], byWeekNumber: [Int] = [], byMonth: [Month] = [],
        bySetPosition: [Int] = [], weekStart: Weekday? = nil, calendarScale: String? = nil, skip: Skip? = nil,
        extensions: [Part] = []
    ) {
        self.frequency = frequency
        self.interval = interval
        self.count = count
        self.until = until
        self.bySecond = bySecond
        self.byMinute = byMinute
        self.byHour = byHour
        self.byDay = byDay
        self.byMonthDay = byMonthDay
        self.byYearDay = byYearDay
        self.byWeekNumber = byWeekNumber
        self.byMonth = byMonth
        self.bySetPosition = bySetPosition
        self.weekStart = weekStart
        self.calendarScale = calendarScale
        self.skip = skip
        self.extensions = extensions
    }

    /// Reads a rule, or nil when its grammar or a part's range is wrong: the checks of
    /// ``init(validating:)`` made in Swift alone, without asking libical. Unlike
    /// ``init(validating:)`` it never takes the libical lock, so it may be called anywhere.
    public init?(iCalendar text: some StringProtocol) {
        guard let rule = try? RecurrenceRule.parse(String(text)), rule.validationProblem() == nil else { return nil }
        self = rule
    }

    /// Reads a rule and checks it: the grammar, the ranges of every part, the RFC 5545 and
    /// RFC 7529 rules that libical enforces or that would make its iterator loop without end
    /// (COUNT with UNTIL, a leap month without RSCALE), and finally that libical's
    /// `icalrecurrencetype_from_string` reads it too.
    ///
    /// Names and keyword values are read without regard to case. Empty parts (`;;`) are
    /// skipped. Rules that break a softer RFC 5545 rule libical tolerates (an ordinal BYDAY
    /// in a WEEKLY rule) are accepted and listed by ``warnings``.
    ///
    /// It takes the libical lock (see `Libical.withLock`), so it must not be called while
    /// that lock is held.
    ///
    /// - Throws: ``ICalError`` with code ``ICalError/Code/invalidValue`` and a message that
    ///   names the part, for example `COUNT and UNTIL must not both be given`.
    public init(validating text: some StringProtocol) throws(ICalError) {
        self = try Self.parse(String(text))
        try validate()
    }

    /// The canonical text: `FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH`.
    public var iCalendarText: String { text(includingExtensions: true) }

    public var description: String { iCalendarText }

    /// The canonical text without ``extensions``: what libical is given.
    var libicalText: String { text(includingExtensions: false) }

    private func text(includingExtensions: Bool) -> String {
        var parts = ["FREQ=" + frequency.rawValue]
        func add(_ name: String, _ values: [String]) {
            if !values.isEmpty { parts.append(name + "=" + values.joined(separator: ",")) }
        }
        if let calendarScale { parts.append("RSCALE=" + calendarScale) }
        if let until { parts.append("UNTIL=" + until.iCalendarText) }
        if let count { parts.append("COUNT=\(count)") }
        if let interval { parts.append("INTERVAL=\(interval)") }
        add("BYSECOND", bySecond.map(String.init))
        add("BYMINUTE", byMinute.map(String.init))
        add("BYHOUR", byHour.map(String.init))
        add("BYDAY", byDay.map(\.iCalendarText))
        add("BYMONTHDAY", byMonthDay.map(String.init))
        add("BYYEARDAY", byYearDay.map(String.init))
        add("BYWEEKNO", byWeekNumber.map(String.init))
        add("BYMONTH", byMonth.map(\.iCalendarText))
        add("BYSETPOS", bySetPosition.map(String.init))
        if let weekStart { parts.append("WKST=" + weekStart.rawValue) }
        if let skip { parts.append("SKIP=" + skip.rawValue) }
        if includingExtensions {
            parts += extensions.map { $0.name + "=" + $0.value }
        }
        return parts.joined(separator: ";")
    }

    // MARK: Validation

    /// Checks the parts against RFC 5545 §3.3.10 and RFC 7529 (ranges, COUNT with UNTIL,
    /// UNTIL's form, leap months and SKIP without RSCALE), then checks that libical's
    /// `icalrecurrencetype_from_string` reads ``iCalendarText`` without the extension parts.
    /// Use it on rules built in Swift before handing them on.
    ///
    /// It takes the libical lock, so it must not be called while that lock is held.
    ///
    /// - Throws: ``ICalError`` with code ``ICalError/Code/invalidValue``.
    public func validate() throws(ICalError) {
        if let message = validationProblem() { throw ICalError(.invalidValue, message) }
        // libical reads a copy whose INTERVAL fits its short (it never expands with INTERVAL).
        var copy = self
        if let interval, interval > Self.maximumCalendarScaleInterval { copy.interval = 1 }
        if let message = Libical.recurrenceRuleProblem(copy.libicalText) { throw ICalError(.invalidValue, message) }
    }

    func validationProblem() -> String? {
        if count != nil && until != nil { return "COUNT and UNTIL must not both be given" }
        if let count, !(1...Self.maximumCount).contains(count) { return "COUNT=\(count) is not a positive integer below 2^31" }
        if let interval {
            // Gregorian rules expand in Swift; RSCALE rules in libical with INTERVAL=1, the
            // INTERVAL counted in Swift (CalendarScaleIntervalFilter): any C int either way.
            if !(1...Self.maximumInterval).contains(interval) {
                return "INTERVAL=\(interval) is not a positive integer up to \(Self.maximumInterval)"
            }
        }
        if let until, case .identifier = until.zone {
            return "UNTIL must be a DATE, a floating or a UTC DATE-TIME, not a time in a named zone"
        }
        func check(_ name: String, _ values: [Int], _ range: ClosedRange<Int>, signed: Bool) -> String? {
            for value in values {
                let fits = signed ? value != 0 && range.contains(abs(value)) : range.contains(value)
                if !fits {
                    return "\(name) has \(value), outside \(signed ? "±" : "")\(range.lowerBound)...\(range.upperBound)"
                }
            }
            return nil
        }
        if let message = check("BYSECOND", bySecond, 0...60, signed: false)
            ?? check("BYMINUTE", byMinute, 0...59, signed: false)
            ?? check("BYHOUR", byHour, 0...23, signed: false)
            ?? check("BYMONTHDAY", byMonthDay, 1...31, signed: true)
            ?? check("BYYEARDAY", byYearDay, 1...366, signed: true)
            ?? check("BYWEEKNO", byWeekNumber, 1...53, signed: true)
            ?? check("BYSETPOS", bySetPosition, 1...366, signed: true) {
            return message
        }
        for day in byDay {
            if let ordinal = day.ordinal, ordinal == 0 || abs(ordinal) > 53 {
                return "BYDAY has \(day), whose ordinal is outside ±1...53"
            }
        }
        let maximumMonth = calendarScale == nil ? 12 : 13
        for month in byMonth {
            guard (1...maximumMonth).contains(month.number) else {
                return calendarScale == nil
                    ? "BYMONTH has \(month), outside 1...12 (month 13 needs RSCALE, RFC 7529)"
                    : "BYMONTH has \(month), outside 1...13"
            }
            if month.isLeap && calendarScale == nil {
                return "BYMONTH has the leap month \(month), which needs RSCALE (RFC 7529)"
            }
        }
        if skip != nil && calendarScale == nil { return "SKIP must not be given without RSCALE (RFC 7529 §4.1)" }
        if let calendarScale, calendarScale.isEmpty || !calendarScale.utf8.allSatisfy(ASCII.isNameByte) {
            return "RSCALE=\(calendarScale) is not a calendar scale name"
        }
        for part in extensions where !part.name.utf8.allSatisfy(ASCII.isNameByte) || part.name.isEmpty {
            return "'\(part.name)' is not a rule part name"
        }
        return nil
    }

    /// RFC 5545 rules this rule breaks that libical tolerates: an ordinal BYDAY outside
    /// MONTHLY and YEARLY rules, BYWEEKNO outside YEARLY, BYYEARDAY in DAILY, WEEKLY or
    /// MONTHLY, BYMONTHDAY in WEEKLY, BYSETPOS alone, an RSCALE libical does not know, and
    /// unknown parts (kept, but ignored in expansion).
    ///
    /// The RSCALE check asks libical once per process, under its lock.
    public var warnings: [String] {
        var result: [String] = []
        if byDay.contains(where: { $0.ordinal != nil }) {
            if frequency != .monthly && frequency != .yearly {
                result.append("BYDAY with an ordinal is only for MONTHLY and YEARLY rules (RFC 5545 §3.3.10); "
                              + "the ordinal is ignored and the weekday applies")
            } else if frequency == .yearly && !byWeekNumber.isEmpty {
                result.append("BYDAY with an ordinal must not be combined with BYWEEKNO (RFC 5545 §3.3.10)")
            }
        }
        if !byWeekNumber.isEmpty && frequency != .yearly {
            result.append("BYWEEKNO is only for YEARLY rules (RFC 5545 §3.3.10); applied as a limit on the week number")
        }
        if !byYearDay.isEmpty && [.daily, .weekly, .monthly].contains(frequency) {
            result.append("BYYEARDAY must not be used in \(frequency.rawValue) rules (RFC 5545 §3.3.10); applied as a limit on the day of the year")
        }
        if !byMonthDay.isEmpty && frequency == .weekly {
            result.append("BYMONTHDAY must not be used in WEEKLY rules (RFC 5545 §3.3.10); applied as a limit on the day of the month")
        }
        let hasOtherBy = !(bySecond.isEmpty && byMinute.isEmpty && byHour.isEmpty && byDay.isEmpty && byMonthDay.isEmpty
            && byYearDay.isEmpty && byWeekNumber.isEmpty && byMonth.isEmpty)
        if !bySetPosition.isEmpty && !hasOtherBy {
            result.append("BYSETPOS must be used with another BYxxx part (RFC 5545 §3.3.10)")
        }
        if let calendarScale, !Libical.supportedCalendarScales.isEmpty,
           !Libical.supportedCalendarScales.contains(calendarScale) {
            result.append("RSCALE=\(calendarScale) is not a calendar scale libical knows; the rule expands to nothing")
        }
        for part in extensions where !ASCII.uppercased(part.name).hasPrefix("X-") {
            result.append("\(part.name) is not a rule part of RFC 5545 or RFC 7529; kept, but ignored in expansion")
        }
        return result
    }

    /// The largest COUNT libical can hold (a C `int`).
    static let maximumCount = Int(Int32.max)
    /// The largest INTERVAL (RFC 5545 sets no bound; a C `int`).
    static let maximumInterval = Int(Int32.max)
    /// The largest INTERVAL libical reads: it holds INTERVAL in a C `short` in
    /// `struct icalrecurrencetype`. It only checks the grammar of copies with a smaller one.
    static let maximumCalendarScaleInterval = Int(Int16.max)

    // MARK: Parsing

    /// Reads the grammar and fills in the parts; ranges are checked by `validationProblem`.
    static func parse(_ raw: String) throws(ICalError) -> RecurrenceRule {
        func fail(_ message: String) -> ICalError { ICalError(.invalidValue, message) }
        if raw.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { throw fail("the rule holds a control character") }
        var rule = RecurrenceRule(frequency: .daily)
        var sawFrequency = false
        var seen = Set<String>()
        // Control characters are refused above, so in an ASCII rule every byte is a
        // Character and splitting the bytes gives the parts splitting the Characters gives,
        // without breaking the text into grapheme clusters first.
        let parts = raw.utf8.allSatisfy({ $0 < 0x80 })
            ? raw.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true).map { Substring($0) }
            : raw.split(separator: ";", omittingEmptySubsequences: true)
        for part in parts {
            guard let equals = part.firstIndex(of: "=") else { throw fail("part '\(part)' has no '='") }
            let name = String(part[..<equals])
            let key = ASCII.uppercased(name)
            let value = part[part.index(after: equals)...]
            let known = knownParts.contains(key)
            if known && !seen.insert(key).inserted { throw fail("\(key) appears twice") }
            if known && value.isEmpty { throw fail("\(key) has no value") }
            func list<T>(_ read: (Substring) -> T?, _ what: String) throws(ICalError) -> [T] {
                var result: [T] = []
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let element = read(item) else { throw fail("\(key)=\(value) has '\(item)', \(what)") }
                    result.append(element)
                }
                return result
            }
            let unsigned: (Substring) -> Int? = { integer($0, signed: false) }
            let signed: (Substring) -> Int? = { integer($0, signed: true) }
            switch key {
            case "FREQ":
                guard let frequency = Frequency(rawValue: ASCII.uppercased(String(value))) else {
                    throw fail("FREQ=\(value) is not one of \(Frequency.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                rule.frequency = frequency
                sawFrequency = true
            case "INTERVAL":
                guard let number = integer(value, signed: false) else { throw fail("INTERVAL=\(value) is not a positive integer") }
                rule.interval = number
            case "COUNT":
                guard let number = integer(value, signed: false) else { throw fail("COUNT=\(value) is not a positive integer") }
                rule.count = number
            case "UNTIL":
                if let message = DateSyntax.problem(String(value)) { throw fail("UNTIL=\(value): \(message)") }
                guard let until = DateTime(iCalendar: value) else { throw fail("UNTIL=\(value) is not a date or date-time") }
                rule.until = until
            case "BYSECOND": rule.bySecond = try list(unsigned, "not a second")
            case "BYMINUTE": rule.byMinute = try list(unsigned, "not a minute")
            case "BYHOUR": rule.byHour = try list(unsigned, "not an hour")
            case "BYDAY": rule.byDay = try list(WeekdayNumber.init(iCalendar:), "not a weekday such as MO or -1FR")
            case "BYMONTHDAY": rule.byMonthDay = try list(signed, "not an integer")
            case "BYYEARDAY": rule.byYearDay = try list(signed, "not an integer")
            case "BYWEEKNO": rule.byWeekNumber = try list(signed, "not an integer")
            case "BYMONTH": rule.byMonth = try list(Month.init(iCalendar:), "not a month such as 5 or 5L")
            case "BYSETPOS": rule.bySetPosition = try list(signed, "not an integer")
            case "WKST":
                guard let weekday = Weekday(rawValue: ASCII.uppercased(String(value))) else {
                    throw fail("WKST=\(value) is not a weekday such as MO or SU")
                }
                rule.weekStart = weekday
            case "RSCALE":
                rule.calendarScale = ASCII.uppercased(String(value))
            case "SKIP":
                guard let skip = Skip(rawValue: ASCII.uppercased(String(value))) else {
                    throw fail("SKIP=\(value) is not one of OMIT, BACKWARD, FORWARD")
                }
                rule.skip = skip
            default:
                guard !name.isEmpty, name.utf8.allSatisfy(ASCII.isNameByte) else {
                    throw fail("'\(name)' is not a rule part name")
                }
                rule.extensions.append(Part(name: name, value: String(value)))
            }
        }
        guard sawFrequency else { throw fail("FREQ is missing") }
        return rule
    }

    /// A rule that cannot be read as written but is well defined without its bad parts
    /// (`FREQ=WEEKLY;UNTIL=20240331;COUNT=-1;INTERVAL=4;BYDAY=MO` without `COUNT=-1`): the
    /// rule read without them, and why each was dropped.
    ///
    /// A part is bad when a rule of FREQ and that part alone cannot be read, or when it
    /// repeats a part already kept. A bad COUNT, UNTIL, INTERVAL, WKST or SKIP is dropped
    /// (the rule then runs without it). A BYxxx list keeps its good items (`BYDAY=MO,XX` is
    /// `BYDAY=MO`), items with spaces around them read without the spaces
    /// (`BYDAY=MO, TU` is `BYDAY=MO,TU`); a BYxxx part with no good item is not dropped, since the rule without
    /// that filter would mean something else. Nil when FREQ or RSCALE is bad, when nothing
    /// can be dropped, or when what remains still cannot be read (COUNT and UNTIL both
    /// valid). Unknown part names are kept, as always.
    static func salvaging(_ raw: String) -> (rule: RecurrenceRule, dropped: [String])? {
        let parts = raw.split(separator: ";", omittingEmptySubsequences: true).map(String.init)
        guard let frequencyPart = parts.first(where: { ASCII.uppercased(String($0.prefix(5))) == "FREQ=" }),
              (try? RecurrenceRule(validating: frequencyPart)) != nil else { return nil }
        func reason(_ part: String) -> String? {
            do {
                _ = try RecurrenceRule(validating: frequencyPart + ";" + part)
                return nil
            } catch {
                return error.message
            }
        }
        var kept: [String] = []
        var seen = Set<String>()
        var dropped: [String] = []
        for part in parts {
            guard part != frequencyPart else { kept.append(part); continue }
            let name = String(part.prefix { $0 != "=" })
            let key = ASCII.uppercased(name)
            if knownParts.contains(key), seen.contains(key) {
                dropped.append("\(part) repeats \(key)")
                continue
            }
            guard let message = reason(part) else {
                seen.insert(key)
                kept.append(part)
                continue
            }
            if key.hasPrefix("BY") {
                let items = part.dropFirst(name.count + 1).split(separator: ",", omittingEmptySubsequences: false)
                // An item with spaces around it (`BYDAY=MO, TU, WE`, Microsoft Exchange) is
                // read without them: dropping it would change what the rule means.
                var good: [String] = []
                var spaced = false
                for item in items {
                    if reason(name + "=" + item) == nil { good.append(String(item)); continue }
                    let trimmed = String(item).trimmingASCIIWhitespace()
                    if !trimmed.isEmpty, trimmed != String(item), reason(name + "=" + trimmed) == nil {
                        good.append(trimmed)
                        spaced = true
                    }
                }
                guard !good.isEmpty, good.count < items.count || spaced else { return nil }
                seen.insert(key)
                let readAs = name + "=" + good.joined(separator: ",")
                kept.append(readAs)
                dropped.append(good.count == items.count ? "\(part) has spaces around its items, read as \(readAs)" : message)
            } else if key == "RSCALE" || key == "FREQ" {
                return nil
            } else {
                dropped.append(message)
            }
        }
        guard !dropped.isEmpty, let rule = try? RecurrenceRule(validating: kept.joined(separator: ";")) else { return nil }
        return (rule, dropped)
    }

    static let knownParts: Set<String> = [
        "FREQ", "INTERVAL", "COUNT", "UNTIL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY",
        "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST", "RSCALE", "SKIP",
    ]

    /// `[+|-]1*DIGIT` as an Int (at most 10 digits), or nil. `signed: false` refuses signs.
    static func integer(_ text: Substring, signed: Bool) -> Int? {
        var digits = text.utf8[...]
        var negative = false
        if signed, let first = digits.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let magnitude = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return negative ? -magnitude : magnitude
    }
}
