// The classes here hold the state of one expansion (or one merge of expansions), stepped
// once per occurrence by a single caller and never reentered. Their stored properties are
// `@exclusivity(unchecked)`: the compiler still checks exclusive access statically, but the
// run-time check of every access (a tenth of a streamed query's instructions) is left out.

/// RFC 5545 §3.3.10's expansion of a Gregorian RRULE, period by period: the wall-clock
/// instances of the rule (without COUNT and UNTIL, which ``RuleInstanceStream`` applies), in
/// order and without duplicates.
///
/// Each period of FREQ × INTERVAL (a year, month, week, day, hour, minute or second, counted
/// from DTSTART's) gets its set of instances: every day of the period that passes the day
/// parts (BYMONTH, BYWEEKNO, BYYEARDAY, BYMONTHDAY, BYDAY), crossed with the times of day
/// (BYHOUR, BYMINUTE, BYSECOND, or DTSTART's), then BYSETPOS picks from that whole set. This
/// is the RFC's expand/limit table read as "a part finer than FREQ expands, a part as coarse
/// as FREQ or coarser limits", the period-set approach of python-dateutil, rrule.js and
/// Foundation.
///
/// Periods that cannot match are skipped without building their set: whole days (from a
/// per-year mask of the days that pass the day parts) and, below DAILY, whole hours and
/// minutes outside BYHOUR and BYMINUTE, by arithmetic on the period number, so INTERVAL's
/// alignment is kept. Work is counted in the ``ExpansionMeter``: one step per period whose
/// set is built, one per year of days scanned; a sparse rule (`FREQ=MINUTELY;BYMONTH=1`)
/// costs a few steps per instance, not one per minute in between.
///
/// Readings RFC 5545 leaves open (see the Recurrence article):
/// - Without any day part, YEARLY takes DTSTART's month and day, MONTHLY DTSTART's day,
///   WEEKLY DTSTART's weekday (the RFC's "derived from DTSTART").
/// - YEARLY with BYMONTHDAY but no BYMONTH (nor BYWEEKNO, BYYEARDAY, BYDAY) takes DTSTART's
///   month; YEARLY with BYWEEKNO but no BYDAY (nor BYMONTHDAY, BYYEARDAY) takes DTSTART's
///   weekday (libical's and Foundation's reading).
/// - YEARLY with BYWEEKNO runs over week-years: the period of year Y is week 1 of Y to the
///   last week of Y, so week 1 may begin in late December and week 52 or 53 end in January;
///   INTERVAL counts week-years from the one that holds DTSTART.
/// - Parts RFC 5545 forbids for the FREQ (BYWEEKNO outside YEARLY, BYYEARDAY in DAILY,
///   WEEKLY or MONTHLY, BYMONTHDAY in WEEKLY) limit the days like any other day part; an
///   ordinal BYDAY below MONTHLY is read as its plain weekday (python-dateutil's lenient
///   reading).
/// - BYSECOND=60 (a leap second) never matches: the floating wall clock has none.
final class RulePeriodEngine {
    enum Frequency: Int, Comparable {
        case secondly = 0, minutely, hourly, daily, weekly, monthly, yearly
        static func < (lhs: Frequency, rhs: Frequency) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private let frequency: Frequency
    private let interval: Int
    private let isDate: Bool
    private let meter: ExpansionMeter
    private let dtstart: LocalDateTime

    // Day parts.
    private let byMonth: [Bool]?  // index 1...12
    private let byWeekNumber: [Int]
    private let byYearDay: [Int]
    private let byMonthDay: [Int]
    private let byWeekday: [Bool]  // index 1...7 (ISO)
    private let byOrdinalWeekday: [(weekday: Int, ordinal: Int)]
    private let hasWeekdayPart: Bool
    private let ordinalsPerMonth: Bool
    private let weekStart: Int
    private let weekYears: Bool
    /// Whether any day part limits the days at all.
    private let hasDayFilter: Bool
    /// Whether a day part needs the year around the day (BYWEEKNO, BYYEARDAY, ordinal
    /// BYDAY): those days are matched through a per-year mask.
    private let needsMask: Bool

    // Time parts: sorted, without repeats. Expanding lists for FREQ coarser than the part;
    // for FREQ as fine as the part, a limit (nil: none).
    private let hours: [Int]
    private let minutes: [Int]
    private let seconds: [Int]
    private let hourLimit: [Bool]?
    private let minuteLimit: [Bool]?
    private let secondLimit: [Bool]?
    private let setPositions: [Int]

