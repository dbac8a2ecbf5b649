/// The parts of an RRULE as written, read just far enough for the expander to fix what
/// libical gets wrong (weekly BYSETPOS, BYWEEKNO with WKST, COUNT, UNTIL) and to hand libical
/// a rewritten copy. See RFC 5545 §3.3.10.
struct RecurrenceRuleText: Sendable, Hashable {
    /// FREQ values, with the length of one period used to size iteration budgets.
    enum Frequency: String, Sendable, CaseIterable {
        case secondly = "SECONDLY", minutely = "MINUTELY", hourly = "HOURLY", daily = "DAILY"
        case weekly = "WEEKLY", monthly = "MONTHLY", yearly = "YEARLY"

        /// The longest wall-clock length of one period in seconds.
        var periodSeconds: Int64 {
            switch self {
            case .secondly: return 1
            case .minutely: return 60
            case .hourly: return 3600
            case .daily: return 86_400
            case .weekly: return 7 * 86_400
            case .monthly: return 31 * 86_400
            case .yearly: return 366 * 86_400
            }
        }
    }

    /// The parts in written order, keys uppercased, values as written.
    private(set) var parts: [(key: String, value: String)]
    let frequency: Frequency
    let interval: Int
    let count: Int?
    /// The UNTIL value, when present and readable.
    let until: DateTime?

