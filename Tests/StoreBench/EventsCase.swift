// store-bench events STORE MONTH [RUNS]
//
// `EKEventStore.events(matching:)` of a month alone, warm, in process: what `query` measures
// as ek_warm_ms, without the rest of that case (the index path, the general path), so that
// a profiler sees little else. Over a store whose index is built (run `query` once first):
// - ek_first_ms: the first call (refreshes the index, reads and expands the month's items);
// - ek_warm_ms / ek_warm_min_ms: the median and the least of RUNS (default 9) more calls,
//   each in `warmEvents` (never inlined: `valgrind --tool=callgrind
//   --toggle-collect='*warmEvents*'` counts the warm calls alone, freeing the previous
//   call's events included);
// - packed_ms: the median of RUNS calls of `StoreIndex.cachedPackedListings` for the month
//   (warm), the occurrence cache's rows that the warm call starts from;
// - ek_events: how many events a call returns.
//
// Floating times are read in the process's zone: run with TZ=UTC.

import Foundation
import ICalKit
import OpenEventKit

func eventsCase(_ folder: String, month: String, runs: Int) throws {
    let window = try QueryWindow.at(month, in: FixedOffsetZone.utc, now: LocalDateTime(year: 2026, month: 1, day: 1)!)
    let store = try FolderStore.open(at: folder)
    let ekStore = EKEventStore(backend: store, authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess))
    let predicate = ekStore.predicateForEvents(withStart: Date(timeIntervalSince1970: TimeInterval(window.start)),
                                               end: Date(timeIntervalSince1970: TimeInterval(window.end)), calendars: nil)
    var events: [EKEvent] = []
    let first = milliseconds { events = ekStore.events(matching: predicate) }
    var warm: [Double] = []
    for _ in 0..<max(1, runs) {
        warm.append(warmEvents(ekStore, predicate, &events))
    }
    let index = try StoreIndex.open(store: store).index
    let collections = Set(try store.collections().map(\.identifier))
    var packed: [Double] = []
    for _ in 0..<max(1, runs) {
        packed.append(try milliseconds {
            _ = try index.cachedPackedListings(window: window.start..<window.end, collections: collections, kinds: [.event],
                                               floatingZone: FixedOffsetZone.utc)
        })
    }
    print("case=events ek_first_ms=\(format(first)) ek_warm_ms=\(format(median(warm))) "
          + "ek_warm_min_ms=\(format(warm.min() ?? 0)) packed_ms=\(format(median(packed))) ek_events=\(events.count)")
}

/// One warm call, its time in milliseconds; the previous call's events are freed inside it,
/// as a caller that keeps one month at a time frees them.
@inline(never)
func warmEvents(_ store: EKEventStore, _ predicate: NSPredicate, _ events: inout [EKEvent]) -> Double {
    milliseconds { events = store.events(matching: predicate) }
}
