// The classes here hold the state of one expansion (or one merge of expansions), stepped
// once per occurrence by a single caller and never reentered. Their stored properties are
// `@exclusivity(unchecked)`: the compiler still checks exclusive access statically, but the
// run-time check of every access (a tenth of a streamed query's instructions) is left out.

/// One instance of the master's recurrence set before overrides: DTSTART, an RRULE
/// instance or an RDATE.
struct Candidate {
    /// The start as generated (the wall clock the rule produced, in DTSTART's zone).
    var start: ResolvedTime
    /// The instant used for ordering (floating values read in the query's floating zone).
    var key: Int64
    /// What identifies the instance: `key`, or the day number for all-day series.
    var matchKey: Int64
    /// The end of an RDATE period.
    var periodEnd: EndSpecification?
}

/// Turns a series' wall-clock times into candidates, and merges DTSTART, every RRULE and the
/// RDATEs in instant order without duplicates, minus the EXDATEs, between two keys.
final class CandidateStream {
    private let series: SeriesDefinition
    private let floating: any TimeZoneRules
    private let highKey: Int64
    private let lowKey: Int64
    @exclusivity(unchecked) private var sources: [any CandidateSource]
    @exclusivity(unchecked) private var heads: [Candidate?]
    /// The heads' keys (`Int64.max` for none), so that choosing the next head compares
    /// integers instead of copying candidates.
    @exclusivity(unchecked) private var headKeys: [Int64]
    /// Whether each source has a head: tested instead of `heads[index] != nil`, which copies
    /// the optional candidate through its value witnesses.
    @exclusivity(unchecked) private var hasHead: [Bool]
    @exclusivity(unchecked) private var lastMatchKey: Int64?
    private let excludedKeys: Set<Int64>
    private let excludedDays: Set<Int>

    init(series: SeriesDefinition, floating: any TimeZoneRules, lowKey: Int64, highKey: Int64, meter: ExpansionMeter) {
        self.series = series
        self.floating = floating
        self.lowKey = lowKey
        self.highKey = highKey
        let zone = series.start.rules ?? floating
        var sources: [any CandidateSource] = [ListSource([Self.candidate(series.start, series: series, floating: floating)])]

        let (lowLocal, highLocal) = Self.localSpan(zone: zone, lowKey: lowKey, highKey: highKey)
        let dtstart = series.start.value.local
        for rule in series.rules {
            let (until, untilLimit) = Self.until(rule, series: series, floating: floating)
            if Self.ruleAddsNothing(rule, untilLimit: untilLimit, series: series, lowLocal: lowLocal, highLocal: highLocal,
                                    remainingSteps: meter.remainingSteps, budget: meter.budget) { continue }
            let jump: LocalDateTime? = rule.count == nil && lowLocal > dtstart ? lowLocal : nil
            let iterationStart = jump ?? dtstart
            let budget = meter.budget
            let (stepsSpan, overflow) = Int64(budget.maximumIteratorSteps)
                .multipliedReportingOverflow(by: rule.frequency.periodSeconds)
            // The Swift engine skips periods that cannot match and counts its own work, so
            // only libical's iterator (RSCALE rules) needs the span sized by its steps: one
            // step a period, as it expands with INTERVAL=1 (CalendarScaleIntervalFilter).
            let span = rule.value("RSCALE") == nil || overflow ? budget.maximumSpan : min(stepsSpan, budget.maximumSpan)
            let cap = iterationStart.adding(seconds: span)
            var desiredEnd = highLocal
            if let untilLimit, untilLimit < desiredEnd { desiredEnd = untilLimit }
            let end = min(desiredEnd, cap)
            let stream = RuleInstanceStream(rule: rule, dtstart: dtstart, isDate: series.isAllDay, jumpTo: jump,
                                            end: end, endIsCapped: cap < desiredEnd, until: until, meter: meter)
            sources.append(RuleSource(stream: stream, series: series, floating: floating))
        }
        let dates = series.recurrenceDates.map { date -> Candidate in
            var candidate = Self.candidate(date.start, series: series, floating: floating)
            candidate.periodEnd = date.end
            return candidate
        }
        sources.append(ListSource(dates.sorted { $0.key < $1.key }))
        self.sources = sources
        self.heads = Array(repeating: nil, count: sources.count)
        self.headKeys = Array(repeating: .max, count: sources.count)
        self.hasHead = Array(repeating: false, count: sources.count)

        var keys = Set<Int64>(), days = Set<Int>()
        for exception in series.exceptionDates {
            if series.isAllDay {
                days.insert(Self.allDayDate(exception, floating: floating).daysSinceEpoch)
            } else if exception.value.isDate {
                days.insert(exception.value.date.daysSinceEpoch)
            } else {
                keys.insert(exception.key(floating: floating))
            }
        }
        self.excludedKeys = keys
        self.excludedDays = days
        for index in sources.indices { refill(index) }
    }

