// store-bench: timings of the folder store and its query index. Not a product, not a test;
// see "Store and index" in Benchmarks/README.md. Each case prints one line of key=value
// pairs, like ical-bench.
//
//     store-bench commit FOLDER COUNT [ROUNDS]
//
// Commits COUNT new events in one batch into a new store, ROUNDS times (default 3), each
// into a new store FOLDER/commit-<round>, and times `FolderStore.commit` alone. The stores
// are removed only at the end: ext4 slows down creating files right after many were
// deleted (it avoids reusing their inodes), which would land on the next round.
//
//     store-bench index FOLDER COUNT [QUERIES]
//
// Makes FOLDER a store of COUNT generated items (kept for later runs: a folder that has
// them already is reused), then times building its index from nothing, a refresh that
// finds nothing changed, opening the built index (what a new process pays), and QUERIES
// (default 24) month windows of `candidates` for events, and reading and querying the
// candidates of one month against reading and querying every item.
//
//     store-bench open STORE [RUNS]
//
// Opens an existing store RUNS times (default 10) with `FolderStore.open` alone, what every
// process pays before its first read, and prints the median. With RUNS 0 the process only
// starts, so `strace -c` of RUNS 1 and of RUNS 0 differ by the system calls of one open.
//
//     store-bench query STORE MONTH [RUNS]
//
// A month query over an existing store through the index and through EKEventStore, with
// where its time goes (QueryCase.swift; used by Benchmarks/store.sh).
//
//     store-bench events STORE MONTH [RUNS]
//
// `EKEventStore.events(matching:)` of the month alone, warm, in process, for profiling
// (EventsCase.swift).
//
//     store-bench broker FOLDER COUNT [RUNS]
//
// A warm month and a 1,000-event batch save in process and through the broker
// (BrokerCase.swift).

import Foundation
import ICalKit
import OpenEventKit

