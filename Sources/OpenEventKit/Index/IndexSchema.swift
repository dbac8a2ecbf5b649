import GRDB

/// The SQLite schema of the query index (`.openeventkit/index.sqlite`), how a file is
/// checked against it, and how a new file gets it.
///
/// The table `item` has one row per item file, keyed by collection and file name:
///
/// | column | meaning |
/// |---|---|
/// | `collection`, `name` | the item file's collection (folder) and file name |
/// | `device`, `inode`, `size`, `modificationSeconds`, `modificationNanoseconds` | the ``FileIdentity`` of the bytes the row was computed from |
/// | `uid` | the first component's UID (NULL for a broken file) |
/// | `kinds` | ``ItemKinds`` bits: 1 VEVENT, 2 VTODO, 4 VJOURNAL |
/// | `state` | 0 dated, 1 undated (always a candidate), 2 broken (always a candidate) |
/// | `firstStart` | the earliest start (UTC seconds), NULL unless dated |
/// | `lastEnd` | the latest end (UTC seconds), NULL when unbounded or not dated |
/// | `lengthClass` | how to find the row: −1 undated or broken, 64 unbounded, else the bit length of `lastEnd − firstStart` |
///
/// The index `item_span` on `(lengthClass, firstStart)` answers a window with one short
/// range per length class (see ``StoreIndex/candidates(window:collections:kinds:)``).
///
/// `folder` has a row per collection folder: its device, inode, modification and change
/// times when it was last listed, and whether those times had settled (were more than two
/// seconds old) then. A refresh that trusts folder times lists only the folders whose row
/// differs or had not settled (see ``StoreIndex/refresh(scan:)``).
///
/// The occurrence cache (see ``StoreIndex/cachedListings(window:collections:kinds:floatingZone:)``):
///
/// | table | rows |
/// |---|---|
/// | `setting` | `generation` (bumped by every refresh that changes a row) and `cache` (what the cached rows depend on: engine version, tzdata, store path) |
/// | `week` | the weeks (`floor(instant / 604800)`) whose occurrences are cached, per floating zone |
/// | `occurrence` | per cached week and floating zone, every occurrence of every item intersecting the week, as an ``OccurrenceListing`` (its instants in columns, the rest in one `listing` blob, see `ListingPayload`) plus its item, kind and order in its item; clustered by zone, week and start, so a window's rows are read in order from neighbouring pages |
/// | `note` | the read and time-zone diagnostics of items read for the cache (only items that have some) |
/// | `uncached` | per cached week and floating zone, the items a query reads itself (an expansion that stopped at its budget, or mixed component kinds) |
/// | `rendering` | per cached week, floating zone and output style, the week's listings written ahead (a ``RenderedWeek``): its length, and its bytes, or from 256 KiB on the name of its file in the renderings folder (``StoreIndex/renderingsFolder``); valid for the `generation` they were written in (see ``StoreIndex/renderedWeeks(window:collections:kinds:floatingZone:style:render:begin:write:)``) |
enum IndexSchema {
    /// The format version, kept in `PRAGMA user_version`. A file with another version is
    /// deleted and rebuilt.
    /// Version 4 changed no table, only the page size (``pageSize``): an earlier file is
    /// rebuilt once with the new size rather than kept with its 4 KiB pages. Version 5 keeps
    /// each rendered week of 256 KiB or more in a file of its own, which its `rendering` row
    /// names, instead of a blob in the row.
    static let formatVersion: Int32 = 5
    /// The page size of a new index file: 64 KiB. Chosen in version 4, when a dense
    /// rendered week (about 2 MB in JSON) was one blob on a chain of overflow pages that
    /// SQLite reads one page at a time: with 4 KiB pages a month of the 100,000-event
    /// benchmark store was about 2,500 pages and took 1.4–2.7 ms longer to read than with
    /// 64 KiB pages (see "Seventh pass" in `Benchmarks/README.md`). Version 5 keeps such
    /// weeks in files; the page size was kept, not measured again.
    static let pageSize = 65_536
    /// `PRAGMA application_id`: "OEKI". A SQLite file of another program is rebuilt.
    static let applicationIdentifier: Int32 = 0x4F45_4B49

    /// `state` of an item with a span.
    static let dated: Int64 = 0
    /// `state` of an item with an undated component: a candidate for every window.
    static let undated: Int64 = 1
    /// `state` of a file that could not be read as an item: a candidate for every query.
    static let broken: Int64 = 2
    /// `lengthClass` of undated and broken rows.
    static let alwaysClass: Int64 = -1
    /// `lengthClass` of unbounded rows.
    static let unboundedClass: Int64 = 64
    /// The largest bounded `lengthClass`: instants span years 1 to 9999, under 2^39 seconds.
    static let largestBoundedClass: Int64 = 40

    /// The length class of a bounded span: 0 for zero length, else the bit length of the
    /// length, so that every row of class `c` is shorter than `2^c` seconds.
    static func lengthClass(firstStart: Int64, lastEnd: Int64) -> Int64 {
        let length = UInt64(bitPattern: max(0, lastEnd &- firstStart))
        return min(Int64(64 - length.leadingZeroBitCount), largestBoundedClass)
    }

