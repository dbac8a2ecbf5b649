import Foundation
import ICalKit
import OpenEventKit

/// A recurring lesson of the school's timetable: the app's own data, read from an iCalendar
/// file with ICalKit (the series as the school published it: its first lesson and its rule).
struct RepeatingLesson {
    var title: String
    var start: Date
    var end: Date
    var timeZone: TimeZone?
    var location: String?
    var notes: String?
    var frequency: EKRecurrenceFrequency
    var interval: Int
    var weekdays: [EKWeekday]
    var until: Date?
    /// The zone UNTIL is written in (UTC for a UTC UNTIL), to show it as the file has it.
    var untilZone: TimeZone?
    var count: Int?

    /// Every recurring VEVENT (a series' master) of the file, in start order.
    static func catalogue(at path: String) throws -> [RepeatingLesson] {
        let result = try ICalReader().read(contentsOfFile: path)
        let floating: any TimeZoneRules = IANATimeZone.system() ?? FixedOffsetZone.utc
        var lessons: [RepeatingLesson] = []
        for calendar in result.calendars {
            let resolver = TimeZoneResolver(calendar: calendar, file: path)
            for event in calendar.components where event.matches(.event) && event.recurrenceIdentifier == nil {
                guard let rule = event.recurrenceRules.first, let start = event.dateTimeStart else { continue }
                let frequency: EKRecurrenceFrequency
                switch rule.frequency {
                case .daily: frequency = .daily
                case .weekly: frequency = .weekly
                case .monthly: frequency = .monthly
                case .yearly: frequency = .yearly
                default: continue
                }
                let startInstant = resolver.instant(for: start, floatingZone: floating)
                var endInstant = startInstant
                if let end = event.dateTimeEnd {
                    endInstant = resolver.instant(for: end, floatingZone: floating)
                } else if let duration = event.duration {
                    endInstant = startInstant + Int64(duration.nominalSeconds)
                }
                var zone: TimeZone?
                if case .identifier(let tzid) = start.zone {
                    zone = resolver.resolve(tzid).flatMap { TimeZone(identifier: $0.timeZoneIdentifier) }
                }
                lessons.append(RepeatingLesson(
                    title: event.summary ?? "Lesson",
                    start: Date(timeIntervalSince1970: TimeInterval(startInstant)),
                    end: Date(timeIntervalSince1970: TimeInterval(endInstant)),
                    timeZone: zone, location: event.location, notes: event.descriptionText,
                    frequency: frequency, interval: rule.interval ?? 1,
                    weekdays: rule.byDay.compactMap { EKWeekday(rawValue: $0.weekday.isoNumber % 7 + 1) },
                    until: rule.until.map { Date(timeIntervalSince1970: TimeInterval(resolver.instant(for: $0, floatingZone: floating))) },
                    untilZone: rule.until?.zone == .utc ? TimeZone(identifier: "UTC") : zone,
                    count: rule.count))
            }
        }
        return lessons.sorted { $0.start < $1.start }
    }

    /// The rule EventKit saves: the lesson's frequency, days and end.
    var recurrenceRule: EKRecurrenceRule {
        let end = until.map { EKRecurrenceEnd(end: $0) } ?? count.map { EKRecurrenceEnd(occurrenceCount: $0) }
        return EKRecurrenceRule(recurrenceWith: frequency, interval: interval,
                                daysOfTheWeek: weekdays.isEmpty ? nil : weekdays.map { EKRecurrenceDayOfWeek($0) },
                                daysOfTheMonth: nil, monthsOfTheYear: nil, weeksOfTheYear: nil, daysOfTheYear: nil,
                                setPositions: nil, end: end)
    }

    /// `every Monday 16:30–17:15 Europe/Berlin, 7 Sep 2026 to 21 Dec 2026`, in the lesson's zone.
    var schedule: String {
        let zone = timeZone ?? TimeZone.current
        func format(_ pattern: String, _ date: Date, in other: TimeZone? = nil) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = other ?? zone
            formatter.dateFormat = pattern
            return formatter.string(from: date)
        }
        let names = ["", "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let unit: String
        switch frequency {
        case .daily: unit = interval == 1 ? "every day" : "every \(interval) days"
        case .weekly:
            let days = weekdays.isEmpty ? format("EEEE", start) : weekdays.map { names[$0.rawValue] }.joined(separator: " and ")
            unit = interval == 1 ? "every \(days)" : "every \(interval) weeks on \(days)"
        case .monthly: unit = interval == 1 ? "every month" : "every \(interval) months"
        case .yearly: unit = interval == 1 ? "every year" : "every \(interval) years"
        }
        var text = "\(unit) \(format("HH:mm", start))–\(format("HH:mm", end)) \(zone.identifier), from \(format("d MMM yyyy", start))"
        if let until { text += " until \(format("d MMM yyyy", until, in: untilZone))" } else if let count { text += ", \(count) times" }
        return text
    }
}