    /// The wall-clock span rules are iterated over for keys `lowKey..<highKey`, widened by
    /// the zone's offsets around each key.
    static func localSpan(zone: any TimeZoneRules, lowKey: Int64, highKey: Int64) -> (low: LocalDateTime, high: LocalDateTime) {
        func offsets(_ key: Int64) -> [Int] {
            [key - 172_800, key, key + 172_800].map { zone.utcOffset(atInstant: $0) }
        }
        return (LocalDateTime(secondsSinceEpoch: lowKey + Int64(offsets(lowKey).min() ?? 0) - 3600),
                LocalDateTime(secondsSinceEpoch: highKey + Int64(offsets(highKey).max() ?? 0) + 3600))
    }

    /// Whether a rule surely adds no instance to the span `lowLocal...highLocal`, so it
    /// needs no libical iterator (DTSTART is a source of its own).
    static func ruleAddsNothing(_ rule: RecurrenceRuleText, untilLimit: LocalDateTime?, series: SeriesDefinition,
                                lowLocal: LocalDateTime, highLocal: LocalDateTime, remainingSteps: Int,
                                budget: ExpansionBudget) -> Bool {
        let dtstart = series.start.value.local
        // It ends before the span, or starts after it.
        if let untilLimit, untilLimit < lowLocal { return true }
        if dtstart > highLocal { return true }
        // Its COUNT surely runs out before the span, and counting its instances from DTSTART
        // could not reach the step budget (a lone rule only, so no other rule's share of the
        // budget changes).
        if series.rules.count == 1, let count = rule.count, count + 64 < remainingSteps,
           let bound = rule.countedEndBound(from: dtstart), bound < lowLocal,
           bound.secondsSinceEpoch - dtstart.secondsSinceEpoch < budget.maximumSpan { return true }
        return false
    }

    /// The key of the next candidate, without taking it (nil at the end).
    var peekKey: Int64? {
        var best: Int64?
        for (index, key) in headKeys.enumerated() where hasHead[index] && key < (best ?? .max) { best = key }
        return best
    }

    /// Takes the next candidate of source `index` as its head.
    private func refill(_ index: Int) {
        if let candidate = sources[index].next() {
            headKeys[index] = candidate.key
            hasHead[index] = true
            heads[index] = candidate
        } else {
            headKeys[index] = .max
            hasHead[index] = false
            heads[index] = nil
        }
    }

    /// The next candidate in key order, or nil past `highKey` or at the end.
    func next() -> Candidate? {
        while true {
            // The first source with the least key (a source's head may itself be Int64.max).
            var best: Int?
            for index in headKeys.indices where hasHead[index] {
                if let current = best, headKeys[current] <= headKeys[index] { continue }
                best = index
            }
            guard let index = best else { return nil }
            guard headKeys[index] < highKey else {
                for index in heads.indices {
                    heads[index] = nil
                    headKeys[index] = .max
                    hasHead[index] = false
                }
                return nil
            }
            let candidate = heads[index].take()!
            refill(index)
            if candidate.matchKey == lastMatchKey { continue }
            lastMatchKey = candidate.matchKey
            if candidate.key < lowKey { continue }
            if isExcluded(candidate) { continue }
            return candidate
        }
    }

