import Dispatch
import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite
import ICalKit
import Synchronization


/// An incremental SQLite index of a ``FolderStore``'s items, so that a range query reads
/// only the item files that can have an occurrence in its window.
///
/// The index lives in `STORE/.openeventkit/index.sqlite` (with SQLite's `-wal` and `-shm`
/// files beside it). It is never the source of truth: every row is computed from an item
/// file and carries that file's ``FileIdentity``, and the whole index can be deleted at any
/// time and is rebuilt from the item files.
///
/// ```swift
/// let (index, notices, _) = try StoreIndex.open(store: store)   // builds or refreshes it
/// notices.forEach { print($0) }
/// _ = try index.refresh()                                        // before each query
/// for file in try index.candidates(window: start..<end, kinds: [.event]) {
///     let item = try store.readItem(in: file.collection, name: file.name)
///     …   // run OccurrenceQuery over the items read
/// }
/// ```
///
/// What it guarantees: for a store that does not change between ``refresh()`` and the
/// reads, running ``OccurrenceQuery`` (with any floating zone of an IANA zone) over the
/// items of ``candidates(window:collections:kinds:)`` gives exactly the matches and
/// diagnostics of running it over every item of those collections: the candidates are a
/// superset of the items with an occurrence in the window, broken files included. See the
/// article "QueryIndex" for the schema and the rules.
///
/// Readers take no lock on the store (the store's `.openeventkit/lock` is for committing
/// writers); SQLite's own locking, in WAL mode with a busy timeout, keeps several
/// processes that refresh and query at once consistent (a one-shot process may hold the
/// file alone instead: ``Locking``). The type is safe to use from several threads.
package final class StoreIndex: Sendable {
    /// The store the index describes.
    package let store: FolderStore

    /// Where the index's SQLite file is: `STORE/.openeventkit/index.sqlite`.
    package var path: String { Self.path(for: store) }

    /// How long a writer waits for another process's write transaction, in seconds.
    static let busyTimeout: Double = 60

    /// The open database, replaced when the file turns out damaged and is rebuilt.
    private struct State {
        /// The connection (GRDB serialises its use).
        var queue: DatabaseQueue
        /// Whether `queue` is an in-memory database.
        var isInMemory: Bool
        /// Notices of rebuilds that happened during a query, reported by the next refresh.
        var notices: [String]
        /// What a refresh or a fill may hold in memory (see ``memoryBudget``).
        var budget: MemoryBudget = .default
    }
    private let state: Mutex<State>

    /// Wraps an opened database; ``open(store:)`` is the way in.
    private init(store: FolderStore, queue: DatabaseQueue, isInMemory: Bool) {
        self.store = store
        self.state = Mutex(State(queue: queue, isInMemory: isInMemory, notices: []))
    }

    /// The memory a refresh and the filling of the occurrence cache may hold, whatever the
    /// store's size: they read item files a page at a time and stage rows in SQLite's
    /// temporary tables rather than in memory (see ``refresh(scan:)``). Set by
    /// ``open(store:scan:locking:budget:)``; ``MemoryBudget/default`` unless given.
    package var memoryBudget: MemoryBudget {
        get { state.withLock { $0.budget } }
        set { state.withLock { $0.budget = newValue } }
    }

    /// Whether the index is kept in memory for this process only, because its file could
    /// not be used (a read-only store).
    package var isInMemory: Bool { state.withLock { $0.isInMemory } }

    /// Closes the database connection (SQLite then checkpoints its write-ahead log and
    /// truncates it to nothing when no other process has the file open), for a process that
    /// leaves the index to its exit instead of releasing it; the index cannot be used after.
    package func closeDatabase() {
        state.withLock { state in try? state.queue.close() }
    }

    /// The index file of a store.
    package static func path(for store: FolderStore) -> String {
        store.metadataFolder + "/index.sqlite"
    }

    // MARK: Opening

    /// Opens a store's index and brings it up to date with ``refresh(scan:)``.
    ///
    /// - A missing index is created and built from every item file.
    /// - An index file that is damaged (not SQLite, truncated, or without the expected
    ///   tables), belongs to another program, or has another format version
    ///   (`PRAGMA user_version`) is deleted and rebuilt, with a notice. That is never an
    ///   error.
    /// - When the file cannot be created or written (a read-only store), the index is kept
    ///   in memory for this process, with a notice; it is built the same way.
    ///
    /// - Parameter budget: the index's ``memoryBudget``.
    /// - Returns: the index; the notices, one sentence each, for the user (empty when the
    ///   index file was used as it was); and what the first refresh changed (after a
    ///   rebuild: every item added).
    /// - Throws: only what reading the store throws (a store folder that cannot be listed).
    package static func open(store: FolderStore, scan: Scan = .everyFile, locking: Locking = .shared,
                             budget: MemoryBudget = .default) throws(StoreError) -> (index: StoreIndex, notices: [String], refresh: IndexRefresh) {
        let (queue, isInMemory, notices) = connect(path: path(for: store), metadataFolder: store.metadataFolder, locking: locking)
        let index = StoreIndex(store: store, queue: queue, isInMemory: isInMemory)
        index.memoryBudget = budget
        let refresh = try index.refresh(scan: scan)
        return (index, notices + refresh.notices, refresh)
    }

    /// How a connection shares the index file with other connections.
    package enum Locking: Sendable, Hashable {
        /// Many connections at once, in any processes: SQLite's write-ahead log with its
        /// index in the shared-memory file `index.sqlite-shm`. Readers never wait for a
        /// writer. For a store kept open (an app's ``EKEventStore``).
        case shared
        /// The file alone while no other connection has it open, else ``shared``: the first
        /// read takes SQLite's exclusive lock without waiting and holds it until the
        /// connection closes, and the log's index is kept in the process's memory. For a
        /// process that opens the index, reads it once and exits (`ical query`).
        ///
        /// The first connection to open a shared-memory file empties it and sizes it again
        /// (a truncate, eight one-byte writes and fresh pages, in every process when
        /// processes take turns): most of a small query's time once the file system has
        /// written the pages out. Held alone, the file is not touched. Another process
        /// that opens the index meanwhile waits (up to the busy timeout) until this
        /// connection closes; when another connection has it open already, the attempt
        /// fails at once and the connection is opened ``shared``.
        case exclusiveWhenAlone
    }

    /// SQLite's page caches, in a one-shot process (``Locking/exclusiveWhenAlone``), take
    /// their pages one by one rather than laying out room for twenty at once: a warm query
    /// reads all but the first page through the memory map, and the layout wrote into forty
    /// fresh memory pages (twenty 64 KiB slots, and twenty 4 KiB ones for the cache made before
    /// the page size is read). Process-wide, so not for a library in an app; without effect
    /// once the process has opened a database.
    private static let pagesOneByOne: Void = { _ = CSQLiteConfig_allocatePagesOneByOne() }()

    /// The outcome of one attempt to open the index file.
    private enum Attempt {
        /// The file is an index of this format, open.
        case ready(DatabaseQueue)
        /// The file is not a usable index: delete it and build a new one.
        case damaged(String)
        /// The file cannot be used now (permissions, a read-only file system, locked).
        case unavailable(String)
    }

    /// Opens the file, rebuilding it when damaged and falling back to memory when it
    /// cannot be used.
    private static func connect(path: String, metadataFolder: String, locking: Locking) -> (DatabaseQueue, isInMemory: Bool, notices: [String]) {
        var notices: [String] = []
        func memory(_ reason: String) -> (DatabaseQueue, isInMemory: Bool, notices: [String]) {
            notices.append("the query index \(path) cannot be used (\(reason)); it is kept in memory for this process")
            return (memoryDatabase(), true, notices)
        }
        do {
            try StoreSystem.makeFolder(metadataFolder)
        } catch {
            return memory(error.message)
        }
        if locking == .exclusiveWhenAlone {
            _ = pagesOneByOne
            // Held alone or not at all: any failure (another connection has the file, or the
            // file is damaged or read-only) is left to the shared attempt to classify.
            if case .ready(let queue) = attempt(path, exclusive: true) { return (queue, false, notices) }
        }
        switch attempt(path) {
        case .ready(let queue):
            return (queue, false, notices)
        case .unavailable(let reason):
            return memory(reason)
        case .damaged(let reason):
            notices.append("the query index \(path) \(reason); it was deleted and is built again")
            do {
                try removeFiles(path)
            } catch {
                return memory(error.message)
            }
            switch attempt(path) {
            case .ready(let queue): return (queue, false, notices)
            case .damaged(let reason), .unavailable(let reason): return memory(reason)
            }
        }
    }

    /// WAL mode, a busy timeout for writers, and a label for SQLite's traces; `exclusive`:
    /// ``Locking/exclusiveWhenAlone``'s locking mode, without waiting for a lock.
    private static func configuration(exclusive: Bool = false) -> Configuration {
        var configuration = Configuration()
        // WAL is set here rather than with GRDB's `.wal`, which makes the WAL file non-empty
        // on every open (a table created and dropped, with its fsyncs): for a pool's
        // readers, which this single connection is not. A query that writes nothing then
        // syncs nothing.
        configuration.busyMode = exclusive ? .immediateError : .timeout(busyTimeout)
        // No table of the index refers to another (`IndexSchema.objects`): no statement to
        // turn foreign keys on at every open.
        configuration.foreignKeysEnabled = false
        configuration.label = "OpenEventKit.StoreIndex"
        configuration.prepareDatabase { db in
            // GRDB's statement authorizer reports what each statement reads and writes, for
            // database observation, its schema cache and the suspension of apps in the
            // background; the index uses none of those (no observers, no schema
            // introspection, no suspension), and SQLite calls the authorizer for every
            // column a statement names when it prepares it: 12% of the instructions of a
            // warm query of a small store. It goes before any statement is prepared (a
            // change of authorizer expires the prepared ones).
            sqlite3_set_authorizer(db.sqliteConnection, nil, nil)
            // Before the first read: set later, the log's index would already be shared.
            if exclusive { try db.makeStatement(sql: "PRAGMA locking_mode = EXCLUSIVE").execute() }
            try enableWriteAheadLog(db, waiting: !exclusive)
            // The log and its shared-memory index are kept beside the index between
            // processes rather than created and deleted by each (a warm query made two files,
            // sized one with eight writes, and removed both: file creation is most of a small
            // query's system time on a busy file system). The last connection to close still
            // checkpoints the log and, with a size limit set, truncates it to nothing, so
            // the next process has no log to read back.
            var persist: Int32 = 1
            _ = sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &persist)
            try db.makeStatement(sql: "PRAGMA journal_size_limit = 67108864").execute()
            try db.makeStatement(sql: "PRAGMA synchronous = NORMAL").execute()   // rebuildable: no fsync per transaction
            // Pages are read through a memory map rather than copied in by a system call
            // each: a month read from the occurrence cache touches hundreds of pages.
            try db.makeStatement(sql: "PRAGMA mmap_size = \(mappedBytes)").execute()
        }
        return configuration
    }

    /// Puts a new index file in WAL mode (a file already in it, or an in-memory index, is
    /// left as it is). Changing the mode takes an exclusive lock for which SQLite does not
    /// wait, so two processes creating the index at once retry, for up to ``busyTimeout``
    /// (unless not `waiting`).
    private static func enableWriteAheadLog(_ db: Database, waiting: Bool) throws {
        let current = try String.fetchOne(db.makeStatement(sql: "PRAGMA journal_mode"))
        guard current != "wal" && current != "memory" else { return }
        // A new file (WAL mode is the first thing asked of one) gets its page size here,
        // before its first page is written; SQLite ignores this for a file that has pages.
        try db.execute(sql: "PRAGMA page_size = \(IndexSchema.pageSize)")
        let deadline = ContinuousClock.now + .seconds(busyTimeout)
        while true {
            do {
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                    throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "the index cannot use a write-ahead log")
                }
                return
            } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_BUSY && waiting && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Opens the file (creating it when missing), gives an empty database the schema,
    /// and checks the schema of one that has it.
    private static func attempt(_ path: String, exclusive: Bool = false) -> Attempt {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration(exclusive: exclusive))
        } catch {
            return classify(error)
        }
        do {
            // One read for a file that has the schema (every open but the first).
            let checked: (empty: Bool, problem: String?) = try queue.reading { db in
                try IndexSchema.isEmpty(db) ? (true, nil) : (false, try IndexSchema.problem(in: db))
            }
            var problem = checked.problem
            if checked.empty {
                try queue.writeWithoutTransaction { try IndexSchema.prepare($0) }
                problem = try queue.reading { try IndexSchema.problem(in: $0) }
            }
            if let problem {
                try? queue.close()
                return .damaged(problem)
            }
            return .ready(queue)
        } catch {
            try? queue.close()
            return classify(error)
        }
    }

    /// Whether an SQLite error says the file is damaged (rebuild it) or only unusable now.
    private static func classify(_ error: any Error) -> Attempt {
        guard let error = error as? DatabaseError else { return .unavailable("\(error)") }
        if isDamage(error) { return .damaged(describeDamage(error)) }
        return .unavailable(error.message ?? "\(error.resultCode)")
    }

    /// Result codes that mean the file's contents are not a usable index.
    private static func isDamage(_ error: DatabaseError) -> Bool {
        switch error.resultCode.primaryResultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT, .SQLITE_ERROR, .SQLITE_SCHEMA, .SQLITE_MISMATCH, .SQLITE_RANGE:
            return true
        default:
            return false
        }
    }

    /// The notice's words for a damaged file.
    private static func describeDamage(_ error: DatabaseError) -> String {
        switch error.resultCode.primaryResultCode {
        case .SQLITE_NOTADB: return "is not an SQLite database"
        case .SQLITE_CORRUPT: return "is damaged (\(error.message ?? "malformed"))"
        default: return "cannot be read (\(error.message ?? "\(error.resultCode)"))"
        }
    }

    /// A new in-memory index with the schema.
    private static func memoryDatabase() -> DatabaseQueue {
        // An in-memory database cannot fail to open or to take the schema.
        let queue = try! DatabaseQueue(configuration: configuration())
        try! queue.writeWithoutTransaction { try IndexSchema.prepare($0) }
        return queue
    }

    /// Removes an index file, SQLite's files beside it and the stored renderings.
    private static func removeFiles(_ path: String) throws(StoreError) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try StoreSystem.remove(path + suffix) }
        try StoreSystem.removeTree(renderingsFolder(forIndexAt: path))
    }

    /// Replaces a database found damaged while in use with a new one (or memory), keeping
    /// a notice for the next refresh.
    private func rebuild(after error: DatabaseError, damaged queue: DatabaseQueue) {
        state.withLock { state in
            guard state.queue === queue else { return }   // another thread rebuilt it already
            try? queue.close()
            if state.isInMemory {
                state.queue = Self.memoryDatabase()
                return
            }
            let path = self.path
            state.notices.append("the query index \(path) \(Self.describeDamage(error)); it was deleted and is built again")
            try? Self.removeFiles(path)
            if case .ready(let fresh) = Self.attempt(path) {
                state.queue = fresh
            } else {
                state.notices.append("the query index \(path) cannot be created again; it is kept in memory for this process")
                state.queue = Self.memoryDatabase()
                state.isInMemory = true
            }
        }
    }

    /// Runs an operation on the database; when it fails because the file is damaged, the
    /// file is rebuilt (and, unless the operation is a refresh itself, refreshed from
    /// every item file) and the operation runs once more. Other SQLite failures become
    /// ``StoreError``s with code `io`.
    func withDatabase<Result>(refreshingAfterRebuild: Bool = true,
                                      _ operation: (DatabaseQueue) throws -> Result) throws(StoreError) -> Result {
        var retried = false
        while true {
            let queue = state.withLock { $0.queue }
            do {
                if retried && refreshingAfterRebuild { _ = try refresh(queue, scan: .everyFile) }
                return try operation(queue)
            } catch let error as StoreError {
                throw error
            } catch let error as DatabaseError where Self.isDamage(error) && !retried {
                rebuild(after: error, damaged: queue)
                retried = true
            } catch {
                throw StoreError(.io, "the query index failed: \(error)", path: path, cause: error as? DatabaseError)
            }
        }
    }

    // MARK: Refreshing

    /// How a refresh finds what changed.
    package enum Scan: Sendable, Hashable {
        /// Lists every collection folder and compares every item file's identity with its
        /// row: sees every change, a file rewritten in place included. One `lstat` per item
        /// file (0.2–0.7 s at 100,000 items).
        case everyFile
        /// Lists only the collection folders whose modification or change time moved since
        /// they were last listed, or had not settled then (were less than two seconds old,
        /// so a change in the same clock tick could hide). Creating, removing or renaming a
        /// file in a folder moves its times, so this sees every change made the way the
        /// store, khal, vdirsyncer and editors that save by rename make them; a file
        /// rewritten in place (same name, same inode) is seen by the next ``everyFile``
        /// refresh, or when its folder changes. One `stat` per collection.
        case changedFolders
    }

    /// Brings the index up to date with the item files: lists the collection folders
    /// `scan` asks for, each item file with its identity (no file is opened; a collection
    /// without rows, as in a first build, by name only: its files are all new), reparses
    /// only the files that were added or whose identity changed, and deletes the rows of
    /// removed files and collections, all written in one SQLite transaction (none when
    /// nothing changed). Occurrences cached for the changed items are recomputed in the
    /// same transaction (or the whole cache dropped when more than
    /// ``largestRecomputation`` items changed).
    ///
    /// Files are parsed outside the transaction, on ``FileReaders`` threads and in inode
    /// order (``workSQL``), so a long first build does not hold SQLite's write lock. A row
    /// always describes the bytes it was computed from: its identity is the one read with
    /// them. A file that another program changes
    /// while the refresh runs keeps the row of the version read, and the next refresh
    /// notices its new identity (a folder's times are taken before it is listed, for the
    /// same reason). When two processes refresh at once, each writes its rows in its own
    /// transaction (SQLite serialises them, waiting up to a minute); a row is deleted only
    /// when its file is gone when the transaction runs.
    ///
    /// A file that cannot be used as an item (unreadable, not iCalendar, no VEVENT, VTODO
    /// or VJOURNAL) is recorded as broken with the identity listed, so it is not reparsed
    /// until it changes, and it is a candidate for every query, so the reader's
    /// diagnostics still reach the user.
    ///
    /// - Returns: how many rows were added, changed and removed, and notices of any
    ///   rebuild since the last refresh.
    @discardableResult
    package func refresh(scan: Scan = .everyFile) throws(StoreError) -> IndexRefresh {
        var result = try withDatabase(refreshingAfterRebuild: false) { queue in try refresh(queue, scan: scan) }
        result.notices = state.withLock { state in
            defer { state.notices = [] }
            return state.notices
        } + result.notices
        return result
    }

    /// From this many rows into an empty table on, a refresh writes them before it makes the
    /// span index (see ``refresh(scan:)``).
    static let smallestIndexRebuild = 5_000

    /// At most this many changed items have their cached occurrences recomputed by a
    /// refresh; more drop the whole cache (the next queries fill it again).
    package static let largestRecomputation = 2_000

    /// One row to write.
    struct Entry: Sendable {
        /// The item file.
        var key: ItemKey
        /// The identity of the bytes summarised (for a broken file: the one listed).
        var identity: FileIdentity
        /// Nil for a broken file.
        var summary: ItemSummary?
        /// Whether the index had no row for the file.
        var isNew: Bool
        /// The item read, kept when its cached occurrences are to be recomputed.
        var calendar: Component?
        /// The reader's diagnostics, kept with ``calendar``.
        var readDiagnostics: [Diagnostic] = []
    }

    /// A folder's row.
    private struct FolderRow: Equatable {
        var stamp: FolderStamp
        var settled: Bool
    }

    /// ``refresh()`` on one database; SQLite errors are left for ``withDatabase(_:)``.
    ///
    /// Memory stays within the index's ``memoryBudget`` whatever the store's size: the
    /// listing of the scanned folders goes into a temporary table (SQLite's, which spills to
    /// a temporary file past its page cache) rather than into memory, the files to read are
    /// taken from it in pages of ``pageSize`` in the order of their inode numbers
    /// (``workSQL``), and the rows of each page are staged in a second temporary table; the
    /// one write transaction then copies them into `item`, in key order. Only a small
    /// refresh (at most ``largestRecomputation`` files, with cached occurrences to
    /// recompute) keeps its items in memory.
    private func refresh(_ queue: DatabaseQueue, scan: Scan) throws -> IndexRefresh {
        let started = StoreSystem.now()
        let budget = memoryBudget
        // The collections now, each folder's stamp taken before it is listed.
        var present: [String: FolderStamp] = [:]
        for entry in try StoreSystem.list(store.root)
        where entry.isFolder && !entry.name.hasPrefix(".") && ItemFileName.isCollectionName(entry.name) {
            if let stamp = try StoreSystem.folderStamp(store.root + "/" + entry.name) { present[entry.name] = stamp }
        }
        let (folders, itemCollections, cache) = try queue.reading { db in
            var folders: [String: FolderRow] = [:]
            for row in try Row.fetchAll(db.makeStatement(sql: "SELECT collection, device, inode, modificationSeconds, modificationNanoseconds, changeSeconds, changeNanoseconds, settled FROM folder")) {
                let stamp = FolderStamp(device: UInt64(bitPattern: row[1]), inode: UInt64(bitPattern: row[2]),
                                        modificationSeconds: row[3], modificationNanoseconds: row[4],
                                        changeSeconds: row[5], changeNanoseconds: row[6])
                folders[row[0]] = FolderRow(stamp: stamp, settled: row[7])
            }
            // Every collection with rows, for a full scan (a folder row may be missing
            // only when an earlier refresh failed halfway).
            let itemCollections = scan == .everyFile ? try String.fetchAll(db, sql: "SELECT DISTINCT collection FROM item") : []
            return (folders, itemCollections, try OccurrenceCache.State.read(db, store: store))
        }
        let scanned = present.keys.filter { name in
            scan == .everyFile || folders[name].map { !$0.settled || $0.stamp != present[name] } ?? true
        }.sorted()
        let removedCollections = Set(folders.keys).union(itemCollections).subtracting(present.keys)

        var result = IndexRefresh()
        var folderUpdates: [(String, FolderRow)] = []
        var gone = Set<String>()
        var removals: [ItemKey] = []
        /// Rows in memory: a small refresh whose items' cached occurrences are recomputed.
        var entries: [Entry] = []
        /// Rows staged in `temp.staged`, and how many of them are new and broken.
        var staged = (rows: 0, new: 0, broken: 0)
        var recomputing = false
        var usesScratch = false
        defer {
            if usesScratch {
                try? queue.inDatabase { db in
                    try db.execute(sql: "DROP TABLE IF EXISTS temp.listing; DROP TABLE IF EXISTS temp.work; DROP TABLE IF EXISTS temp.staged")
                    try db.execute(sql: "PRAGMA mmap_size = \(Self.mappedBytes)")
                }
            }
        }
        if !scanned.isEmpty {
            // A build reads the index through SQLite's own cache, within the budget, rather
            // than through the memory map (whose pages would count as the process's memory).
            try queue.inDatabase { db in
                try db.execute(sql: "PRAGMA mmap_size = 0")
                try Self.prepareScratch(db, budget: budget)
            }
            usesScratch = true
            // 1. The listing, into `temp.listing`.
            var withRows = Set<String>()
            for collection in scanned {
                let hasRows = try queue.reading { db in
                    try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE collection = ?)", arguments: [collection]) ?? false
                }
                if hasRows { withRows.insert(collection) }
                guard try listFolder(collection, withIdentities: hasRows, into: queue) else {
                    gone.insert(collection)   // removed since the root was listed
                    continue
                }
                let row = FolderRow(stamp: present[collection]!, settled: present[collection]!.latestChange < started - 2)
                if folders[collection] != row { folderUpdates.append((collection, row)) }
            }
            // 2. What to read, into `temp.work` in inode order: listed files without a row, or
            // whose identity changed.
            let (workCount, unchanged) = try queue.reading { db in
                try db.execute(sql: "CREATE INDEX temp.listing_key ON listing (collection, name)")
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM temp.listing") ?? 0
                try db.execute(sql: Self.workSQL)
                let work = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM temp.work") ?? 0
                return (work, total - work)
            }
            result.unchanged = unchanged
            result.scannedFolders = scanned.count - gone.count
            recomputing = cache.hasWeeks && workCount <= Self.largestRecomputation
            // 3. Read them a page at a time, in inode order, on more threads than cores.
            let pageSize = Self.pageSize(budget)
            var after: Int64 = 0
            while true {
                var last: Int64 = after
                let page: [Job] = try queue.reading { db in
                    try Row.fetchAll(db, sql: Self.workQuery, arguments: [after, pageSize]).map { row in
                        last = row[0]
                        let identity: FileIdentity? = (row[3] as Int64?) == nil ? nil : Self.identity(row, from: 3)
                        return Job(key: ItemKey(collection: row[1], name: row[2]), identity: identity, isNew: row[8])
                    }
                }
                guard !page.isEmpty else { break }
                after = last
                let parsed = try parse(page, keepingItems: recomputing)
                // Rows of files that vanished before they could be read (only files with a
                // row have one to delete).
                if page.contains(where: { !$0.isNew }) {
                    let read = Set(parsed.lazy.filter { !$0.isNew }.map(\.key))
                    removals += page.lazy.filter { !$0.isNew && !read.contains($0.key) }.map(\.key)
                }
                if recomputing {
                    entries += parsed
                } else {
                    try queue.inDatabase { db in
                        try db.inTransaction {
                            let insert = try db.cachedStatement(sql: Self.stageSQL)
                            for entry in parsed {
                                try Self.bind(entry, to: insert, isNew: entry.isNew)
                                staged.rows += 1
                                if entry.isNew { staged.new += 1 }
                                if entry.summary == nil { staged.broken += 1 }
                            }
                            return .commit
                        }
                    }
                }
                if page.count < pageSize { break }
            }
            // 4. Rows whose files are gone (a page at a time, in name order).
            try queue.reading { db in
                let statement = try db.cachedStatement(sql: """
                    SELECT i.name FROM main.item i WHERE i.collection = ?
                    AND NOT EXISTS (SELECT 1 FROM temp.listing l WHERE l.collection = i.collection AND l.name = i.name)
                    """)
                for collection in withRows.subtracting(gone).sorted() {
                    let names = try String.fetchCursor(statement, arguments: [collection])
                    while let name = try names.next() { removals.append(ItemKey(collection: collection, name: name)) }
                }
            }
            removals.sort { ($0.collection, $0.name) < ($1.collection, $1.name) }
        }

        let changesRows = !entries.isEmpty || staged.rows > 0 || !removals.isEmpty || !removedCollections.isEmpty
        guard changesRows || !folderUpdates.isEmpty || cache.isStale else { return result }
        // The changed items' occurrences in the cached weeks, computed before the transaction.
        let recomputed: OccurrenceCache.Rows? = changesRows && cache.hasWeeks && recomputing
            ? OccurrenceCache.recompute(entries, weeks: cache.weeks) : nil

        try queue.inTransaction(.immediate) { db in
            try Self.widenPageCache(db, rows: entries.count + staged.rows + (recomputed?.occurrences.count ?? 0), budget: budget)
            defer { Self.restorePageCache(db) }
            let upsert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO item (\(Self.itemColumns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            var dropCache = cache.isStale
            if changesRows && cache.hasWeeks {
                // Another process changed the index since the cache was read: its weeks
                // may now be other than the ones recomputed.
                let generation = try OccurrenceCache.generation(db)
                if recomputed == nil || generation != cache.generation { dropCache = true }
            }
            if dropCache { try OccurrenceCache.clear(db, store: store) }
            // Rows of the cache to forget for each changed item: none when the cache holds
            // no row at all (a first build), which this write transaction sees for certain.
            // (Forgetting compiles three statements per item: most of a first build's
            // transaction.)
            let forgets = try !dropCache && Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM occurrence) OR EXISTS (SELECT 1 FROM note) OR EXISTS (SELECT 1 FROM uncached)
                """) != false
            // Many rows into an empty table (a first build): the span index is dropped and
            // made again after the rows, one sort instead of an insert at a random place
            // per row; the same index, with the same statement, in the same transaction.
            let rebuildsSpanIndex = try entries.count + staged.rows >= Self.smallestIndexRebuild
                && Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM item)") == true
            if rebuildsSpanIndex { try db.execute(sql: "DROP INDEX item_span") }
            for index in entries.indices {
                try Self.bind(entries[index], to: upsert)
                if forgets { try OccurrenceCache.forget(entries[index].key, in: db) }
                if entries[index].isNew { result.added += 1 } else { result.changed += 1 }
                if entries[index].summary == nil { result.broken += 1 }
            }
            if staged.rows > 0 {
                // The staged rows, read in inode order, go in in key order: appended to a
                // table keyed by it when the table is new (SQLite's sorter spills to its
                // temporary files past its cache).
                try db.execute(sql: """
                    INSERT OR REPLACE INTO main.item (\(Self.itemColumns)) SELECT \(Self.itemColumns) FROM temp.staged
                    ORDER BY collection, name
                    """)
                if forgets {
                    let keys = try Row.fetchCursor(db, sql: "SELECT collection, name FROM temp.staged")
                    while let row = try keys.next() { try OccurrenceCache.forget(ItemKey(collection: row[0], name: row[1]), in: db) }
                }
                result.added += staged.new
                result.changed += staged.rows - staged.new
                result.broken += staged.broken
            }
            if rebuildsSpanIndex { try db.execute(sql: IndexSchema.spanIndexSQL) }
            let delete = try db.cachedStatement(sql: "DELETE FROM item WHERE collection = ? AND name = ?")
            for key in removals where (try? StoreSystem.identity(store.root + "/" + key.description)) == .some(nil) {
                try delete.execute(arguments: [key.collection, key.name])
                result.removed += db.changesCount
                if forgets { try OccurrenceCache.forget(key, in: db) }
            }
            let deleteCollection = try db.cachedStatement(sql: "DELETE FROM item WHERE collection = ?")
            for collection in removedCollections.sorted() where !StoreSystem.isFolder(store.root + "/" + collection) {
                try deleteCollection.execute(arguments: [collection])
                result.removed += db.changesCount
                result.removedCollections += 1
                try db.execute(sql: "DELETE FROM folder WHERE collection = ?", arguments: [collection])
                if forgets { try OccurrenceCache.forget(collection: collection, in: db) }
            }
            for (collection, row) in folderUpdates {
                try db.execute(sql: """
                    INSERT OR REPLACE INTO folder (collection, device, inode, modificationSeconds, modificationNanoseconds,
                        changeSeconds, changeNanoseconds, settled) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [collection, Int64(bitPattern: row.stamp.device), Int64(bitPattern: row.stamp.inode),
                                     row.stamp.modificationSeconds, row.stamp.modificationNanoseconds,
                                     row.stamp.changeSeconds, row.stamp.changeNanoseconds, row.settled])
            }
            if let recomputed, !dropCache { try OccurrenceCache.insert(recomputed, in: db) }
            if changesRows { try OccurrenceCache.bumpGeneration(db) }
            return .commit
        }
        return result
    }

    /// The bytes SQLite maps of the index file when it is not building (see
    /// ``configuration(exclusive:)``).
    static let mappedBytes = 268_435_456

    /// The columns of `item`, in the order ``bind(_:to:isNew:)`` binds them.
    static let itemColumns = """
        collection, name, device, inode, size, modificationSeconds, modificationNanoseconds, uid, kinds, state, \
        firstStart, lastEnd, lengthClass
        """

    /// A staged row: `item`'s columns and whether the index had no row for the file.
    static let stageSQL = "INSERT INTO temp.staged (\(itemColumns), isNew) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    /// A listed file's identity is its row's (`l` the listing, `i` the row).
    static let sameIdentity = """
        l.device = i.device AND l.inode = i.inode AND l.size = i.size
        AND l.modificationSeconds = i.modificationSeconds AND l.modificationNanoseconds = i.modificationNanoseconds
        """

    /// The files to read, into `temp.work` in the order of their inode numbers: listed files
    /// without a row or whose identity differs from their row's (a file listed by name only
    /// has none).
    ///
    /// Inode order rather than name order: names (UIDs, mostly random) have nothing to do
    /// with where a file's inode and bytes are on disk, while a file system such as ext4
    /// hands out inode numbers, and places blocks, roughly in the order files are created.
    /// Read in name order, a store whose files are not in the page cache costs a random
    /// read of an inode table block and one of a data block per file (most of a first
    /// build's time at a million items).
    static let workSQL = """
        CREATE TEMP TABLE work AS
        SELECT l.collection, l.name, l.device, l.inode, l.size, l.modificationSeconds, l.modificationNanoseconds,
            i.name IS NULL AS isNew
        FROM temp.listing l LEFT JOIN main.item i ON i.collection = l.collection AND i.name = l.name
        WHERE i.name IS NULL OR l.device IS NULL OR NOT (\(sameIdentity))
        ORDER BY l.entryInode, l.collection, l.name
        """

    /// One page of `temp.work`, after a row: its rowid, then ``Job``'s columns.
    static let workQuery = """
        SELECT rowid, collection, name, device, inode, size, modificationSeconds, modificationNanoseconds, isNew
        FROM temp.work WHERE rowid > ? ORDER BY rowid LIMIT ?
        """

    /// How many files a refresh reads and stages at a time: 2,048 per 16 MiB of the budget,
    /// from 1,024 to 65,536 (a page's rows, about 300 bytes each, and the trees its
    /// workers are parsing).
    static func pageSize(_ budget: MemoryBudget) -> Int {
        min(65_536, budget.share(of: 8, each: 1_024))
    }

    /// The temporary tables of a refresh, empty, and their page cache (an eighth of the budget).
    private static func prepareScratch(_ db: Database, budget: MemoryBudget) throws {
        try db.execute(sql: "PRAGMA temp.cache_size = -\(max(1_024, budget.bytes / 8 / 1_024))")
        try db.execute(sql: """
            DROP TABLE IF EXISTS temp.listing;
            DROP TABLE IF EXISTS temp.work;
            DROP TABLE IF EXISTS temp.staged;
            CREATE TEMP TABLE listing (collection TEXT NOT NULL, name TEXT NOT NULL, device INTEGER, inode INTEGER,
                size INTEGER, modificationSeconds INTEGER, modificationNanoseconds INTEGER, entryInode INTEGER NOT NULL);
            CREATE TEMP TABLE staged (collection TEXT NOT NULL, name TEXT NOT NULL, device INTEGER NOT NULL,
                inode INTEGER NOT NULL, size INTEGER NOT NULL, modificationSeconds INTEGER NOT NULL,
                modificationNanoseconds INTEGER NOT NULL, uid TEXT, kinds INTEGER NOT NULL, state INTEGER NOT NULL,
                firstStart INTEGER, lastEnd INTEGER, lengthClass INTEGER NOT NULL, isNew INTEGER NOT NULL);
            """)
    }

    /// Lists a collection's item files into `temp.listing`: with their identities (an
    /// `lstat` each) when the collection has rows to compare them with, else by name only
    /// (a first build: every file is new, and a row records the identity read with the
    /// file's bytes). False when the folder is gone.
    private func listFolder(_ collection: String, withIdentities: Bool, into queue: DatabaseQueue) throws -> Bool {
        let folder = store.root + "/" + collection
        var found = true
        try queue.inDatabase { db in
            try db.inTransaction {
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO temp.listing (collection, name, device, inode, size, modificationSeconds, modificationNanoseconds,
                        entryInode)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                do {
                    try StoreSystem.forEachEntry(folder) { entry throws(StoreError) in
                        guard !entry.isFolder && ItemFileName.isItemFile(entry.name) else { return }
                        var identity: FileIdentity?
                        if withIdentities {
                            guard let found = try StoreSystem.identity(folder + "/" + entry.name) else { return }
                            identity = found
                        }
                        do {
                            try insert.execute(arguments: [collection, entry.name, identity.map { Int64(bitPattern: $0.device) },
                                                           identity.map { Int64(bitPattern: $0.inode) }, identity?.size,
                                                           identity?.modificationSeconds, identity?.modificationNanoseconds,
                                                           Int64(bitPattern: identity?.inode ?? entry.inode)])
                        } catch {
                            throw StoreError(.io, "the query index failed: \(error)", path: self.path, cause: error as? DatabaseError)
                        }
                    }
                } catch let error as StoreError where error.code == .notFound {
                    found = false
                    return .rollback
                }
                return .commit
            }
        }
        return found
    }

    /// SQLite's page cache while a transaction writes many rows: at most 64 MiB, and at most
    /// a quarter of the budget (pages are allocated as they are used: about 20 MB for a
    /// first build of 100,000 items). With the default 2 MB, a large write spills its dirty
    /// pages to the write-ahead log before it commits and reads them back from it to change
    /// them again: a `pwrite` and a `pread` per page, most of a first build's transaction.
    static func widenPageCache(_ db: Database, rows: Int, budget: MemoryBudget) throws {
        guard rows > 1_000 else { return }
        try db.execute(sql: "PRAGMA cache_size = -\(min(65_536, max(2_000, budget.bytes / 4 / 1_024)))")
    }

    /// Back to SQLite's default page cache (2 MB), which frees the pages over it.
    static func restorePageCache(_ db: Database) {
        try? db.execute(sql: "PRAGMA cache_size = -2000")
    }

    /// A file a refresh reads: its key, the identity it was listed with (nil when it was
    /// listed by name only), and whether the index has no row for it.
    struct Job: Sendable {
        var key: ItemKey
        var identity: FileIdentity?
        var isNew: Bool
    }

    /// Reads and summarises files, on ``FileReaders/threads`` threads (more than cores, so
    /// that reads of files not in the page cache overlap). A file that is gone is left out.
    ///
    /// - Throws: what examining a file listed by name only throws, when it cannot be read
    ///   (as listing it with its identity would have).
    private func parse(_ work: [Job], keepingItems: Bool) throws(StoreError) -> [Entry] {
        guard !work.isEmpty else { return [] }
        let store = self.store
        let chunk = 64
        let chunks = (work.count + chunk - 1) / chunk
        let results = Mutex<[[Entry]]>(Array(repeating: [], count: chunks))
        let failure = Mutex<StoreError?>(nil)
        FileReaders.perform(iterations: chunks) { index in
            var entries: [Entry] = []
            for job in work[(index * chunk)..<min(work.count, (index + 1) * chunk)] {
                // The identity of a file that cannot be used as an item: the one listed, or
                // for a file listed by name, its `lstat` now (nil: it is gone).
                func listedIdentity() throws(StoreError) -> FileIdentity? {
                    if let identity = job.identity { return identity }
                    return try StoreSystem.identity(store.root + "/" + job.key.collection + "/" + job.key.name)
                }
                do throws(StoreError) {
                    // The index's reads are not the user's: they leave access times alone.
                    let read = try store.readItem(in: job.key.collection, name: job.key.name, touchingAccessTime: false)
                    if let item = read.item {
                        entries.append(Entry(key: job.key, identity: item.file.identity,
                                             summary: ItemSummary(calendar: item.calendar, file: item.file.path),
                                             isNew: job.isNew, calendar: keepingItems ? item.calendar : nil,
                                             readDiagnostics: keepingItems ? read.diagnostics : []))
                    } else {
                        guard let identity = try listedIdentity() else { continue }
                        entries.append(Entry(key: job.key, identity: identity, summary: nil, isNew: job.isNew,
                                             readDiagnostics: keepingItems ? read.diagnostics : []))
                    }
                } catch where error.code == .notFound {
                    continue   // removed since it was listed
                } catch {
                    // A query that cannot reach the file skips it without a diagnostic too.
                    do throws(StoreError) {
                        guard let identity = try listedIdentity() else { continue }
                        entries.append(Entry(key: job.key, identity: identity, summary: nil, isNew: job.isNew))
                    } catch {
                        failure.withLock { $0 = $0 ?? error }
                    }
                }
            }
            results.withLock { $0[index] = entries }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return results.withLock { $0.flatMap { $0 } }
    }

    /// Writes an entry's row with an insert of `item`'s columns (``itemColumns``), and
    /// `isNew` as a fourteenth when given, binding its values with SQLite's own calls: a
    /// first build writes a row per item, and GRDB's generic arguments cost more than the
    /// insert.
    private static func bind(_ entry: Entry, to statement: Statement, isNew: Bool? = nil) throws {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        func text(_ index: Int32, _ value: String?) {
            guard let value else { sqlite3_bind_null(handle, index); return }
            sqlite3_bind_text(handle, index, value, Int32(value.utf8.count), transient)
        }
        func integer(_ index: Int32, _ value: Int64?) {
            guard let value else { sqlite3_bind_null(handle, index); return }
            sqlite3_bind_int64(handle, index, value)
        }
        let identity = entry.identity
        text(1, entry.key.collection)
        text(2, entry.key.name)
        integer(3, Int64(bitPattern: identity.device))
        integer(4, Int64(bitPattern: identity.inode))
        integer(5, identity.size)
        integer(6, identity.modificationSeconds)
        integer(7, identity.modificationNanoseconds)
        switch entry.summary?.span {
        case nil:
            text(8, nil); integer(9, 0); integer(10, IndexSchema.broken); integer(11, nil); integer(12, nil)
            integer(13, IndexSchema.alwaysClass)
        case .undated?:
            text(8, entry.summary?.uid); integer(9, entry.summary?.kinds.rawValue); integer(10, IndexSchema.undated)
            integer(11, nil); integer(12, nil); integer(13, IndexSchema.alwaysClass)
        case .bounded(let first, let last)?:
            let lengthClass = last.map { IndexSchema.lengthClass(firstStart: first, lastEnd: $0) } ?? IndexSchema.unboundedClass
            text(8, entry.summary?.uid); integer(9, entry.summary?.kinds.rawValue); integer(10, IndexSchema.dated)
            integer(11, first); integer(12, last); integer(13, lengthClass)
        }
        if let isNew { integer(14, isNew ? 1 : 0) }
        let step = sqlite3_step(handle)
        guard step == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
        }
    }

    /// The identity in five columns of a row, from `column` on.
    private static func identity(_ row: Row, from column: Int) -> FileIdentity {
        FileIdentity(device: UInt64(bitPattern: row[column]), inode: UInt64(bitPattern: row[column + 1]),
                     size: row[column + 2], modificationSeconds: row[column + 3], modificationNanoseconds: row[column + 4])
    }

    // MARK: Querying

    /// The item files that can have an occurrence in a window, as of the last refresh.
    ///
    /// A dated row is a candidate when `firstStart < window.upperBound` and its `lastEnd`
    /// is NULL or `>= window.lowerBound` (so a zero-length occurrence at the window's start
    /// counts). Undated items are candidates for every window; broken files too, whatever
    /// `kinds` asks for (their kinds are unknown).
    ///
    /// Each length class is one range on the index `item_span`: class `c` holds rows
    /// shorter than `2^c` seconds, so only rows starting in
    /// `window.lowerBound − 2^c ..< window.upperBound` are read, and the unbounded class
    /// reads rows starting before the window's end. No query scans the table.
    ///
    /// - Parameters:
    ///   - window: UTC instants, seconds since 1970.
    ///   - collections: the collections to search; nil for all.
    ///   - kinds: the component kinds asked for; an item is a candidate when it has one.
    /// - Returns: the candidates, sorted by collection and file name, each with the identity
    ///   its row was computed from (pass it to ``FolderStore/readItem(in:name:)`` and
    ///   compare, or simply read the file).
    package func candidates(window: Range<Int64>, collections: Set<String>? = nil,
                            kinds: Set<ComponentKind> = [.event, .todo, .journal]) throws(StoreError) -> [ItemFile] {
        let mask = ItemKinds(kinds).rawValue
        let root = store.root
        var files = try withDatabase { queue in
            try queue.reading { db in
                var files: [ItemFile] = []
                func collect(_ statement: Statement, _ arguments: StatementArguments) throws {
                    let rows = try Row.fetchCursor(statement, arguments: arguments)
                    while let row = try rows.next() {
                        let collection: String = row[0]
                        if let collections, !collections.contains(collection) { continue }
                        let name: String = row[1]
                        files.append(ItemFile(collection: collection, name: name, path: root + "/" + collection + "/" + name,
                                              identity: Self.identity(row, from: 2)))
                    }
                }
                let bounded = try db.cachedStatement(sql: Self.boundedQuery)
                for lengthClass in 0...IndexSchema.largestBoundedClass {
                    let lowest = lengthClass == IndexSchema.largestBoundedClass ? Int64.min
                        : window.lowerBound.subtractingReportingOverflow(Int64(1) << lengthClass).partialValue
                    let floor = lowest > window.lowerBound ? Int64.min : lowest
                    try collect(bounded, [lengthClass, floor, window.upperBound, window.lowerBound, mask])
                }
                let unbounded = try db.cachedStatement(sql: Self.unboundedQuery)
                try collect(unbounded, [IndexSchema.unboundedClass, window.upperBound, mask])
                let always = try db.cachedStatement(sql: Self.alwaysQuery)
                try collect(always, [IndexSchema.alwaysClass, mask, IndexSchema.broken])
                return files
            }
        }
        files.sort { ($0.collection, $0.name) < ($1.collection, $1.name) }
        return files
    }

    /// The item files whose UID is `uid` (the UID of a file's first component: a vdir item
    /// holds one UID), sorted by collection and file name.
    package func items(withUID uid: String) throws(StoreError) -> [ItemFile] {
        let root = store.root
        return try withDatabase { queue in
            try queue.reading { db in
                try Row.fetchAll(db, sql: "SELECT \(Self.selectedColumns) FROM item WHERE uid = ? ORDER BY collection, name",
                                 arguments: [uid]).map { row in
                    let collection: String = row[0], name: String = row[1]
                    return ItemFile(collection: collection, name: name, path: root + "/" + collection + "/" + name,
                                    identity: Self.identity(row, from: 2))
                }
            }
        }
    }

    /// The identities the rows of some item files record (a file without a row is left
    /// out): what a reader compares with the identity of the bytes it reads.
    package func identities(of keys: [ItemKey]) throws(StoreError) -> [ItemKey: FileIdentity] {
        try withDatabase { queue in
            try queue.reading { db in
                let statement = try db.cachedStatement(sql: """
                    SELECT device, inode, size, modificationSeconds, modificationNanoseconds FROM item WHERE collection = ? AND name = ?
                    """)
                var identities: [ItemKey: FileIdentity] = [:]
                for key in keys {
                    if let row = try Row.fetchOne(statement, arguments: [key.collection, key.name]) {
                        identities[key] = Self.identity(row, from: 0)
                    }
                }
                return identities
            }
        }
    }

    /// The index's generation: a number every refresh that changes a row increases (in
    /// any process), so that a reader knows whether what it read from the index before
    /// still describes the same rows.
    package func generation() throws(StoreError) -> Int64 {
        try withDatabase { queue in try queue.reading { db in try OccurrenceCache.generation(db) } }
    }

    /// The columns every candidate query selects: place and identity.
    private static let selectedColumns = "collection, name, device, inode, size, modificationSeconds, modificationNanoseconds"
    /// Rows of one bounded length class: class, lowest start, window end, window start, kinds.
    static let boundedQuery = """
        SELECT \(selectedColumns) FROM item
        WHERE lengthClass = ? AND firstStart >= ? AND firstStart < ? AND lastEnd >= ? AND (kinds & ?) != 0
        """
    /// Unbounded rows: class, window end, kinds.
    static let unboundedQuery = """
        SELECT \(selectedColumns) FROM item WHERE lengthClass = ? AND firstStart < ? AND (kinds & ?) != 0
        """
    /// Undated and broken rows: class, kinds, the broken state.
    static let alwaysQuery = """
        SELECT \(selectedColumns) FROM item WHERE lengthClass = ? AND ((kinds & ?) != 0 OR state = ?)
        """

    /// SQLite's plan for each query of ``candidates(window:collections:kinds:)``, one line
    /// per step (`SEARCH item USING INDEX item_span …`): what the tests check instead of a
    /// timing to know that no query scans the table.
    package func candidatePlans() throws(StoreError) -> [String] {
        try withDatabase { queue in
            try queue.reading { db in
                try [Self.boundedQuery, Self.unboundedQuery, Self.alwaysQuery].flatMap { query in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query,
                                     arguments: StatementArguments(Array(repeating: Int64(0), count: query.filter { $0 == "?" }.count)))
                        .map { $0["detail"] as String }
                }
            }
        }
    }
}

