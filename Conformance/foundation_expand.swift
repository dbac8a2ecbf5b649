// Expands the plain rules of a conformance case folder with Foundation's
// Calendar.RecurrenceRule, an implementation independent of libical and of ICalKit.
//
//   foundation-expand CASES_DIR > foundation.json
//
// Reads CASES_DIR/plain-rules.json (written by generate.py) and prints
// {"case-0001.ics": [[start, start], ...]} in the shared shape ("D:" dates, "F:" floating
// local times, "U:" UTC instants). Only starts are compared: the rule, not the duration.
import Foundation

struct Spec: Decodable {
    var start: String
    var zone: String?
    var allDay: Bool
    var rule: String
}

func weekday(_ code: Substring) -> Locale.Weekday? {
    switch code {
    case "MO": .monday
    case "TU": .tuesday
    case "WE": .wednesday
    case "TH": .thursday
    case "FR": .friday
    case "SA": .saturday
    case "SU": .sunday
    default: nil
    }
}

func expand(_ spec: Spec) -> [[String]]? {
    var calendar = Calendar(identifier: .gregorian)
    calendar.firstWeekday = 2  // RFC 5545: WKST defaults to MO; Foundation's default is Sunday
    let zoneName = (spec.allDay || spec.zone == nil) ? "UTC" : spec.zone!
    guard let zone = TimeZone(identifier: zoneName) else { return nil }
    calendar.timeZone = zone
    let startParts = spec.start.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
    guard startParts.count == 6, let start = calendar.date(from: DateComponents(
        year: startParts[0], month: startParts[1], day: startParts[2],
        hour: spec.allDay ? 0 : startParts[3], minute: spec.allDay ? 0 : startParts[4], second: startParts[5])) else { return nil }

    var frequency: Calendar.RecurrenceRule.Frequency = .daily
    var interval = 1
    var end: Calendar.RecurrenceRule.End = .never
    var weekdays: [Calendar.RecurrenceRule.Weekday] = []
    var monthDays: [Int] = []
    var months: [Calendar.RecurrenceRule.Month] = []
    var setPositions: [Int] = []
    for part in spec.rule.split(separator: ";") {
        let pair = part.split(separator: "=", maxSplits: 1)
        guard pair.count == 2 else { return nil }
        let (key, value) = (pair[0], pair[1])
        switch key {
        case "FREQ":
            switch value {
            case "DAILY": frequency = .daily
            case "WEEKLY": frequency = .weekly
            case "MONTHLY": frequency = .monthly
            case "YEARLY": frequency = .yearly
            default: return nil
            }
        case "INTERVAL": interval = Int(value) ?? 1
        case "COUNT": end = .afterOccurrences(Int(value) ?? 1)
        case "UNTIL":
            let digits = value.filter(\.isNumber).compactMap { Int(String($0)) }
            func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + digits[$1] } }
            var untilCalendar = calendar
            if value.hasSuffix("Z") { untilCalendar.timeZone = TimeZone(identifier: "UTC")! }
            let components = digits.count >= 14
                ? DateComponents(year: number(0..<4), month: number(4..<6), day: number(6..<8),
                                 hour: number(8..<10), minute: number(10..<12), second: number(12..<14))
                : DateComponents(year: number(0..<4), month: number(4..<6), day: number(6..<8), hour: 23, minute: 59, second: 59)
            guard let until = untilCalendar.date(from: components) else { return nil }
            end = .afterDate(until)
        case "BYDAY":
            for item in value.split(separator: ",") {
                guard let day = weekday(item.suffix(2)) else { return nil }
                let ordinal = item.dropLast(2)
                weekdays.append(ordinal.isEmpty ? .every(day) : .nth(Int(ordinal) ?? 1, day))
            }
        case "BYMONTHDAY": monthDays = value.split(separator: ",").compactMap { Int($0) }
        case "BYMONTH": months = value.split(separator: ",").compactMap { Int($0) }.map { Calendar.RecurrenceRule.Month($0) }
        case "BYSETPOS": setPositions = value.split(separator: ",").compactMap { Int($0) }
        case "WKST": calendar.firstWeekday = value == "SU" ? 1 : 2
        default: return nil
        }
    }
    var rule = Calendar.RecurrenceRule(calendar: calendar, frequency: frequency, interval: interval, end: end)
    rule.weekdays = weekdays
    rule.daysOfTheMonth = monthDays
    rule.months = months
    rule.setPositions = setPositions

    let utc = TimeZone(identifier: "UTC")!
    let windowStart = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01
    let windowEnd = Date(timeIntervalSince1970: 1_924_992_000)    // 2031-01-01
    var starts: [[String]] = []
    for date in rule.recurrences(of: start, in: windowStart..<windowEnd) {
        let text: String
        if spec.allDay {
            let c = calendar.dateComponents([.year, .month, .day], from: date)
            text = String(format: "D:%04d-%02d-%02d", c.year!, c.month!, c.day!)
        } else if spec.zone == nil {
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            text = String(format: "F:%04d-%02d-%02dT%02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        } else {
            var u = Calendar(identifier: .gregorian)
            u.timeZone = utc
            let c = u.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            text = String(format: "U:%04d-%02d-%02dT%02d:%02d:%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        }
        starts.append([text, text])
        if starts.count > 5000 { break }
    }
    return starts.sorted { $0[0] < $1[0] }
}

let folder = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "."
let data = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent("plain-rules.json"))
let specs = try JSONDecoder().decode([String: Spec].self, from: data)
var result: [String: [[String]]] = [:]
for (name, spec) in specs {
    if let starts = expand(spec) { result[name] = starts }
}
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
FileHandle.standardOutput.write(try encoder.encode(result))
