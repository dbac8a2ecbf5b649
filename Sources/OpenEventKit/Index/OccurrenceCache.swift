import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import ICalKit
import Synchronization

/// The occurrence cache of the query index: the listings of every occurrence in the weeks
/// queries have asked for, per floating zone, so that a repeated or overlapping query
/// reads rows instead of reading, parsing and expanding the items again.
///
/// A week is `floor(instant / 604800)`: seven days from Thursday 00:00 UTC. The first query
/// of a window fills the weeks it covers that are not cached yet: it reads the index's
/// candidates of those weeks and runs ``OccurrenceQuery`` on each item over them, and
/// stores, per week, each occurrence that intersects it (with the query's own rule). A
/// later window within cached weeks is answered from the rows of its weeks, filtered by
/// the same rule, sorted as ``OccurrenceQuery`` sorts, one row per occurrence.
///
/// What makes the answer the same as a query over the items:
/// - Expansion does not depend on the window: a window only chooses among an item's
///   occurrences, so a week's rows hold every occurrence that can intersect a window in it.
/// - Each item is expanded by itself, as ``OccurrenceQuery`` does (a VCALENDAR's own UID
///   groups and VTIMEZONEs); ties in the sort keep the order a query finds them in
///   (collection, file name, then the order within the item).
/// - The diagnostics of reading an item and of resolving its time zones do not depend on
///   the window either: they are kept per item (`note`) and reported for the window's
///   candidates, as a query over the candidates reports them. An item whose expansion
///   stopped at the budget (its warning depends on the window), or that mixes component
///   kinds (which a kind filter could group differently), is `uncached`: each query reads
///   and expands it itself.
/// - Rows depend on the floating zone (the key), on tzdata and on the expansion engine:
///   the `cache` setting records the engine version, the tzdata files and the store's
///   path, and the cache is dropped when they differ.
/// - A refresh that changes items recomputes their rows in every cached week in the same
///   transaction, or drops the whole cache; `generation` tells a filler that the index
///   changed while it computed, and then it stores nothing.
enum OccurrenceCache {
    /// Seconds in a week.
    static let week: Int64 = 604_800
    /// Changed when expansion, listings or this cache change in a way that makes stored
    /// rows wrong: rows of another engine version are dropped.
    static let engineVersion = 2
    /// Windows longer than this are not cached (a year's query would store a year).
    static let longestCachedWindow: Int64 = 100 * 86_400

    // MARK: Keys

    /// The key of a floating zone, or nil when rows for it cannot be cached (a zone from
    /// a file's VTIMEZONE rather than tzdata).
    static func key(for zone: any TimeZoneRules) -> String? {
        if let zone = zone as? IANATimeZone { return "tz:" + zone.identifier }
        if let zone = zone as? FixedOffsetZone { return "offset:\(zone.offset):" + zone.identifier }
        return nil
    }

    /// The zone of a key.
    static func zone(for key: String) -> (any TimeZoneRules)? {
        if key.hasPrefix("tz:") { return IANATimeZone(named: String(key.dropFirst(3))) }
        if key.hasPrefix("offset:") {
            let parts = key.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let offset = Int(parts[1]) else { return nil }
            return FixedOffsetZone(identifier: String(parts[2]), offset: offset)
        }
        return nil
    }

    /// What the cached rows depend on besides the items: the engine, tzdata, the store's place.
    static func fingerprint(store: FolderStore) -> String {
        let directory = IANATimeZone.databaseDirectory
        var tzdata = "none"
        for file in [directory + "/tzdata.zi", directory] {
            if let identity = try? StoreSystem.identity(file) {
                tzdata = "\(file) \(identity.inode) \(identity.size) \(identity.modificationSeconds).\(identity.modificationNanoseconds)"
                break
            }
        }
        return "engine \(engineVersion); tzdata \(tzdata); store \(store.root)"
    }

    /// The week of an instant.
    static func week(of instant: Int64) -> Int64 {
        instant >= 0 ? instant / week : -((-instant + week - 1) / week)
    }

    /// The weeks a window covers.
    static func weeks(_ window: Range<Int64>) -> ClosedRange<Int64> {
        week(of: window.lowerBound)...week(of: max(window.lowerBound, window.upperBound - 1))
    }

    /// The instants of a run of weeks.
    static func window(_ weeks: ClosedRange<Int64>) -> Range<Int64> {
        weeks.lowerBound * week ..< (weeks.upperBound + 1) * week
    }

    /// Sorted weeks in runs of consecutive weeks.
    static func runs(_ weeks: [Int64]) -> [ClosedRange<Int64>] {
        var runs: [ClosedRange<Int64>] = []
        for week in weeks.sorted() {
            if let last = runs.last, last.upperBound + 1 == week {
                runs[runs.count - 1] = last.lowerBound...week
            } else if runs.last?.contains(week) != true {
                runs.append(week...week)
            }
        }
        return runs
    }

