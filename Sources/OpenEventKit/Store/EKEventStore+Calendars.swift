#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
import Foundation
import ICalKit

extension EKEventStore {
    /// The identifier of the write-only virtual calendar.
    static let virtualCalendarIdentifier = "write-only"
    /// The write-only virtual calendar's identifier (the broker maps it to the user's choice).
    package static var writeOnlyCalendarIdentifier: String { virtualCalendarIdentifier }

    // MARK: Sources

    /// The accounts holding calendars: the local source (the store folder) with full access
    /// to events or reminders; one virtual source under write-only access (TN3153); none
    /// without access.
    public var sources: [EKSource] {
        if level(.event) == .full || level(.reminder) == .full {
            guard backend != nil else { return [] }
            return lock.withLock { [localSourceStorage] + remoteSources().map(\.source) }
        }
        if level(.event) == .writeOnly { return [virtualSourceObject] }
        return []
    }

    /// Accounts delegated to the user: always empty (a folder has no delegates).
    public var delegateSources: [EKSource] { [] }

    /// The source with an identifier, among ``sources``.
    public func source(withIdentifier identifier: String) -> EKSource? {
        sources.first { $0.sourceIdentifier == identifier }
    }

    var localSourceObject: EKSource { lock.withLock { localSourceStorage } }

    /// The store's remote sources (`.openeventkit/sources.json`) and the collections each
    /// mirrors, with whether each may be written (caller holds the lock).
    func remoteSources() -> [(source: EKSource, collections: [String: Bool])] {
        if let broker = backend as? BrokerBackend {
            return broker.remoteSources().map { record in
                let key = EKSource.Remote(name: record.name, type: record.isCalDAV ? .calDAV : .subscribed)
                let source = remoteSourceStorage[key] ?? EKSource(eventStore: self, isVirtual: false, remote: key)
                remoteSourceStorage[key] = source
                return (source, record.calendars)
            }
        }
        guard let backend = backend?.folder else { return [] }
        let files = RemoteSourceFiles(storeRoot: backend.root)
        guard let identity = try? files.sourcesIdentity() else { return [] }
        if identity != remoteSourceRecords.identity {
            remoteSourceRecords = (identity, (try? files.sources()) ?? [])
        }
        return remoteSourceRecords.records.map { record in
            let key = EKSource.Remote(name: record.name, type: record.kind == .caldav ? .calDAV : .subscribed)
            let source = remoteSourceStorage[key] ?? EKSource(eventStore: self, isVirtual: false, remote: key)
            remoteSourceStorage[key] = source
            return (source, Dictionary(record.calendars.map { ($0.collection, record.kind == .caldav && $0.writable) },
                                       uniquingKeysWith: { first, _ in first }))
        }
    }
    var virtualSourceObject: EKSource { lock.withLock { virtualSourceStorage } }

    /// The addresses that are the user in a collection, for ``EKParticipant/isCurrentUser``:
    /// for a calendar mirrored from a CalDAV account, the account's `calendar-user-address-set`
    /// (RFC 6638, learnt at `sources add` and each sync); for a local calendar, the addresses
    /// set with `ical calendars me` (`.openeventkit/me.json`). Empty in a sandboxed app (the
    /// broker does not pass them).
    func currentUserAddresses(inCollection collection: String?) -> Set<String> {
        lock.withLock {
            guard let backend = backend?.folder else { return currentUserAddresses }
            let files = RemoteSourceFiles(storeRoot: backend.root)
            if let collection {
                _ = remoteSources()
                if let record = remoteSourceRecords.records.first(where: { $0.calendars.contains { $0.collection == collection } }) {
                    return currentUserAddresses.union(record.identity?.addresses ?? [])
                }
            }
            let identity = try? files.localAddressesIdentity()
            if identity != localAddressRecords.identity {
                localAddressRecords = (identity, (try? files.localAddresses()) ?? [])
            }
            return currentUserAddresses.union(localAddressRecords.addresses)
        }
    }

    // MARK: Calendars

