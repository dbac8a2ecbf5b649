import Testing
@testable import ICalKit

/// ``RenderedWeek/chosenRun(_:in:startingAt:)`` finds a later week's chosen entries
/// without going through its heads: whenever it answers, its answer is the entries that
/// ``RenderedSelection/chooses(_:in:startingAt:)`` takes one by one, and it does not answer
/// for a week whose starts go down or whose entry ends before it starts.
@Suite struct RenderedWeekRunTests {
    struct Entry {
        var start: Int64
        var end: Int64
        var kind: UInt8
        var collection: UInt16
        var bytes: [UInt8]
    }

    /// The bytes of a week of two calendars holding `entries`.
    static func week(_ entries: [Entry]) -> [UInt8] {
        RenderedWeekBytes.week(heads: entries.map {
            RenderedWeekBytes.Head(start: $0.start, end: $0.end, kind: $0.kind, collection: $0.collection, length: UInt32($0.bytes.count))
        }, bytes: entries.map(\.bytes))
    }

    static let day: Int64 = 86_400
    /// The week's start: Monday 2026-03-02, 00:00 UTC.
    static let weekStart: Int64 = 1_772_409_600

    @Test(arguments: [UInt64(1), 0x5EED, 0xC0FFEE])
    func theRunIsWhatTheHeadsChoose(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var answered = 0, answeredWithEntries = 0, refusedOutOfOrder = 0, endingInside = 0
        for trial in 0..<3_000 {
            // Entries that intersect the week: some began before it.
            var entries: [Entry] = (0..<Int.random(in: 0...9, using: &random)).map { number in
                let start = Self.weekStart + Int64.random(in: -3 * Self.day..<7 * Self.day, using: &random)
                let length = [0, 0, 1800, 3600, Self.day, 4 * Self.day].randomElement(using: &random)!
                return Entry(start: start, end: max(start + length, Self.weekStart + 1),
                             kind: [1, 1, 1, 2, 4].randomElement(using: &random)!,
                             collection: UInt16.random(in: 0...1, using: &random),
                             bytes: Array(",{\"n\":\(number)}".utf8))
            }
            let ordered = trial % 4 != 3
            if ordered { entries.sort { $0.start < $1.start } }
            // Now and then an entry that ends before it starts (refused by the shortcut).
            if trial % 23 == 0, !entries.isEmpty { entries[0].end = entries[0].start - 60 }
            let bytes = Self.week(entries)
            let week = try #require(RenderedWeek(validating: bytes))

            // Windows that cover the week, end inside it, or start inside it.
            let lower = Self.weekStart - [Self.day, 2 * Self.day, 30 * Self.day, 0, -Self.day].randomElement(using: &random)!
            let upper = Self.weekStart + [7 * Self.day, 8 * Self.day, 40 * Self.day, 3 * Self.day].randomElement(using: &random)!
            let kinds: UInt8 = [7, 7, 7, 1, 3, 5].randomElement(using: &random)!
            let collections: Set<String> = [["home", "work"], ["home", "work"], ["work"], ["home", "elsewhere"]].randomElement(using: &random)!
            var selection = RenderedSelection(window: lower..<upper, kinds: kinds, collections: collections)
            if trial % 5 != 0 {
                // A later week of the window: an earlier one was given first.
                _ = selection.next(try #require(RenderedWeek(validating: Self.week([]))))
            }
            let choice = selection.choice(in: week)

            var chosen: [Int] = []
            var lowest = Int.max, highest = 0
            var heads = week.makeHeads(), number = 0
            let base = try #require(week.bytes(0..<bytes.count).baseAddress)
            while let head = heads.next() {
                if selection.chooses(head, in: choice, startingAt: Self.weekStart) {
                    chosen.append(number)
                    let offset = try #require(head.bytes.baseAddress) - base
                    lowest = min(lowest, offset)
                    highest = max(highest, offset + head.bytes.count)
                }
                number += 1
            }
            guard let run = week.chosenRun(selection, in: choice, startingAt: Self.weekStart) else {
                if !ordered && entries.count > 1 && entries.indices.dropFirst().contains(where: { entries[$0].start < entries[$0 - 1].start }) {
                    refusedOutOfOrder += 1
                }
                continue
            }
            answered += 1
            let inOrder = !entries.indices.dropFirst().contains { entries[$0].start < entries[$0 - 1].start }
            #expect(inOrder, "answered for starts out of order, trial \(trial)")
            #expect(!entries.contains { $0.end < $0.start }, "answered for an entry that ends before it starts, trial \(trial)")
            #expect(chosen == Array(run.entries), "trial \(trial): \(chosen) against \(run.entries)")
            if chosen.isEmpty {
                #expect(run.bytes.isEmpty, "trial \(trial)")
            } else {
                answeredWithEntries += 1
                #expect(run.bytes == lowest..<highest, "trial \(trial)")
                if run.entries.upperBound < entries.count { endingInside += 1 }
            }
        }
        // The shortcut is taken often, with entries, and never for starts out of order.
        #expect(answered > 300, "\(answered)")
        #expect(answeredWithEntries > 200, "\(answeredWithEntries)")
        #expect(refusedOutOfOrder > 100, "\(refusedOutOfOrder)")
        #expect(endingInside > 20, "runs that end before the week's last entry: \(endingInside)")
    }

    /// The writer takes the shortcut in JSON and CSV: a later week's chosen entries are one
    /// run, and the bytes are those of the entries one by one (the first entry of the answer
    /// without its comma; an occurrence that continues from the week before written once;
    /// none that starts after the window).
    @Test(arguments: [true, false])
    func theWriterWritesTheRunAsTheHeadsWould(json: Bool) throws {
        let hour: Int64 = 3600, week = Self.weekStart
        func entry(_ number: Int, _ start: Int64, _ end: Int64, collection: UInt16 = 0) -> Entry {
            Entry(start: start, end: end, kind: 1, collection: collection,
                  bytes: Array((json ? ",{\"n\":\(number)}" : "n\(number)\r\n").utf8))
        }
        let continuing = entry(11, week - Self.day, week + Self.day, collection: 1)
        let first = try #require(RenderedWeek(validating: Self.week([entry(10, week - 7 * Self.day + hour, week - 7 * Self.day + 2 * hour),
                                                                        continuing])))
        let second = try #require(RenderedWeek(validating: Self.week([continuing, entry(12, week + hour, week + 2 * hour),
                                                                         entry(13, week + 2 * Self.day, week + 2 * Self.day, collection: 1),
                                                                         entry(14, week + 3 * Self.day, week + 4 * Self.day),
                                                                         entry(15, week + 5 * Self.day, week + 5 * Self.day + hour)])))
        let selection = RenderedSelection(window: (week - 7 * Self.day)..<(week + 5 * Self.day), kinds: 7, collections: ["home", "work"])
        var later = selection
        _ = later.next(first)
        let run = try #require(second.chosenRun(later, in: later.choice(in: second), startingAt: week), "the shortcut applies")
        #expect(run.entries == 1..<4)
        var writer = OccurrenceFormatter.RenderedWeeksWriter(formatter: OccurrenceFormatter(displayZone: nil), format: json ? .json : .csv,
                                                             selection: selection, flushingAt: 1 << 18, directRunsFrom: 1)
        var out: [UInt8] = []
        _ = writer.write(first, start: week - 7 * Self.day) { out += $0 }
        _ = writer.write(second, start: week) { out += $0 }
        writer.finish { out += $0 }
        let text = String(decoding: out, as: UTF8.self)
        let expected = json ? "{\"n\":10},{\"n\":11},{\"n\":12},{\"n\":13},{\"n\":14}" : "n10\r\nn11\r\nn12\r\nn13\r\nn14\r\n"
        #expect(text.contains(expected), "\(text)")
        #expect(text.components(separatedBy: json ? "\"n\":11" : "n11").count == 2, "the continuing occurrence once")
        #expect(!text.contains(json ? "\"n\":15" : "n15"), "an entry that starts when the window ends")
    }
}
