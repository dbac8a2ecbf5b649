import ICalKit

/// What an ``EKEventStore`` reads and writes through: the store folder itself
/// (``FolderStore``, in a trusted process) or the broker (``BrokerBackend``, in an app that
/// `ical run` started in a sandbox, which cannot open the folder).
///
/// The event store's own logic (staging, spans, commits all or nothing, change scans) is
/// the same over both; the access level is enforced by the event store for a folder and,
/// for the broker, again by the broker on every request, whatever the app's process does.
package protocol StoreBackend: Sendable {
    /// The store folder for messages (the broker's store, as the broker names it).
    var root: String { get }
    /// The folder store when the store is this process's to open: nil over the broker
    /// (no query index, no remote-source files, no folder watcher in the app's process).
    var folder: FolderStore? { get }
    /// `.openeventkit/store.json`, nil when missing.
    func metadata() throws(StoreError) -> StoreMetadata?
    /// The collection new events go to, nil when there is none.
    func defaultEventCollection() throws(StoreError) -> String?
    /// Every collection, sorted by identifier.
    func collections() throws(StoreError) -> [StoreCollection]
    /// The item files of a collection with their identities, sorted by name.
    func items(in collection: String) throws(StoreError) -> [ItemFile]
    /// One item (nil with a diagnostic when it cannot be read; throws when it is gone).
    func readItem(in collection: String, name: String) throws(StoreError) -> ItemReadResult
    /// Every item of a collection.
    func readCollection(_ collection: String) throws(StoreError) -> CollectionContents
    /// Writes a batch, all or nothing.
    func commit(_ batch: Batch) throws(StoreError) -> CommitResult
    /// Writes a batch and the items `produce` puts, all or nothing, holding about `memory`
    /// for the batch's bookkeeping whatever its size; `committed` learns the identity of
    /// each item put (see ``FolderStore/commit(_:memory:streaming:committed:)``).
    func commit(
        _ batch: Batch,
        memory: MemoryBudget,
        streaming produce: (_ put: (_ collection: String, _ name: String, _ bytes: [UInt8], _ expecting: Batch.Expectation) throws(StoreError) -> Void) throws -> Void,
        committed: ((ItemKey, FileIdentity) -> Void)?
    ) throws -> CommitResult
    /// The identities of every collection and item file now.
    func snapshot() throws(StoreError) -> StoreSnapshot
}

extension StoreBackend {
    /// ``commit(_:memory:streaming:committed:)`` with the default budget, the identities of
    /// the items put in the result.
    package func commit(
        _ batch: Batch,
        streaming produce: (_ put: (_ collection: String, _ name: String, _ bytes: [UInt8], _ expecting: Batch.Expectation) throws(StoreError) -> Void) throws -> Void
    ) throws -> CommitResult {
        let streamed = CollectedIdentities()
        var result = try commit(batch, memory: .default, streaming: produce) { streamed.all[$0] = $1 }
        result.identities.merge(streamed.all) { _, new in new }
        return result
    }

    /// What changed since `earlier`, and the snapshot now.
    package func scanChanges(since earlier: StoreSnapshot) throws(StoreError) -> (changes: StoreChanges, snapshot: StoreSnapshot) {
        let now = try snapshot()
        return (now.changes(since: earlier), now)
    }
}

extension FolderStore: StoreBackend {
    package var folder: FolderStore? { self }

    package func readItem(in collection: String, name: String) throws(StoreError) -> ItemReadResult {
        try readItem(in: collection, name: name, touchingAccessTime: true)
    }
}

/// The identities a streamed commit reports, collected.
private final class CollectedIdentities {
    var all: [ItemKey: FileIdentity] = [:]
}
