import Foundation
import ICalKit

/// The protocol between an app that `ical run` started in a sandbox and the broker that
/// owns the store: versioned, length-framed JSON (Foundation's `JSONEncoder` and
/// `JSONDecoder`, no hand-written parser), with bounded frames and timeouts.
///
/// A frame is a 4-byte big-endian length followed by that many bytes of JSON: a
/// ``BrokerRequest`` from the app, a ``BrokerResponse`` from the broker (``BrokerResponse/id``
/// 0 for a notice the broker sends on its own: the store or the app's access changed). The
/// first request is ``BrokerCall/hello(version:)``; a broker answers a version it does not
/// speak with an error and closes the connection.
///
/// The app's identity is not in any message: the broker bound it to the socket when
/// `ical run` handed the socket over, so nothing the app sends can claim another app or a
/// level it was not given.
package enum BrokerWire {
    /// The protocol's version.
    package static let version = 1
    /// The largest frame either side accepts, in bytes (a batch of items is one frame).
    package static let maximumFrame = 64 << 20
    /// The environment variable that names the app's inherited socket (a descriptor number).
    package static let descriptorVariable = "OPENEVENTKIT_BROKER_FD"
    /// How long the rest of a frame may take once its first byte arrived, in seconds.
    package static let frameTimeout: Double = 30
    /// How long an app waits for an answer that needs no person, in seconds.
    package static let replyTimeout: Double = 120
}

/// A request from the app: a number to match the answer, and the call.
package struct BrokerRequest: Codable, Sendable {
    package var id: UInt64
    package var call: BrokerCall

    package init(id: UInt64, call: BrokerCall) {
        self.id = id
        self.call = call
    }
}

/// What an app may ask the broker. Every call passes the app's access level in the broker.
package enum BrokerCall: Codable, Sendable {
    /// The first call: the protocol version the app speaks.
    case hello(version: Int)
    /// `EKEventStore.authorizationStatus(for:)` (the entity type's raw value).
    case status(entityType: Int)
    /// The level the broker enforces for an entity type.
    case level(entityType: Int)
    /// A fetch under write-only access: may show the upgrade prompt once (TN3153).
    case fetchUnderWriteOnly(entityType: Int)
    /// One of the request calls.
    case request(BrokerAccessRequest)
    /// `store.json` as the app may see it.
    case metadata
    /// The default collection for new events (nil under write-only: the broker chooses).
    case defaultEventCollection
    /// The collections the app may see.
    case collections
    /// A collection's item files and identities.
    case items(collection: String)
    /// One item file's bytes.
    case readItem(collection: String, name: String)
    /// A collection's items; those whose identity the app names in `known` come back as
    /// unchanged, without their bytes.
    case readCollection(collection: String, known: [String: FileIdentity])
    /// A batch, all or nothing.
    case commit([BrokerOperation])
    /// The identities of the collections and items the app may see.
    case snapshot
    /// The remote sources (CalDAV accounts, subscriptions) of the calendars the app may see:
    /// names, kinds and which calendars each mirrors, never URLs or accounts.
    case remoteSources
    /// A token that changes whenever anything a window query of the app could return
    /// changed (the store's index generation and the app's levels): an app may answer a
    /// query it answered under the same token again from memory.
    case queryToken
    /// One of OpenEventKitUI's helpers (`ical ui edit-event`, `choose-calendar`,
    /// `view-event`), which `ical run` runs on its terminal with full access: the helper's
    /// arguments (the broker names the store and the app itself) and standard input.
    case uiHelper(arguments: [String], input: Data)
}

/// The request calls of ``EKEventStore``.
package enum BrokerAccessRequest: String, Codable, Sendable {
    case fullAccessToEvents, writeOnlyAccessToEvents, fullAccessToReminders, legacyEvents, legacyReminders
}

/// One change of a batch on the wire (``Batch/Operation``, with item bytes as data).
package enum BrokerOperation: Codable, Sendable, Hashable {
    case putItem(collection: String, name: String, bytes: Data, expecting: BrokerExpectation)
    case deleteItem(collection: String, name: String, expecting: BrokerExpectation)
    case createCollection(identifier: String, title: String, color: String?)
    case updateCollection(identifier: String, title: String?, color: String?)
    case moveCollection(from: String, to: String)
    case deleteCollection(identifier: String)
    case setDefaults(eventCalendar: String?, reminderList: String?)
    case setEntityTypes(collection: String, types: [String]?)
}

