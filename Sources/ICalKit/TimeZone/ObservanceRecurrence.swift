/// The RRULEs VTIMEZONE observances use, evaluated without libical: FREQ=YEARLY (and
/// MONTHLY) with INTERVAL, COUNT, UNTIL, BYMONTH, BYDAY (with ordinals), BYMONTHDAY and
/// BYYEARDAY, the time of day taken from DTSTART (RFC 5545 §3.3.10, §3.6.5).
///
/// Expansion is bounded: no onset after ``lastYear`` and at most ``maximumOnsets``.
struct ObservanceRecurrence: Sendable {
    enum Until: Sendable, Hashable {
        /// `UNTIL=...Z`: compared with the onset's instant.
        case instant(Int64)
        /// A floating DATE-TIME or a DATE: compared with the onset's wall-clock time.
        case local(LocalDateTime)
    }

    var frequency: String
    var interval = 1
    var count: Int?
    var until: Until?
    var months: [Int] = []
    var weekdays: [(ordinal: Int, weekday: Int)] = []  // weekday is ISO: 1 Monday ... 7 Sunday
    var monthDays: [Int] = []
    var yearDays: [Int] = []
    var ignoredParts: [String] = []

    static let lastYear = 2500
    static let maximumOnsets = 5000
    static let weekdayNumbers = ["MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6, "SU": 7]

    /// Reads a rule; throws a message for what cannot be evaluated.
    init(_ text: String) throws(RecurrenceProblem) {
        if let problem = RecurrenceRuleSyntax.problem(text) { throw RecurrenceProblem(message: problem) }
        frequency = ""
        for part in text.split(separator: ";") {
            guard let equals = part.firstIndex(of: "=") else { continue }
            let key = ASCII.uppercased(String(part[..<equals]))
            let value = String(part[part.index(after: equals)...])
            let items = value.split(separator: ",").map(String.init)
            switch key {
            case "FREQ": frequency = ASCII.uppercased(value)
            case "INTERVAL": interval = min(max(Int(value) ?? 1, 1), 10_000)
            case "COUNT": count = Int(value)
            case "UNTIL":
                guard let date = DateTime(iCalendar: value) else { throw RecurrenceProblem(message: "UNTIL=\(value) is not a date") }
                until = date.zone == .utc ? .instant(date.local.secondsSinceEpoch)
                    : .local(date.isDate ? date.local.adding(seconds: 86_399) : date.local)
            case "BYMONTH":
                months = try items.map { item throws(RecurrenceProblem) in
                    guard let month = Int(item), (1...12).contains(month) else {
                        throw RecurrenceProblem(message: "BYMONTH=\(value) is not a list of Gregorian months")
                    }
                    return month
                }
            case "BYDAY":
                weekdays = items.compactMap { item in
                    let upper = ASCII.uppercased(item)
                    guard let weekday = Self.weekdayNumbers[String(upper.suffix(2))] else { return nil }
                    let ordinal = upper.dropLast(2)
                    return (ordinal.isEmpty ? 0 : Int(ordinal) ?? 0, weekday)
                }
            case "BYMONTHDAY": monthDays = items.compactMap { Int($0) }
            case "BYYEARDAY": yearDays = items.compactMap { Int($0) }
            case "WKST": break
            default: ignoredParts.append(key)
            }
        }
        guard frequency == "YEARLY" || frequency == "MONTHLY" else {
            throw RecurrenceProblem(message: "FREQ=\(frequency) is not used for time zone observances; only DTSTART and RDATE are applied")
        }
    }

    /// The onsets of the rule, in order, starting with DTSTART itself; `offsetFrom` turns
    /// a wall-clock onset into an instant for a UTC UNTIL.
    func onsets(start: LocalDateTime, offsetFrom: Int) -> [LocalDateTime] {
        var result: [LocalDateTime] = [start]
        func reachedEnd(_ onset: LocalDateTime) -> Bool {
            switch until {
            case .instant(let instant)?: return onset.secondsSinceEpoch - Int64(offsetFrom) > instant
            case .local(let local)?: return onset > local
            case nil: return false
            }
        }
        if reachedEnd(start) { return [] }
        let limit = min(count ?? Self.maximumOnsets, Self.maximumOnsets)
        var year = start.date.year
        var month = start.date.month
        while result.count < limit && year <= Self.lastYear {
            let dates = frequency == "YEARLY" ? datesInYear(year, start: start) : datesInMonth(year, month, start: start)
            for date in dates {
                let onset = LocalDateTime(date: date, time: start.time)
                guard onset > start else { continue }
                if reachedEnd(onset) { return result }
                result.append(onset)
                if result.count >= limit { return result }
            }
            if frequency == "YEARLY" {
                year += interval
            } else {
                month += interval
                year += (month - 1) / 12
                month = (month - 1) % 12 + 1
            }
        }
        return result
    }

    private func datesInYear(_ year: Int, start: LocalDateTime) -> [CalendarDate] {
        var dates: [CalendarDate] = []
        if !yearDays.isEmpty {
            let length = DateSyntax.daysInMonth(year: year, month: 2) == 29 ? 366 : 365
            let first = CalendarDate.daysSinceEpoch(year: year, month: 1, day: 1)
            for day in yearDays {
                let index = day > 0 ? day - 1 : length + day
                guard (0..<length).contains(index) else { continue }
                let date = CalendarDate(daysSinceEpoch: first + index)
                if !months.isEmpty && !months.contains(date.month) { continue }
                if !weekdays.isEmpty && !weekdays.contains(where: { $0.weekday == date.isoWeekday }) { continue }
                dates.append(date)
            }
        } else if months.isEmpty && !weekdays.isEmpty && monthDays.isEmpty {
            // BYDAY without BYMONTH in a YEARLY rule counts weekdays within the year.
            dates = weekdayDates(year: year, months: 1...12)
        } else {
            for month in months.isEmpty ? [start.date.month] : months {
                dates += datesInMonth(year, month, start: start)
            }
        }
        return Array(Set(dates)).sorted()
    }

    private func datesInMonth(_ year: Int, _ month: Int, start: LocalDateTime) -> [CalendarDate] {
        if !months.isEmpty && frequency == "MONTHLY" && !months.contains(month) { return [] }
        let length = DateSyntax.daysInMonth(year: year, month: month)
        var days: [Int]
        if !weekdays.isEmpty {
            days = weekdayDates(year: year, months: month...month).map(\.day)
            if !monthDays.isEmpty {
                let allowed = Set(monthDays.map { $0 > 0 ? $0 : length + $0 + 1 })
                days = days.filter { allowed.contains($0) }
            }
        } else if !monthDays.isEmpty {
            days = monthDays.map { $0 > 0 ? $0 : length + $0 + 1 }.filter { (1...length).contains($0) }
        } else {
            days = start.date.day <= length ? [start.date.day] : []
        }
        return days.compactMap { CalendarDate(year: year, month: month, day: $0) }
    }

    /// The dates matching BYDAY within the given months of a year (ordinals count within
    /// the span: one month, or the whole year).
    private func weekdayDates(year: Int, months: ClosedRange<Int>) -> [CalendarDate] {
        let first = CalendarDate.daysSinceEpoch(year: year, month: months.lowerBound, day: 1)
        let last = CalendarDate.daysSinceEpoch(year: year, month: months.upperBound, day: DateSyntax.daysInMonth(year: year, month: months.upperBound))
        var result: [CalendarDate] = []
        for (ordinal, weekday) in weekdays {
            var matching: [Int] = []
            var day = first
            let firstWeekday = CalendarDate(daysSinceEpoch: first).isoWeekday
            day += (weekday - firstWeekday + 7) % 7
            while day <= last {
                matching.append(day)
                day += 7
            }
            if ordinal == 0 {
                result += matching.map { CalendarDate(daysSinceEpoch: $0) }
            } else {
                let index = ordinal > 0 ? ordinal - 1 : matching.count + ordinal
                if matching.indices.contains(index) { result.append(CalendarDate(daysSinceEpoch: matching[index])) }
            }
        }
        return result
    }
}

/// Why an observance's RRULE cannot be evaluated.
struct RecurrenceProblem: Error {
    var message: String
}
