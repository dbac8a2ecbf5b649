import Foundation
import ICalKit
import Synchronization

/// The predicate ``EKEventStore/predicateForEvents(withStart:end:calendars:)`` makes: a
/// window and calendars, bound to the store that made it.
final class EKEventPredicate: NSPredicate {
    let store: EKEventStore
    let start: Date
    let end: Date
    let calendarIdentifiers: [String]?

    init(store: EKEventStore, start: Date, end: Date, calendarIdentifiers: [String]?) {
        self.store = store
        self.start = start
        self.end = end
        self.calendarIdentifiers = calendarIdentifiers
        super.init(value: true)
    }

    override var predicateFormat: String {
        "events from \(start) to \(end) in \(calendarIdentifiers.map { $0.joined(separator: ", ") } ?? "all calendars")"
    }
}

/// The predicate the reminder factories make.
final class EKReminderPredicate: NSPredicate {
    // Immutable after creation.
    enum Kind { case all, incomplete, completed }
    let store: EKEventStore
    let kind: Kind
    let start: Date?
    let end: Date?
    let calendarIdentifiers: [String]?

    init(store: EKEventStore, kind: Kind, start: Date?, end: Date?, calendarIdentifiers: [String]?) {
        self.store = store
        self.kind = kind
        self.start = start
        self.end = end
        self.calendarIdentifiers = calendarIdentifiers
        super.init(value: true)
    }

    override var predicateFormat: String { "reminders (\(kind))" }
}

/// The token ``EKEventStore/fetchReminders(matching:completion:)`` returns.
final class ReminderFetchRequest: NSObject, Sendable {
    let cancelled = Atomic<Bool>(false)
}

extension EKEventStore {
    /// The longest window a predicate covers: EventKit silently cuts longer ranges to their
    /// first four years, and so does this store.
    public static let maximumPredicateSpan: TimeInterval = 4 * 365.25 * 86_400

    // MARK: Events

    /// A predicate for the occurrences that overlap `[startDate, endDate)` in `calendars`
    /// (nil: every event calendar). An occurrence matches when it starts before `endDate` and
    /// ends after `startDate` (an instant one when it starts in the window). A window longer
    /// than four years is cut to its first four years, as in EventKit.
    public func predicateForEvents(withStart startDate: Date, end endDate: Date, calendars: [EKCalendar]?) -> NSPredicate {
        let end = min(endDate, startDate.addingTimeInterval(Self.maximumPredicateSpan))
        return EKEventPredicate(store: self, start: startDate, end: end, calendarIdentifiers: calendars?.map(\.calendarIdentifier))
    }

    /// Every occurrence matching a predicate from this store, one `EKEvent` each, in start
    /// order (EventKit promises no order; sort with ``EKEvent/compareStartDate(with:)``).
    /// Empty without full access; under write-only access the first fetch may show the
    /// upgrade prompt (TN3153). Pending saves are included.
    public func events(matching predicate: NSPredicate) -> [EKEvent] {
        var result: [EKEvent] = []
        enumerateEvents(matching: predicate) { event, _ in result.append(event) }
        return result
    }

    /// Calls `block` with each occurrence matching the predicate, in start order, until the
    /// block sets its stop flag.
    public func enumerateEvents(matching predicate: NSPredicate, using block: EKEventSearchCallback) {
        guard let predicate = predicate as? EKEventPredicate, predicate.store === self else {
            preconditionFailure("the predicate was not made by this event store's predicateForEvents(withStart:end:calendars:)")
        }
        guard mayFetch(.event) else { return }
        let events = lock.withLock { occurrences(predicate) }
        var stop = ObjCBool(false)
        for event in events {
            block(event, &stop)
            if stop.boolValue { break }
        }
    }

