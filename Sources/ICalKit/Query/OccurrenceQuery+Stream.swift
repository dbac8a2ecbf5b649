// The classes here hold the state of one expansion (or one merge of expansions), stepped
// once per occurrence by a single caller and never reentered. Their stored properties are
// `@exclusivity(unchecked)`: the compiler still checks exclusive access statically, but the
// run-time check of every access (a tenth of a streamed query's instructions) is left out.

extension OccurrenceQuery {
    /// Starts the query over calendars as a stream: the matches come one at a time, in the
    /// order of ``Result/matches``, and none is held longer than it has to be.
    ///
    /// Each recurrence set is already an ordered stream (``RecurrenceSet/occurrences(in:floatingZone:budget:)``
    /// yields its occurrences by start), so the query merges the sets' streams with a heap
    /// instead of collecting and sorting every occurrence: it holds a few pending occurrences
    /// per series (a batch of 16, longer only by occurrences of the same start), not one per
    /// occurrence. A query over ten years of 2,000 weekly series holds some 32,000 matches,
    /// not a million. ``run(_:)`` collects this stream.
    ///
    /// ```swift
    /// let stream = OccurrenceQuery(window: window.start..<window.end, floatingZone: berlin)
    ///     .stream([OccurrenceQuery.Source(calendar: calendar, name: "lessons.ics")])
    /// while let match = stream.next() { print(match.occurrence.uid) }
    /// stream.diagnostics.forEach { print($0) }  // complete once next() returned nil
    /// ```
    public func stream(_ sources: [Source]) -> Stream {
        Stream(query: self, sources: sources)
    }

    /// The matches of a query, merged from the streams of its recurrence sets in the order of
    /// ``Result/matches``: start instant, end instant, UID, RECURRENCE-ID's local time, then
    /// the order found (source, the set's place in it, the occurrence's place in the set).
    ///
    /// Made by ``OccurrenceQuery/stream(_:)``. Not for sharing between tasks: one reader
    /// steps it.
    public final class Stream: IteratorProtocol, Sequence {
        /// One source's zone resolver, shared by its series.
        private final class SourceState {
            let name: String?
            let resolver: TimeZoneResolver
            @exclusivity(unchecked) var lastZone: (identifier: String, rules: (any TimeZoneRules)?)?

            init(name: String?, resolver: TimeZoneResolver) {
                self.name = name
                self.resolver = resolver
            }

            /// The zone a TZID resolves to, remembering the last one (most series of a file
            /// use one zone).
            func zone(_ tzid: String) -> (any TimeZoneRules)? {
                if let last = lastZone, last.identifier == tzid { return last.rules }
                let rules = resolver.resolve(tzid)?.rules
                lastZone = (tzid, rules)
                return rules
            }
        }

        /// A match with its place in the order found.
        private struct Entry {
            var match: Match
            /// The RECURRENCE-ID's local time (the fourth key).
            var recurrenceLocal: LocalDateTime
            /// The source's index, the set's index in it and the occurrence's index in the set.
            var source: Int
            var group: Int
            var position: Int

            /// The query's order (``Result/matches``).
            static func precedes(_ a: Entry, _ b: Entry) -> Bool {
                if a.match.startInstant != b.match.startInstant { return a.match.startInstant < b.match.startInstant }
                if a.match.endInstant != b.match.endInstant { return a.match.endInstant < b.match.endInstant }
                if a.match.occurrence.uid != b.match.occurrence.uid { return a.match.occurrence.uid < b.match.occurrence.uid }
                if a.recurrenceLocal != b.recurrenceLocal { return a.recurrenceLocal < b.recurrenceLocal }
                if a.source != b.source { return a.source < b.source }
                if a.group != b.group { return a.group < b.group }
                return a.position < b.position
            }
        }

