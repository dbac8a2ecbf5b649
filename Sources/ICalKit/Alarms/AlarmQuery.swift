/// The alarms that trigger in a window: every VALARM of every event and to-do of some
/// calendars, on every occurrence, with RFC 5545 and RFC 9074 applied.
///
/// - A relative `TRIGGER` counts from the occurrence's start (`RELATED=START`, the default)
///   or end (`RELATED=END`; a to-do's DUE). Weeks and days are nominal (RFC 5545 §3.3.6):
///   `-P1D` is the same wall-clock time the day before in the occurrence's zone, also across
///   a daylight-saving change; hours, minutes and seconds are exact. A to-do without DTSTART
///   counts a start-related trigger from its DUE, as the query places it.
/// - All-day and floating occurrences are read in ``floatingZone`` (the user's zone): a
///   `-PT15M` alarm of an all-day event triggers at 23:45 the evening before.
/// - An absolute `TRIGGER` (`VALUE=DATE-TIME`, in UTC) triggers once, also on a recurring
///   series; it belongs to the instance its component describes (the master's first, an
///   override's own). A trigger with a TZID is read in that zone, a floating one in
///   ``floatingZone``, with a warning: RFC 5545 requires UTC.
/// - `REPEAT` with `DURATION` adds that many repetitions, each `DURATION` after the last
///   (``AlarmInstance/repetition``); at most ``Limits/maximumRepeat``.
/// - Overrides (RECURRENCE-ID) with their own VALARMs replace the master's for their
///   instance; an instance cancelled by an override, a cancelled event
///   (`STATUS:CANCELLED`) and a completed to-do (`STATUS:COMPLETED` or `COMPLETED`) do not
///   alarm.
/// - RFC 9074: a trigger at or before the alarm's `ACKNOWLEDGED` (or Thunderbird's
///   `X-MOZ-LASTACK` on its event) is acknowledged (left out unless ``includesAcknowledged``); a snooze alarm (`RELATED-TO;RELTYPE=SNOOZE`) is an
///   alarm of its own; `ACTION:NONE` and proximity alarms (`PROXIMITY`,
///   `X-APPLE-PROXIMITY`: they fire at a place, not a time) never trigger.
///
/// Work is bounded whatever the input: each series' expansion by ``budget``, repetitions by
/// ``Limits/maximumRepeat``, relative triggers further than ``Limits/maximumOffset`` from
/// their occurrence are not honoured, and a query stops after ``Limits/maximumInstances``
/// triggers; each limit reached is a warning in ``Result/diagnostics``, as is every VALARM
/// the RFC does not allow (no or an unreadable TRIGGER, REPEAT without DURATION).
public struct AlarmQuery: Sendable {
    /// The bounds of one query.
    public struct Limits: Sendable, Hashable {
        /// The most repetitions of one alarm honoured (`REPEAT` beyond is cut, with a warning).
        public var maximumRepeat: Int
        /// The furthest a relative trigger (with its repetitions) may be from its
        /// occurrence, in seconds; further triggers are not honoured (a warning).
        public var maximumOffset: Int64
        /// The most trigger instants one query returns: it stops there, with a warning (the
        /// instants kept are in order, but a later series' earlier ones may be among those cut).
        public var maximumInstances: Int

        /// Creates limits.
        public init(maximumRepeat: Int = 1_000, maximumOffset: Int64 = 366 * 86_400, maximumInstances: Int = 100_000) {
            self.maximumRepeat = maximumRepeat
            self.maximumOffset = maximumOffset
            self.maximumInstances = maximumInstances
        }

        /// The limits ``AlarmQuery`` uses unless told otherwise.
        public static let standard = Limits()
    }

    /// What a query found.
    public struct Result: Sendable {
        /// The triggers, by instant, then UID, then occurrence start, then alarm position.
        public var instances: [AlarmInstance]
        /// VALARMs the RFC does not allow, limits reached, and the occurrence query's own
        /// diagnostics (time zones, expansions cut short).
        public var diagnostics: [Diagnostic]

