import Testing
import ICalKit

/// Budgets: no rule hangs or exhausts memory, and truncation is reported.
@Suite struct RecurrenceBudgetTests {
    typealias Support = RecurrenceTestSupport

    static func time(_ body: () -> Void) -> Swift.Duration {
        let clock = ContinuousClock()
        let start = clock.now
        body()
        return clock.now - start
    }

    @Test func secondlyWithoutEndStopsAtTheOccurrenceBudget() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240101T000000Z", "RRULE:FREQ=SECONDLY"]))
        var expansion = Expansion(occurrences: [], truncation: nil)
        let elapsed = Self.time {
            expansion = set.expand(in: Support.window("20240601T000000Z", "20240602T000000Z"),
                                   budget: ExpansionBudget(maximumOccurrences: 1000))
        }
        #expect(expansion.occurrences.count == 1000)
        #expect(expansion.truncation == .occurrences)
        #expect(Support.starts(Array(expansion.occurrences.prefix(2))) == ["20240601T000000", "20240601T000001"])
        #expect(elapsed < .milliseconds(1000), "\(elapsed)")  // generous: debug build, shared cores
    }

    @Test func secondlyThatNeverMatchesReturnsQuickly() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240101T000000Z", "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30"]))
        var expansion = Expansion(occurrences: [], truncation: nil)
        let elapsed = Self.time {
            expansion = set.expand(in: Support.window("20240101T000000Z", "20250101T000000Z"))
        }
        #expect(Support.starts(expansion.occurrences) == ["20240101T000000"])  // DTSTART only
        #expect(expansion.truncation == nil)  // the engine skips whole years: the answer is complete
        #expect(elapsed < .milliseconds(1000), "\(elapsed)")  // generous: debug build, shared cores
    }

    @Test func countRuleFarBeforeTheWindowIsTruncatedBySpan() {
        let set = Support.set(Support.event(lines: ["DTSTART:20000101T000000Z", "RRULE:FREQ=MINUTELY;COUNT=100000000"]))
        let expansion = set.expand(in: Support.window("20240101T000000Z", "20240102T000000Z"))
        #expect(expansion.occurrences.isEmpty)
        #expect(expansion.truncation != nil)
    }

    @Test func spanBudgetLimitsLongWindows() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240101T090000Z", "RRULE:FREQ=DAILY"]))
        let expansion = set.expand(in: Support.window("20240101T000000Z", "20300101T000000Z"),
                                   budget: ExpansionBudget(maximumSpan: 30 * 86_400))
        #expect(expansion.truncation == .span)
        #expect((29...32).contains(expansion.occurrences.count))
    }

    @Test func completeExpansionIsNotTruncated() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240101T090000Z", "RRULE:FREQ=DAILY;COUNT=5"]))
        let expansion = set.expand(in: Support.window("20240101T000000Z", "20300101T000000Z"),
                                   budget: ExpansionBudget(maximumOccurrences: 5))
        #expect(expansion.occurrences.count == 5)
        #expect(expansion.isComplete)
    }

    @Test func sequenceIsLazy() {
        let set = Support.set(Support.event(lines: ["DTSTART:19000101T090000Z", "RRULE:FREQ=DAILY"]))
        var iterator = set.occurrences(in: Support.window("19000101T000000Z", "99990101T000000Z")).makeIterator()
        var starts: [String] = []
        for _ in 0..<3 { if let next = iterator.next() { starts.append(next.start.local.iCalendarText) } }
        #expect(starts == ["19000101T090000", "19000102T090000", "19000103T090000"])
        #expect(iterator.truncation == nil)
        let firstThree = Array(set.occurrences(in: Support.window("20240101T000000Z", "20240201T000000Z")).prefix(3))
        #expect(Support.starts(firstThree) == ["20240101T090000", "20240102T090000", "20240103T090000"])
    }

    /// Jumping to the window (the engine starts at the period that holds it, aligned to
    /// INTERVAL from DTSTART's; never with COUNT) gives the same instances as iterating from
    /// DTSTART (2020-01-31 10:30 in Berlin, a Friday).
    @Test(arguments: [
        ("FREQ=SECONDLY;INTERVAL=7", "20200211"), ("FREQ=MINUTELY;INTERVAL=61;BYHOUR=10,11", "20200616"),
        ("FREQ=HOURLY;INTERVAL=7", "20200616"), ("FREQ=HOURLY;INTERVAL=5;BYDAY=MO,TU;BYHOUR=8,9,10,11", "20200615"),
        ("FREQ=MINUTELY;INTERVAL=50;BYMONTHDAY=11", "20200611"), ("FREQ=MINUTELY;INTERVAL=13;BYMINUTE=0,13,26", "20200612"),
        ("FREQ=DAILY;INTERVAL=3", "2024"), ("FREQ=DAILY;BYMONTH=3,4;BYHOUR=8,20", "2024"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", "2024"), ("FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,TU,WE;BYSETPOS=-1", "2024"),
        ("FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=31", "2024"), ("FREQ=MONTHLY;BYDAY=-1FR", "2024"),
        ("FREQ=MONTHLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=3", "2024"), ("FREQ=MONTHLY;INTERVAL=7", "2024"),
        ("FREQ=YEARLY;INTERVAL=3;BYMONTH=3,5", "2024"), ("FREQ=YEARLY;INTERVAL=2;BYWEEKNO=-1;BYDAY=SU;WKST=SU", "2024"),
        ("FREQ=YEARLY;INTERVAL=3;BYYEARDAY=100,-100", "2024"), ("FREQ=YEARLY;INTERVAL=2", "2024"),
    ])
    func jumpingToTheWindowMatchesIteratingFromTheStart(_ rule: String, _ day: String) {
        let set = Support.set(Support.event(lines: ["DTSTART;TZID=Europe/Berlin:20200131T103000", "RRULE:\(rule)"]))
        let window = day.count == 8 ? Support.window("\(day)T060000Z", "\(day)T160000Z")
            : Support.window("20240301T000000Z", "20300101T000000Z")
        let jumped = set.expand(in: window)
        let full = set.expand(in: Support.instant("20200101T000000Z")..<window.upperBound,
                              budget: ExpansionBudget(maximumOccurrences: 10_000_000, maximumIteratorSteps: 100_000_000))
        #expect(jumped.isComplete && full.isComplete)
        let expected = full.occurrences.filter { ($0.startInstant ?? 0) >= window.lowerBound && ($0.startInstant ?? 0) < window.upperBound }
        #expect(Support.starts(jumped.occurrences) == Support.starts(expected))
        #expect(!expected.isEmpty)
    }

    @Test func expansionsRunConcurrently() async {
        let set = Support.set(Support.event(lines: ["DTSTART;TZID=America/New_York:20240101T090000",
                                                    "RRULE:FREQ=HOURLY;BYHOUR=9,12,15", "EXDATE;TZID=America/New_York:20240102T120000"]))
        let window = Support.window("20240101T000000Z", "20240401T000000Z")
        let expected = set.expand(in: window).occurrences
        #expect(expected.count == 3 * 91 - 1)
        let results = await withTaskGroup(of: [Occurrence].self) { group in
            for _ in 0..<8 { group.addTask { set.expand(in: window).occurrences } }
            var all: [[Occurrence]] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 8 && results.allSatisfy { $0 == expected })
    }
}
