import Testing
@testable import ICalKit

/// The shortcuts a query takes to skip work must never change what it finds: a series
/// expanded over any window gives exactly the occurrences of its whole expansion that
/// intersect that window, whether the expander, the query's skipping of lone series and
/// single events, or libical's iterator does the work.
@Suite struct RecurrenceWindowTests {
    typealias Support = RecurrenceTestSupport

    static let rules = [
        "FREQ=DAILY;COUNT=5", "FREQ=DAILY;INTERVAL=2;COUNT=7", "FREQ=WEEKLY;COUNT=6",
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=9", "FREQ=WEEKLY;INTERVAL=3;BYDAY=SU;COUNT=4",
        "FREQ=WEEKLY;BYDAY=WE,SA;COUNT=30", "FREQ=MONTHLY;COUNT=6", "FREQ=MONTHLY;BYMONTHDAY=28,-28;COUNT=8",
        "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=5", "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=3;COUNT=4", "FREQ=YEARLY;COUNT=4",
        "FREQ=YEARLY;INTERVAL=2;COUNT=3", "FREQ=MONTHLY;BYDAY=1MO;COUNT=4", "FREQ=DAILY;BYHOUR=9,17;COUNT=6",
        "FREQ=DAILY;UNTIL=20240320T000000Z", "FREQ=WEEKLY;BYDAY=MO,WE,FR;UNTIL=20240501T000000Z", "FREQ=DAILY;COUNT=3000",
    ]

    static let starts = [
        "DTSTART:20240131T090000Z", "DTSTART;TZID=Europe/Berlin:20240229T233000",
        "DTSTART;TZID=America/New_York:20240310T023000", "DTSTART:20241027T023000", "DTSTART;VALUE=DATE:20240131",
    ]

    /// Whether an occurrence intersects a window (zero-length ones when they start in it).
    static func intersects(_ occurrence: Occurrence, _ window: Range<Int64>) -> Bool {
        let start = occurrence.startInstant ?? FixedOffsetZone.utc.instant(for: occurrence.start.local)
        let end = occurrence.endInstant ?? FixedOffsetZone.utc.instant(for: occurrence.end.local)
        guard start < window.upperBound else { return false }
        return end > window.lowerBound || (end == start && start >= window.lowerBound)
    }