        /// Creates a result.
        public init(instances: [AlarmInstance], diagnostics: [Diagnostic]) {
            self.instances = instances
            self.diagnostics = diagnostics
        }
    }

    /// The window, in instants: a trigger at `start` is in it, one at `end` is not.
    public var window: Range<Int64>
    /// The zone floating times and dates are read in.
    public var floatingZone: any TimeZoneRules
    /// The component kinds whose alarms count (VEVENT and VTODO by default).
    public var kinds: Set<ComponentKind>
    /// Whether acknowledged triggers are returned too (``AlarmInstance/isAcknowledged``).
    public var includesAcknowledged = false
    /// The limits of each series' expansion.
    public var budget: ExpansionBudget
    /// The limits of the query.
    public var limits: Limits

    /// Creates a query.
    public init(window: Range<Int64>, floatingZone: any TimeZoneRules, kinds: Set<ComponentKind> = [.event, .todo],
                budget: ExpansionBudget = .standard, limits: Limits = .standard) {
        self.window = window
        self.floatingZone = floatingZone
        self.kinds = kinds
        self.budget = budget
        self.limits = limits
    }

    /// The triggers in the window from calendars.
    public func run(_ sources: [OccurrenceQuery.Source]) -> Result {
        var collector = Collector(query: self)
        for source in sources {
            collector.collect(source)
            if collector.isFull { break }
        }
        return collector.result()
    }
}

// MARK: - Reading a VALARM

extension AlarmQuery {
    /// A VALARM as the query uses it.
    struct AlarmRule {
        enum When {
            /// An offset in nominal days plus exact seconds from the start or end.
            case relative(days: Int64, seconds: Int64, related: AlarmTrigger.Related)
            /// An instant.
            case absolute(Int64)
        }

        var when: When
        /// The repetitions: how many, each `days` nominal days plus `seconds` after the last.
        var repeatCount: Int
        var repeatDays: Int64
        var repeatSeconds: Int64
        var acknowledged: Int64?
        var snoozedAlarmUID: String?

        /// The smallest and largest offset from the anchor, in seconds (days as 86,400),
        /// over the trigger and its repetitions; nil for an absolute alarm.
        var offsetRange: ClosedRange<Int64>? {
            guard case .relative(let days, let seconds, _) = when else { return nil }
            let first = days * 86_400 + seconds
            let last = first + Int64(repeatCount) * (repeatDays * 86_400 + repeatSeconds)
            return min(first, last)...max(first, last)
        }
    }

