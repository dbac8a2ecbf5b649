import Foundation
import ICalKit

/// What ``EKEventStore/importCalendars(_:into:progress:)`` did.
public struct EKImportReport: Sendable, Hashable {
    /// Items (UIDs) written as new files.
    public var added: Int = 0
    /// Items that replaced the item with the same UID (full access only).
    public var updated: Int = 0
    /// Components that had no UID and got one derived from their content (so importing the
    /// same file again updates them instead of adding them twice).
    public var uidsAdded: Int = 0
    /// The calendar identifiers written to.
    public var calendars: Set<String> = []
}

/// Linux-only additions for tools: moving whole iCalendar files into and out of the store
/// without loss, and querying occurrences in the form ICalKit's formatters take. Every one
/// passes the same access checks as EventKit's own API.
extension EKEventStore {
    // MARK: Import

    /// Imports the events, to-dos and journal entries of VCALENDARs, one item file per UID
    /// (its master, its overrides and the VTIMEZONEs they use, every property and parameter
    /// kept), in one batch: all or nothing.
    ///
    /// Events go to `calendar` (default: the default calendar for new events; the virtual
    /// calendar under write-only access means the user's chosen or default calendar); to-dos
    /// to `calendar` when it holds reminders, else the default reminder list. An item whose UID
    /// is already in the target calendar is replaced under full access; under write-only
    /// access the import fails instead (the app may add, not change). A component without a
    /// UID gets one derived from its content. The versions of one UID across the sources are
    /// read as a query of the file reads them (``SeriesVersions``): an iTIP REPLY's component
    /// is left out when a defining message of the same import holds its UID.
    ///
    /// A source calendar's `X-WR-TIMEZONE` (Google, Apple) is applied first, as
    /// ``OccurrenceQuery`` applies it to a file (``CalendarRepair/applyingCalendarTimeZone(_:)``):
    /// its floating DATE-TIMEs get the zone's TZID and the item file carries that VTIMEZONE.
    /// An item file holds one UID, not the source's calendar properties, so this is how an
    /// imported Google event at 21:00 stays 21:00 Berlin time for every reader of the store
    /// (`ical query`, ``EKEvent/timeZone``, khal). DATEs stay all-day; everything else is
    /// kept as written.
    ///
    /// - Parameter progress: called with (items staged, items in all) as the batch is built.
    public func importCalendars(_ calendars: [Component], into calendar: EKCalendar? = nil,
                                progress: ((Int, Int) -> Void)? = nil) throws -> EKImportReport {
        let calendars = calendars.map(CalendarRepair.applyingCalendarTimeZone)
        var groups: [(uid: String, components: [Component], source: Int)] = []
        var indexByUID: [String: Int] = [:]
        var report = EKImportReport()
        // Each source's VTIMEZONEs by TZID, and its CALSCALE, looked up once.
        let zonesBySource: [[String: Component]] = calendars.map { source in
            Dictionary(source.components.filter { $0.matches(.timeZone) }.map {
                ($0[.timeZoneIdentifier]?.trimmingCharacters(in: .whitespaces) ?? "", $0)
            }, uniquingKeysWith: { first, _ in first })
        }
        // The versions of a UID across the sources, as a query of the file reads them
        // (SeriesVersions): an iTIP REPLY's VEVENT is no version of a series a REQUEST holds.
        let definedUIDs = SeriesVersions.definedUIDs(calendars)
        for (sourceIndex, source) in calendars.enumerated() {
            for var component in source.components
            where SeriesEditing.isItem(component) && SeriesVersions.isVersion(component, of: source, definedUIDs: definedUIDs) {
                if component.uid?.isEmpty ?? true {
                    component.uid = StableHash(ICalWriter().bytes(component)).uuidText + "@openeventkit"
                    report.uidsAdded += 1
                }
                let uid = component.uid!
                if let index = indexByUID[uid] {
                    groups[index].components.append(component)
                } else {
                    indexByUID[uid] = groups.count
                    groups.append((uid, [component], sourceIndex))
                }
            }
        }
        let needsEvents = groups.contains { $0.components.contains { !$0.matches(.todo) } }
        let needsReminders = groups.contains { $0.components.contains { $0.matches(.todo) } }
        if needsEvents && level(.event) == .none { throw notAuthorized(.event, "importing events") }
        if needsReminders && level(.reminder) != .full { throw notAuthorized(.reminder, "importing reminders") }
        try performChange(commit: true) { () throws(EKError) in
            var targets = ImportTargets(store: self, calendar: calendar, backend: backend)
            for (position, group) in groups.enumerated() {
                let isReminder = group.components.allSatisfy { $0.matches(.todo) }
                let entityType: EKEntityType = isReminder ? .reminder : .event
                let collection = try targets.collection(for: entityType, uid: group.uid)
                var item = Component.calendar(productIdentifier: Self.productIdentifier)
                if let scale = calendars[group.source].property(.calendarScale) { item.setProperty(scale) }
                let used = Set(group.components.flatMap(Self.timeZoneIdentifiers)).sorted()
                item.components = used.compactMap { zonesBySource[group.source][$0] } + group.components
                item = withTimeZones(item)
                let key = ItemKey(collection: collection, name: ItemFileName.forUID(group.uid))
                let onDisk = targets.existing(key.name, in: collection)
                if onDisk != nil || state.items[key]?.content != nil {
                    guard level(entityType) == .full else {
                        throw EKError(.eventStoreNotAuthorized,
                                      "UID \(group.uid) is already in calendar '\(collection)'; replacing it needs full access")
                    }
                    stage(key, content: item, expecting: onDisk.map { .identity($0) } ?? .absent)
                    report.updated += 1
                } else {
                    stage(key, content: item, expecting: .absent)
                    report.added += 1
                }
                report.calendars.insert(collection)
                progress?(position + 1, groups.count)
            }
        }
        return report
    }

