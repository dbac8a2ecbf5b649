import Foundation
import ICalKit

/// The journal of a committed batch: the renames and removals that make it visible, in
/// the order they are applied. Every step can be applied again, so a journal found after a
/// crash is simply applied from the start.
struct StoreJournal: Codable, Sendable, Hashable {
    struct Step: Codable, Sendable, Hashable {
        enum Kind: String, Codable, Sendable { case rename, remove, removeTree }
        var kind: Kind
        /// The path (relative to the store) renamed from, for `rename`.
        var from: String?
        /// The path (relative to the store) renamed to, removed, or removed with its contents.
        var path: String
        /// For `removeTree`: where the folder is renamed before its contents are removed.
        var trash: String?
    }
    var formatVersion = 1
    var batch: String
    var steps: [Step]

    /// The journal as the JSON `JSONDecoder` reads back, written directly: `JSONEncoder`
    /// builds a tree of the whole batch first, and with the bytes copied twice more that
    /// was the largest part of an import's memory beyond the items (an import of 300,000
    /// events peaked at 550 MB with it, 396 MB without). A streamed commit writes the same
    /// text in parts (``jsonHeader(batch:)``, ``appendJSON(_:to:)``, ``jsonFooter``).
    func jsonBytes() -> [UInt8] {
        var out = Self.jsonHeader(batch: batch, formatVersion: formatVersion)
        out.reserveCapacity(64 + steps.count * 112)
        for (index, step) in steps.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            Self.appendJSON(step, to: &out)
        }
        return out + Self.jsonFooter
    }

    /// The journal's text up to its first step.
    static func jsonHeader(batch: String, formatVersion: Int = 1) -> [UInt8] {
        var out: [UInt8] = []
        out += Array("{\"formatVersion\":".utf8)
        out += Array(String(formatVersion).utf8)
        out += Array(",\"batch\":".utf8)
        appendJSONString(batch, to: &out)
        out += Array(",\"steps\":[".utf8)
        return out
    }

    /// The journal's text after its last step.
    static let jsonFooter: [UInt8] = Array("]}".utf8)

    /// One step as JSON.
    static func appendJSON(_ step: Step, to out: inout [UInt8]) {
        func append(_ text: StaticString) { text.withUTF8Buffer { out.append(contentsOf: $0) } }
        append("{\"kind\":")
        appendJSONString(step.kind.rawValue, to: &out)
        if let from = step.from {
            append(",\"from\":")
            appendJSONString(from, to: &out)
        }
        append(",\"path\":")
        appendJSONString(step.path, to: &out)
        if let trash = step.trash {
            append(",\"trash\":")
            appendJSONString(trash, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}

/// What a commit wrote.
package struct CommitResult: Sendable, Hashable {
    /// The identity of every item file the batch put, keyed by collection and file name.
    package var identities: [ItemKey: FileIdentity]
}

/// An item file's place: its collection and file name.
package struct ItemKey: Sendable, Hashable, CustomStringConvertible {
    package var collection: String
    package var name: String
    package init(collection: String, name: String) {
        self.collection = collection
        self.name = name
    }
    package var description: String { collection + "/" + name }
}

extension FolderStore {
    /// The prefix of every temporary file and folder a batch writes; such entries are
    /// removed on open when no journal refers to them.
    static let temporaryPrefix = ".oek-"

    /// Commits a batch, all or nothing, holding the store's lock throughout.
    ///
    /// 1. Under the lock, finish any commit a crash interrupted.
    /// 2. Check every put and delete against the identity the caller expects; any
    ///    difference fails the batch with nothing written.
    /// 3. Create the marker `.openeventkit/commit-in-progress` and flush it to disk, then
    ///    write each new file as a temporary in its target folder (new collections as a
    ///    temporary folder beside the others), without flushing any of them.
    /// 4. Write the journal's temporary, then flush the whole batch with one `syncfs(2)`
    ///    per file system, then rename the journal to `.openeventkit/journal` and fsync
    ///    `.openeventkit`: this rename is the commit point.
    /// 5. Apply the journal's renames and removals, fsync each touched folder once,
    ///    remove the journal and the marker.
    ///
    /// A crash before step 4's rename leaves the store as before (the temporaries are
    /// removed on the next open or commit); a crash after it leaves it as after (the
    /// journal is applied on the next open or commit).
    ///
    /// The marker is what makes recovery look for temporaries in the collections' folders
    /// (listing a folder of 100,000 items costs tens of milliseconds, which every open paid
    /// before). It is on disk before the first temporary is created, so a crash, even a
    /// power loss, that can leave a temporary also leaves the marker; it is removed only
    /// after the renames that consumed the temporaries were flushed. A commit that fails
    /// before its commit point removes what it wrote but leaves the marker, so the next
    /// recovery sweeps whatever that removal missed.
    ///
    /// Why one `syncfs` before the commit point keeps that guarantee, also across a power
    /// loss: the only thing recovery trusts is a journal found under its final name, and
    /// the journal refers only to the temporaries of its own batch. Every one of them, and
    /// the journal's own bytes, was written before the `syncfs`, which returns only when
    /// all of that is on disk; the rename is issued after it returns. So a journal that
    /// survives a crash always finds complete temporaries to rename. A crash before the
    /// rename is on disk leaves no journal, and the temporaries, complete or not, are
    /// removed. The renames of step 5 are issued only after `.openeventkit` is fsynced, so
    /// the journal is on disk before any item is replaced, as before. Per-file `fsync`
    /// gave the same ordering one file at a time; `syncfs` gives it for the batch at once
    /// (a 10,000-item batch waited for the disk 10,000 times, now once).
    @discardableResult
    package func commit(_ batch: Batch) throws(StoreError) -> CommitResult {
        guard !batch.isEmpty else { return CommitResult(identities: [:]) }
        try StoreSystem.makeFolder(metadataFolder)
        let lock = try StoreSystem.lockExclusively(lockPath)
        defer { StoreSystem.unlock(lock) }
        try recoverLocked()

        var plan = try prepare(batch)
        do throws(StoreError) {
            try stage(&plan)
            try writeJournal(&plan)
        } catch {
            // The marker stays: the next recovery looks for what this removal misses.
            for path in plan.staged.reversed() { try? StoreSystem.removeTree(path) }
            throw error
        }
        return try applyCommitted(plan)
    }

    /// ``commit(_:)`` of `batch` plus item files that `produce` hands to its `put` one at a
    /// time, each written as a temporary at once, so that a batch of any size holds one
    /// item's bytes in memory, not every item's bytes. The puts are checked as
    /// ``Batch/putBytes(_:into:name:expecting:)`` and ``commit(_:)`` check theirs, and come
    /// after the batch's own item changes in the journal. Any error, of a put or thrown by
    /// `produce`, fails the whole batch with nothing written; the guarantees of
    /// ``commit(_:)`` hold as they are.
    ///
    /// What the batch keeps per put is kept on disk, not in memory, so that the batch's
    /// memory does not grow with its size: each put's names go to a
    /// ``RecordLog`` (an unlinked temporary file), read back to write the journal a step at a
    /// time, to apply it, to report the identities and, on failure, to remove the
    /// temporaries; whether an item is put twice is found by sorting the puts' names
    /// (``RecordSorter``, within a share of `memory`) before the commit point. Before, an
    /// import of 250,000 events held about 330 MB of names, journal steps and identities.
    ///
    /// - Parameter committed: called with each streamed item's identity once the batch is
    ///   applied (nil: the identities are not read; the result holds the batch's own).
    package func commit(
        _ batch: Batch,
        memory: MemoryBudget,
        streaming produce: (_ put: (_ collection: String, _ name: String, _ bytes: [UInt8], _ expecting: Batch.Expectation) throws(StoreError) -> Void) throws -> Void,
        committed: ((ItemKey, FileIdentity) -> Void)?
    ) throws -> CommitResult {
        try StoreSystem.makeFolder(metadataFolder)
        let lock = try StoreSystem.lockExclusively(lockPath)
        defer { StoreSystem.unlock(lock) }
        try recoverLocked()

        var plan = try prepare(batch)
        // Per put: whether its collection is created by the batch (1) or not (0), the
        // collection, the name, and the number of its temporary.
        let puts = RecordLog()
        let names = RecordSorter(memoryLimit: memory.bytes / 8)
        func spilled<T>(_ work: () throws(ICalError) -> T) throws(StoreError) -> T {
            do { return try work() } catch {
                throw StoreError(.io, "cannot keep the batch's list of items: \(error)", path: root)
            }
        }
        do {
            try stage(&plan)
            try produce { collection, name, bytes, expecting throws(StoreError) in
                try Batch.checkItem(collection, name)
                let key = ItemKey(collection: collection, name: name)
                guard !plan.targets.contains(key) else {
                    throw StoreError(.invalidBatch, "the batch changes the item more than once", path: root + "/" + key.description)
                }
                var record = RecordSorter.Payload()
                if let staging = plan.created[collection] {
                    let path = root + "/" + staging + "/" + name
                    // The staging folder is removed whole on failure.
                    guard !StoreSystem.exists(path) else {
                        throw StoreError(.invalidBatch, "the batch changes the item more than once", path: root + "/" + key.description)
                    }
                    try StoreSystem.writeNewFile(bytes, to: path, flush: false)
                    plan.stagedFolders.insert(root + "/" + staging)
                    record.append(1)
                    record.append(collection)
                    record.append(name)
                    record.append(0)
                } else {
                    guard plan.existingCollections.contains(collection) else {
                        throw StoreError(.notFound, "there is no collection '\(collection)'", path: root + "/" + collection)
                    }
                    guard !plan.structural.contains(collection) else {
                        throw StoreError(.invalidBatch, "the batch changes items of collection '\(collection)' while it moves or deletes it")
                    }
                    try checkIdentity(key.description, expecting)
                    _ = plan.temporaryName(".tmp")
                    record.append(0)
                    record.append(collection)
                    record.append(name)
                    record.append(plan.counter)
                    // Logged before it is written: a failure removes what the log names.
                    try spilled { () throws(ICalError) in try puts.append(record) }
                    record = RecordSorter.Payload()
                    try StoreSystem.writeNewFile(bytes, to: root + "/" + collection + "/" + Self.temporaryName(plan.batchName, plan.counter), flush: false)
                    plan.stagedFolders.insert(root + "/" + collection)
                }
                if !record.bytes.isEmpty { try spilled { () throws(ICalError) in try puts.append(record) } }
                var sortKey = RecordSorter.Key()
                sortKey.append(collection)
                sortKey.append(name)
                try spilled { () throws(ICalError) in try names.add(key: sortKey, payload: RecordSorter.Payload()) }
            }
            // An item put twice (the batch's own are refused above, as they come).
            var previous: [UInt8]?
            try names.forEachSorted { key, _ in
                if key == previous {
                    throw StoreError(.invalidBatch, "the batch changes the item more than once",
                                     path: root + "/" + Self.itemKey(sortedKey: key).description)
                }
                previous = key
            }
            try writeJournal(&plan, streamed: puts)
        } catch {
            // The marker stays: the next recovery looks for what this removal misses.
            try? puts.forEach { record in
                let put = Self.streamedPut(&record)
                if !put.created { try? StoreSystem.remove(root + "/" + put.key.collection + "/" + Self.temporaryName(plan.batchName, put.counter)) }
            }
            for path in plan.staged.reversed() { try? StoreSystem.removeTree(path) }
            throw error
        }
        return try applyCommitted(plan, streamed: puts, committed: committed)
    }

    /// The name of a batch's temporary file number `counter` (``Plan/temporaryName(_:)``).
    static func temporaryName(_ batchName: String, _ counter: Int) -> String {
        temporaryPrefix + batchName + "-\(counter).tmp"
    }

    /// One record of a streamed commit's log of puts.
    private static func streamedPut(_ record: inout RecordSorter.Payload) -> (created: Bool, key: ItemKey, counter: Int) {
        let created = record.int() == 1
        let collection = record.string() ?? "", name = record.string() ?? ""
        return (created, ItemKey(collection: collection, name: name), record.int())
    }

    /// The item of a key built from its collection and name (``RecordSorter/Key``).
    private static func itemKey(sortedKey key: [UInt8]) -> ItemKey {
        var parts: [String] = []
        var current: [UInt8] = []
        var index = 0
        while index < key.count {
            if key[index] == 0, index + 1 < key.count, key[index + 1] == 0xFF {
                current.append(0)
                index += 2
            } else if key[index] == 0 {
                parts.append(String(decoding: current, as: UTF8.self))
                current = []
                index += 2
            } else {
                current.append(key[index])
                index += 1
            }
        }
        return ItemKey(collection: parts.first ?? "", name: parts.count > 1 ? parts[1] : "")
    }

    /// The journal's steps: the plan's, with the streamed puts' renames (read from `streamed`)
    /// after the batch's own item changes.
    private func forEachStep(of plan: Plan, streamed: RecordLog?, _ body: (StoreJournal.Step) throws(StoreError) -> Void) throws(StoreError) {
        for step in plan.steps[..<plan.itemStepsEnd] { try body(step) }
        if let streamed {
            do {
                try streamed.forEach { record in
                    let put = Self.streamedPut(&record)
                    guard !put.created else { return }
                    try body(.init(kind: .rename, from: put.key.collection + "/" + Self.temporaryName(plan.batchName, put.counter),
                                   path: put.key.description))
                }
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(.io, "cannot read the batch's list of items back: \(error)", path: root)
            }
        }
        for step in plan.steps[plan.itemStepsEnd...] { try body(step) }
    }

    /// Writes the journal's temporary, flushes the batch and gives the journal its name:
    /// the commit point (step 4 of ``commit(_:)``). The journal is written a megabyte at a
    /// time, its steps read from the plan and from `streamed`.
    private func writeJournal(_ plan: inout Plan, streamed: RecordLog? = nil) throws(StoreError) {
        let temporary = metadataFolder + "/" + Self.temporaryPrefix + plan.batchName + ".journal"
        plan.staged.append(temporary)
        let steps = plan
        try StoreSystem.writeNewFile(to: temporary, flush: false) { write throws(StoreError) in
            var out = StoreJournal.jsonHeader(batch: steps.batchName)
            var first = true
            try forEachStep(of: steps, streamed: streamed) { step throws(StoreError) in
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                StoreJournal.appendJSON(step, to: &out)
                if out.count >= 1 << 20 {
                    try write(out)
                    out.removeAll(keepingCapacity: true)
                }
            }
            out += StoreJournal.jsonFooter
            try write(out)
        }
        // Everything the journal refers to, and the journal itself, reaches the disk
        // before the journal gets its name (see above).
        try StoreSystem.synchronizeFileSystems(containing: plan.stagedFolders.union([metadataFolder]).sorted())
        try StoreSystem.rename(temporary, journalPath)
    }

    /// Step 5 of ``commit(_:)``: applies a committed plan's journal (with the renames of
    /// `streamed`'s puts) and cleans up; `committed` learns each streamed put's identity.
    private func applyCommitted(_ plan: Plan, streamed: RecordLog? = nil,
                                committed: ((ItemKey, FileIdentity) -> Void)? = nil) throws(StoreError) -> CommitResult {
        // Committed. From here on, a failure leaves the journal for the next open or commit.
        do {
            try StoreSystem.synchronize(folder: metadataFolder)
            var touched = Set<String>()
            try forEachStep(of: plan, streamed: streamed) { step throws(StoreError) in try apply(step, touched: &touched) }
            try synchronize(touched)
            try StoreSystem.remove(journalPath)
            // Every temporary was renamed or removed, and the folders were flushed by `apply`.
            try StoreSystem.remove(commitMarkerPath)
            try StoreSystem.synchronize(folder: metadataFolder)
        } catch {
            throw StoreError(.incompleteCommit,
                             "the batch is committed but could not be applied completely; the next open or commit of the store finishes it",
                             path: journalPath, cause: error)
        }
        var identities: [ItemKey: FileIdentity] = [:]
        for key in plan.putKeys {
            if let identity = try StoreSystem.identity(root + "/" + key.collection + "/" + key.name) {
                identities[key] = identity
            }
        }
        if let streamed, let committed {
            do {
                try streamed.forEach { record in
                    let key = Self.streamedPut(&record).key
                    if let identity = try StoreSystem.identity(root + "/" + key.collection + "/" + key.name) { committed(key, identity) }
                }
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(.io, "cannot read the batch's list of items back: \(error)", path: root)
            }
        }
        return CommitResult(identities: identities)
    }

    // MARK: Recovery

    /// Finishes a committed batch whose journal is still there, then removes the
    /// temporaries of batches that never committed. The caller holds the lock.
    ///
    /// Only `.openeventkit` is always listed (a few entries: the access records write
    /// their temporaries there without the commit marker). The store's folder and every
    /// collection's are listed only after an interrupted commit: when the commit marker is
    /// there, or a journal was. The marker is removed once they hold no temporary.
    func recoverLocked() throws(StoreError) {
        var interrupted = StoreSystem.exists(commitMarkerPath)
        if StoreSystem.exists(journalPath) {
            interrupted = true
            let bytes = try StoreSystem.readFile(journalPath, limit: 1 << 30).bytes
            let journal: StoreJournal
            do { journal = try JSONDecoder().decode(StoreJournal.self, from: Data(bytes)) } catch {
                throw StoreError(.corruptMetadata, "cannot read the journal of an unfinished commit: \(error)", path: journalPath)
            }
            try apply(journal)
            try StoreSystem.remove(journalPath)
            try StoreSystem.synchronize(folder: metadataFolder)
        }
        // After the journal: its steps rename temporaries of `.openeventkit`.
        for entry in try StoreSystem.list(metadataFolder) where entry.name.hasPrefix(Self.temporaryPrefix) {
            try StoreSystem.removeTree(metadataFolder + "/" + entry.name)
        }
        guard interrupted else { return }
        for entry in try StoreSystem.list(root) {
            if entry.name.hasPrefix(Self.temporaryPrefix) {
                try StoreSystem.removeTree(root + "/" + entry.name)
            } else if entry.isFolder && !entry.name.hasPrefix(".") {
                let folder = root + "/" + entry.name
                for item in try StoreSystem.list(folder) where item.name.hasPrefix(Self.temporaryPrefix) {
                    try StoreSystem.removeTree(folder + "/" + item.name)
                }
            }
        }
        // Not flushed: a marker that survives a crash only makes the next recovery sweep again.
        try StoreSystem.remove(commitMarkerPath)
    }

    /// Applies a journal's steps; each step may have been applied already.
    func apply(_ journal: StoreJournal) throws(StoreError) {
        var touched = Set<String>()
        for step in journal.steps { try apply(step, touched: &touched) }
        try synchronize(touched)
    }

    /// Applies one step of a journal (it may have been applied already), noting the folders
    /// it changed in `touched`.
    private func apply(_ step: StoreJournal.Step, touched: inout Set<String>) throws(StoreError) {
        let target = root + "/" + step.path
        switch step.kind {
        case .rename:
            guard let from = step.from else { return }
            let source = root + "/" + from
            if StoreSystem.exists(source) { try StoreSystem.rename(source, target) }
            touched.insert(Self.parent(target))
            touched.insert(Self.parent(source))
        case .remove:
            try StoreSystem.remove(target)
            touched.insert(Self.parent(target))
        case .removeTree:
            guard let trash = step.trash.map({ root + "/" + $0 }) else { return }
            if StoreSystem.exists(target) { try StoreSystem.rename(target, trash) }
            try StoreSystem.removeTree(trash)
            touched.insert(Self.parent(target))
        }
    }

    /// Flushes the folders a journal's steps changed.
    private func synchronize(_ touched: Set<String>) throws(StoreError) {
        for folder in touched.sorted() where StoreSystem.isFolder(folder) {
            try StoreSystem.synchronize(folder: folder)
        }
    }

    static func parent(_ path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    }

    // MARK: Planning and staging

    struct Plan {
        struct Write {
            var temporary: String
            var bytes: [UInt8]
        }
        var batchName: String
        var counter = 0
        /// New folders to create (staging folders of new collections).
        var folders: [String] = []
        /// Files to write (temporaries, or final names inside a staging folder).
        var writes: [Write] = []
        var steps: [StoreJournal.Step] = []
        /// Everything written before the commit point, removed if it fails.
        var staged: [String] = []
        /// The folders that hold what was staged (their file systems are flushed before the
        /// commit point).
        var stagedFolders: Set<String> = []
        var putKeys: [ItemKey] = []
        /// What ``FolderStore/commit(_:streaming:)`` checks its puts against: the collections
        /// there were, those the batch creates (identifier to staging folder), those it
        /// creates, moves or deletes, the items it changes, and where item renames end in
        /// `steps`.
        var existingCollections: Set<String> = []
        var created: [String: String] = [:]
        var structural: Set<String> = []
        var targets: Set<ItemKey> = []
        var itemStepsEnd = 0

        mutating func temporaryName(_ suffix: String) -> String {
            counter += 1
            return FolderStore.temporaryPrefix + batchName + "-\(counter)" + suffix
        }
    }

    /// Checks the batch against itself and the disk (under the lock) and plans its writes.
    func prepare(_ batch: Batch) throws(StoreError) -> Plan {
        var plan = Plan(batchName: ItemFileName.hex(StoreSystem.randomNumber()))
        let existing = Set(try collections().map(\.identifier))
        var created: [String: String] = [:]       // identifier -> staging folder (relative)
        var structural = Set<String>()            // identifiers created, moved or deleted
        var itemCollections = Set<String>()       // collections whose items change
        var targets = Set<ItemKey>()
        var creations: [StoreJournal.Step] = [], moves: [StoreJournal.Step] = []
        var itemRenames: [StoreJournal.Step] = [], removals: [StoreJournal.Step] = []
        var treeRemovals: [StoreJournal.Step] = [], metadataSteps: [StoreJournal.Step] = []
        var metadata = try self.metadata() ?? StoreMetadata(defaultEventCalendar: nil, defaultReminderList: nil)
        var metadataChanged = false

        func claim(_ identifier: String) throws(StoreError) {
            guard structural.insert(identifier).inserted, !itemCollections.contains(identifier) else {
                throw StoreError(.invalidBatch, "collection '\(identifier)' is created, moved or deleted more than once, or changed while it is moved or deleted")
            }
        }
        func writeFile(_ bytes: [UInt8], collection: String, name: String) {
            if let staging = created[collection] {
                let path = root + "/" + staging + "/" + name
                if let index = plan.writes.firstIndex(where: { $0.temporary == path }) {
                    plan.writes[index].bytes = bytes   // a title or color set again in the same batch
                } else {
                    plan.writes.append(.init(temporary: path, bytes: bytes))
                }
            } else {
                let temporary = collection + "/" + plan.temporaryName(".tmp")
                plan.writes.append(.init(temporary: root + "/" + temporary, bytes: bytes))
                itemRenames.append(.init(kind: .rename, from: temporary, path: collection + "/" + name))
            }
        }

        for operation in batch.operations {
            switch operation {
            case let .createCollection(identifier, title, color):
                try claim(identifier)
                guard !existing.contains(identifier) else {
                    throw StoreError(.alreadyExists, "collection '\(identifier)' exists already", path: root + "/" + identifier)
                }
                let staging = plan.temporaryName(".new")
                created[identifier] = staging
                plan.folders.append(root + "/" + staging)
                writeFile(Array(title.utf8), collection: identifier, name: "displayname")
                if let color { writeFile(Array(color.utf8), collection: identifier, name: "color") }
                creations.append(.init(kind: .rename, from: staging, path: identifier))
            case let .updateCollection(identifier, title, color):
                guard existing.contains(identifier) || created[identifier] != nil else {
                    throw StoreError(.notFound, "there is no collection '\(identifier)'", path: root + "/" + identifier)
                }
                guard !structural.contains(identifier) || created[identifier] != nil else {
                    throw StoreError(.invalidBatch, "collection '\(identifier)' is changed while it is moved or deleted")
                }
                itemCollections.insert(identifier)
                if let title { writeFile(Array(title.utf8), collection: identifier, name: "displayname") }
                if let color { writeFile(Array(color.utf8), collection: identifier, name: "color") }
            case let .moveCollection(from, to):
                try claim(from)
                try claim(to)
                guard existing.contains(from) else {
                    throw StoreError(.notFound, "there is no collection '\(from)'", path: root + "/" + from)
                }
                guard !existing.contains(to) else {
                    throw StoreError(.alreadyExists, "collection '\(to)' exists already", path: root + "/" + to)
                }
                moves.append(.init(kind: .rename, from: from, path: to))
                if let types = metadata.entityTypes?[from] {
                    metadata.entityTypes?[from] = nil
                    metadata.entityTypes?[to] = types
                    metadataChanged = true
                }
                if metadata.defaultEventCalendar == from { metadata.defaultEventCalendar = to; metadataChanged = true }
                if metadata.defaultReminderList == from { metadata.defaultReminderList = to; metadataChanged = true }
            case let .deleteCollection(identifier):
                try claim(identifier)
                guard existing.contains(identifier) else {
                    throw StoreError(.notFound, "there is no collection '\(identifier)'", path: root + "/" + identifier)
                }
                treeRemovals.append(.init(kind: .removeTree, path: identifier, trash: plan.temporaryName(".trash")))
                if metadata.entityTypes?[identifier] != nil {
                    metadata.entityTypes?[identifier] = nil
                    metadataChanged = true
                }
            case let .putItem(collection, name, bytes, expecting):
                try checkItemCollection(collection)
                let key = ItemKey(collection: collection, name: name)
                guard targets.insert(key).inserted else {
                    throw StoreError(.invalidBatch, "the batch changes the item more than once", path: root + "/" + key.description)
                }
                if created[collection] == nil { try checkIdentity(key.description, expecting) }
                writeFile(bytes, collection: collection, name: name)
                plan.putKeys.append(key)
            case let .deleteItem(collection, name, expecting):
                try checkItemCollection(collection)
                let key = ItemKey(collection: collection, name: name)
                guard targets.insert(key).inserted else {
                    throw StoreError(.invalidBatch, "the batch changes the item more than once", path: root + "/" + key.description)
                }
                guard created[collection] == nil else {
                    throw StoreError(.invalidBatch, "the batch deletes an item of a collection it creates", path: root + "/" + key.description)
                }
                try checkIdentity(key.description, expecting)
                removals.append(.init(kind: .remove, path: key.description))
            case let .setDefaults(eventCalendar, reminderList):
                if let eventCalendar { metadata.defaultEventCalendar = eventCalendar }
                if let reminderList { metadata.defaultReminderList = reminderList }
                metadataChanged = true
            case let .setEntityTypes(collection, types):
                var all = metadata.entityTypes ?? [:]
                all[collection] = types.map { $0.sorted { $0.rawValue < $1.rawValue } }
                metadata.entityTypes = all.isEmpty ? nil : all
                metadataChanged = true
            }

            func checkItemCollection(_ collection: String) throws(StoreError) {
                if created[collection] != nil { return }
                guard existing.contains(collection) else {
                    throw StoreError(.notFound, "there is no collection '\(collection)'", path: root + "/" + collection)
                }
                guard !structural.contains(collection) else {
                    throw StoreError(.invalidBatch, "the batch changes items of collection '\(collection)' while it moves or deletes it")
                }
                itemCollections.insert(collection)
            }
        }
        if metadataChanged {
            let data: Data
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                data = try encoder.encode(metadata)
            } catch {
                throw StoreError(.io, "cannot encode the store's metadata: \(error)", path: metadataPath)
            }
            let temporary = ".openeventkit/" + plan.temporaryName(".json")
            plan.writes.append(.init(temporary: root + "/" + temporary, bytes: Array(data)))
            metadataSteps.append(.init(kind: .rename, from: temporary, path: ".openeventkit/store.json"))
        }
        plan.steps = creations + moves + itemRenames + removals + treeRemovals + metadataSteps
        plan.existingCollections = existing
        plan.created = created
        plan.structural = structural
        plan.targets = targets
        plan.itemStepsEnd = creations.count + moves.count + itemRenames.count
        return plan
    }

    /// Checks that the file at `relative` is what the caller expects (see ``Batch/Expectation``).
    func checkIdentity(_ relative: String, _ expecting: Batch.Expectation) throws(StoreError) {
        let path = root + "/" + relative
        let current = try StoreSystem.identity(path)
        switch (expecting, current) {
        case (.any, _), (.absent, nil):
            return
        case (.absent, let current?):
            throw StoreError(.conflict, "the file exists already (\(current)); read it before replacing it", path: path)
        case (.identity(let expected), nil):
            throw StoreError(.conflict, "the file was removed on disk since it was read (expected \(expected))", path: path)
        case (.identity(let expected), let current?):
            if expected != current {
                throw StoreError(.conflict, "the file changed on disk since it was read (expected \(expected), found \(current))", path: path)
            }
        }
    }

    /// Creates the commit marker and flushes it to disk, then writes the plan's folders and
    /// files without flushing them: ``commit(_:)`` flushes the whole batch at once before
    /// its commit point.
    ///
    /// The marker is flushed first (the file, then `.openeventkit`) so that no temporary
    /// can reach the disk without it, even across a power loss. A marker already there is
    /// kept: it says the same.
    func stage(_ plan: inout Plan) throws(StoreError) {
        do {
            try StoreSystem.writeNewFile([], to: commitMarkerPath)
        } catch where error.code == .alreadyExists {
            // Not after ``recoverLocked()``, which removes it; only when staging is repeated.
        }
        try StoreSystem.synchronize(folder: metadataFolder)
        for folder in plan.folders {
            try StoreSystem.makeFolder(folder)
            plan.staged.append(folder)
            plan.stagedFolders.insert(Self.parent(folder))
        }
        for write in plan.writes {
            plan.staged.append(write.temporary)
            try StoreSystem.writeNewFile(write.bytes, to: write.temporary, flush: false)
            plan.stagedFolders.insert(Self.parent(write.temporary))
        }
    }
}
