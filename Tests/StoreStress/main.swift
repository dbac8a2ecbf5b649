// store-stress: commits generated events into a folder store, for the crash-safety and
// concurrency tests in OpenEventKitTests/Backend. Not a product.
//
//     store-stress STORE COUNT BATCHES PREFIX [REWRITE] [DELETE]
//
// Opens (or creates) the store at STORE and commits COUNT new events with UIDs
// `PREFIX-<n>@stress` into its default event collection, in BATCHES batches of equal
// size. The first batch also rewrites the first REWRITE existing items of that
// collection (by file name, expecting the identity read) and deletes the next DELETE.
// Every byte written is deterministic. Prints `committed COUNT` and exits 0, or prints
// the error to stderr and exits 1.
//
//     store-stress --index STORE
//
// Opens the store's query index (building or refreshing it) and prints what the refresh
// changed as `added=N changed=N removed=N unchanged=N notices=N`, for the tests of two
// processes refreshing one index at once.

import ICalKit
import OpenEventKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif

func event(uid: String, summary: String, index: Int) -> Component {
    let day = 1 + index % 28, hour = index % 24
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let event = Component(kind: .event, properties: [
        Property(.uniqueIdentifier, rawValue: uid),
        Property(name: "DTSTAMP", rawValue: "20260101T000000Z"),
        Property(.dateTimeStart, rawValue: "202703\(two(day))T\(two(hour))0000Z"),
        Property(.duration, rawValue: "PT1H"),
        Property(.summary, rawValue: summary),
    ])
    var calendar = Component.calendar(productIdentifier: "-//OpenEventKit//store-stress//EN")
    calendar.addComponent(event)
    return calendar
}

func run(_ arguments: [String]) throws(StoreError) {
    guard arguments.count >= 5, let count = Int(arguments[2]), let batches = Int(arguments[3]), batches > 0 else {
        throw StoreError(.invalidBatch, "usage: store-stress STORE COUNT BATCHES PREFIX [REWRITE] [DELETE]")
    }
    let prefix = arguments[4]
    let rewrite = arguments.count > 5 ? Int(arguments[5]) ?? 0 : 0
    let delete = arguments.count > 6 ? Int(arguments[6]) ?? 0 : 0
    let store = try FolderStore.open(at: arguments[1])
    guard let collection = try store.defaultEventCollection() else {
        throw StoreError(.notFound, "the store has no collection", path: store.root)
    }
    let perBatch = (count + batches - 1) / batches
    var next = 0
    for batchIndex in 0..<batches {
        var batch = Batch()
        if batchIndex == 0 {
            let existing = try store.items(in: collection)
            for (offset, file) in existing.prefix(rewrite + delete).enumerated() {
                if offset < rewrite {
                    guard let item = try store.readItem(in: collection, name: file.name).item, let uid = item.uid else { continue }
                    try batch.put(event(uid: uid, summary: "rewritten by \(prefix)", index: offset), into: collection,
                                  name: file.name, expecting: .identity(item.file.identity))
                } else {
                    try batch.delete(file.name, from: collection, expecting: .identity(file.identity))
                }
            }
        }
        let end = min(count, next + perBatch)
        while next < end {
            try batch.put(event(uid: "\(prefix)-\(next)@stress", summary: "Stress \(prefix) \(next)", index: next),
                          into: collection, expecting: .absent)
            next += 1
        }
        try store.commit(batch)
    }
    print("committed \(count)")
}

func refreshIndex(_ arguments: [String]) throws(StoreError) {
    let exclusive = arguments.count == 4 && arguments[3] == "--exclusive"
    guard arguments.count == 3 || exclusive else { throw StoreError(.invalidBatch, "usage: store-stress --index STORE [--exclusive]") }
    let store = try FolderStore.open(at: arguments[2], create: false)
    let (_, notices, refresh) = try StoreIndex.open(store: store, locking: exclusive ? .exclusiveWhenAlone : .shared)
    for notice in notices {
        let bytes = Array(("store-stress: " + notice + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
    print("added=\(refresh.added) changed=\(refresh.changed) removed=\(refresh.removed) unchanged=\(refresh.unchanged) notices=\(notices.count)")
}

do {
    if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "--index" {
        try refreshIndex(CommandLine.arguments)
    } else {
        try run(CommandLine.arguments)
    }
} catch {
    let bytes = Array((error.detailedDescription() + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}