    private func isExcluded(_ candidate: Candidate) -> Bool {
        if series.isAllDay { return excludedDays.contains(candidate.start.value.date.daysSinceEpoch) }
        if excludedKeys.contains(candidate.key) { return true }
        guard !excludedDays.isEmpty else { return false }
        let rules = candidate.start.rules ?? floating
        let localDate = candidate.start.value.zone == .floating && candidate.start.rules == nil
            ? candidate.start.value.date : rules.local(at: candidate.key).date
        return excludedDays.contains(localDate.daysSinceEpoch)
    }

    static func candidate(_ start: ResolvedTime, series: SeriesDefinition, floating: any TimeZoneRules) -> Candidate {
        let key = start.key(floating: floating)
        let matchKey = series.isAllDay ? Int64(start.value.date.daysSinceEpoch) : key
        return Candidate(start: start, key: key, matchKey: matchKey, periodEnd: nil)
    }

    /// The date an all-day series sees in a value: DATE and local values as written, UTC
    /// values in the floating zone.
    static func allDayDate(_ time: ResolvedTime, floating: any TimeZoneRules) -> CalendarDate {
        guard time.value.zone == .utc, !time.value.isDate else { return time.value.date }
        return floating.local(at: time.value.local.secondsSinceEpoch).date
    }

    /// The UNTIL test for one rule and a wall-clock point after which it always fails.
    static func until(_ rule: RecurrenceRuleText, series: SeriesDefinition,
                      floating: any TimeZoneRules) -> ((LocalDateTime) -> UntilVerdict, LocalDateTime?) {
        guard let until = rule.until else { return ({ _ in .inside }, nil) }
        if until.isDate || series.isAllDay {
            // A DATE UNTIL includes its whole day; an all-day series compares dates.
            let last = until.isDate ? until.date
                : allDayDate(ResolvedTime(value: until, rules: nil), floating: floating)
            return ({ $0.date <= last ? .inside : .beyond }, LocalDateTime(date: last.adding(days: 1)))
        }
        if until.zone == .utc {
            let untilKey = until.local.secondsSinceEpoch
            let zone = series.start.rules ?? floating
            let limit = zone.local(at: untilKey).adding(seconds: 3 * 3600)
            return ({ local in
                if zone.instant(for: local) <= untilKey { return .inside }
                return local > limit ? .beyond : .outside
            }, limit)
        }
        // A local UNTIL (invalid with a zoned DTSTART) is read on DTSTART's wall clock.
        let last = until.local
        return ({ $0 <= last ? .inside : .beyond }, last)
    }
}

/// A source of candidates in key order.
protocol CandidateSource: AnyObject {
    func next() -> Candidate?
}

/// A finite, sorted list of candidates.
final class ListSource: CandidateSource {
    @exclusivity(unchecked) private var items: [Candidate]
    @exclusivity(unchecked) private var index = 0
    init(_ items: [Candidate]) { self.items = items }
    func next() -> Candidate? {
        guard index < items.count else { return nil }
        defer { index += 1 }
        return items[index]
    }
}

/// The instances of one RRULE as candidates, in instant order.
///
/// Wall-clock order is instant order except for times in a daylight-saving gap, which move
/// forward by the gap (RFC 5545 §3.3.5) and may pass later instances. Such a moved
/// candidate waits until an instance that was not moved reaches its instant.
final class RuleSource: CandidateSource {
    private let stream: RuleInstanceStream
    private let series: SeriesDefinition
    private let floating: any TimeZoneRules
    @exclusivity(unchecked) private var pending: [Candidate] = []
    @exclusivity(unchecked) private var lastRegularKey = Int64.min
    @exclusivity(unchecked) private var finished = false

    /// The zone the rule's wall-clock times are read in.
    private let zone: any TimeZoneRules
    /// Its last quiet span: most instances are read with a subtraction.
    @exclusivity(unchecked) private var spans: QuietSpanCache
    /// Whether the rule's times are wall-clock times in `zone` (not DATEs, not UTC).
    private let readsWallClock: Bool

    init(stream: RuleInstanceStream, series: SeriesDefinition, floating: any TimeZoneRules) {
        self.stream = stream
        self.series = series
        self.floating = floating
        self.zone = series.start.rules ?? floating
        self.spans = QuietSpanCache(zone)
        self.readsWallClock = !series.isAllDay && series.start.value.zone != .utc
    }

