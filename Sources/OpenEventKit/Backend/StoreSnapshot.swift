/// The identities of every collection and item file at one moment: what a change scan
/// compares. Taking one opens no file (a folder listing and an `lstat` per entry).
package struct StoreSnapshot: Sendable, Hashable {
    /// One collection's state.
    package struct Collection: Sendable, Hashable {
        /// Identities of `displayname` and `color` (nil when missing).
        package var metadata: [FileIdentity?]
        /// Item file name to identity.
        package var items: [String: FileIdentity]
    }

    /// Collection identifier to its state.
    package var collections: [String: Collection]

    /// What changed from `earlier` to this snapshot.
    package func changes(since earlier: StoreSnapshot) -> StoreChanges {
        var changes = StoreChanges()
        for (identifier, now) in collections {
            guard let before = earlier.collections[identifier] else {
                changes.addedCollections.insert(identifier)
                if !now.items.isEmpty { changes.items[identifier] = ItemChanges(added: Set(now.items.keys)) }
                continue
            }
            if before.metadata != now.metadata { changes.changedCollections.insert(identifier) }
            var itemChanges = ItemChanges()
            for (name, identity) in now.items {
                switch before.items[name] {
                case nil: itemChanges.added.insert(name)
                case let old? where old != identity: itemChanges.changed.insert(name)
                default: break
                }
            }
            for name in before.items.keys where now.items[name] == nil { itemChanges.removed.insert(name) }
            if !itemChanges.isEmpty { changes.items[identifier] = itemChanges }
        }
        for (identifier, before) in earlier.collections where collections[identifier] == nil {
            changes.removedCollections.insert(identifier)
            if !before.items.isEmpty { changes.items[identifier] = ItemChanges(removed: Set(before.items.keys)) }
        }
        return changes
    }
}

/// Added, changed and removed item files of one collection.
package struct ItemChanges: Sendable, Hashable {
    package var added: Set<String> = []
    package var changed: Set<String> = []
    package var removed: Set<String> = []
    package var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
}

/// What a change scan found: the store posts `EKEventStoreChanged` when it is not empty.
package struct StoreChanges: Sendable, Hashable {
    package var addedCollections: Set<String> = []
    package var removedCollections: Set<String> = []
    /// Collections whose title or color changed.
    package var changedCollections: Set<String> = []
    /// Item changes per collection identifier.
    package var items: [String: ItemChanges] = [:]
    package var isEmpty: Bool {
        addedCollections.isEmpty && removedCollections.isEmpty && changedCollections.isEmpty && items.isEmpty
    }
}

extension FolderStore {
    /// The identities of every collection and item file now. A collection removed while
    /// the scan runs is left out.
    package func snapshot() throws(StoreError) -> StoreSnapshot {
        var result: [String: StoreSnapshot.Collection] = [:]
        for entry in try StoreSystem.list(root) where entry.isFolder && !entry.name.hasPrefix(".")
            && ItemFileName.isCollectionName(entry.name) {
            let folder = root + "/" + entry.name
            do {
                let metadata = [try StoreSystem.identity(folder + "/displayname"), try StoreSystem.identity(folder + "/color")]
                var items: [String: FileIdentity] = [:]
                for file in try self.items(in: entry.name) { items[file.name] = file.identity }
                result[entry.name] = .init(metadata: metadata, items: items)
            } catch where error.code == .notFound {
                continue
            }
        }
        return StoreSnapshot(collections: result)
    }
}
