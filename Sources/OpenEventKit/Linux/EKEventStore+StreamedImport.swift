import Foundation
import ICalKit

/// The calendar data of an import, kept as bookkeeping instead of trees: each VCALENDAR's
/// properties and VTIMEZONEs, and for each of its events, to-dos and journal entries the
/// UID and where to read it again (``ICalComponentStream/Location``). What
/// ``EKEventStore/importCalendars(from:into:progress:)`` takes, so that importing a file of
/// any size holds this bookkeeping and one item, not the file's tree.
///
/// The per-component records (UID, place, kind) are kept in order in a temporary file
/// (a record log, a megabyte in memory), not in memory, and the import groups them by UID
/// with a sort that keeps to ``memory``: memory does not grow with the number of items.
/// What stays in memory per VCALENDAR is its properties and VTIMEZONEs.
///
/// Add files with ``add(_:evenIfUnfaithful:)`` (streamed, read once now and once more,
/// item by item, by the import) or calendars read whole with ``add(calendars:)`` (jCal,
/// or a file ``ICalComponentStream`` does not stream faithfully and that is small enough to
/// read whole); the import reads them as ``EKEventStore/importCalendars(_:into:progress:)``
/// reads the same calendars, in the order they were added.
public final class EKImportSource {
    /// One component the import keeps a record of: an event, to-do or journal entry, or
    /// (``definesOnly``) another component whose UID a defining VCALENDAR holds.
    struct Entry {
        /// Which of ``calendars``.
        var calendar: Int
        /// Its UID as written (nil: none).
        var uid: String?
        /// The UID derived from its content when it has none (or an empty one).
        var derivedUID: String?
        var isTodo: Bool
        /// Not an item: only says that its calendar holds `uid`.
        var definesOnly: Bool
        /// Which of ``streams`` it is read from, or -1 when it is ``held``.
        var stream: Int
        /// Its index in ``held``, or its place in the stream.
        var heldIndex: Int
        var location: ICalComponentStream.Location

        /// The UID the import files it under.
        var key: String { definesOnly ? (uid ?? "") : (derivedUID ?? uid ?? "") }

        var payload: RecordSorter.Payload {
            var payload = RecordSorter.Payload()
            payload.append(calendar)
            payload.append(uid)
            payload.append(derivedUID)
            payload.append((isTodo ? 1 : 0) | (definesOnly ? 2 : 0))
            payload.append(stream)
            payload.append(heldIndex)
            payload.append(location.bytes.lowerBound)
            payload.append(location.bytes.upperBound)
            payload.append(location.line)
            return payload
        }

        init(calendar: Int, uid: String?, derivedUID: String?, isTodo: Bool, definesOnly: Bool,
             stream: Int, heldIndex: Int, location: ICalComponentStream.Location) {
            self.calendar = calendar
            self.uid = uid
            self.derivedUID = derivedUID
            self.isTodo = isTodo
            self.definesOnly = definesOnly
            self.stream = stream
            self.heldIndex = heldIndex
            self.location = location
        }

        init(_ payload: inout RecordSorter.Payload) {
            calendar = payload.int()
            uid = payload.string()
            derivedUID = payload.string()
            let flags = payload.int()
            isTodo = flags & 1 != 0
            definesOnly = flags & 2 != 0
            stream = payload.int()
            heldIndex = payload.int()
            let lower = payload.int(), upper = payload.int()
            location = .init(bytes: lower..<upper, line: payload.int())
        }
    }

    /// One VCALENDAR.
    struct Calendar {
        /// Its properties, without components.
        var header: Component
        /// Its VTIMEZONEs, the first per TZID.
        var zones: [String: Component] = [:]
    }

