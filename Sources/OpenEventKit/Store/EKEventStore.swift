import Foundation
import ICalKit
import Synchronization

extension Notification.Name {
    /// Posted when the calendar data changes: this store's commits, another store's in the
    /// same process, another process's changes to the store folder, and changes of the app's
    /// access. The object is the store; `userInfo` is nil (Apple does not document its keys).
    /// Treat every fetched event and reminder as stale and fetch again.
    public static let EKEventStoreChanged = Notification.Name("EKEventStoreChangedNotification")
}

/// The callback of ``EKEventStore/enumerateEvents(matching:using:)``: set the pointee to true to stop.
public typealias EKEventSearchCallback = (EKEvent, UnsafeMutablePointer<ObjCBool>) -> Void

/// The completion of the access requests.
public typealias EKEventStoreRequestAccessCompletionHandler = @Sendable (Bool, (any Error)?) -> Void

/// The point of contact for calendar and reminder data: EventKit's event store over a
/// folder of iCalendar files (a vdir collection per calendar, as khal and vdirsyncer use).
///
/// `EKEventStore()` opens the default store (`$OPENEVENTKIT_STORE`, else
/// `$XDG_DATA_HOME/openeventkit`) as the running app, identified by its manifest
/// (see the article "Access levels and the permission manifest"). Every operation passes the
/// store's access check first: without access the store has no calendars and every save
/// fails with `EKError.Code.eventStoreNotAuthorized`; under write-only access it shows one
/// virtual calendar, saves new events and returns nothing from any fetch.
///
/// In an app that `ical run` started in its sandbox, `EKEventStore()` reads and writes
/// through the store's broker instead (the socket in `OPENEVENTKIT_BROKER_FD`), which applies
/// the level again to every call; the app's code is the same (see the article "Access levels
/// and the permission manifest"). ``init(storeURL:manifest:)`` opens a folder itself and so
/// fails there: the sandbox keeps every store folder closed.
///
/// Changes are staged with `commit: false` and written all or nothing by ``commit()``; a
/// commit that fails makes every later commit fail until ``reset()``. Saves with
/// `commit: true` write at once and roll the pending changes back when that fails.
///
/// The store is safe to use from several threads (its state is behind a lock); the items
/// and calendars it returns are not, as with EventKit.
public final class EKEventStore: NSObject, @unchecked Sendable {
    /// The folder store, or the broker in a sandboxed app; nil when the store could not be
    /// opened (then ``openError`` says why).
    let backend: (any StoreBackend)?
    /// Why the store folder could not be opened: every operation then fails or returns nothing.
    let openError: EKError?
    /// The access check every operation passes.
    package let authority: any AccessAuthority
    let lock = NSRecursiveLock()

    /// A unique identifier of this store instance.
    public let eventStoreIdentifier: String = Foundation.UUID().uuidString

    /// A change staged by `commit: false` (or by a `commit: true` save before it commits).
    struct StagedItem {
        /// The new content, nil to delete.
        var content: Component?
        var expecting: Batch.Expectation
    }

    enum StagedCalendarChange {
        case create(identifier: String, title: String, color: String?, types: Set<CollectionEntityType>)
        case update(identifier: String, title: String, color: String?)
        case delete(identifier: String)
    }

    struct State {
        var items: [ItemKey: StagedItem] = [:]
        var itemOrder: [ItemKey] = []
        var calendarChanges: [StagedCalendarChange] = []
        /// Objects saved or removed in the pending batch, to update after the commit.
        var objects: [ObjectIdentifier: EKCalendarItem] = [:]
        var calendarObjects: [ObjectIdentifier: EKCalendar] = [:]
        var failure: EKError?
        /// The store's files when this store last looked, for the change watcher.
        var snapshot: StoreSnapshot?
        /// Diagnostics of item files that could not be read, from the latest fetch.
        var diagnostics: [Diagnostic] = []
        var isEmpty: Bool { items.isEmpty && calendarChanges.isEmpty }
    }