    /// The current period: a (week-)year, a month index (year × 12 + month − 1), the first
    /// day of a week or a day (days since 1970), or the first second of a sub-daily period.
    @exclusivity(unchecked) private var cursor: Int64
    private let origin: Int64
    private let stop: LocalDateTime
    private let stopSeconds: Int64
    private let stopDay: Int
    @exclusivity(unchecked) private(set) var isFinished = false
    /// Set when the meter's step budget ran out (the stream reports the truncation).
    @exclusivity(unchecked) private(set) var ranOutOfSteps = false

    @exclusivity(unchecked) private var masks: [Int: [Bool]] = [:]
    /// The mask last used and the day number of its January 1: most days asked for lie in
    /// the same year as the one before, which then needs no date conversion or lookup.
    @exclusivity(unchecked) private var lastMask: [Bool] = []
    @exclusivity(unchecked) private var lastMaskFirst = 0
    @exclusivity(unchecked) private var scanned = 0

    /// A rule the engine cannot expand (an RSCALE rule, or FREQ unknown) gives nil.
    ///
    /// - Parameters:
    ///   - jumpTo: a wall-clock time before which no instance is needed: iteration starts at
    ///     the period holding it (aligned to INTERVAL from DTSTART's period). Rules with
    ///     COUNT pass nil.
    ///   - stop: no period starting after it is looked at.
    init?(rule: RecurrenceRuleText, dtstart: LocalDateTime, isDate: Bool, jumpTo: LocalDateTime?,
          stop: LocalDateTime, meter: ExpansionMeter) {
        guard rule.value("RSCALE") == nil else { return nil }
        let frequency: Frequency
        switch rule.frequency {
        case .secondly: frequency = .secondly
        case .minutely: frequency = .minutely
        case .hourly: frequency = .hourly
        case .daily: frequency = .daily
        case .weekly: frequency = .weekly
        case .monthly: frequency = .monthly
        case .yearly: frequency = .yearly
        }
        self.frequency = frequency
        self.interval = max(1, rule.interval)
        self.isDate = isDate
        self.meter = meter
        self.dtstart = dtstart
        self.weekStart = rule.weekStart
        self.stop = stop
        self.stopSeconds = stop.secondsSinceEpoch
        self.stopDay = stop.date.daysSinceEpoch

        func list(_ key: String, _ range: ClosedRange<Int>, signed: Bool = false) -> [Int] {
            let values = rule.integers(key).filter { signed ? $0 != 0 && range.contains(abs($0)) : range.contains($0) }
            return Array(Set(values)).sorted()
        }
        var months = list("BYMONTH", 1...12)
        let weekNumbers = list("BYWEEKNO", 1...53, signed: true)
        let yearDays = list("BYYEARDAY", 1...366, signed: true)
        var monthDays = list("BYMONTHDAY", 1...31, signed: true)
        var weekdays = [Bool](repeating: false, count: 8)
        var ordinals: [(weekday: Int, ordinal: Int)] = []
        var hasByDay = false
        if let text = rule.value("BYDAY") {
            for item in text.split(separator: ",") {
                let item = String(item).trimmingSpaces
                guard item.count >= 2, let weekday = RecurrenceRuleText.isoWeekday(String(item.suffix(2))) else { continue }
                let number = item.dropLast(2)
                hasByDay = true
                if number.isEmpty || frequency < .monthly {
                    weekdays[weekday] = true
                } else if let ordinal = Int(number.hasPrefix("+") ? number.dropFirst() : number), ordinal != 0, abs(ordinal) <= 53 {
                    ordinals.append((weekday, ordinal))
                }
            }
        }
        if weekNumbers.isEmpty && yearDays.isEmpty && monthDays.isEmpty && !hasByDay {
            switch frequency {
            case .yearly:
                if months.isEmpty { months = [dtstart.date.month] }
                monthDays = [dtstart.date.day]
            case .monthly:
                monthDays = [dtstart.date.day]
            case .weekly:
                weekdays[dtstart.date.isoWeekday] = true
                hasByDay = true
            default:
                break
            }
        }
        if frequency == .yearly, !monthDays.isEmpty, months.isEmpty, weekNumbers.isEmpty, yearDays.isEmpty, !hasByDay {
            months = [dtstart.date.month]
        }
        if frequency == .yearly, !weekNumbers.isEmpty, !hasByDay, monthDays.isEmpty, yearDays.isEmpty {
            weekdays[dtstart.date.isoWeekday] = true
            hasByDay = true
        }
        if months.isEmpty {
            self.byMonth = nil
        } else {
            var mask = [Bool](repeating: false, count: 13)
            for month in months { mask[month] = true }
            self.byMonth = mask
        }
        self.byWeekNumber = weekNumbers
        self.byYearDay = yearDays
        self.byMonthDay = monthDays
        self.byWeekday = weekdays
        self.byOrdinalWeekday = ordinals
        self.hasWeekdayPart = hasByDay
        self.ordinalsPerMonth = frequency == .monthly || (frequency == .yearly && !months.isEmpty)
        self.weekYears = frequency == .yearly && !weekNumbers.isEmpty
        self.hasDayFilter = !months.isEmpty || !weekNumbers.isEmpty || !yearDays.isEmpty || !monthDays.isEmpty || hasByDay
        self.needsMask = !weekNumbers.isEmpty || !yearDays.isEmpty || !ordinals.isEmpty

        let byHour = list("BYHOUR", 0...23), byMinute = list("BYMINUTE", 0...59), bySecond = list("BYSECOND", 0...59)
        func limit(_ values: [Int], _ count: Int) -> [Bool]? {
            guard !values.isEmpty else { return nil }
            var mask = [Bool](repeating: false, count: count)
            for value in values { mask[value] = true }
            return mask
        }
        let hasLeapSecondOnly = bySecond.isEmpty && !rule.integers("BYSECOND").isEmpty
        if isDate {
            (hours, minutes, seconds) = ([0], [0], [0])
            (hourLimit, minuteLimit, secondLimit) = (nil, nil, nil)
        } else {
            hours = frequency > .hourly ? (byHour.isEmpty ? [dtstart.time.hour] : byHour) : []
            minutes = frequency > .minutely ? (byMinute.isEmpty ? [dtstart.time.minute] : byMinute) : []
            seconds = frequency > .secondly
                ? (hasLeapSecondOnly ? [] : bySecond.isEmpty ? [min(59, dtstart.time.second)] : bySecond) : []
            hourLimit = frequency <= .hourly ? limit(byHour, 24) : nil
            minuteLimit = frequency <= .minutely ? limit(byMinute, 60) : nil
            secondLimit = frequency <= .secondly
                ? (hasLeapSecondOnly ? [Bool](repeating: false, count: 60) : limit(bySecond, 60)) : nil
        }
        self.setPositions = rule.integers("BYSETPOS").filter { $0 != 0 && abs($0) <= 366_000 }

        // The period of DTSTART, and the one holding jumpTo.
        let origin = Self.period(of: dtstart, frequency: frequency, weekYears: weekYears, weekStart: weekStart)
        self.origin = origin
        var cursor = origin
        if let jumpTo, jumpTo > dtstart {
            let target = Self.period(of: jumpTo, frequency: frequency, weekYears: weekYears, weekStart: weekStart)
            let step = Self.cursorStep(frequency) * Int64(interval)
            if target > origin { cursor = origin + (target - origin) / step * step }
        }
        self.cursor = cursor
        if frequency <= .hourly && !Self.timeOfDayReachable(frequency: frequency, interval: interval, origin: origin,
                                                            hours: hourLimit, minutes: minuteLimit, seconds: secondLimit) {
            isFinished = true  // e.g. FREQ=HOURLY;INTERVAL=24;BYHOUR=5 from 03:00: never an instance
        }
    }

