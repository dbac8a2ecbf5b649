// The classes here hold the state of one expansion (or one merge of expansions), stepped
// once per occurrence by a single caller and never reentered. Their stored properties are
// `@exclusivity(unchecked)`: the compiler still checks exclusive access statically, but the
// run-time check of every access (a tenth of a streamed query's instructions) is left out.

/// Counts iterator steps across one expansion and records why it stopped early.
final class ExpansionMeter {
    let budget: ExpansionBudget
    @exclusivity(unchecked) var steps = 0
    @exclusivity(unchecked) var truncation: ExpansionTruncation?

    init(budget: ExpansionBudget) { self.budget = budget }

    var remainingSteps: Int { max(0, budget.maximumIteratorSteps - steps) }

    func truncate(_ reason: ExpansionTruncation) {
        if truncation == nil { truncation = reason }
    }
}

/// Where a wall-clock instance stands against the rule's UNTIL.
enum UntilVerdict {
    /// At or before UNTIL.
    case inside
    /// After UNTIL, but a later wall-clock time might still be inside (daylight-saving gaps).
    case outside
    /// After UNTIL, and so is everything later.
    case beyond
}

/// The wall-clock instances of one RRULE, in order and without duplicates: from
/// ``RulePeriodEngine`` for Gregorian rules, which needs none of the fixes below, or, for
/// RSCALE rules (RFC 7529), from libical's iterator with its known errors fixed in Swift:
///
/// - INTERVAL is counted in the rule's calendar (``CalendarScaleIntervalFilter``); libical
///   expands with INTERVAL=1.
/// - COUNT is applied here, after the fixes below, with DTSTART counting as one instance
///   even when it does not match the rule; libical only sees the rule without COUNT.
/// - UNTIL is applied here (by instant, date or wall clock, see ``UntilVerdict``); libical
///   only sees a floating UNTIL clamped to where this stream stops.
/// - Weekly BYSETPOS (ignored by libical 3.0.16) is applied per week of WKST.
/// - BYWEEKNO results are filtered by BYDAY and week number under WKST, and re-sorted.
/// - Instances before DTSTART and repeated instances are dropped.
final class RuleInstanceStream {
    private let rule: RecurrenceRuleText
    private let dtstart: LocalDateTime
    private let end: LocalDateTime
    private let endIsCapped: Bool
    private let until: (LocalDateTime) -> UntilVerdict
    private let meter: ExpansionMeter
    @exclusivity(unchecked) private var iterator: LibicalRecurrenceIterator?
    /// The Swift engine for Gregorian rules; nil for RSCALE rules, which libical expands.
    @exclusivity(unchecked) private var engine: RulePeriodEngine?
    /// INTERVAL of an RSCALE rule, applied to libical's INTERVAL=1 expansion.
    @exclusivity(unchecked) private var intervalFilter: CalendarScaleIntervalFilter?

    private let weeklySetPositions: [Int]
    private let weekStart: Int
    private let weekNumbers: [Int]
    private let weekNumberDays: Set<Int>
    private let rawStop: LocalDateTime

    @exclusivity(unchecked) private var remainingCount: Int?
    @exclusivity(unchecked) private var isFirst = true
    @exclusivity(unchecked) private var ready: [LocalDateTime] = []
    @exclusivity(unchecked) private var readyIndex = 0
    @exclusivity(unchecked) private var weekGroup: [LocalDateTime] = []
    @exclusivity(unchecked) private var weekGroupKey: Int?
    @exclusivity(unchecked) private var sortBuffer: [LocalDateTime] = []
    @exclusivity(unchecked) private var lastEmitted: LocalDateTime?
    @exclusivity(unchecked) private var exhausted = false
    /// How many instances the next pump asks libical for: small at first, doubling up to
    /// 256. Most series need only a few instances (a COUNT rule, a short window), and every
    /// instance libical computes costs ICU calendar work, so a fixed chunk of 256 made
    /// libical compute up to 256 instances per series that were never used.
    @exclusivity(unchecked) private var chunkSize = 8

