// store-bench query STORE MONTH [RUNS]
//
// The library path of a month query over an existing store (one that `ical import` made,
// say), and where a query's time goes. Benchmarks/store.sh runs it beside `ical query`.
//
// In this process, in order:
// - build_ms: `StoreIndex.open` when the store has no index yet (a full build; the key is
//   left out when an index is there);
// - open_store_ms: `FolderStore.open`;
// - snapshot_ms: `FolderStore.snapshot()`, the change scan's listing (an lstat per item),
//   which every `EKEventStore` takes when it is created;
// - index_open_ms: `StoreIndex.open` of the built index (its refresh lists every item file
//   with an lstat and compares the identities with the rows: what each new process pays);
// - refresh_ms: a second refresh that finds nothing changed;
// - candidates_ms / candidates: `candidates(window:kinds: [.event])` of the month;
// - read_ms: reading and parsing the candidate files;
// - expand_ms / matches: `OccurrenceQuery.run` over them (UTC floating zone);
// - ek_init_ms: `EKEventStore` over the store with full access (includes its snapshot and
//   the change watcher);
// - ek_first_ms: its first `events(matching:)` of the month (opens and refreshes the index);
// - ek_warm_ms: the median of RUNS (default 5) more `events(matching:)` calls on the same
//   store (the in-process warm query: a folder-time refresh, the month's listings from the
//   occurrence cache, the items already read); ek_events: how many;
// - listings_ms: the median of RUNS calls of `cachedListings` for the month (warm), the
//   occurrence cache's part of ek_warm_ms;
// - ek_general_warm_ms: the same calls through the general path (`usesOccurrenceCache`
//   off: the index's candidates read and expanded on each call), median of min(RUNS, 3);
//   the run stops if the two paths give different events (identifier, occurrence date,
//   start, end, title, in order);
// - peak_rss_kib: the process's peak resident memory.
//
// The run stops if the EKEventStore path and the index path find different numbers of
// occurrences. Floating times are read in the process's zone: run with TZ=UTC.

import Foundation
import ICalKit
import OpenEventKit

func queryCase(_ folder: String, month: String, runs: Int) throws {
    var fields: [String] = ["case=query"]
    func record(_ key: String, _ value: Double) { fields.append("\(key)=\(String(format: "%.2f", value))") }
    func record(_ key: String, _ value: Int) { fields.append("\(key)=\(value)") }

    let utc = FixedOffsetZone.utc
    let window = try QueryWindow.at(month, in: utc, now: LocalDateTime(year: 2026, month: 1, day: 1)!)
    let range = window.start..<window.end

    let indexPath = folder + "/.openeventkit/index.sqlite"
    if !FileManager.default.fileExists(atPath: indexPath) {
        let store = try FolderStore.open(at: folder)
        record("build_ms", try milliseconds { _ = try StoreIndex.open(store: store) })
    }

    var store: FolderStore!
    record("open_store_ms", try milliseconds { store = try FolderStore.open(at: folder) })
    let items = try store.collections().reduce(0) { $0 + (try store.items(in: $1.identifier).count) }
    record("items", items)
    record("collections", try store.collections().count)
    record("snapshot_ms", try milliseconds { _ = try store.snapshot() })
    var index: StoreIndex!
    record("index_open_ms", try milliseconds { index = try StoreIndex.open(store: store).index })
    record("refresh_ms", try milliseconds { _ = try index.refresh() })
    var files: [ItemFile] = []
    record("candidates_ms", try milliseconds { files = try index.candidates(window: range, kinds: [.event]) })
    record("candidates", files.count)
    var sources: [OccurrenceQuery.Source] = []
    record("read_ms", try milliseconds {
        for file in files {
            if let item = try store.readItem(in: file.collection, name: file.name).item {
                sources.append(.init(calendar: item.calendar, name: file.path))
            }
        }
    })
    var matches = 0
    record("expand_ms", milliseconds {
        matches = OccurrenceQuery(window: range, floatingZone: utc, kinds: [.event]).run(sources).matches.count
    })
    record("matches", matches)
    sources = []

    var ekStore: EKEventStore!
    record("ek_init_ms", milliseconds {
        ekStore = EKEventStore(backend: store, authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess))
    })
    let start = Date(timeIntervalSince1970: TimeInterval(range.lowerBound))
    let end = Date(timeIntervalSince1970: TimeInterval(range.upperBound))
    var events = 0
    record("ek_first_ms", milliseconds {
        events = ekStore.events(matching: ekStore.predicateForEvents(withStart: start, end: end, calendars: nil)).count
    })
    var warm: [Double] = []
    for _ in 0..<max(1, runs) {
        warm.append(milliseconds {
            events = ekStore.events(matching: ekStore.predicateForEvents(withStart: start, end: end, calendars: nil)).count
        })
    }
    record("ek_warm_ms", median(warm))
    // The part of it that is the occurrence cache's: the month's listings, warm.
    var listingTimes: [Double] = []
    for _ in 0..<max(1, runs) {
        listingTimes.append(try milliseconds {
            _ = try index.cachedListings(window: range, collections: Set(try store.collections().map(\.identifier)), kinds: [.event],
                                         floatingZone: utc)
        })
    }
    record("listings_ms", median(listingTimes))
    record("ek_warm_min_ms", warm.min() ?? 0)
    record("ek_events", events)
    precondition(events == matches, "EKEventStore found \(events) occurrences, the index path \(matches)")

    // The general path (index candidates read and expanded on every call) on the same
    // store, for comparison; both must give the same events in the same order.
    func signature(_ found: [EKEvent]) -> [String] {
        found.map { "\($0.eventIdentifier ?? "") \($0.occurrenceDate?.timeIntervalSince1970 ?? 0) \($0.startDate?.timeIntervalSince1970 ?? 0) \($0.endDate?.timeIntervalSince1970 ?? 0) \($0.title ?? "")" }
    }
    let predicate = ekStore.predicateForEvents(withStart: start, end: end, calendars: nil)
    let fromCache = signature(ekStore.events(matching: predicate))
    ekStore.usesOccurrenceCache = false
    var general: [Double] = []
    var fromGeneral: [String] = []
    for _ in 0..<max(1, min(runs, 3)) {
        general.append(milliseconds { fromGeneral = signature(ekStore.events(matching: predicate)) })
    }
    ekStore.usesOccurrenceCache = true
    record("ek_general_warm_ms", median(general))
    precondition(fromCache == fromGeneral, "the occurrence-cache path and the general path gave different events")

    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    record("peak_rss_kib", Int(usage.ru_maxrss))
    print(fields.joined(separator: " "))
}
