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

    /// The bytes of a stored rendering checked at a time: 64 KiB, well inside the
    /// processor's second-level cache.
    static let renderingPiece = 1 << 16

    /// A window's occurrences as rendered weeks (``RenderedWeek``): each week of the
    /// occurrence cache written ahead in one output style, so that a repeated query copies
    /// bytes instead of reading and writing every occurrence.
    ///
    /// The weeks are given one at a time, in order, inside one read of the index (so all of
    /// one generation): a query reads or maps one stored week, checks its heads in pieces
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
    ///     valid only during the call (a short stored week is in a block the next one
    ///     reuses; a long one is its file mapped into memory). False stops: no later week
    ///     is read.
    /// - Returns: nil, before anything was given, when the cache does not answer (as
    ///   ``cachedPackedListings(window:collections:kinds:floatingZone:)`` returns nil), or
    ///   when items of the window are expanded by each query (`uncached`): use the listings
    ///   then. The entries ``RenderedSelection/chooses(_:in:startingAt:)`` chooses from the weeks
    ///   are, in order, the listings ``cachedPackedListings(window:collections:kinds:floatingZone:)``
    ///   returns, and the diagnostics are the same.
    ///
    /// A week is rendered the first time a style asks for it after the index's generation
    /// changed (any refresh that changes a row), and stored when the generation is still the
    /// one it was read in; renderings of older generations are dropped then. A week of
    /// ``renderingFileMinimum`` bytes or more (a dense store's) is stored in a file of its
    /// own in ``renderingsFolder``, which its row in the table `rendering` names, and read in
    /// place: mapped, with its pages mapped at once, its bytes written to the output from the
    /// system's cache of the file without a copy in this process. A shorter one is kept in
    /// its row.
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
            try queue.reading { db -> Snapshot? in
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
                // The stored weeks, read one at a time as they are given: a long one mapped
                // from its file, a short one read from its row into one block, with SQLite's
                // incremental blob reads (a rowid table for that) rather than copied from
                // SQLite's own buffer of each value.
                var stored: [Int64: (rowid: Int64, file: String?, count: Int)] = [:]
                var largestInRow = 0
                for row in try Row.fetchAll(db.makeStatement(sql: """
                    SELECT rowid, week, file, length FROM rendering
                    WHERE zone = ? AND style = ? AND generation = ? AND week BETWEEN ? AND ?
                    """), arguments: [zoneKey, style, snapshot.generation, weeks.lowerBound, weeks.upperBound]) {
                    let file: String? = row[2], count: Int = row[3]
                    stored[row[1]] = (row[0], file, count)
                    if file == nil { largestInRow = max(largestInRow, count) }
                }
                begin(selection, snapshot.diagnostics)
                let folder = renderingsFolder
                let block = largestInRow > 0 ? RenderedStorage(capacity: largestInRow) : nil
                for week in weeks {
                    var readBack: RenderedWeek?
                    if let known = stored[week] {
                        if let file = known.file {
                            readBack = Self.readRendering(folder, name: file, count: known.count)
                        } else if let block {
                            readBack = Self.readRendering(db, rowid: known.rowid, count: known.count, into: block)
                        }
                    }
                    let rendered: RenderedWeek
                    if let readBack {
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
                    guard write(rendered, week * OccurrenceCache.week) else { break }
                }
                return snapshot
            }
        }
        guard let snapshot else { return nil }
        if !snapshot.fresh.isEmpty && !isInMemory {
            // Stored only for the generation it was read in; a failure to store costs the
            // next query a rendering, not this one its answer.
            _ = try? storeRenderings(snapshot.fresh, zoneKey: zoneKey, style: style, generation: snapshot.generation,
                                     program: program)
        }
        return RenderedAnswer(diagnostics: snapshot.diagnostics, renderedWeeks: snapshot.fresh.count)
    }

    /// Where the stored renderings of ``renderingFileMinimum`` bytes or more are: a folder
    /// beside the index file, one file per week and style, named by its row in the table
    /// `rendering`.
    package var renderingsFolder: String { Self.renderingsFolder(forIndexAt: path) }

    /// ``renderingsFolder`` of the index file at `path`.
    static func renderingsFolder(forIndexAt path: String) -> String {
        path + "-renderings"
    }

    /// Stores renderings of the index's `generation`, in one write transaction (so one
    /// process at a time, and nothing stored when the generation changed since they were
    /// read): a week shorter than ``renderingFileMinimum`` in its row, a longer one in a new
    /// file under a random name, flushed to disk before its row names it and never changed
    /// after. Renderings of other generations and of other programs are dropped, and files
    /// that no row names (left by a process that stopped before its commit, or by rows
    /// dropped or replaced) are removed. A reader that still reads an older generation's
    /// rows finds their files gone (or keeps reading one it has mapped) and renders those
    /// weeks again.
    private func storeRenderings(_ fresh: [(week: Int64, bytes: [UInt8])], zoneKey: String, style: String, generation: Int64,
                                 program: String) throws {
        let folder = renderingsFolder
        try withDatabase { queue in
            try queue.inTransaction(.immediate) { db -> Database.TransactionCompletion in
                guard try OccurrenceCache.generation(db) == generation else { return .rollback }
                // Renderings of older generations or other programs are not read again.
                try db.execute(sql: "DELETE FROM rendering WHERE generation != ?1 OR substr(style, -length(?2)) != ?2",
                               arguments: [generation, "; program " + program])
                let insert = try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO rendering (zone, style, week, generation, file, length, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
                var created: [String] = []
                let fileMinimum = Self.renderingFileMinimum
                do {
                    for (week, bytes) in fresh {
                        guard bytes.count >= fileMinimum else {
                            try insert.execute(arguments: [zoneKey, style, week, generation, nil as String?, bytes.count, Data(bytes)])
                            continue
                        }
                        let name = String(StoreSystem.randomNumber(), radix: 16) + Self.renderingSuffix
                        if created.isEmpty { try StoreSystem.makeFolder(folder) }
                        try StoreSystem.writeNewFile(bytes, to: folder + "/" + name)
                        created.append(name)
                        try insert.execute(arguments: [zoneKey, style, week, generation, name, bytes.count, nil as Data?])
                    }
                    if StoreSystem.isFolder(folder) {
                        let named = Set(try String.fetchAll(db, sql: "SELECT file FROM rendering WHERE file IS NOT NULL"))
                        for entry in try StoreSystem.list(folder) where !named.contains(entry.name) && !entry.isFolder {
                            try? StoreSystem.remove(folder + "/" + entry.name)
                        }
                    }
                } catch {
                    for name in created { try? StoreSystem.remove(folder + "/" + name) }
                    throw error
                }
                return .commit
            }
        }
    }

    /// The ending of a stored rendering's file name (after 1 to 16 lowercase hexadecimal digits).
    private static let renderingSuffix = ".week"

    /// Opens a stored rendering's file for reading, or nil when its row's name is not one
    /// this index gives (1 to 16 lowercase hexadecimal digits and `.week`: never a path) or
    /// it cannot be opened. Without following a symbolic link, without waiting (a FIFO
    /// put in its place opens at once and reads nothing), and without touching its access
    /// time where the owner may ask that (a first read would otherwise write the inode).
    private static func openRendering(_ folder: String, name: String) -> Int32? {
        guard name.hasSuffix(renderingSuffix) else { return nil }
        let digits = name.utf8.dropLast(renderingSuffix.utf8.count)
        func isDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
        guard (1...16).contains(digits.count), digits.allSatisfy(isDigit) else { return nil }
        let descriptor = StoreSystem.openForReading(folder + "/" + name, flags: O_NONBLOCK, touchingAccessTime: false)
        return descriptor >= 0 ? descriptor : nil
    }

    /// The length from which a rendered week is kept in a file of its own and mapped when it
    /// is read, rather than in its row: 256 KiB. Mapping a file costs a few system calls more
    /// than reading a row's pages from the index's memory map; copying megabytes out of the
    /// index costs more than mapping them. A task-local value, so that a test can store
    /// every week in a file (`StoreIndex.$renderingFileMinimum.withValue(0) { … }`).
    @TaskLocal static var renderingFileMinimum = 1 << 18

    /// A stored rendering from its file, mapped read-only with every page mapped at once (one
    /// system call rather than a page fault for each 64 KiB): its entries are written to the
    /// output from the mapping, that is from the system's cache of the file, never copied
    /// into this process. Nil when the file cannot be opened or mapped, is not a regular
    /// file of the row's length, or is not a whole rendered week.
    ///
    /// The files are never changed once stored (only removed, which leaves a mapping as it
    /// was): a file cut short by another program while a week is written from its mapping
    /// would stop this process, as it would with SQLite's own memory map of the index file.
    private static func readRendering(_ folder: String, name: String, count: Int) -> RenderedWeek? {
        guard count > 0, let descriptor = openRendering(folder, name: name) else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == count else { return nil }
        let mapping = mmap(nil, count, PROT_READ, MAP_SHARED | MAP_POPULATE, descriptor, 0)
        guard let mapping, mapping != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        return checkedWeek(in: RenderedStorage(mapping: mapping, length: count), count: count) { _ in true }
    }

    /// A stored rendering from its row (`rowid`), read into `block` at its start. Nil when it
    /// cannot be read, is not `count` bytes, or is not a whole rendered week.
    private static func readRendering(_ db: Database, rowid: Int64, count: Int, into block: RenderedStorage) -> RenderedWeek? {
        guard count <= block.capacity else { return nil }
        var blob: OpaquePointer?
        defer { sqlite3_blob_close(blob) }
        guard sqlite3_blob_open(db.sqliteConnection, "main", "rendering", "bytes", rowid, 0, &blob) == SQLITE_OK,
              sqlite3_blob_bytes(blob) == Int32(count) else { return nil }
        return checkedWeek(in: block, count: count) { range in
            range.isEmpty || sqlite3_blob_read(blob, block.base + range.lowerBound, Int32(range.count), Int32(range.lowerBound)) == SQLITE_OK
        }
    }

    /// The rendered week of `count` bytes at the start of `storage`, as `fill` brings its
    /// bytes in: the header and every head in pieces of ``renderingPiece``, each checked
    /// while it is still in the processor's cache (``RenderedWeek/Validation``; checking a
    /// week of megabytes after reading it waited on memory at every entry), then the
    /// entries' bytes at once. Nil when `fill` fails or the bytes are not a whole week.
    private static func checkedWeek(in storage: RenderedStorage, count: Int,
                                    filling fill: (Range<Int>) -> Bool) -> RenderedWeek? {
        var validation = RenderedWeek.Validation(byteCount: count)
        var done = 0
        while done < (validation.headsEnd ?? count) {
            let next = min(count, done + renderingPiece)
            guard fill(done..<next), validation.advance(storage.base, available: next) else { return nil }
            done = next
        }
        guard fill(done..<count), validation.acceptUnreadEntries(storage.base) else { return nil }
        return RenderedWeek(validated: validation, storage: storage)
    }
}