    /// The alarm rule of a VALARM, or nil when it never triggers at a time; problems go to
    /// `report` (message, property).
    func rule(of alarm: Component, zones: TimeZoneResolver, report: (String, String?) -> Void) -> AlarmRule? {
        if let action = alarm.action, action.rawValue == "NONE" { return nil }
        if alarm.property("PROXIMITY") != nil || alarm.property("X-APPLE-PROXIMITY") != nil { return nil }
        guard let property = alarm.property(.trigger) else {
            report("a VALARM without TRIGGER never triggers (RFC 5545 §3.6.6 requires one); skipped", nil)
            return nil
        }
        let when: AlarmRule.When
        switch alarm.trigger {
        case .relative(let duration, let related)?:
            let days = Int64(duration.nominalDays)
            let seconds = duration.exactSeconds
            if abs(days * 86_400 + seconds) > limits.maximumOffset {
                report("TRIGGER \(property.rawValue) is more than \(limits.maximumOffset / 86_400) days from its event; not honoured", "TRIGGER")
                return nil
            }
            when = .relative(days: days, seconds: seconds, related: related)
        case .absolute(let dateTime)?:
            if dateTime.isDate {
                report("TRIGGER \(property.rawValue) is a DATE; an absolute trigger is a UTC DATE-TIME (RFC 5545 §3.8.6.3); skipped", "TRIGGER")
                return nil
            }
            if dateTime.zone != .utc {
                report("TRIGGER \(property.rawValue) is not in UTC (RFC 5545 §3.8.6.3 requires a UTC DATE-TIME); read in \(dateTime.timeZoneIdentifier ?? floatingZone.identifier)", "TRIGGER")
            }
            if property[parameter: .related] != nil {
                report("RELATED has no meaning on an absolute TRIGGER (RFC 5545 §3.8.6.3); ignored", "TRIGGER")
            }
            when = .absolute(zones.instant(for: dateTime, floatingZone: floatingZone))
        case nil:
            report("TRIGGER '\(property.rawValue)' is neither a DURATION nor a UTC DATE-TIME (RFC 5545 §3.8.6.3); the alarm is skipped", "TRIGGER")
            return nil
        }

        var rule = AlarmRule(when: when, repeatCount: 0, repeatDays: 0, repeatSeconds: 0, acknowledged: nil, snoozedAlarmUID: nil)
        let repeatProperty = alarm.property(.repeatCount)
        let durationProperty = alarm.property(.duration)
        switch (repeatProperty, durationProperty) {
        case (nil, nil):
            break
        case (let repeatProperty?, let durationProperty?):
            guard let count = repeatProperty.integerValue, count >= 0 else {
                report("REPEAT '\(repeatProperty.rawValue)' is not a count; the alarm triggers once", "REPEAT")
                break
            }
            guard let duration = durationProperty.durationValue, !duration.isNegative,
                  duration.nominalSeconds > 0 else {
                report("DURATION '\(durationProperty.rawValue)' is not a positive duration; the alarm triggers once", "DURATION")
                break
            }
            if count > limits.maximumRepeat {
                report("REPEAT \(count) is more than \(limits.maximumRepeat); only the first \(limits.maximumRepeat) repetitions trigger", "REPEAT")
            }
            rule.repeatCount = min(count, limits.maximumRepeat)
            rule.repeatDays = Int64(duration.nominalDays)
            rule.repeatSeconds = duration.exactSeconds
            if case .relative(let days, let seconds, _) = when {
                // Repetitions further than the limit from the event are not honoured.
                let first = days * 86_400 + seconds
                let step = rule.repeatDays * 86_400 + rule.repeatSeconds
                let fitting = Int((limits.maximumOffset - first) / step)
                if fitting < rule.repeatCount {
                    rule.repeatCount = fitting
                    report("the repetitions reach more than \(limits.maximumOffset / 86_400) days from the event; only \(fitting) trigger", "REPEAT")
                }
            }
        case (_?, nil):
            report("REPEAT without DURATION (RFC 5545 §3.6.6 requires both or neither); the alarm triggers once", "REPEAT")
        case (nil, _?):
            report("DURATION without REPEAT (RFC 5545 §3.6.6 requires both or neither); the alarm triggers once", "DURATION")
        }

        if let acknowledged = alarm.property("ACKNOWLEDGED") {
            if let value = acknowledged.dateTimeValue, !value.isDate {
                rule.acknowledged = zones.instant(for: value, floatingZone: FixedOffsetZone.utc)
            } else {
                report("ACKNOWLEDGED '\(acknowledged.rawValue)' is not a UTC DATE-TIME (RFC 9074 §6); ignored", "ACKNOWLEDGED")
            }
        }
        for related in alarm.properties(.relatedTo) {
            let type = related.parameters.first { $0.matches("RELTYPE") }?.value
            if let type, ASCII.uppercased(type) == "SNOOZE" {
                let text = String(related.rawValue.trimmingSpaces)
                if !text.isEmpty { rule.snoozedAlarmUID = text }
            }
        }
        return rule
    }
}

// MARK: - Collecting

