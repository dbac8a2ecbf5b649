import Foundation
import ICalKit

/// Conversions between Foundation's `Date`, `TimeZone` and `DateComponents` and ICalKit's
/// values, with EventKit's rules: floating values and dates are read in the default time
/// zone (`TimeZone.current`), zoned values in their zone (embedded VTIMEZONE first, then
/// tzdata, then Windows names).
enum ItemTime {
    /// The rules of `TimeZone.current`, the zone EventKit reads floating values in.
    static func defaultZone() -> any TimeZoneRules {
        rules(for: TimeZone.current) ?? IANATimeZone.system() ?? FixedOffsetZone.utc
    }

    /// The names tzdata gives UTC (`Etc/UTC`, `Zulu`, …): values in them are written in UTC's
    /// own form (`…Z`), not with a TZID.
    static let utcNames: Set<String> = ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Zulu", "Etc/Universal",
                                        "Etc/Greenwich", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "UCT", "Zulu",
                                        "Universal", "Greenwich", "GMT0", "GMT+0", "GMT-0"]

    static func isUTC(_ zone: TimeZone) -> Bool { utcNames.contains(zone.identifier) }

    /// The tzdata rules of a Foundation zone; a fixed offset for a zone tzdata does not know.
    static func rules(for zone: TimeZone) -> (any TimeZoneRules)? {
        let identifier = zone.identifier
        if isUTC(zone) { return FixedOffsetZone.utc }
        if let iana = IANATimeZone(named: identifier) { return iana }
        return FixedOffsetZone(identifier: identifier, offset: zone.secondsFromGMT())
    }

    static func instant(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func date(_ instant: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(instant))
    }

    /// The value to write for `date` in `zone` (nil: floating, read in the default zone),
    /// or a DATE of the day `date` falls on in the default zone when `allDay`.
    static func dateTime(_ date: Date, zone: TimeZone?, allDay: Bool) -> DateTime {
        let instant = instant(date)
        if allDay {
            return DateTime(date: defaultZone().local(at: instant).date)
        }
        guard let zone else {
            return DateTime(defaultZone().local(at: instant), zone: .floating)
        }
        if isUTC(zone) {
            return DateTime(LocalDateTime(secondsSinceEpoch: instant), zone: .utc)
        }
        let rules = rules(for: zone) ?? FixedOffsetZone.utc
        return DateTime(rules.local(at: instant), zone: .identifier(zone.identifier))
    }

    /// The Foundation zone a TZID resolved to: the IANA name when the resolution has one, else
    /// a fixed offset at `instant`.
    static func foundationZone(_ resolution: TimeZoneResolver.Resolution?, at instant: Int64) -> TimeZone? {
        guard let resolution else { return nil }
        if let zone = TimeZone(identifier: resolution.identifier) { return zone }
        return TimeZone(secondsFromGMT: resolution.rules.utcOffset(atInstant: instant))
    }

    /// Date components for a value, Gregorian, with the value's zone (nil when floating) and
    /// no time fields for a DATE (EKReminder's convention for all-day).
    static func components(_ value: DateTime, resolver: TimeZoneResolver) -> DateComponents {
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.year = value.local.date.year
        components.month = value.local.date.month
        components.day = value.local.date.day
        guard !value.isDate else { return components }
        components.hour = value.local.time.hour
        components.minute = value.local.time.minute
        components.second = value.local.time.second
        switch value.zone {
        case .floating: break
        case .utc: components.timeZone = TimeZone(identifier: "UTC")
        case .identifier(let tzid):
            let instant = resolver.instant(for: value, floatingZone: defaultZone())
            components.timeZone = foundationZone(resolver.resolve(tzid), at: instant) ?? TimeZone(identifier: tzid)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = components.timeZone ?? TimeZone.current
        components.calendar = calendar
        return components
    }

    /// The value date components describe: a DATE when they have no hour, a floating
    /// DATE-TIME when they have no zone. Nil when year, month or day is missing or invalid.
    static func dateTime(_ components: DateComponents) -> DateTime? {
        if let calendar = components.calendar, calendar.identifier != .gregorian {
            preconditionFailure("EKReminder date components must use the Gregorian calendar (EventKit raises an exception)")
        }
        guard let year = components.year, let month = components.month, let day = components.day,
              let date = CalendarDate(year: year, month: month, day: day) else { return nil }
        guard let hour = components.hour else { return DateTime(date: date) }
        guard let time = TimeOfDay(hour: hour, minute: components.minute ?? 0, second: components.second ?? 0) else { return nil }
        let local = LocalDateTime(date: date, time: time)
        guard let zone = components.timeZone else { return DateTime(local, zone: .floating) }
        if isUTC(zone) { return DateTime(local, zone: .utc) }
        return DateTime(local, zone: .identifier(zone.identifier))
    }
}

extension TimeZoneResolver {
    /// A resolver for an item: the file's VTIMEZONEs, then tzdata and Windows names.
    static func forItem(_ calendar: Component?) -> TimeZoneResolver {
        TimeZoneResolver(calendar: calendar ?? Component(kind: .calendar))
    }
}