    /// The period that holds a wall-clock time, in the cursor's units: the (week-)year, the
    /// month index, the first day of the week or the day, or the first second of the hour,
    /// minute or second.
    private static func period(of local: LocalDateTime, frequency: Frequency, weekYears: Bool, weekStart: Int) -> Int64 {
        switch frequency {
        case .yearly:
            return Int64(weekYears ? weekYear(local.date, weekStart: weekStart) : local.date.year)
        case .monthly:
            return Int64(local.date.year * 12 + local.date.month - 1)
        case .weekly:
            return Int64(RuleInstanceStream.startOfWeek(local.date, weekStart: weekStart).daysSinceEpoch)
        case .daily:
            return Int64(local.date.daysSinceEpoch)
        case .hourly, .minutely, .secondly:
            let seconds = local.secondsSinceEpoch
            return seconds - floorMod(seconds, unitSeconds(frequency))
        }
    }

    /// Whether a sub-daily rule's periods ever start at a time of day its BYHOUR, BYMINUTE
    /// and BYSECOND limits allow. The periods start at `origin + k × period`, so their
    /// seconds of the day are those congruent to `origin` modulo gcd(period, 86 400).
    private static func timeOfDayReachable(frequency: Frequency, interval: Int, origin: Int64,
                                           hours: [Bool]?, minutes: [Bool]?, seconds: [Bool]?) -> Bool {
        guard hours != nil || minutes != nil || seconds != nil else { return true }
        let period = unitSeconds(frequency) * Int64(interval)
        let modulus = RuleInstanceStream.greatestCommonDivisor(period, 86_400)
        let residue = floorMod(origin, modulus)
        for hour in 0..<24 where hours?[hour] ?? true {
            for minute in 0..<(frequency <= .minutely ? 60 : 1) where minutes?[minute] ?? true {
                for second in 0..<(frequency == .secondly ? 60 : 1) where seconds?[second] ?? true {
                    if Int64(hour * 3600 + minute * 60 + second) % modulus == residue { return true }
                }
            }
        }
        return false
    }

