import Foundation
import GRDB
import GRDBSQLite
import ICalKit

/// The rendered weeks of a window: the answer of ``StoreIndex/renderedWeeks(window:collections:kinds:floatingZone:style:render:)``.
package struct RenderedAnswer: Sendable {
    /// The weeks and what chooses their entries.
    package var weeks: RenderedWeeks
    /// As ``CachedListings/diagnostics``.
    package var diagnostics: [Diagnostic]
    /// Weeks rendered by this call (0 when every week was rendered already).
    package var renderedWeeks: Int
}

extension StoreIndex {
    /// The identity of the running program's file (device, inode, size, modification time),
    /// part of every rendering's style: rendered bytes are those of the formatter that wrote
    /// them, so another build of the program (an upgrade, a rebuild) renders again. Nil when
    /// it cannot be read: nothing is rendered then.
    static let programIdentity: String? = {
        // stat follows /proc/self/exe to the program's file.
        var info = stat()
        guard stat("/proc/self/exe", &info) == 0 else { return nil }
        let identity = StoreSystem.identity(info)
        return "\(identity.device):\(identity.inode):\(identity.size):\(identity.modificationSeconds).\(identity.modificationNanoseconds)"
    }()

    /// A window's occurrences as rendered weeks (``RenderedWeek``): each week of the
    /// occurrence cache written ahead in one output style, so that a repeated query copies
    /// bytes instead of reading and writing every occurrence.
    ///
    /// - Parameters:
    ///   - style: what the rendering depends on besides the floating zone (the format, and
    ///     whether times are shown in a display zone); the program's identity is added.
    ///   - render: writes one week's listings (as ``cachedPackedListings(window:collections:kinds:floatingZone:)``
    ///     gives them: every occurrence intersecting the week, in the query's order).
    /// - Returns: nil when the cache does not answer (as ``cachedPackedListings(window:collections:kinds:floatingZone:)``
    ///   returns nil), or when items of the window are expanded by each query (`uncached`):
    ///   use the listings then. The entries ``RenderedWeeks/forEach(_:)`` chooses are, in
    ///   order, the listings ``cachedPackedListings(window:collections:kinds:floatingZone:)``
    ///   returns, and the diagnostics are the same.
    ///
    /// A week is rendered the first time a style asks for it after the index's generation
    /// changed (any refresh that changes a row), and stored when the generation is still the
    /// one it was read in; renderings of older generations are dropped then.
    package func renderedWeeks(window: Range<Int64>, collections: Set<String>, kinds: Set<ComponentKind>,
                               floatingZone: any TimeZoneRules, style: String,
                               render: (PackedListings) -> [UInt8]) throws(StoreError) -> RenderedAnswer? {
        guard let program = Self.programIdentity, let zoneKey = OccurrenceCache.key(for: floatingZone), !window.isEmpty,
              window.count <= OccurrenceCache.longestCachedWindow,
              window.lowerBound >= -62_135_596_800, window.upperBound <= 253_402_300_800 else { return nil }
        let style = style + "; program " + program
        let weeks = OccurrenceCache.weeks(window)
        guard try fillMissingWeeks(weeks, zoneKey: zoneKey, zone: floatingZone) != nil else { return nil }
        let allKinds: Set<ComponentKind> = [.event, .todo, .journal]

        struct Snapshot {
            var generation: Int64
            var weeks: [(start: Int64, week: RenderedWeek)] = []
            var fresh: [(week: Int64, bytes: [UInt8])] = []
            var diagnostics: [Diagnostic] = []
        }
        let snapshot: Snapshot? = try withDatabase { queue in
            try queue.read { db -> Snapshot? in
                guard try uncachedCandidates(db, window: window, weeks: weeks, zoneKey: zoneKey, collections: collections,
                                             kinds: kinds).isEmpty else { return nil }
                var snapshot = Snapshot(generation: try OccurrenceCache.generation(db))
                // Every week must still be cached (another process may have dropped the cache
                // since they were filled): a week's rendering is made from all its rows.
                let present = try Int.fetchOne(db, sql: "SELECT count(*) FROM week WHERE zone = ? AND week BETWEEN ? AND ?",
                                               arguments: [zoneKey, weeks.lowerBound, weeks.upperBound]) ?? 0
                guard present == weeks.count else { return nil }
                // The stored weeks' bytes are read into one block: with SQLite's incremental
                // blob reads, straight from the database's pages (a rowid table for that),
                // rather than copied from SQLite's own buffer of each value.
                var found: [(rowid: Int64, week: Int64, offset: Int, count: Int)] = []
                var total = 0
                for row in try Row.fetchAll(db, sql: """
                    SELECT rowid, week, length(bytes) FROM rendering
                    WHERE zone = ? AND style = ? AND generation = ? AND week BETWEEN ? AND ?
                    """, arguments: [zoneKey, style, snapshot.generation, weeks.lowerBound, weeks.upperBound]) {
                    let count: Int = row[2]
                    found.append((row[0], row[1], total, count))
                    total += count
                }
                var stored: [Int64: RenderedWeek] = [:]
                if !found.isEmpty {
                    let storage = RenderedStorage(capacity: total)
                    for entry in found {
                        var blob: OpaquePointer?
                        guard sqlite3_blob_open(db.sqliteConnection, "main", "rendering", "bytes", entry.rowid, 0, &blob) == SQLITE_OK else {
                            sqlite3_blob_close(blob)
                            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a rendering of the index cannot be read")
                        }
                        let read = sqlite3_blob_bytes(blob) == Int32(entry.count)
                            && sqlite3_blob_read(blob, storage.base + entry.offset, Int32(entry.count), 0) == SQLITE_OK
                        sqlite3_blob_close(blob)
                        // A rendering that cannot be read is rendered again.
                        if read, let week = RenderedWeek(validating: storage, offset: entry.offset, count: entry.count) {
                            stored[entry.week] = week
                        }
                    }
                }
                for week in weeks {
                    if let known = stored[week] {
                        snapshot.weeks.append((week * OccurrenceCache.week, known))
                        continue
                    }
                    let span = OccurrenceCache.window(week...week)
                    let rows = try read(db, window: span, weeks: week...week, zoneKey: zoneKey, collections: nil, kinds: allKinds,
                                        rowsOnly: true)
                    let bytes = render(rows.sortedListings())
                    guard let rendered = RenderedWeek(validating: bytes) else { return nil }
                    snapshot.weeks.append((week * OccurrenceCache.week, rendered))
                    snapshot.fresh.append((week, bytes))
                }
                snapshot.diagnostics = Self.diagnostics(of: try notes(db, window: window, collections: collections,
                                                                      kinds: kinds, except: []))
                return snapshot
            }
        }
        guard let snapshot else { return nil }
        if !snapshot.fresh.isEmpty {
            // Stored only for the generation it was read in; a failure to store costs the
            // next query a rendering, not this one its answer.
            _ = try? withDatabase { queue in
                try queue.inTransaction(.immediate) { db -> Database.TransactionCompletion in
                    guard try OccurrenceCache.generation(db) == snapshot.generation else { return .rollback }
                    // Renderings of older generations or other programs are not read again.
                    try db.execute(sql: "DELETE FROM rendering WHERE generation != ?1 OR substr(style, -length(?2)) != ?2",
                                   arguments: [snapshot.generation, "; program " + program])
                    let insert = try db.cachedStatement(sql: """
                        INSERT OR REPLACE INTO rendering (zone, style, week, generation, bytes) VALUES (?, ?, ?, ?, ?)
                        """)
                    for (week, bytes) in snapshot.fresh {
                        try insert.execute(arguments: [zoneKey, style, week, snapshot.generation, Data(bytes)])
                    }
                    return .commit
                }
            }
        }
        let rendered = RenderedWeeks(weeks: snapshot.weeks, window: window, kinds: UInt8(ItemKinds(kinds).rawValue),
                                     collections: collections)
        return RenderedAnswer(weeks: rendered, diagnostics: snapshot.diagnostics, renderedWeeks: snapshot.fresh.count)
    }
}