    func next() -> Candidate? {
        while true {
            if !pending.isEmpty, finished || pending[0].key <= lastRegularKey { return pending.removeFirst() }
            if finished { return nil }
            guard let local = stream.next() else { finished = true; continue }
            let value = series.isAllDay ? DateTime(date: local.date) : DateTime(local, zone: series.start.value.zone)
            let candidate: Candidate
            let moved: Bool
            if readsWallClock, let offset = spans.offset(forLocalSeconds: local.secondsSinceEpoch) {
                // In a quiet span: the instant `candidate(_:series:floating:)` finds through
                // the zone (`zone.instant(for:)`, which is local - utcOffset(forLocal:)), and
                // no change near to move it.
                let key = local.secondsSinceEpoch - Int64(offset)
                candidate = Candidate(start: ResolvedTime(value: value, shared: series.start.shared), key: key,
                                      matchKey: key, periodEnd: nil)
                moved = false
            } else {
                candidate = CandidateStream.candidate(ResolvedTime(value: value, shared: series.start.shared),
                                                      series: series, floating: floating)
                moved = !series.isAllDay && value.zone != .utc && zone.local(at: candidate.key) != local
            }
            if !moved {
                lastRegularKey = max(lastRegularKey, candidate.key)
                // Nothing waits: the candidate would be the first of `pending` and leave at once.
                if pending.isEmpty { return candidate }
            }
            let index = pending.firstIndex { $0.key > candidate.key } ?? pending.count
            pending.insert(candidate, at: index)
        }
    }
}