    /// - Parameters:
    ///   - jumpTo: where to start iterating (`icalrecur_iterator_set_start`); nil to start at
    ///     DTSTART, which rules with COUNT must.
    ///   - end: the last wall-clock time worth producing.
    ///   - endIsCapped: whether `end` was cut short by the budget (stopping there truncates).
    init(rule: RecurrenceRuleText, dtstart: LocalDateTime, isDate: Bool, jumpTo: LocalDateTime?,
         end: LocalDateTime, endIsCapped: Bool, until: @escaping (LocalDateTime) -> UntilVerdict,
         meter: ExpansionMeter) {
        self.rule = rule
        self.dtstart = dtstart
        self.end = end
        self.endIsCapped = endIsCapped
        self.until = until
        self.meter = meter
        self.remainingCount = rule.count
        self.weekStart = rule.weekStart
        if let engine = RulePeriodEngine(rule: rule, dtstart: dtstart, isDate: isDate, jumpTo: jumpTo, stop: end, meter: meter) {
            // Gregorian rules: the Swift engine, which needs none of the fixes below.
            self.engine = engine
            self.intervalFilter = nil
            self.weeklySetPositions = []
            self.weekNumbers = []
            self.weekNumberDays = []
            self.rawStop = end
            return
        }
        self.engine = nil
        self.weeklySetPositions = rule.needsWeeklySetPosition ? rule.integers("BYSETPOS").filter { $0 != 0 } : []
        self.weekNumbers = rule.integers("BYWEEKNO").filter { $0 != 0 }
        self.weekNumberDays = weekNumbers.isEmpty ? [] : rule.byDayWeekdays

        var libicalRule = rule.removing(["COUNT", "UNTIL"])
        var libicalStart = dtstart
        var jump = jumpTo
        var slackDays = 0
        if !weeklySetPositions.isEmpty {
            // Iterate whole weeks from the start of DTSTART's week, so every set is complete.
            libicalRule = libicalRule.removing(["BYSETPOS"])
            if rule.value("BYDAY") == nil {
                libicalRule = libicalRule.setting("BYDAY", RecurrenceRuleText.weekdayText(dtstart.date.isoWeekday))
            }
            libicalStart = LocalDateTime(date: Self.startOfWeek(dtstart.date, weekStart: weekStart), time: dtstart.time)
            if let target = jump {
                jump = LocalDateTime(date: Self.startOfWeek(target.date, weekStart: weekStart), time: .midnight)
            }
            slackDays += 7
        }
        if rule.frequency == .weekly, rule.interval > 1, weekNumbers.isEmpty,
           case let weekdays = rule.byDayWeekdays, !weekdays.isEmpty, !weekdays.contains(libicalStart.date.isoWeekday) {
            // libical 3.0.16 ignores WKST for a WEEKLY rule with INTERVAL > 1 whose start is
            // not one of its BYDAY days: from Wednesday 2022-05-04,
            // FREQ=WEEKLY;INTERVAL=2;BYDAY=SU gives 05-15 (as if WKST=SU) where RFC 5545
            // (and its WKST example in §3.8.5.3) gives 05-08, the Sunday of the Monday week
            // that holds DTSTART. From an on-rule start it honours WKST, so start libical at
            // the first BYDAY day of an allowed week on or after the start.
            libicalStart = Self.firstDay(onOrAfter: libicalStart, weekdays: weekdays, weekStart: weekStart,
                                         interval: rule.interval)
        }
        if !weekNumbers.isEmpty { slackDays += 14 }
        if let target = jump, rule.frequency.periodSeconds <= RecurrenceRuleText.Frequency.weekly.periodSeconds {
            // Up to WEEKLY, every period has the same wall-clock length, so moving the floating
            // start ahead by whole intervals gives the same instances. libical 3.0.16's
            // icalrecur_iterator_set_start does not keep INTERVAL's alignment for these
            // frequencies (HOURLY;INTERVAL=7 drifts) and steps there one period at a time.
            // Below DAILY, libical realigns to the start's time of day when a filter skips
            // ahead, so the shift must also keep the time of day (BYHOUR, BYMINUTE, BYSECOND)
            // and the weekday (plain BYDAY); with other date filters (BYMONTH, BYMONTHDAY...)
            // a sub-daily rule is iterated from DTSTART.
            var step = rule.frequency.periodSeconds * Int64(rule.interval)
            let dateParts: Set<String> = ["BYMONTH", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS"]
            let timeParts: Set<String> = ["BYHOUR", "BYMINUTE", "BYSECOND"]
            var canShift = true
            func lcm(_ step: Int64, _ period: Int64) -> Int64 { step / Self.greatestCommonDivisor(step, period) * period }
            if rule.frequency.periodSeconds < 86_400 {
                let byDay = rule.value("BYDAY")
                if rule.parts.contains(where: { dateParts.contains($0.key) })
                    || (byDay.map { $0.contains(where: { "0123456789+-".contains($0) }) } ?? false) {
                    canShift = false
                } else if byDay != nil {
                    step = lcm(step, 7 * 86_400)
                } else if rule.parts.contains(where: { timeParts.contains($0.key) }) {
                    step = lcm(step, 86_400)
                }
            }
            let distance = target.secondsSinceEpoch - libicalStart.secondsSinceEpoch
            if canShift, distance > step { libicalStart = libicalStart.adding(seconds: distance / step * step) }
            jump = nil
        }
        self.rawStop = end.adding(seconds: Int64(slackDays) * 86_400)
        let pad = rule.frequency.periodSeconds * Int64(rule.interval)
        let libicalUntil = rawStop.adding(seconds: min(pad, 400 * 86_400))
        if let jumpTarget = jump, jumpTarget <= libicalStart { jump = nil }
        // libical 3.0.16 counts INTERVAL wrongly in some calendars (RSCALE=CHINESE): it
        // expands with INTERVAL=1 and the filter counts the periods (CalendarScaleInterval).
        self.intervalFilter = CalendarScaleIntervalFilter(rule: rule, dtstart: dtstart, isDate: isDate,
                                                          until: libicalUntil, jumpTo: jump, meter: meter)
        if intervalFilter != nil { libicalRule = libicalRule.removing(["INTERVAL"]) }
        // Without the filter (libical refused the rule's calendar), libical would count
        // INTERVAL itself, wrongly: the rule gives nothing beyond DTSTART.
        self.iterator = rule.interval > 1 && intervalFilter == nil ? nil
            : LibicalRecurrenceIterator.make(rule: libicalRule.text, start: libicalStart, isDate: isDate,
                                             until: libicalUntil, jumpTo: jump)
    }

    /// The next instance, or nil when the rule, its UNTIL or COUNT, the stop point or the
    /// budget ends the stream.
    func next() -> LocalDateTime? {
        while readyIndex == ready.count {
            if exhausted { return nil }
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            pump()
        }
        defer { readyIndex += 1 }
        return ready[readyIndex]
    }

    private func pump() {
        if let engine { pump(engine); return }
        guard let iterator else { finish(); return }
        guard meter.remainingSteps > 0 else {
            meter.truncate(.iteratorSteps)
            finish()
            return
        }
        // Every accepted instance takes at least one raw step, so a rule with COUNT never
        // needs more raw steps in one pump than the instances it has left: asking libical
        // for more would only compute instances that are thrown away.
        var limit = min(chunkSize, meter.remainingSteps)
        if let remainingCount { limit = min(limit, max(1, remainingCount)) }
        let chunk = iterator.next(limit: limit)
        chunkSize = min(256, chunkSize * 2)
        meter.steps += max(1, chunk.count)
        for local in chunk {
            if local > rawStop {
                if endIsCapped { meter.truncate(.span) }
                finish()
                return
            }
            acceptRaw(local)
            if exhausted { return }
        }
        if iterator.isFinished {
            // libical stopped at the clamped UNTIL: if the budget set it, the rule may go on.
            if endIsCapped { meter.truncate(.span) }
            finish()
        }
    }

    private func pump(_ engine: RulePeriodEngine) {
        guard meter.remainingSteps > 0 else {
            meter.truncate(.iteratorSteps)
            finish()
            return
        }
        var limit = chunkSize
        if let remainingCount { limit = min(limit, max(1, remainingCount)) }
        chunkSize = min(256, chunkSize * 2)
        for local in engine.next(limit: limit) {
            acceptRaw(local)
            if exhausted { return }
        }
        if engine.isFinished {
            if engine.ranOutOfSteps {
                meter.truncate(.iteratorSteps)
            } else if endIsCapped {
                meter.truncate(.span)
            }
            finish()
        }
    }

    private func finish() {
        guard !exhausted else { return }
        flushWeekGroup()
        sortBuffer.sort()
        let rest = sortBuffer
        sortBuffer.removeAll()
        for local in rest where !exhausted { acceptOrdered(local) }
        exhausted = true
        iterator = nil
        engine = nil
        intervalFilter = nil
    }

    // Stage 1: weekly BYSETPOS.
    private func acceptRaw(_ local: LocalDateTime) {
        if let intervalFilter, !intervalFilter.keeps(local) { return }
        guard !weeklySetPositions.isEmpty else { acceptUnordered(local); return }
        let key = Self.startOfWeek(local.date, weekStart: weekStart).daysSinceEpoch
        if key != weekGroupKey { flushWeekGroup() }
        weekGroupKey = key
        weekGroup.append(local)
    }

    private func flushWeekGroup() {
        guard !weekGroup.isEmpty else { return }
        var set = weekGroup
        weekGroup.removeAll(keepingCapacity: true)
        set.sort()
        set = set.reduce(into: []) { if $0.last != $1 { $0.append($1) } }
        var chosen: [LocalDateTime] = []
        for position in weeklySetPositions {
            let index = position > 0 ? position - 1 : set.count + position
            if set.indices.contains(index) { chosen.append(set[index]) }
        }
        for local in Set(chosen).sorted() where !exhausted { acceptUnordered(local) }
    }

    // Stage 2: BYWEEKNO filter and re-sorting.
    private func acceptUnordered(_ local: LocalDateTime) {
        guard !weekNumbers.isEmpty else { acceptOrdered(local); return }
        if !weekNumberDays.isEmpty, !weekNumberDays.contains(local.date.isoWeekday) { return }
        guard Self.weekNumberMatches(local.date, weekNumbers, weekStart: weekStart) else { return }
        let index = sortBuffer.firstIndex { $0 > local } ?? sortBuffer.count
        sortBuffer.insert(local, at: index)
        let horizon = local.adding(seconds: -14 * 86_400)
        while let first = sortBuffer.first, first < horizon, !exhausted {
            sortBuffer.removeFirst()
            acceptOrdered(first)
        }
    }

    // Stage 3: DTSTART, duplicates, the stop point, UNTIL and COUNT.
    private func acceptOrdered(_ local: LocalDateTime) {
        guard local >= dtstart else { return }
        if let lastEmitted, local <= lastEmitted { return }
        if local > end {
            if endIsCapped { meter.truncate(.span) }
            exhausted = true
            return
        }
        switch until(local) {
        case .inside: break
        case .outside: return
        case .beyond: exhausted = true; return
        }
        if var remaining = remainingCount {
            if isFirst && local != dtstart { remaining -= 1 }  // DTSTART counts as one
            guard remaining > 0 else { exhausted = true; remainingCount = 0; return }
            remainingCount = remaining - 1
        }
        isFirst = false
        lastEmitted = local
        ready.append(local)
        // The last instance COUNT allows: stop now rather than at the next raw instance,
        // which would cost libical another step (or a whole chunk of them).
        if remainingCount == 0 { exhausted = true }
    }

    static func greatestCommonDivisor(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return max(1, a)
    }

    /// The first day on or after `start` whose ISO weekday is in `weekdays`, in the week of
    /// `start` (per WKST) or, when none is left there, in the week `interval` weeks later.
    static func firstDay(onOrAfter start: LocalDateTime, weekdays: Set<Int>, weekStart: Int, interval: Int) -> LocalDateTime {
        let week = startOfWeek(start.date, weekStart: weekStart)
        for offset in 0..<7 {
            let day = week.adding(days: offset)
            if day >= start.date && weekdays.contains(day.isoWeekday) { return LocalDateTime(date: day, time: start.time) }
        }
        let next = week.adding(days: 7 * interval)
        for offset in 0..<7 where weekdays.contains(next.adding(days: offset).isoWeekday) {
            return LocalDateTime(date: next.adding(days: offset), time: start.time)
        }
        return start
    }

    /// The first day of the week (per WKST, an ISO weekday) that contains `date`.
    static func startOfWeek(_ date: CalendarDate, weekStart: Int) -> CalendarDate {
        date.adding(days: -((date.isoWeekday - weekStart + 7) % 7))
    }

    /// Whether `date` lies in one of the week numbers (RFC 5545 §3.3.10 BYWEEKNO: week 1
    /// is the first week, starting on WKST, with at least four days in the year).
    static func weekNumberMatches(_ date: CalendarDate, _ numbers: [Int], weekStart: Int) -> Bool {
        let weekBegin = startOfWeek(date, weekStart: weekStart)
        let weekYear = weekBegin.adding(days: 3).year
        func firstWeek(_ year: Int) -> CalendarDate {
            startOfWeek(CalendarDate(year: year, month: 1, day: 4) ?? weekBegin, weekStart: weekStart)
        }
        let first = firstWeek(weekYear)
        let week = (weekBegin.daysSinceEpoch - first.daysSinceEpoch) / 7 + 1
        let weeksInYear = (firstWeek(weekYear + 1).daysSinceEpoch - first.daysSinceEpoch) / 7
        return numbers.contains { $0 > 0 ? $0 == week : weeksInYear + 1 + $0 == week }
    }
}