    // MARK: State

    /// What a refresh or a query needs to know of the cache before it computes.
    struct State {
        /// The index's generation when read.
        var generation: Int64
        /// The cached weeks by zone key (empty when ``isStale``).
        var weeks: [String: [Int64]]
        /// The cache was made for another engine, tzdata or store path: drop it.
        var isStale: Bool

        var hasWeeks: Bool { weeks.values.contains { !$0.isEmpty } }

        /// Reads the state. A warm query reads it twice (its refresh, then the weeks it
        /// fills), so the statements are kept prepared on the connection.
        static func read(_ db: Database, store: FolderStore) throws -> State {
            let generation = try OccurrenceCache.generation(db)
            let recorded = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM setting WHERE key = 'cache'"))
            let hasRows = try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM week)")) ?? false
            guard recorded == fingerprint(store: store) else {
                return State(generation: generation, weeks: [:], isStale: hasRows || recorded != nil)
            }
            var weeks: [String: [Int64]] = [:]
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT zone, week FROM week ORDER BY zone, week"))
            while let row = try rows.next() {
                weeks[row[0], default: []].append(row[1])
            }
            return State(generation: generation, weeks: weeks, isStale: false)
        }
    }

    static func generation(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM setting WHERE key = 'generation'")) ?? 0
    }

    static func bumpGeneration(_ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('generation', ?)",
                       arguments: [try generation(db) + 1])
    }

    /// Drops every cached row and records the current fingerprint. The generation changes:
    /// a filler or renderer that read the cache before stores nothing.
    static func clear(_ db: Database, store: FolderStore) throws {
        for table in ["week", "occurrence", "note", "uncached", "rendering"] { try db.execute(sql: "DELETE FROM \(table)") }
        try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('cache', ?)", arguments: [fingerprint(store: store)])
        try bumpGeneration(db)
    }

    /// Drops an item's rows (it changed or is gone).
    static func forget(_ key: ItemKey, in db: Database) throws {
        for table in ["occurrence", "note", "uncached"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE collection = ? AND name = ?", arguments: [key.collection, key.name])
        }
    }

    /// Drops a removed collection's rows.
    static func forget(collection: String, in db: Database) throws {
        for table in ["occurrence", "note", "uncached"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE collection = ?", arguments: [collection])
        }
    }

    // MARK: Computing rows

    /// One cached occurrence: a row of `occurrence`, its `listing` blob encoded already
    /// (by the workers that expand the items, not in the write transaction).
    struct Cached: Sendable {
        var zone: String
        var week: Int64
        var key: ItemKey
        var ordinal: Int
        var kind: Int64
        var startInstant: Int64
        var endInstant: Int64
        /// ``payload(_:recurrenceLocal:)`` of the listing (shared by the rows of one
        /// occurrence in several weeks).
        var payload: [UInt8]
    }

    /// Rows to store.
    struct Rows: Sendable {
        var occurrences: [Cached] = []
        /// Items with diagnostics: read, then time zones (JSON arrays).
        var notes: [ItemKey: (read: [Diagnostic], zones: [Diagnostic])] = [:]
        var uncached: [(zone: String, week: Int64, key: ItemKey)] = []
        /// Weeks filled, by zone key.
        var weeks: [(zone: String, week: Int64)] = []

        mutating func append(_ other: Rows) {
            occurrences += other.occurrences
            notes.merge(other.notes) { first, _ in first }
            uncached += other.uncached
            weeks += other.weeks
        }
    }

    /// The rows of one item (nil calendar: a file that could not be read as an item) in
    /// runs of weeks, for one floating zone.
    static func rows(for key: ItemKey, calendar: Component?, readDiagnostics: [Diagnostic],
                     zoneKey: String, zone: any TimeZoneRules, runs: [ClosedRange<Int64>]) -> Rows {
        var rows = Rows()
        guard let calendar else {
            if !readDiagnostics.isEmpty { rows.notes[key] = (readDiagnostics, []) }
            return rows
        }
        let kinds = ItemKinds(calendar.components.map { ComponentKind(rawValue: $0.name) })
        if kinds.rawValue.nonzeroBitCount > 1 {
            for run in runs { for week in run { rows.uncached.append((zoneKey, week, key)) } }
            return rows
        }
        let source = OccurrenceQuery.Source(calendar: calendar, name: key.description)
        var zoneDiagnostics: [Diagnostic]?
        var collected: [Cached] = []
        for run in runs {
            let span = window(run)
            let result = OccurrenceQuery(window: span, floatingZone: zone).run([source])
            if result.diagnostics.contains(where: { $0.code == .budgetExceeded }) {
                for run in runs { for week in run { rows.uncached.append((zoneKey, week, key)) } }
                return rows
            }
            zoneDiagnostics = zoneDiagnostics ?? result.diagnostics
            for (ordinal, match) in result.matches.enumerated() {
                let listing = OccurrenceListing(match)
                let kind = ItemKinds(CollectionOfOne(ComponentKind(rawValue: match.occurrence.component.name))).rawValue
                let first = max(run.lowerBound, week(of: listing.startInstant))
                let last = min(run.upperBound, week(of: max(listing.startInstant, listing.endInstant - 1)))
                guard first <= last else { continue }
                var payload: [UInt8]?
                for week in first...last where OccurrenceExpander.intersects(listing.startInstant, listing.endInstant, window(week...week)) {
                    if payload == nil {
                        payload = Self.payload(listing, recurrenceLocal: match.occurrence.recurrenceIdentifier.local.secondsSinceEpoch)
                    }
                    collected.append(Cached(zone: zoneKey, week: week, key: key, ordinal: ordinal, kind: kind,
                                            startInstant: listing.startInstant, endInstant: listing.endInstant,
                                            payload: payload!))
                }
            }
        }
        rows.occurrences = collected
        if !readDiagnostics.isEmpty || !(zoneDiagnostics ?? []).isEmpty {
            rows.notes[key] = (readDiagnostics, zoneDiagnostics ?? [])
        }
        return rows
    }

    /// The rows of changed items in every cached week (a refresh's recomputation).
    static func recompute(_ entries: [StoreIndex.Entry], weeks: [String: [Int64]]) -> Rows? {
        var rows = Rows()
        for (zoneKey, cached) in weeks where !cached.isEmpty {
            guard let zone = zone(for: zoneKey) else { return nil }
            let runs = runs(cached)
            for entry in entries {
                rows.append(Self.rows(for: entry.key, calendar: entry.calendar, readDiagnostics: entry.readDiagnostics,
                                      zoneKey: zoneKey, zone: zone, runs: runs))
            }
        }
        return rows
    }

    // MARK: Storing

    static func insert(_ rows: Rows, in db: Database) throws {
        let occurrence = try db.cachedStatement(sql: """
            INSERT INTO occurrence (zone, week, startInstant, collection, name, ordinal, kind, endInstant, listing)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        // Bound with SQLite's own calls, as the item rows are: a month of a large store is
        // tens of thousands of rows, and GRDB's generic arguments cost more than the insert.
        let handle = occurrence.sqliteStatement
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for row in rows.occurrences {
            defer { sqlite3_reset(handle) }
            sqlite3_bind_text(handle, 1, row.zone, Int32(row.zone.utf8.count), transient)
            sqlite3_bind_int64(handle, 2, row.week)
            sqlite3_bind_int64(handle, 3, row.startInstant)
            sqlite3_bind_text(handle, 4, row.key.collection, Int32(row.key.collection.utf8.count), transient)
            sqlite3_bind_text(handle, 5, row.key.name, Int32(row.key.name.utf8.count), transient)
            sqlite3_bind_int64(handle, 6, Int64(row.ordinal))
            sqlite3_bind_int64(handle, 7, row.kind)
            sqlite3_bind_int64(handle, 8, row.endInstant)
            row.payload.withUnsafeBytes { bytes in
                // A zero-length blob still needs a pointer (nil binds NULL); payloads never are empty.
                _ = sqlite3_bind_blob(handle, 9, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), transient)
            }
            let step = sqlite3_step(handle)
            guard step == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
            }
        }
        let note = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO note (collection, name, readDiagnostics, zoneDiagnostics) VALUES (?, ?, ?, ?)
            """)
        let encoder = JSONEncoder()
        for (key, diagnostics) in rows.notes {
            let read = String(decoding: try encoder.encode(diagnostics.read), as: UTF8.self)
            let zones = String(decoding: try encoder.encode(diagnostics.zones), as: UTF8.self)
            try note.execute(arguments: [key.collection, key.name, read, zones])
        }
        let uncached = try db.cachedStatement(sql: "INSERT OR IGNORE INTO uncached (zone, week, collection, name) VALUES (?, ?, ?, ?)")
        for entry in rows.uncached {
            try uncached.execute(arguments: [entry.zone, entry.week, entry.key.collection, entry.key.name])
        }
        let week = try db.cachedStatement(sql: "INSERT OR IGNORE INTO week (zone, week) VALUES (?, ?)")
        for entry in rows.weeks { try week.execute(arguments: [entry.zone, entry.week]) }
    }

    /// The `listing` blob of an `occurrence` row: what an ``OccurrenceListing`` holds besides
    /// its instants, component kind and source (which are columns or follow from them), in one
    /// value, so that reading a row is one column rather than sixteen. The layout is
    /// ``PackedListings``' payload (its version 2; version 1 had no conference links).
    static func payload(_ listing: OccurrenceListing, recurrenceLocal: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + listing.uid.utf8.count + (listing.summary?.utf8.count ?? 0) + (listing.location?.utf8.count ?? 0))
        PackedListings.appendPayload(listing, recurrenceLocal: recurrenceLocal, to: &out)
        return out
    }

    /// The component name of a kind bit.
    static func componentName(_ kind: Int64) -> StaticString {
        switch kind {
        case ItemKinds.todo.rawValue: "VTODO"
        case ItemKinds.journal.rawValue: "VJOURNAL"
        default: "VEVENT"
        }
    }
}