        /// One recurrence set's occurrences in the query's order.
        ///
        /// A set yields its occurrences by start instant; those with the same start come in
        /// the set's own order, which need not be the query's (the end, then the
        /// RECURRENCE-ID decide there), so the cursor takes a few occurrences at a time (a
        /// batch, never ending inside a run of equal starts) and orders them. Taking a batch
        /// rather than one keeps each expansion's state warm while it works. Should a set
        /// ever yield a start before one it yielded already, the cursor takes the rest of the
        /// set and orders all of it: correct whatever the set does, with memory for that one
        /// set.
        private final class Cursor {
            /// The occurrences taken from the set at a time (at least).
            static let batch = 16

            @exclusivity(unchecked) private var iterator: OccurrenceSequence.Iterator?
            private let state: SourceState
            let sourceIndex: Int
            let groupIndex: Int
            private let recurring: Bool
            private let floatingZone: any TimeZoneRules
            @exclusivity(unchecked) private var position = 0
            @exclusivity(unchecked) private var run: [Entry] = []
            @exclusivity(unchecked) private var runIndex = 0
            @exclusivity(unchecked) private var lookahead: Entry?
            /// The budget warning's parts, reported when the set ends truncated.
            private let warning: (line: Int, component: String?, uid: String)
            /// The set's budget warning, once it ended truncated.
            @exclusivity(unchecked) private(set) var truncation: Diagnostic?

            init(set: RecurrenceSet, query: OccurrenceQuery, state: SourceState, source: Int, group: Int) {
                self.state = state
                self.sourceIndex = source
                self.groupIndex = group
                self.recurring = set.masterRecurs || !set.overrides.isEmpty
                self.floatingZone = query.floatingZone
                self.warning = (set.master?.line ?? set.overrides.first?.line ?? 0, set.master?.name, set.uid)
                self.iterator = set.occurrences(in: query.window, floatingZone: query.floatingZone,
                                                budget: query.budget).makeIterator()
            }

            /// The match of the cursor's next entry, without taking it (or copying the rest of
            /// the entry).
            var headMatch: Match { run[runIndex].match }
            /// The head's start and end instants (without copying the entry).
            var headKeys: (start: Int64, end: Int64) { (run[runIndex].match.startInstant, run[runIndex].match.endInstant) }

            /// Whether this cursor's head comes before `other`'s in the query's order.
            func headPrecedes(_ other: Cursor) -> Bool {
                run.withUnsafeBufferPointer { mine in
                    other.run.withUnsafeBufferPointer { theirs in
                        Entry.precedes(mine[runIndex], theirs[other.runIndex])
                    }
                }
            }

            /// Takes the head and moves to the next entry; false once the set is done.
            func advance() -> Bool {
                runIndex += 1
                if runIndex < run.count { return true }
                return refill()
            }

            /// Fills the next batch; false when the set has nothing more.
            func refill() -> Bool {
                run.removeAll(keepingCapacity: true)
                runIndex = 0
                guard let first = lookahead ?? pull() else { return false }
                lookahead = nil
                run.append(first)
                var last = first.match.startInstant
                var ties = false
                while let entry = pull() {
                    let start = entry.match.startInstant
                    if start == last {
                        run.append(entry)
                        ties = true
                    } else if start > last {
                        if run.count >= Self.batch {
                            lookahead = entry
                            break
                        }
                        run.append(entry)
                        last = start
                    } else {
                        // Out of order: take the rest of this set and order all of it.
                        run.append(entry)
                        while let rest = pull() { run.append(rest) }
                        ties = true
                        break
                    }
                }
                if ties { run.sort(by: Entry.precedes) }
                return true
            }