extension AlarmQuery {
    /// The work of one run.
    struct Collector {
        let query: AlarmQuery
        var instances: [AlarmInstance] = []
        var diagnostics: [Diagnostic] = []
        var reported: Set<String> = []
        var isFull = false

        init(query: AlarmQuery) { self.query = query }

        mutating func result() -> Result {
            instances.sort { a, b in
                if a.triggerInstant != b.triggerInstant { return a.triggerInstant < b.triggerInstant }
                if a.uid != b.uid { return a.uid < b.uid }
                let aStart = a.occurrence?.startInstant ?? .min, bStart = b.occurrence?.startInstant ?? .min
                if aStart != bStart { return aStart < bStart }
                if a.alarmIndex != b.alarmIndex { return a.alarmIndex < b.alarmIndex }
                return a.repetition < b.repetition
            }
            if instances.count > query.limits.maximumInstances {
                instances.removeLast(instances.count - query.limits.maximumInstances)
            }
            // Each series group's expansion reports the calendar's time-zone problems again.
            var seen = Set<Diagnostic>()
            let unique = diagnostics.filter { seen.insert($0).inserted }
            return Result(instances: instances, diagnostics: unique)
        }

        /// The rules read so far, by source, UID, RECURRENCE-ID and position: a series'
        /// VALARMs are read once, not once per occurrence.
        var rules: [String: AlarmRule?] = [:]

        /// One VALARM's rule (the `index`th of its component), reporting each problem once.
        mutating func rule(_ alarm: Component, at index: Int, in component: Component, zones: TimeZoneResolver,
                           source: String?) -> AlarmRule? {
            let cacheKey = "\(source ?? "")|\(component.uid ?? "")|\(component.property(.recurrenceIdentifier)?.rawValue ?? "")|\(index)"
            if let known = rules[cacheKey] { return known }
            var problems: [(String, String?)] = []
            let rule = query.rule(of: alarm, zones: zones) { problems.append(($0, $1)) }
            for (message, property) in problems {
                let line = alarm.properties.first { $0.name == (property ?? "") }?.line ?? alarm.line ?? component.line ?? 0
                let key = "\(source ?? "")|\(line)|\(message)"
                guard reported.insert(key).inserted else { continue }
                diagnostics.append(Diagnostic(.warning, .invalidValue, line: line, file: source, component: "VALARM",
                                              property: property, message: message))
            }
            rules[cacheKey] = .some(rule)
            return rule
        }