/// ``Batch/Expectation`` on the wire.
package enum BrokerExpectation: Codable, Sendable, Hashable {
    case absent
    case identity(FileIdentity)
    case any
}

/// An answer, or (``id`` 0) a notice.
package struct BrokerResponse: Codable, Sendable {
    package var id: UInt64
    package var reply: BrokerReply

    package init(id: UInt64, reply: BrokerReply) {
        self.id = id
        self.reply = reply
    }
}

/// The broker's answers.
package enum BrokerReply: Codable, Sendable {
    case ok
    /// The call failed: a store error's code, message and the path inside the store.
    case failure(BrokerFailure)
    case status(Int)
    case level(Int)
    case granted(Bool, error: BrokerAccessFailure?)
    case metadata(StoreMetadata?)
    case collection(String?)
    case collections([BrokerCollection])
    case items([BrokerItemFile])
    case item(BrokerItem?, diagnostics: [Diagnostic])
    case contents(items: [BrokerItem], unchanged: [String], diagnostics: [Diagnostic])
    /// The identities the commit gave the item files it wrote.
    case committed([BrokerItemFile])
    case snapshot([String: BrokerSnapshotCollection])
    case token(String)
    case remoteSources([BrokerRemoteSource])
    /// A UI helper's standard output and exit status (nil status: ended by `signal`).
    case helper(output: String, status: Int?, signal: Int?)
    /// Notice: the store changed (another app, another program, a sync).
    case storeChanged
    /// Notice: the app's access changed (`ical privacy`, a prompt).
    case accessChanged
}

/// A failure on the wire.
package struct BrokerFailure: Codable, Sendable, Hashable {
    /// ``StoreError/Code``'s name, or "denied" when the access level refused the call.
    package var code: String
    package var message: String
    /// The file or collection involved, relative to the store.
    package var path: String?
    package init(code: String, message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }
}

/// An ``AccessError`` on the wire.
package struct BrokerAccessFailure: Codable, Sendable, Hashable {
    package var code: String
    package var message: String
    package var key: String?
    package var remedy: String?
    package init(code: String, message: String, key: String?, remedy: String?) {
        self.code = code
        self.message = message
        self.key = key
        self.remedy = remedy
    }
}

/// A collection on the wire.
package struct BrokerCollection: Codable, Sendable, Hashable {
    package var identifier: String
    package var title: String
    package var color: String?
    package init(identifier: String, title: String, color: String?) {
        self.identifier = identifier
        self.title = title
        self.color = color
    }
}

/// An item file's name and identity.
package struct BrokerItemFile: Codable, Sendable, Hashable {
    package var collection: String
    package var name: String
    package var identity: FileIdentity
    package init(collection: String, name: String, identity: FileIdentity) {
        self.collection = collection
        self.name = name
        self.identity = identity
    }
}

/// An item file's name, identity and bytes.
package struct BrokerItem: Codable, Sendable, Hashable {
    package var file: BrokerItemFile
    package var bytes: Data
    package init(file: BrokerItemFile, bytes: Data) {
        self.file = file
        self.bytes = bytes
    }
}

/// A remote source as an app may know it.
package struct BrokerRemoteSource: Codable, Sendable, Hashable {
    /// The source's name (`ical sources add NAME`).
    package var name: String
    /// Whether it is a CalDAV account (else a subscribed feed).
    package var isCalDAV: Bool
    /// The collections it mirrors that the app may see, and whether each may be written.
    package var calendars: [String: Bool]
    package init(name: String, isCalDAV: Bool, calendars: [String: Bool]) {
        self.name = name
        self.isCalDAV = isCalDAV
        self.calendars = calendars
    }
}

/// One collection of a snapshot.
package struct BrokerSnapshotCollection: Codable, Sendable, Hashable {
    package var metadata: [FileIdentity?]
    package var items: [String: FileIdentity]
    package init(metadata: [FileIdentity?], items: [String: FileIdentity]) {
        self.metadata = metadata
        self.items = items
    }
}

