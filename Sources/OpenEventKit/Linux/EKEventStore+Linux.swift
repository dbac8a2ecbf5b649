import Foundation

/// Linux-only additions to ``EKEventStore``: opening a store at a path as a given app, with
/// errors instead of an empty store.
extension EKEventStore {
    /// Opens (creating when missing) the store folder at `storeURL` as the app `manifest`
    /// describes; nil uses the running app's manifest (``AppManifest/main()``).
    ///
    /// Unlike `init()`, problems are thrown: a folder that cannot be opened or created, a
    /// store written by a newer version, a manifest that cannot be found or read.
    public convenience init(storeURL: URL, manifest: AppManifest? = nil) throws {
        try self.init(storeURL: storeURL, manifest: manifest, watchingChanges: true)
    }

    /// ``init(storeURL:manifest:)`` with or without the watcher of other processes' changes
    /// (see ``init(backend:openError:authority:watchingChanges:)``); `ical`'s one-shot
    /// commands leave it out.
    package convenience init(storeURL: URL, manifest: AppManifest?, watchingChanges: Bool) throws {
        let root = storeURL.path
        do {
            _ = try FolderStore.open(at: root)
        } catch {
            throw EKError(.internalFailure, "cannot open the store: \(error.message)", path: error.path ?? root)
        }
        let app = try manifest ?? AppManifest.main()
        self.init(openingRoot: root, manifest: app, watchingChanges: watchingChanges)
    }

    /// The store folder, for messages and tools (`nil` when it could not be opened).
    public var storeURL: URL? {
        backend.map { URL(fileURLWithPath: $0.root, isDirectory: true) }
    }
}

/// What `ical`'s path gate asks of a store it found on a path.
extension EKEventStore {
    /// The kinds of item a collection of this store holds (store.json's record, else
    /// reminders for the default reminder list and events for any other folder), or nil when
    /// the store has no such collection. Reads the folder, not the app's view of it, so it
    /// answers whatever the app's access.
    package func collectionEntityTypes(_ identifier: String) -> [EKEntityType]? {
        guard let backend, let collections = try? backend.collections(),
              collections.contains(where: { $0.identifier == identifier }) else { return nil }
        let mask = Self.entityTypes(of: identifier, metadata: (try? backend.metadata()) ?? nil)
        return EKEntityType.allCases.filter { mask.contains($0.mask) }
    }

    /// The store's default collection for new events, whatever the app's access.
    package var defaultEventCollectionIdentifier: String? {
        (try? backend?.defaultEventCollection()) ?? nil
    }
}

extension EKEventStore {
    /// The folder store behind this event store, for `ical`'s sync and sources commands
    /// (which check the app's access first).
    package var folderStore: FolderStore? { backend }
}