        mutating func collect(_ source: OccurrenceQuery.Source) {
            let calendar = CalendarRepair.applyingCalendarTimeZone(source.calendar)
            let zones = TimeZoneResolver(calendar: calendar, file: source.name)
            let timeZones = calendar.components.filter { $0.matches(.timeZone) }

            // Which series have relative alarms, and how far from their occurrences they
            // trigger: a series is expanded over the window moved by its offsets, whole days
            // outward (so that series with nearby offsets share one expansion) plus a day
            // for nominal days across a daylight-saving change.
            var reaches: [String: ClosedRange<Int64>] = [:]
            var order: [String] = []
            var absolute: [(component: Component, alarm: Component, index: Int, rule: AlarmRule)] = []
            for component in calendar.components where query.kinds.contains(component.kind) && !component.components(.alarm).isEmpty {
                let uid = component.uid ?? ""
                for (index, alarm) in component.components(.alarm).enumerated() {
                    guard let rule = rule(alarm, at: index, in: component, zones: zones, source: source.name) else { continue }
                    if let range = rule.offsetRange {
                        if reaches[uid] == nil { order.append(uid) }
                        let low = (Swift.min(range.lowerBound, 0) / 86_400 - 1) * 86_400
                        let high = (Swift.max(range.upperBound, 0) / 86_400 + 1) * 86_400
                        let reach = reaches[uid].map { Swift.min($0.lowerBound, low)...Swift.max($0.upperBound, high) } ?? low...high
                        reaches[uid] = reach
                    } else {
                        absolute.append((component, alarm, index, rule))
                    }
                }
            }

            // One expansion per reach, over the series that share it.
            var groups: [ClosedRange<Int64>: Set<String>] = [:]
            var groupOrder: [ClosedRange<Int64>] = []
            for uid in order {
                let reach = reaches[uid]!
                if groups[reach] == nil { groupOrder.append(reach) }
                groups[reach, default: []].insert(uid)
            }
            for reach in groupOrder {
                let uids = groups[reach]!
                let members = calendar.components.filter { uids.contains($0.uid ?? "") && query.kinds.contains($0.kind) }
                let part = Component(kind: .calendar, properties: calendar.properties, components: timeZones + members)
                // A trigger in [start, end) at offset o belongs to an occurrence whose anchor is
                // in [start - o, end - o); an end anchor at the window's start needs the
                // second before it (the occurrence query's window is half-open).
                let lower = query.window.lowerBound.subtractingClamped(reach.upperBound).subtractingClamped(1)
                let upper = query.window.upperBound.subtractingClamped(reach.lowerBound)
                var occurrences = OccurrenceQuery(window: lower..<Swift.max(lower + 1, upper), floatingZone: query.floatingZone,
                                                  kinds: query.kinds, budget: query.budget)
                occurrences.includesCancelled = false
                let stream = occurrences.stream([OccurrenceQuery.Source(calendar: part, name: source.name)])
                while let match = stream.next() {
                    addRelative(match, zones: zones, source: source.name)
                    if isFull { break }
                }
                if isFull { stream.drain() }
                diagnostics += stream.diagnostics
                if isFull { return }
            }

            for entry in absolute {
                addAbsolute(entry.component, alarm: entry.alarm, index: entry.index, rule: entry.rule, calendar: calendar,
                            timeZones: timeZones, zones: zones, source: source.name)
                if isFull { return }
            }
        }

        /// The relative alarms of one occurrence that trigger in the window.
        mutating func addRelative(_ match: OccurrenceQuery.Match, zones: TimeZoneResolver, source: String?) {
            let component = match.occurrence.component
            guard !AlarmQuery.isSilenced(component) else { return }
            for (index, alarm) in component.components(.alarm).enumerated() {
                guard let rule = rule(alarm, at: index, in: component, zones: zones, source: source),
                      case .relative(let days, let seconds, let related) = rule.when else { continue }
                // A to-do without DTSTART is placed at its DUE: both anchors are the DUE.
                let fromStart = related == .start || (component.matches(.todo) && component.property(.dateTimeStart) == nil)
                let anchor = fromStart ? match.occurrence.start : match.occurrence.end
                let anchorInstant = fromStart ? match.startInstant : match.endInstant
                let rules: (any TimeZoneRules)? = days == 0 && rule.repeatDays == 0 ? nil
                    : zones.resolution(for: anchor, floatingZone: query.floatingZone).rules
                for repetition in 0...rule.repeatCount {
                    let totalDays = days + Int64(repetition) * rule.repeatDays
                    let totalSeconds = seconds + Int64(repetition) * rule.repeatSeconds
                    let instant = AlarmQuery.instant(anchorInstant, plusDays: totalDays, seconds: totalSeconds, in: rules)
                    guard query.window.contains(instant) else { continue }
                    add(AlarmInstance(triggerInstant: instant, repetition: repetition, alarm: alarm, alarmIndex: index,
                                      occurrence: match, component: component, source: source,
                                      isAcknowledged: AlarmQuery.acknowledged(rule, component).map { $0 >= instant } ?? false,
                                      snoozedAlarmUID: rule.snoozedAlarmUID))
                    if isFull { return }
                }
            }
        }