    private func occurrences(_ predicate: EKEventPredicate) -> [EKEvent] {
        state.diagnostics = []
        let calendars = allCalendars().filter { calendar in
            calendar.allowedEntityTypes.contains(.event)
                && (predicate.calendarIdentifiers.map { $0.contains(calendar.identifier) } ?? true)
        }
        var origins: [String: (ItemOrigin, EKCalendar)] = [:]
        var sources: [OccurrenceQuery.Source] = []
        let window = ItemTime.instant(predicate.start)..<max(ItemTime.instant(predicate.start), ItemTime.instant(predicate.end.addingTimeInterval(0.999)))
        if let events = cachedOccurrences(window: window, calendars: calendars) { return events }
        let byIdentifier = Dictionary(uniqueKeysWithValues: calendars.map { ($0.identifier, $0) })
        // Over the broker: the last answer again when the broker's token says nothing changed.
        let zoneName = ItemTime.defaultZone().identifier
        let brokerToken = state.isEmpty ? (backend as? BrokerBackend)?.queryToken() : nil
        if let brokerToken, let answer = brokerAnswer, answer.token == brokerToken, answer.window == window,
           answer.zone == zoneName, answer.calendars == calendars.map(\.identifier) {
            return answer.events.compactMap { made in
                byIdentifier[made.calendar].map { EKEvent(eventStore: self, component: made.component, origin: made.origin, calendar: $0, slot: made.slot) }
            }
        }
        for origin in itemsForQuery(in: calendars.map(\.identifier), window: window, kinds: [.event]) {
            guard let calendar = byIdentifier[origin.key.collection] else { continue }
            let name = origin.key.description
            origins[name] = (origin, calendar)
            sources.append(OccurrenceQuery.Source(calendar: origin.calendar, name: name))
        }
        let query = OccurrenceQuery(window: window, floatingZone: ItemTime.defaultZone(), kinds: [.event])
        let result = query.run(sources)
        state.diagnostics += result.diagnostics
        var made: [BrokerAnswer.Made] = []
        let events: [EKEvent] = result.matches.compactMap { match in
            guard let name = match.source, let (origin, calendar) = origins[name] else { return nil }
            let occurrence = match.occurrence
            let slot = match.isRecurring
                ? OccurrenceSlot(recurrenceIdentifier: occurrence.recurrenceIdentifier,
                                 isOverride: occurrence.isOverride && occurrence.component.recurrenceIdentifier != nil)
                : nil
            let component = match.isRecurring ? Self.workingComponent(occurrence) : occurrence.component
            if brokerToken != nil { made.append(.init(component: component, origin: origin, calendar: calendar.identifier, slot: slot)) }
            return EKEvent(eventStore: self, component: component, origin: origin, calendar: calendar, slot: slot)
        }
        if let brokerToken, result.diagnostics.isEmpty {
            brokerAnswer = BrokerAnswer(token: brokerToken, window: window, zone: zoneName, calendars: calendars.map(\.identifier), events: made)
        }
        return events
    }

    /// The items of `collections` a window query must read (caller holds the lock): with the
    /// query index, only the items whose span can meet the window (and those the pending batch
    /// changes); without it, every item. Both give the same occurrences (QueryIndex article).
    func itemsForQuery(in collections: [String], window: Range<Int64>, kinds: Set<ComponentKind>) -> [ItemOrigin] {
        guard usesIndex, let index = currentIndex() else { return collections.flatMap(readItems) }
        let files: [ItemFile]
        do {
            files = try index.candidates(window: window, collections: Set(collections), kinds: kinds)
        } catch {
            state.diagnostics.append(Diagnostic(.warning, .io, line: 0, file: StoreIndex.path(for: index.store),
                                                message: "the query index could not be read (\(error.message)); every item is read instead"))
            return collections.flatMap(readItems)
        }
        var keys = files.map { ItemKey(collection: $0.collection, name: $0.name) }
        var seen = Set(keys)
        let wanted = Set(collections)
        for key in state.itemOrder where wanted.contains(key.collection) && !seen.contains(key) {
            keys.append(key)
            seen.insert(key)
        }
        var result: [ItemOrigin] = []
        for key in keys {
            if let staged = state.items[key] {
                if let content = staged.content {
                    let identity: FileIdentity? = if case .identity(let identity) = staged.expecting { identity } else { nil }
                    result.append(ItemOrigin(key: key, identity: identity, calendar: content))
                }
                continue
            }
            guard let backend else { continue }
            do {
                let read = try backend.readItem(in: key.collection, name: key.name)
                state.diagnostics += read.diagnostics
                if let item = read.item { result.append(ItemOrigin(key: key, identity: item.file.identity, calendar: item.calendar)) }
            } catch {
                continue   // removed since the index was refreshed
            }
        }
        return result
    }

    /// The query index, opened on first use and refreshed when it may be stale; nil when the
    /// store cannot be listed (queries then read every item).
    func currentIndex() -> StoreIndex? {
        guard let backend = backend?.folder else { return nil }
        if let queryIndex, !indexIsStale { return queryIndex }
        let scan: StoreIndex.Scan = indexNeedsFullScan ? .everyFile : indexScan
        do {
            if let queryIndex {
                queryIndex.memoryBudget = memoryBudget
                let refresh = try queryIndex.refresh(scan: scan)
                noteIndex(refresh.notices, index: queryIndex)
            } else {
                let opened = try StoreIndex.open(store: backend, scan: scan, locking: indexLocking, budget: memoryBudget)
                queryIndex = opened.index
                noteIndex(opened.notices + opened.refresh.notices, index: opened.index)
            }
            indexIsStale = false
            indexNeedsFullScan = false
            return queryIndex
        } catch {
            state.diagnostics.append(Diagnostic(.warning, .io, line: 0, file: StoreIndex.path(for: backend),
                                                message: "the query index is not available (\(error.message)); every item is read instead"))
            return nil
        }
    }

    /// Prepares the store to be left to the process's exit rather than released (a command
    /// that has read what it needs): closes the query index's database, so that SQLite
    /// checkpoints and removes its write-ahead log as when the store is released. Without it
    /// the log stays beside the index, and the next process to open it reads the whole log
    /// again. The store must not be used after.
    package func closeForExit() {
        lock.withLock { queryIndex?.closeDatabase() }
    }

