import Foundation
import ICalKit
import Testing
@testable import OpenEventKit

@Suite struct FolderStoreTests {
    // MARK: Location and creation

    @Test func defaultLocationFollowsTheEnvironment() throws {
        #expect(try FolderStore.defaultLocation(environment: ["OPENEVENTKIT_STORE": "/s", "XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/s")
        #expect(try FolderStore.defaultLocation(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/openeventkit")
        #expect(try FolderStore.defaultLocation(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/openeventkit")
        #expect(throws: StoreError.self) { try FolderStore.defaultLocation(environment: [:]) }
    }

    @Test func newStoreHasDefaultCalendarAndReminderList() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path + "/new/store")
        let collections = try store.collections()
        #expect(collections.map(\.identifier) == ["calendar", "reminders"])
        #expect(collections.map(\.title) == ["Calendar", "Reminders"])
        #expect(collections.allSatisfy { $0.color.map(StoreCollection.isColor) == true })
        let metadata = try #require(try store.metadata())
        #expect(metadata == StoreMetadata(defaultEventCalendar: "calendar", defaultReminderList: "reminders",
                                        entityTypes: ["calendar": [.event], "reminders": [.reminder]]))
        #expect(try store.defaultEventCollection() == "calendar")
        #expect(try store.defaultReminderCollection() == "reminders")
        // Opening again changes nothing.
        let before = try storeTree(store.root, includeMetadata: true)
        _ = try FolderStore.open(at: store.root)
        #expect(try storeTree(store.root, includeMetadata: true) == before)
        #expect(throws: StoreError.self) { try FolderStore.open(at: folder.path + "/missing", create: false) }
    }

    @Test func khalFolderOpensAsItIs() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try folder.write("work/displayname", "Work\n")
        try folder.write("work/color", "#ff0000")
        try folder.write("work/meeting.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//khal//EN\r\nBEGIN:VEVENT\r\nUID:meeting@khal\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20270301T090000Z\r\nSUMMARY:Meeting\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        try folder.write("home/Party Night.ics", "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:party\nDTSTART:20270302T200000Z\nEND:VEVENT\nBEGIN:VEVENT\nUID:party\nRECURRENCE-ID:20270309T200000Z\nDTSTART:20270309T210000Z\nEND:VEVENT\nEND:VCALENDAR\n")
        try folder.write(".git/config", "[core]\n")
        let before = try storeTree(folder.path, includeMetadata: true)
        let store = try FolderStore.open(at: folder.path)
        #expect(try storeTree(folder.path, includeMetadata: true) == before, "opening must not write into a khal folder")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/.openeventkit"))
        let collections = try store.collections()
        #expect(collections.map(\.identifier) == ["home", "work"])
        #expect(collections.map(\.title) == ["home", "Work"])
        #expect(collections.map(\.color) == [nil, "#ff0000"])
        let home = try store.readCollection("home")
        #expect(home.items.count == 1)
        #expect(home.items.first?.components.count == 2, "a master and its override")
        #expect(home.items.first?.uid == "party")
        #expect(try store.items(in: "work").map(\.name) == ["meeting.ics"])
        #expect(try store.defaultEventCollection() == "home")
    }

    // MARK: Batches

    @Test func batchCommitsItemsAndCollections() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var batch = Batch()
        try batch.createCollection("lessons", title: "Lessons", color: "#654321")
        let lesson = try batch.put(eventCalendar(uid: "lesson-1@example.com"), into: "lessons", expecting: .absent)
        let meeting = try batch.put(eventCalendar(uid: "meeting@example.com"), into: "calendar", expecting: .absent)
        try batch.updateCollection("reminders", title: "To do")
        try batch.updateCollection("lessons", color: "#123456")
        batch.setDefaults(eventCalendar: "lessons")
        let result = try store.commit(batch)
        #expect(lesson == "lesson-1@example.com.ics")
        #expect(result.identities.count == 2)
        #expect(try store.collection("lessons").title == "Lessons")
        #expect(try store.collection("lessons").color == "#123456")
        #expect(try store.collection("reminders").title == "To do")
        #expect(try store.defaultEventCollection() == "lessons")
        let read = try #require(try store.readItem(in: "calendar", name: meeting).item)
        #expect(read.uid == "meeting@example.com")
        #expect(read.file.identity == result.identities[ItemKey(collection: "calendar", name: meeting)])

        // Move and delete collections; the default follows the move.
        var second = Batch()
        try second.moveCollection("lessons", to: "courses")
        try second.deleteCollection("reminders")
        try store.commit(second)
        #expect(try store.collections().map(\.identifier) == ["calendar", "courses"])
        #expect(try store.items(in: "courses").map(\.name) == [lesson])
        #expect(try store.defaultEventCollection() == "courses")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [".openeventkit", "calendar", "courses"])
    }

    @Test func failedBatchWritesNothing() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var first = Batch()
        try first.put(eventCalendar(uid: "taken"), into: "calendar", expecting: .absent)
        try store.commit(first)
        let before = try storeTree(folder.path, includeMetadata: true)

        var batch = Batch()
        try batch.createCollection("new", title: "New")
        for index in 0..<5 { try batch.put(eventCalendar(uid: "fresh-\(index)"), into: "calendar", expecting: .absent) }
        try batch.put(eventCalendar(uid: "taken"), into: "calendar", expecting: .absent)
        let error = try #require(throws: StoreError.self) { try store.commit(batch) }
        #expect(error.code == .conflict)
        #expect(error.path == folder.path + "/calendar/taken.ics")
        #expect(error.description.contains("exists already"))
        #expect(try storeTree(folder.path, includeMetadata: true) == before, "nothing written, no temporaries left")

        var contradictory = Batch()
        try contradictory.put(eventCalendar(uid: "twice"), into: "calendar", expecting: .absent)
        try contradictory.put(eventCalendar(uid: "twice", summary: "again"), into: "calendar", expecting: .absent)
        #expect(throws: StoreError.self) { try store.commit(contradictory) }
        var missing = Batch()
        try missing.put(eventCalendar(uid: "x"), into: "nowhere", expecting: .absent)
        let notFound = try #require(throws: StoreError.self) { try store.commit(missing) }
        #expect(notFound.code == .notFound)
        #expect(notFound.eventKitError.code == .noCalendar)
        #expect(try storeTree(folder.path, includeMetadata: true) == before)
    }

    @Test func invalidItemsAreRejected() throws {
        var batch = Batch()
        #expect(throws: StoreError.self) { try batch.put(Component(kind: .event), into: "calendar", expecting: .absent) }
        var calendar = eventCalendar(uid: "a")
        calendar.addComponent(eventCalendar(uid: "b").components[0])
        #expect(throws: StoreError.self) { try batch.put(calendar, into: "calendar", expecting: .absent) }
        #expect(throws: StoreError.self) { try batch.put(eventCalendar(uid: "a"), into: "../x", expecting: .absent) }
        #expect(throws: StoreError.self) { try batch.put(eventCalendar(uid: "a"), into: "calendar", name: "../a.ics", expecting: .absent) }
        #expect(throws: StoreError.self) { try batch.createCollection(".hidden", title: "x") }
        #expect(throws: StoreError.self) { try batch.createCollection("ok", title: "x", color: "red") }
        #expect(batch.isEmpty)
    }

    // MARK: Conflicts

    @Test func changedFileOnDiskIsAConflict() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var batch = Batch()
        let name = try batch.put(eventCalendar(uid: "shared@example.com"), into: "calendar", expecting: .absent)
        try store.commit(batch)
        let read = try #require(try store.readItem(in: "calendar", name: name).item)
        let path = read.file.path

        // Another program rewrites the file with the same size: mtime and inode differ.
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        var edited = original
        edited[edited.count - 20] = UInt8(ascii: "X")
        try edited.write(to: URL(fileURLWithPath: path))
        var update = Batch()
        try update.put(eventCalendar(uid: "shared@example.com", summary: "Mine"), into: "calendar", name: name,
                       expecting: .identity(read.file.identity))
        let error = try #require(throws: StoreError.self) { try store.commit(update) }
        #expect(error.code == .conflict)
        #expect(error.path == path)
        #expect(error.message.contains("changed on disk since it was read"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == edited, "the other program's change is kept")

        // Deleting with a stale identity fails too; with the fresh one it succeeds.
        var stale = Batch()
        try stale.delete(name, from: "calendar", expecting: .identity(read.file.identity))
        #expect(throws: StoreError.self) { try store.commit(stale) }
        let fresh = try #require(try store.readItem(in: "calendar", name: name).item)
        var delete = Batch()
        try delete.delete(name, from: "calendar", expecting: .identity(fresh.file.identity))
        try store.commit(delete)
        #expect(try store.items(in: "calendar").isEmpty)

        // A file removed since it was read is a conflict for a put that expects it.
        var gone = Batch()
        try gone.put(eventCalendar(uid: "shared@example.com"), into: "calendar", name: name, expecting: .identity(fresh.file.identity))
        let goneError = try #require(throws: StoreError.self) { try store.commit(gone) }
        #expect(goneError.code == .conflict && goneError.message.contains("removed"))
    }

    // MARK: File names

    @Test(arguments: [
        "../../x", "a/b", "a\u{0}b", "..", ".", ".hidden", "", "tab\there", "line\nbreak",
        String(repeating: "long-", count: 200), "日本語-ü@example.com", "UPPER@Example.COM", "x.ics", "/etc/passwd",
    ])
    func sanitisedNamesStayInsideTheCollection(uid: String) throws {
        let name = ItemFileName.forUID(uid)
        #expect(ItemFileName.isSafeName(name), "\(name)")
        #expect(ItemFileName.isItemName(name))
        #expect(!name.contains("/") && !name.contains("..") && !name.hasPrefix("."))
        #expect(name.utf8.count <= ItemFileName.maximumStemLength + 1 + 16 + 4)
        #expect(name == ItemFileName.forUID(uid), "deterministic")
        guard !uid.isEmpty else { return }
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var batch = Batch()
        try batch.put(eventCalendar(uid: uid), into: "calendar", expecting: .absent)
        try store.commit(batch)
        let files = try store.items(in: "calendar")
        #expect(files.map(\.name) == [name])
        let read = try store.readItem(in: "calendar", name: name)
        #expect(read.item != nil, "\(read.diagnostics)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [".openeventkit", "calendar", "reminders"])
    }

    @Test func namesAreCaseCollisionSafe() {
        let names = ["abc", "ABC", "Abc", "aBc"].map(ItemFileName.forUID)
        #expect(Set(names.map { $0.lowercased() }).count == 4)
        #expect(ItemFileName.forUID("plain-uid@example.com") == "plain-uid@example.com.ics")
        #expect(ItemFileName.forUID("a/b") != ItemFileName.forUID("a_b"))
        #expect(ItemFileName.forUID("../../x").hasPrefix("___.__x-"))
    }

    // MARK: Reading

    @Test func corruptItemIsSkippedWithADiagnostic() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var batch = Batch()
        for index in 0..<3 { try batch.put(eventCalendar(uid: "good-\(index)"), into: "calendar", expecting: .absent) }
        try store.commit(batch)
        let garbage = try folder.write("calendar/garbage.ics", "this is not a calendar\n\u{1}\u{2}\n")
        let broken = try folder.write("calendar/broken.ics", "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID broken\nDTSTART:20270231T000000\n")
        let binary = folder.path + "/calendar/binary.ics"
        try Data([0xFF, 0xFE, 0x00, 0x01, 0x80]).write(to: URL(fileURLWithPath: binary))
        let contents = try store.readCollection("calendar")
        #expect(contents.items.compactMap(\.uid).sorted().prefix(3) == ["good-0", "good-1", "good-2"])
        for path in [garbage, binary] {
            let diagnostic = try #require(contents.diagnostics.first { $0.file == path && $0.message.contains("skipped") })
            #expect(diagnostic.line >= 1)
            #expect(diagnostic.description.hasPrefix("\(path):\(diagnostic.line): error:"))
        }
        // The broken event is either repaired (with diagnostics) or skipped, never silently.
        let brokenItem = contents.items.first { $0.file.path == broken }
        #expect(brokenItem != nil || contents.diagnostics.contains { $0.file == broken && $0.message.contains("skipped") })
        #expect(contents.diagnostics.contains { $0.file == broken })
    }

    // MARK: Change scan

    @Test func changeScanReportsAddedChangedAndRemovedItems() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var batch = Batch()
        let kept = try batch.put(eventCalendar(uid: "kept"), into: "calendar", expecting: .absent)
        let edited = try batch.put(eventCalendar(uid: "edited"), into: "calendar", expecting: .absent)
        let removed = try batch.put(eventCalendar(uid: "removed"), into: "calendar", expecting: .absent)
        try store.commit(batch)
        let first = try store.snapshot()
        #expect(try store.scanChanges(since: first).changes.isEmpty)

        try folder.write("calendar/\(edited)", ICalWriter().string(eventCalendar(uid: "edited", summary: "by khal")))
        try FileManager.default.removeItem(atPath: folder.path + "/calendar/" + removed)
        try folder.write("calendar/added-by-khal.ics", ICalWriter().string(eventCalendar(uid: "added")))
        let (changes, snapshot) = try store.scanChanges(since: first)
        #expect(changes.items["calendar"] == ItemChanges(added: ["added-by-khal.ics"], changed: [edited], removed: [removed]))
        #expect(changes.items["calendar"]?.changed.contains(kept) == false)
        #expect(changes.addedCollections.isEmpty)

        var third = Batch()
        try third.createCollection("extra", title: "Extra")
        try third.put(eventCalendar(uid: "in-extra"), into: "extra", expecting: .absent)
        try third.updateCollection("reminders", color: "#000000")
        try store.commit(third)
        let next = try store.scanChanges(since: snapshot).changes
        #expect(next.addedCollections == ["extra"])
        #expect(next.changedCollections == ["reminders"])
        #expect(next.items == ["extra": ItemChanges(added: ["in-extra.ics"])])

        var fourth = Batch()
        try fourth.deleteCollection("extra")
        try store.commit(fourth)
        let last = try store.scanChanges(since: try store.snapshot()).changes
        #expect(last.isEmpty)
    }

    // MARK: Crash recovery, step by step

    @Test func temporariesWithoutJournalAreRemovedOnOpen() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        let before = try storeTree(folder.path)
        var batch = Batch()
        try batch.createCollection("staged", title: "Staged")
        try batch.put(eventCalendar(uid: "uncommitted"), into: "calendar", expecting: .absent)
        var plan = try store.prepare(batch)
        try store.stage(&plan)   // a crash here: files written, no journal
        #expect(try storeTree(folder.path) != before)
        _ = try FolderStore.open(at: folder.path)
        #expect(try storeTree(folder.path) == before)
        #expect(try store.collections().map(\.identifier) == ["calendar", "reminders"])
    }

    @Test func stagingMarksTheCommitBeforeItsFirstTemporary() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        #expect(!FileManager.default.fileExists(atPath: store.commitMarkerPath))
        var batch = Batch()
        try batch.put(eventCalendar(uid: "staged"), into: "calendar", expecting: .absent)
        var plan = try store.prepare(batch)
        #expect(!FileManager.default.fileExists(atPath: store.commitMarkerPath), "checking writes nothing")
        try store.stage(&plan)
        #expect(FileManager.default.fileExists(atPath: store.commitMarkerPath))
        _ = try FolderStore.open(at: folder.path)
        #expect(!FileManager.default.fileExists(atPath: store.commitMarkerPath), "removed once the temporaries are")

        // A commit that finishes leaves no marker.
        try store.commit(batch)
        let entries = try FileManager.default.contentsOfDirectory(atPath: store.metadataFolder).sorted()
        #expect(entries == ["lock", "store.json"])
    }

    @Test func interruptedCommitsTemporariesAreRemovedOnOpen() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var seed = Batch()
        try seed.put(eventCalendar(uid: "kept"), into: "calendar", expecting: .absent)
        try store.commit(seed)
        let before = try storeTree(folder.path, includeMetadata: true)
        // What a commit killed after its marker and some temporaries leaves.
        try folder.write(".openeventkit/commit-in-progress", "")
        try folder.write("calendar/.oek-0123456789abcdef-1.tmp", "BEGIN:VCALENDAR\r\n")
        try folder.write("reminders/.oek-0123456789abcdef-2.tmp", "")
        try folder.write(".oek-0123456789abcdef-3.new/displayname", "Staged")

        let recorder = StoreSystem.ListingRecorder()
        try StoreSystem.$listingRecorder.withValue(recorder) {
            _ = try FolderStore.open(at: folder.path)
        }
        #expect(try storeTree(folder.path, includeMetadata: true) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/.oek-0123456789abcdef-3.new"))
        #expect(Set(recorder.listed).isSuperset(of: [folder.path + "/calendar", folder.path + "/reminders"]))
    }

    @Test func openingWithoutAnInterruptedCommitListsNoCollection() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var seed = Batch()
        try seed.put(eventCalendar(uid: "one"), into: "calendar", expecting: .absent)
        try store.commit(seed)
        // A temporary without the marker (no commit leaves one: the marker is flushed before
        // the first temporary is written): opening does not look for it.
        let stray = try folder.write("calendar/.oek-0123456789abcdef-1.tmp", "stray")
        // The access records' temporaries are in `.openeventkit`, which is always swept.
        let access = try folder.write(".openeventkit/.oek-0123456789abcdef-authorizations.json", "{}")

        let recorder = StoreSystem.ListingRecorder()
        try StoreSystem.$listingRecorder.withValue(recorder) {
            _ = try FolderStore.open(at: folder.path)
        }
        #expect(recorder.listed == [store.metadataFolder])
        #expect(FileManager.default.fileExists(atPath: stray))
        #expect(!FileManager.default.fileExists(atPath: access))
        // Readers never take a temporary for an item.
        #expect(try store.items(in: "calendar").map(\.name) == ["one.ics"])

        // A commit lists no collection either when no commit was interrupted.
        let committing = StoreSystem.ListingRecorder()
        var batch = Batch()
        try batch.put(eventCalendar(uid: "two"), into: "calendar", expecting: .absent)
        try StoreSystem.$listingRecorder.withValue(committing) { try store.commit(batch) }
        #expect(!committing.listed.contains(folder.path + "/calendar"))
        #expect(FileManager.default.fileExists(atPath: stray))
    }

    /// The journal is written without `JSONEncoder`; `JSONDecoder` must read back every
    /// step, whatever the names hold.
    @Test func theJournalIsJSONThatReadsBackAsWritten() throws {
        let names = ["plain.ics", "quote\"and\\slash.ics", "tab\tnew\nline.ics", "\u{1B}[31m.ics", "Réunion 📅.ics",
                     "\u{202E}gnp.ics", "\u{7F}\u{85}.ics", "会議.ics", ""]
        var steps: [StoreJournal.Step] = []
        for (index, name) in names.enumerated() {
            steps.append(.init(kind: .rename, from: "calendar/.oek-batch-\(index)", path: "calendar/" + name, trash: nil))
            steps.append(.init(kind: .remove, from: nil, path: "work/" + name, trash: nil))
            steps.append(.init(kind: .removeTree, from: nil, path: name, trash: ".oek-trash-" + name))
        }
        for journal in [StoreJournal(batch: "batch-1", steps: steps), StoreJournal(batch: "empty \"one\"", steps: [])] {
            let read = try JSONDecoder().decode(StoreJournal.self, from: Data(journal.jsonBytes()))
            #expect(read == journal)
        }
    }

    @Test func journalIsRolledForwardOnOpen() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var seed = Batch()
        let old = try seed.put(eventCalendar(uid: "old"), into: "calendar", expecting: .absent)
        try store.commit(seed)
        var batch = Batch()
        try batch.createCollection("staged", title: "Staged")
        try batch.put(eventCalendar(uid: "in-staged"), into: "staged", expecting: .absent)
        let new = try batch.put(eventCalendar(uid: "committed"), into: "calendar", expecting: .absent)
        try batch.delete(old, from: "calendar", expecting: .any)
        var plan = try store.prepare(batch)
        try store.stage(&plan)
        let journal = StoreJournal(batch: plan.batchName, steps: plan.steps)
        try Data(journal.jsonBytes()).write(to: URL(fileURLWithPath: store.journalPath))
        // A crash in the middle of applying: the first step is done, the rest is not.
        if let first = plan.steps.first, let from = first.from {
            try FileManager.default.moveItem(atPath: folder.path + "/" + from, toPath: folder.path + "/" + first.path)
        }
        let reopened = try FolderStore.open(at: folder.path)
        #expect(!FileManager.default.fileExists(atPath: store.journalPath))
        #expect(try reopened.items(in: "calendar").map(\.name) == [new])
        #expect(try reopened.items(in: "staged").map(\.name) == ["in-staged.ics"])
        #expect(try reopened.collection("staged").title == "Staged")
        #expect(try storeTree(folder.path).keys.allSatisfy { !$0.contains(FolderStore.temporaryPrefix) })
    }

    @Test func errorsDescribeThemselves() {
        let cause = SystemCallError(function: "rename", errno: 2)
        let error = StoreError(.io, "cannot rename", path: "/s/calendar/a.ics", cause: cause)
        #expect(error.description == "io: cannot rename (/s/calendar/a.ics)")
        #expect(error.detailedDescription().contains("Cause: 'rename' system call failed"))
        #expect(StoreError.Code.io ~= error)
        #expect(error.eventKitError.code == .internalFailure)
    }
}

