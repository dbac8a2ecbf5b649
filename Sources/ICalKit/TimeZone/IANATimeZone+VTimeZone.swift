extension IANATimeZone {
    /// A VTIMEZONE component (RFC 5545 §3.6.5) that gives the same offsets as this zone at
    /// every instant in `lower...upper`.
    ///
    /// Changes that follow a regular yearly pattern for three years or more (the same
    /// month, weekday, week of the month or last week, and wall-clock time) become one
    /// observance with an RRULE; the rest become observances with RDATEs. A pattern that
    /// the zone keeps following after `upper` gets no UNTIL, so the definition stays right
    /// past the range while the zone's current rule lasts. A seasonal change to the higher
    /// offset is written as DAYLIGHT even where tzdata calls the lower offset daylight
    /// time (Europe/Dublin). The TZID is the plain IANA name
    /// (no libical prefix) unless `timeZoneIdentifier` is given; TZNAME carries the
    /// abbreviations.
    ///
    /// - Parameters:
    ///   - lower: The first instant the definition must cover.
    ///   - upper: The last instant the definition must cover.
    ///   - timeZoneIdentifier: The TZID to write; the IANA name when nil.
    public func vTimeZone(from lower: Int64, through upper: Int64, timeZoneIdentifier: String? = nil) -> Component {
        let lower = TransitionTable.clamped(lower)
        let upper = min(TransitionTable.clamped(upper), TransitionTable.latestInstant - 4 * 366 * 86_400)
        return VTimeZoneBuilder(zone: self, lower: lower, upper: max(lower, upper))
            .build(timeZoneIdentifier: timeZoneIdentifier ?? identifier)
    }
}

/// Turns a zone's transitions into STANDARD and DAYLIGHT observances.
private struct VTimeZoneBuilder {
    let zone: IANATimeZone
    let lower: Int64
    let upper: Int64

    struct Key: Hashable {
        var isDaylight: Bool
        var offsetBefore: Int
        var offsetAfter: Int
        var abbreviation: String
    }

    /// A yearly pattern: month, weekday, the possible BYDAY ordinals and time of day.
    struct Pattern {
        var month: Int
        var weekday: Int
        var ordinals: Set<Int>
        var seconds: Int

        init(_ onset: LocalDateTime) {
            month = onset.date.month
            weekday = onset.date.isoWeekday
            ordinals = [(onset.date.day - 1) / 7 + 1]
            if onset.date.day + 7 > DateSyntax.daysInMonth(year: onset.date.year, month: onset.date.month) {
                ordinals.insert(-1)
            }
            seconds = onset.time.secondsSinceMidnight
        }

        /// The pattern narrowed to also match `other`, or nil when it cannot.
        func merged(with other: Pattern) -> Pattern? {
            guard month == other.month, weekday == other.weekday, seconds == other.seconds else { return nil }
            var result = self
            result.ordinals = ordinals.intersection(other.ordinals)
            return result.ordinals.isEmpty ? nil : result
        }

