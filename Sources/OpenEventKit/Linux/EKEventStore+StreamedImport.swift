import Foundation
import ICalKit

/// The calendar data of an import, kept as bookkeeping instead of trees: each VCALENDAR's
/// properties and VTIMEZONEs, and for each of its events, to-dos and journal entries the
/// UID and where to read it again (``ICalComponentStream/Location``). What
/// ``EKEventStore/importCalendars(from:into:progress:)`` takes, so that importing a file of
/// any size holds this bookkeeping and one item, not the file's tree.
///
/// Add files with ``add(_:)`` (streamed, read once now and once more, item by item, by the
/// import) or calendars read whole with ``add(calendars:)`` (standard input, jCal, or a
/// file ``ICalComponentStream`` does not stream faithfully); the import reads them as
/// ``EKEventStore/importCalendars(_:into:progress:)`` reads the same calendars, in the order
/// they were added.
public final class EKImportSource {
    /// Where one component is.
    enum Place {
        case held(Component)
        case located(stream: Int, ICalComponentStream.Location)
    }

    /// One event, to-do or journal entry.
    struct Entry {
        /// Its UID as written (nil: none).
        var uid: String?
        /// The UID derived from its content when it has none (or an empty one).
        var derivedUID: String?
        var isTodo: Bool
        var place: Place
    }

    /// One VCALENDAR.
    struct Calendar {
        /// Its properties, without components.
        var header: Component
        /// Its VTIMEZONEs, the first per TZID.
        var zones: [String: Component] = [:]
        var entries: [Entry] = []
    }

    var calendars: [Calendar] = []
    var streams: [ICalComponentStream] = []
    /// The one stream whose file is open while the import reads components again.
    private var openStream: Int?
    /// The UIDs the defining VCALENDARs hold (``SeriesVersions/definedUIDs(_:)``).
    var definedUIDs = Set<String>()
    /// Whether any component is a VTODO.
    public private(set) var containsTodos = false
    /// Whether any component is neither a VTODO nor a VTIMEZONE.
    public private(set) var containsOtherThanTodos = false

    /// Creates an empty source.
    public init() {}

    /// Reads a file through `stream` and adds its VCALENDARs, unless the stream is not
    /// faithful (``ICalComponentStream/Summary/isFaithful``): then nothing is added, and the
    /// caller reads the file whole and adds it with ``add(calendars:)``.
    ///
    /// - Returns: the read's summary (its diagnostics are the caller's to report).
    /// - Throws: what ``ICalComponentStream/read(_:)`` throws; nothing is added then.
    public func add(_ stream: ICalComponentStream) throws(ICalError) -> ICalComponentStream.Summary {
        let streamIndex = streams.count
        var added: [Calendar] = []
        var defined = Set<String>()
        var todos = false, others = false
        let summary = try stream.read { event in
            switch event {
            case .component(let item):
                if item.calendarIndex >= added.count {
                    added.append(Calendar(header: item.calendar))
                }
                let component = item.component
                if component.matches(.todo) { todos = true } else if !component.matches(.timeZone) { others = true }
                if SeriesVersions.definesEvents(item.calendar), let uid = component.uid { defined.insert(uid) }
                Self.file(component, in: &added[added.count - 1]) { .located(stream: streamIndex, item.location) }
            case .endOfCalendar(let header, let index):
                if index >= added.count { added.append(Calendar(header: header)) }
            }
        }
        // Read again item by item later: no descriptor is held per file meanwhile.
        stream.close()
        guard summary.isFaithful else { return summary }
        streams.append(stream)
        calendars += added
        definedUIDs.formUnion(defined)
        containsTodos = containsTodos || todos
        containsOtherThanTodos = containsOtherThanTodos || others
        return summary
    }