    var state = State()
    /// Whether a background sync started by ``refreshSourcesIfNecessary()`` is still running.
    private let refreshing = Atomic<Bool>(false)
    private var watcher: StoreWatcher?
    /// The query index (`.openeventkit/index.sqlite`), opened on the first range query.
    var queryIndex: StoreIndex?
    /// Whether the index must be refreshed before the next query: after this store's
    /// commits and after the watcher saw another program change the folder.
    var indexIsStale = true
    /// How much memory the store's bulk work may hold besides the item it is reading, so
    /// that it stays the same whatever the number of items in the store: building or
    /// refreshing the query index (files are read a page at a time and their rows staged in
    /// SQLite's temporary tables, which spill to a temporary file, see "QueryIndex"), and
    /// SQLite's page cache while it writes them. `ical` sets it from `--memory`. Linux
    /// addition; the default is ``MemoryBudget/default`` (512 MiB).
    ///
    /// Set it before the first range query: the query index takes it when it is opened.
    public var memoryBudget: MemoryBudget = .default

    /// Whether range queries use the index (package: tests compare both paths).
    package var usesIndex = true
    /// Whether `events(matching:)` answers from the occurrence cache when it can (package:
    /// tests and store-bench compare it with the general path).
    package var usesOccurrenceCache = true
    /// The items the occurrence-cache path of `events(matching:)` has read, per index
    /// generation (EKEventStore+CachedFetch.swift).
    var occurrenceMemo = OccurrenceMemo()
    /// The last window query's answer over the broker (EKEventStore+Fetch.swift).
    var brokerAnswer: BrokerAnswer?
    /// How the query index finds what other programs changed when this store first uses
    /// it (later refreshes after a watcher's notice always compare every file). `ical`'s
    /// one-shot queries trust folder times (``StoreIndex/Scan/changedFolders``).
    package var indexScan: StoreIndex.Scan = .everyFile
    /// How the query index shares its file when this store opens it: ``StoreIndex/Locking/shared``
    /// for a store that is kept open; `ical`'s one-shot queries hold it alone when they can
    /// (``StoreIndex/Locking/exclusiveWhenAlone``).
    package var indexLocking: StoreIndex.Locking = .shared
    /// Whether the next refresh must compare every file (a watcher saw a change, which may
    /// be a file rewritten in place).
    var indexNeedsFullScan = false
    /// Owner addresses compared with attendees for ``EKParticipant/isCurrentUser`` in every
    /// calendar, besides those of ``currentUserAddresses(inCollection:)``.
    var currentUserAddresses: Set<String> = []
    /// `me.json` as last read (the local calendars' user addresses), with its identity.
    var localAddressRecords: (identity: FileIdentity?, addresses: [String]) = (nil, [])

    lazy var localSourceStorage = EKSource(eventStore: self, isVirtual: false)
    lazy var virtualSourceStorage = EKSource(eventStore: self, isVirtual: true)
    /// The remote sources made so far, by their name (one object per source).
    var remoteSourceStorage: [EKSource.Remote: EKSource] = [:]
    /// `sources.json` as last read, with the file's identity then (calendars are listed
    /// often; the file is read again only when it changed).
    var remoteSourceRecords: (identity: FileIdentity?, records: [RemoteSourceRecord]) = (nil, [])
    /// The collection events saved into the write-only virtual calendar go to: the one the
    /// user picked in the calendar chooser (OpenEventKitUI); nil for the default calendar.
    package var writeOnlyTarget: String?

    // MARK: Creating

