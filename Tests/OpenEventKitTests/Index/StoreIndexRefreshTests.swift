import Foundation
import ICalKit
import Testing
@testable import OpenEventKit

/// Other programs change the store's files; a refresh reparses only what changed.
@Suite struct StoreIndexRefreshTests {
    static func event(_ uid: String, start: String, hours: Int = 1) -> String {
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//tests//EN\nBEGIN:VEVENT\nUID:\(uid)\nDTSTAMP:20260101T000000Z\n"
            + "DTSTART:\(start)\nDURATION:PT\(hours)H\nEND:VEVENT\nEND:VCALENDAR\n"
    }

    static func window(_ start: String, _ end: String) -> Range<Int64> {
        DateTime(iCalendar: start)!.local.secondsSinceEpoch..<DateTime(iCalendar: end)!.local.secondsSinceEpoch
    }

    static let march = window("20260301T000000Z", "20260401T000000Z")
    static let april = window("20260401T000000Z", "20260501T000000Z")

    /// A khal-like store: two collections, three events in March.
    static func store(_ folder: StoreFolder) throws -> FolderStore {
        try folder.write("home/a.ics", event("a", start: "20260302T090000Z"))
        try folder.write("home/b.ics", event("b", start: "20260310T090000Z"))
        try folder.write("work/c.ics", event("c", start: "20260320T090000Z"))
        return try FolderStore.open(at: folder.path)
    }