/// What the occurrence cache answered for a window.
package struct CachedListings: Sendable {
    /// The occurrences, sorted as ``OccurrenceQuery`` sorts its matches.
    package var listings: [OccurrenceListing]
    /// The diagnostics a query over the window's candidates reports: each candidate's read
    /// diagnostics, then each one's time-zone and budget diagnostics.
    package var diagnostics: [Diagnostic]
    /// Weeks this call computed and stored (0 when every week was cached).
    package var filledWeeks: Int
}

/// ``CachedListings`` packed (see ``StoreIndex/cachedPackedListings(window:collections:kinds:floatingZone:)``).
package struct CachedPackedListings: Sendable {
    /// The occurrences, sorted as ``OccurrenceQuery`` sorts its matches.
    package var listings: PackedListings
    /// As ``CachedListings/diagnostics``.
    package var diagnostics: [Diagnostic]
    /// As ``CachedListings/filledWeeks``.
    package var filledWeeks: Int
}

extension StoreIndex {
    /// The occurrences in a window, from the occurrence cache (see ``OccurrenceCache``),
    /// filling the weeks of the window that are not cached yet. Call ``refresh(scan:)``
    /// first, as for ``candidates(window:collections:kinds:)``.
    ///
    /// - Returns: nil when the cache does not answer this window (longer than 100 days,
    ///   outside years 1 to 9999, a floating zone not from tzdata, or the index changed
    ///   while the weeks were being filled): run the query over the candidates instead.
    package func cachedListings(window: Range<Int64>, collections: Set<String>, kinds: Set<ComponentKind>,
                                floatingZone: any TimeZoneRules) throws(StoreError) -> CachedListings? {
        guard let cached = try cachedPackedListings(window: window, collections: collections, kinds: kinds,
                                                    floatingZone: floatingZone) else { return nil }
        return CachedListings(listings: cached.listings.listings(), diagnostics: cached.diagnostics, filledWeeks: cached.filledWeeks)
    }

