import Testing
@testable import ICalKit

/// A streamed query (``OccurrenceQuery/stream(_:)``: the sets' ordered streams merged by a
/// heap, written in pieces) gives exactly what the query gave when it collected every
/// occurrence and sorted them: the same matches in the same order, ties included, the same
/// diagnostics, and the same bytes in every format.
@Suite struct OccurrenceStreamTests {
    /// A reproducible generator (the module's SplitMix64) with the draws the calendars use.
    struct Random {
        private var generator: SplitMix64
        init(state: UInt64) { generator = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { generator.next() }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
        }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// A random calendar made to produce ties and out-of-order streams: few UIDs shared by
    /// several VEVENTs (and by the calendars of one query), equal starts with different
    /// ends, overrides moved before other instances, RDATE periods, EXDATEs, floating,
    /// zoned, UTC and all-day values, and to-dos.
    static func calendar(_ random: inout Random, events: Int) -> Component {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//Tests//EN"]
        let rules = ["FREQ=DAILY;COUNT=12", "FREQ=WEEKLY;BYDAY=MO,TH", "FREQ=DAILY;INTERVAL=2;COUNT=20",
                     "FREQ=MONTHLY;BYMONTHDAY=1,15", "FREQ=WEEKLY;INTERVAL=2", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
                     "FREQ=YEARLY", "FREQ=HOURLY;INTERVAL=5;COUNT=30"]
        let zones = ["", ";TZID=Europe/Berlin", ";TZID=America/New_York", "Z", ";VALUE=DATE"]
        for index in 0..<events {
            let uid = "u\(random.int(0...3))@example.com"
            let zone = random.pick(zones)
            let day = random.int(1...20), hour = random.pick([9, 9, 10, 17])
            func value(_ day: Int, _ hour: Int, _ minute: Int = 0) -> String {
                let date = "202603\(two(day))"
                if zone == ";VALUE=DATE" { return "\(zone):\(date)" }
                if zone == "Z" { return ":\(date)T\(two(hour))\(two(minute))00Z" }
                return "\(zone):\(date)T\(two(hour))\(two(minute))00"
            }
            let todo = random.chance(10) && zone != ";VALUE=DATE"
            lines.append(todo ? "BEGIN:VTODO" : "BEGIN:VEVENT")
            lines.append("UID:\(uid)")
            lines.append("DTSTAMP:20260101T000000Z")
            lines.append("SUMMARY:event \(index)")
            lines.append("DTSTART" + value(day, hour))
            if zone == ";VALUE=DATE" {
                lines.append("DURATION:P\(random.int(1...2))D")
            } else if todo {
                lines.append("DUE" + value(day, hour + 1))
            } else {
                lines.append("DURATION:PT\(random.pick([0, 30, 60, 60, 90]))M")
            }
            if random.chance(70) {
                lines.append("RRULE:" + random.pick(rules))
                if random.chance(30) { lines.append("EXDATE" + value(day + 7, hour)) }
                if random.chance(30), zone != ";VALUE=DATE", zone != "Z" {
                    lines.append("RDATE\(zone.isEmpty ? "" : zone);VALUE=PERIOD:202603\(two(day + 1))T\(two(hour))0000/PT\(random.int(1...3))H")
                }
            }
            lines.append(todo ? "END:VTODO" : "END:VEVENT")
            if random.chance(40), zone != ";VALUE=DATE", !todo {
                // An override of the second instance (of a daily rule), moved before the first.
                lines += ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z", "SUMMARY:moved \(index)",
                          "RECURRENCE-ID" + value(day + 1, hour), "DTSTART" + value(max(1, day - 1), hour, 30),
                          "DURATION:PT45M", "END:VEVENT"]
            }
        }
        lines.append("END:VCALENDAR")
        return try! ICalReader().read(lines.joined(separator: "\r\n") + "\r\n").calendars[0]
    }

