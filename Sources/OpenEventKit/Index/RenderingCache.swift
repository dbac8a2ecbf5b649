import Foundation
import GRDB
import GRDBSQLite
import ICalKit

/// What ``StoreIndex/renderedWeeks(window:collections:kinds:floatingZone:style:render:begin:write:)``
/// answered with, once it gave the weeks.
package struct RenderedAnswer: Sendable {
    /// As ``CachedListings/diagnostics`` (given to `begin` too).
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

    /// The bytes of a stored rendering read and checked at a time: 64 KiB, well inside the
    /// processor's second-level cache.
    static let renderingPiece = 1 << 16

    /// A window's occurrences as rendered weeks (``RenderedWeek``): each week of the
    /// occurrence cache written ahead in one output style, so that a repeated query copies
    /// bytes instead of reading and writing every occurrence.
    ///
    /// The weeks are given one at a time, in order, inside one read of the index (so all of
    /// one generation): a query holds one week's bytes, read in pieces that are checked
    /// while they are in the processor's cache, and writes it before the next is read.
    ///
    /// - Parameters:
    ///   - style: what the rendering depends on besides the floating zone (the format, and
    ///     whether times are shown in a display zone); the program's identity is added.
    ///   - render: writes one week's listings (as ``cachedPackedListings(window:collections:kinds:floatingZone:)``
    ///     gives them: every occurrence intersecting the week, in the query's order).
    ///   - begin: called once, before the first week, when the cache answers: what chooses
    ///     the weeks' entries and the answer's diagnostics. An error thrown after it (the
    ///     index cannot be read on) leaves the answer incomplete: it must not be answered
    ///     again another way.
    ///   - write: called with each week of the window and its first instant; the week is
    ///     valid only during the call, and of its entries' bytes only those of the entries
    ///     the selection given to `begin` chooses were read (its heads all were). False
    ///     stops: no later week is read.
    /// - Returns: nil, before anything was given, when the cache does not answer (as
    ///   ``cachedPackedListings(window:collections:kinds:floatingZone:)`` returns nil), or
    ///   when items of the window are expanded by each query (`uncached`): use the listings
    ///   then. The entries ``RenderedSelection/chooses(_:in:startingAt:)`` chooses from the weeks
    ///   are, in order, the listings ``cachedPackedListings(window:collections:kinds:floatingZone:)``
    ///   returns, and the diagnostics are the same.
    ///
    /// A week is rendered the first time a style asks for it after the index's generation
    /// changed (any refresh that changes a row), and stored when the generation is still the
    /// one it was read in; renderings of older generations are dropped then.
    package func renderedWeeks(window: Range<Int64>, collections: Set<String>, kinds: Set<ComponentKind>,
                               floatingZone: any TimeZoneRules, style: String,
                               render: (PackedListings) -> [UInt8],
                               begin: (RenderedSelection, [Diagnostic]) -> Void,
                               write: (RenderedWeek, Int64) -> Bool) throws(StoreError) -> RenderedAnswer? {
        guard let program = Self.programIdentity, let zoneKey = OccurrenceCache.key(for: floatingZone), !window.isEmpty,
              window.count <= OccurrenceCache.longestCachedWindow,
              window.lowerBound >= -62_135_596_800, window.upperBound <= 253_402_300_800 else { return nil }
        let style = style + "; program " + program
        let weeks = OccurrenceCache.weeks(window)
        guard try fillMissingWeeks(weeks, zoneKey: zoneKey, zone: floatingZone) != nil else { return nil }
        let allKinds: Set<ComponentKind> = [.event, .todo, .journal]
        let selection = RenderedSelection(window: window, kinds: UInt8(ItemKinds(kinds).rawValue), collections: collections)

        struct Snapshot {
            var generation: Int64
            var fresh: [(week: Int64, bytes: [UInt8])] = []
            var diagnostics: [Diagnostic] = []
        }
        let snapshot: Snapshot? = try withDatabase { queue in
            try queue.read { db -> Snapshot? in
                // One small statement says which of the larger ones to run: usually no item of
                // the window is expanded by each query, and no item has diagnostics (each of
                // those joins costs more to prepare than this whole statement).
                let counts = try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT (SELECT count(*) FROM week WHERE zone = ?1 AND week BETWEEN ?2 AND ?3),
                           EXISTS (SELECT 1 FROM uncached WHERE zone = ?1 AND week BETWEEN ?2 AND ?3),
                           EXISTS (SELECT 1 FROM note)
                    """), arguments: [zoneKey, weeks.lowerBound, weeks.upperBound])
                let present: Int = counts?[0] ?? 0, anyUncached: Bool = counts?[1] ?? true, anyNote: Bool = counts?[2] ?? true
                guard try !anyUncached || uncachedCandidates(db, window: window, weeks: weeks, zoneKey: zoneKey,
                                                              collections: collections, kinds: kinds).isEmpty else { return nil }
                var snapshot = Snapshot(generation: try OccurrenceCache.generation(db))
                // Every week must still be cached (another process may have dropped the cache
                // since they were filled): a week's rendering is made from all its rows.
                guard present == weeks.count else { return nil }
                if anyNote {
                    snapshot.diagnostics = Self.diagnostics(of: try notes(db, window: window, collections: collections,
                                                                          kinds: kinds, except: []))
                }
                // The stored weeks, read later one at a time into one block: with SQLite's
                // incremental blob reads, straight from the database's pages (a rowid table
                // for that), rather than copied from SQLite's own buffer of each value.
                var stored: [Int64: (rowid: Int64, count: Int)] = [:]
                var largest = 0
                for row in try Row.fetchAll(db, sql: """
                    SELECT rowid, week, length(bytes) FROM rendering
                    WHERE zone = ? AND style = ? AND generation = ? AND week BETWEEN ? AND ?
                    """, arguments: [zoneKey, style, snapshot.generation, weeks.lowerBound, weeks.upperBound]) {
                    let count: Int = row[2]
                    stored[row[1]] = (row[0], count)
                    largest = max(largest, count)
                }
                begin(selection, snapshot.diagnostics)
                let storage = RenderedStorage(capacity: largest)
                // The selection as the writer holds it, advanced once per week given.
                var reading = selection
                for week in weeks {
                    let rendered: RenderedWeek
                    if let known = stored[week], let readBack = try Self.readRendering(db, rowid: known.rowid, count: known.count,
                                                                                       into: storage, choosing: reading,
                                                                                       start: week * OccurrenceCache.week) {
                        rendered = readBack
                    } else {
                        // Not stored, or a stored rendering that cannot be read: rendered again.
                        let span = OccurrenceCache.window(week...week)
                        let rows = try read(db, window: span, weeks: week...week, zoneKey: zoneKey, collections: nil, kinds: allKinds,
                                            rowsOnly: true)
                        let bytes = render(rows.sortedListings())
                        guard let made = RenderedWeek(validating: bytes) else {
                            throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "a week was rendered in no known layout")
                        }
                        rendered = made
                        snapshot.fresh.append((week, bytes))
                    }
                    _ = reading.next(rendered)
                    guard write(rendered, week * OccurrenceCache.week) else { break }
                }
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
        return RenderedAnswer(diagnostics: snapshot.diagnostics, renderedWeeks: snapshot.fresh.count)
    }

    /// A stored rendering read into `storage` at its start: the header and every head, in
    /// pieces each checked while it is still in the processor's cache
    /// (``RenderedWeek/Validation``), then only the bytes of the entries `selection` (as the
    /// writer holds it before this week, the week starting at `start`) chooses: the heads are
    /// in the query's order, so those are one range. A week the window covers in part (a
    /// month's first and last, any window shorter than a week) is not read whole. Nil when
    /// it cannot be read or is not a whole rendered week.
    private static func readRendering(_ db: Database, rowid: Int64, count: Int, into storage: RenderedStorage,
                                      choosing selection: RenderedSelection, start: Int64) throws -> RenderedWeek? {
        guard count <= storage.capacity else { return nil }
        var blob: OpaquePointer?
        guard sqlite3_blob_open(db.sqliteConnection, "main", "rendering", "bytes", rowid, 0, &blob) == SQLITE_OK else {
            sqlite3_blob_close(blob)
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a rendering of the index cannot be read")
        }
        defer { sqlite3_blob_close(blob) }
        guard sqlite3_blob_bytes(blob) == Int32(count) else { return nil }
        func read(_ range: Range<Int>) -> Bool {
            var at = range.lowerBound
            while at < range.upperBound {
                let piece = min(range.upperBound - at, renderingPiece)
                guard sqlite3_blob_read(blob, storage.base + at, Int32(piece), Int32(at)) == SQLITE_OK else { return false }
                at += piece
            }
            return true
        }
        var validation = RenderedWeek.Validation(byteCount: count)
        var done = 0
        while done < (validation.headsEnd ?? count) {
            let piece = min(count - done, renderingPiece)
            guard read(done..<(done + piece)), validation.advance(storage.base, available: done + piece) else { return nil }
            done += piece
        }
        guard validation.acceptUnreadEntries(storage.base),
              let week = RenderedWeek(validated: validation, storage: storage) else { return nil }
        let choice = selection.choice(in: week)
        var lower = Int.max, upper = 0
        if let chosenRun = week.chosenRun(selection, in: choice, startingAt: start) {
            if !chosenRun.bytes.isEmpty { (lower, upper) = (chosenRun.bytes.lowerBound, chosenRun.bytes.upperBound) }
        } else {
            var heads = week.makeHeads()
            while let head = heads.next() {
                guard selection.chooses(head, in: choice, startingAt: start), let address = head.bytes.baseAddress else { continue }
                let offset = address - UnsafeRawPointer(storage.base)
                lower = min(lower, offset)
                upper = max(upper, offset + head.bytes.count)
            }
        }
        guard lower >= upper || read(max(lower, done)..<max(upper, done)) else { return nil }
        return week
    }
}