    /// ``cachedListings(window:collections:kinds:floatingZone:)`` packed: the same listings in
    /// the same order, for output without decoding every field (`ical query`'s text, JSON
    /// and CSV).
    package func cachedPackedListings(window: Range<Int64>, collections: Set<String>, kinds: Set<ComponentKind>,
                                      floatingZone: any TimeZoneRules) throws(StoreError) -> CachedPackedListings? {
        guard let zoneKey = OccurrenceCache.key(for: floatingZone), !window.isEmpty,
              window.count <= OccurrenceCache.longestCachedWindow,
              window.lowerBound >= -62_135_596_800, window.upperBound <= 253_402_300_800 else { return nil }
        let weeks = OccurrenceCache.weeks(window)
        guard let filledWeeks = try fillMissingWeeks(weeks, zoneKey: zoneKey, zone: floatingZone) else { return nil }
        var result = try withDatabase { queue in
            try queue.reading { db in
                try self.read(db, window: window, weeks: weeks, zoneKey: zoneKey, collections: collections, kinds: kinds)
            }
        }
        // Items each query expands itself.
        if !result.uncached.isEmpty {
            var direct: [(key: ItemKey, read: [Diagnostic], query: [Diagnostic], listings: [(OccurrenceListing, Int64, Int)])] = []
            for key in result.uncached {
                guard let read = try? store.readItem(in: key.collection, name: key.name) else { continue }
                guard let item = read.item else {
                    direct.append((key, read.diagnostics, [], []))
                    continue
                }
                let query = OccurrenceQuery(window: window, floatingZone: floatingZone, kinds: kinds)
                    .run([OccurrenceQuery.Source(calendar: item.calendar, name: key.description)])
                direct.append((key, read.diagnostics, query.diagnostics,
                               query.matches.enumerated().map { (OccurrenceListing($0.element), $0.element.occurrence.recurrenceIdentifier.local.secondsSinceEpoch, $0.offset) }))
            }
            for entry in direct {
                result.notes.append((entry.key, entry.read, entry.query))
                for (listing, recurrenceLocal, ordinal) in entry.listings {
                    result.append(listing, key: entry.key, ordinal: ordinal, recurrenceLocal: recurrenceLocal)
                }
            }
        }
        return CachedPackedListings(listings: result.sortedListings(), diagnostics: result.diagnostics(),
                                    filledWeeks: filledWeeks)
    }