    /// What the query returned when it collected every match and sorted them (the
    /// implementation before streaming), kept as the oracle.
    static func collectedAndSorted(_ query: OccurrenceQuery, _ sources: [OccurrenceQuery.Source])
        -> (matches: [OccurrenceQuery.Match], diagnostics: [Diagnostic]) {
        var matches: [OccurrenceQuery.Match] = []
        var diagnostics: [Diagnostic] = []
        for var source in sources {
            if source.calendar.property(.calendarTimeZone) != nil {
                source.calendar = CalendarRepair.applyingCalendarTimeZone(source.calendar)
            }
            let resolver = TimeZoneResolver(calendar: source.calendar, file: source.name)
            diagnostics += resolver.diagnostics
            let lookup: @Sendable (String) -> (any TimeZoneRules)? = { resolver.resolve($0)?.rules }
            let grouping = RecurrenceSet.Grouping(source.calendar.components, kinds: query.kinds)
            for group in grouping.groups.indices {
                if grouping.isLone(group),
                   RecurrenceSet.loneComponentMisses(grouping.first(of: group), window: query.window,
                                                     floatingZone: query.floatingZone, budget: query.budget, zoneLookup: lookup) {
                    continue
                }
                var set = RecurrenceSet(entries: grouping.entries(of: group), zoneLookup: lookup)
                if query.includesCancelled { set = set.includingCancelledInstances() }
                if OccurrenceExpander.setMisses(set, window: query.window, floatingZone: query.floatingZone, budget: query.budget) {
                    continue
                }
                let recurring = set.masterRecurs || !set.overrides.isEmpty
                let expansion = set.expand(in: query.window, floatingZone: query.floatingZone, budget: query.budget)
                if let truncation = expansion.truncation {
                    diagnostics.append(Diagnostic(
                        .warning, .budgetExceeded, line: set.master?.line ?? set.overrides.first?.line ?? 0,
                        file: source.name, component: set.master?.name, property: "RRULE",
                        message: "expanding UID \(set.uid) stopped at the \(truncation.rawValue) budget; "
                            + "its occurrences in this window are incomplete"))
                }
                for occurrence in expansion.occurrences {
                    let start = occurrence.startInstant ?? query.floatingZone.instant(for: occurrence.start.local)
                    let end = occurrence.endInstant ?? query.floatingZone.instant(for: occurrence.end.local)
                    let zone = occurrence.start.timeZoneIdentifier.flatMap { resolver.resolve($0)?.rules }
                    matches.append(OccurrenceQuery.Match(occurrence: occurrence, startInstant: start, endInstant: end,
                                                         isRecurring: recurring || occurrence.isOverride,
                                                         source: source.name, timeZone: zone))
                }
            }
        }
        let order = matches.indices.sorted { a, b in
            let x = matches[a], y = matches[b]
            if x.startInstant != y.startInstant { return x.startInstant < y.startInstant }
            if x.endInstant != y.endInstant { return x.endInstant < y.endInstant }
            if x.occurrence.uid != y.occurrence.uid { return x.occurrence.uid < y.occurrence.uid }
            let l = x.occurrence.recurrenceIdentifier.local, r = y.occurrence.recurrenceIdentifier.local
            if l != r { return l < r }
            return a < b
        }
        return (order.map { matches[$0] }, diagnostics)
    }

    /// A match as text: everything the formats show and what tells equal keys apart.
    static func describe(_ match: OccurrenceQuery.Match) -> String {
        "\(match.startInstant) \(match.endInstant) \(match.occurrence.uid) \(match.occurrence.recurrenceIdentifier) "
            + "\(match.source ?? "-") \(match.occurrence.component[.summary] ?? "-") \(match.isRecurring)"
    }

    static let windows: [Range<Int64>] = [
        RecurrenceTestSupport.window("20260101T000000Z", "20270101T000000Z"),
        RecurrenceTestSupport.window("20260305T000000Z", "20260312T000000Z"),
        RecurrenceTestSupport.window("20260310T090000Z", "20260310T100000Z"),
    ]

    @Test(arguments: 1...24)
    func streamedIsTheCollectedAndSortedQuery(_ seed: Int) {
        var random = Random(state: UInt64(seed))
        let sources = (0..<random.int(1...3)).map { number in
            OccurrenceQuery.Source(calendar: Self.calendar(&random, events: random.int(1...14)), name: "c\(number).ics")
        }
        for window in Self.windows {
            for floating in [FixedOffsetZone.utc, RecurrenceTestSupport.berlin] as [any TimeZoneRules] {
                var query = OccurrenceQuery(window: window, floatingZone: floating)
                query.includesCancelled = seed % 2 == 0
                let expected = Self.collectedAndSorted(query, sources)
                let stream = query.stream(sources)
                var streamed: [OccurrenceQuery.Match] = []
                while let match = stream.next() { streamed.append(match) }
                #expect(streamed.map(Self.describe) == expected.matches.map(Self.describe), "seed \(seed) in \(window)")
                #expect(stream.diagnostics == expected.diagnostics, "seed \(seed)")
                #expect(stream.next() == nil)
                #expect(query.run(sources).matches.map(Self.describe) == expected.matches.map(Self.describe))
            }
        }
    }