        /// An absolute alarm's triggers in the window, with the instance its component
        /// describes.
        mutating func addAbsolute(_ component: Component, alarm: Component, index: Int, rule: AlarmRule, calendar: Component,
                                  timeZones: [Component], zones: TimeZoneResolver, source: String?) {
            guard case .absolute(let first) = rule.when, !AlarmQuery.isSilenced(component) else { return }
            var triggers: [(Int, Int64)] = []
            for repetition in 0...rule.repeatCount {
                let instant = AlarmQuery.instant(first, plusDays: Int64(repetition) * rule.repeatDays,
                                                 seconds: Int64(repetition) * rule.repeatSeconds, in: FixedOffsetZone.utc)
                if query.window.contains(instant) { triggers.append((repetition, instant)) }
            }
            guard !triggers.isEmpty else { return }
            var match: OccurrenceQuery.Match?
            if let parentUID = rule.snoozedAlarmUID, component.property(.recurrenceIdentifier) == nil,
               component.property(.recurrenceRule) != nil || component.property(.recurrenceDates) != nil,
               let parent = component.components(.alarm).first(where: { AlarmInstance.uid(of: $0) == parentUID }),
               let parentRule = query.rule(of: parent, zones: zones, report: { _, _ in }) {
                match = snoozedMatch(of: component, parent: parentRule, snoozedAt: triggers[0].1, calendar: calendar,
                                     timeZones: timeZones, zones: zones, source: source)
            }
            if match == nil {
                match = instanceMatch(of: component, calendar: calendar, timeZones: timeZones, zones: zones, source: source)
            }
            if let match, AlarmQuery.isSilenced(match.occurrence.component) { return }
            for (repetition, instant) in triggers {
                add(AlarmInstance(triggerInstant: instant, repetition: repetition, alarm: alarm, alarmIndex: index,
                                  occurrence: match, component: component, source: source,
                                  isAcknowledged: AlarmQuery.acknowledged(rule, component).map { $0 >= instant } ?? false,
                                  snoozedAlarmUID: rule.snoozedAlarmUID))
                if isFull { return }
            }
        }

        /// The occurrence a component describes: the master's first instance (DTSTART), or
        /// an override's own; nil when it has no time or the series does not produce it.
        func instanceMatch(of component: Component, calendar: Component, timeZones: [Component], zones: TimeZoneResolver,
                           source: String?) -> OccurrenceQuery.Match? {
            let anchor = component.property(.dateTimeStart)?.dateTimeValue ?? component.property(.dateTimeDue)?.dateTimeValue
            guard let anchor else { return nil }
            let instant = zones.instant(for: anchor, floatingZone: query.floatingZone)
            let uid = component.uid ?? ""
            let members = calendar.components.filter { $0.uid ?? "" == uid && $0.kind == component.kind }
            let part = Component(kind: .calendar, properties: calendar.properties, components: timeZones + members)
            let result = OccurrenceQuery(window: instant..<(instant + 1), floatingZone: query.floatingZone,
                                         kinds: [component.kind], budget: query.budget)
                .run([OccurrenceQuery.Source(calendar: part, name: source)])
            // The instance the component names: an override's RECURRENCE-ID, the master's DTSTART.
            let named = (component.property(.recurrenceIdentifier)?.dateTimeValue ?? anchor).local
            let isOverride = component.property(.recurrenceIdentifier) != nil
            let candidates = result.matches.filter { (match: OccurrenceQuery.Match) -> Bool in
                match.occurrence.recurrenceIdentifier.local == named
            }
            return candidates.first { $0.occurrence.isOverride == isOverride } ?? candidates.first
        }