    /// Adds VCALENDARs read whole.
    public func add(calendars: [Component]) {
        for calendar in calendars {
            var header = calendar
            header.components = []
            var entry = Calendar(header: header)
            for component in calendar.components {
                if component.matches(.todo) { containsTodos = true } else if !component.matches(.timeZone) { containsOtherThanTodos = true }
                if SeriesVersions.definesEvents(calendar), let uid = component.uid { definedUIDs.insert(uid) }
                Self.file(component, in: &entry) { .held(component) }
            }
            self.calendars.append(entry)
        }
    }

    /// Files one component of `calendar`: a VTIMEZONE among its zones, an item among its entries.
    private static func file(_ component: Component, in calendar: inout Calendar, place: () -> Place) {
        if component.matches(.timeZone) {
            let tzid = component[.timeZoneIdentifier]?.trimmingCharacters(in: .whitespaces) ?? ""
            if calendar.zones[tzid] == nil { calendar.zones[tzid] = component }
        } else if SeriesEditing.isItem(component) {
            var derived: String?
            if component.uid?.isEmpty ?? true {
                var applied = calendar.header
                applied.components = [component]
                let content = CalendarRepair.applyingCalendarTimeZone(applied).components[0]
                derived = StableHash(ICalWriter().bytes(content)).uuidText + "@openeventkit"
            }
            calendar.entries.append(Entry(uid: component.uid, derivedUID: derived, isTodo: component.matches(.todo), place: place()))
        }
    }

    /// An entry's component as the import takes it: read again when located, with its
    /// calendar's X-WR-TIMEZONE applied and the derived UID set.
    func load(_ entry: Entry, of calendar: Calendar) throws(ICalError) -> Component {
        var component: Component
        switch entry.place {
        case .held(let held): component = held
        case .located(let stream, let location):
            if let open = openStream, open != stream { streams[open].close() }
            openStream = stream
            component = try streams[stream].component(at: location)
        }
        if calendar.header.property(.calendarTimeZone) != nil {
            var applied = calendar.header
            applied.components = [component]
            component = CalendarRepair.applyingCalendarTimeZone(applied).components[0]
        }
        if let derived = entry.derivedUID { component.uid = derived }
        return component
    }

    /// The calendars as trees (for an import that cannot stream).
    func trees() throws(ICalError) -> [Component] {
        var result: [Component] = []
        for calendar in calendars {
            var tree = calendar.header
            // The zones first: the import looks them up by TZID, and the items keep their order.
            tree.components = calendar.zones.keys.sorted().compactMap { calendar.zones[$0] }
            for entry in calendar.entries {
                var component: Component
                switch entry.place {
                case .held(let held): component = held
                case .located(let stream, let location):
                    component = try streams[stream].component(at: location)
                    streams[stream].close()
                }
                tree.components.append(component)
            }
            result.append(tree)
        }
        return result
    }
}