    /// The TZIDs a component's properties (and its subcomponents') name.
    static func timeZoneIdentifiers(_ component: Component) -> [String] {
        component.properties.compactMap { $0.timeZoneIdentifier } + component.components.flatMap(timeZoneIdentifiers)
    }

    // MARK: Export

    /// Every item of `calendars` (nil: every calendar the app may read) as one VCALENDAR: the
    /// items' components as stored, and each VTIMEZONE once. Needs full access to the kinds
    /// of item exported.
    public func exportCalendar(_ calendars: [EKCalendar]? = nil) throws -> Component {
        let readable: [EKCalendar] = lock.withLock { allCalendars() }.filter { calendar in
            let type: EKEntityType = calendar.allowedEntityTypes.contains(.event) ? .event : .reminder
            return (calendars.map { $0.contains(calendar) } ?? true) && level(type) == .full
        }
        if readable.isEmpty {
            let wanted: EKEntityType = calendars?.first.map { $0.allowedEntityTypes.contains(.event) ? .event : .reminder } ?? .event
            if level(wanted) != .full { throw notAuthorized(wanted, "exporting") }
        }
        var result = Component.calendar(productIdentifier: Self.productIdentifier)
        var zones: [String: Component] = [:]
        var zoneOrder: [String] = []
        var items: [Component] = []
        lock.withLock {
            state.diagnostics = []
            for calendar in readable {
                for origin in readItems(in: calendar.identifier) {
                    for component in origin.calendar.components {
                        if component.matches(.timeZone) {
                            let tzid = component[.timeZoneIdentifier]?.trimmingCharacters(in: .whitespaces) ?? ""
                            if zones[tzid] == nil { zones[tzid] = component; zoneOrder.append(tzid) }
                        } else if SeriesEditing.isItem(component) {
                            items.append(component)
                        }
                    }
                }
            }
        }
        result.components = zoneOrder.compactMap { zones[$0] } + items
        return result
    }

    // MARK: Query

    /// The occurrences in a window, as ICalKit's ``OccurrenceQuery`` reports them (for tools
    /// that format them), from `calendars` (nil: every calendar the app may read). Events and
    /// journal entries need full access to events, to-dos full access to reminders; without
    /// it they are left out (under write-only access the first query may show the upgrade
    /// prompt, as any fetch does). Each match's source is `calendar/file.ics`.
    ///
    /// `includingCancelled` lists instances cancelled by an override (`STATUS:CANCELLED`)
    /// instead of leaving them out (``OccurrenceQuery/includesCancelled``).
    public func occurrences(in window: Range<Int64>, calendars: [EKCalendar]? = nil,
                            kinds: Set<ComponentKind> = [.event, .todo, .journal],
                            floatingZone: any TimeZoneRules, includingCancelled: Bool = false) -> OccurrenceQuery.Result {
        let (collections, effectiveKinds) = readableCollections(calendars: calendars, kinds: kinds)
        return lock.withLock {
            state.diagnostics = []
            return matches(in: window, collections: collections, kinds: effectiveKinds, floatingZone: floatingZone,
                           includingCancelled: includingCancelled)
        }
    }

