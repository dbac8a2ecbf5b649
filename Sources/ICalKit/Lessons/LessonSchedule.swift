/// The lesson days of one slot in wall-clock dates: which days its weekly rule generates,
/// which of them are holidays, and where the rule starts and ends.
struct LessonSchedule {
    /// Why a slot cannot be scheduled.
    enum Problem: Error {
        /// None of the weekdays falls in the term.
        case noDays
        /// Every day the rule would generate is a holiday.
        case noLessons
        /// The rule would generate more than this many days.
        case tooMany(Int)
    }

    /// The rule's days from the first lesson held to the last.
    struct Lessons {
        /// The first lesson held: DTSTART's date.
        var first: CalendarDate
        /// The rule's end: the date of the last lesson held, or the number of days the
        /// rule generates (lessons held plus holidays among them).
        var end: LessonPlan.End
        /// The days the rule generates that are holidays: the EXDATEs.
        var excluded: [CalendarDate]
        /// Problems met expanding holiday calendars.
        var diagnostics: [Diagnostic]
    }

    let from: CalendarDate
    let weekdays: Set<Int>
    let interval: Int
    /// The first of the weekdays on or after `from`: its week is week 0.
    let anchor: CalendarDate

    init(from: CalendarDate, weekdays: [RecurrenceRule.Weekday], interval: Int) {
        self.from = from
        self.weekdays = Set(weekdays.map(\.isoNumber))
        self.interval = max(1, interval)
        var day = from
        for _ in 0..<7 where !self.weekdays.contains(day.isoWeekday) { day = day.adding(days: 1) }
        anchor = day
    }

    /// The Monday of a date's week.
    private func monday(_ date: CalendarDate) -> Int { date.daysSinceEpoch - (date.isoWeekday - 1) }

    /// The next day the rule generates after `date` (or `date` itself when `including`).
    func next(after date: CalendarDate, including: Bool = false) -> CalendarDate {
        var day = including ? date : date.adding(days: 1)
        while true {
            let week = (monday(day) - monday(anchor)) / 7
            if week % interval == 0 && weekdays.contains(day.isoWeekday) { return day }
            // Skip whole weeks that are out of phase.
            if week % interval != 0 {
                day = CalendarDate(daysSinceEpoch: monday(day) + 7 * (interval - week % interval))
            } else {
                day = day.adding(days: 1)
            }
        }
    }

    /// The days the rule generates from the anchor on, up to `limit` of them or through `last`.
    private func days(through last: CalendarDate?, limit: Int) -> [CalendarDate] {
        var result: [CalendarDate] = []
        var day = next(after: anchor, including: true)
        while result.count < limit, last.map({ day <= $0 }) ?? true {
            result.append(day)
            day = next(after: day)
        }
        return result
    }

    /// The lessons of a term.
    func lessons(end: LessonPlan.End, holidays: LessonHolidays, zone: (any TimeZoneRules)?,
                 maximum: Int) -> Result<Lessons, Problem> {
        switch end {
        case .until(let last):
            let candidates = days(through: last, limit: maximum + 1)
            guard candidates.count <= maximum else { return .failure(.tooMany(maximum)) }
            guard let firstCandidate = candidates.first else { return .failure(.noDays) }
            let found = holidays.days(from: firstCandidate, through: last, in: zone)
            let held = candidates.filter { !found.dates.contains($0) }
            guard let first = held.first, let final = held.last else { return .failure(.noLessons) }
            let excluded = candidates.filter { $0 > first && $0 < final && found.dates.contains($0) }
            return .success(Lessons(first: first, end: .until(final), excluded: excluded, diagnostics: found.diagnostics))
        case .count(let count):
            // Grow the run of days (at least doubling it) until it holds `count` lessons
            // that are not holidays.
            guard count <= maximum else { return .failure(.tooMany(maximum)) }
            var size = count
            var anyHeld = false
            while true {
                let candidates = days(through: nil, limit: size)
                guard let firstCandidate = candidates.first, let lastCandidate = candidates.last else {
                    return .failure(.noLessons)
                }
                let found = holidays.days(from: firstCandidate, through: lastCandidate, in: zone)
                let held = candidates.filter { !found.dates.contains($0) }
                if held.count >= count {
                    let first = held[0], final = held[count - 1]
                    let generated = candidates.filter { $0 >= first && $0 <= final }
                    let excluded = generated.filter { found.dates.contains($0) }
                    return .success(Lessons(first: first, end: .count(generated.count), excluded: excluded,
                                            diagnostics: found.diagnostics))
                }
                anyHeld = anyHeld || !held.isEmpty
                guard size < maximum else { return .failure(anyHeld ? .tooMany(maximum) : .noLessons) }
                size = min(maximum, max(size + count - held.count, size * 2))
            }
        }
    }
}