    static func calendar(_ lines: [String]) -> Component {
        let text = (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//Tests//EN"] + lines + ["END:VCALENDAR"])
            .joined(separator: "\r\n") + "\r\n"
        return try! ICalReader().read(text).calendars[0]
    }

    @Test(arguments: rules)
    func everyWindowSeesTheWholeExpansion(_ rule: String) {
        let everything = Support.window("20000101T000000Z", "21000101T000000Z")
        for start in Self.starts {
            let event = Support.event(lines: [start, start.contains("VALUE=DATE") ? "DURATION:P2D" : "DURATION:PT2H",
                                              "RRULE:\(rule)"])
            let set = Support.set(event)
            let all = set.expand(in: everything).occurrences
            guard let first = all.first?.startInstant ?? all.first.map({ $0.start.local.secondsSinceEpoch }),
                  let last = all.last?.startInstant ?? all.last.map({ $0.start.local.secondsSinceEpoch }) else {
                Issue.record("\(rule) from \(start) has no occurrences")
                continue
            }
            let middle = first + (last - first) / 2
            let day: Int64 = 86_400
            let windows: [Range<Int64>] = [
                (first - 10 * day)..<(first - day), first..<(first + day), (middle - 3 * day)..<(middle + 3 * day),
                (last - 3600)..<(last + 3600), (last + 3 * day)..<(last + 30 * day), (first - 400 * day)..<(last + 400 * day),
                (last + 2 * 3600)..<(last + 2 * 3600 + 1),
            ]
            let calendar = Self.calendar(event)
            for window in windows {
                let expected = all.filter { Self.intersects($0, window) }
                let expanded = set.expand(in: window).occurrences
                #expect(Support.starts(expanded) == Support.starts(expected), "\(rule) from \(start) in \(window)")
                let queried = OccurrenceQuery(window: window, floatingZone: FixedOffsetZone.utc)
                    .run([OccurrenceQuery.Source(calendar: calendar)]).matches.map(\.occurrence)
                #expect(Support.starts(queried) == Support.starts(expected), "query: \(rule) from \(start) in \(window)")
            }
        }
    }

    /// Series with overrides: moved far from their instance, cancelled, THISANDFUTURE, and
    /// an override without its master.
    static let overrideCases: [[String]] = [
        Support.event(lines: ["DTSTART:20240105T090000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=6"])
            + Support.event(lines: ["RECURRENCE-ID:20240119T090000Z", "DTSTART:20240601T090000Z", "DURATION:PT1H"]),
        Support.event(lines: ["DTSTART:20240105T090000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=6"])
            + Support.event(lines: ["RECURRENCE-ID:20240119T090000Z", "DTSTART:20231201T090000Z", "DURATION:P60D"]),
        Support.event(lines: ["DTSTART:20240105T090000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=6"])
            + Support.event(lines: ["RECURRENCE-ID:20240119T090000Z", "DTSTART:20240119T100000Z", "STATUS:CANCELLED"]),
        Support.event(lines: ["DTSTART:20240105T090000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=6"])
            + Support.event(lines: ["RECURRENCE-ID;RANGE=THISANDFUTURE:20240119T090000Z", "DTSTART:20240301T120000Z"]),
        Support.event(lines: ["DTSTART;TZID=Europe/Berlin:20240105T090000", "RRULE:FREQ=DAILY;UNTIL=20240110T000000Z"])
            + Support.event(lines: ["RECURRENCE-ID;TZID=Europe/Berlin:20240107T090000", "DTSTART:20250101T000000Z"])
            + Support.event(lines: ["RECURRENCE-ID;TZID=Europe/Berlin:20240108T090000", "DTSTART:20240108T090000Z",
                                    "SEQUENCE:2"]),
        Support.event(lines: ["RECURRENCE-ID:20240119T090000Z", "DTSTART:20240120T090000Z", "DURATION:PT1H"]),
    ]

    @Test(arguments: overrideCases.indices)
    func everyWindowSeesTheWholeExpansionWithOverrides(_ index: Int) {
        let lines = Self.overrideCases[index]
        let everything = Support.window("20000101T000000Z", "21000101T000000Z")
        let all = Support.set(lines).expand(in: everything).occurrences
        let calendar = Self.calendar(lines)
        let day: Int64 = 86_400
        var windows: [Range<Int64>] = [everything]
        for occurrence in all {
            let start = occurrence.startInstant ?? occurrence.start.local.secondsSinceEpoch
            windows += [(start - 3 * day)..<(start - day), start..<(start + 1), (start + day)..<(start + 2 * day),
                        (start - 70 * day)..<(start - 50 * day)]
        }
        for window in windows {
            let expected = all.filter { Self.intersects($0, window) }
            let queried = OccurrenceQuery(window: window, floatingZone: FixedOffsetZone.utc)
                .run([OccurrenceQuery.Source(calendar: calendar)]).matches.map(\.occurrence)
            #expect(Support.starts(queried) == Support.starts(expected), "case \(index) in \(window)")
            #expect(queried.map(\.isOverride) == expected.map(\.isOverride), "case \(index) in \(window)")
        }
    }

    @Test(arguments: rules)
    func countedEndBoundIsNeverBeforeTheLastInstance(_ rule: String) throws {
        let text = try #require(RecurrenceRuleText(rule))
        for start in Self.starts {
            let set = Support.set(Support.event(lines: [start, "RRULE:\(rule)"]))
            let dtstart = try #require(set.series).start.value.local
            guard let bound = text.countedEndBound(from: dtstart) else { continue }
            let all = set.expand(in: Support.window("20000101T000000Z", "21000101T000000Z")).occurrences
            let last = try #require(all.last)
            #expect(last.start.local <= bound, "\(rule) from \(start): last \(last.start.local), bound \(bound)")
        }
    }

    @Test func countedEndBoundOnlyForRulesWhosePeriodsCannotBeEmpty() throws {
        let start = LocalDateTime(year: 2024, month: 1, day: 31, hour: 9)!
        let leapDay = LocalDateTime(year: 2024, month: 2, day: 29)!
        func bound(_ rule: String, from start: LocalDateTime) throws -> LocalDateTime? {
            try #require(RecurrenceRuleText(rule)).countedEndBound(from: start)
        }
        #expect(try bound("FREQ=MONTHLY;COUNT=5", from: start) == nil)  // no 31st in some months
        #expect(try bound("FREQ=YEARLY;COUNT=5", from: leapDay) == nil)  // February 29
        #expect(try bound("FREQ=MONTHLY;BYMONTHDAY=30;COUNT=5", from: start) == nil)
        #expect(try bound("FREQ=MONTHLY;BYDAY=1MO;COUNT=5", from: start) == nil)
        #expect(try bound("FREQ=WEEKLY;BYDAY=1MO;COUNT=5", from: start) == nil)
        #expect(try bound("FREQ=DAILY;BYMONTH=2;COUNT=5", from: start) == nil)
        #expect(try bound("FREQ=DAILY;UNTIL=20250101T000000Z", from: start) == nil)
        #expect(try bound("FREQ=DAILY;COUNT=5", from: start) == LocalDateTime(year: 2024, month: 2, day: 7, hour: 9))
    }

    /// A rule whose COUNT ends before the window is skipped without an iterator, unless
    /// counting it from DTSTART would have run out of the step budget: then the expansion
    /// still reports the truncation.
    @Test func skippedCountRuleKeepsTheBudgetTruncation() {
        let set = Support.set(Support.event(lines: ["DTSTART:20000101T000000Z", "RRULE:FREQ=DAILY;COUNT=500"]))
        let window = Support.window("20990101T000000Z", "21000101T000000Z")
        let skipped = set.expand(in: window)
        #expect(skipped.occurrences.isEmpty)
        #expect(skipped.isComplete)
        let small = set.expand(in: window, budget: ExpansionBudget(maximumIteratorSteps: 400))
        #expect(small.occurrences.isEmpty)
        #expect(small.truncation != nil)
    }

    @Test func utf8ValidationAgreesWithTheStandardLibrary() {
        let cases: [[UInt8]] = [
            [], [0x41], [0xC3, 0xA9], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80],
            [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xE2, 0x82],
            [0xF0, 0x9F, 0x98], [0xF0, 0x9F, 0x98, 0x80, 0x41], [0x41, 0xC3],
        ]
        var state: UInt64 = 42
        func random() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var generated = cases
        for _ in 0..<20_000 {
            let length = Int(random() % 8)
            generated.append((0..<length).map { _ in
                // Mostly bytes around the boundaries of the UTF-8 ranges.
                let pool: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                     0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
                return random() % 4 == 0 ? UInt8(truncatingIfNeeded: random()) : pool[Int(random() % UInt64(pool.count))]
            })
        }
        for bytes in generated {
            let expected = String(validating: bytes, as: UTF8.self) != nil
            let actual = bytes.withUnsafeBufferPointer { ASCII.isValidUTF8($0) }
            #expect(actual == expected, "\(bytes.map { String($0, radix: 16) })")
        }
    }
}