    /// The occurrences in a window as listings (``OccurrenceListing``: what an agenda, JSON
    /// or CSV shows), with the same access rules, sources and order as
    /// ``occurrences(in:calendars:kinds:floatingZone:)``.
    ///
    /// With the query index, a window of up to 100 days is answered from its occurrence
    /// cache (see the article "QueryIndex"): the first query of a week expands its items
    /// and stores the listings, later ones read them. Pending (uncommitted) changes, or a
    /// cache that cannot answer, use the path of ``occurrences(in:calendars:kinds:floatingZone:)``;
    /// both give the same listings and diagnostics.
    /// With `includingCancelled` (cancelled instances listed) the items are always read: the
    /// occurrence cache holds the default listing.
    public func occurrenceListings(in window: Range<Int64>, calendars: [EKCalendar]? = nil,
                                   kinds: Set<ComponentKind> = [.event, .todo, .journal],
                                   floatingZone: any TimeZoneRules,
                                   includingCancelled: Bool = false) -> (listings: [OccurrenceListing], diagnostics: [Diagnostic]) {
        let result = occurrencePackedListings(in: window, calendars: calendars, kinds: kinds, floatingZone: floatingZone,
                                              includingCancelled: includingCancelled)
        return (result.listings.listings(), result.diagnostics)
    }

    /// ``occurrenceListings(in:calendars:kinds:floatingZone:includingCancelled:)`` packed: the
    /// same listings in the same order, for output without decoding every field (`ical
    /// query`'s text, JSON and CSV).
    package func occurrencePackedListings(in window: Range<Int64>, calendars: [EKCalendar]? = nil,
                                          kinds: Set<ComponentKind> = [.event, .todo, .journal],
                                          floatingZone: any TimeZoneRules,
                                          includingCancelled: Bool = false) -> (listings: PackedListings, diagnostics: [Diagnostic]) {
        let answer = occurrenceAnswer(in: window, calendars: calendars, kinds: kinds, floatingZone: floatingZone,
                                      includingCancelled: includingCancelled, rendering: nil)
        guard case .listings(let listings) = answer.answer else { preconditionFailure("rendered without a rendering") }
        return (listings, answer.diagnostics)
    }

    /// How ``occurrenceAnswer(in:calendars:kinds:floatingZone:includingCancelled:rendering:)``
    /// answered.
    package enum OccurrenceAnswer: Sendable {
        /// The query index's rendered weeks, given to the rendering's `begin` and `write`
        /// (which may have stopped them), with the diagnostics given to `begin`.
        case rendered
        /// The listings (``PackedListings``), as ``occurrencePackedListings(in:calendars:kinds:floatingZone:includingCancelled:)``
        /// returns them; the rendering was not called.
        case listings(PackedListings)
        /// The index could not be read on after the rendering's `begin`: the weeks given are
        /// not the whole answer. The error is in the answer's diagnostics.
        case interrupted
    }

    /// A rendering of listings for the query index's rendered weeks: its style (what the
    /// bytes depend on besides the floating zone), how one week's listings are written, and
    /// what takes the weeks (see ``StoreIndex/renderedWeeks(window:collections:kinds:floatingZone:style:render:begin:write:)``).
    package struct OccurrenceRendering {
        package var style: String
        package var render: (PackedListings) -> [UInt8]
        /// Called once before the first week: what chooses the weeks' entries and the
        /// answer's diagnostics.
        package var begin: (RenderedSelection, [Diagnostic]) -> Void
        /// Called with each week and its first instant (the week valid only during the
        /// call, and holding only the bytes of the entries `begin`'s selection chooses);
        /// false stops.
        package var write: (RenderedWeek, Int64) -> Bool

        package init(style: String, render: @escaping (PackedListings) -> [UInt8],
                     begin: @escaping (RenderedSelection, [Diagnostic]) -> Void, write: @escaping (RenderedWeek, Int64) -> Bool) {
            self.style = style
            self.render = render
            self.begin = begin
            self.write = write
        }
    }