    /// The objects of the schema, by name, with the exact SQL SQLite keeps for each.
    static let objects: [(type: String, name: String, sql: String)] = [
        ("table", "item", """
            CREATE TABLE item (
                collection TEXT NOT NULL,
                name TEXT NOT NULL,
                device INTEGER NOT NULL,
                inode INTEGER NOT NULL,
                size INTEGER NOT NULL,
                modificationSeconds INTEGER NOT NULL,
                modificationNanoseconds INTEGER NOT NULL,
                uid TEXT,
                kinds INTEGER NOT NULL,
                state INTEGER NOT NULL,
                firstStart INTEGER,
                lastEnd INTEGER,
                lengthClass INTEGER NOT NULL,
                PRIMARY KEY (collection, name)
            ) WITHOUT ROWID
            """),
        ("index", "item_span", "CREATE INDEX item_span ON item (lengthClass, firstStart)"),
        ("table", "folder", """
            CREATE TABLE folder (
                collection TEXT NOT NULL PRIMARY KEY,
                device INTEGER NOT NULL,
                inode INTEGER NOT NULL,
                modificationSeconds INTEGER NOT NULL,
                modificationNanoseconds INTEGER NOT NULL,
                changeSeconds INTEGER NOT NULL,
                changeNanoseconds INTEGER NOT NULL,
                settled INTEGER NOT NULL
            ) WITHOUT ROWID
            """),
        ("table", "setting", "CREATE TABLE setting (key TEXT NOT NULL PRIMARY KEY, value) WITHOUT ROWID"),
        ("table", "week", """
            CREATE TABLE week (zone TEXT NOT NULL, week INTEGER NOT NULL, PRIMARY KEY (zone, week)) WITHOUT ROWID
            """),
        ("table", "occurrence", """
            CREATE TABLE occurrence (
                zone TEXT NOT NULL,
                week INTEGER NOT NULL,
                startInstant INTEGER NOT NULL,
                collection TEXT NOT NULL,
                name TEXT NOT NULL,
                ordinal INTEGER NOT NULL,
                kind INTEGER NOT NULL,
                endInstant INTEGER NOT NULL,
                listing BLOB NOT NULL,
                PRIMARY KEY (zone, week, startInstant, collection, name, ordinal)
            ) WITHOUT ROWID
            """),
        ("index", "occurrence_item", "CREATE INDEX occurrence_item ON occurrence (collection, name)"),
        ("table", "note", """
            CREATE TABLE note (
                collection TEXT NOT NULL,
                name TEXT NOT NULL,
                readDiagnostics TEXT NOT NULL,
                zoneDiagnostics TEXT NOT NULL,
                PRIMARY KEY (collection, name)
            ) WITHOUT ROWID
            """),
        ("table", "uncached", """
            CREATE TABLE uncached (
                zone TEXT NOT NULL,
                week INTEGER NOT NULL,
                collection TEXT NOT NULL,
                name TEXT NOT NULL,
                PRIMARY KEY (zone, week, collection, name)
            ) WITHOUT ROWID
            """),
        ("index", "uncached_item", "CREATE INDEX uncached_item ON uncached (collection, name)"),
        ("table", "rendering", """
            CREATE TABLE rendering (
                zone TEXT NOT NULL,
                style TEXT NOT NULL,
                week INTEGER NOT NULL,
                generation INTEGER NOT NULL,
                length INTEGER NOT NULL,
                file TEXT,
                bytes BLOB
            )
            """),
        ("index", "rendering_week", "CREATE UNIQUE INDEX rendering_week ON rendering (zone, style, week)"),
    ]

    /// The statement that creates the index `item_span`, as ``objects`` has it (a first build
    /// drops it and creates it again after writing the rows: see ``StoreIndex/refresh(scan:)``).
    static let spanIndexSQL = objects.first { $0.name == "item_span" }!.sql

    /// Whether a database is empty: no schema object and no version (a new file).
    static func isEmpty(_ db: Database) throws -> Bool {
        let count = try Int.fetchOne(db.makeStatement(sql: "SELECT count(*) FROM sqlite_master")) ?? 0
        let version = try Int32.fetchOne(db.cachedStatement(sql: "PRAGMA user_version")) ?? 0
        return count == 0 && version == 0
    }

    /// Gives an empty database the schema, in one immediate transaction (so that two
    /// processes creating the index at once do it once). A database that has anything in
    /// it already is left alone, for ``problem(in:)`` to judge.
    static func prepare(_ db: Database) throws {
        try db.inTransaction(.immediate) {
            guard try isEmpty(db) else { return .commit }
            for object in objects { try db.execute(sql: object.sql) }
            try db.execute(sql: "PRAGMA application_id = \(applicationIdentifier)")
            try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
            return .commit
        }
    }

    /// What is wrong with a database as an index of this format version, or nil when it
    /// is one.
    static func problem(in db: Database) throws -> String? {
        let application = try Int32.fetchOne(db.makeStatement(sql: "PRAGMA application_id")) ?? 0
        guard application == applicationIdentifier else {
            return "is not an OpenEventKit index (application_id \(application))"
        }
        // Kept prepared: `isEmpty(_:)` reads it too at every open.
        let version = try Int32.fetchOne(db.cachedStatement(sql: "PRAGMA user_version")) ?? 0
        guard version == formatVersion else {
            return "has format version \(version), and this version of OpenEventKit uses \(formatVersion)"
        }
        var found: [String: (type: String, sql: String?)] = [:]
        for row in try Row.fetchAll(db.makeStatement(sql: "SELECT type, name, sql FROM sqlite_master")) {
            found[row["name"]] = (row["type"], row["sql"])
        }
        let expected = Dictionary(uniqueKeysWithValues: objects.map { ($0.name, (type: $0.type, sql: Optional($0.sql))) })
        guard found.count == expected.count, expected.allSatisfy({ name, object in
            found[name].map { $0.type == object.type && $0.sql == object.sql } ?? false
        }) else {
            let names = found.keys.sorted().joined(separator: ", ")
            return "does not have the expected tables (it has: \(names.isEmpty ? "none" : names))"
        }
        return nil
    }
}
