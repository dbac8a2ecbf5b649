import Foundation
import ICalKit

/// The store as a sandboxed app reaches it: every read and write is a call to the broker,
/// which answers only what the app's access level lets it see and refuses every change the
/// level does not allow.
///
/// Items the app has read are kept by their file identity, so reading a collection again
/// transfers only the files that changed.
package final class BrokerBackend: StoreBackend, @unchecked Sendable {
    let client: BrokerClient
    private let lock = NSLock()
    /// Items read, by collection and name, with the identity they were read at.
    private var items: [String: [String: StoredItem]] = [:]
    /// What a save looks at several times, as last read, with the client's notice count then:
    /// read again after any notice of the broker (the store or the access changed) and after
    /// this app's own commits.
    private struct Listing {
        var epoch: UInt64 = 0
        var metadata: StoreMetadata??
        var collections: [StoreCollection]?
        var sources: [BrokerRemoteSource]?
    }
    private var listing = Listing()

    /// The value at `part` of the listing, fetched when the listing has none since the last notice.
    private func cached<T>(_ part: WritableKeyPath<Listing, T?>, _ fetch: () throws(StoreError) -> T) throws(StoreError) -> T {
        let epoch = client.epoch
        if let value = lock.withLock({ () -> T? in
            if listing.epoch != epoch { listing = Listing(epoch: epoch) }
            return listing[keyPath: part]
        }) { return value }
        let value = try fetch()
        lock.withLock { if listing.epoch == epoch { listing[keyPath: part] = value } }
        return value
    }

    private func forgetListing() {
        lock.withLock { listing = Listing(epoch: client.epoch) }
    }

    package init(client: BrokerClient) { self.client = client }

    /// A name for messages: the store is the broker's, at a path the app is not told.
    package var root: String { "(the broker's store)" }
    package var folder: FolderStore? { nil }

    private func unexpected(_ reply: BrokerReply) -> StoreError {
        if case .failure(let failure) = reply { return failure.storeError }
        return StoreError(.io, "the broker answered with something else")
    }

    package func metadata() throws(StoreError) -> StoreMetadata? {
        try cached(\.metadata) { () throws(StoreError) -> StoreMetadata? in
            let reply = try client.call(.metadata)
            guard case .metadata(let metadata) = reply else { throw unexpected(reply) }
            return metadata
        }
    }

    package func defaultEventCollection() throws(StoreError) -> String? {
        let reply = try client.call(.defaultEventCollection)
        guard case .collection(let identifier) = reply else { throw unexpected(reply) }
        return identifier
    }

    package func collections() throws(StoreError) -> [StoreCollection] {
        try cached(\.collections) { () throws(StoreError) -> [StoreCollection] in
            let reply = try client.call(.collections)
            guard case .collections(let list) = reply else { throw unexpected(reply) }
            return list.map { StoreCollection(identifier: $0.identifier, title: $0.title, color: $0.color, path: "") }
        }
    }

    package func items(in collection: String) throws(StoreError) -> [ItemFile] {
        let reply = try client.call(.items(collection: collection))
        guard case .items(let files) = reply else { throw unexpected(reply) }
        return files.map { ItemFile(collection: $0.collection, name: $0.name, path: $0.collection + "/" + $0.name, identity: $0.identity) }
    }

    package func readItem(in collection: String, name: String) throws(StoreError) -> ItemReadResult {
        let reply = try client.call(.readItem(collection: collection, name: name))
        guard case .item(let item, let diagnostics) = reply else { throw unexpected(reply) }
        guard let item else { return ItemReadResult(item: nil, diagnostics: diagnostics) }
        let result = Self.parse(item)
        if let stored = result.item {
            lock.withLock { items[collection, default: [:]][stored.file.name] = stored }
        }
        return result
    }

    private static func parse(_ item: BrokerItem) -> ItemReadResult {
        let file = ItemFile(collection: item.file.collection, name: item.file.name,
                            path: item.file.collection + "/" + item.file.name, identity: item.file.identity)
        return FolderStore.parseItem([UInt8](item.bytes), file: file)
    }

    package func readCollection(_ collection: String) throws(StoreError) -> CollectionContents {
        let known = lock.withLock { (items[collection] ?? [:]).mapValues(\.file.identity) }
        let reply = try client.call(.readCollection(collection: collection, known: known))
        guard case .contents(let changed, let unchanged, let diagnostics) = reply else { throw unexpected(reply) }
        var contents = CollectionContents(items: [], diagnostics: diagnostics)
        let kept = lock.withLock { items[collection] ?? [:] }
        var fresh: [String: StoredItem] = [:]
        for name in unchanged {
            if let item = kept[name] { fresh[name] = item }
        }
        for item in changed {
            let result = Self.parse(item)
            contents.diagnostics += result.diagnostics
            if let stored = result.item { fresh[stored.file.name] = stored }
        }
        lock.withLock { items[collection] = fresh }
        contents.items = fresh.keys.sorted().compactMap { fresh[$0] }
        return contents
    }

    package func commit(_ batch: Batch) throws(StoreError) -> CommitResult {
        defer { forgetListing() }
        let reply = try client.call(.commit(batch.operations.map(BrokerOperation.init)))
        guard case .committed(let written) = reply else { throw unexpected(reply) }
        var result = CommitResult(identities: [:])
        for entry in written {
            result.identities[ItemKey(collection: entry.collection, name: entry.name)] = entry.identity
        }
        return result
    }

    /// Collects what `produce` puts and sends it as one batch (the broker's frame limit
    /// bounds it: ``BrokerWire/maximumFrame``).
    package func commit(
        _ batch: Batch,
        memory: MemoryBudget,
        streaming produce: (_ put: (_ collection: String, _ name: String, _ bytes: [UInt8], _ expecting: Batch.Expectation) throws(StoreError) -> Void) throws -> Void,
        committed: ((ItemKey, FileIdentity) -> Void)?
    ) throws -> CommitResult {
        var all = batch
        try produce { collection, name, bytes, expecting throws(StoreError) in
            try all.putBytes(bytes, into: collection, name: name, expecting: expecting)
        }
        let result = try commit(all)
        if let committed { for (key, identity) in result.identities { committed(key, identity) } }
        return result
    }

    /// The remote sources of the calendars the app may see (none when the broker cannot say),
    /// kept as the calendar list is.
    func remoteSources() -> [BrokerRemoteSource] {
        (try? cached(\.sources) { () throws(StoreError) -> [BrokerRemoteSource] in
            let reply = try client.call(.remoteSources)
            guard case .remoteSources(let list) = reply else { throw unexpected(reply) }
            return list
        }) ?? []
    }


    /// The broker's ``BrokerCall/queryToken`` (nil when it cannot give one).
    func queryToken() -> String? {
        guard case .token(let token)? = try? client.call(.queryToken) else { return nil }
        return token
    }

    package func snapshot() throws(StoreError) -> StoreSnapshot {
        let reply = try client.call(.snapshot)
        guard case .snapshot(let collections) = reply else { throw unexpected(reply) }
        return StoreSnapshot(collections: collections.mapValues { StoreSnapshot.Collection(metadata: $0.metadata, items: $0.items) })
    }
}
