import Foundation
import GRDB
import ICalKit
import Testing
@testable import OpenEventKit

/// A damaged, foreign or outdated index file is deleted and rebuilt with a notice; an
/// index that cannot be written is kept in memory; two processes share one index.
@Suite struct StoreIndexRecoveryTests {
    /// Builds a store of three March events and its index, then closes the index.
    static func builtStore(_ folder: StoreFolder) throws -> (store: FolderStore, indexPath: String) {
        let store = try StoreIndexRefreshTests.store(folder)
        try expectOpensAsItIs(store, marchCandidates: 3)   // closed on return (GRDB closes it with its last reference)
        let path = StoreIndex.path(for: store)
        #expect(FileManager.default.fileExists(atPath: path))
        return (store, path)
    }

    /// Opens the index shared, as another process would: it must open as it is (no notice),
    /// with `count` March candidates.
    static func expectOpensAsItIs(_ store: FolderStore, marchCandidates count: Int,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (index, notices, _) = try StoreIndex.open(store: store)
        #expect(notices.isEmpty, sourceLocation: sourceLocation)
        #expect(try index.candidates(window: StoreIndexRefreshTests.march).count == count, sourceLocation: sourceLocation)
    }

    /// Opens the index again: it must be rebuilt, with one notice naming the file.
    static func expectRebuilt(_ store: FolderStore, _ indexPath: String, mentioning words: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (index, notices, refresh) = try StoreIndex.open(store: store)
        #expect(notices.count == 1, "\(notices)", sourceLocation: sourceLocation)
        #expect(notices.first?.contains(indexPath) == true, sourceLocation: sourceLocation)
        #expect(notices.first?.contains("built again") == true, sourceLocation: sourceLocation)
        #expect(notices.first?.contains(words) == true, "\(notices)", sourceLocation: sourceLocation)
        #expect(!index.isInMemory, sourceLocation: sourceLocation)
        #expect(refresh.added == 3, sourceLocation: sourceLocation)
        #expect(try index.candidates(window: StoreIndexRefreshTests.march).map(\.name) == ["a.ics", "b.ics", "c.ics"],
                sourceLocation: sourceLocation)
        // And the rebuilt file opens cleanly.
        let (_, again, _) = try StoreIndex.open(store: store)
        #expect(again.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func theLogIsKeptEmptyBetweenProcessesNotMadeAndDeletedByEach() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        func identity(_ suffix: String) throws -> (inode: UInt64, size: Int64) {
            var info = stat()
            #expect(stat(path + suffix, &info) == 0, "\(path + suffix) is kept")
            return (UInt64(info.st_ino), Int64(info.st_size))
        }
        let log = try identity("-wal"), shared = try identity("-shm")
        #expect(log.size == 0, "the log is checkpointed and truncated when the last connection closes")
        // Another "process": one that reads, and one that writes (an item changed on disk).
        try Self.expectOpensAsItIs(store, marchCandidates: 3)
        try folder.write("home/d.ics", StoreIndexRefreshTests.event("d", start: "20260312T090000Z"))
        do {
            let (index, _, refresh) = try StoreIndex.open(store: store)
            #expect(refresh.added == 1)
            #expect(try index.candidates(window: StoreIndexRefreshTests.march).count == 4)
            index.closeDatabase()
        }
        #expect(try identity("-wal").inode == log.inode)
        #expect(try identity("-wal").size == 0, "what was written is checkpointed and the log truncated")
        #expect(try identity("-shm").inode == shared.inode)
        try Self.expectOpensAsItIs(store, marchCandidates: 4)
    }

    /// `.exclusiveWhenAlone` alone with the file: the log's index is in the process's memory
    /// (no `-shm` file is made or touched), and no other connection can read until it closes.
    @Test func aOneShotConnectionHoldsTheIndexAloneWithoutSharedMemory() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        // Another process's connection, which does not wait for a lock.
        func outsiderCount() throws -> Int? {
            var configuration = Configuration()
            configuration.busyMode = .immediateError
            let outsider = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? outsider.close() }
            return try outsider.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") }
        }
        #expect(try outsiderCount() == 3)
        try? FileManager.default.removeItem(atPath: path + "-shm")   // (the outsider's close may have)
        let (index, notices, _) = try StoreIndex.open(store: store, locking: .exclusiveWhenAlone)
        #expect(notices.isEmpty)
        #expect(!index.isInMemory)
        #expect(try index.candidates(window: StoreIndexRefreshTests.march).count == 3)
        try folder.write("home/d.ics", StoreIndexRefreshTests.event("d", start: "20260312T090000Z"))
        #expect(try index.refresh().added == 1, "it writes as well as reads")
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        let refused = #expect(throws: DatabaseError.self) { try outsiderCount() }
        #expect(refused?.resultCode.primaryResultCode == .SQLITE_BUSY, "\(String(describing: refused))")
        index.closeDatabase()
        var log = stat()
        #expect(stat(path + "-wal", &log) == 0 && log.st_size == 0, "checkpointed and truncated at close")
        #expect(try outsiderCount() == 4)
        try Self.expectOpensAsItIs(store, marchCandidates: 4)
    }

    /// `.exclusiveWhenAlone` while another connection has the file open: opened shared at
    /// once (not after the busy timeout), and both read and write.
    @Test func aOneShotConnectionSharesAnIndexAnotherHasOpen() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        let (kept, _, _) = try StoreIndex.open(store: store)
        #expect(try kept.candidates(window: StoreIndexRefreshTests.march).count == 3)
        let started = ContinuousClock.now
        let (oneShot, notices, _) = try StoreIndex.open(store: store, locking: .exclusiveWhenAlone)
        #expect(ContinuousClock.now - started < .seconds(StoreIndex.busyTimeout / 2), "it did not wait for the lock")
        #expect(notices.isEmpty)
        #expect(!oneShot.isInMemory)
        #expect(FileManager.default.fileExists(atPath: path + "-shm"))
        try folder.write("home/d.ics", StoreIndexRefreshTests.event("d", start: "20260312T090000Z"))
        #expect(try oneShot.refresh().added == 1)
        #expect(try kept.candidates(window: StoreIndexRefreshTests.march).count == 4, "the kept connection sees the write")
        #expect(try oneShot.candidates(window: StoreIndexRefreshTests.march).count == 4)
    }

    @Test func garbageBytesAreRebuilt() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        var random = SeededGenerator(state: 42)
        let garbage = (0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }
        try Data(garbage).write(to: URL(fileURLWithPath: path))
        try Self.expectRebuilt(store, path, mentioning: "not an SQLite database")
    }

    @Test func truncatedFileIsRebuilt() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size >= 3 * 4096)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size / 2 + 100))
        try handle.close()
        try Self.expectRebuilt(store, path, mentioning: "damaged")
    }

    @Test func otherFormatVersionIsRebuilt() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        try DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }
        // Renderings the old file named go with it.
        let renderings = StoreIndex.renderingsFolder(forIndexAt: path)
        try FileManager.default.createDirectory(atPath: renderings, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: renderings + "/1f.week"))
        try Self.expectRebuilt(store, path, mentioning: "format version 99")
        #expect(!FileManager.default.fileExists(atPath: renderings))
    }

    /// A new index has 64 KiB pages; one of format 3 (4 KiB pages, the same tables) is
    /// rebuilt once, with the new page size, and then opened as it is.
    @Test func anIndexOfFormatThreeIsRebuiltWithLargerPages() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        func pageSize() throws -> Int? {
            try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA page_size") }
        }
        #expect(IndexSchema.pageSize == 65_536)
        #expect(try pageSize() == IndexSchema.pageSize)
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA page_size = 4096")
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        #expect(try pageSize() == 4096)
        try Self.expectRebuilt(store, path, mentioning: "format version 3")
        #expect(try pageSize() == IndexSchema.pageSize)
    }

    @Test func droppedTableIsRebuilt() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        try DatabaseQueue(path: path).write { try $0.execute(sql: "DROP TABLE item") }
        try Self.expectRebuilt(store, path, mentioning: "expected tables")
    }

    @Test func anotherProgramsDatabaseIsRebuilt() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (store, path) = try Self.builtStore(folder)
        try FileManager.default.removeItem(atPath: path)
        try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE notes (text TEXT)") }
        try Self.expectRebuilt(store, path, mentioning: "not an OpenEventKit index")
    }

    /// As root, file permissions do not stop a write; a `.openeventkit` that is a file
    /// stops it for anyone, like a read-only store does.
    @Test func unwritableIndexIsKeptInMemory() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try folder.write(".openeventkit", "not a folder")
        let store = try StoreIndexRefreshTests.store(folder)
        let (index, notices, refresh) = try StoreIndex.open(store: store)
        #expect(index.isInMemory)
        #expect(notices.count == 1)
        #expect(notices.first?.contains("kept in memory") == true, "\(notices)")
        #expect(refresh.added == 3)
        #expect(try index.candidates(window: StoreIndexRefreshTests.march).count == 3)
        try folder.write("home/d.ics", StoreIndexRefreshTests.event("d", start: "20260401T090000Z"))
        #expect(try index.refresh().added == 1)
        #expect(try index.candidates(window: StoreIndexRefreshTests.april).map(\.name) == ["d.ics"])
    }

    /// Two processes open a missing index at once and both build it: with shared locking,
    /// one-shot (`.exclusiveWhenAlone`) locking, and one of each.
    @Test(arguments: [[false, false], [true, true], [true, false]])
    func twoProcessesBuildOneIndexAtOnce(exclusive: [Bool]) throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        var generator = RandomItemGenerator(seed: 99)
        for index in 0..<1500 {
            try folder.write("c\(index % 3)/item-\(index).ics", generator.item(index))
        }
        let store = try FolderStore.open(at: folder.path)
        let processes = try exclusive.map { try StoreStress.start(["--index", folder.path] + ($0 ? ["--exclusive"] : [])) }
        for process in processes {
            let errors = (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(String(decoding: errors, as: UTF8.self))")
            #expect(errors.isEmpty, "no notice: neither process found the other's index damaged")
        }
        let integrity = try DatabaseQueue(path: StoreIndex.path(for: store)).read {
            try String.fetchAll($0, sql: "PRAGMA integrity_check")
        }
        #expect(integrity == ["ok"])
        let (index, notices, refresh) = try StoreIndex.open(store: store)
        #expect(notices.isEmpty)
        #expect(refresh.isEmpty && refresh.unchanged == 1500)
        let everything = -62_135_596_800 ..< Int64(253_402_300_799)
        #expect(try index.candidates(window: everything).count == 1500)
    }
}