    /// Up to about `limit` instances (whole periods at a time), in order; empty when the
    /// rule, the stop point or the step budget ends it (see ``isFinished`` and
    /// ``ranOutOfSteps``).
    func next(limit: Int) -> [LocalDateTime] {
        var result: [LocalDateTime] = []
        while result.count < limit && !isFinished {
            guard meter.remainingSteps > 0 else {
                ranOutOfSteps = true
                isFinished = true
                break
            }
            result += nextPeriod()
        }
        return result
    }

    // MARK: Periods

    private static func unitSeconds(_ frequency: Frequency) -> Int64 {
        switch frequency {
        case .secondly: return 1
        case .minutely: return 60
        default: return 3600
        }
    }

    private static func cursorStep(_ frequency: Frequency) -> Int64 {
        switch frequency {
        case .weekly: return 7
        case .hourly, .minutely, .secondly: return unitSeconds(frequency)
        default: return 1
        }
    }

    /// The instances of the period at the cursor (possibly none), moving the cursor on.
    private func nextPeriod() -> [LocalDateTime] {
        meter.steps += 1
        switch frequency {
        case .yearly:
            let year = Int(cursor)
            guard year <= 9999 else { isFinished = true; return [] }
            let first: Int, end: Int
            if weekYears {
                first = Self.firstWeekStart(year, weekStart: weekStart)
                end = Self.firstWeekStart(year + 1, weekStart: weekStart)
            } else {
                first = CalendarDate.daysSinceEpoch(year: year, month: 1, day: 1)
                end = CalendarDate.daysSinceEpoch(year: year + 1, month: 1, day: 1)
            }
            guard first <= stopDay else { isFinished = true; return [] }
            cursor += Int64(interval)
            if !weekYears, !needsMask, let byMonth {
                // Only the months BYMONTH keeps (DTSTART's for a plain YEARLY rule) can match.
                var months: [Range<Int>] = []
                for month in 1...12 where byMonth[month] {
                    let start = CalendarDate.daysSinceEpoch(year: year, month: month, day: 1)
                    months.append(start..<(start + DateSyntax.daysInMonth(year: year, month: month)))
                }
                return instances(dayRanges: months)
            }
            return instances(days: first..<end)
        case .monthly:
            let year = Int(cursor / 12), month = Int(cursor % 12) + 1
            guard year <= 9999 else { isFinished = true; return [] }
            let first = CalendarDate.daysSinceEpoch(year: year, month: month, day: 1)
            guard first <= stopDay else { isFinished = true; return [] }
            cursor += Int64(interval)
            if let byMonth, !byMonth[month] { meter.steps -= 1; return [] }  // no set to build
            let end = CalendarDate.daysSinceEpoch(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1)
            return instances(days: first..<end)
        case .weekly:
            let first = Int(cursor)
            guard first <= stopDay, first < Self.lastDay else { isFinished = true; return [] }
            cursor += Int64(7 * interval)
            return instances(days: first..<(first + 7))
        case .daily:
            var day = Int(cursor)
            while !dayMatches(day) {
                guard day <= stopDay, day < Self.lastDay, countScan() else { isFinished = true; return [] }
                day += interval
            }
            guard day <= stopDay, day < Self.lastDay else { isFinished = true; return [] }
            cursor = Int64(day) + Int64(interval)
            return instances(days: day..<(day + 1))
        case .hourly, .minutely, .secondly:
            return nextSubDailyPeriod()
        }
    }

