// Expands the generated rules of Conformance/rules.py with Foundation's
// Calendar.RecurrenceRule, an implementation independent of libical and of ICalKit.
//
//   foundation-rules RULES.json FIRST
//
// Reads the rules (uid, rule, floating start) and, from index FIRST on, prints one JSON
// line per rule and flushes it: {"uid": ..., "starts": ["YYYYMMDDTHHMMSS", ...]}, or
// {"uid": ..., "skipped": why} for a rule Foundation cannot express (FREQ=SECONDLY).
// Swift 6.3.1's Foundation stops the process on some rules (a fatal error,
// CalendarEnumerationError.notAdvancing in Calendar_Recurrence.swift); `rules.py
// foundation` runs this program as a subprocess, and when it dies or stalls, records the
// rule after the last printed line as crashed and starts it again after that rule.
//
// The calendar is Gregorian in UTC (the rules are floating) with ISO weeks, as RFC 5545
// defines them: firstWeekday from WKST (Monday by default), minimumDaysInFirstWeek 4.
// Instances are listed until 2200 and at most 5000 (rules.py compares the same prefix).
import Foundation

struct Spec: Decodable {
    var uid: String
    var rule: String
    var start: String
}

enum Unsupported: Error { case part(String) }

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

func firstWeekday(_ code: Substring) -> Int? {
    ["SU": 1, "MO": 2, "TU": 3, "WE": 4, "TH": 5, "FR": 6, "SA": 7][String(code)]
}

func date(_ text: Substring, in calendar: Calendar) -> Date? {
    let digits = text.compactMap { $0.wholeNumberValue }
    guard digits.count == 8 || digits.count == 14 else { return nil }
    func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + digits[$1] } }
    return calendar.date(from: DateComponents(
        year: number(0..<4), month: number(4..<6), day: number(6..<8),
        hour: digits.count == 14 ? number(8..<10) : 0, minute: digits.count == 14 ? number(10..<12) : 0,
        second: digits.count == 14 ? number(12..<14) : 0))
}

func expand(_ spec: Spec) throws -> [String] {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    calendar.firstWeekday = 2
    calendar.minimumDaysInFirstWeek = 4
    let parts = spec.rule.split(separator: ";").map { part -> (Substring, Substring) in
        let pair = part.split(separator: "=", maxSplits: 1)
        return (pair[0], pair.count > 1 ? pair[1] : "")
    }
    for (key, value) in parts where key == "WKST" {
        guard let first = firstWeekday(value) else { throw Unsupported.part("WKST=\(value)") }
        calendar.firstWeekday = first
    }
    guard let start = date(Substring(spec.start), in: calendar) else { throw Unsupported.part("DTSTART") }
    func integers(_ value: Substring) -> [Int] { value.split(separator: ",").compactMap { Int($0) } }
    // RFC 5545 ignores invalid dates (February 30), so no match moves to the next day.
    var rule = Calendar.RecurrenceRule(calendar: calendar, frequency: .daily, matchingPolicy: .strict)
    for (key, value) in parts {
        switch key {
        case "FREQ":
            switch value {
            case "MINUTELY": rule.frequency = .minutely
            case "HOURLY": rule.frequency = .hourly
            case "DAILY": rule.frequency = .daily
            case "WEEKLY": rule.frequency = .weekly
            case "MONTHLY": rule.frequency = .monthly
            case "YEARLY": rule.frequency = .yearly
            default: throw Unsupported.part("FREQ=\(value)")
            }
        case "INTERVAL": rule.interval = Int(value) ?? 1
        case "COUNT": rule.end = .afterOccurrences(Int(value) ?? 1)
        case "UNTIL":
            guard let until = date(value, in: calendar) else { throw Unsupported.part("UNTIL=\(value)") }
            rule.end = .afterDate(until)
        case "BYMONTH": rule.months = integers(value).map { Calendar.RecurrenceRule.Month($0) }
        case "BYWEEKNO": rule.weeks = integers(value)
        case "BYYEARDAY": rule.daysOfTheYear = integers(value)
        case "BYMONTHDAY": rule.daysOfTheMonth = integers(value)
        case "BYHOUR": rule.hours = integers(value)
        case "BYMINUTE": rule.minutes = integers(value)
        case "BYSECOND": rule.seconds = integers(value)
        case "BYSETPOS": rule.setPositions = integers(value)
        case "WKST": break
        case "BYDAY":
            rule.weekdays = try value.split(separator: ",").map { item in
                guard let day = weekday(item.suffix(2)) else { throw Unsupported.part("BYDAY=\(value)") }
                let ordinal = item.dropLast(2)
                return ordinal.isEmpty ? .every(day) : .nth(Int(ordinal) ?? 1, day)
            }
        default: throw Unsupported.part(String(key))
        }
    }
    let end = date("22000101", in: calendar)!
    let formatter = DateFormatter()
    formatter.calendar = calendar
    formatter.timeZone = calendar.timeZone
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss"
    var starts: [String] = []
    for instance in rule.recurrences(of: start, in: start..<end) {
        starts.append(formatter.string(from: instance))
        if starts.count >= 5000 { break }
    }
    return starts
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let first = Int(arguments[2]),
      let data = FileManager.default.contents(atPath: arguments[1]),
      let specs = try? JSONDecoder().decode([Spec].self, from: data) else {
    FileHandle.standardError.write("usage: foundation-rules RULES.json FIRST\n".data(using: .utf8)!)
    exit(2)
}
for spec in specs.dropFirst(first) {
    var line: [String: Any] = ["uid": spec.uid]
    do {
        line["starts"] = try expand(spec)
    } catch Unsupported.part(let part) {
        line["skipped"] = "Foundation cannot express \(part)"
    } catch {
        line["skipped"] = "\(error)"
    }
    let json = try! JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
    FileHandle.standardOutput.write(json + "\n".data(using: .utf8)!)
}