    /// What the import's sort and the import's record log may hold in memory together.
    public let memory: MemoryBudget
    var calendars: [Calendar] = []
    var streams: [ICalComponentStream] = []
    /// The streams whose records are not used (a first read that was not faithful).
    var discarded = Set<Int>()
    /// The components of calendars read whole.
    var held: [Component] = []
    /// Every ``Entry``, in the order read.
    let entries = RecordLog()
    /// The one stream whose file is open while the import reads components again.
    private var openStream: Int?
    /// Whether any component is a VTODO.
    public private(set) var containsTodos = false
    /// Whether any component is neither a VTODO nor a VTIMEZONE.
    public private(set) var containsOtherThanTodos = false

    /// Creates an empty source whose import keeps its bookkeeping to about `memory`.
    public init(memory: MemoryBudget = .default) {
        self.memory = memory
    }

    /// Reads a file through `stream` and adds its VCALENDARs.
    ///
    /// When the stream is not faithful (``ICalComponentStream/Summary/isFaithful``), nothing
    /// is added unless `evenIfUnfaithful`, and the caller reads the file whole and adds it
    /// with ``add(calendars:)``. With `evenIfUnfaithful` (a file too large to read whole)
    /// the file is read a second time with each VCALENDAR's complete properties
    /// (``ICalComponentStream/Summary/calendars``), so a property that comes after the
    /// components (an X-WR-TIMEZONE, a METHOD) applies to them as in a whole read; what a
    /// limit left out of the stream stays left out (the diagnostics say so).
    ///
    /// - Returns: the read's summary (its diagnostics are the caller's to report).
    /// - Throws: what ``ICalComponentStream/read(_:)`` throws; nothing is added then.
    public func add(_ stream: ICalComponentStream, evenIfUnfaithful: Bool = false) throws(ICalError) -> ICalComponentStream.Summary {
        let summary = try read(stream, headers: nil)
        guard !summary.isFaithful else { return summary }
        discarded.insert(streams.count - 1)
        calendars.removeLast(calendars.count - firstCalendarOfLastRead)
        if evenIfUnfaithful {
            _ = try read(stream, headers: summary.calendars)
        }
        return summary
    }

    /// Where the calendars of the last ``read(_:headers:)`` begin in ``calendars``.
    private var firstCalendarOfLastRead = 0

    /// One read of a stream: its calendars appended, its entries logged under a new stream
    /// index. With `headers`, each VCALENDAR's properties are those, not those read so far.
    private func read(_ stream: ICalComponentStream, headers: [Component]?) throws(ICalError) -> ICalComponentStream.Summary {
        let streamIndex = streams.count
        streams.append(stream)
        let base = calendars.count
        firstCalendarOfLastRead = base
        var todos = false, others = false
        var failure: ICalError?
        let summary: ICalComponentStream.Summary
        do {
            summary = try stream.read { event in
                guard failure == nil else { return }
                switch event {
                case .component(let item):
                    while base + item.calendarIndex >= calendars.count {
                        let index = calendars.count - base
                        calendars.append(Calendar(header: headers.flatMap { index < $0.count ? $0[index] : nil } ?? item.calendar))
                    }
                    let component = item.component
                    if component.matches(.todo) { todos = true } else if !component.matches(.timeZone) { others = true }
                    do throws(ICalError) {
                        try file(component, in: base + item.calendarIndex, stream: streamIndex, heldIndex: -1, location: item.location)
                    } catch { failure = error }
                case .endOfCalendar(let header, let index):
                    if base + index >= calendars.count {
                        calendars.append(Calendar(header: headers.flatMap { index < $0.count ? $0[index] : nil } ?? header))
                    }
                }
            }
        } catch {
            discarded.insert(streamIndex)
            calendars.removeLast(calendars.count - base)
            throw error
        }
        // Read again item by item later: no descriptor is held per file meanwhile.
        stream.close()
        if let failure {
            discarded.insert(streamIndex)
            calendars.removeLast(calendars.count - base)
            throw failure
        }
        if summary.isFaithful || headers != nil {
            containsTodos = containsTodos || todos
            containsOtherThanTodos = containsOtherThanTodos || others
        }
        return summary
    }