// MARK: Conversions

extension BrokerOperation {
    /// The wire form of a batch's change.
    package init(_ operation: Batch.Operation) {
        switch operation {
        case let .putItem(collection, name, bytes, expecting):
            self = .putItem(collection: collection, name: name, bytes: Data(bytes), expecting: BrokerExpectation(expecting))
        case let .deleteItem(collection, name, expecting):
            self = .deleteItem(collection: collection, name: name, expecting: BrokerExpectation(expecting))
        case let .createCollection(identifier, title, color):
            self = .createCollection(identifier: identifier, title: title, color: color)
        case let .updateCollection(identifier, title, color):
            self = .updateCollection(identifier: identifier, title: title, color: color)
        case let .moveCollection(from, to):
            self = .moveCollection(from: from, to: to)
        case let .deleteCollection(identifier):
            self = .deleteCollection(identifier: identifier)
        case let .setDefaults(eventCalendar, reminderList):
            self = .setDefaults(eventCalendar: eventCalendar, reminderList: reminderList)
        case let .setEntityTypes(collection, types):
            self = .setEntityTypes(collection: collection, types: types.map { $0.map(\.rawValue).sorted() })
        }
    }

    /// Adds this change to `batch`, with the batch's own checks of names and colors.
    package func add(to batch: inout Batch) throws(StoreError) {
        switch self {
        case let .putItem(collection, name, bytes, expecting):
            try batch.putBytes([UInt8](bytes), into: collection, name: name, expecting: expecting.expectation)
        case let .deleteItem(collection, name, expecting):
            try batch.delete(name, from: collection, expecting: expecting.expectation)
        case let .createCollection(identifier, title, color):
            try batch.createCollection(identifier, title: title, color: color)
        case let .updateCollection(identifier, title, color):
            try batch.updateCollection(identifier, title: title, color: color)
        case let .moveCollection(from, to):
            try batch.moveCollection(from, to: to)
        case let .deleteCollection(identifier):
            try batch.deleteCollection(identifier)
        case let .setDefaults(eventCalendar, reminderList):
            batch.setDefaults(eventCalendar: eventCalendar, reminderList: reminderList)
        case let .setEntityTypes(collection, types):
            var set: Set<CollectionEntityType>?
            if let types {
                set = []
                for type in types {
                    guard let known = CollectionEntityType(rawValue: type) else {
                        throw StoreError(.invalidBatch, "'\(type)' is not an entity type")
                    }
                    set?.insert(known)
                }
            }
            try batch.setEntityTypes(set, of: collection)
        }
    }
}

extension BrokerExpectation {
    package init(_ expectation: Batch.Expectation) {
        switch expectation {
        case .absent: self = .absent
        case .identity(let identity): self = .identity(identity)
        case .any: self = .any
        }
    }

    package var expectation: Batch.Expectation {
        switch self {
        case .absent: .absent
        case .identity(let identity): .identity(identity)
        case .any: .any
        }
    }
}

extension BrokerFailure {
    /// The wire form of a store error; paths are made relative to `root`, so the app learns
    /// nothing of where the store is.
    package init(_ error: StoreError, root: String) {
        var path = error.path
        if let full = path, full == root || full.hasPrefix(root + "/") {
            path = String(full.dropFirst(min(full.count, root.count + 1)))
        }
        self.init(code: error.code.description, message: error.message.replacingOccurrences(of: root + "/", with: ""), path: path)
    }

    /// The store error an app's library throws for this failure.
    package var storeError: StoreError {
        let known: [String: StoreError.Code] = [
            "io": .io, "notFound": .notFound, "alreadyExists": .alreadyExists, "conflict": .conflict,
            "invalidName": .invalidName, "invalidItem": .invalidItem, "invalidBatch": .invalidBatch,
            "corruptMetadata": .corruptMetadata, "unsupportedFormat": .unsupportedFormat, "noLocation": .noLocation,
            "incompleteCommit": .incompleteCommit,
        ]
        return StoreError(known[code] ?? .io, message, path: path)
    }
}
