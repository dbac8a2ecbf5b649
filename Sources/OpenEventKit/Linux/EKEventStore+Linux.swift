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
        try self.init(storeRoot: storeURL.path, manifest: manifest, watchingChanges: watchingChanges)
    }

    /// ``init(storeURL:manifest:watchingChanges:)`` for the folder at `path`, which is used
    /// as the file URL of that path would give it back (`URL(fileURLWithPath:).path`: an
    /// absolute path as it is; a relative one, with `.` or `..`, or other characters goes
    /// through the URL). `ical` names its store by path: a plain absolute path then makes no
    /// URL, whose first `path` costs about half a million instructions of type-metadata
    /// lookups.
    package convenience init(storePath path: String, manifest: AppManifest?, watchingChanges: Bool) throws {
        let root = Self.isPlainAbsolutePath(path) ? path : URL(fileURLWithPath: path).path
        try self.init(storeRoot: root, manifest: manifest, watchingChanges: watchingChanges)
    }

    private convenience init(storeRoot root: String, manifest: AppManifest?, watchingChanges: Bool) throws {
        let store: FolderStore
        do {
            store = try FolderStore.open(at: root)
        } catch {
            throw EKError(.internalFailure, "cannot open the store: \(error.message)", path: error.path ?? root)
        }
        let app = try manifest ?? AppManifest.main()
        self.init(root: root, opened: store, openError: nil, manifest: app, watchingChanges: watchingChanges)
    }

    /// Whether `URL(fileURLWithPath: path).path` is `path` itself: an absolute path of
    /// letters, digits, `-`, `_`, `.` and `/`, with no empty, `.` or `..` component and no
    /// trailing slash.
    static func isPlainAbsolutePath(_ path: String) -> Bool {
        var previous: UInt8 = 0, dots = 0
        let utf8 = path.utf8
        guard utf8.count > 1, utf8.first == UInt8(ascii: "/"), utf8.last != UInt8(ascii: "/") else { return false }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "/"):
                // The component that ends here: not empty, not `.` or `..`.
                if previous == UInt8(ascii: "/") || (previous == UInt8(ascii: ".") && dots > 0) { return false }
                dots = 0
            case UInt8(ascii: "."):
                if previous == UInt8(ascii: "/") || dots > 0 { dots += 1 }
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                dots = 0
            default:
                return false
            }
            previous = byte
        }
        return !(previous == UInt8(ascii: ".") && dots > 0)
    }

    /// The store folder, for messages and tools (`nil` when it could not be opened, and in an
    /// app `ical run` started, whose store is the broker's and not its to name).
    public var storeURL: URL? {
        backend?.folder.map { URL(fileURLWithPath: $0.root, isDirectory: true) }
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
    package var folderStore: FolderStore? { backend?.folder }
}