    /// Adds VCALENDARs read whole.
    public func add(calendars: [Component]) {
        for calendar in calendars {
            var header = calendar
            header.components = []
            let index = self.calendars.count
            self.calendars.append(Calendar(header: header))
            for component in calendar.components {
                if component.matches(.todo) { containsTodos = true } else if !component.matches(.timeZone) { containsOtherThanTodos = true }
                held.append(component)
                // The log cannot be written only when the temporary folder fails; the import
                // reports that when it reads the log back.
                try? file(component, in: index, stream: -1, heldIndex: held.count - 1,
                          location: .init(bytes: 0..<0, line: 0))
            }
        }
    }

    /// Files one component of calendar `index`: a VTIMEZONE among its zones, an item (or a
    /// UID only) in the log.
    private func file(_ component: Component, in index: Int, stream: Int, heldIndex: Int,
                      location: ICalComponentStream.Location) throws(ICalError) {
        if component.matches(.timeZone) {
            let tzid = component[.timeZoneIdentifier]?.trimmingCharacters(in: .whitespaces) ?? ""
            if calendars[index].zones[tzid] == nil { calendars[index].zones[tzid] = component }
        }
        let isItem = SeriesEditing.isItem(component)
        var derived: String?
        if isItem, component.uid?.isEmpty ?? true {
            var applied = calendars[index].header
            applied.components = [component]
            let content = CalendarRepair.applyingCalendarTimeZone(applied).components[0]
            derived = StableHash(ICalWriter().bytes(content)).uuidText + "@openeventkit"
        }
        let entry = Entry(calendar: index, uid: component.uid, derivedUID: derived, isTodo: component.matches(.todo),
                          definesOnly: false, stream: stream, heldIndex: heldIndex, location: location)
        if isItem {
            try entries.append(entry.payload)
        }
        // A UID that the item is not filed under (or a component that is no item) still
        // counts as held by its calendar (``SeriesVersions/definedUIDs(_:)``).
        if let uid = component.uid, !isItem || derived != nil {
            var only = entry
            only.definesOnly = true
            only.uid = uid
            try entries.append(only.payload)
        }
    }

    /// An entry's component as the import takes it: read again when located, with its
    /// calendar's X-WR-TIMEZONE applied and the derived UID set.
    func load(_ entry: Entry) throws(ICalError) -> Component {
        var component: Component
        if entry.stream < 0 {
            component = held[entry.heldIndex]
        } else {
            if let open = openStream, open != entry.stream { streams[open].close() }
            openStream = entry.stream
            component = try streams[entry.stream].component(at: entry.location)
        }
        let header = calendars[entry.calendar].header
        if header.property(.calendarTimeZone) != nil {
            var applied = header
            applied.components = [component]
            component = CalendarRepair.applyingCalendarTimeZone(applied).components[0]
        }
        if let derived = entry.derivedUID { component.uid = derived }
        return component
    }

    /// Calls `body` with every entry in use, in the order read.
    func forEachEntry(_ body: (Entry) throws -> Void) throws {
        try entries.forEach { payload in
            let entry = Entry(&payload)
            if entry.stream >= 0 && discarded.contains(entry.stream) { return }
            try body(entry)
        }
    }

    /// The calendars as trees (for an import that cannot stream).
    func trees() throws -> [Component] {
        var result = calendars.map { calendar -> Component in
            var tree = calendar.header
            // The zones first: the import looks them up by TZID, and the items keep their order.
            tree.components = calendar.zones.keys.sorted().compactMap { calendar.zones[$0] }
            return tree
        }
        try forEachEntry { entry in
            guard !entry.definesOnly else { return }
            var component: Component
            if entry.stream < 0 {
                component = held[entry.heldIndex]
            } else {
                component = try streams[entry.stream].component(at: entry.location)
                streams[entry.stream].close()
            }
            result[entry.calendar].components.append(component)
        }
        return result
    }

