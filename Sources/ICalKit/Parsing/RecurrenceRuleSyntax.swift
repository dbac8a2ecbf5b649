/// A first check of RECUR values (RFC 5545 §3.3.10) made while reading, so a rule that
/// cannot be expanded is reported at its line.
enum RecurrenceRuleSyntax {
    static let frequencies: Set<String> = ["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"]

    /// nil when the rule can be read; otherwise what is wrong.
    static func problem(_ raw: String) -> String? {
        var frequency: String?
        var hasCount = false, hasUntil = false
        var seen = Set<String>()
        for part in raw.split(separator: ";", omittingEmptySubsequences: true) {
            guard let equals = part.firstIndex(of: "=") else { return "part '\(part)' has no '='" }
            let key = ASCII.uppercased(String(part[..<equals]))
            let value = part[part.index(after: equals)...]
            if !key.hasPrefix("X-") && !seen.insert(key).inserted { return "\(key) appears twice" }
            switch key {
            case "FREQ":
                let upper = ASCII.uppercased(String(value))
                guard frequencies.contains(upper) else { return "FREQ=\(value) is not one of \(frequencies.sorted().joined(separator: ", "))" }
                frequency = upper
            case "COUNT":
                guard let count = Int(value), count >= 1 else { return "COUNT=\(value) is not a positive integer" }
                hasCount = true
            case "INTERVAL":
                guard let interval = Int(value), interval >= 1 else { return "INTERVAL=\(value) is not a positive integer" }
            case "UNTIL":
                if let message = DateSyntax.problem(String(value)) { return "UNTIL=\(value): \(message)" }
                hasUntil = true
            case "BYSECOND": if let message = integers(value, key, 0...60, signed: false) { return message }
            case "BYMINUTE": if let message = integers(value, key, 0...59, signed: false) { return message }
            case "BYHOUR": if let message = integers(value, key, 0...23, signed: false) { return message }
            case "BYMONTHDAY": if let message = integers(value, key, 1...31, signed: true) { return message }
            case "BYYEARDAY": if let message = integers(value, key, 1...366, signed: true) { return message }
            case "BYWEEKNO": if let message = integers(value, key, 1...53, signed: true) { return message }
            case "BYMONTH":
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    var digits = item
                    if digits.hasSuffix("L") { digits = digits.dropLast() }  // RFC 7529 leap months
                    guard let month = Int(digits), (1...13).contains(month) else { return "BYMONTH=\(value) has '\(item)', not a month" }
                }
            case "BYSETPOS": if let message = integers(value, key, 1...366, signed: true) { return message }
            case "BYDAY":
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    guard item.count >= 2, weekdays.contains(ASCII.uppercased(String(item.suffix(2)))) else {
                        return "BYDAY=\(value) has '\(item)', not a weekday such as MO or -1FR"
                    }
                    let ordinal = item.dropLast(2)
                    if !ordinal.isEmpty {
                        guard let number = Int(ordinal), number != 0, (-53...53).contains(number) else {
                            return "BYDAY=\(value) has '\(item)' with an ordinal outside -53...53"
                        }
                    }
                }
            case "WKST":
                guard weekdays.contains(ASCII.uppercased(String(value))) else { return "WKST=\(value) is not a weekday" }
            case "RSCALE", "SKIP":
                continue  // RFC 7529: kept as written
            default:
                if key.hasPrefix("X-") { continue }
                return "\(key) is not a rule part of RFC 5545"
            }
        }
        guard frequency != nil else { return "FREQ is missing" }
        if hasCount && hasUntil { return "COUNT and UNTIL must not both be given" }
        return nil
    }

    static let weekdays: Set<String> = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    private static func integers(_ value: Substring, _ key: String, _ range: ClosedRange<Int>, signed: Bool) -> String? {
        for item in value.split(separator: ",", omittingEmptySubsequences: false) {
            guard let number = Int(item) else { return "\(key)=\(value) has '\(item)', not an integer" }
            let magnitude = signed ? abs(number) : number
            if !range.contains(magnitude) || (!signed && number < 0) {
                return "\(key)=\(value) has \(number), outside \(signed ? "±" : "")\(range.lowerBound)...\(range.upperBound)"
            }
        }
        return nil
    }
}
