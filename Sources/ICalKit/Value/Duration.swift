/// An RFC 5545 DURATION (§3.3.6): nominal weeks and days, exact hours, minutes and seconds.
///
/// The two parts behave differently across a daylight-saving change: weeks and days move
/// the wall clock (a day can last 23 or 25 hours), hours and smaller move the instant. So
/// `P1D` and `PT24H` are different values, and ``Duration`` keeps them apart.
public struct Duration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Whether the duration points backwards (`-PT15M`).
    public var isNegative: Bool
    /// Nominal weeks.
    public var weeks: Int
    /// Nominal days.
    public var days: Int
    /// Exact hours.
    public var hours: Int
    /// Exact minutes.
    public var minutes: Int
    /// Exact seconds.
    public var seconds: Int

    /// Creates a duration; all parts are magnitudes and `isNegative` gives the sign.
    public init(isNegative: Bool = false, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.isNegative = isNegative
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Reads `P1W`, `-PT15M`, `P1DT2H30M`; nil when the text is not a duration.
    public init?(iCalendar text: some StringProtocol) {
        let raw = String(text)
        guard DurationSyntax.isValid(raw) else { return nil }
        self.init()
        var digits = 0
        var seenDigits = false
        for scalar in raw.unicodeScalars {
            switch scalar {
            case "-": isNegative = true
            case "+", "P", "T": break
            case "0"..."9":
                let (product, overflow1) = digits.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = product.addingReportingOverflow(Int(scalar.value - 48))
                guard !overflow1, !overflow2, sum <= 100_000_000 else { return nil }
                digits = sum
                seenDigits = true
            case "W": weeks = digits; digits = 0
            case "D": days = digits; digits = 0
            case "H": hours = digits; digits = 0
            case "M": minutes = digits; digits = 0
            case "S": seconds = digits; digits = 0
            default: return nil
            }
        }
        _ = seenDigits
    }

    /// The canonical text: `P1W`, `-PT15M`, `P1DT2H`, `PT0S` for zero.
    public var iCalendarText: String {
        var text = isNegative ? "-P" : "P"
        if weeks != 0 && days == 0 && hours == 0 && minutes == 0 && seconds == 0 { return text + "\(weeks)W" }
        let totalDays = days + weeks * 7
        if totalDays != 0 { text += "\(totalDays)D" }
        if hours != 0 || minutes != 0 || seconds != 0 {
            text += "T"
            if hours != 0 { text += "\(hours)H" }
            if minutes != 0 { text += "\(minutes)M" }
            if seconds != 0 { text += "\(seconds)S" }
        }
        if text.hasSuffix("P") { text += "T0S" }
        return text
    }

    public var description: String { iCalendarText }

    /// The signed nominal part in days (weeks count 7).
    public var nominalDays: Int { (isNegative ? -1 : 1) * (weeks * 7 + days) }

    /// The signed exact part in seconds.
    public var exactSeconds: Int64 {
        (isNegative ? -1 : 1) * (Int64(hours) * 3600 + Int64(minutes) * 60 + Int64(seconds))
    }

    /// The whole duration in seconds, counting a day as 86,400 seconds: right only where no
    /// daylight-saving change lies within it (UTC and floating values, all-day values).
    public var nominalSeconds: Int64 { Int64(nominalDays) * 86_400 + exactSeconds }
}