    private func noteIndex(_ notices: [String], index: StoreIndex) {
        for notice in notices {
            state.diagnostics.append(Diagnostic(.warning, .io, line: 0, file: StoreIndex.path(for: index.store), message: notice))
        }
    }

    // MARK: Reminders

    /// A predicate for every reminder in `calendars` (nil: every reminder list).
    public func predicateForReminders(in calendars: [EKCalendar]?) -> NSPredicate {
        EKReminderPredicate(store: self, kind: .all, start: nil, end: nil, calendarIdentifiers: calendars?.map(\.calendarIdentifier))
    }

    /// A predicate for the reminders not completed whose due date is in `[startDate, endDate)`:
    /// a nil start takes everything due before the end, a nil end everything due from the
    /// start; both nil take every incomplete reminder, with or without a due date.
    public func predicateForIncompleteReminders(withDueDateStarting startDate: Date?, ending endDate: Date?,
                                                calendars: [EKCalendar]?) -> NSPredicate {
        EKReminderPredicate(store: self, kind: .incomplete, start: startDate, end: endDate,
                            calendarIdentifiers: calendars?.map(\.calendarIdentifier))
    }

    /// A predicate for the completed reminders whose completion date is in
    /// `[startDate, endDate)`, with the same rules for nil bounds.
    public func predicateForCompletedReminders(withCompletionDateStarting startDate: Date?, ending endDate: Date?,
                                               calendars: [EKCalendar]?) -> NSPredicate {
        EKReminderPredicate(store: self, kind: .completed, start: startDate, end: endDate,
                            calendarIdentifiers: calendars?.map(\.calendarIdentifier))
    }

    /// Fetches the reminders matching a predicate on another queue and calls `completion`
    /// there, unless the fetch is cancelled first. Committed reminders only, as EventKit
    /// documents; an empty array without full access to reminders.
    ///
    /// - Returns: a token for ``cancelFetchRequest(_:)``.
    public func fetchReminders(matching predicate: NSPredicate, completion: @escaping @Sendable ([EKReminder]?) -> Void) -> Any {
        guard let predicate = predicate as? EKReminderPredicate, predicate.store === self else {
            preconditionFailure("the predicate was not made by this event store's reminder predicate factories")
        }
        let request = ReminderFetchRequest()
        nonisolated(unsafe) let reminderPredicate = predicate
        DispatchQueue.global().async {
            guard !request.cancelled.load(ordering: .relaxed) else { return }
            let reminders = self.reminders(matching: reminderPredicate)
            guard !request.cancelled.load(ordering: .relaxed) else { return }
            nonisolated(unsafe) let result = reminders
            completion(result)
        }
        return request
    }

    /// Cancels a reminder fetch: its completion is not called if it has not run yet.
    public func cancelFetchRequest(_ fetchIdentifier: Any) {
        (fetchIdentifier as? ReminderFetchRequest)?.cancelled.store(true, ordering: .relaxed)
    }

    func reminders(matching predicate: EKReminderPredicate) -> [EKReminder] {
        guard mayFetch(.reminder), let backend else { return [] }
        return lock.withLock {
            var result: [EKReminder] = []
            let calendars = allCalendars().filter { calendar in
                calendar.allowedEntityTypes.contains(.reminder)
                    && (predicate.calendarIdentifiers.map { $0.contains(calendar.identifier) } ?? true)
            }
            for calendar in calendars {
                guard let contents = try? backend.readCollection(calendar.identifier) else { continue }
                for item in contents.items {
                    let origin = ItemOrigin(key: ItemKey(collection: calendar.identifier, name: item.file.name),
                                            identity: item.file.identity, calendar: item.calendar)
                    for component in item.components where component.matches(.todo) && component.property(.recurrenceIdentifier) == nil {
                        let reminder = EKReminder(eventStore: self, component: component, origin: origin, calendar: calendar)
                        if matches(reminder, predicate) { result.append(reminder) }
                    }
                }
            }
            return result
        }
    }

    private func matches(_ reminder: EKReminder, _ predicate: EKReminderPredicate) -> Bool {
        func inRange(_ date: Date?) -> Bool {
            if predicate.start == nil && predicate.end == nil { return true }
            guard let date else { return false }
            if let start = predicate.start, date < start { return false }
            if let end = predicate.end, date >= end { return false }
            return true
        }
        switch predicate.kind {
        case .all:
            return true
        case .incomplete:
            guard !reminder.isCompleted else { return false }
            let due = reminder.component.due.map { ItemTime.date(reminder.instant($0)) }
            return inRange(due)
        case .completed:
            guard reminder.isCompleted else { return false }
            return inRange(reminder.completionDate)
        }
    }
}

/// A window query's answer over the broker, kept to answer the same query again while the
/// broker's ``BrokerCall/queryToken`` is unchanged (what the query index's occurrence cache
/// does for a store over its folder): the events' parts, made into new `EKEvent`s each time.
struct BrokerAnswer {
    struct Made {
        var component: Component
        var origin: ItemOrigin
        var calendar: String
        var slot: OccurrenceSlot?
    }
    var token: String
    var window: Range<Int64>
    var zone: String
    var calendars: [String]
    var events: [Made]
}