    /// ``occurrencePackedListings(in:calendars:kinds:floatingZone:includingCancelled:)``, or with
    /// a `rendering` the same occurrences as rendered weeks, given to it one at a time, when
    /// the query index has or can make them (see ``StoreIndex/renderedWeeks(window:collections:kinds:floatingZone:style:render:begin:write:)``):
    /// a repeated query then copies each week's bytes. The same access rules and diagnostics.
    package func occurrenceAnswer(in window: Range<Int64>, calendars: [EKCalendar]? = nil,
                                  kinds: Set<ComponentKind> = [.event, .todo, .journal],
                                  floatingZone: any TimeZoneRules, includingCancelled: Bool = false,
                                  rendering: OccurrenceRendering?) -> (answer: OccurrenceAnswer, diagnostics: [Diagnostic]) {
        let (collections, effectiveKinds) = readableCollections(calendars: calendars, kinds: kinds)
        return lock.withLock {
            state.diagnostics = []
            if !includingCancelled, usesIndex, state.items.isEmpty, !effectiveKinds.isEmpty, let index = currentIndex() {
                var begun = false
                do throws(StoreError) {
                    if let rendering {
                        let before = state.diagnostics
                        let rendered = try index.renderedWeeks(window: window, collections: Set(collections), kinds: effectiveKinds,
                                                               floatingZone: floatingZone, style: rendering.style,
                                                               render: rendering.render, begin: { selection, diagnostics in
                            begun = true
                            rendering.begin(selection, before + diagnostics)
                        }, write: rendering.write)
                        if let rendered { return (.rendered, before + rendered.diagnostics) }
                    }
                    if let cached = try index.cachedPackedListings(window: window, collections: Set(collections),
                                                                   kinds: effectiveKinds, floatingZone: floatingZone) {
                        return (.listings(cached.listings), state.diagnostics + cached.diagnostics)
                    }
                } catch {
                    let file = StoreIndex.path(for: index.store)
                    if begun {
                        return (.interrupted, [Diagnostic(.error, .io, line: 0, file: file,
                                                          message: "the occurrence cache could not be read on (\(error.message)); the answer is incomplete")])
                    }
                    state.diagnostics.append(Diagnostic(.warning, .io, line: 0, file: file,
                                                        message: "the occurrence cache could not be used (\(error.message)); the items are read instead"))
                }
            }
            let result = matches(in: window, collections: collections, kinds: effectiveKinds, floatingZone: floatingZone,
                                 includingCancelled: includingCancelled)
            return (.listings(PackedListings(result.matches.map(OccurrenceListing.init))), result.diagnostics)
        }
    }

    /// The collections whose kind the app may read among `calendars`, and the kinds left.
    func readableCollections(calendars: [EKCalendar]?, kinds: Set<ComponentKind>) -> ([String], Set<ComponentKind>) {
        var allowed = Set<EKEntityType>()
        if !kinds.isDisjoint(with: [.event, .journal]) && mayFetch(.event) { allowed.insert(.event) }
        if kinds.contains(.todo) && mayFetch(.reminder) { allowed.insert(.reminder) }
        var effectiveKinds = kinds
        if !allowed.contains(.event) { effectiveKinds.subtract([.event, .journal]) }
        if !allowed.contains(.reminder) { effectiveKinds.remove(.todo) }
        let readable = lock.withLock { allCalendars() }.filter { calendar in
            let type: EKEntityType = calendar.allowedEntityTypes.contains(.event) ? .event : .reminder
            return allowed.contains(type) && (calendars.map { $0.contains(calendar) } ?? true)
        }
        return (readable.map(\.identifier), effectiveKinds)
    }

    /// The query over the collections' candidates (caller holds the lock).
    private func matches(in window: Range<Int64>, collections: [String], kinds: Set<ComponentKind>,
                         floatingZone: any TimeZoneRules, includingCancelled: Bool = false) -> OccurrenceQuery.Result {
        let sources = querySources(in: collections, window: window, kinds: kinds)
        var query = OccurrenceQuery(window: window, floatingZone: floatingZone, kinds: kinds)
        query.includesCancelled = includingCancelled
        var result = query.run(sources)
        result.diagnostics = state.diagnostics + result.diagnostics
        return result
    }