    /// One scanned day or period skipped cheaply; every 366 of them count one step. False
    /// when the budget is spent.
    private func countScan() -> Bool {
        scanned += 1
        if scanned >= 366 {
            scanned = 0
            meter.steps += 1
            if meter.remainingSteps <= 0 { ranOutOfSteps = true; return false }
        }
        return true
    }

    private func nextSubDailyPeriod() -> [LocalDateTime] {
        let period = Self.unitSeconds(frequency) * Int64(interval)
        /// The first period starting at or after `target` (which is after the cursor).
        func align(_ target: Int64) -> Int64 {
            let distance = target - origin
            return origin + (distance + period - 1) / period * period
        }
        while true {
            let t = cursor
            guard t <= stopSeconds else { isFinished = true; return [] }
            let day = Int(Self.floorDiv(t, 86_400))
            guard day < Self.lastDay else { isFinished = true; return [] }
            let secondOfDay = Int(t - Int64(day) * 86_400)
            if !dayMatches(day) {
                var next = day + 1
                while !dayMatches(next) {
                    guard next <= stopDay, next < Self.lastDay, countScan() else { isFinished = true; return [] }
                    next += 1
                }
                cursor = align(Int64(next) * 86_400)
                if !countScan() { isFinished = true; return [] }
                continue
            }
            let hour = secondOfDay / 3600, minute = secondOfDay % 3600 / 60, second = secondOfDay % 60
            if let hourLimit, !hourLimit[hour] {
                let nextHour = (hour + 1..<24).first { hourLimit[$0] }
                cursor = align(Int64(day) * 86_400 + Int64(nextHour.map { $0 * 3600 } ?? 86_400))
                if !countScan() { isFinished = true; return [] }
                continue
            }
            if let minuteLimit, !minuteLimit[minute] {
                let nextMinute = (minute + 1..<60).first { minuteLimit[$0] }
                cursor = align(t - Int64(minute * 60 + second) + Int64(nextMinute.map { $0 * 60 } ?? 3600))
                if !countScan() { isFinished = true; return [] }
                continue
            }
            if let secondLimit, !secondLimit[second] {
                let nextSecond = (second + 1..<60).first { secondLimit[$0] }
                cursor = align(t - Int64(second) + Int64(nextSecond ?? 60))
                if !countScan() { isFinished = true; return [] }
                continue
            }
            cursor = t + period
            let date = CalendarDate(daysSinceEpoch: day)
            if isDate { return [LocalDateTime(date: date)] }
            var set: [LocalDateTime] = []
            switch frequency {
            case .hourly:
                for minute in minutes {
                    for second in seconds { set.append(Self.local(date, hour, minute, second)) }
                }
            case .minutely:
                for second in seconds { set.append(Self.local(date, hour, minute, second)) }
            default:
                set.append(Self.local(date, hour, minute, second))
            }
            return select(set)
        }
    }

    /// The instances of a period of whole days: its matching days × the times of day,
    /// then BYSETPOS.
    private func instances(days: Range<Int>) -> [LocalDateTime] {
        instances(dayRanges: CollectionOfOne(days))
    }

    /// The same for a period whose days that can match lie in ascending ranges.
    private func instances(dayRanges: some Sequence<Range<Int>>) -> [LocalDateTime] {
        var set: [LocalDateTime] = []
        for days in dayRanges {
            for day in days where dayMatches(day) {
                let date = CalendarDate(daysSinceEpoch: day)
                for hour in hours {
                    for minute in minutes {
                        for second in seconds { set.append(Self.local(date, hour, minute, second)) }
                    }
                }
            }
        }
        return select(set)
    }

    /// BYSETPOS applied to one period's sorted set.
    private func select(_ set: [LocalDateTime]) -> [LocalDateTime] {
        guard !setPositions.isEmpty, !set.isEmpty else { return set }
        var indices = Set<Int>()
        for position in setPositions {
            let index = position > 0 ? position - 1 : set.count + position
            if set.indices.contains(index) { indices.insert(index) }
        }
        return indices.sorted().map { set[$0] }
    }

    private static func local(_ date: CalendarDate, _ hour: Int, _ minute: Int, _ second: Int) -> LocalDateTime {
        LocalDateTime(date: date, time: TimeOfDay(hour: hour, minute: minute, second: second) ?? .midnight)
    }

    // MARK: Days

