import Foundation
import ICalKit
import OpenEventKit

/// What the trusted side shows for an app: the system prompt's terminal and the UI helpers,
/// which `ical run` runs on its terminal.
package protocol BrokerHelpers: Sendable {
    /// Runs `ical` with `arguments` (checked by the broker: one of the `ical ui` helpers, for
    /// the app's store and identity), `input` on its standard input; its output and status.
    func run(_ arguments: [String], input: Data) -> (output: String, status: Int?, signal: Int?)
}

/// One app's connection to the broker: the manifest it was launched with (bound when
/// `ical run` handed the socket over; nothing on the socket can change it), its access
/// controller, and the store. Every call is checked against the app's level as it is at
/// that moment, here, whatever the app's library checked already.
///
/// What each level may do, per call (see the AccessLevels article's table):
/// - reading (collections, items, snapshots): only calendars whose every kind of item the
///   app has full access to, and in them only items of those kinds;
/// - a write-only app: only new events (one VEVENT series per item, no VTODO), put into the
///   virtual calendar, which the broker sends to the calendar the user chose, else the
///   default one; it cannot read them back, replace or delete anything;
/// - calendars (create, rename, delete, defaults, kinds): full access to every kind involved.
package final class BrokerSession: @unchecked Sendable {
    package let store: FolderStore
    package let manifest: AppManifest
    /// The app's levels.
    let authority: any AccessAuthority
    /// The app's access controller, which answers requests (nil: fixed levels, for tests).
    let controller: AccessController?
    let channel: FrameChannel
    let helpers: (any BrokerHelpers)?
    private let lock = NSLock()
    /// The calendar the user chose in the chooser for write-only saves.
    private var writeOnlyTarget: String?
    /// The kinds of item files read, by identity, so that listings need not parse again.
    private var kinds: [ItemKey: (identity: FileIdentity, kinds: EKEntityMask)] = [:]
    private var watcher: StoreWatcher?
    /// The store's query index, for ``BrokerCall/queryToken``: the broker's one, shared by
    /// its sessions.
    let index: BrokerIndex
    /// Whether the app said hello with a version this broker speaks.
    private var greeted = false

    /// The virtual calendar's identifier, as the app's library names it.
    static let virtualCollection = "write-only"
    /// Calls per second a connection may make before the broker slows it down.
    static let callsPerSecond = 5_000

    /// A session for the app `manifest` on `channel`, over `store`; prompts go to `prompt`.
    package init(store: FolderStore, manifest: AppManifest, channel: FrameChannel, prompt: any SystemPrompt,
                 helpers: (any BrokerHelpers)?, index: BrokerIndex? = nil) {
        self.store = store
        self.index = index ?? BrokerIndex(store: store)
        self.manifest = manifest
        self.channel = channel
        self.helpers = helpers
        let box = SessionBox()
        let controller = AccessController(manifest: manifest, storeRoot: store.root, prompt: prompt, onChange: { _, _ in
            box.session?.notify(.accessChanged)
        })
        self.controller = controller
        authority = controller
        box.session = self
    }

    /// A session with fixed levels (tests of the access matrix through the broker): requests
    /// are answered with the level as it is, as a store with such an authority does.
    package init(store: FolderStore, authority: any AccessAuthority, channel: FrameChannel, helpers: (any BrokerHelpers)? = nil,
                 index: BrokerIndex? = nil) {
        self.store = store
        self.index = index ?? BrokerIndex(store: store)
        self.manifest = AppManifest(bundleIdentifier: "org.openeventkit.tests.fixed")
        self.channel = channel
        self.helpers = helpers
        self.authority = authority
        self.controller = nil
    }

    // MARK: Serving

    /// Answers the app's calls until it closes the connection or breaks the protocol; then
    /// closes the connection. Pending changes live in the app, so an app that dies mid-batch
    /// has sent no batch: the store is as before it.
    package func serve() {
        defer {
            watcher?.stop()
            channel.close()
        }
        var window = (start: Deadline.now(), calls: 0)
        while true {
            let frame: Data?
            do {
                frame = try channel.receive()
            } catch {
                return   // a broken or stalled frame ends the session, not the broker
            }
            guard let frame else { return }
            guard let request = try? JSONDecoder().decode(BrokerRequest.self, from: frame) else {
                send(BrokerResponse(id: 0, reply: .failure(BrokerFailure(code: "protocol", message: "the message is not the broker protocol's"))))
                return
            }
            // A flood slows only its own connection.
            window.calls += 1
            if window.calls > Self.callsPerSecond {
                let elapsed = Deadline.now() - window.start
                if elapsed < 1 { usleep(useconds_t((1 - elapsed) * 1_000_000)) }
                window = (Deadline.now(), 0)
            }
            guard greeted || { if case .hello = request.call { true } else { false } }() else {
                send(BrokerResponse(id: request.id, reply: .failure(BrokerFailure(code: "protocol", message: "the first call must be hello"))))
                return
            }
            let reply = answer(request.call)
            send(BrokerResponse(id: request.id, reply: reply))
            if case .hello = request.call, case .failure = reply { return }
        }
    }

    private func send(_ response: BrokerResponse) {
        guard var data = try? JSONEncoder().encode(response) else { return }
        if data.count > channel.maximumFrame {
            // An answer too large for one frame (a calendar of more than 64 MiB): the call
            // fails, the connection stays.
            let failure = BrokerFailure(code: "io", message: "the answer is \(data.count) bytes, over the broker's limit of \(channel.maximumFrame); read the calendar's items one by one")
            guard let smaller = try? JSONEncoder().encode(BrokerResponse(id: response.id, reply: .failure(failure))) else { return }
            data = smaller
        }
        do { try channel.send(data) } catch { channel.close() }
    }

    /// Sends a notice to the app (the store or its access changed).
    func notify(_ reply: BrokerReply) {
        send(BrokerResponse(id: 0, reply: reply))
    }

    // MARK: Answers

    /// The answer to one call (package: the access tests call it without a socket).
    package func answer(_ call: BrokerCall) -> BrokerReply {
        do throws(StoreError) {
            switch call {
            case .hello(let version):
                guard version == BrokerWire.version else {
                    return .failure(BrokerFailure(code: "protocol", message: "the app speaks broker protocol \(version); this broker speaks \(BrokerWire.version): run the app with the ical it was built with"))
                }
                guard !greeted else { return .ok }   // a second hello starts nothing more
                greeted = true
                watcher = StoreWatcher(root: store.root) { [weak self] _ in
                    guard let self else { return }
                    index.noteChange()
                    notify(.storeChanged)
                }
                return .ok
            case .status(let raw):
                return .status(authority.authorizationStatus(for: try entityType(raw)).rawValue)
            case .level(let raw):
                return .level(authority.accessLevel(for: try entityType(raw)).rawValue)
            case .fetchUnderWriteOnly(let raw):
                let type = try entityType(raw)
                guard authority.accessLevel(for: type) == .writeOnly else { return .level(authority.accessLevel(for: type).rawValue) }
                return .level(authority.fetchAttemptedUnderWriteOnly(type).rawValue)
            case .request(let wire):
                let request: AccessController.Request = switch wire {
                case .fullAccessToEvents: .fullAccessToEvents
                case .writeOnlyAccessToEvents: .writeOnlyAccessToEvents
                case .fullAccessToReminders: .fullAccessToReminders
                case .legacyEvents: .legacy(.event)
                case .legacyReminders: .legacy(.reminder)
                }
                guard let controller else { return .granted(authority.accessLevel(for: request.entityType) != .none, error: nil) }
                let (granted, error) = controller.respond(to: request)
                return .granted(granted, error: error.map {
                    BrokerAccessFailure(code: $0.code.rawValue, message: $0.message, key: $0.key, remedy: $0.remedy)
                })
            case .metadata:
                return .metadata(try visibleMetadata())
            case .defaultEventCollection:
                guard level(.event) == .full else { return .collection(nil) }
                let identifier = try store.defaultEventCollection()
                guard let identifier, try isVisible(identifier) else { return .collection(nil) }
                return .collection(identifier)
            case .collections:
                return .collections(try visibleCollections().map { BrokerCollection(identifier: $0.identifier, title: $0.title, color: $0.color) })
            case .items(let collection):
                return .items(try visibleItems(in: collection).map { BrokerItemFile(collection: collection, name: $0.name, identity: $0.identity) })
            case .readItem(let collection, let name):
                guard try isVisible(collection) else { throw hidden(collection) }
                let (bytes, result) = try store.readItemBytes(in: collection, name: name)
                guard let item = result.item else { return .item(nil, diagnostics: relative(result.diagnostics)) }
                guard permitted(remember(item)) else { throw StoreError(.notFound, "there is no item '\(name)'", path: collection) }
                return .item(BrokerItem(file: BrokerItemFile(collection: collection, name: name, identity: item.file.identity), bytes: Data(bytes)),
                             diagnostics: relative(result.diagnostics))
            case .readCollection(let collection, let known):
                return try readCollection(collection, known: known)
            case .commit(let operations):
                return .committed(try commit(operations))
            case .remoteSources:
                let visible = Set(try visibleCollections().map(\.identifier))
                return .remoteSources(try RemoteSourceFiles(storeRoot: store.root).sources().compactMap { record in
                    var calendars: [String: Bool] = [:]
                    for calendar in record.calendars where visible.contains(calendar.collection) {
                        calendars[calendar.collection] = record.kind == .caldav && calendar.writable
                    }
                    return calendars.isEmpty ? nil : BrokerRemoteSource(name: record.name, isCalDAV: record.kind == .caldav, calendars: calendars)
                })
            case .queryToken:
                return .token(try queryToken())
            case .snapshot:
                var collections: [String: BrokerSnapshotCollection] = [:]
                let snapshot = try store.snapshot()
                for (identifier, state) in snapshot.collections where try isVisible(identifier) {
                    let names = Set(try visibleItems(in: identifier).map(\.name))
                    collections[identifier] = BrokerSnapshotCollection(metadata: state.metadata, items: state.items.filter { names.contains($0.key) })
                }
                return .snapshot(collections)
            case let .uiHelper(arguments, input):
                guard let helpers else {
                    throw StoreError(.io, "no terminal is attached to this app's broker session: the ui helpers need ical run's terminal")
                }
                let target = lock.withLock { writeOnlyTarget }
                let call = try UIHelperCall(arguments, store: store.root, manifest: manifest, writeOnlyTarget: target)
                var outcome = helpers.run(call.arguments, input: input)
                if call.helper == "choose-calendar", level(.event) == .writeOnly, outcome.status == 0 {
                    // The app may write into the chosen calendar, not learn which it is.
                    var lines = outcome.output.split(separator: "\n").map(String.init)
                    if lines.count > 1 {
                        let chosen = lines[1]
                        lock.withLock { writeOnlyTarget = chosen }
                        lines = [lines[0], EKEventStore.writeOnlyCalendarIdentifier]
                    }
                    outcome.output = lines.joined(separator: "\n") + "\n"
                }
                return .helper(output: outcome.output, status: outcome.status, signal: outcome.signal)
            }
        } catch {
            return .failure(BrokerFailure(error, root: store.root))
        }
    }

    /// The store's index generation, refreshed as a query would refresh it (``BrokerIndex``),
    /// with the app's levels.
    private func queryToken() throws(StoreError) -> String {
        "\(level(.event).rawValue).\(level(.reminder).rawValue).\(try index.generation())"
    }

    private func entityType(_ raw: Int) throws(StoreError) -> EKEntityType {
        guard let value = UInt(exactly: raw), let type = EKEntityType(rawValue: value) else { throw StoreError(.invalidBatch, "\(raw) is not an entity type") }
        return type
    }

    private func level(_ type: EKEntityType) -> AccessLevel { authority.accessLevel(for: type) }

    /// The kinds of item the app may read and change: those it has full access to.
    private func fullKinds() -> EKEntityMask {
        var mask: EKEntityMask = []
        if level(.event) == .full { mask.insert(.event) }
        if level(.reminder) == .full { mask.insert(.reminder) }
        return mask
    }

    private func hidden(_ collection: String) -> StoreError {
        StoreError(.notFound, "there is no collection '\(collection)' the app may see")
    }

    private func relative(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.map { diagnostic in
            var copy = diagnostic
            if let file = copy.file, file.hasPrefix(store.root + "/") { copy.file = String(file.dropFirst(store.root.count + 1)) }
            return copy
        }
    }

    // MARK: What the app may see

    private func kinds(of identifier: String, metadata: StoreMetadata?) -> EKEntityMask {
        EKEventStore.entityTypes(of: identifier, metadata: metadata)
    }

    /// A collection is visible when the app has full access to a kind it holds.
    private func isVisible(_ identifier: String) throws(StoreError) -> Bool {
        let full = fullKinds()
        guard !full.isEmpty, ItemFileName.isCollectionName(identifier) else { return false }
        return !kinds(of: identifier, metadata: try store.metadata()).isDisjoint(with: full)
    }

    private func visibleCollections() throws(StoreError) -> [StoreCollection] {
        let full = fullKinds()
        guard !full.isEmpty else { return [] }
        let metadata = try store.metadata()
        return try store.collections().filter { !kinds(of: $0.identifier, metadata: metadata).isDisjoint(with: full) }
    }

    private func visibleMetadata() throws(StoreError) -> StoreMetadata? {
        guard var metadata = try store.metadata() else { return nil }
        let visible = Set(try visibleCollections().map(\.identifier))
        if let name = metadata.defaultEventCalendar, !visible.contains(name) || level(.event) != .full { metadata.defaultEventCalendar = nil }
        if let name = metadata.defaultReminderList, !visible.contains(name) || level(.reminder) != .full { metadata.defaultReminderList = nil }
        metadata.entityTypes = metadata.entityTypes?.filter { visible.contains($0.key) }
        return metadata
    }

    /// The kinds of item in a file (events and journals count as events).
    private func remember(_ item: StoredItem) -> EKEntityMask {
        var mask: EKEntityMask = []
        for component in item.components {
            if component.matches(.todo) { mask.insert(.reminder) } else { mask.insert(.event) }
        }
        lock.withLock { kinds[ItemKey(collection: item.file.collection, name: item.file.name)] = (item.file.identity, mask) }
        return mask
    }

    private func permitted(_ mask: EKEntityMask) -> Bool {
        !mask.isEmpty && fullKinds().isSuperset(of: mask)
    }

    /// The item files of a visible collection that the app may read: every one when the app
    /// has full access to every kind; else those whose kinds it may (each read once per
    /// identity to learn its kinds).
    private func visibleItems(in collection: String) throws(StoreError) -> [ItemFile] {
        guard try isVisible(collection) else { throw hidden(collection) }
        let files = try store.items(in: collection)
        if fullKinds() == [.event, .reminder] { return files }
        return files.filter { file in
            (try? kinds(of: file)).map(permitted) ?? false
        }
    }

    private func kinds(of file: ItemFile) throws(StoreError) -> EKEntityMask {
        let key = ItemKey(collection: file.collection, name: file.name)
        if let known = lock.withLock({ kinds[key] }), known.identity == file.identity { return known.kinds }
        guard let item = try store.readItem(in: file.collection, name: file.name).item else { return [] }
        return remember(item)
    }

    private func readCollection(_ collection: String, known: [String: FileIdentity]) throws(StoreError) -> BrokerReply {
        var changed: [BrokerItem] = []
        var unchanged: [String] = []
        var diagnostics: [Diagnostic] = []
        for file in try visibleItems(in: collection) {
            if known[file.name] == file.identity {
                unchanged.append(file.name)
                continue
            }
            do {
                let (bytes, result) = try store.readItemBytes(in: collection, name: file.name)
                diagnostics += relative(result.diagnostics)
                guard let item = result.item, permitted(remember(item)) else { continue }
                changed.append(BrokerItem(file: BrokerItemFile(collection: collection, name: file.name, identity: item.file.identity),
                                          bytes: Data(bytes)))
            } catch where error.code == .notFound {
                continue
            }
        }
        return .contents(items: changed, unchanged: unchanged, diagnostics: diagnostics)
    }

    // MARK: What the app may change

    private func denied(_ what: String) -> StoreError {
        StoreError(.invalidBatch, "the app's access does not allow \(what)")
    }

    /// Checks every change of a batch against the app's level, then commits it all or nothing.
    private func commit(_ operations: [BrokerOperation]) throws(StoreError) -> [BrokerItemFile] {
        let events = level(.event), full = fullKinds()
        let metadata = try store.metadata()
        var batch = Batch()
        /// The files the virtual calendar's puts went to: the app is told "write-only" for them.
        var virtualKeys: Set<ItemKey> = []
        let created = Set(operations.compactMap { if case .createCollection(let identifier, _, _) = $0 { identifier } else { nil } })
        for operation in operations {
            var operation = operation
            switch operation {
            case let .putItem(collection, name, bytes, expecting):
                guard let item = FolderStore.parseItem([UInt8](bytes), collection: collection, name: name).item else {
                    throw StoreError(.invalidItem, "the item is not iCalendar with a VEVENT, VTODO or VJOURNAL", path: collection + "/" + name)
                }
                let mask = item.components.reduce(into: EKEntityMask()) { $0.insert($1.matches(.todo) ? .reminder : .event) }
                if collection == Self.virtualCollection {
                    guard events == .writeOnly || events == .full else { throw denied("saving events") }
                    guard mask == .event, expecting == .absent else { throw denied("changing saved items under write-only access") }
                    let target = try writeOnlyCollection()
                    virtualKeys.insert(ItemKey(collection: target, name: name))
                    operation = .putItem(collection: target, name: name, bytes: bytes, expecting: .absent)
                } else {
                    guard full.isSuperset(of: mask) else { throw denied("saving \(mask.contains(.reminder) ? "reminders" : "events")") }
                    let visible = try isVisible(collection)
                    guard created.contains(collection) || visible else { throw hidden(collection) }
                    if expecting != .absent, let existing = try existingKinds(collection, name), !full.isSuperset(of: existing) {
                        throw denied("replacing an item of a kind it cannot read")
                    }
                }
            case let .deleteItem(collection, name, _):
                guard try isVisible(collection) else { throw hidden(collection) }
                if let existing = try existingKinds(collection, name), !full.isSuperset(of: existing) {
                    throw denied("removing an item of a kind it cannot read")
                }
                guard !full.isEmpty else { throw denied("removing items") }
            case .createCollection(let identifier, _, _):
                let types = operations.compactMap { op -> [String]? in
                    if case let .setEntityTypes(collection, types) = op, collection == identifier { return types ?? [] } else { return nil }
                }.first
                let mask: EKEntityMask = types.map { list in
                    list.reduce(into: EKEntityMask()) { $0.insert($1 == CollectionEntityType.reminder.rawValue ? .reminder : .event) }
                } ?? .event
                guard !mask.isEmpty, full.isSuperset(of: mask) else { throw denied("creating this calendar") }
            case .updateCollection(let identifier, _, _), .deleteCollection(let identifier), .moveCollection(let identifier, _):
                guard full.isSuperset(of: kinds(of: identifier, metadata: metadata)) else { throw denied("changing calendar '\(identifier)'") }
                if case .updateCollection = operation {} else {
                    for file in try store.items(in: identifier) where !full.isSuperset(of: (try? kinds(of: file)) ?? []) {
                        throw denied("removing calendar '\(identifier)', which holds items of a kind it cannot read")
                    }
                }
            case let .setDefaults(eventCalendar, reminderList):
                if eventCalendar != nil && events != .full { throw denied("changing the default calendar") }
                if reminderList != nil && level(.reminder) != .full { throw denied("changing the default reminder list") }
            case let .setEntityTypes(collection, types):
                let wanted = (types ?? []).reduce(into: EKEntityMask()) { $0.insert($1 == CollectionEntityType.reminder.rawValue ? .reminder : .event) }
                guard full.isSuperset(of: wanted),
                      created.contains(collection) || full.isSuperset(of: kinds(of: collection, metadata: metadata)) else {
                    throw denied("changing what calendar '\(collection)' holds")
                }
            }
            try operation.add(to: &batch)
        }
        let result = try store.commit(batch)
        return result.identities.map { key, identity in
            BrokerItemFile(collection: virtualKeys.contains(key) ? Self.virtualCollection : key.collection, name: key.name, identity: identity)
        }
    }

    /// Where write-only saves go: the calendar the user chose, else the default event calendar.
    private func writeOnlyCollection() throws(StoreError) -> String {
        if let chosen = lock.withLock({ writeOnlyTarget }) { return chosen }
        if let identifier = try store.defaultEventCollection() { return identifier }
        throw StoreError(.notFound, "the store has no calendar for events")
    }

    /// The kinds of the item file on disk, nil when there is none.
    private func existingKinds(_ collection: String, _ name: String) throws(StoreError) -> EKEntityMask? {
        guard ItemFileName.isCollectionName(collection), ItemFileName.isItemName(name) else {
            throw StoreError(.invalidName, "'\(collection)/\(name)' is not an item")
        }
        do {
            guard let item = try store.readItem(in: collection, name: name).item else { return [.event, .reminder] }
            return remember(item)
        } catch where error.code == .notFound {
            return nil
        }
    }
}

private final class SessionBox: @unchecked Sendable {
    weak var session: BrokerSession?
}
