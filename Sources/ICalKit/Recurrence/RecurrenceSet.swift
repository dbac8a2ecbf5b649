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
    /// Whether the master has an RRULE or RDATE property (readable or not).
    let masterRecurs: Bool
    private(set) var overrideDefinitions: [OverrideDefinition]

    /// The set with cancelled instances listed: an override with `STATUS:CANCELLED` becomes
    /// an occurrence whose ``Occurrence/component`` says CANCELLED, instead of removing its
    /// instance (with `RANGE=THISANDFUTURE`, every later instance is listed with it), as
    /// Python's recurring-ical-events lists them. By default (as Apple's and Google's
    /// calendars show them) cancelled instances are left out.
    public func includingCancelledInstances() -> RecurrenceSet {
        var copy = self
        for index in copy.overrideDefinitions.indices { copy.overrideDefinitions[index].isCancelled = false }
        return copy
    }

    /// Creates the set from components that share one UID: a master, its overrides, and
    /// older versions of either, in any order. Components whose UID differs from the first
    /// component's are ignored.
    ///
    /// - Parameters:
    ///   - components: VEVENT, VTODO or VJOURNAL components (any kind is read the same way).
    ///   - zoneLookup: resolves a TZID as written to its rules; nil when it is unknown.
    public init(components: [Component], zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) {
        self.init(entries: components.map { ($0, ComponentFields($0)) }, zoneLookup: zoneLookup)
    }

    /// The same from components whose fields were already found.
    init(entries: [(component: Component, fields: ComponentFields)],
         zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) {
        func uidOf(_ entry: (component: Component, fields: ComponentFields)) -> String? {
            entry.component.property(at: entry.fields.uid)?.rawValue
        }
        let uid = entries.first.flatMap(uidOf) ?? ""
        var resolver = ZoneResolver(lookup: zoneLookup)

        typealias Entry = (offset: Int, element: (component: Component, fields: ComponentFields))
        func version(_ entry: (component: Component, fields: ComponentFields)) -> (Int, String) {
            let sequence = entry.component.property(at: entry.fields.sequence)
                .flatMap { Int(String($0.rawValue.filter { $0 != " " })) } ?? 0
            return (sequence, entry.component.property(at: entry.fields.stamp)?.rawValue ?? "")
        }
        func newer(_ a: Entry, than b: Entry) -> Bool {
            let (sa, da) = version(a.element), (sb, db) = version(b.element)
            if sa != sb { return sa > sb }
            if da != db { return da > db }
            return a.offset > b.offset
        }

        var masterEntry: Entry?
        var overrideEntries: [String: Entry] = [:]
        for entry in entries.enumerated() where (uidOf(entry.element) ?? "") == uid {
            if let recurrenceID = entry.element.component.property(at: entry.element.fields.recurrenceIdentifier) {
                let key = ZoneResolver.identityKey(recurrenceID, lookup: zoneLookup)
                if let existing = overrideEntries[key], !newer(entry, than: existing) { continue }
                overrideEntries[key] = entry
            } else {
                if let existing = masterEntry, !newer(entry, than: existing) { continue }
                masterEntry = entry
            }
        }
        let chosenOverrides = overrideEntries.values.sorted { $0.offset < $1.offset }.map(\.element)
        let series = masterEntry.flatMap {
            SeriesDefinition(component: $0.element.component, fields: $0.element.fields, resolver: &resolver)
        }
        // UID is TEXT (RFC 5545 §3.8.4.7): the set carries it unescaped (`a\,b` is `a,b`).
        self.uid = uid.utf8.contains(ASCII.backslash) ? TextCoding.unescape(uid) : uid
        self.master = masterEntry?.element.component
        self.masterRecurs = masterEntry?.element.fields.recurs ?? false
        self.overrides = chosenOverrides.map(\.component)
        self.series = series
        self.overrideDefinitions = chosenOverrides.compactMap {
            OverrideDefinition(component: $0.component, fields: $0.fields, series: series, resolver: &resolver)
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
        groupedEntries(components).map { RecurrenceSet(entries: $0, zoneLookup: zoneLookup) }
    }

    /// What ``grouping(_:zoneLookup:)`` groups, before any set is built: VEVENT, VTODO and
    /// VJOURNAL components (only those of `kinds`, when given) with their fields, by kind
    /// and UID, in the order each UID first appears; a component without UID alone.
    static func groupedEntries(_ components: [Component], kinds: Set<ComponentKind>? = nil)
        -> [[(component: Component, fields: ComponentFields)]] {
        let grouping = Grouping(components, kinds: kinds)
        return grouping.groups.indices.map { grouping.entries(of: $0) }
    }

    /// Components grouped by kind and UID, held flat: one entry per component and a chain
    /// of entry positions per group, so that a calendar of 100,000 single events costs no
    /// array per group.
    ///
    /// A large calendar's components are classified in parts, one per core: each one's kind,
    /// fields and the hash of its kind and UID. Only then are they grouped in order, by those
    /// hashes in a table of entry positions: the components themselves are read again only
    /// to compare the UIDs of two entries whose hashes are equal.
    struct Grouping {
        /// The components given.
        private let all: [Component]
        /// Each entry's position in `all` and fields, in the order given.
        private var entries: [(position: Int32, fields: ComponentFields)] = []
        /// Each group's first and last entry, in the order each group first appears.
        private(set) var groups: [(first: Int32, last: Int32)] = []
        /// The entry after each entry in its group, or -1.
        private var next: [Int32] = []

        /// One classified component.
        private struct Classified {
            var position: Int32
            var kind: UInt8
            var fields: ComponentFields
            /// The hash of the kind and UID (consistent with `String` equality), when there is a UID.
            var hash: Int?
        }

        private struct Key: Hashable {
            let kind: UInt8
            let uid: String
        }

        /// Groups VEVENT, VTODO and VJOURNAL components (only those of `kinds`, when given).
        init(_ all: [Component], kinds: Set<ComponentKind>? = nil) {
            self.all = all
            let wanted = [ComponentKind.event, .todo, .journal].map { kinds?.contains($0) ?? true }
            let classified = Self.classified(all, wanted: wanted)
            let count = classified.reduce(0) { $0 + $1.count }
            entries.reserveCapacity(count)
            groups.reserveCapacity(count)
            next.reserveCapacity(count)
            // Open addressing: each slot holds a group's hash and number (-1: free), at most
            // half of them used.
            var capacity = 16
            while capacity < 2 * count { capacity <<= 1 }
            let mask = capacity - 1
            var table = [(hash: Int, group: Int32)](repeating: (0, -1), count: capacity)
            var kinds: [UInt8] = []
            kinds.reserveCapacity(count)
            for part in classified {
                for item in part {
                    let entry = Int32(truncatingIfNeeded: entries.count)
                    entries.append((item.position, item.fields))
                    kinds.append(item.kind)
                    next.append(-1)
                    if let hash = item.hash {
                        var slot = hash & mask   // a Hasher's value is mixed already
                        var found: Int32 = -1
                        while table[slot].group >= 0 {
                            if table[slot].hash == hash {
                                let group = table[slot].group
                                let first = Int(groups[Int(group)].first)
                                if kinds[first] == item.kind, uid(of: first) == uid(of: Int(entry)) {
                                    found = group
                                    break
                                }
                            }
                            slot = (slot + 1) & mask
                        }
                        if found >= 0 {
                            next[Int(groups[Int(found)].last)] = entry
                            groups[Int(found)].last = entry
                            continue
                        }
                        table[slot] = (hash, Int32(truncatingIfNeeded: groups.count))
                    }
                    groups.append((entry, entry))
                }
            }
        }

        /// The UID of an entry's component.
        private func uid(of entry: Int) -> String? {
            all[Int(entries[entry].position)].property(at: entries[entry].fields.uid)?.rawValue
        }

        /// Each component of a wanted kind, classified, in order: for a large calendar in
        /// parts, one per core.
        private static func classified(_ all: [Component], wanted: [Bool]) -> [[Classified]] {
            func classify(_ range: Range<Int>) -> [Classified] {
                var found: [Classified] = []
                found.reserveCapacity(range.count)
                for position in range {
                    let name = all[position].name
                    let kind: UInt8
                    if ASCII.equalsIgnoringCase(name, "VEVENT") { kind = 0 }
                    else if ASCII.equalsIgnoringCase(name, "VTODO") { kind = 1 }
                    else if ASCII.equalsIgnoringCase(name, "VJOURNAL") { kind = 2 }
                    else { continue }
                    guard wanted[Int(kind)] else { continue }
                    let fields = ComponentFields(all[position])
                    let hash = all[position].property(at: fields.uid).map { Key(kind: kind, uid: $0.rawValue).hashValue }
                    found.append(Classified(position: Int32(truncatingIfNeeded: position), kind: kind, fields: fields, hash: hash))
                }
                return found
            }
            let parts = Threads.parts(of: all.count)
            guard parts > 1 else { return [classify(0..<all.count)] }
            return Threads.map(parts) { part in classify(Threads.range(part, of: parts, in: all.count)) }
        }

        /// Whether a group holds one component only.
        func isLone(_ group: Int) -> Bool { groups[group].first == groups[group].last }

        /// A group's first component, with its fields.
        func first(of group: Int) -> (component: Component, fields: ComponentFields) {
            entry(Int(groups[group].first))
        }

        /// An entry's component, with its fields.
        private func entry(_ index: Int) -> (component: Component, fields: ComponentFields) {
            (all[Int(entries[index].position)], entries[index].fields)
        }

        /// The components of a group, in the order given.
        func entries(of group: Int) -> [(component: Component, fields: ComponentFields)] {
            var result: [(component: Component, fields: ComponentFields)] = []
            var entry = groups[group].first
            while entry >= 0 {
                result.append(self.entry(Int(entry)))
                entry = next[Int(entry)]
            }
            return result
        }
    }

    /// Whether a lone component (no other component shares its UID) without RECURRENCE-ID
    /// surely has no occurrence in `window`, by the very tests ``OccurrenceExpander`` and
    /// its candidate streams apply: the one candidate of a single event (DTSTART) starts at
    /// or after the window's end, or before its start by more than the longest possible
    /// length; a series without RDATE has that too, and every rule of it ends before the
    /// window or starts after it. A query skips such components without building a set.
    static func loneComponentMisses(_ entry: (component: Component, fields: ComponentFields), window: Range<Int64>,
                                    floatingZone: any TimeZoneRules, budget: ExpansionBudget,
                                    zoneLookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) -> Bool {
        let (component, fields) = entry
        guard fields.recurrenceIdentifier == nil, fields.recurrenceDateCount == 0 else { return false }
        var resolver = ZoneResolver(lookup: zoneLookup)
        guard fields.ruleCount == 0 else {
            // Without a readable start the set has no series, and without overrides nothing.
            guard let series = SeriesDefinition(component: component, fields: fields, resolver: &resolver,
                                                readingExceptionDates: false) else { return true }
            return OccurrenceExpander.seriesWithoutOverridesMisses(series, window: window, floatingZone: floatingZone,
                                                                  budget: budget)
        }
        let window = OccurrenceExpander.clamped(window)
        guard !window.isEmpty else { return true }
        guard let start = SeriesDefinition.start(of: component, fields: fields, resolver: &resolver) else { return true }
        let end = SeriesDefinition.end(of: component, fields: fields, start: start, resolver: &resolver)
            ?? SeriesDefinition.defaultEnd(start)
        let key = start.key(floating: floatingZone)
        return key >= window.upperBound || key < window.lowerBound - end.upperBoundSeconds
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
