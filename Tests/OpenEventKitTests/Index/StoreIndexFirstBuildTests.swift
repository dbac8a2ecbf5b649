import Foundation
import GRDB
import ICalKit
import Testing
@testable import OpenEventKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A first build takes shortcuts (no `lstat` per listed file, the span index made after the
/// rows, no access times touched); its rows must be the ones an incremental build writes.
@Suite struct StoreIndexFirstBuildTests {
    /// The item rows of an index, without the file identities (two stores' files differ).
    static func rows(_ index: StoreIndex) throws -> [String] {
        let queue = try DatabaseQueue(path: index.path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT collection, name, size, uid, kinds, state, firstStart, lastEnd, lengthClass FROM item ORDER BY collection, name
                """).map { $0.description }
        }
    }

    /// Each row's identity against the file's `lstat`.
    static func identitiesMatchFiles(_ index: StoreIndex) throws -> Bool {
        let store = index.store
        var files: [ItemKey: FileIdentity] = [:]
        for collection in try store.collections() {
            for file in try store.items(in: collection.identifier) {
                files[ItemKey(collection: collection.identifier, name: file.name)] = file.identity
            }
        }
        let recorded = try index.identities(of: Array(files.keys))
        return recorded.count == files.count && recorded == files
    }

    @Test func firstBuildWritesTheRowsOfAnIncrementalBuild() throws {
        let count = StoreIndex.smallestIndexRebuild + 400
        let whole = try StoreFolder(), incremental = try StoreFolder()
        defer { whole.remove(); incremental.remove() }
        var generator = RandomItemGenerator(seed: 0xF1257)
        let texts = (0..<count).map { generator.item($0) }
        for (number, text) in texts.enumerated() {
            try whole.write("\(number % 2 == 0 ? "home" : "work")/item-\(number).ics", text)
        }
        // All at once: collections without rows, listed by name; the span index made after the rows.
        let (built, notices, first) = try StoreIndex.open(store: try FolderStore.open(at: whole.path))
        #expect(notices.isEmpty)
        #expect(first.added == count && first.broken > 0, "the generator writes broken files")

        // In two steps: the second refresh lists collections that have rows, into a table
        // with rows (the general path).
        for (number, text) in texts.enumerated() where number < 100 {
            try incremental.write("\(number % 2 == 0 ? "home" : "work")/item-\(number).ics", text)
        }
        let (stepwise, _, _) = try StoreIndex.open(store: try FolderStore.open(at: incremental.path))
        for (number, text) in texts.enumerated() where number >= 100 {
            try incremental.write("\(number % 2 == 0 ? "home" : "work")/item-\(number).ics", text)
        }
        let second = try stepwise.refresh()
        #expect(second.added == count - 100 && second.unchanged == 100)

        #expect(try Self.rows(built) == Self.rows(stepwise))
        #expect(try Self.identitiesMatchFiles(built))
        #expect(try Self.identitiesMatchFiles(stepwise))
        // The span index is there, as the schema has it: a new process finds the file a
        // usable index (no rebuild notice), and no candidate query scans the table.
        let (reopened, reopenNotices, refresh) = try StoreIndex.open(store: built.store)
        #expect(reopenNotices.isEmpty && refresh.isEmpty)
        #expect(try reopened.candidatePlans().allSatisfy { $0.contains("item_span") })
        #expect(try built.candidates(window: StoreIndexRefreshTests.march).map(\.path)
                == stepwise.candidates(window: StoreIndexRefreshTests.march).map { $0.path.replacingOccurrences(of: incremental.path, with: whole.path) })
    }

    /// The access time of a file, in nanoseconds.
    static func accessTime(_ path: String) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { return -1 }
        return Int64(info.st_atim.tv_sec) * 1_000_000_000 + Int64(info.st_atim.tv_nsec)
    }

    /// Sets a file's access time a day before its modification time (which `relatime`
    /// updates on the next read).
    static func ageAccessTime(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        var times = [timespec(tv_sec: info.st_mtim.tv_sec - 86_400, tv_nsec: 0), info.st_mtim]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test func indexReadsLeaveAccessTimes() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let path = try folder.write("home/a.ics", StoreIndexRefreshTests.event("a", start: "20260302T090000Z"))
        Self.ageAccessTime(path)
        let before = Self.accessTime(path)
        let store = try FolderStore.open(at: folder.path)
        let (index, _, refresh) = try StoreIndex.open(store: store)
        #expect(refresh.added == 1)
        // Filling the occurrence cache reads the item again.
        _ = try index.cachedListings(window: StoreIndexRefreshTests.march, collections: ["home"], kinds: [.event],
                                     floatingZone: FixedOffsetZone.utc)
        #expect(Self.accessTime(path) == before)
        // A user's read still updates it where the file system does (not under `noatime`).
        _ = try store.readItem(in: "home", name: "a.ics")
        let afterUserRead = Self.accessTime(path)
        if afterUserRead == before { print("the file system does not update access times here") }
    }
}