    /// The items of the import, grouped by UID as ``EKEventStore/importCalendars(_:into:progress:)``
    /// groups them (the entries of a UID in the order read; a UID that a defining
    /// VCALENDAR holds is taken from those only): sorted by UID with ``RecordSorter`` within
    /// ``memory``, written in groups to a second log, read back by ``forEachGroup(_:)``.
    struct Groups {
        let log = RecordLog()
        var count = 0
        var derivedUIDs = 0
        var needsEvents = false
        var needsReminders = false

        /// Calls `body` with each group's UID and entries.
        func forEachGroup(_ body: (String, [Entry]) throws -> Void) throws {
            try log.forEach { payload in
                let uid = payload.string() ?? ""
                let count = payload.int()
                var entries: [Entry] = []
                for _ in 0..<count { entries.append(Entry(&payload)) }
                try body(uid, entries)
            }
        }
    }

    func groups() throws -> Groups {
        let sorter = RecordSorter(memoryLimit: max(memory.bytes / 4, 1 << 20))
        try forEachEntry { entry in
            var key = RecordSorter.Key()
            key.append(entry.key)
            try sorter.add(key: key, payload: entry.payload)
        }
        var groups = Groups()
        var current: [UInt8]?
        var members: [Entry] = []
        // The empty UID sorts first: whether a defining calendar holds it is known before
        // the entries that had it and were filed under a derived UID.
        var emptyDefined = false
        func defines(_ entry: Entry) -> Bool { SeriesVersions.definesEvents(calendars[entry.calendar].header) }
        func close() throws {
            defer { members = [] }
            guard let first = members.first else { return }
            let key = first.key
            let defined = members.contains { $0.uid == key && defines($0) }
            if key.isEmpty && defined { emptyDefined = true }
            let kept = members.filter { entry in
                guard !entry.definesOnly else { return false }
                guard !defines(entry), let uid = entry.uid else { return true }
                return !(uid == key ? defined : (uid.isEmpty && emptyDefined))
            }
            guard !kept.isEmpty else { return }
            var payload = RecordSorter.Payload()
            payload.append(kept[0].derivedUID ?? kept[0].uid ?? "")
            payload.append(kept.count)
            var bytes = payload.bytes
            for entry in kept {
                bytes += entry.payload.bytes
                if entry.derivedUID != nil { groups.derivedUIDs += 1 }
                if entry.isTodo { groups.needsReminders = true } else { groups.needsEvents = true }
            }
            try groups.log.append(RecordSorter.Payload(bytes))
            groups.count += 1
        }
        try sorter.forEachSorted { key, payload in
            if key != current {
                try close()
                current = key
            }
            var payload = payload
            members.append(Entry(&payload))
        }
        try close()
        return groups
    }
}

