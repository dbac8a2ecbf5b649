// store-bench broker FOLDER COUNT [RUNS]
//
// The same calls in process and through the broker, in one run (the issue's bar: within
// 1.5x). FOLDER/broker-<count> is made a store of COUNT generated items (kept for later
// runs), and its index built. Then, with full access:
// - month_inprocess_ms / month_broker_ms: the median of RUNS (default 9) warm calls of
//   `EKEventStore.events(matching:)` for March 2026, by a store over the folder and by a
//   store whose every read is a call to a broker session (BrokerSession, the broker's own
//   code, on the other end of a Unix socket pair, served by its own thread as `ical broker`
//   serves each app; in this process, so that both sides are measured alike);
// - save_inprocess_ms / save_broker_ms: 1,000 new events saved with `commit: false` and one
//   `commit()`, into a new store each, median of 3 rounds;
// - the ratios broker / in process.

import Foundation
import ICalKit
import OpenEventKit
import OpenEventKitBroker

func brokerCase(_ folder: String, count: Int, runs: Int) throws {
    let path = folder + "/broker-\(count)"
    let store = try FolderStore.open(at: path)
    if try store.items(in: store.defaultEventCollection() ?? "calendar").count < count {
        try fill(store, count: count)
    }
    let full = FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess)
    func brokered(_ store: FolderStore) throws -> EKEventStore {
        let (app, broker) = try FrameChannel.pair()
        let session = BrokerSession(store: store, authority: full, channel: broker)
        Thread.detachNewThread { session.serve() }
        return EKEventStore(broker: BrokerClient(channel: app))
    }
    let start = Date(timeIntervalSince1970: 1_772_323_200)   // 2026-03-01 UTC
    let end = Date(timeIntervalSince1970: 1_775_001_600)     // 2026-04-01 UTC

    func warmMonth(_ ek: EKEventStore) -> (ms: Double, events: Int) {
        let predicate = ek.predicateForEvents(withStart: start, end: end, calendars: nil)
        var events = ek.events(matching: predicate)
        _ = ek.events(matching: predicate)
        var times: [Double] = []
        for _ in 0..<max(1, runs) { times.append(milliseconds { events = ek.events(matching: predicate) }) }
        return (median(times), events.count)
    }
    let local = warmMonth(EKEventStore(backend: store, authority: full))
    let remote = warmMonth(try brokered(store))
    guard local.events == remote.events else {
        throw StoreError(.io, "the broker's month has \(remote.events) events, the store's \(local.events)")
    }

    func saveBatch(_ make: (FolderStore) throws -> EKEventStore) throws -> Double {
        var times: [Double] = []
        for round in 0..<3 {
            let target = folder + "/broker-save-\(round)-\(ProcessInfo.processInfo.processIdentifier)"
            defer { try? FileManager.default.removeItem(atPath: target) }
            let ek = try make(try FolderStore.open(at: target))
            guard let calendar = ek.defaultCalendarForNewEvents else { throw StoreError(.notFound, "no calendar") }
            times.append(try milliseconds {
                for index in 0..<1_000 {
                    let event = EKEvent(eventStore: ek)
                    event.title = "Lesson \(index)"
                    event.startDate = start.addingTimeInterval(Double(index) * 3_600)
                    event.endDate = event.startDate.addingTimeInterval(2_700)
                    event.calendar = calendar
                    try ek.save(event, span: .thisEvent, commit: false)
                }
                try ek.commit()
            })
        }
        return median(times)
    }
    let saveLocal = try saveBatch { EKEventStore(backend: $0, authority: full) }
    let saveRemote = try saveBatch { try brokered($0) }
    print("case=broker items=\(count) month_events=\(local.events) month_inprocess_ms=\(format(local.ms)) month_broker_ms=\(format(remote.ms)) "
          + "month_ratio=\(String(format: "%.2f", remote.ms / max(local.ms, 0.001))) save_inprocess_ms=\(format(saveLocal)) "
          + "save_broker_ms=\(format(saveRemote)) save_ratio=\(String(format: "%.2f", saveRemote / max(saveLocal, 0.001)))")
}
