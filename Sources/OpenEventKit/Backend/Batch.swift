import ICalKit

/// A set of changes to a ``FolderStore`` that ``FolderStore/commit(_:)`` writes all or
/// nothing, even across a crash.
///
/// Each put and delete says what the caller expects on disk: the identity it read, that
/// the file must not exist yet, or nothing. If the disk differs, the whole batch fails
/// with a ``StoreError/Code/conflict`` naming the file, and nothing is written.
///
/// Rules that keep a batch unambiguous (``StoreError/Code/invalidBatch`` otherwise): one
/// change per item file; a collection is created, moved or deleted at most once, and
/// its items are not put or deleted in a batch that moves or deletes it.
package struct Batch: Sendable {
    /// What the caller expects to find on disk before a change.
    package enum Expectation: Sendable, Hashable {
        /// The file must not exist (a new item).
        case absent
        /// The file must still be the one that was read.
        case identity(FileIdentity)
        /// Anything: overwrite or delete without a check.
        case any
    }

    /// One change.
    package enum Operation: Sendable, Hashable {
        case putItem(collection: String, name: String, bytes: [UInt8], expecting: Expectation)
        case deleteItem(collection: String, name: String, expecting: Expectation)
        case createCollection(identifier: String, title: String, color: String?)
        case updateCollection(identifier: String, title: String?, color: String?)
        case moveCollection(from: String, to: String)
        case deleteCollection(identifier: String)
        case setDefaults(eventCalendar: String?, reminderList: String?)
        case setEntityTypes(collection: String, types: Set<CollectionEntityType>?)
    }

    /// The changes, in the order they were added.
    package private(set) var operations: [Operation] = []

    package init() {}

    /// Whether the batch has no changes.
    package var isEmpty: Bool { operations.isEmpty }

    /// Puts an item: a VCALENDAR holding the VEVENTs or VTODOs of one UID (a master and
    /// its overrides), written as one file.
    ///
    /// - Parameter name: the item's file name when it has one (an item read from disk);
    ///   nil derives it from the UID with ``ItemFileName/forUID(_:)``.
    /// - Returns: the file name.
    @discardableResult
    package mutating func put(_ calendar: Component, into collection: String, name: String? = nil,
                              expecting: Expectation) throws(StoreError) -> String {
        guard calendar.matches(.calendar) else {
            throw StoreError(.invalidItem, "an item must be a VCALENDAR, not \(calendar.name)")
        }
        let items = calendar.components.filter { $0.matches(.event) || $0.matches(.todo) || $0.matches(.journal) }
        guard let uid = items.first?.uid, !uid.isEmpty else {
            throw StoreError(.invalidItem, "an item needs a VEVENT, VTODO or VJOURNAL with a UID")
        }
        guard items.allSatisfy({ $0.uid == uid }) else {
            throw StoreError(.invalidItem, "every component of an item must have the same UID ('\(uid)')")
        }
        let fileName = name ?? ItemFileName.forUID(uid)
        try putBytes(ICalWriter().bytes(calendar), into: collection, name: fileName, expecting: expecting)
        return fileName
    }

    /// Puts an item's bytes as they are (for copying files in); ``put(_:into:name:expecting:)``
    /// is the checked way.
    package mutating func putBytes(_ bytes: [UInt8], into collection: String, name: String,
                                   expecting: Expectation) throws(StoreError) {
        try Self.checkItem(collection, name)
        operations.append(.putItem(collection: collection, name: name, bytes: bytes, expecting: expecting))
    }

    /// Deletes an item file.
    package mutating func delete(_ name: String, from collection: String, expecting: Expectation) throws(StoreError) {
        try Self.checkItem(collection, name)
        guard expecting != .absent else {
            throw StoreError(.invalidBatch, "a delete cannot expect the file to be absent", path: collection + "/" + name)
        }
        operations.append(.deleteItem(collection: collection, name: name, expecting: expecting))
    }

    /// Creates a collection: a folder with `displayname` and, when given, `color`.
    package mutating func createCollection(_ identifier: String, title: String, color: String? = nil) throws(StoreError) {
        guard ItemFileName.isSafeName(identifier) else {
            throw StoreError(.invalidName, "'\(identifier)' is not a safe collection identifier (letters, digits, -_.@+=, no leading dot)")
        }
        try Self.checkColor(color)
        operations.append(.createCollection(identifier: identifier, title: title, color: color))
    }

    /// Changes a collection's title or color (nil leaves it as it is).
    package mutating func updateCollection(_ identifier: String, title: String? = nil, color: String? = nil) throws(StoreError) {
        guard ItemFileName.isCollectionName(identifier) else {
            throw StoreError(.invalidName, "'\(identifier)' is not a collection identifier")
        }
        try Self.checkColor(color)
        operations.append(.updateCollection(identifier: identifier, title: title, color: color))
    }

    /// Renames a collection's folder (its identifier).
    package mutating func moveCollection(_ identifier: String, to newIdentifier: String) throws(StoreError) {
        guard ItemFileName.isCollectionName(identifier) else {
            throw StoreError(.invalidName, "'\(identifier)' is not a collection identifier")
        }
        guard ItemFileName.isSafeName(newIdentifier) else {
            throw StoreError(.invalidName, "'\(newIdentifier)' is not a safe collection identifier")
        }
        operations.append(.moveCollection(from: identifier, to: newIdentifier))
    }

    /// Deletes a collection and every file in it.
    package mutating func deleteCollection(_ identifier: String) throws(StoreError) {
        guard ItemFileName.isCollectionName(identifier) else {
            throw StoreError(.invalidName, "'\(identifier)' is not a collection identifier")
        }
        operations.append(.deleteCollection(identifier: identifier))
    }

    /// Sets the default collections in store.json (nil leaves one as it is).
    package mutating func setDefaults(eventCalendar: String? = nil, reminderList: String? = nil) {
        operations.append(.setDefaults(eventCalendar: eventCalendar, reminderList: reminderList))
    }

    /// Records which kinds of item a collection holds in store.json (nil forgets the
    /// record, and the collection's kind is inferred again; see ``StoreMetadata/entityTypes``).
    package mutating func setEntityTypes(_ types: Set<CollectionEntityType>?, of collection: String) throws(StoreError) {
        guard ItemFileName.isSafeName(collection) || ItemFileName.isCollectionName(collection) else {
            throw StoreError(.invalidName, "'\(collection)' is not a collection identifier")
        }
        operations.append(.setEntityTypes(collection: collection, types: types))
    }

    static func checkItem(_ collection: String, _ name: String) throws(StoreError) {
        guard ItemFileName.isCollectionName(collection) else {
            throw StoreError(.invalidName, "'\(collection)' is not a collection identifier")
        }
        guard ItemFileName.isItemName(name) else {
            throw StoreError(.invalidName, "'\(name)' is not an item file name (visible, no '/', ends in .ics)", path: collection)
        }
    }

    private static func checkColor(_ color: String?) throws(StoreError) {
        if let color, !StoreCollection.isColor(color) {
            throw StoreError(.invalidBatch, "'\(color)' is not a color (#RRGGBB)")
        }
    }
}