extension EKEventStore {
    /// ``importCalendars(_:into:progress:)`` of calendar data kept as bookkeeping
    /// (``EKImportSource``): the same rules, checks, item files and report, one batch all or
    /// nothing, but each item is read, built and written as a temporary file one at a time
    /// (``FolderStore``'s streaming commit), so memory holds one item and the headers and
    /// time zones of the calendars, not the calendars' trees nor every item's bytes. What is
    /// kept per item (the source's places, the groups by UID, the batch's file names and
    /// journal) is kept in temporary files and sorted within ``memoryBudget``, so an
    /// import's peak is the same at 100,000 and 1,000,000 items. The items are
    /// written in the order of their UIDs.
    ///
    /// With changes pending in this store (saves not yet committed) the items are read into
    /// memory and imported by ``importCalendars(_:into:progress:)``, which commits them too.
    public func importCalendars(from source: EKImportSource, into calendar: EKCalendar? = nil,
                                progress: ((Int, Int) -> Void)? = nil) throws -> EKImportReport {
        let pending = lock.withLock { !state.isEmpty || state.failure != nil }
        if pending {
            let trees: [Component]
            do { trees = try source.trees() } catch {
                throw EKError(.internalFailure, "cannot read the calendar data again: \(error)")
            }
            return try importCalendars(trees, into: calendar, progress: progress)
        }
        // The entries grouped by UID, on disk (``EKImportSource/groups()``).
        let groups: EKImportSource.Groups
        do { groups = try source.groups() } catch {
            throw EKError(.internalFailure, "cannot sort the calendar data's items: \(error)")
        }
        var report = EKImportReport()
        report.uidsAdded = groups.derivedUIDs
        if groups.needsEvents && level(.event) == .none { throw notAuthorized(.event, "importing events") }
        if groups.needsReminders && level(.reminder) != .full { throw notAuthorized(.reminder, "importing reminders") }
        guard groups.count > 0 else { return report }

        lock.lock()
        defer { lock.unlock() }
        if let failure = state.failure { throw failure }
        let backend = try requireBackend()
        var targets = ImportTargets(store: self, calendar: calendar, backend: backend)
        // The items written, for the snapshot of the store this store keeps (when it keeps one).
        final class Written { var identities: [ItemKey: FileIdentity] = [:] }
        let written = Written()
        let keepsSnapshot = state.snapshot != nil
        let result: CommitResult
        do {
            var position = 0
            result = try backend.commit(Batch(), memory: memoryBudget, streaming: { put in
                try groups.forEachGroup { uid, entries in
                    let sourceCalendar = source.calendars[entries[0].calendar]
                    var components: [Component] = []
                    for entry in entries { components.append(try source.load(entry)) }
                    let isReminder = components.allSatisfy { $0.matches(.todo) }
                    let entityType: EKEntityType = isReminder ? .reminder : .event
                    let collection = try targets.collection(for: entityType, uid: uid)
                    var item = Component.calendar(productIdentifier: Self.productIdentifier)
                    if let scale = sourceCalendar.header.property(.calendarScale) { item.setProperty(scale) }
                    let used = Set(components.flatMap(Self.timeZoneIdentifiers)).sorted()
                    item.components = used.compactMap { sourceCalendar.zones[$0] } + components
                    item = withTimeZones(item)
                    let name = ItemFileName.forUID(uid)
                    let onDisk = targets.existing(name, in: collection)
                    if onDisk != nil {
                        guard level(entityType) == .full else {
                            throw EKError(.eventStoreNotAuthorized,
                                          "UID \(uid) is already in calendar '\(collection)'; replacing it needs full access")
                        }
                        report.updated += 1
                    } else {
                        report.added += 1
                    }
                    var batch = Batch()   // the checks of an item a batch puts
                    try batch.put(item, into: collection, name: name, expecting: .any)
                    guard case let .putItem(_, _, bytes, _) = batch.operations[0] else { return }
                    try put(collection, name, bytes, onDisk.map { .identity($0) } ?? .absent)
                    report.calendars.insert(collection)
                    position += 1
                    progress?(position, groups.count)
                }
            }, committed: keepsSnapshot ? { written.identities[$0] = $1 } : nil)
        } catch let error as EKError {
            throw error
        } catch let error as StoreError {
            throw EKError(storeError: error)
        } catch let error as ICalError {
            throw EKError(.internalFailure, "cannot read the calendar data again: \(error)")
        } catch {
            throw EKError(.internalFailure, "cannot read the calendar data again: \(error)")
        }
        let committed = State(snapshot: state.snapshot)
        state = State(snapshot: state.snapshot.map { snapshot in
            var patched = self.patched(snapshot, after: committed, result: result, backend: backend)
            for (key, identity) in result.identities { patched.collections[key.collection]?.items[key.name] = identity }
            for (key, identity) in written.identities { patched.collections[key.collection]?.items[key.name] = identity }
            return patched
        })
        indexIsStale = true
        postChanged(alsoToOthers: true)
        return report
    }
}