    /// The calendars that hold `entityType`: none without access, the one virtual calendar
    /// under write-only access, every such collection of the store with full access
    /// (including calendars saved in the pending batch).
    public func calendars(for entityType: EKEntityType) -> [EKCalendar] {
        switch level(entityType) {
        case .none: return []
        case .writeOnly: return [virtualCalendar()]
        case .full: return lock.withLock { allCalendars() }.filter { $0.allowedEntityTypes.contains(entityType.mask) }
        }
    }

    /// Deprecated: the event calendars.
    @available(*, deprecated, renamed: "calendars(for:)")
    public var calendars: [EKCalendar] { calendars(for: .event) }

    /// The calendar with an identifier, when the app may see it.
    public func calendar(withIdentifier identifier: String) -> EKCalendar? {
        if identifier == Self.virtualCalendarIdentifier { return level(.event) == .writeOnly ? virtualCalendar() : nil }
        guard let calendar = lock.withLock({ allCalendars() }).first(where: { $0.identifier == identifier }) else { return nil }
        let type: EKEntityType = calendar.allowedEntityTypes.contains(.event) ? .event : .reminder
        return level(type) == .full ? calendar : nil
    }

    /// The default calendar for new events: the store's default (store.json), else the first
    /// event calendar; the virtual calendar under write-only access; nil without access.
    public var defaultCalendarForNewEvents: EKCalendar? {
        switch level(.event) {
        case .none: return nil
        case .writeOnly: return virtualCalendar()
        case .full: return lock.withLock { defaultCalendar(for: .event) }
        }
    }

    /// The default list for new reminders; nil without full access to reminders.
    public func defaultCalendarForNewReminders() -> EKCalendar? {
        level(.reminder) == .full ? lock.withLock { defaultCalendar(for: .reminder) } : nil
    }

    func defaultCalendar(for entityType: EKEntityType) -> EKCalendar? {
        let calendars = allCalendars().filter { $0.allowedEntityTypes.contains(entityType.mask) }
        let named = entityType == .event ? (try? backend?.metadata())??.defaultEventCalendar
            : (try? backend?.metadata())??.defaultReminderList
        return calendars.first { $0.identifier == named } ?? calendars.first
    }

    /// The write-only virtual calendar: it stands for no real calendar; events saved into it
    /// land in the calendar the user chose in the calendar chooser, else the default one.
    /// (package: EventKitUI hands it out as "the user's default calendar" to an app that
    /// cannot see real calendars.)
    package func virtualCalendar() -> EKCalendar {
        EKCalendar(eventStore: self, identifier: Self.virtualCalendarIdentifier, title: "Calendar", color: nil,
                   entityMask: .event, source: virtualSourceObject, isSaved: true, isVirtual: true, writable: true)
    }

    /// Every collection as a calendar, with the pending batch applied (caller holds the lock).
    func allCalendars() -> [EKCalendar] {
        guard let backend else { return [] }
        let metadata = (try? backend.metadata()) ?? nil
        var result: [EKCalendar] = []
        var remote: [String: (source: EKSource, writable: Bool)] = [:]
        for (source, collections) in remoteSources() {
            for (collection, writable) in collections { remote[collection] = (source, writable) }
        }
        for collection in (try? backend.collections()) ?? [] {
            let types = Self.entityTypes(of: collection.identifier, metadata: metadata)
            let mirror = remote[collection.identifier]
            result.append(EKCalendar(eventStore: self, identifier: collection.identifier, title: collection.title,
                                     color: collection.color, entityMask: types, source: mirror?.source ?? localSourceStorage,
                                     isSaved: true,
                                     writable: (collection.path.isEmpty || access(collection.path, W_OK) == 0) && (mirror?.writable ?? true)))
        }
        for change in state.calendarChanges {
            switch change {
            case let .create(identifier, title, color, types):
                let mask: EKEntityMask = types.contains(.reminder) ? .reminder : .event
                result.append(EKCalendar(eventStore: self, identifier: identifier, title: title, color: color, entityMask: mask,
                                         source: localSourceStorage, isSaved: true))
            case let .update(identifier, title, color):
                if let calendar = result.first(where: { $0.identifier == identifier }) { calendar.markSaved(title: title, color: color) }
            case let .delete(identifier):
                result.removeAll { $0.identifier == identifier }
            }
        }
        return result
    }