    /// The items a window query reads, as sources named `collection/item.ics` (caller holds
    /// the lock).
    func querySources(in collections: [String], window: Range<Int64>, kinds: Set<ComponentKind>) -> [OccurrenceQuery.Source] {
        itemsForQuery(in: collections, window: window, kinds: kinds).map {
            OccurrenceQuery.Source(calendar: $0.calendar, name: $0.key.description)
        }
    }

    // MARK: Defaults

    /// Makes `calendar` the default for new items of its kind (store.json). Needs full access.
    public func setDefaultCalendar(_ calendar: EKCalendar) throws {
        let type: EKEntityType = calendar.allowedEntityTypes.contains(.event) ? .event : .reminder
        guard level(type) == .full else { throw notAuthorized(type, "changing the default calendar") }
        let backend = try requireBackend()
        var batch = Batch()
        if type == .event { batch.setDefaults(eventCalendar: calendar.identifier) } else { batch.setDefaults(reminderList: calendar.identifier) }
        do { _ = try backend.commit(batch) } catch { throw EKError(storeError: error) }
        postChanged(alsoToOthers: true)
    }

    /// The app's level for an entity type, as the store enforces it: `none`, `writeOnly` or
    /// `full` (an app built for an older SDK reads `.authorized` for both of the latter).
    public func accessLevelDescription(for entityType: EKEntityType) -> String {
        level(entityType).description
    }
}

    /// The collection each kind of an import goes to (looked up once per import:
    /// ``importCollection(for:uid:into:)`` for the first item of each kind), and which of
    /// the import's files are there already. Caller holds the lock.
    ///
    /// Over a store folder each name is looked up by itself (one `lstat`), so that an
    /// import's memory does not grow with the items already in the store; over the broker,
    /// which answers listings rather than single files, the collection is listed once.
    struct ImportTargets {
        let store: EKEventStore
        let calendar: EKCalendar?
        let backend: (any StoreBackend)?
        private var targets: [EKEntityType: String] = [:]
        /// The listed files of each target collection (over the broker only).
        private var files: [String: [String: FileIdentity]] = [:]

        init(store: EKEventStore, calendar: EKCalendar?, backend: (any StoreBackend)?) {
            self.store = store
            self.calendar = calendar
            self.backend = backend
        }

        /// The collection an item of `entityType` goes to.
        mutating func collection(for entityType: EKEntityType, uid: String) throws(EKError) -> String {
            if let known = targets[entityType] { return known }
            let identifier = try store.importCollection(for: entityType, uid: uid, into: calendar)
            targets[entityType] = identifier
            if backend?.folder == nil, files[identifier] == nil {
                let items = (try? backend?.items(in: identifier)) ?? []
                files[identifier] = Dictionary(items.map { ($0.name, $0.identity) }, uniquingKeysWith: { first, _ in first })
            }
            return identifier
        }

        /// The identity of the file already named `name` in a collection ``collection(for:uid:)``
        /// returned, or nil.
        func existing(_ name: String, in collection: String) -> FileIdentity? {
            if let folder = backend?.folder {
                // A name that cannot be examined counts as absent: the commit checks it again.
                return (try? StoreSystem.identity(folder.root + "/" + collection + "/" + name)) ?? nil
            }
            return files[collection]?[name]
        }
    }

extension EKEventStore {
    /// The collection an import puts an item of this kind into: the chosen calendar, else the
    /// default one (under write-only access the virtual calendar of the app's events); to-dos
    /// go to the default reminder list when the chosen calendar takes only events. Caller
    /// holds the lock.
    func importCollection(for entityType: EKEntityType, uid: String, into calendar: EKCalendar?) throws(EKError) -> String {
        let fallback = entityType == .event
            ? (level(.event) == .writeOnly ? virtualCalendar() : defaultCalendar(for: .event))
            : defaultCalendar(for: .reminder)
        let target: EKCalendar
        if let calendar, calendar.allowedEntityTypes.contains(entityType.mask) {
            target = calendar
        } else if let calendar, entityType == .event {
            throw EKError(.calendarDoesNotAllowEvents, "calendar '\(calendar.titleValue)' takes no events (UID \(uid))")
        } else if let fallback {
            target = fallback   // to-dos go to the default reminder list when the calendar takes events
        } else {
            throw EKError(.noCalendar, "the store has no calendar for \(entityType == .reminder ? "reminders" : "events")")
        }
        return try targetCollection(for: target, entityType: entityType)
    }
}