        var byDay: String {
            let ordinal = ordinals.contains(-1) ? -1 : ordinals.min() ?? 1
            return "\(ordinal)" + ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][weekday - 1]
        }
    }

    struct Run {
        var transitions: [TimeZoneTransition]
        var pattern: Pattern
    }

    func build(timeZoneIdentifier: String) -> Component {
        var component = Component(kind: .timeZone)
        component.addProperty(Property(.timeZoneIdentifier, rawValue: timeZoneIdentifier))
        // Start from the transition in force at `lower`, so the range's first instants lie
        // after an observance's onset and readers need not guess from TZOFFSETFROM.
        let previous = zone.transitions(from: lower - 2 * 366 * 86_400, through: lower).last
        let changes = labeled(zone.transitions(from: previous?.instant ?? lower, through: upper))
        guard !changes.isEmpty else {
            // One offset over the whole range.
            let offset = zone.utcOffset(atInstant: lower)
            let transition = TimeZoneTransition(
                instant: lower, offsetBefore: offset, offsetAfter: offset,
                isDaylightSavingTime: zone.isDaylightSavingTime(atInstant: lower), abbreviation: zone.abbreviation(atInstant: lower))
            component.addComponent(observance(transition, rule: nil, dates: []))
            return component
        }
        // Group by observance, then split each group into yearly runs.
        var groups: [Key: [TimeZoneTransition]] = [:]
        for change in changes {
            let key = Key(isDaylight: change.isDaylightSavingTime, offsetBefore: change.offsetBefore,
                          offsetAfter: change.offsetAfter, abbreviation: change.abbreviation)
            groups[key, default: []].append(change)
        }
        var runsByKey: [Key: [Run]] = [:]
        for (key, transitions) in groups {
            var runs: [Run] = []
            for transition in transitions {
                let pattern = Pattern(transition.localOnset)
                if var last = runs.last, let previous = last.transitions.last,
                   transition.localOnset.date.year == previous.localOnset.date.year + 1,
                   let merged = last.pattern.merged(with: pattern) {
                    last.transitions.append(transition)
                    last.pattern = merged
                    runs[runs.count - 1] = last
                } else {
                    runs.append(Run(transitions: [transition], pattern: pattern))
                }
            }
            runsByKey[key] = runs
        }
        let openPatterns = openEndedPatterns(runsByKey)
        var observances: [(instant: Int64, component: Component)] = []
        for (key, runs) in runsByKey {
            var loose: [TimeZoneTransition] = []
            for (index, run) in runs.enumerated() {
                let openPattern = index == runs.count - 1 ? openPatterns[key] : nil
                let open = openPattern != nil
                guard run.transitions.count >= 3 || open else {
                    loose += run.transitions
                    continue
                }
                let first = run.transitions[0]
                let pattern = openPattern ?? run.pattern
                var rule = "FREQ=YEARLY;BYMONTH=\(pattern.month);BYDAY=\(pattern.byDay)"
                if !open, let last = run.transitions.last {
                    rule += ";UNTIL=" + LocalDateTime(secondsSinceEpoch: last.instant).iCalendarText + "Z"
                }
                observances.append((first.instant, observance(first, rule: rule, dates: [])))
            }
            if let first = loose.first {
                observances.append((first.instant, observance(first, rule: nil, dates: loose.dropFirst().map(\.localOnset))))
            }
        }
        for entry in observances.sorted(by: { $0.instant < $1.instant }) {
            component.addComponent(entry.component)
        }
        return component
    }

    /// The groups whose last run the zone keeps following for three years after `upper`,
    /// with the pattern narrowed to those years too; empty unless every change in those
    /// years continues such a run.
    private func openEndedPatterns(_ runsByKey: [Key: [Run]]) -> [Key: Pattern] {
        let future = labeled(zone.transitions(from: upper + 1, through: upper + 3 * 366 * 86_400))
        guard !future.isEmpty else { return [:] }
        var extended: [Key: Run] = [:]
        for change in future {
            let key = Key(isDaylight: change.isDaylightSavingTime, offsetBefore: change.offsetBefore,
                          offsetAfter: change.offsetAfter, abbreviation: change.abbreviation)
            guard var run = extended[key] ?? runsByKey[key]?.last, let previous = run.transitions.last,
                  change.localOnset.date.year == previous.localOnset.date.year + 1,
                  let merged = run.pattern.merged(with: Pattern(change.localOnset)) else { return [:] }
            run.transitions.append(change)
            run.pattern = merged
            extended[key] = run
        }
        return extended.mapValues(\.pattern)
    }

    /// The transitions with `isDaylightSavingTime` set to the observance to write them as.
    /// tzdata marks "negative" daylight saving time (Europe/Dublin's winter GMT, Morocco's
    /// Ramadan hour) as daylight time with the lower offset; calendar clients expect
    /// DAYLIGHT to be the higher offset of a seasonal pair, so such pairs are swapped:
    /// a change is DAYLIGHT when it enters daylight time without lowering the offset, or
    /// when it raises the offset while leaving daylight time.
    private func labeled(_ changes: [TimeZoneTransition]) -> [TimeZoneTransition] {
        changes.map { change in
            var change = change
            let wasDaylight = zone.isDaylightSavingTime(atInstant: change.instant - 1)
            change.isDaylightSavingTime = change.isDaylightSavingTime
                ? change.offsetAfter >= change.offsetBefore
                : change.offsetAfter > change.offsetBefore && wasDaylight
            return change
        }
    }

    private func observance(_ first: TimeZoneTransition, rule: String?, dates: [LocalDateTime]) -> Component {
        var observance = Component(kind: first.isDaylightSavingTime ? .daylight : .standard)
        observance.addProperty(Property(.dateTimeStart, rawValue: first.localOnset.iCalendarText))
        observance.addProperty(Property(.timeZoneOffsetFrom, rawValue: VTimeZoneRules.utcOffsetText(first.offsetBefore)))
        observance.addProperty(Property(.timeZoneOffsetTo, rawValue: VTimeZoneRules.utcOffsetText(first.offsetAfter)))
        if !first.abbreviation.isEmpty {
            observance.addProperty(Property(.timeZoneName, rawValue: TextCoding.escape(first.abbreviation)))
        }
        if let rule {
            observance.addProperty(Property(.recurrenceRule, rawValue: rule))
        }
        var index = 0
        while index < dates.count {
            let chunk = dates[index..<min(index + 8, dates.count)]
            observance.addProperty(Property(.recurrenceDates, rawValue: chunk.map(\.iCalendarText).joined(separator: ",")))
            index += 8
        }
        return observance
    }
}