    static func == (lhs: RecurrenceRuleText, rhs: RecurrenceRuleText) -> Bool {
        lhs.text == rhs.text
    }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Reads a RECUR value; nil when FREQ is missing or unknown, or a part has no `=`.
    init?(_ raw: String) {
        var parts: [(key: String, value: String)] = []
        let utf8 = raw.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII, where bytes and Characters agree: split on the bytes.
            var partStart = utf8.startIndex
            while partStart < utf8.endIndex {
                let partEnd = utf8[partStart...].firstIndex(of: ASCII.semicolon) ?? utf8.endIndex
                if partStart < partEnd {
                    guard let equals = utf8[partStart..<partEnd].firstIndex(of: ASCII.equals) else { return nil }
                    parts.append((ASCII.uppercased(String(raw[partStart..<equals])),
                                  String(raw[utf8.index(after: equals)..<partEnd])))
                }
                partStart = partEnd < utf8.endIndex ? utf8.index(after: partEnd) : partEnd
            }
        } else {
            for part in raw.split(separator: ";", omittingEmptySubsequences: true) {
                guard let equals = part.firstIndex(of: "=") else { return nil }
                let key = ASCII.uppercased(String(part[..<equals]))
                let value = String(part[part.index(after: equals)...])
                parts.append((key, value))
            }
        }
        // Parts that are neither RFC 5545's nor RFC 7529's (`X-NAME=1`, a typo such as
        // `UNTL=20191023`) are ignored in expansion, as the RRULE's warning says; libical
        // refuses a rule that holds one, which would leave only DTSTART.
        parts.removeAll { !RecurrenceRule.knownParts.contains($0.key) }
        self.parts = parts
        func value(_ key: String) -> String? { parts.first { $0.key == key }?.value }
        guard let freq = value("FREQ"), let frequency = Frequency(rawValue: ASCII.uppercased(freq)) else { return nil }
        self.frequency = frequency
        self.interval = max(1, min(Int(value("INTERVAL") ?? "1") ?? 1, Int(Int32.max)))
        if let text = value("COUNT") {
            guard let count = Int(text), count >= 1 else { return nil }
            self.count = count
        } else {
            self.count = nil
        }
        if let text = value("UNTIL") {
            guard let until = DateTime(iCalendar: text) else { return nil }
            self.until = until
        } else {
            self.until = nil
        }
    }

    /// The value of a part (key uppercased), as written.
    func value(_ key: String) -> String? { parts.first { $0.key == key }?.value }

    /// The integers of a list part such as BYSETPOS (unreadable items are skipped).
    func integers(_ key: String) -> [Int] {
        guard let text = value(key) else { return [] }
        return text.split(separator: ",").compactMap { Int($0) }
    }

    /// The weekdays of BYDAY as ISO numbers (1 = Monday), ignoring ordinals.
    var byDayWeekdays: Set<Int> {
        guard let text = value("BYDAY") else { return [] }
        return Set(text.split(separator: ",").compactMap { Self.isoWeekday(String($0.suffix(2))) })
    }

    /// The week start as an ISO weekday (WKST, default Monday).
    var weekStart: Int { value("WKST").flatMap { Self.isoWeekday($0) } ?? 1 }

    /// `MO`...`SU` to 1...7.
    static func isoWeekday(_ text: String) -> Int? {
        ["MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6, "SU": 7][ASCII.uppercased(text)]
    }

    /// `MO`...`SU` for an ISO weekday.
    static func weekdayText(_ isoWeekday: Int) -> String {
        ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][(isoWeekday - 1 + 7) % 7]
    }

    /// A copy without the given parts.
    func removing(_ keys: Set<String>) -> RecurrenceRuleText {
        var copy = self
        copy.parts.removeAll { keys.contains($0.key) }
        return copy
    }

    /// A copy with a part set (replaced in place or appended).
    func setting(_ key: String, _ value: String) -> RecurrenceRuleText {
        var copy = self
        if let index = copy.parts.firstIndex(where: { $0.key == key }) {
            copy.parts[index].value = value
        } else {
            copy.parts.append((key, value))
        }
        return copy
    }

    /// The rule as RECUR text.
    var text: String { parts.map { "\($0.key)=\($0.value)" }.joined(separator: ";") }

    /// Whether libical ignores this rule's BYSETPOS (it does for FREQ=WEEKLY in 3.0.16).
    var needsWeeklySetPosition: Bool { frequency == .weekly && value("BYSETPOS") != nil }

    /// For a rule with COUNT whose every period (FREQ × INTERVAL) is sure to hold an
    /// instance, a wall-clock time that no instance starts after; nil for any other rule.
    ///
    /// Lets an expansion skip a rule whose COUNT runs out before its window without asking
    /// libical for every instance from DTSTART on. Only rules whose periods cannot be
    /// empty qualify: DAILY without BY parts; WEEKLY without BY parts or with a BYDAY of
    /// plain weekdays; MONTHLY on a day 1 to 28 (DTSTART's or BYMONTHDAY's, from either
    /// end); YEARLY without BY parts, not on February 29. Each of those has at least one
    /// instance in every period after DTSTART's, so COUNT instances (DTSTART counting as
    /// one) end within COUNT + 1 periods of DTSTART; one more period of slack covers the
    /// week alignment of WEEKLY rules with INTERVAL.
    func countedEndBound(from dtstart: LocalDateTime) -> LocalDateTime? {
        guard let count else { return nil }
        var byDay: String?
        var byMonthDay: String?
        for part in parts {
            switch part.key {
            case "FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST": continue
            case "BYDAY": byDay = part.value
            case "BYMONTHDAY": byMonthDay = part.value
            default: return nil
            }
        }
        let periodDays: Int
        switch frequency {
        case .daily:
            guard byDay == nil, byMonthDay == nil else { return nil }
            periodDays = 1
        case .weekly:
            guard byMonthDay == nil else { return nil }
            if let byDay {
                let items = byDay.split(separator: ",", omittingEmptySubsequences: false)
                guard !items.isEmpty, items.allSatisfy({ Self.isoWeekday(String($0)) != nil }) else { return nil }
            }
            periodDays = 7
        case .monthly:
            guard byDay == nil else { return nil }
            if let byMonthDay {
                let items = byMonthDay.split(separator: ",", omittingEmptySubsequences: false)
                guard !items.isEmpty, items.allSatisfy({ item in
                    guard item.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D }),
                          let day = Int(item) else { return false }
                    return (1...28).contains(abs(day))
                }) else { return nil }
            } else {
                guard dtstart.date.day <= 28 else { return nil }
            }
            periodDays = 31
        case .yearly:
            guard byDay == nil, byMonthDay == nil, !(dtstart.date.month == 2 && dtstart.date.day == 29) else { return nil }
            periodDays = 366
        default:
            return nil
        }
        let (periods, overflow) = (count + 2).multipliedReportingOverflow(by: interval)
        guard !overflow, periods <= 1_000_000 else { return nil }
        return dtstart.adding(seconds: Int64(periods) * Int64(periodDays) * 86_400)
    }
}
