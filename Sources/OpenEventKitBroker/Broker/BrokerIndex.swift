import Foundation
import OpenEventKit

/// The store's query index in the broker: one per broker, opened on first use and kept open
/// until the broker ends, shared by every session under one lock (the index is refreshed by
/// one session at a time). Its generation changes whenever an item file changed, which is what
/// a sandboxed app's ``BrokerCall/queryToken`` stands on.
///
/// One index for the whole process, never closed while sessions come and go: several
/// indexes of one store opened and closed by sessions on their own threads made the broker
/// crash (heap corruption, about one `make samples` in two) where one long-lived index does not.
package final class BrokerIndex: @unchecked Sendable {
    let store: FolderStore
    private let lock = NSLock()
    private var index: StoreIndex?
    /// Whether a watcher saw a change since the index was last refreshed by every file.
    private var needsFullScan = false

    package init(store: FolderStore) { self.store = store }

    deinit { index?.closeDatabase() }

    /// A watcher saw another program change the store: the next refresh compares every file
    /// (a file rewritten in place does not change its folder's time).
    func noteChange() {
        lock.withLock { needsFullScan = true }
    }

    /// The index's generation after a refresh: by folder times, or every file after a change.
    func generation() throws(StoreError) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        let index: StoreIndex
        if let opened = self.index {
            index = opened
            let scan: StoreIndex.Scan = needsFullScan ? .everyFile : .changedFolders
            needsFullScan = false
            do {
                _ = try index.refresh(scan: scan)
            } catch {
                needsFullScan = true
                throw error
            }
        } else {
            index = try StoreIndex.open(store: store, scan: .everyFile, locking: .shared).index
            self.index = index
            needsFullScan = false
        }
        return try index.generation()
    }

    /// Closes the index (the broker is ending).
    package func close() {
        lock.withLock {
            index?.closeDatabase()
            index = nil
        }
    }
}