/// The state of one lazy expansion: candidates from the master, overrides applied, results
/// re-ordered by start, the window and the budget enforced.
package final class OccurrenceExpander {
    let meter: ExpansionMeter
    private let set: RecurrenceSet
    private let window: Range<Int64>
    private let floating: any TimeZoneRules
    @exclusivity(unchecked) private var candidates: CandidateStream?
    @exclusivity(unchecked) private var buffer: [(occurrence: Occurrence, startKey: Int64, order: Int64)] = []
    @exclusivity(unchecked) private var singles: [Int64: OverrideDefinition] = [:]
    @exclusivity(unchecked) private var singleDays: [Int: OverrideDefinition] = [:]
    @exclusivity(unchecked) private var futures: [(matchKey: Int64, override: OverrideDefinition, delta: Int64)] = []
    @exclusivity(unchecked) private var minimumShift: Int64 = 0
    @exclusivity(unchecked) private var emitted = 0
    @exclusivity(unchecked) private var done = false

    /// Instants outside years 1...9999 are clamped.
    private static let earliest: Int64 = -62_135_596_800
    private static let latest: Int64 = 253_402_300_799

    init(set: RecurrenceSet, window: Range<Int64>, floatingZone: any TimeZoneRules, budget: ExpansionBudget) {
        self.meter = ExpansionMeter(budget: budget)
        self.set = set
        self.window = Self.clamped(window)
        self.floating = floatingZone
        prepare()
    }

    /// Whether a series without overrides surely has no occurrence in `window`: its
    /// DTSTART falls outside the candidates' key span, it has no RDATE, and every rule adds
    /// nothing there, by the very tests `prepare()` and ``CandidateStream`` apply. A query
    /// skips such series without building an expander and its candidate streams.
    static func seriesWithoutOverridesMisses(_ series: SeriesDefinition, window: Range<Int64>,
                                             floatingZone floating: any TimeZoneRules, budget: ExpansionBudget) -> Bool {
        let window = clamped(window)
        guard !window.isEmpty else { return true }
        guard series.recurrenceDates.isEmpty else { return false }
        // prepare() without overrides: no THISANDFUTURE shift, no RDATE lengths.
        let lowKey = window.lowerBound - series.end.upperBoundSeconds
        let highKey = window.upperBound
        let startKey = CandidateStream.candidate(series.start, series: series, floating: floating).key
        guard startKey < lowKey || startKey >= highKey else { return false }
        let (lowLocal, highLocal) = CandidateStream.localSpan(zone: series.start.rules ?? floating, lowKey: lowKey, highKey: highKey)
        for rule in series.rules {
            let untilLimit = CandidateStream.until(rule, series: series, floating: floating).1
            if !CandidateStream.ruleAddsNothing(rule, untilLimit: untilLimit, series: series, lowLocal: lowLocal,
                                                highLocal: highLocal, remainingSteps: budget.maximumIteratorSteps,
                                                budget: budget) { return false }
        }
        return true
    }

    /// The window with its bounds clamped to years 1...9999.
    static func clamped(_ window: Range<Int64>) -> Range<Int64> {
        let lower = min(max(window.lowerBound, earliest), latest)
        let upper = min(max(window.upperBound, earliest), latest)
        return lower..<max(lower, upper)
    }

    private func intersects(_ startKey: Int64, _ endKey: Int64) -> Bool {
        Self.intersects(startKey, endKey, window)
    }

    /// ``OccurrenceQuery``'s rule for an occurrence and a window: it starts before the
    /// window's end and ends after its start; a zero-length one is in it when it starts in
    /// it (package: the store's occurrence cache files occurrences into weeks by it).
    package static func intersects(_ startKey: Int64, _ endKey: Int64, _ window: Range<Int64>) -> Bool {
        guard startKey < window.upperBound else { return false }
        return endKey > window.lowerBound || (endKey == startKey && startKey >= window.lowerBound)
    }

    /// Whether a set surely has no occurrence in `window`, by the tests `prepare()` applies:
    /// no THISANDFUTURE override; the master (if any) has no RDATE and its DTSTART and
    /// rules miss the window (``seriesWithoutOverridesMisses(_:window:floatingZone:budget:)``:
    /// without THISANDFUTURE, overrides leave the candidates' span as it is); and no
    /// override that is not cancelled has its own occurrence in the window (so none needs
    /// the master's membership check, the only other work that could report a truncation).
    static func setMisses(_ set: RecurrenceSet, window: Range<Int64>, floatingZone floating: any TimeZoneRules,
                          budget: ExpansionBudget) -> Bool {
        let clampedWindow = clamped(window)
        guard !clampedWindow.isEmpty else { return true }
        guard !set.overrideDefinitions.contains(where: \.isThisAndFuture) else { return false }
        if let series = set.series,
           !seriesWithoutOverridesMisses(series, window: window, floatingZone: floating, budget: budget) { return false }
        for override in set.overrideDefinitions where !override.isCancelled {
            let (startKey, endKey) = keys(start: override.start, end: override.ownEnd(series: set.series), floating: floating)
            if intersects(startKey, endKey, clampedWindow) { return false }
        }
        return true
    }

    private func enqueue(_ occurrence: Occurrence, startKey: Int64, endKey: Int64, order: Int64) {
        guard intersects(startKey, endKey) else { return }
        let index = buffer.firstIndex { ($0.startKey, $0.order) > (startKey, order) } ?? buffer.count
        buffer.insert((occurrence, startKey, order), at: index)
    }

    private func prepare() {
        guard !window.isEmpty else { done = true; return }
        guard let series = set.series else {
            // No master: every override is a standalone occurrence.
            for override in set.overrideDefinitions where !override.isCancelled {
                let (occurrence, startKey, endKey) = make(start: override.start, end: override.ownEnd(series: nil),
                                                          recurrenceIdentifier: override.recurrenceIdentifier.value,
                                                          component: override.component, isOverride: true)
                enqueue(occurrence, startKey: startKey, endKey: endKey, order: override.recurrenceIdentifier.key(floating: floating))
            }
            return
        }

        var maximumLength = series.end.upperBoundSeconds
        for date in series.recurrenceDates { maximumLength = max(maximumLength, date.end?.upperBoundSeconds ?? 0) }
        var maximumShift: Int64 = 0
        var needsMembership: [OverrideDefinition] = []
        for override in set.overrideDefinitions {
            let ridKey = override.recurrenceIdentifier.key(floating: floating)
            if series.isAllDay {
                let day = CandidateStream.allDayDate(override.recurrenceIdentifier, floating: floating).daysSinceEpoch
                singles[Int64(day)] = override
            } else if override.recurrenceIdentifier.value.isDate {
                singleDays[override.recurrenceIdentifier.value.date.daysSinceEpoch] = override
            } else {
                singles[ridKey] = override
            }
            if override.isThisAndFuture {
                let delta = shift(of: override, series: series)
                let matchKey = series.isAllDay
                    ? Int64(CandidateStream.allDayDate(override.recurrenceIdentifier, floating: floating).daysSinceEpoch) : ridKey
                futures.append((matchKey, override, delta))
                maximumShift = max(maximumShift, delta)
                minimumShift = min(minimumShift, delta)
                maximumLength = max(maximumLength, (override.end ?? series.end).upperBoundSeconds)
                needsMembership.append(override)
            } else if !override.isCancelled {
                let (_, startKey, endKey) = make(start: override.start, end: override.ownEnd(series: series),
                                                 recurrenceIdentifier: override.recurrenceIdentifier.value,
                                                 component: override.component, isOverride: true)
                if intersects(startKey, endKey) { needsMembership.append(override) }
            }
        }
        futures.sort { $0.matchKey < $1.matchKey }

        // Which overrides the master still generates (after EXDATE); the others are dropped.
        var generated = Set<Int64>(), generatedDays = Set<Int>()
        var membershipKnown = true
        if !needsMembership.isEmpty {
            let keys = needsMembership.map { $0.recurrenceIdentifier.key(floating: floating) }
            let low = (keys.min() ?? 0) - 2 * 86_400, high = (keys.max() ?? 0) + 2 * 86_400
            let membershipMeter = ExpansionMeter(budget: meter.budget)
            let stream = CandidateStream(series: series, floating: floating, lowKey: low, highKey: high, meter: membershipMeter)
            while let candidate = stream.next() {
                generated.insert(candidate.matchKey)
                generatedDays.insert(localDate(of: candidate).daysSinceEpoch)
            }
            if let truncation = membershipMeter.truncation {
                membershipKnown = false
                meter.truncate(truncation)
            }
        }
        func isGenerated(_ override: OverrideDefinition) -> Bool {
            guard membershipKnown else { return true }
            if series.isAllDay {
                return generated.contains(Int64(CandidateStream.allDayDate(override.recurrenceIdentifier, floating: floating).daysSinceEpoch))
            }
            if override.recurrenceIdentifier.value.isDate {
                return generatedDays.contains(override.recurrenceIdentifier.value.date.daysSinceEpoch)
            }
            return generated.contains(override.recurrenceIdentifier.key(floating: floating))
        }
        futures.removeAll { !isGenerated($0.override) }
        for override in needsMembership where !override.isCancelled && isGenerated(override) {
            let (occurrence, startKey, endKey) = make(start: override.start, end: override.ownEnd(series: series),
                                                      recurrenceIdentifier: override.recurrenceIdentifier.value,
                                                      component: override.component, isOverride: true)
            enqueue(occurrence, startKey: startKey, endKey: endKey, order: override.recurrenceIdentifier.key(floating: floating))
        }

        // THISANDFUTURE shifts are wall-clock times: allow for a daylight-saving change in them.
        let shiftSlack: Int64 = futures.isEmpty ? 0 : 4 * 3600
        let lowKey = window.lowerBound - maximumLength - maximumShift - shiftSlack
        let highKey = window.upperBound - minimumShift + shiftSlack
        candidates = CandidateStream(series: series, floating: floating, lowKey: lowKey, highKey: highKey, meter: meter)
    }

    /// The start delta of a THISANDFUTURE override, on the series' wall clock.
    private func shift(of override: OverrideDefinition, series: SeriesDefinition) -> Int64 {
        if series.isAllDay {
            let from = CandidateStream.allDayDate(override.recurrenceIdentifier, floating: floating)
            return Int64(override.start.value.date.daysSinceEpoch - from.daysSinceEpoch) * 86_400
        }
        let zone = series.start.rules ?? floating
        let from = zone.local(at: override.recurrenceIdentifier.key(floating: floating))
        let to = zone.local(at: override.start.key(floating: floating))
        return to.secondsSinceEpoch - from.secondsSinceEpoch
    }

    private func localDate(of candidate: Candidate) -> CalendarDate {
        if candidate.start.value.isDate { return candidate.start.value.date }
        guard let rules = candidate.start.rules else { return candidate.start.value.date }
        return rules.local(at: candidate.key).date
    }

    /// The next occurrence in start order.
    func next() -> Occurrence? {
        while !done {
            let peek = candidates?.peekKey
            let horizon = peek.map { $0 + minimumShift } ?? Int64.max
            if let firstKey = buffer.first?.startKey, firstKey < horizon || peek == nil {
                if emitted >= meter.budget.maximumOccurrences {
                    meter.truncate(.occurrences)
                    done = true
                    return nil
                }
                emitted += 1
                return buffer.removeFirst().occurrence  // moved out, not copied
            }
            guard let stream = candidates, let candidate = stream.next() else {
                candidates = nil
                if buffer.isEmpty { done = true }
                continue
            }
            process(candidate)
        }
        return nil
    }

    private func process(_ candidate: Candidate) {
        guard let series = set.series else { return }
        if !singles.isEmpty, singles[candidate.matchKey] != nil { return }
        if !series.isAllDay, !singleDays.isEmpty, singleDays[localDate(of: candidate).daysSinceEpoch] != nil { return }
        let recurrenceIdentifier = recurrenceIdentifier(of: candidate, series: series)
        if let future = futures.last(where: { $0.matchKey < candidate.matchKey }) {
            if future.override.isCancelled { return }
            let start: ResolvedTime
            if series.isAllDay {
                start = ResolvedTime(value: DateTime(date: candidate.start.value.date.adding(days: Int(future.delta / 86_400))), rules: nil)
            } else if let rules = candidate.start.rules {
                let local = rules.local(at: candidate.key).adding(seconds: future.delta)
                start = candidate.start.value.zone == .utc
                    ? ResolvedTime(value: DateTime(local, zone: .utc), rules: FixedOffsetZone.utc)
                    : ResolvedTime(value: DateTime(local, zone: series.start.value.zone), shared: series.start.shared)
            } else {
                start = ResolvedTime(value: DateTime(candidate.start.value.local.adding(seconds: future.delta), zone: .floating), rules: nil)
            }
            let end = future.override.end ?? candidate.periodEnd ?? series.end
            let (occurrence, startKey, endKey) = make(start: start, end: end, recurrenceIdentifier: recurrenceIdentifier,
                                                      component: future.override.component, isOverride: true)
            enqueue(occurrence, startKey: startKey, endKey: endKey, order: candidate.key)
            return
        }
        // The end passed as it is stored (`periodEnd ?? series.end` copied the enum, and the
        // zone rules in it, for every occurrence).
        // The candidate's key is its start's key (``CandidateStream/candidate(_:series:floating:)``).
        let (occurrence, startKey, endKey) = candidate.periodEnd == nil
            ? make(start: candidate.start, startKey: candidate.key, end: series.end,
                   recurrenceIdentifier: recurrenceIdentifier, component: series.component, isOverride: false)
            : make(start: candidate.start, startKey: candidate.key, end: candidate.periodEnd!,
                   recurrenceIdentifier: recurrenceIdentifier, component: series.component, isOverride: false)
        enqueue(occurrence, startKey: startKey, endKey: endKey, order: candidate.key)
    }

    /// The instance's original start in DTSTART's form: converted into DTSTART's zone when
    /// an RDATE names another zone.
    private func recurrenceIdentifier(of candidate: Candidate, series: SeriesDefinition) -> DateTime {
        let value = candidate.start.value
        guard !value.isDate, value.zone != series.start.value.zone, let rules = series.start.rules else { return value }
        return DateTime(rules.local(at: candidate.key), zone: series.start.value.zone)
    }

    /// Builds an occurrence from a start and how it ends; returns it with its start and end keys.
    /// `startKey`, when given, is `start.key(floating:)`, known already.
    private func make(start: ResolvedTime, startKey knownKey: Int64? = nil, end: EndSpecification,
                      recurrenceIdentifier: DateTime, component: Component, isOverride: Bool) -> (Occurrence, Int64, Int64) {
        let (values, startKey, endKey) = Self.times(start: start, startKey: knownKey, end: end, floating: floating)
        let occurrence = Occurrence(uid: set.uid, recurrenceIdentifier: recurrenceIdentifier, start: values.start,
                                    end: values.end, startInstant: values.startIsFloating ? nil : startKey,
                                    endInstant: values.endIsFloating ? nil : endKey,
                                    isAllDay: values.start.isDate, component: component, isOverride: isOverride)
        return (occurrence, startKey, endKey)
    }

    /// The start and end keys of the occurrence ``make(start:end:recurrenceIdentifier:component:isOverride:)`` builds.
    static func keys(start: ResolvedTime, end: EndSpecification, floating: any TimeZoneRules) -> (Int64, Int64) {
        let (_, startKey, endKey) = times(start: start, end: end, floating: floating)
        return (startKey, endKey)
    }

    /// The start and end keys of that occurrence, and whether its end floats (has no zone
    /// of its own: its key reads it in `floating`).
    static func keysAndFloating(start: ResolvedTime, end: EndSpecification, floating: any TimeZoneRules)
        -> (start: Int64, end: Int64, endIsFloating: Bool) {
        let (values, startKey, endKey) = times(start: start, end: end, floating: floating)
        return (startKey, endKey, values.endIsFloating)
    }

    /// An occurrence's start and end values and keys, from a start and how it ends.
    private static func times(start: ResolvedTime, startKey knownKey: Int64? = nil, end: EndSpecification,
                              floating: any TimeZoneRules)
        -> ((start: DateTime, end: DateTime, startIsFloating: Bool, endIsFloating: Bool), Int64, Int64) {
        // The zones' rules are used through optional chaining, which does not copy the
        // existentials (binding or `??` did, for every occurrence).
        let startKey = knownKey ?? start.key(floating: floating)
        let isFloating = start.shared == nil
        var startValue = start.value
        if !isFloating, !start.value.isDate, let local = start.shared?.rules.local(at: startKey) {
            startValue = DateTime(local, zone: start.value.zone)  // a gap time moves forward
        }
        var endValue = startValue
        var endKey = startKey
        var endIsFloating = isFloating
        switch end {
        case .none:
            break
        case .days(let days):
            if startValue.isDate {
                endValue = DateTime(date: startValue.date.adding(days: days))
                endKey = ResolvedTime(value: endValue, rules: nil).key(floating: floating)
            } else {
                let local = startValue.local.adding(seconds: Int64(days) * 86_400)
                endValue = DateTime(local, zone: startValue.zone)
                endKey = ResolvedTime.key(endValue, rules: start.rules, floating: floating)
            }
        case .exact(let seconds, let zone, let rules):
            if startValue.isDate {
                endValue = DateTime(date: startValue.date.adding(days: Int(seconds / 86_400)))
                endKey = ResolvedTime(value: endValue, rules: nil).key(floating: floating)
            } else if isFloating {
                endValue = DateTime(startValue.local.adding(seconds: seconds), zone: .floating)
                endKey = ResolvedTime(value: endValue, rules: nil).key(floating: floating)
            } else {
                endKey = startKey + seconds
                let endLocal = rules?.local(at: endKey) ?? start.shared?.rules.local(at: endKey)
                    ?? FixedOffsetZone.utc.local(at: endKey)
                let endZone: DateTime.Zone = rules == nil ? startValue.zone : zone
                endValue = DateTime(endLocal, zone: endZone == .floating ? startValue.zone : endZone)
                endIsFloating = false
            }
        case .nominal(let duration):
            if startValue.isDate {
                let days = duration.nominalDays + Int((duration.exactSeconds + 86_399) / 86_400)
                endValue = DateTime(date: startValue.date.adding(days: max(0, days)))
                endKey = ResolvedTime(value: endValue, rules: nil).key(floating: floating)
            } else {
                let wall = LocalDateTime(date: startValue.local.date.adding(days: duration.nominalDays), time: startValue.local.time)
                if let shared = start.shared {
                    endKey = shared.rules.instant(for: wall) + duration.exactSeconds
                    endValue = DateTime(shared.rules.local(at: endKey), zone: startValue.zone)
                } else {
                    endValue = DateTime(wall.adding(seconds: duration.exactSeconds), zone: .floating)
                    endKey = ResolvedTime(value: endValue, rules: nil).key(floating: floating)
                }
            }
        }
        if endKey < startKey {
            endKey = startKey
            endValue = startValue
            endIsFloating = isFloating
        }
        return ((startValue, endValue, isFloating, endIsFloating), startKey, endKey)
    }
}