            /// The set's next occurrence as an entry; at the end, records the budget warning.
            private func pull() -> Entry? {
                guard iterator != nil else { return nil }
                guard let occurrence = iterator!.next() else {
                    if let reason = iterator!.truncation {
                        truncation = Diagnostic(
                            .warning, .budgetExceeded, line: warning.line, file: state.name, component: warning.component,
                            property: "RRULE",
                            message: "expanding UID \(warning.uid) stopped at the \(reason.rawValue) budget; "
                                + "its occurrences in this window are incomplete")
                    }
                    iterator = nil
                    return nil
                }
                let start = occurrence.startInstant ?? floatingZone.instant(for: occurrence.start.local)
                let end = occurrence.endInstant ?? floatingZone.instant(for: occurrence.end.local)
                let zone = occurrence.start.timeZoneIdentifier.flatMap { state.zone($0) }
                let match = Match(occurrence: occurrence, startInstant: start, endInstant: end,
                                  isRecurring: recurring || occurrence.isOverride, source: state.name, timeZone: zone)
                position += 1
                return Entry(match: match, recurrenceLocal: occurrence.recurrenceIdentifier.local, source: sourceIndex,
                             group: groupIndex, position: position)
            }
        }

        @exclusivity(unchecked) private var cursors: [Cursor] = []
        /// A binary min-heap of the cursors by their heads: each node holds its head's start
        /// and end instants, so most comparisons touch no cursor.
        @exclusivity(unchecked) private var heap: [(start: Int64, end: Int64, cursor: Int)] = []
        /// Diagnostics with their place: source, then the resolver's (group -1) before the
        /// sets' budget warnings by set.
        @exclusivity(unchecked) private var found: [(source: Int, group: Int, diagnostic: Diagnostic)] = []
        @exclusivity(unchecked) private var finished = false

        /// The calendars read, as the query reads them (with X-WR-TIMEZONE applied): the
        /// cursors' sets hold parts of them.
        @exclusivity(unchecked) private var calendars: [Component] = []

        init(query: OccurrenceQuery, sources: [Source]) {
            for (index, var source) in sources.enumerated() {
                if source.calendar.property(.calendarTimeZone) != nil {
                    source.calendar = CalendarRepair.applyingCalendarTimeZone(source.calendar)
                }
                let resolver = TimeZoneResolver(calendar: source.calendar, file: source.name)
                for diagnostic in resolver.diagnostics { found.append((index, -1, diagnostic)) }
                let grouping = RecurrenceSet.Grouping(source.calendar.components, kinds: query.kinds)
                for (cursor, hasHead) in Self.cursors(grouping, query: query, source: index, name: source.name,
                                                      resolver: resolver) {
                    if hasHead {
                        cursors.append(cursor)
                        push(cursors.count - 1)
                    } else {
                        note(cursor)
                    }
                }
                calendars.append(source.calendar)
            }
        }

        /// A cursor, with its first batch taken, for each group at least one occurrence of
        /// which may be in the query's window, in order, and whether the cursor has one.
        ///
        /// Most components of a large calendar are single events and series far from the
        /// window: they are passed over before a set, an expander and candidate streams are
        /// built for them, and a series is passed over when its overrides (and instances) all
        /// miss the window. A calendar of many groups is looked at in parts, one per core: the
        /// checks and expansions read the components and resolve zones, and each part has a
        /// source state (the last zone resolved) of its own; nothing else is shared.
        private static func cursors(_ grouping: RecurrenceSet.Grouping, query: OccurrenceQuery, source: Int,
                                    name: String?, resolver: TimeZoneResolver) -> [(cursor: Cursor, hasHead: Bool)] {
            let lookup: @Sendable (String) -> (any TimeZoneRules)? = { resolver.resolve($0)?.rules }
            // Sendable: what the parts share is checked to be safe to share.
            @Sendable func look(at groups: Range<Int>) -> [(cursor: Cursor, hasHead: Bool)] {
                let state = SourceState(name: name, resolver: resolver)
                var found: [(cursor: Cursor, hasHead: Bool)] = []
                for group in groups {
                    let set: RecurrenceSet
                    if grouping.isLone(group) {
                        if RecurrenceSet.loneComponentMisses(grouping.first(of: group),
                                                             window: query.window, floatingZone: query.floatingZone,
                                                             budget: query.budget, zoneLookup: lookup) {
                            continue
                        }
                        set = Self.set(of: group, in: grouping, query: query, zoneLookup: lookup)
                    } else {
                        set = Self.set(of: group, in: grouping, query: query, zoneLookup: lookup)
                        if OccurrenceExpander.setMisses(set, window: query.window, floatingZone: query.floatingZone,
                                                        budget: query.budget) {
                            continue
                        }
                    }
                    let cursor = Cursor(set: set, query: query, state: state, source: source, group: group)
                    found.append((cursor, cursor.refill()))
                }
                return found
            }
            let count = grouping.groups.count
            let parts = Threads.parts(of: count)
            guard parts > 1 else { return look(at: 0..<count) }
            return Array(Threads.map(parts) { part in look(at: Threads.range(part, of: parts, in: count)) }.joined())
        }

