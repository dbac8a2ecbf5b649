/// A recurring VEVENT, VTODO or VJOURNAL with its overrides: everything that shares one UID,
/// expanded lazily into ``Occurrence`` values that intersect a window, in start order.
///
/// ```swift
/// let set = RecurrenceSet(components: calendar.components(.event), zoneLookup: resolver.rules)
/// for occurrence in set.occurrences(in: start..<end, floatingZone: userZone) { … }
/// ```
///
/// The recurrence set is DTSTART, the RRULE instances and the RDATEs, minus the EXDATEs
/// (RFC 5545 §3.8.5). Rules are iterated with libical's `icalrecur_iterator` on the
/// floating wall clock of DTSTART, and each wall-clock time is then read in DTSTART's zone
/// with RFC 5545 §3.3.5 semantics (a time in a gap moves forward, a repeated time is its
/// first occurrence), so instances never drift after a daylight-saving change.
///
/// Choices where RFC 5545 is silent or the data is invalid (all tested, and listed in the
/// Recurrence article of the documentation):
/// - Versions: per (UID, RECURRENCE-ID) the highest SEQUENCE wins, then the latest DTSTAMP,
///   then the component given last.
/// - An override whose RECURRENCE-ID the newest master no longer generates (after EXDATE)
///   is dropped; overrides without any master are kept as standalone occurrences.
/// - DTSTART is always the first instance, even when it does not match the rule; with
///   COUNT it counts as one of the COUNT instances.
/// - UNTIL: a UTC UNTIL is compared by instant; a DATE UNTIL includes the whole day; a
///   local UNTIL with a zoned DTSTART is read in DTSTART's zone.
/// - DTEND (or DUE, or a negative DURATION) before DTSTART gives a zero-length occurrence.
/// - Mixed DATE and DATE-TIME values are coerced to DTSTART's type, except that a DATE
///   EXDATE or RECURRENCE-ID in a DATE-TIME series matches every instance on that date.
/// - Floating values inside a zoned series (EXDATE, RDATE, RECURRENCE-ID, DTEND) are read
///   in DTSTART's zone; a TZID the lookup cannot resolve is treated as floating and listed
///   in ``unresolvedTimeZoneIdentifiers``.
/// - EXRULE (deprecated by RFC 5545) is ignored; `RANGE=THISANDPRIOR` (deprecated) is read
///   as a single-instance override.
public struct RecurrenceSet: Sendable {
    /// The UID the components share.
    public let uid: String
    /// The master (the newest component without RECURRENCE-ID), if any.
    public let master: Component?
    /// The overrides that won their RECURRENCE-ID, in the order given.
    public let overrides: [Component]
    /// TZIDs that the zone lookup could not resolve; values using them are treated as floating.
    public let unresolvedTimeZoneIdentifiers: [String]

    let series: SeriesDefinition?
    let overrideDefinitions: [OverrideDefinition]

    /// Creates the set from components that share one UID: a master, its overrides, and
    /// older versions of either, in any order. Components whose UID differs from the first
    /// component's are ignored.
    ///
    /// - Parameters:
    ///   - components: VEVENT, VTODO or VJOURNAL components (any kind is read the same way).
    ///   - zoneLookup: resolves a TZID as written to its rules; nil when it is unknown.
    public init(components: [Component], zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) {
        let uid = components.first?[.uniqueIdentifier] ?? ""
        let mine = components.enumerated().filter { ($0.element[.uniqueIdentifier] ?? "") == uid }
        var resolver = ZoneResolver(lookup: zoneLookup)

        func version(_ component: Component) -> (Int, String) {
            let sequence = component[.sequence].flatMap { Int(String($0.filter { $0 != " " })) } ?? 0
            return (sequence, component[.dateTimeStamp] ?? "")
        }
        func newer(_ a: (offset: Int, element: Component), than b: (offset: Int, element: Component)) -> Bool {
            let (sa, da) = version(a.element), (sb, db) = version(b.element)
            if sa != sb { return sa > sb }
            if da != db { return da > db }
            return a.offset > b.offset
        }

        var masterEntry: (offset: Int, element: Component)?
        var overrideEntries: [String: (offset: Int, element: Component)] = [:]
        for entry in mine {
            if let recurrenceID = entry.element.property(.recurrenceIdentifier) {
                let key = ZoneResolver.identityKey(recurrenceID, lookup: zoneLookup)
                if let existing = overrideEntries[key], !newer(entry, than: existing) { continue }
                overrideEntries[key] = entry
            } else {
                if let existing = masterEntry, !newer(entry, than: existing) { continue }
                masterEntry = entry
            }
        }
        let chosenOverrides = overrideEntries.values.sorted { $0.offset < $1.offset }.map(\.element)
        let series = masterEntry.flatMap { SeriesDefinition(component: $0.element, resolver: &resolver) }
        self.uid = uid
        self.master = masterEntry?.element
        self.overrides = chosenOverrides
        self.series = series
        self.overrideDefinitions = chosenOverrides.compactMap {
            OverrideDefinition(component: $0, series: series, resolver: &resolver)
        }
        self.unresolvedTimeZoneIdentifiers = resolver.unresolved
    }