    /// Identical keys (start, end, UID, RECURRENCE-ID) keep the order found: source, then
    /// the set's place in its calendar.
    @Test func tiesKeepTheOrderFound() {
        func calendar(_ summary: String) -> Component {
            let text = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//T//EN",
                        "BEGIN:VEVENT", "UID:same", "DTSTAMP:20260101T000000Z", "DTSTART:20260302T090000Z",
                        "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3", "SUMMARY:\(summary) a", "END:VEVENT",
                        "END:VCALENDAR"].joined(separator: "\r\n") + "\r\n"
            return try! ICalReader().read(text).calendars[0]
        }
        let sources = ["second", "first", "third"].map { OccurrenceQuery.Source(calendar: calendar($0), name: $0) }
        let query = OccurrenceQuery(window: Self.windows[0], floatingZone: FixedOffsetZone.utc)
        let streamed = query.run(sources).matches.map { $0.source ?? "" }
        #expect(streamed == ["second", "first", "third", "second", "first", "third", "second", "first", "third"])
    }

    /// A series cut by the budget is reported once its stream ends, at the place the
    /// collecting query reported it, also when a limit stops the listing early.
    @Test func budgetWarningsMatchTheCollectedQuery() throws {
        var random = Random(state: 7)
        let sources = [OccurrenceQuery.Source(calendar: Self.calendar(&random, events: 10), name: "a.ics"),
                       OccurrenceQuery.Source(calendar: Self.calendar(&random, events: 10), name: "b.ics")]
        var query = OccurrenceQuery(window: Self.windows[0], floatingZone: FixedOffsetZone.utc)
        query.budget = ExpansionBudget(maximumOccurrences: 5)
        let expected = Self.collectedAndSorted(query, sources)
        #expect(!expected.diagnostics.isEmpty)
        let stream = query.stream(sources)
        var written: [UInt8] = []
        let count = try OccurrenceFormatter().write(stream, as: .json, limit: 3) { (chunk: [UInt8]) throws(ICalError) in
            written += chunk
        }
        #expect(count == 3)
        #expect(stream.diagnostics == expected.diagnostics)
        let prefix = PackedListings(expected.matches.prefix(3).map(OccurrenceListing.init))
        #expect(written == OccurrenceFormatter().bytes(prefix, as: .json))
    }

    /// Output larger than one piece is the same bytes as the whole listing written at once,
    /// in every format, and it arrives in pieces of at least the chunk size.
    @Test(arguments: [false, true])
    func piecesAreTheWholeOutput(_ displayZone: Bool) throws {
        var random = Random(state: 99)
        let sources = (0..<3).map { number in
            OccurrenceQuery.Source(calendar: Self.calendar(&random, events: 30), name: "c\(number).ics")
        }
        let query = OccurrenceQuery(window: Self.windows[0], floatingZone: FixedOffsetZone.utc)
        let matches = query.run(sources).matches
        #expect(matches.count > 200)
        let formatter = OccurrenceFormatter(displayZone: displayZone ? RecurrenceTestSupport.berlin : nil)
        let formats: [OccurrenceFormatter.ListingFormat] = [.json, .csv, .agenda(color: false), .agenda(color: true)]
        for format in formats {
            var pieces: [[UInt8]] = []
            try formatter.write(query.stream(sources), as: format, chunkSize: 1024) { (chunk: [UInt8]) throws(ICalError) in
                pieces.append(chunk)
            }
            let whole = formatter.bytes(PackedListings(matches.map(OccurrenceListing.init)), as: format)
            #expect(pieces.count > 3, "\(format)")
            #expect(pieces.dropLast().allSatisfy { $0.count >= 1024 }, "\(format)")
            #expect(pieces.flatMap { $0 } == whole, "\(format)")
        }
        var pieces: [[UInt8]] = []
        let opening = try formatter.writeCalendar(query.stream(sources), chunkSize: 1024) { (chunk: [UInt8]) throws(ICalError) in
            pieces.append(chunk)
        }
        #expect(pieces.count > 3)
        #expect(opening + pieces.flatMap { $0 } == ICalWriter().bytes(formatter.calendar(matches)))
        // An empty result, too.
        let empty = OccurrenceQuery(window: 0..<1, floatingZone: FixedOffsetZone.utc)
        for format in formats {
            var bytes: [UInt8] = []
            try formatter.write(empty.stream(sources), as: format) { (chunk: [UInt8]) throws(ICalError) in bytes += chunk }
            #expect(bytes == formatter.bytes(PackedListings(), as: format))
        }
        var bytes: [UInt8] = []
        let emptyOpening = try formatter.writeCalendar(empty.stream(sources)) { (chunk: [UInt8]) throws(ICalError) in bytes += chunk }
        #expect(emptyOpening + bytes == ICalWriter().bytes(formatter.calendar([])))
    }

    /// A sink's error stops the writing and comes out unchanged.
    @Test func aSinkErrorStopsTheWriting() {
        var random = Random(state: 5)
        let sources = [OccurrenceQuery.Source(calendar: Self.calendar(&random, events: 30), name: "c.ics")]
        let query = OccurrenceQuery(window: Self.windows[0], floatingZone: FixedOffsetZone.utc)
        var calls = 0
        #expect(throws: ICalError.self) {
            try OccurrenceFormatter().write(query.stream(sources), as: .csv, chunkSize: 256) { (_: [UInt8]) throws(ICalError) in
                calls += 1
                if calls == 2 { throw ICalError(.io, "cannot write: disk full", file: "<stdout>") }
            }
        }
        #expect(calls == 2)
    }
}