    /// 10000-01-01: no period starts there or later.
    private static let lastDay = CalendarDate.daysSinceEpoch(year: 10_000, month: 1, day: 1)

    /// Whether a day passes every day part: directly for the cheap parts (plain weekdays,
    /// BYMONTH, BYMONTHDAY), else from a cached mask of its year.
    private func dayMatches(_ day: Int) -> Bool {
        guard hasDayFilter else { return true }
        if !needsMask {
            if hasWeekdayPart && !byWeekday[CalendarDate.isoWeekday(daysSinceEpoch: day)] { return false }
            if byMonth == nil && byMonthDay.isEmpty { return true }
            let date = CalendarDate(daysSinceEpoch: day)
            if let byMonth, !byMonth[date.month] { return false }
            if !byMonthDay.isEmpty {
                let length = DateSyntax.daysInMonth(year: date.year, month: date.month)
                return byMonthDay.contains { $0 > 0 ? $0 == date.day : length + 1 + $0 == date.day }
            }
            return true
        }
        if day >= lastMaskFirst && day - lastMaskFirst < lastMask.count { return lastMask[day - lastMaskFirst] }
        let date = CalendarDate(daysSinceEpoch: day)
        let first = CalendarDate.daysSinceEpoch(year: date.year, month: 1, day: 1)
        let mask: [Bool]
        if let cached = masks[date.year] {
            mask = cached
        } else {
            if masks.count >= 4 { masks.removeAll(keepingCapacity: true) }
            mask = yearMask(date.year, first: first)
            masks[date.year] = mask
        }
        lastMask = mask
        lastMaskFirst = first
        return mask[day - first]
    }

    private func yearMask(_ year: Int, first: Int) -> [Bool] {
        let length = CalendarDate.daysSinceEpoch(year: year + 1, month: 1, day: 1) - first
        var mask = [Bool](repeating: false, count: length)
        var monthStart = first
        for month in 1...12 {
            let monthLength = DateSyntax.daysInMonth(year: year, month: month)
            defer { monthStart += monthLength }
            if let byMonth, !byMonth[month] { continue }
            for dayOfMonth in 1...monthLength {
                let day = monthStart + dayOfMonth - 1
                let yearDay = day - first + 1
                if !byMonthDay.isEmpty,
                   !byMonthDay.contains(where: { $0 > 0 ? $0 == dayOfMonth : monthLength + 1 + $0 == dayOfMonth }) { continue }
                if !byYearDay.isEmpty, !byYearDay.contains(where: { $0 > 0 ? $0 == yearDay : length + 1 + $0 == yearDay }) {
                    continue
                }
                if hasWeekdayPart {
                    let weekday = CalendarDate.isoWeekday(daysSinceEpoch: day)
                    var matches = byWeekday[weekday]
                    if !matches {
                        let (index, scopeLength) = ordinalsPerMonth ? (dayOfMonth - 1, monthLength) : (yearDay - 1, length)
                        let fromStart = index / 7 + 1, fromEnd = -((scopeLength - 1 - index) / 7 + 1)
                        matches = byOrdinalWeekday.contains { $0.weekday == weekday && ($0.ordinal == fromStart || $0.ordinal == fromEnd) }
                    }
                    if !matches { continue }
                }
                if !byWeekNumber.isEmpty,
                   !RuleInstanceStream.weekNumberMatches(CalendarDate(daysSinceEpoch: day), byWeekNumber, weekStart: weekStart) {
                    continue
                }
                mask[day - first] = true
            }
        }
        return mask
    }

    /// The year whose week 1 (per WKST, RFC 5545 §3.3.10) holds `date`'s week.
    static func weekYear(_ date: CalendarDate, weekStart: Int) -> Int {
        RuleInstanceStream.startOfWeek(date, weekStart: weekStart).adding(days: 3).year
    }

    /// The first day (days since 1970) of week 1 of `year` under WKST.
    static func firstWeekStart(_ year: Int, weekStart: Int) -> Int {
        let january4 = CalendarDate.daysSinceEpoch(year: year, month: 1, day: 4)
        let weekday = CalendarDate.isoWeekday(daysSinceEpoch: january4)
        return january4 - (weekday - weekStart + 7) % 7
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }
}

extension CalendarDate {
    /// The ISO weekday (1 is Monday) of a day counted from 1970-01-01.
    static func isoWeekday(daysSinceEpoch days: Int) -> Int {
        let weekday = (days + 3) % 7
        return (weekday < 0 ? weekday + 7 : weekday) + 1
    }
}
