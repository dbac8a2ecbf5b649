/// The short forms people type for lesson schedules: weekdays, times of day, lengths and
/// dates, as `ical lessons` and lesson specifications (``LessonPlan/read(specification:file:directory:defaultTimeZoneIdentifier:reader:)``)
/// accept them.
///
/// Every function throws ``ICalError`` with code ``ICalError/Code-swift.struct/invalidArgument``
/// and a message that quotes the text and names the accepted forms.
public enum LessonText {
    /// Reads weekdays: two-letter iCalendar codes (`TU,TH`), English names (`Tuesday`) or
    /// their three-letter abbreviations (`tue`), in any case, separated by commas or spaces.
    /// Duplicates are dropped; the result is in week order, Monday first.
    public static func weekdays(_ text: String) throws(ICalError) -> [RecurrenceRule.Weekday] {
        let words = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
        guard !words.isEmpty else {
            throw ICalError(.invalidArgument, "no weekdays given: use codes such as MO,WE or TU,TH")
        }
        var days: Set<RecurrenceRule.Weekday> = []
        for word in words {
            guard let day = weekday(word.lowercased()) else {
                throw ICalError(.invalidArgument,
                    "'\(word)' is not a weekday: use MO, TU, WE, TH, FR, SA, SU (or Monday, Mon, ...)")
            }
            days.insert(day)
        }
        return weekOrder.filter(days.contains)
    }

    /// The weekdays Monday first, the order BYDAY is written in.
    static let weekOrder: [RecurrenceRule.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

    private static func weekday(_ word: String) -> RecurrenceRule.Weekday? {
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        for (index, name) in names.enumerated() {
            if word == name || word == String(name.prefix(3)) || word == String(name.prefix(2)) {
                return weekOrder[index]
            }
        }
        return nil
    }

    /// Reads a wall-clock time: `16:00`, `9:05` or `16:00:30` (24-hour clock).
    public static func timeOfDay(_ text: String) throws(ICalError) -> TimeOfDay {
        let parts = text.trimmingASCIIWhitespace().split(separator: ":", omittingEmptySubsequences: false)
        let numbers = parts.map { part -> Int? in
            guard (1...2).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(part)
        }
        guard (2...3).contains(numbers.count), numbers.allSatisfy({ $0 != nil }), parts[1].count == 2,
              numbers.count == 2 || parts[2].count == 2,
              let time = TimeOfDay(hour: numbers[0]!, minute: numbers[1]!, second: numbers.count == 3 ? numbers[2]! : 0),
              time.second < 60
        else {
            throw ICalError(.invalidArgument, "'\(text)' is not a time of day: use HH:MM on a 24-hour clock, such as 16:00 or 9:30")
        }
        return time
    }

    /// Reads a length of time: numbers with units `w` (weeks), `d` (days), `h` (hours),
    /// `m` (minutes), `s` (seconds) in that order (`45m`, `1h30m`, `2h`, `1d`), or an
    /// RFC 5545 duration (`PT45M`). The result is positive.
    public static func duration(_ text: String) throws(ICalError) -> Duration {
        let trimmed = text.trimmingASCIIWhitespace()
        let invalid = ICalError(.invalidArgument,
            "'\(text)' is not a length of time: use a number with h or m, such as 45m, 1h or 1h30m")
        if let first = trimmed.first, first == "P" || first == "p" {
            guard let duration = Duration(iCalendar: trimmed.uppercased()), !duration.isNegative, duration.nominalSeconds > 0 else {
                throw invalid
            }
            return duration
        }
        var values: [Character: Int] = [:]
        var number = ""
        var lastUnit = -1
        let units: [Character] = ["w", "d", "h", "m", "s"]
        for character in trimmed.lowercased() {
            if character.isASCII && character.isNumber {
                number.append(character)
                guard number.count <= 6 else { throw invalid }
            } else if let unit = units.firstIndex(of: character), !number.isEmpty, unit > lastUnit, let value = Int(number) {
                values[character] = value
                lastUnit = unit
                number = ""
            } else {
                throw invalid
            }
        }
        guard number.isEmpty, !values.isEmpty else { throw invalid }
        let duration = Duration(weeks: values["w"] ?? 0, days: values["d"] ?? 0, hours: values["h"] ?? 0,
                                minutes: values["m"] ?? 0, seconds: values["s"] ?? 0)
        guard duration.nominalSeconds > 0 else {
            throw ICalError(.invalidArgument, "'\(text)' is no time at all: give a length such as 45m")
        }
        return duration
    }

    /// Reads a calendar date: `2026-09-07` (or `20260907`).
    public static func date(_ text: String) throws(ICalError) -> CalendarDate {
        let trimmed = text.trimmingASCIIWhitespace()
        let digits = trimmed.filter { $0 != "-" }
        let dashed = trimmed.count == 10 && Array(trimmed)[4] == "-" && Array(trimmed)[7] == "-"
        guard (dashed || trimmed.count == 8), digits.count == 8, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ICalError(.invalidArgument, "'\(text)' is not a date: use YYYY-MM-DD, such as 2026-09-07")
        }
        let value = Int(digits) ?? 0
        guard let date = CalendarDate(year: value / 10_000, month: value / 100 % 100, day: value % 100) else {
            throw ICalError(.invalidArgument, "'\(text)' is not a date that exists")
        }
        return date
    }

    /// Reads a date or an inclusive range of dates: `2026-10-03` or `2026-10-19..2026-10-30`.
    public static func dateRange(_ text: String) throws(ICalError) -> ClosedRange<CalendarDate> {
        let characters = Array(text)
        guard let index = characters.indices.dropLast().first(where: { characters[$0] == "." && characters[$0 + 1] == "." }) else {
            let day = try date(text)
            return day...day
        }
        let first = try date(String(characters[..<index]))
        let last = try date(String(characters[(index + 2)...]))
        guard first <= last else {
            throw ICalError(.invalidArgument, "'\(text)' ends before it starts")
        }
        return first...last
    }
}
