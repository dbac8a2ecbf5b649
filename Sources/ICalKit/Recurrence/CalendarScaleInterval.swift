/// INTERVAL of an RSCALE rule (RFC 7529), counted in the rule's calendar.
///
/// libical 3.0.16 expands RSCALE rules through ICU, but counts INTERVAL wrongly in some
/// calendars even from DTSTART: from Chinese New Year 2013-02-10,
/// `RSCALE=CHINESE;FREQ=YEARLY;INTERVAL=2` gives 2014, 2016... instead of 2013, 2015...,
/// and `RSCALE=CHINESE;FREQ=DAILY;INTERVAL=3` starts two days late. Its INTERVAL=1
/// expansion is right, so libical expands the rule without INTERVAL and this filter keeps
/// the instances whose period (a year or month of the rule's calendar, a week of WKST, a day,
/// hour, minute or second) lies a multiple of INTERVAL periods after the period that holds
/// DTSTART. COUNT applies after the filter (``RuleInstanceStream``).
///
/// Years and months of the rule's calendar are found by libical itself: a second iterator
/// lists the first day of each (`BYMONTH=1;BYMONTHDAY=1` yearly, `BYMONTHDAY=1` monthly,
/// leap months included), and an instance's period is the number of those first days after
/// DTSTART's date up to its own date. With `SKIP=FORWARD`, an instance moved forward from an
/// invalid date (day 30 of a 29-day month) can land on the first day of the next period; it
/// belongs to the period of the invalid date. Such instances are the ones the rule without
/// SKIP does not give (a third iterator), and they count in the period before.
final class CalendarScaleIntervalFilter {
    private let frequency: RecurrenceRuleText.Frequency
    private let interval: Int
    private let dtstart: LocalDateTime
    private let weekStart: Int
    private let meter: ExpansionMeter
    /// The first days (days since 1970-01-01) of the calendar's years or months after
    /// DTSTART's date, ascending, found so far.
    private var boundaries: [Int] = []
    private var boundaryIterator: LibicalRecurrenceIterator?
    /// The instances of the rule without SKIP (SKIP=FORWARD only), ascending, found so far.
    private var unskipped: [LocalDateTime] = []
    private var unskippedIterator: LibicalRecurrenceIterator?
    /// Whether the rule has SKIP=FORWARD, so instances on a period's first day are checked.
    private var movesForward = false
    /// Set when the budget ran out while looking for a boundary: no later instance is kept.
    private var failed = false

    /// A filter for `rule`, or nil when it has INTERVAL=1 or no RSCALE (nothing to filter).
    /// `until` is the floating time the expansion stops after; `jumpTo` where libical's
    /// iterator of the rule starts.
    init?(rule: RecurrenceRuleText, dtstart: LocalDateTime, isDate: Bool, until: LocalDateTime,
          jumpTo: LocalDateTime?, meter: ExpansionMeter) {
        guard rule.interval > 1, let scale = rule.value("RSCALE") else { return nil }
        self.frequency = rule.frequency
        self.interval = rule.interval
        self.dtstart = dtstart
        self.weekStart = rule.weekStart
        self.meter = meter
        let boundaryRule: String? = switch rule.frequency {
        case .yearly: "FREQ=YEARLY;RSCALE=\(scale);BYMONTH=1;BYMONTHDAY=1"
        case .monthly: "FREQ=MONTHLY;RSCALE=\(scale);BYMONTHDAY=1"
        default: nil
        }
        guard let boundaryRule else { return }
        // One period of slack past `until`, so the period of the last instance is known.
        let boundaryUntil = until.adding(seconds: rule.frequency.periodSeconds)
        guard let boundaryIterator = LibicalRecurrenceIterator.make(
            rule: boundaryRule, start: LocalDateTime(date: dtstart.date), isDate: true,
            until: boundaryUntil, jumpTo: nil) else { return nil }
        self.boundaryIterator = boundaryIterator
        if let skip = rule.value("SKIP"), ASCII.uppercased(skip) == "FORWARD" {
            let plain = rule.removing(["SKIP", "INTERVAL", "COUNT", "UNTIL"]).text
            guard let unskippedIterator = LibicalRecurrenceIterator.make(
                rule: plain, start: dtstart, isDate: isDate, until: until, jumpTo: jumpTo) else { return nil }
            self.unskippedIterator = unskippedIterator
            self.movesForward = true
        }
    }

    /// Whether the instance `local` (from libical's INTERVAL=1 expansion) lies in a period
    /// the INTERVAL keeps. Instances must come in ascending order for the budget to hold.
    func keeps(_ local: LocalDateTime) -> Bool {
        guard !failed else { return false }
        let index: Int64
        switch frequency {
        case .secondly, .minutely, .hourly, .daily:
            let length = frequency.periodSeconds
            index = Self.floorDivide(local.secondsSinceEpoch, length) - Self.floorDivide(dtstart.secondsSinceEpoch, length)
        case .weekly:
            let weeks = RuleInstanceStream.startOfWeek(local.date, weekStart: weekStart).daysSinceEpoch
                - RuleInstanceStream.startOfWeek(dtstart.date, weekStart: weekStart).daysSinceEpoch
            index = Int64(weeks / 7)
        case .monthly, .yearly:
            let day = local.date.daysSinceEpoch
            guard extendBoundaries(through: day) else { failed = true; return false }
            var periods = Self.count(boundaries, atMost: day)
            if periods > 0, boundaries[periods - 1] == day, movesForward {
                guard extendUnskipped(through: local) else { failed = true; return false }
                let position = Self.count(unskipped, atMost: local)
                let isUnskipped = position > 0 && unskipped[position - 1] == local
                if !isUnskipped { periods -= 1 }  // moved forward from the period before
            }
            index = Int64(periods)
        }
        return index >= 0 && index % Int64(interval) == 0
    }

    /// Reads boundaries until one lies after `day` or libical has no more; false when the
    /// step budget ran out first.
    private func extendBoundaries(through day: Int) -> Bool {
        while boundaries.last.map({ $0 <= day }) ?? true, let iterator = boundaryIterator {
            guard meter.remainingSteps > 0 else { meter.truncate(.iteratorSteps); return false }
            let chunk = iterator.next(limit: 64)
            meter.steps += max(1, chunk.count)
            for local in chunk where local.date.daysSinceEpoch > dtstart.date.daysSinceEpoch {
                if let last = boundaries.last, local.date.daysSinceEpoch <= last { continue }
                boundaries.append(local.date.daysSinceEpoch)
            }
            if iterator.isFinished { boundaryIterator = nil }
        }
        return true
    }

    /// Reads the rule without SKIP until past `local`; false when the budget ran out first.
    private func extendUnskipped(through local: LocalDateTime) -> Bool {
        while unskipped.last.map({ $0 <= local }) ?? true, let iterator = unskippedIterator {
            guard meter.remainingSteps > 0 else { meter.truncate(.iteratorSteps); return false }
            let chunk = iterator.next(limit: 64)
            meter.steps += max(1, chunk.count)
            for instance in chunk {
                if let last = unskipped.last, instance <= last { continue }
                unskipped.append(instance)
            }
            if iterator.isFinished { unskippedIterator = nil }
        }
        return true
    }

    /// How many elements of the ascending `values` are at most `value`.
    static func count<T: Comparable>(_ values: [T], atMost value: T) -> Int {
        var (low, high) = (0, values.count)
        while low < high {
            let middle = (low + high) / 2
            if values[middle] <= value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