    /// The entity types of a collection: store.json's record, else reminders for the default
    /// reminder list and events for any other folder.
    package static func entityTypes(of identifier: String, metadata: StoreMetadata?) -> EKEntityMask {
        if let recorded = metadata?.entityTypes?[identifier], !recorded.isEmpty {
            return recorded.reduce(into: EKEntityMask()) { $0.insert($1 == .event ? .event : .reminder) }
        }
        return metadata?.defaultReminderList == identifier ? .reminder : .event
    }

    /// The calendar object of a collection (caller holds the lock).
    func calendarObject(_ identifier: String) -> EKCalendar? {
        allCalendars().first { $0.identifier == identifier }
    }

    // MARK: Saving and removing calendars

    /// Creates or updates a calendar: a new collection (folder with `displayname` and `color`)
    /// or a new title and colour. Needs full access to the calendar's entity type; under
    /// write-only access it fails with `sourceDoesNotAllowCalendarAddDelete`. A new calendar
    /// needs its source set (`calendarHasNoSource`).
    public func saveCalendar(_ calendar: EKCalendar, commit: Bool) throws {
        guard calendar.eventStore === self else { throw EKError(.objectBelongsToDifferentStore, "the calendar belongs to another event store") }
        try checkCalendarAccess(calendar, "saving a calendar")
        if calendar.isVirtual { throw EKError(.calendarIsImmutable, "the write-only calendar cannot be changed") }
        try performChange(commit: commit) { () throws(EKError) in
            if calendar.isSaved {
                guard calendar.hasChanges else { return }
                state.calendarChanges.append(.update(identifier: calendar.identifier, title: calendar.titleValue,
                                                     color: calendar.colorValue))
            } else {
                guard let source = calendar.source else { throw EKError(.calendarHasNoSource, "set the calendar's source before saving it") }
                guard !source.isVirtual else { throw EKError(.sourceDoesNotAllowCalendarAddDelete, "the write-only source takes no calendars") }
                let types: Set<CollectionEntityType> = calendar.entityMask.contains(.reminder) ? [.reminder] : [.event]
                state.calendarChanges.append(.create(identifier: calendar.identifier, title: calendar.titleValue,
                                                     color: calendar.colorValue ?? "#1BADF8", types: types))
            }
            state.calendarObjects[ObjectIdentifier(calendar)] = calendar
        }
        if !commit { calendar.markSaved(title: calendar.titleValue, color: calendar.colorValue) }
    }

    /// Removes a calendar and every item in it. Needs full access to its entity type.
    public func removeCalendar(_ calendar: EKCalendar, commit: Bool) throws {
        guard calendar.eventStore === self else { throw EKError(.objectBelongsToDifferentStore, "the calendar belongs to another event store") }
        try checkCalendarAccess(calendar, "removing a calendar")
        if calendar.isVirtual { throw EKError(.calendarIsImmutable, "the write-only calendar cannot be removed") }
        guard calendar.isSaved else { return }
        try performChange(commit: commit) { () throws(EKError) in
            let identifier = calendar.identifier
            for key in state.itemOrder where key.collection == identifier { state.items[key] = nil }
            state.itemOrder.removeAll { $0.collection == identifier }
            let wasStagedNew = state.calendarChanges.contains { if case .create(identifier, _, _, _) = $0 { true } else { false } }
            state.calendarChanges.removeAll {
                switch $0 {
                case .create(let id, _, _, _), .update(let id, _, _), .delete(let id): id == identifier
                }
            }
            if !wasStagedNew { state.calendarChanges.append(.delete(identifier: identifier)) }
        }
    }

    private func checkCalendarAccess(_ calendar: EKCalendar, _ what: String) throws(EKError) {
        let type: EKEntityType = calendar.entityMask.contains(.event) ? .event : .reminder
        switch level(type) {
        case .full: _ = try requireBackend()
        case .writeOnly:
            throw EKError(.sourceDoesNotAllowCalendarAddDelete, "\(what) needs full access; the app has write-only access to events")
        case .none: throw notAuthorized(type, what)
        }
    }
}

extension EKEntityType {
    var mask: EKEntityMask { self == .event ? .event : .reminder }
}