func warn(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(_ value: Double) -> String { String(format: "%.1f", value) }

// MARK: Generated items

/// Items like the project's benchmark calendars: 45% zoned (with their VTIMEZONE, as a
/// vdir item carries it), 20% UTC, 10% floating, 25% all-day; 30% recurring (half with
/// COUNT, a quarter with UNTIL, a quarter without end); starts from 2020 to 2027.
struct ItemMaker {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    static let berlin = """
        BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r
        TZNAME:CEST\r\nDTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r
        BEGIN:STANDARD\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\nDTSTART:19701025T030000\r
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n
        """.replacingOccurrences(of: "\n", with: "")

    mutating func item(_ index: Int) -> (uid: String, bytes: [UInt8]) {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let uid = "bench-\(index)@store-bench"
        let year = 2020 + next(8), month = 1 + next(12), day = 1 + next(28), hour = 7 + next(12)
        let date = "\(year)\(two(month))\(two(day))", time = "T\(two(hour))0000"
        let form = next(100)
        var lines = ["UID:\(uid)", "DTSTAMP:20260101T000000Z", "SUMMARY:Event \(index)"]
        var timeZone = ""
        switch form {
        case ..<45:
            lines += ["DTSTART;TZID=Europe/Berlin:\(date)\(time)", "DURATION:PT1H"]
            timeZone = Self.berlin
        case ..<65: lines += ["DTSTART:\(date)\(time)Z", "DURATION:PT90M"]
        case ..<75: lines += ["DTSTART:\(date)\(time)", "DURATION:PT2H"]
        default: lines += ["DTSTART;VALUE=DATE:\(date)"]
        }
        if next(100) < 30 {
            switch next(4) {
            case 0, 1: lines.append("RRULE:FREQ=WEEKLY;COUNT=\(10 + next(40))")
            case 2: lines.append("RRULE:FREQ=WEEKLY;UNTIL=\(year + 1)\(two(month))\(two(day))T000000Z")
            default: lines.append("RRULE:FREQ=WEEKLY")
            }
        }
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit//store-bench//EN\r\n" + timeZone
            + "BEGIN:VEVENT\r\n" + lines.map { $0 + "\r\n" }.joined() + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        return (uid, Array(text.utf8))
    }
}

/// Fills a store's default collection with `count` items, 10,000 per batch.
func fill(_ store: FolderStore, count: Int, from first: Int = 0) throws(StoreError) {
    guard let collection = try store.defaultEventCollection() else {
        throw StoreError(.notFound, "the store has no collection", path: store.root)
    }
    var maker = ItemMaker(state: 42 &+ UInt64(first))
    var next = first
    while next < count {
        var batch = Batch()
        for index in next..<min(count, next + 10_000) {
            let item = maker.item(index)
            try batch.putBytes(item.bytes, into: collection, name: ItemFileName.forUID(item.uid), expecting: .absent)
        }
        try store.commit(batch)
        next = min(count, next + 10_000)
    }
}

// MARK: Cases

func commitCase(_ folder: String, count: Int, rounds: Int) throws {
    var times: [Double] = []
    var stores: [String] = []
    defer { for path in stores { try? FileManager.default.removeItem(atPath: path) } }
    for round in 0..<rounds {
        let path = folder + "/commit-\(round)-\(ProcessInfo.processInfo.processIdentifier)"
        stores.append(path)
        let store = try FolderStore.open(at: path)
        guard let collection = try store.defaultEventCollection() else { return }
        var maker = ItemMaker(state: UInt64(round))
        var batch = Batch()
        for index in 0..<count {
            let item = maker.item(index)
            try batch.putBytes(item.bytes, into: collection, name: ItemFileName.forUID(item.uid), expecting: .absent)
        }
        times.append(try milliseconds { try store.commit(batch) })
        warn("store-bench: commit round \(round): \(format(times.last!)) ms")
    }
    print("case=commit count=\(count) rounds=\(rounds) commit_ms=\(format(median(times))) "
          + "min_ms=\(format(times.min() ?? 0)) max_ms=\(format(times.max() ?? 0))")
}

func indexCase(_ folder: String, count: Int, queries: Int) throws {
    let store = try FolderStore.open(at: folder)
    guard let collection = try store.defaultEventCollection() else { return }
    let existing = try store.items(in: collection).count
    if existing < count {
        warn("store-bench: generating \(count - existing) items in \(folder)")
        try fill(store, count: count, from: existing)
    }
    let utc = FixedOffsetZone.utc
    func month(_ year: Int, _ month: Int) -> Range<Int64> {
        let start = LocalDateTime(year: year, month: month, day: 1)!
        let end = month == 12 ? LocalDateTime(year: year + 1, month: 1, day: 1)! : LocalDateTime(year: year, month: month + 1, day: 1)!
        return utc.instant(for: start)..<utc.instant(for: end)
    }

    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: StoreIndex.path(for: store) + suffix) }
    var built: (index: StoreIndex, notices: [String], refresh: IndexRefresh)!
    let buildMilliseconds = try milliseconds { built = try StoreIndex.open(store: store) }
    let index = built.index
    var refresh = IndexRefresh()
    let refreshMilliseconds = try milliseconds { refresh = try index.refresh() }
    precondition(refresh.isEmpty, "nothing changed, yet the refresh changed \(refresh)")
    let openMilliseconds = try milliseconds { _ = try StoreIndex.open(store: store) }
    let size = ["", "-wal"].reduce(0) { total, suffix in
        total + ((try? FileManager.default.attributesOfItem(atPath: StoreIndex.path(for: store) + suffix)[.size] as? Int) ?? 0)
    }

    var queryTimes: [Double] = []
    var candidateCounts: [Int] = []
    for query in 0..<queries {
        let window = month(2020 + (query * 5 / 12) % 8, 1 + (query * 5) % 12)
        var candidates: [ItemFile] = []
        queryTimes.append(try milliseconds { candidates = try index.candidates(window: window, kinds: [.event]) })
        candidateCounts.append(candidates.count)
    }

    // One month end to end: read and query the candidates, against every item.
    let window = month(2026, 3)
    func run(_ files: [ItemFile]) throws -> Int {
        var sources: [OccurrenceQuery.Source] = []
        for file in files {
            if let item = try store.readItem(in: file.collection, name: file.name).item {
                sources.append(.init(calendar: item.calendar, name: file.path))
            }
        }
        return OccurrenceQuery(window: window, floatingZone: utc, kinds: [.event]).run(sources).matches.count
    }
    var indexedMatches = 0, allMatches = 0
    let indexedMilliseconds = try milliseconds { indexedMatches = try run(try index.candidates(window: window, kinds: [.event])) }
    let allMilliseconds = try milliseconds { allMatches = try run(try store.items(in: collection)) }
    precondition(indexedMatches == allMatches, "the index changed the result: \(indexedMatches) against \(allMatches)")

    print("case=index count=\(count) build_ms=\(format(buildMilliseconds)) refresh_ms=\(format(refreshMilliseconds)) "
          + "open_ms=\(format(openMilliseconds)) index_bytes=\(size) "
          + "candidates_ms=\(format(median(queryTimes))) candidates_max_ms=\(format(queryTimes.max() ?? 0)) "
          + "candidates=\(candidateCounts.isEmpty ? 0 : candidateCounts.reduce(0, +) / candidateCounts.count) "
          + "month_indexed_ms=\(format(indexedMilliseconds)) month_all_ms=\(format(allMilliseconds)) matches=\(allMatches)")
}

func openCase(_ folder: String, runs: Int) throws {
    var times: [Double] = []
    for _ in 0..<runs {
        times.append(try milliseconds { _ = try FolderStore.open(at: folder, create: false) })
    }
    print("case=open runs=\(runs) open_ms=\(format(median(times))) "
          + "min_ms=\(format(times.min() ?? 0)) max_ms=\(format(times.max() ?? 0))")
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("commit", 3...4):
        try commitCase(arguments[1], count: Int(arguments[2]) ?? 10_000, rounds: arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3)
    case ("index", 3...4):
        try indexCase(arguments[1], count: Int(arguments[2]) ?? 10_000, queries: arguments.count > 3 ? Int(arguments[3]) ?? 24 : 24)
    case ("open", 2...3):
        try openCase(arguments[1], runs: arguments.count > 2 ? Int(arguments[2]) ?? 10 : 10)
    case ("query", 3...4):
        try queryCase(arguments[1], month: arguments[2], runs: arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5)
    case ("broker", 3...4):
        try brokerCase(arguments[1], count: Int(arguments[2]) ?? 1_000, runs: arguments.count > 3 ? Int(arguments[3]) ?? 9 : 9)
    case ("events", 3...4):
        try eventsCase(arguments[1], month: arguments[2], runs: arguments.count > 3 ? Int(arguments[3]) ?? 9 : 9)
    default:
        warn("usage: store-bench commit FOLDER COUNT [ROUNDS] | store-bench index FOLDER COUNT [QUERIES] | store-bench open STORE [RUNS] | store-bench query STORE MONTH [RUNS] | store-bench events STORE MONTH [RUNS] | store-bench broker FOLDER COUNT [RUNS]")
        exit(2)
    }
} catch {
    warn("store-bench: \(error)")
    exit(1)
}