@Suite struct StorePendingBatchAndLockTests {
    @Test func failedPendingBatchBlocksLaterCommitsUntilReset() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var pending = PendingBatch()
        try pending.add { batch throws(StoreError) in try batch.put(eventCalendar(uid: "a"), into: "calendar", expecting: .absent) }
        try pending.commit(to: store)
        #expect(pending.batch.isEmpty)
        try pending.add { batch throws(StoreError) in try batch.put(eventCalendar(uid: "a"), into: "calendar", expecting: .absent) }
        #expect(throws: StoreError.self) { try pending.commit(to: store) }
        #expect(throws: StoreError.self) { try pending.commit(to: store) }
        #expect(throws: StoreError.self) {
            try pending.add { batch throws(StoreError) in try batch.put(eventCalendar(uid: "b"), into: "calendar", expecting: .absent) }
        }
        pending.reset()
        try pending.add { batch throws(StoreError) in try batch.put(eventCalendar(uid: "b"), into: "calendar", expecting: .absent) }
        try pending.commit(to: store)
        #expect(try store.items(in: "calendar").map(\.name) == ["a.ics", "b.ics"])
    }

    @Test func openingDoesNotWaitForAWriterAndKhalFolderGetsMetadataOnFirstCommit() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try folder.write("personal/old.ics", ICalWriter().string(eventCalendar(uid: "old")))
        let store = try FolderStore.open(at: folder.path)
        var batch = Batch()
        try batch.put(eventCalendar(uid: "new"), into: "personal", expecting: .absent)
        try store.commit(batch)
        #expect(try store.items(in: "personal").map(\.name) == ["new.ics", "old.ics"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/.openeventkit") == ["lock"])
        #expect(try store.metadata() == nil)

        let lock = try StoreSystem.lockExclusively(store.lockPath)
        defer { StoreSystem.unlock(lock) }
        let reopened = try FolderStore.open(at: folder.path)   // would hang if open waited
        #expect(try reopened.collections().map(\.identifier) == ["personal"])
        #expect(try StoreSystem.tryLockExclusively(store.lockPath) == nil)
    }
}