    @Test func unchangedStoreReparsesNothing() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (index, notices, first) = try StoreIndex.open(store: try Self.store(folder))
        #expect(notices.isEmpty)
        #expect(first.added == 3 && first.changed == 0 && first.removed == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/.openeventkit/index.sqlite"))
        #expect(!index.isInMemory)
        let again = try index.refresh()
        #expect(again.isEmpty)
        #expect(again.unchanged == 3)
        // A second process (a second open) finds the index built.
        let (_, _, reopened) = try StoreIndex.open(store: index.store)
        #expect(reopened.isEmpty && reopened.unchanged == 3)
    }

    @Test func rewrittenFileIsReparsed() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (index, _, _) = try StoreIndex.open(store: try Self.store(folder))
        #expect(try index.candidates(window: Self.march).map(\.name) == ["a.ics", "b.ics", "c.ics"])

        // A different size: a to April.
        try folder.write("home/a.ics", Self.event("a", start: "20260402T090000Z", hours: 12))
        var refresh = try index.refresh()
        #expect(refresh.changed == 1 && refresh.added == 0 && refresh.removed == 0)
        #expect(try index.candidates(window: Self.march).map(\.name) == ["b.ics", "c.ics"])
        #expect(try index.candidates(window: Self.april).map(\.name) == ["a.ics"])

        // The same size, in place (same inode), with a new modification time: b to April.
        let path = folder.path + "/home/b.ics"
        let old = try String(contentsOfFile: path, encoding: .utf8)
        let new = Self.event("b", start: "20260410T090000Z")
        #expect(old.utf8.count == new.utf8.count)
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64
        try rewriteInPlace(path, new, modified: Date().addingTimeInterval(5))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 == inode)
        refresh = try index.refresh()
        #expect(refresh.changed == 1)
        #expect(try index.candidates(window: Self.march).map(\.name) == ["c.ics"])
        #expect(try index.candidates(window: Self.april).map(\.name) == ["a.ics", "b.ics"])
    }

    @Test func addedAndDeletedFilesAreSeen() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (index, _, _) = try StoreIndex.open(store: try Self.store(folder))
        try folder.write("work/d.ics", Self.event("d", start: "20260315T090000Z"))
        try FileManager.default.removeItem(atPath: folder.path + "/home/a.ics")
        let refresh = try index.refresh()
        #expect(refresh.added == 1 && refresh.removed == 1 && refresh.changed == 0)
        let candidates = try index.candidates(window: Self.march)
        #expect(candidates.map(\.name) == ["b.ics", "c.ics", "d.ics"])
        let d = try #require(candidates.last)
        #expect(d.collection == "work")
        #expect(d.path == folder.path + "/work/d.ics")
        #expect(d.identity == (try FolderStore.open(at: folder.path).items(in: "work").first { $0.name == "d.ics" })?.identity)
    }

    @Test func removedCollectionLosesItsRows() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (index, _, _) = try StoreIndex.open(store: try Self.store(folder))
        try FileManager.default.removeItem(atPath: folder.path + "/home")
        let refresh = try index.refresh()
        #expect(refresh.removedCollections == 1 && refresh.removed == 2)
        #expect(try index.candidates(window: Self.march).map(\.name) == ["c.ics"])
    }

    @Test func brokenFileIsRecordedOnceAndAlwaysACandidate() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try folder.write("home/broken.ics", "BEGIN:VCALENDAR\nnot really\n")
        let (index, _, first) = try StoreIndex.open(store: try Self.store(folder))
        #expect(first.broken == 1)
        #expect(try index.candidates(window: Self.april, kinds: [.todo]).map(\.name) == ["broken.ics"])
        #expect(try index.refresh().isEmpty, "a broken file is not reparsed until it changes")
        // Repaired: now an April event, no longer broken.
        try folder.write("home/broken.ics", Self.event("repaired", start: "20260420T090000Z"))
        let repaired = try index.refresh()
        #expect(repaired.changed == 1 && repaired.broken == 0)
        #expect(try index.candidates(window: Self.april, kinds: [.todo]).isEmpty)
        #expect(try index.candidates(window: Self.april).map(\.name) == ["broken.ics"])
    }

    /// A refresh that trusts folder times lists only folders whose times moved (or had
    /// not settled), and misses only a file rewritten in place, as documented.
    @Test func changedFoldersScanListsOnlyChangedFolders() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try Self.store(folder)
        Thread.sleep(forTimeInterval: 2.2)   // the folders' times settle (more than two seconds old)
        let (index, _, first) = try StoreIndex.open(store: store)
        #expect(first.added == 3 && first.scannedFolders == 2)

        var refresh = try index.refresh(scan: .changedFolders)
        #expect(refresh.isEmpty && refresh.scannedFolders == 0, "settled, unchanged folders are not listed")

        try folder.write("work/d.ics", Self.event("d", start: "20260315T090000Z"))
        refresh = try index.refresh(scan: .changedFolders)
        #expect(refresh.added == 1 && refresh.scannedFolders == 1, "only the folder that changed is listed")
        refresh = try index.refresh(scan: .changedFolders)
        #expect(refresh.isEmpty && refresh.scannedFolders == 1, "a folder changed less than two seconds ago is listed again")

        // Rewritten in place: the folder's times do not move.
        try rewriteInPlace(folder.path + "/home/a.ics", Self.event("a", start: "20260402T090000Z"), modified: Date().addingTimeInterval(5))
        refresh = try index.refresh(scan: .changedFolders)
        #expect(refresh.changed == 0, "the documented blind spot of trusting folder times")
        refresh = try index.refresh(scan: .everyFile)
        #expect(refresh.changed == 1)
        #expect(try index.candidates(window: Self.april).map(\.name) == ["a.ics"])

        try FileManager.default.removeItem(atPath: folder.path + "/home")
        refresh = try index.refresh(scan: .changedFolders)
        #expect(refresh.removedCollections == 1 && refresh.removed == 2)
        #expect(try index.candidates(window: Self.march).map(\.name) == ["c.ics", "d.ics"])
    }

    @Test func commitsThroughTheStoreAreSeen() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path + "/store")
        let (index, _, _) = try StoreIndex.open(store: store)
        var batch = Batch()
        try batch.put(eventCalendar(uid: "new@tests"), into: "calendar", expecting: .absent)
        try store.commit(batch)
        #expect(try index.refresh().added == 1)
        let march2027 = Self.window("20270301T000000Z", "20270302T000000Z")
        #expect(try index.candidates(window: march2027).map(\.name) == ["new@tests.ics"])
    }
}

/// What stands in for a timing in the tests: SQLite answers every candidate query from
/// the index, never by scanning the table (timings are in `store-bench index`).
@Suite struct StoreIndexPlanTests {
    @Test func candidateQueriesSearchTheIndex() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (index, _, _) = try StoreIndex.open(store: try StoreIndexRefreshTests.store(folder))
        let plans = try index.candidatePlans()
        #expect(plans.count == 3, "\(plans)")
        for plan in plans {
            #expect(plan.hasPrefix("SEARCH item USING INDEX item_span (lengthClass=?"), "\(plan)")
            #expect(!plan.contains("SCAN"), "\(plan)")
        }
        #expect(plans.first?.contains("firstStart>? AND firstStart<?") == true, "\(plans)")
    }
}