/// What a ``StoreIndex/refresh()`` changed.
package struct IndexRefresh: Sendable, Hashable {
    /// Rows added for new item files.
    package var added = 0
    /// Rows recomputed for item files whose identity changed.
    package var changed = 0
    /// Rows deleted (removed item files, and the items of removed collections).
    package var removed = 0
    /// Collections whose rows were all deleted because their folder is gone.
    package var removedCollections = 0
    /// Files recorded as broken among those added or changed.
    package var broken = 0
    /// Item files whose identity had not changed, left as they were.
    package var unchanged = 0
    /// Collection folders listed (the others were trusted by their times).
    package var scannedFolders = 0
    /// Notices for the user: the index file was damaged and rebuilt, or is kept in memory.
    package var notices: [String] = []

    /// Creates an empty result.
    package init() {}

    /// Whether the refresh changed no row.
    package var isEmpty: Bool { added == 0 && changed == 0 && removed == 0 }
}

extension DatabaseQueue {
    /// Runs `body`, which only reads, in one deferred transaction (so that its statements see
    /// one state of the index), as GRDB's `read` does but with the transaction's own
    /// statements kept prepared. `read` prepares BEGIN and COMMIT again at every call, through
    /// GRDB's SQL-literal path (whose first use in a process looks protocol conformances up
    /// across the whole binary), and turns `query_only` on and off around them: a tenth of the
    /// instructions of a warm query of a small store.
    func reading<T>(_ body: (Database) throws -> T) throws -> T {
        try inDatabase { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            do {
                let value = try body(db)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                return value
            } catch {
                if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
                throw error
            }
        }
    }
}