        /// The recurrence set of a group, as the query expands it.
        private static func set(of group: Int, in grouping: RecurrenceSet.Grouping, query: OccurrenceQuery,
                                zoneLookup lookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) -> RecurrenceSet {
            let set = RecurrenceSet(entries: grouping.entries(of: group), zoneLookup: lookup)
            return query.includesCancelled ? set.includingCancelledInstances() : set
        }

        /// The next match in the query's order, or nil when there are no more.
        public func next() -> Match? {
            guard let top = heap.first else {
                finish()
                return nil
            }
            let cursor = cursors[top.cursor]
            let match = cursor.headMatch
            if cursor.advance() {
                let keys = cursor.headKeys
                heap[0].start = keys.start
                heap[0].end = keys.end
                siftDown(0)
            } else {
                note(cursor)
                let last = heap.removeLast()
                if !heap.isEmpty {
                    heap[0] = last
                    siftDown(0)
                }
            }
            return match
        }

        /// The matches left, collected, with the diagnostics: what ``run(_:)`` returns.
        public func collect() -> Result {
            var matches: [Match] = []
            while let match = next() { matches.append(match) }
            return Result(matches: matches, diagnostics: diagnostics)
        }

        /// Steps through the matches left without returning them, so that ``diagnostics``
        /// is complete (a listing cut at a limit still reports every truncated series).
        public func drain() {
            while next() != nil {}
        }

        /// Time-zone problems of the calendars, and a warning for each series whose
        /// expansion stopped at the budget, in the order ``run(_:)`` reports them: complete
        /// once ``next()`` has returned nil (see ``drain()``).
        public var diagnostics: [Diagnostic] {
            found.enumerated().sorted { a, b in
                (a.element.source, a.element.group, a.offset) < (b.element.source, b.element.group, b.offset)
            }.map(\.element.diagnostic)
        }

        private func finish() {
            guard !finished else { return }
            finished = true
            cursors.removeAll()
        }

        /// Records a finished cursor's budget warning.
        private func note(_ cursor: Cursor) {
            if let truncation = cursor.truncation { found.append((cursor.sourceIndex, cursor.groupIndex, truncation)) }
        }

        /// Whether heap node `a` comes before node `b`.
        private func precedes(_ a: Int, _ b: Int) -> Bool {
            let x = heap[a], y = heap[b]
            if x.start != y.start { return x.start < y.start }
            if x.end != y.end { return x.end < y.end }
            return cursors[x.cursor].headPrecedes(cursors[y.cursor])
        }

        private func push(_ cursor: Int) {
            let keys = cursors[cursor].headKeys
            heap.append((keys.start, keys.end, cursor))
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard precedes(child, parent) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        private func siftDown(_ start: Int) {
            var parent = start
            let count = heap.count
            while true {
                let left = 2 * parent + 1
                guard left < count else { return }
                var smallest = left
                let right = left + 1
                if right < count, precedes(right, left) { smallest = right }
                guard precedes(smallest, parent) else { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }
}