extension EKEventStore {
    /// ``importCalendars(_:into:progress:)`` of calendar data kept as bookkeeping
    /// (``EKImportSource``): the same rules, checks, item files and report, one batch all or
    /// nothing, but each item is read, built and written as a temporary file one at a time
    /// (``FolderStore``'s streaming commit), so memory holds the source's bookkeeping, the
    /// names of the batch and one item, not the calendars' trees nor every item's bytes.
    ///
    /// With changes pending in this store (saves not yet committed) the items are read into
    /// memory and imported by ``importCalendars(_:into:progress:)``, which commits them too.
    public func importCalendars(from source: EKImportSource, into calendar: EKCalendar? = nil,
                                progress: ((Int, Int) -> Void)? = nil) throws -> EKImportReport {
        let pending = lock.withLock { !state.isEmpty || state.failure != nil }
        if pending {
            do { return try importCalendars(try source.trees(), into: calendar, progress: progress) } catch let error as ICalError {
                throw EKError(.internalFailure, "cannot read the calendar data again: \(error)")
            }
        }
        // Groups of entries by UID, in order of first appearance (as importCalendars).
        var groups: [(uid: String, entries: [(calendar: Int, entry: Int)], source: Int)] = []
        var indexByUID: [String: Int] = [:]
        var report = EKImportReport()
        for (calendarIndex, sourceCalendar) in source.calendars.enumerated() {
            let defines = SeriesVersions.definesEvents(sourceCalendar.header)
            for (entryIndex, entry) in sourceCalendar.entries.enumerated() {
                if !defines, let uid = entry.uid, source.definedUIDs.contains(uid) { continue }
                if entry.derivedUID != nil { report.uidsAdded += 1 }
                let uid = entry.derivedUID ?? entry.uid!
                if let index = indexByUID[uid] {
                    groups[index].entries.append((calendarIndex, entryIndex))
                } else {
                    indexByUID[uid] = groups.count
                    groups.append((uid, [(calendarIndex, entryIndex)], calendarIndex))
                }
            }
        }
        indexByUID = [:]
        func isTodo(_ reference: (calendar: Int, entry: Int)) -> Bool {
            source.calendars[reference.calendar].entries[reference.entry].isTodo
        }
        let needsEvents = groups.contains { $0.entries.contains { !isTodo($0) } }
        let needsReminders = groups.contains { $0.entries.contains(where: isTodo) }
        if needsEvents && level(.event) == .none { throw notAuthorized(.event, "importing events") }
        if needsReminders && level(.reminder) != .full { throw notAuthorized(.reminder, "importing reminders") }
        guard !groups.isEmpty else { return report }

        lock.lock()
        defer { lock.unlock() }
        if let failure = state.failure { throw failure }
        let backend = try requireBackend()
        var targets = ImportTargets(store: self, calendar: calendar, backend: backend)
        let result: CommitResult
        do {
            result = try backend.commit(Batch()) { put in
                for (position, group) in groups.enumerated() {
                    let sourceCalendar = source.calendars[group.source]
                    var components: [Component] = []
                    for reference in group.entries {
                        let owner = source.calendars[reference.calendar]
                        components.append(try source.load(owner.entries[reference.entry], of: owner))
                    }
                    let isReminder = components.allSatisfy { $0.matches(.todo) }
                    let entityType: EKEntityType = isReminder ? .reminder : .event
                    let collection = try targets.collection(for: entityType, uid: group.uid)
                    var item = Component.calendar(productIdentifier: Self.productIdentifier)
                    if let scale = sourceCalendar.header.property(.calendarScale) { item.setProperty(scale) }
                    let used = Set(components.flatMap(Self.timeZoneIdentifiers)).sorted()
                    item.components = used.compactMap { sourceCalendar.zones[$0] } + components
                    item = withTimeZones(item)
                    let name = ItemFileName.forUID(group.uid)
                    let onDisk = targets.existing(name, in: collection)
                    if onDisk != nil {
                        guard level(entityType) == .full else {
                            throw EKError(.eventStoreNotAuthorized,
                                          "UID \(group.uid) is already in calendar '\(collection)'; replacing it needs full access")
                        }
                        report.updated += 1
                    } else {
                        report.added += 1
                    }
                    var batch = Batch()   // the checks of an item a batch puts
                    try batch.put(item, into: collection, name: name, expecting: .any)
                    guard case let .putItem(_, _, bytes, _) = batch.operations[0] else { continue }
                    try put(collection, name, bytes, onDisk.map { .identity($0) } ?? .absent)
                    report.calendars.insert(collection)
                    progress?(position + 1, groups.count)
                }
            }
        } catch let error as EKError {
            throw error
        } catch let error as StoreError {
            throw EKError(storeError: error)
        } catch let error as ICalError {
            throw EKError(.internalFailure, "cannot read the calendar data again: \(error)")
        }
        let committed = State(snapshot: state.snapshot)
        state = State(snapshot: state.snapshot.map { snapshot in
            var patched = self.patched(snapshot, after: committed, result: result, backend: backend)
            for (key, identity) in result.identities { patched.collections[key.collection]?.items[key.name] = identity }
            return patched
        })
        indexIsStale = true
        postChanged(alsoToOthers: true)
        return report
    }
}