    /// Fills the weeks of a window that are not cached yet for a floating zone: the number
    /// of weeks filled, or nil when the index changed while they were computed (their rows
    /// may be stale, and were not stored).
    func fillMissingWeeks(_ weeks: ClosedRange<Int64>, zoneKey: String, zone floatingZone: any TimeZoneRules) throws(StoreError) -> Int? {
        let store = self.store
        var cache = try withDatabase { queue in try queue.reading { db in try OccurrenceCache.State.read(db, store: store) } }
        if cache.isStale {
            try withDatabase { queue in
                try queue.inTransaction(.immediate) { db in
                    try OccurrenceCache.clear(db, store: store)
                    return .commit
                }
            }
            cache = try withDatabase { queue in try queue.reading { db in try OccurrenceCache.State.read(db, store: store) } }
        }
        let cached = Set(cache.weeks[zoneKey] ?? [])
        let missing = weeks.filter { !cached.contains($0) }
        if !missing.isEmpty {
            let rows = try fill(OccurrenceCache.runs(missing), zoneKey: zoneKey, zone: floatingZone)
            let stored: Bool = try withDatabase { queue in
                try queue.inTransaction(.immediate) { db -> Database.TransactionCompletion in
                    try StoreIndex.widenPageCache(db, rows: rows.occurrences.count, budget: memoryBudget)
                    defer { StoreIndex.restorePageCache(db) }
                    // Another process refreshed the index meanwhile: these rows may be stale.
                    guard try OccurrenceCache.generation(db) == cache.generation else { return .rollback }
                    // Another process filled some of these weeks meanwhile: keep its rows.
                    let present = Set(try Int64.fetchAll(db, sql: "SELECT week FROM week WHERE zone = ? AND week BETWEEN ? AND ?",
                                                         arguments: [zoneKey, weeks.lowerBound, weeks.upperBound]))
                    var fresh = rows
                    if !present.isEmpty {
                        fresh.occurrences.removeAll { present.contains($0.week) }
                        fresh.uncached.removeAll { present.contains($0.week) }
                        fresh.weeks.removeAll { present.contains($0.week) }
                    }
                    try OccurrenceCache.insert(fresh, in: db)
                    try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('cache', ?)",
                                   arguments: [OccurrenceCache.fingerprint(store: store)])
                    return .commit
                }
                return try queue.reading { db in try OccurrenceCache.generation(db) == cache.generation }
            }
            guard stored else { return nil }
        }
        return missing.count
    }

    /// Computes the rows of runs of weeks: the candidates of each run, each read once and
    /// expanded over the runs it is a candidate of, on ``FileReaders`` threads.
    private func fill(_ runs: [ClosedRange<Int64>], zoneKey: String, zone: any TimeZoneRules) throws(StoreError) -> OccurrenceCache.Rows {
        var runsOf: [ItemKey: [ClosedRange<Int64>]] = [:]
        // The candidates' rows are spread over the whole `item` table (their names are in no
        // order of time): read through the memory map, a fill of a month of a large store
        // mapped most of the table's pages into the process (140 MB at a million items),
        // where SQLite's own cache holds a few megabytes.
        try withDatabase { queue in try queue.inDatabase { db in try db.execute(sql: "PRAGMA mmap_size = 0") } }
        defer { try? withDatabase { queue in try queue.inDatabase { db in try db.execute(sql: "PRAGMA mmap_size = \(StoreIndex.mappedBytes)") } } }
        for run in runs {
            for file in try candidates(window: OccurrenceCache.window(run)) {
                runsOf[ItemKey(collection: file.collection, name: file.name), default: []].append(run)
            }
        }
        let work = runsOf.sorted { ($0.key.collection, $0.key.name) < ($1.key.collection, $1.key.name) }
        let store = self.store
        let chunk = 64
        let chunks = (work.count + chunk - 1) / chunk
        let results = Mutex<[OccurrenceCache.Rows]>(Array(repeating: OccurrenceCache.Rows(), count: chunks))
        FileReaders.perform(iterations: chunks) { index in
            var rows = OccurrenceCache.Rows()
            for (key, itemRuns) in work[(index * chunk)..<min(work.count, (index + 1) * chunk)] {
                // A file that cannot be reached is skipped, as a query skips it.
                guard let read = try? store.readItem(in: key.collection, name: key.name, touchingAccessTime: false) else { continue }
                rows.append(OccurrenceCache.rows(for: key, calendar: read.item?.calendar, readDiagnostics: read.diagnostics,
                                                 zoneKey: zoneKey, zone: zone, runs: itemRuns))
            }
            results.withLock { $0[index] = rows }
        }
        var rows = OccurrenceCache.Rows()
        for part in results.withLock({ $0 }) { rows.append(part) }
        rows.weeks = runs.flatMap { run in run.map { (zoneKey, $0) } }
        return rows
    }

    /// One occurrence read from the cache (or expanded now): its record in the packed
    /// listings and its sort keys.
    struct Found {
        var startInstant: Int64
        var endInstant: Int64
        var recurrenceLocal: Int64
        /// The week of the row (`Int64.min` for an occurrence expanded now).
        var week: Int64
        var ordinal: Int
        /// Where the record starts in the packed bytes.
        var record: Int
        /// The UID's and the item file name's bytes in the packed bytes.
        var uid: Range<Int>
        var name: Range<Int>
        /// The collection's rank among the collections read (their names sorted).
        var collection: Int
        /// Whether the UID and the file name are ASCII (compared as bytes; other text as
        /// strings, which compare canonically equivalent text as equal).
        var isASCII: Bool
    }

    /// What the cache's tables hold for a window.
    struct ReadResult {
        var packed = PackedListings()
        var found: [Found] = []
        var notes: [(key: ItemKey, read: [Diagnostic], query: [Diagnostic])] = []
        var uncached: [ItemKey] = []
        /// The collections of the records, in the order first read.
        var collections: [String] = []

        /// The collections' names as bytes, beside ``collections``.
        private var collectionBytes: [[UInt8]] = []
        /// The collection of the last row (rows come collection by collection within a week).
        private var lastCollection = 0

        /// The index of a collection in ``collections``, added when new.
        mutating func collectionIndex(_ bytes: UnsafeRawBufferPointer) -> Int {
            func matches(_ index: Int) -> Bool {
                collectionBytes[index].withUnsafeBytes { known in
                    known.count == bytes.count && (bytes.isEmpty || memcmp(known.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
                }
            }
            if lastCollection < collections.count, matches(lastCollection) { return lastCollection }
            if let known = collections.indices.first(where: matches) {
                lastCollection = known
                return known
            }
            collections.append(String(decoding: bytes, as: UTF8.self))
            collectionBytes.append(Array(bytes))
            lastCollection = collections.count - 1
            return lastCollection
        }

        /// Adds a stored row; false when its payload cannot be read.
        mutating func append(payload: UnsafeRawBufferPointer, startInstant: Int64, endInstant: Int64,
                             componentName: StaticString, collection: Int, name: UnsafeRawBufferPointer,
                             ordinal: Int, week: Int64) -> Bool {
            var folder = collections[collection]
            let record = packed.bytes.count
            let entry: Found? = folder.withUTF8 { folder in
                packed.append(payload: payload, startInstant: startInstant, endInstant: endInstant,
                              componentName: componentName, folder: UnsafeRawBufferPointer(folder), name: name) { listing, base in
                    Self.found(listing, record: record, base: base, collection: collection, collectionBytes: folder.count,
                               ordinal: ordinal, week: week)
                }
            }
            guard let entry else { return false }
            found.append(entry)
            return true
        }

        /// Adds an occurrence expanded now.
        mutating func append(_ listing: OccurrenceListing, key: ItemKey, ordinal: Int, recurrenceLocal: Int64) {
            var listing = listing
            listing.source = key.description
            let record = packed.bytes.count
            packed.append(listing, recurrenceLocal: recurrenceLocal)
            var folder = key.collection
            let collection = folder.withUTF8 { collectionIndex(UnsafeRawBufferPointer($0)) }
            found.append(packed.bytes.withUnsafeBytes { bytes in
                Self.found(PackedListing.keys(bytes, at: record)!, record: record, base: bytes.baseAddress!, collection: collection,
                           collectionBytes: folder.utf8.count, ordinal: ordinal, week: Int64.min)
            })
        }

        /// The sort keys of the packed record at `record` (`base`: the start of the packed bytes).
        private static func found(_ listing: PackedListingKeys, record: Int, base: UnsafeRawPointer, collection: Int,
                                  collectionBytes: Int, ordinal: Int, week: Int64) -> Found {
            // Views into the buffer: their addresses less the buffer's are their offsets.
            let uidStart = listing.uid.baseAddress! - base
            // The source is `collection/name`.
            let source = listing.source!
            let sourceStart = source.baseAddress! - base
            let uid = uidStart..<(uidStart + listing.uid.count)
            let name = (sourceStart + collectionBytes + 1)..<(sourceStart + source.count)
            let nameBytes = UnsafeRawBufferPointer(rebasing: source[(collectionBytes + 1)...])
            let isASCII = PackedListing.isASCII(listing.uid) && PackedListing.isASCII(nameBytes)
            return Found(startInstant: listing.startInstant, endInstant: listing.endInstant,
                         recurrenceLocal: listing.recurrenceLocal, week: week, ordinal: ordinal,
                         record: record, uid: uid, name: name, collection: collection,
                         isASCII: isASCII)
        }

        /// Sorted as ``OccurrenceQuery`` sorts (start, end, UID, RECURRENCE-ID's local time,
        /// then the order found: collection, file name, order in the item), each occurrence
        /// once (one found in several weeks is kept from the earliest).
        func sortedListings() -> PackedListings {
            // The collections' order as strings compare.
            let ranks: [Int] = {
                let order = collections.indices.sorted { collections[$0] < collections[$1] }
                var ranks = Array(repeating: 0, count: collections.count)
                for (rank, index) in order.enumerated() { ranks[index] = rank }
                return ranks
            }()
            var listings = packed
            listings.bytes.withUnsafeBytes { bytes in
                /// -1, 0 or 1 as the two texts compare (as strings unless both rows are ASCII).
                func compare(_ a: Range<Int>, _ b: Range<Int>, ascii: Bool) -> Int {
                    let left = UnsafeRawBufferPointer(rebasing: bytes[a]), right = UnsafeRawBufferPointer(rebasing: bytes[b])
                    if ascii {
                        let common = min(left.count, right.count)
                        if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                            let result = memcmp(l, r, common)
                            if result != 0 { return result < 0 ? -1 : 1 }
                        }
                        return left.count == right.count ? 0 : left.count < right.count ? -1 : 1
                    }
                    let l = String(decoding: left, as: UTF8.self), r = String(decoding: right, as: UTF8.self)
                    return l == r ? 0 : l < r ? -1 : 1
                }
                /// The order up to the item: 0 when both are the same occurrence of the same item.
                func compareOccurrence(_ a: Found, _ b: Found) -> Int {
                    if a.startInstant != b.startInstant { return a.startInstant < b.startInstant ? -1 : 1 }
                    if a.endInstant != b.endInstant { return a.endInstant < b.endInstant ? -1 : 1 }
                    let ascii = a.isASCII && b.isASCII
                    let uid = compare(a.uid, b.uid, ascii: ascii)
                    if uid != 0 { return uid }
                    if a.recurrenceLocal != b.recurrenceLocal { return a.recurrenceLocal < b.recurrenceLocal ? -1 : 1 }
                    if a.collection != b.collection, ranks[a.collection] != ranks[b.collection] {
                        return ranks[a.collection] < ranks[b.collection] ? -1 : 1
                    }
                    return compare(a.name, b.name, ascii: ascii)
                }
                let order = found.withUnsafeBufferPointer { found in
                    Array(found.indices).sorted { i, j in
                        let a = found[i], b = found[j]
                        let occurrence = compareOccurrence(a, b)
                        if occurrence != 0 { return occurrence < 0 }
                        if a.week != b.week { return a.week < b.week }
                        return a.ordinal < b.ordinal
                    }
                }
                var offsets: [Int] = []
                offsets.reserveCapacity(order.count)
                var groupWeek: Int64?
                for (position, index) in order.enumerated() {
                    let sameGroup = position > 0 && compareOccurrence(found[order[position - 1]], found[index]) == 0
                    if !sameGroup { groupWeek = found[index].week }
                    if found[index].week == groupWeek { offsets.append(found[index].record) }
                }
                listings.offsets = offsets
            }
            return listings
        }

        /// Every candidate's read diagnostics, then every one's time-zone and budget ones,
        /// candidates in collection and file-name order.
        func diagnostics() -> [Diagnostic] { StoreIndex.diagnostics(of: notes) }
    }

    /// Every item's read diagnostics, then every one's time-zone and budget ones, items in
    /// collection and file-name order: what a query over the candidates reports.
    static func diagnostics(of notes: [(key: ItemKey, read: [Diagnostic], query: [Diagnostic])]) -> [Diagnostic] {
        let ordered = notes.sorted { ($0.key.collection, $0.key.name) < ($1.key.collection, $1.key.name) }
        return ordered.flatMap(\.read) + ordered.flatMap(\.query)
    }

    /// Reads a window's rows (of `collections`, nil for all), and unless `rowsOnly` its
    /// notes and uncached items.
    func read(_ db: Database, window: Range<Int64>, weeks: ClosedRange<Int64>, zoneKey: String,
              collections: Set<String>?, kinds: Set<ComponentKind>, rowsOnly: Bool = false) throws -> ReadResult {
        var result = ReadResult()
        let mask = ItemKinds(kinds).rawValue
        let statement = try db.cachedStatement(sql: """
            SELECT collection, name, ordinal, kind, startInstant, endInstant, listing, week
            FROM occurrence
            WHERE zone = ? AND week BETWEEN ? AND ? AND (kind & ?) != 0 AND startInstant < ?
                AND (endInstant > ? OR (endInstant = startInstant AND startInstant >= ?))
            """)
        try statement.setArguments([zoneKey, weeks.lowerBound, weeks.upperBound, mask, window.upperBound,
                                    window.lowerBound, window.lowerBound])
        // Read with SQLite's own calls: a month of a large store is thousands of rows, and
        // GRDB's generic row decoding costs more than the query.
        let handle = statement.sqliteStatement
        var allowed: [Bool] = []   // by collection index
        // Address space rather than memory: the untouched pages of a large allocation are
        // never faulted in, and the buffers are not copied (and their pages faulted in
        // again) each time they grow. A month of a 100,000-event store is about 8 MB of
        // records; a larger window grows as usual.
        result.packed.reserveCapacity(bytes: 64 << 20, records: 1 << 17)
        result.found.reserveCapacity(1 << 17)
        defer { sqlite3_reset(handle) }
        while true {
            let step = sqlite3_step(handle)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
            }
            let collection = result.collectionIndex(UnsafeRawBufferPointer(start: sqlite3_column_text(handle, 0),
                                                                          count: Int(sqlite3_column_bytes(handle, 0))))
            if collection == allowed.count { allowed.append(collections?.contains(result.collections[collection]) ?? true) }
            guard allowed[collection] else { continue }
            let name = UnsafeRawBufferPointer(start: sqlite3_column_text(handle, 1), count: Int(sqlite3_column_bytes(handle, 1)))
            let payload = UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, 6), count: Int(sqlite3_column_bytes(handle, 6)))
            guard result.append(payload: payload, startInstant: sqlite3_column_int64(handle, 4),
                                endInstant: sqlite3_column_int64(handle, 5),
                                componentName: OccurrenceCache.componentName(sqlite3_column_int64(handle, 3)),
                                collection: collection, name: name, ordinal: Int(sqlite3_column_int64(handle, 2)),
                                week: sqlite3_column_int64(handle, 7)) else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "an occurrence row of the index cannot be read")
            }
        }
        guard !rowsOnly else { return result }
        // The candidates' diagnostics, and the items to expand now.
        let uncached = try uncachedCandidates(db, window: window, weeks: weeks, zoneKey: zoneKey, collections: collections, kinds: kinds)
        result.uncached = uncached
        result.notes = try notes(db, window: window, collections: collections, kinds: kinds, except: Set(uncached))
        return result
    }

    /// Whether an `item` row (its kinds, state, first start and last end from `column` on)
    /// is a candidate of a window for kinds (``ItemKinds`` bits).
    private static func isCandidate(_ row: Row, from column: Int, window: Range<Int64>, mask: Int64) -> Bool {
        let itemKinds: Int64 = row[column], state: Int64 = row[column + 1]
        if state == IndexSchema.broken { return true }
        guard itemKinds & mask != 0 else { return false }
        if state == IndexSchema.undated { return true }
        let firstStart: Int64? = row[column + 2], lastEnd: Int64? = row[column + 3]
        guard let firstStart, firstStart < window.upperBound else { return false }
        return lastEnd.map { $0 >= window.lowerBound } ?? true
    }

    /// The items of a window's weeks that each query expands itself (``OccurrenceCache``'s
    /// `uncached`), among the window's candidates of `collections` (nil: all) and kinds.
    func uncachedCandidates(_ db: Database, window: Range<Int64>, weeks: ClosedRange<Int64>, zoneKey: String,
                            collections: Set<String>?, kinds: Set<ComponentKind>) throws -> [ItemKey] {
        let mask = ItemKinds(kinds).rawValue
        // CROSS JOIN: SQLite keeps the small table outside (it might otherwise scan `item`).
        let uncached = try Row.fetchAll(db, sql: """
            SELECT DISTINCT u.collection, u.name, i.kinds, i.state, i.firstStart, i.lastEnd
            FROM uncached u CROSS JOIN item i ON i.collection = u.collection AND i.name = u.name
            WHERE u.zone = ? AND u.week BETWEEN ? AND ?
            """, arguments: [zoneKey, weeks.lowerBound, weeks.upperBound])
        var direct = Set<ItemKey>(), keys: [ItemKey] = []
        for row in uncached where collections?.contains(row[0]) ?? true && Self.isCandidate(row, from: 2, window: window, mask: mask) {
            let key = ItemKey(collection: row[0], name: row[1])
            if direct.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    /// The diagnostics kept for the window's candidates of `collections` (nil: all) and kinds,
    /// except those of the items in `direct` (which a query reads itself).
    func notes(_ db: Database, window: Range<Int64>, collections: Set<String>?, kinds: Set<ComponentKind>,
               except direct: Set<ItemKey>) throws -> [(key: ItemKey, read: [Diagnostic], query: [Diagnostic])] {
        let mask = ItemKinds(kinds).rawValue
        var notes: [(key: ItemKey, read: [Diagnostic], query: [Diagnostic])] = []
        let decoder = JSONDecoder()
        for row in try Row.fetchAll(db, sql: """
            SELECT n.collection, n.name, n.readDiagnostics, n.zoneDiagnostics, i.kinds, i.state, i.firstStart, i.lastEnd
            FROM note n CROSS JOIN item i ON i.collection = n.collection AND i.name = n.name
            """) where collections?.contains(row[0]) ?? true && Self.isCandidate(row, from: 4, window: window, mask: mask) {
            let key = ItemKey(collection: row[0], name: row[1])
            guard !direct.contains(key) else { continue }
            let read = try decoder.decode([Diagnostic].self, from: Data((row[2] as String).utf8))
            let zones = try decoder.decode([Diagnostic].self, from: Data((row[3] as String).utf8))
            notes.append((key, read, zones))
        }
        return notes
    }
}