    /// Opens the default store as the running app (its manifest: ``AppManifest/main()``).
    ///
    /// A store that cannot be opened (no location, an unreadable folder) behaves as a store
    /// with no calendars whose saves fail; ``AppManifest`` and the Linux-only
    /// ``init(storeURL:manifest:)`` report such problems as errors instead.
    public override convenience init() {
        if let client = BrokerClient.shared {
            // Started by `ical run`: the store is the broker's (see the article "Access
            // levels and the permission manifest", and OpenEventKitBroker's "The broker").
            self.init(broker: client)
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let root: String
        do {
            root = try FolderStore.defaultLocation(environment: environment)
        } catch {
            self.init(backend: nil, openError: EKError(.internalFailure, error.message), authority: FixedAccessAuthority(events: .restricted, reminders: .restricted))
            return
        }
        self.init(openingRoot: root, manifest: nil)
    }

    /// A store whose every read and write is a call to the broker on `client` (a sandboxed
    /// app's; `init()` makes one when `ical run` started the app).
    package convenience init(broker client: BrokerClient) {
        self.init(backend: BrokerBackend(client: client), authority: BrokerAuthority(client: client), watchingChanges: false)
        client.observe(self)
    }

    /// Deprecated on Apple's systems: a store restricted to some sources. Here there is one
    /// local source, so this is the same as `init()`.
    public convenience init(sources: [EKSource]) {
        self.init()
    }

    convenience init(openingRoot root: String, manifest: AppManifest?, watchingChanges: Bool = true) {
        var store: FolderStore?
        var problem: EKError?
        do {
            store = try FolderStore.open(at: root)
        } catch {
            problem = EKError(.internalFailure, "cannot open the store: \(error.message)", path: error.path)
        }
        self.init(root: root, opened: store, openError: problem, manifest: manifest, watchingChanges: watchingChanges)
    }

    /// A store over the folder store at `root`, opened already (nil, with `problem`, when it
    /// could not be), as `manifest`'s app (nil: the running app).
    convenience init(root: String, opened store: FolderStore?, openError problem: EKError?, manifest: AppManifest?,
                     watchingChanges: Bool) {
        let box = StoreBox()
        let onChange: @Sendable (EKEntityType, EKAuthorizationStatus) -> Void = { _, _ in box.store?.accessDidChange() }
        let authority: any AccessAuthority
        if let manifest {
            authority = AccessController(manifest: manifest, storeRoot: root, onChange: onChange)
        } else {
            authority = AccessController.forMainApp(storeRoot: root, onChange: onChange)
        }
        self.init(backend: store, openError: problem, authority: authority, watchingChanges: watchingChanges)
        box.store = self
    }

    /// A store over `backend` that asks `authority` before every operation (package: the
    /// trusted helpers and tests use it with full access).
    ///
    /// `watchingChanges: false` leaves out the watcher of other processes' changes (no
    /// inotify watch, no change-scan baseline listing every item, no `EKEventStoreChanged`
    /// for outside changes): for a short-lived process such as one `ical query`, which reads
    /// once and exits. The store still sees every change when it reads (its query index is
    /// refreshed on first use).
    package init(backend: (any StoreBackend)?, openError: EKError? = nil, authority: any AccessAuthority, watchingChanges: Bool = true) {
        self.backend = backend
        self.openError = openError
        self.authority = authority
        super.init()
        if let backend = backend?.folder {
            StoreRegistry.register(self, root: backend.root)
            guard watchingChanges else { return }
            // The change scan's baseline is taken on the watcher's thread, not here: it lists
            // every item, which a short-lived process (one `ical query`) never needs.
            watcher = StoreWatcher(root: backend.root, start: { [weak self] in self?.takeBaseline() }) { [weak self] certain in
                self?.checkForExternalChanges(certain: certain)
            }
        }
    }

    deinit {
        watcher?.stop()
        if let backend = backend?.folder { StoreRegistry.unregister(self, root: backend.root) }
    }

    /// Diagnostics of item files the latest fetch could not read (a corrupt file is skipped
    /// and named here with its line; the rest of its calendar is still read). Linux addition.
    public var readDiagnostics: [Diagnostic] {
        lock.withLock { state.diagnostics }
    }

    // MARK: Access checks

    func level(_ entityType: EKEntityType) -> AccessLevel {
        authority.accessLevel(for: entityType)
    }

    /// Whether a fetch of `entityType` may return data: full access, or write-only access that
    /// the user upgrades at the implicit prompt of the first fetch (TN3153).
    func mayFetch(_ entityType: EKEntityType) -> Bool {
        switch level(entityType) {
        case .full: return backend != nil
        case .none: return false
        case .writeOnly: return authority.fetchAttemptedUnderWriteOnly(entityType) == .full && backend != nil
        }
    }

    func notAuthorized(_ entityType: EKEntityType, _ what: String) -> EKError {
        let status = authority.authorizationStatus(for: entityType)
        let kind = entityType == .event ? "events" : "reminders"
        return EKError(.eventStoreNotAuthorized, "\(what) needs access to \(kind); the app's status is \(status)")
    }

    func requireBackend() throws(EKError) -> any StoreBackend {
        guard let backend else { throw openError ?? EKError(.internalFailure, "the store could not be opened") }
        return backend
    }

    // MARK: Reading items (with the pending batch applied)

    /// The item at `key` as this store sees it: the pending batch's version if it has one.
    func readItem(_ key: ItemKey) -> ItemOrigin? {
        if let staged = state.items[key] {
            return staged.content.map { ItemOrigin(key: key, identity: stagedIdentity(staged), calendar: $0) }
        }
        guard let backend, let result = try? backend.readItem(in: key.collection, name: key.name), let item = result.item else { return nil }
        return ItemOrigin(key: key, identity: item.file.identity, calendar: item.calendar)
    }

    private func stagedIdentity(_ staged: StagedItem) -> FileIdentity? {
        if case .identity(let identity) = staged.expecting { return identity }
        return nil
    }

    /// Every item of a collection, with the pending batch applied; unreadable files are
    /// skipped and their diagnostics kept in ``readDiagnostics``.
    func readItems(in collection: String) -> [ItemOrigin] {
        var result: [ItemOrigin] = []
        var seen = Set<ItemKey>()
        if let backend, !isStagedNew(collection), let contents = try? backend.readCollection(collection) {
            state.diagnostics += contents.diagnostics
            for item in contents.items {
                let key = ItemKey(collection: collection, name: item.file.name)
                seen.insert(key)
                if let staged = state.items[key] {
                    if let content = staged.content { result.append(ItemOrigin(key: key, identity: stagedIdentity(staged), calendar: content)) }
                } else {
                    result.append(ItemOrigin(key: key, identity: item.file.identity, calendar: item.calendar))
                }
            }
        }
        for key in state.itemOrder where key.collection == collection && !seen.contains(key) {
            if let staged = state.items[key], let content = staged.content {
                result.append(ItemOrigin(key: key, identity: stagedIdentity(staged), calendar: content))
            }
        }
        return result
    }

    private func isStagedNew(_ collection: String) -> Bool {
        state.calendarChanges.contains { if case .create(collection, _, _, _) = $0 { return true } else { return false } }
    }

    // MARK: Staging and committing

    /// Stages a new content for an item file (nil deletes it), keeping the expectation of the
    /// first change to that file in the batch.
    func stage(_ key: ItemKey, content: Component?, expecting: Batch.Expectation) {
        if var existing = state.items[key] {
            existing.content = content
            state.items[key] = existing
        } else {
            state.items[key] = StagedItem(content: content, expecting: expecting)
            state.itemOrder.append(key)
        }
    }

    /// Runs a change under the lock: checks the poisoned-batch rule first, stages, and when
    /// `commit` is true commits at once, rolling the pending changes back if that fails.
    func performChange(commit: Bool, _ change: () throws(EKError) -> Void) throws(EKError) {
        lock.lock()
        defer { lock.unlock() }
        if let failure = state.failure { throw failure }
        let before = state
        do {
            try change()
        } catch {
            state = before
            throw error
        }
        guard commit else { return }
        do {
            try commitLocked()
        } catch {
            // Apple's rule since the iOS 16 SDK: a failed commit: true rolls back the pending changes.
            state = State(snapshot: before.snapshot)
            throw error
        }
    }

    /// Writes every pending change, all or nothing. Succeeds when nothing is pending. When it
    /// fails, nothing is written and this and every later commit fail until ``reset()``.
    public func commit() throws {
        lock.lock()
        defer { lock.unlock() }
        if let failure = state.failure { throw failure }
        do {
            try commitLocked()
        } catch {
            state.failure = error
            throw error
        }
    }

    private func commitLocked() throws(EKError) {
        guard !state.isEmpty else { return }
        let backend = try requireBackend()
        var batch = Batch()
        do {
            for change in state.calendarChanges {
                switch change {
                case let .create(identifier, title, color, types):
                    try batch.createCollection(identifier, title: title, color: color)
                    try batch.setEntityTypes(types, of: identifier)
                case let .update(identifier, title, color):
                    try batch.updateCollection(identifier, title: title, color: color)
                case let .delete(identifier):
                    try batch.deleteCollection(identifier)
                }
            }
            for key in state.itemOrder {
                guard let staged = state.items[key] else { continue }
                if let content = staged.content {
                    try batch.put(content, into: key.collection, name: key.name, expecting: staged.expecting)
                } else if staged.expecting != .absent {
                    try batch.delete(key.name, from: key.collection, expecting: staged.expecting)
                }
            }
        } catch {
            throw EKError(storeError: error)
        }
        let result: CommitResult
        do {
            result = try backend.commit(batch)
        } catch {
            throw EKError(storeError: error)
        }
        for object in state.objects.values {
            guard var origin = object.origin else { continue }
            if let identity = result.identities[origin.key] {
                origin.identity = identity
                object.origin = origin
            }
        }
        for calendar in state.calendarObjects.values {
            calendar.markSaved(title: calendar.titleValue, color: calendar.colorValue)
        }
        let snapshot = state.snapshot.map { patched($0, after: state, result: result, backend: backend) }
        state = State(snapshot: snapshot)
        indexIsStale = true
        postChanged(alsoToOthers: true)
    }

    /// The change scan's baseline after this store's own commit: the files it wrote and
    /// removed, so the scan does not report them as another program's (and no listing of
    /// the whole folder is needed).
    func patched(_ snapshot: StoreSnapshot, after committed: State, result: CommitResult, backend: any StoreBackend) -> StoreSnapshot {
        var snapshot = snapshot
        func metadata(_ identifier: String) -> [FileIdentity?] {
            let folder = backend.root + "/" + identifier
            return [(try? StoreSystem.identity(folder + "/displayname")) ?? nil, (try? StoreSystem.identity(folder + "/color")) ?? nil]
        }
        for change in committed.calendarChanges {
            switch change {
            case .create(let identifier, _, _, _):
                snapshot.collections[identifier] = StoreSnapshot.Collection(metadata: metadata(identifier), items: [:])
            case .update(let identifier, _, _):
                snapshot.collections[identifier]?.metadata = metadata(identifier)
            case .delete(let identifier):
                snapshot.collections[identifier] = nil
            }
        }
        for key in committed.itemOrder {
            guard let staged = committed.items[key] else { continue }
            snapshot.collections[key.collection]?.items[key.name] = staged.content == nil ? nil : result.identities[key]
        }
        return snapshot
    }

    /// Forgets every pending change and a failed commit, as a new store would.
    ///
    /// EventKit also invalidates every object fetched through the store; here such objects
    /// stay usable, and ``EKObject/refresh()`` brings them up to date.
    public func reset() {
        lock.withLock {
            let snapshot = state.snapshot
            state = State(snapshot: snapshot)
        }
    }

    /// Re-reads the store folder and posts ``Foundation/NSNotification/Name/EKEventStoreChanged``
    /// when another program changed it. Objects already fetched need ``EKObject/refresh()``.
    ///
    /// When the store mirrors remote sources (`ical sources add`) and the app has full
    /// access, it also starts a sync of them in the background, as `ical sync` does with the
    /// default conflict policy (keep both) and the default limits: a server that does not
    /// begin to answer within 10 minutes, or whose transfer stalls below 1 KiB/s for a
    /// minute, fails its sync, and the whole sync ends after at most
    /// ``EKEventStore/backgroundSyncTimeLimit`` seconds. A source that needs a password
    /// without a `--password-command` is left for `ical sync` to ask. The call returns at
    /// once, and starts no second sync while one is running; the notification is posted when
    /// the sync changed something.
    public func refreshSourcesIfNecessary() {
        checkForExternalChanges()
        guard let backend = backend?.folder, level(.event) == .full || level(.reminder) == .full,
              let sources = try? RemoteSourceFiles(storeRoot: backend.root).sources(), !sources.isEmpty,
              refreshing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let manager = RemoteSourceManager(store: backend)
        var limits = HTTPFunnel.Limits()
        limits.deadline = Deadline(seconds: Self.backgroundSyncTimeLimit)
        Thread.detachNewThread { [weak self, limits] in
            let reports = try? manager.sync([], policy: .keepBoth, limits: limits) { record in
                guard let command = record.passwordCommand else {
                    if record.user == nil { return nil }
                    throw RemoteError(.invalidArgument, "a password is needed: sync it with ical sync")
                }
                return try RemoteSourceManager.runPasswordCommand(command, deadline: limits.deadline)
            }
            self?.refreshing.store(false, ordering: .releasing)
            if let reports, reports.contains(where: { $0.calendars.contains { $0.down > 0 } }) {
                self?.checkForExternalChanges()
            }
        }
    }

    /// The most a background sync started by ``refreshSourcesIfNecessary()`` may take, in
    /// seconds (30 minutes, as `ical sync`'s default `--timeout`).
    public static let backgroundSyncTimeLimit: Double = 30 * 60

    // MARK: Change notifications

    func postChanged(alsoToOthers: Bool) {
        NotificationCenter.default.post(name: .EKEventStoreChanged, object: self)
        guard alsoToOthers, let backend = backend?.folder else { return }
        for other in StoreRegistry.stores(root: backend.root) where other !== self {
            other.checkForExternalChanges()
        }
    }

    func accessDidChange() {
        NotificationCenter.default.post(name: .EKEventStoreChanged, object: self)
    }

    /// Records the folder's state as the baseline of later change scans, unless a scan did.
    func takeBaseline() {
        guard let backend, let snapshot = try? backend.snapshot() else { return }
        lock.withLock { if state.snapshot == nil { state.snapshot = snapshot } }
    }

    /// Scans the folder; posts the notification when anything changed since the last look.
    ///
    /// - Parameter certain: the watcher knows something changed (since before the baseline was
    ///   taken): post even when the scan finds no difference.
    func checkForExternalChanges(certain: Bool = false) {
        guard let backend else { return }
        let changed: Bool = lock.withLock {
            guard let earlier = state.snapshot, let scan = try? backend.scanChanges(since: earlier) else {
                state.snapshot = try? backend.snapshot()
                if certain { indexIsStale = true; indexNeedsFullScan = true }
                return certain
            }
            if certain {
                state.snapshot = scan.snapshot
                indexIsStale = true
                indexNeedsFullScan = true
                return true
            }
            state.snapshot = scan.snapshot
            if !scan.changes.isEmpty { indexIsStale = true; indexNeedsFullScan = true }
            return !scan.changes.isEmpty
        }
        if changed { NotificationCenter.default.post(name: .EKEventStoreChanged, object: self) }
    }
}

/// Lets the access controller's change callback reach the store created after it.
private final class StoreBox: @unchecked Sendable {
    weak var store: EKEventStore?
}

/// The live stores of the process by store folder, so a commit in one tells the others.
///
/// Entries are matched by identity under the lock; weak references are only loaded outside
/// it. (Loading one makes a strong reference; if that becomes the last one, releasing it
/// runs the store's `deinit`, which unregisters and takes the lock again.) Every store
/// unregisters in its `deinit`, so no entry outlives its store.
enum StoreRegistry {
    private struct Entry: @unchecked Sendable {
        let identifier: ObjectIdentifier
        weak var store: EKEventStore?
    }
    private static let stores = Mutex<[String: [Entry]]>([:])

    static func register(_ store: EKEventStore, root: String) {
        let entry = Entry(identifier: ObjectIdentifier(store), store: store)
        stores.withLock { $0[root, default: []].append(entry) }
    }

    static func unregister(_ store: EKEventStore, root: String) {
        let identifier = ObjectIdentifier(store)
        stores.withLock { $0[root]?.removeAll { $0.identifier == identifier } }
    }

    static func stores(root: String) -> [EKEventStore] {
        let entries = stores.withLock { $0[root] ?? [] }
        return entries.compactMap(\.store)
    }
}

extension EKError {
    /// An EventKit error for a store failure: the message and the file, with the code that
    /// fits (a conflict with a change on disk is an internal failure in EventKit's terms).
    init(storeError error: StoreError) {
        let code: Code
        switch error.code {
        case .notFound: code = .noCalendar
        default: code = .internalFailure
        }
        self.init(code, error.message, path: error.path)
    }
}
