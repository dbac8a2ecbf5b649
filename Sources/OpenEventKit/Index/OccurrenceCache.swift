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

        static func read(_ db: Database, store: FolderStore) throws -> State {
            let generation = try OccurrenceCache.generation(db)
            let recorded = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'cache'")
            let hasRows = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM week)") ?? false
            guard recorded == fingerprint(store: store) else {
                return State(generation: generation, weeks: [:], isStale: hasRows || recorded != nil)
            }
            var weeks: [String: [Int64]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT zone, week FROM week ORDER BY zone, week") {
                weeks[row[0], default: []].append(row[1])
            }
            return State(generation: generation, weeks: weeks, isStale: false)
        }
    }

    static func generation(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'generation'") ?? 0
    }

    static func bumpGeneration(_ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('generation', ?)",
                       arguments: [try generation(db) + 1])
    }

    /// Drops every cached row and records the current fingerprint.
    static func clear(_ db: Database, store: FolderStore) throws {
        for table in ["week", "occurrence", "note", "uncached"] { try db.execute(sql: "DELETE FROM \(table)") }
        try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('cache', ?)", arguments: [fingerprint(store: store)])
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

    /// One cached occurrence.
    struct Cached: Sendable {
        var zone: String
        var week: Int64
        var key: ItemKey
        var ordinal: Int
        var kind: Int64
        var recurrenceLocal: Int64
        var listing: OccurrenceListing
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
                for week in first...last where OccurrenceExpander.intersects(listing.startInstant, listing.endInstant, window(week...week)) {
                    collected.append(Cached(zone: zoneKey, week: week, key: key, ordinal: ordinal, kind: kind,
                                         recurrenceLocal: match.occurrence.recurrenceIdentifier.local.secondsSinceEpoch,
                                         listing: listing))
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
        for row in rows.occurrences {
            let listing = row.listing
            try occurrence.execute(arguments: [row.zone, row.week, listing.startInstant, row.key.collection, row.key.name,
                                               row.ordinal, row.kind, listing.endInstant,
                                               Data(ListingPayload.encode(listing, recurrenceLocal: row.recurrenceLocal))])
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

    /// A date-time's form (0 floating, 1 UTC, 2 with a TZID; plus 4 for a date) and TZID.
    static func form(_ value: DateTime) -> (form: Int64, zone: String?) {
        let date: Int64 = value.isDate ? 4 : 0
        switch value.zone {
        case .floating: return (date, nil)
        case .utc: return (date + 1, nil)
        case .identifier(let tzid): return (date + 2, tzid)
        }
    }

    /// The date-time of a stored form.
    static func dateTime(local: Int64, form: Int64, zone: String?) -> DateTime {
        var value = DateTime(LocalDateTime(secondsSinceEpoch: local))
        value.isDate = form & 4 != 0
        switch form & 3 {
        case 1: value.zone = .utc
        case 2: value.zone = .identifier(zone ?? "")
        default: value.zone = .floating
        }
        return value
    }

    /// The component name of a kind bit.
    static func componentName(_ kind: Int64) -> String {
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
        guard let zoneKey = OccurrenceCache.key(for: floatingZone), !window.isEmpty,
              window.count <= OccurrenceCache.longestCachedWindow,
              window.lowerBound >= -62_135_596_800, window.upperBound <= 253_402_300_800 else { return nil }
        let weeks = OccurrenceCache.weeks(window)
        let store = self.store
        // Fill the missing weeks.
        var cache = try withDatabase { queue in try queue.read { db in try OccurrenceCache.State.read(db, store: store) } }
        if cache.isStale {
            try withDatabase { queue in
                try queue.inTransaction(.immediate) { db in
                    try OccurrenceCache.clear(db, store: store)
                    return .commit
                }
            }
            cache = try withDatabase { queue in try queue.read { db in try OccurrenceCache.State.read(db, store: store) } }
        }
        let cached = Set(cache.weeks[zoneKey] ?? [])
        let missing = weeks.filter { !cached.contains($0) }
        if !missing.isEmpty {
            let rows = try fill(OccurrenceCache.runs(missing), zoneKey: zoneKey, zone: floatingZone)
            let stored: Bool = try withDatabase { queue in
                try queue.inTransaction(.immediate) { db -> Database.TransactionCompletion in
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
                return try queue.read { db in try OccurrenceCache.generation(db) == cache.generation }
            }
            guard stored else { return nil }
        }
        var result = try withDatabase { queue in
            try queue.read { db in
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
                    result.found.append(Found(listing: listing, key: entry.key, ordinal: ordinal,
                                              recurrenceLocal: recurrenceLocal, week: Int64.min))
                }
            }
        }
        return CachedListings(listings: result.sortedListings(), diagnostics: result.diagnostics(),
                              filledWeeks: missing.count)
    }

    /// Computes the rows of runs of weeks: the candidates of each run, each read once and
    /// expanded over the runs it is a candidate of, on every core.
    private func fill(_ runs: [ClosedRange<Int64>], zoneKey: String, zone: any TimeZoneRules) throws(StoreError) -> OccurrenceCache.Rows {
        var runsOf: [ItemKey: [ClosedRange<Int64>]] = [:]
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
        DispatchQueue.concurrentPerform(iterations: chunks) { index in
            var rows = OccurrenceCache.Rows()
            for (key, itemRuns) in work[(index * chunk)..<min(work.count, (index + 1) * chunk)] {
                // A file that cannot be reached is skipped, as a query skips it.
                guard let read = try? store.readItem(in: key.collection, name: key.name) else { continue }
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

    /// One occurrence read from the cache (or expanded now), with its sort keys.
    fileprivate struct Found {
        var listing: OccurrenceListing
        var key: ItemKey
        var ordinal: Int
        var recurrenceLocal: Int64
        /// The week of the row (`Int64.min` for an occurrence expanded now).
        var week: Int64
    }

    /// What the cache's tables hold for a window.
    fileprivate struct ReadResult {
        var found: [Found] = []
        var notes: [(key: ItemKey, read: [Diagnostic], query: [Diagnostic])] = []
        var uncached: [ItemKey] = []

        /// Sorted as ``OccurrenceQuery`` sorts (start, end, UID, RECURRENCE-ID's local time,
        /// then the order found: collection, file name, order in the item), each occurrence
        /// once (one found in several weeks is kept from the earliest).
        func sortedListings() -> [OccurrenceListing] {
            // Sort positions (not the large values), by integers first.
            let starts = found.map { $0.listing.startInstant }, ends = found.map { $0.listing.endInstant }
            let order = found.withUnsafeBufferPointer { found in
                Array(found.indices).sorted { i, j in
                    if starts[i] != starts[j] { return starts[i] < starts[j] }
                    if ends[i] != ends[j] { return ends[i] < ends[j] }
                    let a = found[i], b = found[j]
                    if a.listing.uid != b.listing.uid { return a.listing.uid < b.listing.uid }
                    if a.recurrenceLocal != b.recurrenceLocal { return a.recurrenceLocal < b.recurrenceLocal }
                    if a.key.collection != b.key.collection { return a.key.collection < b.key.collection }
                    if a.key.name != b.key.name { return a.key.name < b.key.name }
                    if a.week != b.week { return a.week < b.week }
                    return a.ordinal < b.ordinal
                }
            }
            var listings: [OccurrenceListing] = []
            listings.reserveCapacity(order.count)
            var groupWeek: Int64?
            for (position, index) in order.enumerated() {
                let sameGroup = position > 0 && {
                    let previous = order[position - 1]
                    guard starts[previous] == starts[index] && ends[previous] == ends[index] else { return false }
                    let a = found[previous], b = found[index]
                    return a.listing.uid == b.listing.uid && a.recurrenceLocal == b.recurrenceLocal && a.key == b.key
                }()
                if !sameGroup { groupWeek = found[index].week }
                if found[index].week == groupWeek { listings.append(found[index].listing) }
            }
            return listings
        }

        /// Every candidate's read diagnostics, then every one's time-zone and budget ones,
        /// candidates in collection and file-name order.
        func diagnostics() -> [Diagnostic] {
            let ordered = notes.sorted { ($0.key.collection, $0.key.name) < ($1.key.collection, $1.key.name) }
            return ordered.flatMap(\.read) + ordered.flatMap(\.query)
        }
    }

    /// Reads a window's rows, notes and uncached items.
    private func read(_ db: Database, window: Range<Int64>, weeks: ClosedRange<Int64>, zoneKey: String,
                      collections: Set<String>, kinds: Set<ComponentKind>) throws -> ReadResult {
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
        func text(_ column: Int32) -> String {
            guard let bytes = sqlite3_column_text(handle, column) else { return "" }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
        }
        var collectionNames: [String] = []   // one String per collection
        result.found.reserveCapacity(4096)
        defer { sqlite3_reset(handle) }
        while true {
            let step = sqlite3_step(handle)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
            }
            let collectionBytes = UnsafeRawBufferPointer(start: sqlite3_column_text(handle, 0), count: Int(sqlite3_column_bytes(handle, 0)))
            let collection: String
            if let known = collectionNames.first(where: { $0.utf8.elementsEqual(collectionBytes) }) {
                collection = known
            } else {
                collection = text(0)
                collectionNames.append(collection)
            }
            guard collections.contains(collection) else { continue }
            let name = text(1)
            let payload = UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, 6), count: Int(sqlite3_column_bytes(handle, 6)))
            guard let (listing, recurrenceLocal) = ListingPayload.decode(
                payload, startInstant: sqlite3_column_int64(handle, 4), endInstant: sqlite3_column_int64(handle, 5),
                componentName: OccurrenceCache.componentName(sqlite3_column_int64(handle, 3)), source: collection + "/" + name) else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "an occurrence row of the index cannot be read")
            }
            result.found.append(Found(listing: listing, key: ItemKey(collection: collection, name: name),
                                      ordinal: Int(sqlite3_column_int64(handle, 2)), recurrenceLocal: recurrenceLocal,
                                      week: sqlite3_column_int64(handle, 7)))
        }
        // The candidates' diagnostics, and the items to expand now.
        func isCandidate(_ row: Row, from column: Int) -> Bool {
            let itemKinds: Int64 = row[column], state: Int64 = row[column + 1]
            if state == IndexSchema.broken { return true }
            guard itemKinds & mask != 0 else { return false }
            if state == IndexSchema.undated { return true }
            let firstStart: Int64? = row[column + 2], lastEnd: Int64? = row[column + 3]
            guard let firstStart, firstStart < window.upperBound else { return false }
            return lastEnd.map { $0 >= window.lowerBound } ?? true
        }
        // CROSS JOIN: SQLite keeps the small table outside (it might otherwise scan `item`).
        let uncached = try Row.fetchAll(db, sql: """
            SELECT DISTINCT u.collection, u.name, i.kinds, i.state, i.firstStart, i.lastEnd
            FROM uncached u CROSS JOIN item i ON i.collection = u.collection AND i.name = u.name
            WHERE u.zone = ? AND u.week BETWEEN ? AND ?
            """, arguments: [zoneKey, weeks.lowerBound, weeks.upperBound])
        var direct = Set<ItemKey>()
        for row in uncached where collections.contains(row[0]) && isCandidate(row, from: 2) {
            let key = ItemKey(collection: row[0], name: row[1])
            if direct.insert(key).inserted { result.uncached.append(key) }
        }
        let decoder = JSONDecoder()
        for row in try Row.fetchAll(db, sql: """
            SELECT n.collection, n.name, n.readDiagnostics, n.zoneDiagnostics, i.kinds, i.state, i.firstStart, i.lastEnd
            FROM note n CROSS JOIN item i ON i.collection = n.collection AND i.name = n.name
            """) where collections.contains(row[0]) && isCandidate(row, from: 4) {
            let key = ItemKey(collection: row[0], name: row[1])
            guard !direct.contains(key) else { continue }
            let read = try decoder.decode([Diagnostic].self, from: Data((row[2] as String).utf8))
            let zones = try decoder.decode([Diagnostic].self, from: Data((row[3] as String).utf8))
            result.notes.append((key, read, zones))
        }
        return result
    }
}

/// The `listing` blob of an `occurrence` row: what an ``OccurrenceListing`` holds besides
/// its instants, component kind and source (which are columns or follow from them), in one
/// value, so that reading a row is one column rather than sixteen.
///
/// Layout (integers little-endian): version byte 1; `Int64` RECURRENCE-ID local time, start
/// local time, end local time; `UInt8` start form, end form (see ``OccurrenceCache/form(_:)``)
/// and flags (1 all-day, 2 start offset present, 4 end offset present); `Int32` start and end
/// offsets when present; then eight strings, each a `UInt32` byte count (`0xFFFFFFFF` for
/// none) and its UTF-8 bytes: UID, RECURRENCE-ID text, summary, location, status, start
/// TZID, end TZID, zone name; then a `UInt8` count of conference links (RFC 7986
/// `CONFERENCE`) and, for each, two strings: its label and its URI. Version 1 had no links.
enum ListingPayload {
    static let version: UInt8 = 2

    static func encode(_ listing: OccurrenceListing, recurrenceLocal: Int64) -> [UInt8] {
        var out: [UInt8] = [version]
        out.reserveCapacity(64 + listing.uid.utf8.count + (listing.summary?.utf8.count ?? 0) + (listing.location?.utf8.count ?? 0))
        func integer<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func text(_ value: String?) {
            guard let value else { return integer(UInt32.max) }
            integer(UInt32(value.utf8.count))
            out.append(contentsOf: value.utf8)
        }
        let start = OccurrenceCache.form(listing.start), end = OccurrenceCache.form(listing.end)
        integer(recurrenceLocal)
        integer(listing.start.local.secondsSinceEpoch)
        integer(listing.end.local.secondsSinceEpoch)
        out.append(UInt8(start.form))
        out.append(UInt8(end.form))
        out.append((listing.isAllDay ? 1 : 0) | (listing.startOffset != nil ? 2 : 0) | (listing.endOffset != nil ? 4 : 0))
        if let offset = listing.startOffset { integer(Int32(clamping: offset)) }
        if let offset = listing.endOffset { integer(Int32(clamping: offset)) }
        for value in [listing.uid, listing.recurrenceIdentifier, listing.summary, listing.location, listing.status,
                      start.zone, end.zone, listing.zoneName] {
            text(value)
        }
        let links = listing.conferences.prefix(Int(UInt8.max))
        out.append(UInt8(links.count))
        for link in links {
            text(link.label)
            text(link.uri)
        }
        return out
    }

    /// The listing of a blob, or nil when the blob is not one this version wrote.
    static func decode(_ bytes: UnsafeRawBufferPointer, startInstant: Int64, endInstant: Int64, componentName: String,
                       source: String) -> (OccurrenceListing, recurrenceLocal: Int64)? {
        var position = 0
        func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard position + MemoryLayout<T>.size <= bytes.count else { return nil }
            defer { position += MemoryLayout<T>.size }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: T.self))
        }
        func text() -> String?? {
            guard let count = integer(UInt32.self) else { return nil }
            if count == UInt32.max { return .some(nil) }
            guard position + Int(count) <= bytes.count else { return nil }
            defer { position += Int(count) }
            return .some(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + Int(count))]), as: UTF8.self))
        }
        guard integer(UInt8.self) == version, let recurrenceLocal = integer(Int64.self), let startLocal = integer(Int64.self),
              let endLocal = integer(Int64.self), let startForm = integer(UInt8.self), let endForm = integer(UInt8.self),
              let flags = integer(UInt8.self) else { return nil }
        var startOffset: Int?, endOffset: Int?
        if flags & 2 != 0 { guard let value = integer(Int32.self) else { return nil }; startOffset = Int(value) }
        if flags & 4 != 0 { guard let value = integer(Int32.self) else { return nil }; endOffset = Int(value) }
        guard let uid = text(), let uid, let recurrenceText = text(), let summary = text(), let location = text(),
              let status = text(), let startZone = text(), let endZone = text(), let zoneName = text(),
              let linkCount = integer(UInt8.self) else { return nil }
        var conferences: [OccurrenceListing.ConferenceLink] = []
        for _ in 0..<linkCount {
            guard let label = text(), let uri = text(), let uri else { return nil }
            conferences.append(OccurrenceListing.ConferenceLink(label: label, uri: uri))
        }
        guard position == bytes.count else { return nil }
        let listing = OccurrenceListing(
            uid: uid, recurrenceIdentifier: recurrenceText, summary: summary, location: location, status: status,
            componentName: componentName,
            start: OccurrenceCache.dateTime(local: startLocal, form: Int64(startForm), zone: startZone),
            end: OccurrenceCache.dateTime(local: endLocal, form: Int64(endForm), zone: endZone),
            startInstant: startInstant, endInstant: endInstant, startOffset: startOffset, endOffset: endOffset,
            zoneName: zoneName, isAllDay: flags & 1 != 0, source: source, conferences: conferences)
        return (listing, recurrenceLocal)
    }
}