        /// The occurrence a snooze alarm of a recurring series belongs to (RFC 9074 §7 puts it
        /// beside the alarm it snoozes, on the master): the latest occurrence whose alarm
        /// triggered at or before the snooze alarm, within eight days; nil when none is.
        func snoozedMatch(of component: Component, parent: AlarmRule, snoozedAt trigger: Int64, calendar: Component,
                          timeZones: [Component], zones: TimeZoneResolver, source: String?) -> OccurrenceQuery.Match? {
            guard case .relative(let days, let seconds, let related) = parent.when else { return nil }
            let offset = days * 86_400 + seconds
            let latest = trigger.subtractingClamped(offset)
            let uid = component.uid ?? ""
            let members = calendar.components.filter { $0.uid ?? "" == uid && $0.kind == component.kind }
            let part = Component(kind: .calendar, properties: calendar.properties, components: timeZones + members)
            let window = latest.subtractingClamped(8 * 86_400 + 3_600)..<latest.addingClamped(3_601)
            let result = OccurrenceQuery(window: window, floatingZone: query.floatingZone, kinds: [component.kind],
                                         budget: query.budget).run([OccurrenceQuery.Source(calendar: part, name: source)])
            return result.matches.last { match in
                let anchor = related == .start ? match.occurrence.start : match.occurrence.end
                let instant = related == .start ? match.startInstant : match.endInstant
                let rules = days == 0 ? nil : zones.resolution(for: anchor, floatingZone: query.floatingZone).rules
                return AlarmQuery.instant(instant, plusDays: days, seconds: seconds, in: rules) <= trigger
            }
        }

        mutating func add(_ instance: AlarmInstance) {
            guard query.includesAcknowledged || !instance.isAcknowledged else { return }
            instances.append(instance)
            // Past twice the limit, keep the earliest found so far.
            if instances.count >= query.limits.maximumInstances * 2 {
                instances.sort { $0.triggerInstant < $1.triggerInstant }
                instances.removeLast(instances.count - query.limits.maximumInstances)
            }
            if instances.count >= query.limits.maximumInstances, !isFull {
                isFull = true
                diagnostics.append(Diagnostic(.warning, .limitExceeded, line: 0, file: instance.source,
                                              message: "more than \(query.limits.maximumInstances) alarms trigger in the window; "
                                                  + "only the first \(query.limits.maximumInstances) found are listed (use a shorter window)"))
            }
        }
    }

    /// When an alarm was last acknowledged: its RFC 9074 `ACKNOWLEDGED`, or Thunderbird's
    /// `X-MOZ-LASTACK` on the event or to-do (which covers all its alarms), the later of the two.
    static func acknowledged(_ rule: AlarmRule, _ component: Component) -> Int64? {
        let mozilla = component.property("X-MOZ-LASTACK")?.dateTimeValue.flatMap { value -> Int64? in
            value.zone == .utc && !value.isDate ? value.local.secondsSinceEpoch : nil
        }
        switch (rule.acknowledged, mozilla) {
        case let (own?, mozilla?): return Swift.max(own, mozilla)
        case let (own, mozilla): return own ?? mozilla
        }
    }

    /// Whether an event or to-do never alarms: a cancelled event, a completed to-do.
    static func isSilenced(_ component: Component) -> Bool {
        let status = component.property(.status).map { ASCII.uppercased(String($0.rawValue.trimmingSpaces)) }
        if status == "CANCELLED" { return true }
        if component.matches(.todo) && (status == "COMPLETED" || component.property("COMPLETED") != nil) { return true }
        return false
    }

    /// `instant` plus nominal days (the same wall-clock time, `days` later, in `zone`; exact
    /// days without one) plus exact seconds.
    static func instant(_ instant: Int64, plusDays days: Int64, seconds: Int64, in zone: (any TimeZoneRules)?) -> Int64 {
        guard days != 0 else { return instant.addingClamped(seconds) }
        guard let zone else { return instant.addingClamped(days * 86_400).addingClamped(seconds) }
        let local = zone.local(at: instant)
        let moved = LocalDateTime(secondsSinceEpoch: local.secondsSinceEpoch + days * 86_400)
        return zone.instant(for: moved).addingClamped(seconds)
    }
}

extension Int64 {
    /// `self + other`, held at the type's bounds instead of overflowing.
    package func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, held at the type's bounds instead of overflowing.
    package func subtractingClamped(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }
}
