import Foundation
import ICalKit

/// A calendar store on disk: a vdir folder (one subfolder per collection, one `.ics` file
/// per item) with the store's own metadata under `.openeventkit/`.
///
/// Every read and write of the store goes through this one type, so that the access
/// checks of the event store above it can be added in one place. Readers take no lock;
/// ``commit(_:)`` takes the store's advisory lock for the whole commit. The type holds no
/// mutable state and is safe to use from several threads; several processes may use one
/// store at once.
///
/// See the article "StoreFolderFormat" in the module's documentation for the format, the
/// journal and the crash guarantees.
package struct FolderStore: Sendable {
    /// The store's folder, without a trailing slash.
    package let root: String

    /// The largest item file the store reads, in bytes.
    package static let maximumItemSize = 16 << 20

    /// The default collections of a new store.
    package static let defaultEventCollection = (identifier: "calendar", title: "Calendar", color: "#1BADF8")
    package static let defaultReminderCollection = (identifier: "reminders", title: "Reminders", color: "#63DA38")

    var metadataFolder: String { root + "/.openeventkit" }
    var metadataPath: String { metadataFolder + "/store.json" }
    var journalPath: String { metadataFolder + "/journal" }
    var lockPath: String { metadataFolder + "/lock" }
    /// Present from before a commit writes its first temporary until its temporaries are
    /// gone: recovery looks for temporaries outside `.openeventkit` only when it is there.
    var commitMarkerPath: String { metadataFolder + "/commit-in-progress" }

    private init(root: String) { self.root = root }

    // MARK: Location

    /// The default store folder: `$OPENEVENTKIT_STORE`, else `$XDG_DATA_HOME/openeventkit`,
    /// else `$HOME/.local/share/openeventkit`. The environment is a parameter so that tests
    /// never read the real one.
    package static func defaultLocation(environment: [String: String]) throws(StoreError) -> String {
        if let path = environment["OPENEVENTKIT_STORE"], !path.isEmpty { return path }
        if let path = environment["XDG_DATA_HOME"], path.hasPrefix("/") { return path + "/openeventkit" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/share/openeventkit" }
        throw StoreError(.noLocation, "no store location: set OPENEVENTKIT_STORE, XDG_DATA_HOME or HOME")
    }

    // MARK: Opening

    /// Opens the store at a folder.
    ///
    /// - A folder that does not exist is created (unless `create` is false) as a new store:
    ///   `.openeventkit/store.json` and two collections, `calendar` for events and
    ///   `reminders` for reminders.
    /// - An empty folder becomes a new store the same way.
    /// - A folder written by khal, vdirsyncer or todoman (subfolders of `.ics` files, no
    ///   `.openeventkit`) opens as it is; nothing is written until the first commit.
    /// - A commit that a crash interrupted is finished (its journal is rolled forward), and
    ///   the temporary files of a batch that never committed are removed, unless another
    ///   process holds the lock (it is committing and has done this already). Only an
    ///   interrupted commit (its marker `.openeventkit/commit-in-progress`, or a journal)
    ///   makes this list the collections' folders; otherwise it lists only `.openeventkit`,
    ///   whatever the number of items.
    package static func open(at path: String, create: Bool = true) throws(StoreError) -> FolderStore {
        var root = path
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        guard !root.isEmpty else { throw StoreError(.invalidName, "the store path is empty") }
        if !StoreSystem.exists(root) {
            guard create else { throw StoreError(.notFound, "there is no store here", path: root) }
            try StoreSystem.makeFolders(root)
        }
        guard StoreSystem.isFolder(root) else { throw StoreError(.invalidName, "the store path is not a folder", path: root) }
        let store = FolderStore(root: root)
        if StoreSystem.isFolder(store.metadataFolder) {
            // When another process holds the lock it is committing, and it finished any
            // interrupted commit before its own; opening does not wait for it.
            do {
                if let lock = try StoreSystem.tryLockExclusively(store.lockPath) {
                    defer { StoreSystem.unlock(lock) }
                    try store.recoverLocked()
                }
            } catch {
                // A store on read-only media can still be read, unless a commit is unfinished.
                if StoreSystem.exists(store.journalPath) { throw error }
            }
        }
        let metadata = try store.metadata()
        if metadata == nil, try store.collections().isEmpty, create {
            do {
                try store.initialize()
            } catch where error.code == .alreadyExists {
                // Another process initialised the store first, in one batch: it is complete.
            }
        }
        if let metadata, metadata.formatVersion > StoreMetadata.currentFormatVersion {
            throw StoreError(.unsupportedFormat,
                             "the store has format version \(metadata.formatVersion); this version reads up to \(StoreMetadata.currentFormatVersion)",
                             path: store.metadataPath)
        }
        return store
    }

    private func initialize() throws(StoreError) {
        var batch = Batch()
        let events = Self.defaultEventCollection, reminders = Self.defaultReminderCollection
        try batch.createCollection(events.identifier, title: events.title, color: events.color)
        try batch.createCollection(reminders.identifier, title: reminders.title, color: reminders.color)
        try batch.setEntityTypes([.event], of: events.identifier)
        try batch.setEntityTypes([.reminder], of: reminders.identifier)
        batch.setDefaults(eventCalendar: events.identifier, reminderList: reminders.identifier)
        _ = try commit(batch)
    }

    // MARK: Metadata

    /// The contents of `.openeventkit/store.json`, or nil for a folder that has none
    /// (a vdir written by another program).
    package func metadata() throws(StoreError) -> StoreMetadata? {
        guard StoreSystem.exists(metadataPath) else { return nil }
        let bytes = try StoreSystem.readFile(metadataPath, limit: 1 << 20).bytes
        if let metadata = StoreMetadata(plainJSON: bytes) { return metadata }
        do {
            return try JSONDecoder().decode(StoreMetadata.self, from: Data(bytes))
        } catch {
            throw StoreError(.corruptMetadata, "cannot read the store's metadata: \(error)", path: metadataPath)
        }
    }

    /// The collection for new events: the one store.json names, when it exists, else the
    /// first collection by identifier, else nil.
    package func defaultEventCollection() throws(StoreError) -> String? {
        try defaultCollection(try metadata()?.defaultEventCalendar)
    }

    /// The collection for new reminders: the one store.json names, when it exists, else
    /// the first collection by identifier, else nil.
    package func defaultReminderCollection() throws(StoreError) -> String? {
        try defaultCollection(try metadata()?.defaultReminderList)
    }

    private func defaultCollection(_ named: String?) throws(StoreError) -> String? {
        let identifiers = try collections().map(\.identifier)
        if let named, identifiers.contains(named) { return named }
        return identifiers.first
    }

    // MARK: Reading collections

    /// The collections: every visible subfolder, sorted by identifier. Dot folders
    /// (`.openeventkit`, temporaries) are not collections.
    package func collections() throws(StoreError) -> [StoreCollection] {
        var result: [StoreCollection] = []
        for entry in try StoreSystem.list(root) where entry.isFolder && !entry.name.hasPrefix(".") {
            result.append(try collection(entry.name))
        }
        return result
    }

    /// One collection, by identifier (its folder name).
    package func collection(_ identifier: String) throws(StoreError) -> StoreCollection {
        let folder = try collectionFolder(identifier)
        guard StoreSystem.isFolder(folder) else {
            throw StoreError(.notFound, "there is no collection '\(identifier)'", path: folder)
        }
        let title = try smallText(folder + "/displayname")
        let color = try smallText(folder + "/color").flatMap { StoreCollection.isColor($0) ? $0 : nil }
        return StoreCollection(identifier: identifier, title: title ?? identifier, color: color, path: folder)
    }

    func collectionFolder(_ identifier: String) throws(StoreError) -> String {
        guard ItemFileName.isCollectionName(identifier) else {
            throw StoreError(.invalidName, "'\(identifier)' is not a collection identifier")
        }
        return root + "/" + identifier
    }

    private func smallText(_ path: String) throws(StoreError) -> String? {
        guard StoreSystem.exists(path) else { return nil }
        let bytes = try StoreSystem.readFile(path, limit: 64 << 10).bytes
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
        return text.isEmpty ? nil : text
    }

    // MARK: Reading items

    /// The item files of a collection with their identities, sorted by name. Cheap: no
    /// file is opened.
    package func items(in collection: String) throws(StoreError) -> [ItemFile] {
        let folder = try collectionFolder(collection)
        var result: [ItemFile] = []
        for entry in try StoreSystem.list(folder) where !entry.isFolder && ItemFileName.isItemFile(entry.name) {
            let path = folder + "/" + entry.name
            guard let identity = try StoreSystem.identity(path) else { continue }
            result.append(ItemFile(collection: collection, name: entry.name, path: path, identity: identity))
        }
        return result
    }

    /// The names of a collection's item files, sorted, without their identities: the
    /// names ``items(in:)`` lists (a file removed between the two calls aside), with no
    /// `lstat` per file.
    package func itemNames(in collection: String) throws(StoreError) -> [String] {
        try StoreSystem.list(try collectionFolder(collection)).compactMap { entry in
            !entry.isFolder && ItemFileName.isItemFile(entry.name) ? entry.name : nil
        }
    }

    /// Reads one item. A file that cannot be used (unreadable, not iCalendar, no VEVENT,
    /// VTODO or VJOURNAL) gives a nil item and a diagnostic that names the file and line;
    /// only a failure to reach the file at all (it is gone) throws.
    ///
    /// `touchingAccessTime: false` leaves the file's access time as it was, where the
    /// system allows it (see ``StoreSystem/readFile(_:limit:touchingAccessTime:)``): for
    /// readers of many files that are not the user's reading, such as the query index.
    package func readItem(in collection: String, name: String, touchingAccessTime: Bool) throws(StoreError) -> ItemReadResult {
        try readItemBytes(in: collection, name: name, touchingAccessTime: touchingAccessTime).result
    }

    /// ``readItem(in:name:touchingAccessTime:)`` with the file's bytes as they are (the broker
    /// sends these to an app; empty when the file could not be read).
    package func readItemBytes(in collection: String, name: String,
                               touchingAccessTime: Bool = true) throws(StoreError) -> (bytes: [UInt8], result: ItemReadResult) {
        guard ItemFileName.isItemName(name) else {
            throw StoreError(.invalidName, "'\(name)' is not an item file name", path: collection)
        }
        let path = try collectionFolder(collection) + "/" + name
        let contents: (bytes: [UInt8], identity: FileIdentity)
        do {
            contents = try StoreSystem.readFile(path, limit: Self.maximumItemSize, touchingAccessTime: touchingAccessTime)
        } catch where error.code == .notFound {
            throw error
        } catch {
            return ([], ItemReadResult(item: nil, diagnostics: [
                Diagnostic(.error, .io, line: 1, file: path, message: "\(error.message); item skipped")]))
        }
        let file = ItemFile(collection: collection, name: name, path: path, identity: contents.identity)
        return (contents.bytes, Self.parseItem(contents.bytes, file: file))
    }

    /// Bytes meant for an item file (not on disk yet) read as an item, to learn what it holds.
    package static func parseItem(_ bytes: [UInt8], collection: String, name: String) -> ItemReadResult {
        let none = FileIdentity(device: 0, inode: 0, size: 0, modificationSeconds: 0, modificationNanoseconds: 0)
        return parseItem(bytes, file: ItemFile(collection: collection, name: name, path: collection + "/" + name, identity: none))
    }

    /// An item file's bytes read as an item: nil with a diagnostic naming the file and line
    /// when they are not iCalendar or hold no VEVENT, VTODO or VJOURNAL.
    package static func parseItem(_ bytes: [UInt8], file: ItemFile) -> ItemReadResult {
        let path = file.path
        let result: ReadResult
        do {
            result = try ICalReader().read(bytes, file: path)
        } catch {
            return ItemReadResult(item: nil, diagnostics: [
                Diagnostic(.error, error.code, line: error.line ?? 1, file: path, message: "\(error.message); item skipped")])
        }
        let items = result.calendars.flatMap { calendar in
            calendar.components.filter { $0.matches(.event) || $0.matches(.todo) || $0.matches(.journal) }
        }
        guard let calendar = result.calendars.first, !items.isEmpty else {
            let line = result.errors.first?.line ?? 1
            return ItemReadResult(item: nil, diagnostics: result.diagnostics + [
                Diagnostic(.error, .noCalendarData, line: line, file: path,
                           message: "no VEVENT, VTODO or VJOURNAL could be read; item skipped")])
        }
        var merged = calendar
        if result.calendars.count > 1 {
            merged.components = result.calendars.flatMap(\.components)
        }
        let item = StoredItem(file: file, calendar: merged, components: items, uid: items.first?.uid)
        return ItemReadResult(item: item, diagnostics: result.diagnostics)
    }

    /// Reads every item of a collection. A corrupt file never hides the rest: it is
    /// skipped, with a diagnostic naming the file and line. A file removed while the
    /// collection is read is left out.
    package func readCollection(_ collection: String) throws(StoreError) -> CollectionContents {
        var contents = CollectionContents(items: [], diagnostics: [])
        for file in try items(in: collection) {
            do {
                let result = try readItem(in: collection, name: file.name)
                if let item = result.item { contents.items.append(item) }
                contents.diagnostics += result.diagnostics
            } catch where error.code == .notFound {
                continue
            }
        }
        return contents
    }
}

/// `.openeventkit/store.json`.
package struct StoreMetadata: Codable, Sendable, Hashable {
    package static let currentFormatVersion = 1
    /// The format version that wrote the store.
    package var formatVersion: Int
    /// The collection identifier for new events.
    package var defaultEventCalendar: String?
    /// The collection identifier for new reminders.
    package var defaultReminderList: String?
    /// The kinds of item each collection holds, for collections the store created or was
    /// told about. A collection with no entry holds reminders when it is the default
    /// reminder list and events otherwise (a folder khal or vdirsyncer wrote).
    package var entityTypes: [String: [CollectionEntityType]]?

    package init(formatVersion: Int = currentFormatVersion, defaultEventCalendar: String?, defaultReminderList: String?,
                 entityTypes: [String: [CollectionEntityType]]? = nil) {
        self.formatVersion = formatVersion
        self.defaultEventCalendar = defaultEventCalendar
        self.defaultReminderList = defaultReminderList
        self.entityTypes = entityTypes
    }
}

extension StoreMetadata {
    /// Reads store.json as the store writes it, without `JSONDecoder` (whose first use
    /// costs over a million instructions, mostly type-metadata lookups: a sixth of a warm
    /// query of a 1,000-event store); nil for anything else, which `JSONDecoder` then reads
    /// with its errors: one object of the four known keys, each at most once, with string
    /// values (no escapes, valid UTF-8), `formatVersion` a plain integer, and `entityTypes`
    /// an object of arrays of `"event"` and `"reminder"`; no `null`.
    init?(plainJSON bytes: [UInt8]) {
        var reader = PlainJSONReader(bytes: bytes)
        var formatVersion: Int?, defaultEventCalendar: String?, defaultReminderList: String?
        var entityTypes: [String: [CollectionEntityType]]?
        let complete: Bool? = reader.object { key, reader in
            switch key {
            case "formatVersion" where formatVersion == nil:
                formatVersion = reader.integer()
                return formatVersion != nil
            case "defaultEventCalendar" where defaultEventCalendar == nil:
                defaultEventCalendar = reader.string()
                return defaultEventCalendar != nil
            case "defaultReminderList" where defaultReminderList == nil:
                defaultReminderList = reader.string()
                return defaultReminderList != nil
            case "entityTypes" where entityTypes == nil:
                var types: [String: [CollectionEntityType]] = [:]
                let read: Bool? = reader.object { collection, reader in
                    guard types[collection] == nil else { return false }
                    var kinds: [CollectionEntityType] = []
                    let read: Bool? = reader.array { reader in
                        guard let kind = reader.string().flatMap(CollectionEntityType.init(rawValue:)) else { return false }
                        kinds.append(kind)
                        return true
                    }
                    types[collection] = kinds
                    return read != nil
                }
                entityTypes = types
                return read != nil
            default:
                return false
            }
        }
        guard complete != nil, reader.atEnd, let formatVersion else { return nil }
        self.init(formatVersion: formatVersion, defaultEventCalendar: defaultEventCalendar,
                  defaultReminderList: defaultReminderList, entityTypes: entityTypes)
    }
}

/// A kind of item a collection holds, as store.json records it.
package enum CollectionEntityType: String, Codable, Sendable, Hashable {
    /// VEVENT.
    case event
    /// VTODO.
    case reminder
}

/// A collection: one folder of the store.
package struct StoreCollection: Sendable, Hashable {
    /// The folder name.
    package var identifier: String
    /// The `displayname` file's text, or the identifier when there is none.
    package var title: String
    /// The `color` file's text (`#RRGGBB` or `#RRGGBBAA`), when it has one.
    package var color: String?
    /// The folder.
    package var path: String

    /// Whether a text is `#RRGGBB` or `#RRGGBBAA`.
    package static func isColor(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "#"), bytes.count == 7 || bytes.count == 9 else { return false }
        return bytes.dropFirst().allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
                || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F"))
        }
    }
}

/// An item file and its identity when it was listed or read.
package struct ItemFile: Sendable, Hashable {
    package var collection: String
    package var name: String
    package var path: String
    package var identity: FileIdentity
}

/// An item read from its file.
package struct StoredItem: Sendable, Hashable {
    /// The file, with the identity of the bytes that were read (pass it back when saving).
    package var file: ItemFile
    /// The whole VCALENDAR (time zones, X- properties and all).
    package var calendar: Component
    /// The VEVENTs, VTODOs or VJOURNALs: a master and its overrides.
    package var components: [Component]
    /// The first component's UID.
    package var uid: String?
}

/// The result of reading one item: the item, or nil when the file was skipped, and what
/// the reader found wrong.
package struct ItemReadResult: Sendable {
    package var item: StoredItem?
    package var diagnostics: [Diagnostic]
}

/// The items of a collection, and the diagnostics of the files that were read or skipped.
package struct CollectionContents: Sendable {
    package var items: [StoredItem]
    package var diagnostics: [Diagnostic]
}
