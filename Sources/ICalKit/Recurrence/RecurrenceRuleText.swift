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
        for part in raw.split(separator: ";", omittingEmptySubsequences: true) {
            guard let equals = part.firstIndex(of: "=") else { return nil }
            let key = ASCII.uppercased(String(part[..<equals]))
            let value = String(part[part.index(after: equals)...])
            parts.append((key, value))
        }
        self.parts = parts
        func value(_ key: String) -> String? { parts.first { $0.key == key }?.value }
        guard let freq = value("FREQ"), let frequency = Frequency(rawValue: ASCII.uppercased(freq)) else { return nil }
        self.frequency = frequency
        self.interval = max(1, min(Int(value("INTERVAL") ?? "1") ?? 1, 1_000_000))
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
}