    /// Groups a calendar's VEVENT, VTODO and VJOURNAL components by kind and UID, in the
    /// order each UID first appears. A component without UID forms a set of its own.
    ///
    /// - Parameters:
    ///   - calendar: a VCALENDAR (its subcomponents are grouped), or any list of components
    ///     through ``grouping(_:zoneLookup:)``.
    ///   - zoneLookup: resolves a TZID as written to its rules.
    public static func sets(in calendar: Component,
                            zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) -> [RecurrenceSet] {
        grouping(calendar.components, zoneLookup: zoneLookup)
    }

    /// Groups VEVENT, VTODO and VJOURNAL components by kind and UID (other kinds are
    /// skipped), in the order each UID first appears.
    public static func grouping(_ components: [Component],
                                zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) -> [RecurrenceSet] {
        var order: [String] = []
        var groups: [String: [Component]] = [:]
        var anonymous = 0
        for component in components where component.matches(.event) || component.matches(.todo) || component.matches(.journal) {
            let key: String
            if let uid = component[.uniqueIdentifier] {
                key = component.kind.rawValue + "\u{0}" + uid
            } else {
                anonymous += 1
                key = "\u{1}\(anonymous)"
            }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(component)
        }
        return order.map { RecurrenceSet(components: groups[$0] ?? [], zoneLookup: zoneLookup) }
    }

    /// The occurrences that intersect `window`, lazily and in start order.
    ///
    /// An occurrence intersects the window when it starts before the window's end and ends
    /// after its start; a zero-length occurrence is in it when `start <= s < end`.
    ///
    /// - Parameters:
    ///   - window: instants, in seconds since 1970-01-01T00:00:00Z.
    ///   - floatingZone: the zone floating times and dates are read in to compare them with
    ///     the window (they stay floating in the results); UTC when nil.
    ///   - budget: limits for this expansion; the iterator's ``OccurrenceSequence/Iterator/truncation``
    ///     says whether one was reached.
    public func occurrences(in window: Range<Int64>, floatingZone: (any TimeZoneRules)? = nil,
                            budget: ExpansionBudget = .standard) -> OccurrenceSequence {
        OccurrenceSequence(set: self, window: window, floatingZone: floatingZone ?? FixedOffsetZone.utc, budget: budget)
    }

    /// All occurrences that intersect `window`, in start order, with the reason the budget
    /// stopped the expansion early, if it did. See ``occurrences(in:floatingZone:budget:)``.
    public func expand(in window: Range<Int64>, floatingZone: (any TimeZoneRules)? = nil,
                       budget: ExpansionBudget = .standard) -> Expansion {
        var iterator = occurrences(in: window, floatingZone: floatingZone, budget: budget).makeIterator()
        var occurrences: [Occurrence] = []
        while let occurrence = iterator.next() { occurrences.append(occurrence) }
        return Expansion(occurrences: occurrences, truncation: iterator.truncation)
    }
}

/// The lazy sequence of a ``RecurrenceSet``'s occurrences in a window, in start order.
///
/// Each iterator expands independently; steps run in short chunks under the libical lock,
/// which is never held between calls to `next()`.
public struct OccurrenceSequence: Sequence {
    let set: RecurrenceSet
    let window: Range<Int64>
    let floatingZone: any TimeZoneRules
    let budget: ExpansionBudget

    /// Starts an expansion.
    public func makeIterator() -> Iterator {
        Iterator(expander: OccurrenceExpander(set: set, window: window, floatingZone: floatingZone, budget: budget))
    }

    /// Steps one expansion. Copies of an iterator share its progress.
    public struct Iterator: IteratorProtocol {
        let expander: OccurrenceExpander

        /// The next occurrence in start order, or nil at the end of the window or when the
        /// budget is exhausted (see ``truncation``).
        public mutating func next() -> Occurrence? { expander.next() }

        /// Why the expansion stopped early, once it has; nil while it is complete so far.
        public var truncation: ExpansionTruncation? { expander.meter.truncation }
    }
}
