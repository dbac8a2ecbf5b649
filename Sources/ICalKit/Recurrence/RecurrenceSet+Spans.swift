extension RecurrenceSet {
    /// One group of a calendar's components (see ``grouping(_:zoneLookup:)``), as a caller
    /// that only wants where each group's occurrences can be needs it.
    package enum SpanGroup: Sendable {
        /// A lone component (no other shares its kind and UID) without RECURRENCE-ID, RRULE
        /// or RDATE, whose DTSTART (or DUE) is readable and lies well inside years 1...9999:
        /// its one occurrence, as the expansion of its set in the whole calendar range would
        /// give it (EXDATE not applied). `start` and `end` are the occurrence's instants,
        /// floating values read in the floating zone asked for; `endIsFloating` says the end
        /// has no zone of its own.
        case single(start: Int64, end: Int64, endIsFloating: Bool)
        /// A lone component without RECURRENCE-ID that has RRULE or RDATE: the master of a
        /// set without overrides.
        case loneMaster(Component)
        /// Any other group: its recurrence set.
        case set(RecurrenceSet)
    }

    /// Groups VEVENT, VTODO and VJOURNAL components by kind and UID like
    /// ``grouping(_:zoneLookup:)``, in the same order, but computes the one occurrence of a
    /// lone non-recurring component directly instead of building its set and an expander
    /// (most items of a store are such components), and hands out a lone recurring master
    /// as it is (for ``masterOccurrenceKeys(_:window:floatingZone:budget:zoneLookup:_:)``).
    ///
    /// - Parameters:
    ///   - floatingZone: the zone floating values are read in.
    ///   - budget: the budget the sets would be expanded with; a budget that allows no
    ///     occurrence gives sets only.
    package static func spanGroups(_ components: [Component], floatingZone: any TimeZoneRules, budget: ExpansionBudget,
                                   zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) -> [SpanGroup] {
        let grouping = Grouping(components)
        var groups: [SpanGroup] = []
        groups.reserveCapacity(grouping.groups.count)
        for group in grouping.groups.indices {
            let first = grouping.first(of: group)
            if grouping.isLone(group), first.fields.recurrenceIdentifier == nil, first.fields.recurs {
                groups.append(.loneMaster(first.component))
            } else if grouping.isLone(group), budget.maximumOccurrences >= 1,
                      let single = singleOccurrence(first, floatingZone: floatingZone, zoneLookup: zoneLookup) {
                groups.append(single)
            } else {
                groups.append(.set(RecurrenceSet(entries: grouping.entries(of: group), zoneLookup: zoneLookup)))
            }
        }
        return groups
    }

    /// Instants this far inside years 1...9999 are surely kept by the expansion's window
    /// (its clamping and its candidates' look-back).
    private static let singleMargin: Int64 = 400 * 86_400

    /// The one occurrence of a component without RECURRENCE-ID, RRULE and RDATE, or nil
    /// when the expansion must decide (no readable start, or one near the ends of time).
    private static func singleOccurrence(_ entry: (component: Component, fields: ComponentFields),
                                         floatingZone: any TimeZoneRules,
                                         zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) -> SpanGroup? {
        let (component, fields) = entry
        guard fields.recurrenceIdentifier == nil, fields.ruleCount == 0, fields.recurrenceDateCount == 0 else { return nil }
        var resolver = ZoneResolver(lookup: zoneLookup)
        guard let start = SeriesDefinition.start(of: component, fields: fields, resolver: &resolver) else { return nil }
        let end = SeriesDefinition.end(of: component, fields: fields, start: start, resolver: &resolver)
            ?? SeriesDefinition.defaultEnd(start)
        let (startKey, endKey, endIsFloating) = OccurrenceExpander.keysAndFloating(start: start, end: end, floating: floatingZone)
        let everything = OccurrenceExpander.clamped(Int64.min..<Int64.max)
        guard startKey > everything.lowerBound + singleMargin, startKey < everything.upperBound - singleMargin,
              endKey < everything.upperBound - singleMargin else { return nil }
        return .single(start: startKey, end: endKey, endIsFloating: endIsFloating)
    }
}

extension RecurrenceSet {
    /// The occurrences a master alone has, EXDATE not applied, as their start and end keys
    /// (and whether the end floats), in start order: what expanding a set of just the master
    /// without its EXDATEs over `window` gives, without building the occurrences. `body`
    /// returns false to stop early.
    ///
    /// - Returns: why the expansion stopped early, as that expansion's iterator would say
    ///   (nil when it is complete, or stopped by `body`).
    package static func masterOccurrenceKeys(_ master: Component, window: Range<Int64>, floatingZone: any TimeZoneRules,
                                             budget: ExpansionBudget,
                                             zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?,
                                             _ body: (_ start: Int64, _ end: Int64, _ endIsFloating: Bool) -> Bool)
        -> ExpansionTruncation? {
        let window = OccurrenceExpander.clamped(window)
        guard !window.isEmpty else { return nil }
        var resolver = ZoneResolver(lookup: zoneLookup)
        guard let series = SeriesDefinition(component: master, fields: ComponentFields(master), resolver: &resolver,
                                            readingExceptionDates: false) else { return nil }
        // The candidates' span, as OccurrenceExpander.prepare() sizes it without overrides.
        var maximumLength = series.end.upperBoundSeconds
        for date in series.recurrenceDates { maximumLength = max(maximumLength, date.end?.upperBoundSeconds ?? 0) }
        let meter = ExpansionMeter(budget: budget)
        let candidates = CandidateStream(series: series, floating: floatingZone, lowKey: window.lowerBound - maximumLength,
                                         highKey: window.upperBound, meter: meter)
        var emitted = 0
        while let candidate = candidates.next() {
            let (start, end, endIsFloating) = OccurrenceExpander.keysAndFloating(
                start: candidate.start, end: candidate.periodEnd ?? series.end, floating: floatingZone)
            guard OccurrenceExpander.intersects(start, end, window) else { continue }
            if emitted >= budget.maximumOccurrences {
                meter.truncate(.occurrences)
                break
            }
            emitted += 1
            if !body(start, end, endIsFloating) { return nil }
        }
        return meter.truncation
    }
}
