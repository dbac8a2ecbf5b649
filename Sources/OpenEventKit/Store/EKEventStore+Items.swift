import Foundation
import ICalKit

extension EKEventStore {
    static let productIdentifier = "-//OpenEventKit//OpenEventKit 1.0//EN"

    // MARK: Looking items up

    /// The event with an ``EKEvent/eventIdentifier``: its first occurrence (the override of
    /// the first slot when there is one, as EventKit does since macOS 13); nil when it is gone
    /// or the app may not read events.
    public func event(withIdentifier identifier: String) -> EKEvent? {
        calendarItem(withIdentifier: identifier) as? EKEvent
    }

    /// A reminder, or the first occurrence of an event, by ``EKCalendarItem/calendarItemIdentifier``.
    public func calendarItem(withIdentifier identifier: String) -> EKCalendarItem? {
        guard let key = Self.itemKey(identifier) else { return nil }
        return lock.withLock { () -> EKCalendarItem? in
            guard let calendar = calendarObject(key.collection) else { return nil }
            let type: EKEntityType = calendar.allowedEntityTypes.contains(.event) ? .event : .reminder
            guard mayFetchUnlockedCheck(type), let origin = readItem(key) else { return nil }
            return firstItem(origin, calendar: calendar)
        }
    }

    /// Every reminder, and the first occurrence of every event, whose UID is `externalIdentifier`,
    /// across the calendars the app may read (one UID may be in several calendars).
    public func calendarItems(withExternalIdentifier externalIdentifier: String) -> [EKCalendarItem] {
        lock.withLock {
            var result: [EKCalendarItem] = []
            let readable = allCalendars().filter { calendar in
                mayFetchUnlockedCheck(calendar.allowedEntityTypes.contains(.event) ? .event : .reminder)
            }
            let byIdentifier = Dictionary(uniqueKeysWithValues: readable.map { ($0.identifier, $0) })
            for origin in itemsWithUID(externalIdentifier, in: readable.map(\.identifier))
            where origin.calendar.components.contains(where: { SeriesEditing.isItem($0) && $0.uid == externalIdentifier }) {
                if let calendar = byIdentifier[origin.key.collection], let item = firstItem(origin, calendar: calendar) {
                    result.append(item)
                }
            }
            return result
        }
    }

    /// The items of `collections` that may hold `uid` (caller holds the lock): the query
    /// index's rows with that UID and the pending batch's items; every item without the index.
    private func itemsWithUID(_ uid: String, in collections: [String]) -> [ItemOrigin] {
        guard usesIndex, let index = currentIndex(), let files = try? index.items(withUID: uid) else {
            return collections.flatMap(readItems)
        }
        let wanted = Set(collections)
        var keys = files.map { ItemKey(collection: $0.collection, name: $0.name) }.filter { wanted.contains($0.collection) }
        keys += state.itemOrder.filter { wanted.contains($0.collection) && !keys.contains($0) }
        return keys.compactMap(readItem)
    }

    /// Whether a fetch may return data (the write-only upgrade prompt is shown outside the
    /// store's lock by the access controller's own gate).
    func mayFetchUnlockedCheck(_ entityType: EKEntityType) -> Bool {
        mayFetch(entityType)
    }

    static func itemKey(_ identifier: String) -> ItemKey? {
        guard let slash = identifier.firstIndex(of: "/") else { return nil }
        let collection = String(identifier[..<slash]), name = String(identifier[identifier.index(after: slash)...])
        guard ItemFileName.isCollectionName(collection), ItemFileName.isItemName(name) else { return nil }
        return ItemKey(collection: collection, name: name)
    }

    /// The item object for a file: a reminder, or the first occurrence of an event.
    func firstItem(_ origin: ItemOrigin, calendar: EKCalendar) -> EKCalendarItem? {
        let components = origin.calendar.components.filter(SeriesEditing.isItem)
        guard let first = components.first(where: { $0.property(.recurrenceIdentifier) == nil }) ?? components.first else { return nil }
        if first.matches(.todo) {
            return EKReminder(eventStore: self, component: first, origin: origin, calendar: calendar)
        }
        guard first.matches(.event) else { return nil }
        let isRecurring = first.property(.recurrenceRule) != nil || first.property(.recurrenceDates) != nil
        guard isRecurring, let start = first.dateTimeStart else {
            return EKEvent(eventStore: self, component: first, origin: origin, calendar: calendar, slot: nil)
        }
        let resolver = TimeZoneResolver.forItem(origin.calendar)
        let instant = resolver.instant(for: start, floatingZone: ItemTime.defaultZone())
        if let uid = first.uid, let index = SeriesEditing.overrideIndex(in: origin.calendar, uid: uid, slotInstant: instant, resolver: resolver) {
            return EKEvent(eventStore: self, component: origin.calendar.components[index], origin: origin, calendar: calendar,
                           slot: OccurrenceSlot(recurrenceIdentifier: start, isOverride: true))
        }
        return EKEvent(eventStore: self, component: first, origin: origin, calendar: calendar,
                       slot: OccurrenceSlot(recurrenceIdentifier: start, isOverride: false))
    }

    // MARK: Saving events

    /// Saves an event and commits at once.
    public func save(_ event: EKEvent, span: EKSpan) throws {
        try save(event, span: span, commit: true)
    }

    /// Saves an event; with `commit: false` the change waits for ``commit()``.
    ///
    /// - A new event becomes a new item file (`calendar/UID.ics`, the name sanitised) holding
    ///   the VEVENT and the VTIMEZONEs it needs.
    /// - An event that does not repeat, or the first occurrence saved with `.futureEvents`,
    ///   changes the item's VEVENT: only the edited properties are replaced.
    /// - An occurrence saved with `.thisEvent` becomes (or updates) an override.
    /// - A later occurrence saved with `.futureEvents` splits the series there (see
    ///   ``SeriesEditing``): the event then stands for the new series, with a new identifier.
    /// - Moving an event to another calendar moves its whole file.
    ///
    /// Under write-only access only new events can be saved; they go to the calendar the user
    /// chose, else the default calendar. Errors: `eventStoreNotAuthorized`, `noCalendar`,
    /// `calendarReadOnly`, `calendarDoesNotAllowEvents`, `noStartDate`, `noEndDate`,
    /// `datesInverted`, `objectBelongsToDifferentStore`, and `internalFailure` when the item's
    /// file changed on disk since it was read (nothing is overwritten).
    public func save(_ event: EKEvent, span: EKSpan, commit: Bool) throws {
        guard event.eventStore === self else { throw EKError(.objectBelongsToDifferentStore, "the event belongs to another event store") }
        switch level(.event) {
        case .none: throw notAuthorized(.event, "saving an event")
        case .writeOnly where !event.isNew:
            throw EKError(.eventStoreNotAuthorized, "write-only access saves new events only; changing a saved event needs full access")
        default: break
        }
        guard let calendar = event.calendar else { throw EKError(.noCalendar, "set the event's calendar (defaultCalendarForNewEvents) before saving it") }
        guard event.component.dateTimeStart != nil else { throw EKError(.noStartDate, "the event has no start date") }
        guard let start = event.startDate, let end = event.endDate else { throw EKError(.noEndDate, "the event has no end date") }
        guard end >= start else { throw EKError(.datesInverted, "the event ends (\(end)) before it starts (\(start))") }
        try restoringOnFailure(event) {
            try performChange(commit: commit) { () throws(EKError) in
                let collection = try targetCollection(for: calendar, entityType: .event)
                try stageSave(event, span: span, into: collection)
            }
        }
    }

    /// Runs a save or remove; when it fails, the object is as it was before (what it was
    /// saved as is rolled back with the store's pending changes).
    func restoringOnFailure(_ item: EKCalendarItem, _ body: () throws -> Void) throws {
        let before = (item.origin, item.component, item.original, item.assignedCalendar, item.originalCalendar,
                      item.isRemoved, (item as? EKEvent)?.slot)
        do {
            try body()
        } catch {
            (item.origin, item.component, item.original, item.assignedCalendar, item.originalCalendar, item.isRemoved) =
                (before.0, before.1, before.2, before.3, before.4, before.5)
            (item as? EKEvent)?.slot = before.6
            item.dropCaches()
            throw error
        }
    }

    /// The collection a save goes to: the calendar's, or for the virtual calendar the one the
    /// user chose, else the default event calendar.
    func targetCollection(for calendar: EKCalendar, entityType: EKEntityType) throws(EKError) -> String {
        _ = try requireBackend()
        var identifier = calendar.identifier
        if calendar.isVirtual {
            // A sandboxed app's broker sends the event where the user chose (the app is not told).
            if backend?.folder == nil { return Self.virtualCalendarIdentifier }
            guard let chosen = writeOnlyTarget ?? defaultCalendar(for: .event)?.identifier else {
                throw EKError(.noCalendar, "the store has no calendar for events")
            }
            identifier = chosen
        }
        guard let target = calendarObject(identifier) else { throw EKError(.noCalendar, "there is no calendar '\(identifier)'") }
        guard target.allowedEntityTypes.contains(entityType.mask) else {
            throw EKError(entityType == .event ? .calendarDoesNotAllowEvents : .calendarDoesNotAllowReminders,
                          "calendar '\(target.titleValue)' takes no \(entityType == .event ? "events" : "reminders")")
        }
        guard target.allowsContentModifications else {
            throw EKError(.calendarReadOnly, "calendar '\(target.titleValue)' is read-only", path: backend.map { $0.root + "/" + identifier })
        }
        return identifier
    }

    /// Stages the file changes of a save (caller holds the lock).
    func stageSave(_ item: EKCalendarItem, span: EKSpan, into collection: String) throws(EKError) {
        let now = DateTime(LocalDateTime(secondsSinceEpoch: ItemTime.instant(Date())), zone: .utc)
        guard let origin = item.origin else {
            var component = item.component
            stamp(&component, now: now, created: true, timingChanged: false)
            let content = newItemCalendar([component])
            let key = ItemKey(collection: collection, name: ItemFileName.forUID(component.uid ?? creationFallbackUID(item)))
            // Over the broker the commit finds a clash instead (its put expects no file): a
            // round trip per new item spared, and a write-only app learns nothing of what
            // the calendar holds.
            if state.items[key] != nil || (backend?.folder != nil && readItem(key) != nil) {
                throw EKError(.internalFailure, "an item with UID '\(component.uid ?? "")' exists already in '\(collection)'")
            }
            stage(key, content: content, expecting: .absent)
            finishSave(item, key: key, content: content, component: component, calendar: collection)
            return
        }
        let key = origin.key
        let expecting: Batch.Expectation = origin.identity.map { .identity($0) } ?? .absent
        guard let base = state.items[key].map({ $0.content }) ?? origin.calendar as Component? else {
            throw EKError(.internalFailure, "the item was removed in this batch", path: key.description)
        }
        let changed = item.changedPropertyNames
        let timingChanged = !changed.isDisjoint(with: SeriesEditing.timingNames.union(SeriesEditing.recurrenceNames))
        let uid = item.component.uid ?? ""
        let resolver = TimeZoneResolver.forItem(base)
        let floating = ItemTime.defaultZone()
        var content = base
        var working = item.component
        stamp(&working, now: now, created: false, timingChanged: timingChanged)
        let event = item as? EKEvent
        let slot = event?.slot
        let slotInstant = slot.map { resolver.instant(for: $0.recurrenceIdentifier, floatingZone: floating) }
        let masterIndex = SeriesEditing.masterIndex(in: base, uid: uid)
        let masterStartInstant = masterIndex.flatMap { base.components[$0].dateTimeStart }.map { resolver.instant(for: $0, floatingZone: floating) }
        let isFirst = slotInstant != nil && slotInstant == masterStartInstant

        if let slot, let slotInstant, span == .futureEvents, !isFirst, masterIndex != nil {
            // Split the series at this occurrence.
            let newUID = Foundation.UUID().uuidString
            guard let split = SeriesEditing.split(base, uid: uid, slot: slot.recurrenceIdentifier, slotInstant: slotInstant,
                                                  edited: working, changed: changed,
                                                  originalStart: item.original.dateTimeStart ?? slot.recurrenceIdentifier,
                                                  newUID: newUID, resolver: resolver) else {
                throw EKError(.invalidSpan, "the occurrence's series could not be found in its file", path: key.description)
            }
            stage(key, content: split.remaining.map(withTimeZones), expecting: expecting)
            let newKey = ItemKey(collection: collection, name: ItemFileName.forUID(newUID))
            let future = withTimeZones(split.future)
            stage(newKey, content: future, expecting: .absent)
            event?.slot = split.futureMaster.dateTimeStart.map { OccurrenceSlot(recurrenceIdentifier: $0, isOverride: false) }
            finishSave(item, key: newKey, content: future, component: split.futureMaster, calendar: collection)
            return
        }

        var saved = working
        if let slot, let slotInstant, span == .thisEvent || (slot.isOverride && !isFirst) {
            // This occurrence only: an override.
            if let index = SeriesEditing.overrideIndex(in: base, uid: uid, slotInstant: slotInstant, resolver: resolver) {
                var override = base.components[index]
                SeriesEditing.apply(changed, from: working, to: &override)
                stamp(&override, now: now, created: false, timingChanged: timingChanged)
                content.components[index] = override
                saved = override
            } else {
                let override = SeriesEditing.override(from: working, recurrenceIdentifier: slot.recurrenceIdentifier)
                let position = content.components.lastIndex { SeriesEditing.isItem($0) && $0.uid == uid }.map { $0 + 1 }
                    ?? content.components.endIndex
                content.components.insert(override, at: position)
                saved = override
            }
            event?.slot = OccurrenceSlot(recurrenceIdentifier: slot.recurrenceIdentifier, isOverride: true)
        } else if let index = masterIndex ?? content.components.firstIndex(where: { SeriesEditing.isItem($0) && $0.uid == uid }) {
            // The whole item (or series from its first occurrence).
            var master = content.components[index]
            var names = changed
            if slot != nil && master.property(.recurrenceIdentifier) == nil { names.remove("RECURRENCE-ID") }
            SeriesEditing.apply(names, from: working, to: &master)
            stamp(&master, now: now, created: false, timingChanged: timingChanged)
            content.components[index] = master
            if let slot, slot.isOverride, let slotInstant,
               let overrideIndex = SeriesEditing.overrideIndex(in: content, uid: uid, slotInstant: slotInstant, resolver: resolver) {
                // The first occurrence had an override: it takes the same edits.
                var override = content.components[overrideIndex]
                SeriesEditing.apply(names.subtracting(SeriesEditing.recurrenceNames), from: working, to: &override)
                content.components[overrideIndex] = override
                saved = override
            } else {
                saved = slot == nil ? master : working
            }
            if let event, slot != nil, let newStart = master.dateTimeStart {
                event.slot = OccurrenceSlot(recurrenceIdentifier: newStart, isOverride: event.slot?.isOverride ?? false)
            }
        } else {
            // The file no longer holds the item: saving re-creates it (EventKit's rule for a
            // deleted event).
            content.components.append(working)
        }
        content = withTimeZones(content)
        if collection != key.collection {
            // Moving calendars moves the whole file.
            stage(key, content: nil, expecting: expecting)
            let newKey = ItemKey(collection: collection, name: key.name)
            if readItem(newKey) != nil { throw EKError(.internalFailure, "calendar '\(collection)' has an item file named '\(key.name)' already") }
            stage(newKey, content: content, expecting: .absent)
            finishSave(item, key: newKey, content: content, component: saved, calendar: collection)
        } else {
            stage(key, content: content, expecting: expecting)
            finishSave(item, key: key, content: content, component: saved, calendar: collection)
        }
    }

    private func creationFallbackUID(_ item: EKCalendarItem) -> String {
        let uid = Foundation.UUID().uuidString
        item.component.uid = uid
        return uid
    }

    /// After staging: the object now stands for what was saved.
    private func finishSave(_ item: EKCalendarItem, key: ItemKey, content: Component, component: Component, calendar collection: String) {
        let identity = state.items[key].flatMap { staged -> FileIdentity? in
            if case .identity(let identity) = staged.expecting { return identity } else { return nil }
        }
        item.origin = ItemOrigin(key: key, identity: identity, calendar: content)
        item.component = component
        item.original = component
        let calendar = item.assignedCalendar?.isVirtual == true ? item.assignedCalendar : calendarObject(collection)
        item.assignedCalendar = calendar
        item.originalCalendar = calendar
        item.isRemoved = false
        item.dropCaches()
        state.objects[ObjectIdentifier(item)] = item
    }

    /// DTSTAMP and LAST-MODIFIED now; CREATED for a new item; SEQUENCE up when the timing changed.
    private func stamp(_ component: inout Component, now: DateTime, created: Bool, timingChanged: Bool) {
        component.dateTimeStamp = now
        var modified = Property(.lastModified, rawValue: "")
        modified.setDateTimeValue(now)
        component.setProperty(modified)
        if created && component.property(.created) == nil {
            var property = Property(.created, rawValue: "")
            property.setDateTimeValue(now)
            component.setProperty(property)
        }
        if timingChanged, let sequence = component.sequence { component.sequence = sequence + 1 }
    }

    /// A new item's VCALENDAR.
    func newItemCalendar(_ components: [Component]) -> Component {
        var calendar = Component.calendar(productIdentifier: Self.productIdentifier)
        calendar.components = components
        return withTimeZones(calendar)
    }

    /// The VCALENDAR with a VTIMEZONE (from tzdata) for every TZID it uses and does not define.
    func withTimeZones(_ calendar: Component) -> Component {
        let missing = TimeZoneExport.timeZones(neededBy: [calendar])
        guard !missing.isEmpty else { return calendar }
        var result = calendar
        let position = result.components.lastIndex { $0.matches(.timeZone) }.map { $0 + 1 } ?? 0
        result.components.insert(contentsOf: missing, at: position)
        return result
    }

    // MARK: Removing events

    /// Removes an event and commits at once.
    public func remove(_ event: EKEvent, span: EKSpan) throws {
        try remove(event, span: span, commit: true)
    }

    /// Removes an event; with `commit: false` the change waits for ``commit()``.
    ///
    /// An event that does not repeat, or a series removed with `.futureEvents` from its first
    /// occurrence, loses its file. An occurrence removed with `.thisEvent` gets an EXDATE in
    /// its series (and its override is dropped); a later occurrence removed with
    /// `.futureEvents` ends the series just before it. Needs full access: write-only apps
    /// cannot remove events.
    public func remove(_ event: EKEvent, span: EKSpan, commit: Bool) throws {
        guard event.eventStore === self else { throw EKError(.objectBelongsToDifferentStore, "the event belongs to another event store") }
        guard level(.event) == .full else {
            throw level(.event) == .writeOnly
                ? EKError(.eventStoreNotAuthorized, "write-only access cannot remove events; removing needs full access")
                : notAuthorized(.event, "removing an event")
        }
        try restoringOnFailure(event) {
            try performChange(commit: commit) { () throws(EKError) in
                try stageRemove(event, span: span)
            }
        }
    }

    private func stageRemove(_ item: EKCalendarItem, span: EKSpan) throws(EKError) {
        _ = try requireBackend()
        guard let origin = item.origin else { return }
        let key = origin.key
        let expecting: Batch.Expectation = origin.identity.map { .identity($0) } ?? .absent
        guard let base = state.items[key].map({ $0.content }) ?? origin.calendar as Component? else { return }
        let uid = item.component.uid ?? ""
        let resolver = TimeZoneResolver.forItem(base)
        let floating = ItemTime.defaultZone()
        let slot = (item as? EKEvent)?.slot
        let masterIndex = SeriesEditing.masterIndex(in: base, uid: uid)
        guard let slot else {
            stage(key, content: nil, expecting: expecting)
            markRemoved(item)
            return
        }
        let slotInstant = resolver.instant(for: slot.recurrenceIdentifier, floatingZone: floating)
        let masterStart = masterIndex.flatMap { base.components[$0].dateTimeStart }.map { resolver.instant(for: $0, floatingZone: floating) }
        var content = base
        if span == .futureEvents {
            if masterStart == nil || slotInstant <= masterStart! {
                stage(key, content: nil, expecting: expecting)
                markRemoved(item)
                return
            }
            var master = content.components[masterIndex!]
            SeriesEditing.truncate(&master, before: slot.recurrenceIdentifier, slotInstant: slotInstant, resolver: resolver)
            content.components[masterIndex!] = master
            content.components.removeAll { component in
                guard SeriesEditing.isItem(component), component.uid == uid, let rid = component.recurrenceIdentifier else { return false }
                return resolver.instant(for: rid, floatingZone: floating) >= slotInstant
            }
        } else {
            if let index = SeriesEditing.overrideIndex(in: content, uid: uid, slotInstant: slotInstant, resolver: resolver) {
                content.components.remove(at: index)
            }
            if let index = SeriesEditing.masterIndex(in: content, uid: uid) {
                SeriesEditing.exclude(slot.recurrenceIdentifier, from: &content.components[index])
            }
        }
        if !content.components.contains(where: SeriesEditing.isItem) {
            stage(key, content: nil, expecting: expecting)
        } else {
            stage(key, content: content, expecting: expecting)
            item.origin?.calendar = content
        }
        markRemoved(item)
    }

    private func markRemoved(_ item: EKCalendarItem) {
        item.isRemoved = true
        state.objects[ObjectIdentifier(item)] = item
    }

    // MARK: Reminders

    /// Saves a reminder; with `commit: false` the change waits for ``commit()``. Needs full
    /// access to reminders. Errors: `noCalendar`, `calendarDoesNotAllowReminders`,
    /// `priorityIsInvalid` (outside 0–9), `recurringReminderRequiresDueDate`.
    public func save(_ reminder: EKReminder, commit: Bool) throws {
        guard reminder.eventStore === self else { throw EKError(.objectBelongsToDifferentStore, "the reminder belongs to another event store") }
        guard level(.reminder) == .full else { throw notAuthorized(.reminder, "saving a reminder") }
        guard let calendar = reminder.calendar else { throw EKError(.noCalendar, "set the reminder's calendar (defaultCalendarForNewReminders()) before saving it") }
        guard (0...9).contains(reminder.priority) else { throw EKError(.priorityIsInvalid, "priority \(reminder.priority) is not 0–9") }
        if reminder.component.property(.recurrenceRule) != nil && reminder.component.due == nil {
            throw EKError(.recurringReminderRequiresDueDate, "a recurring reminder needs a due date")
        }
        try restoringOnFailure(reminder) {
            try performChange(commit: commit) { () throws(EKError) in
                let collection = try targetCollection(for: calendar, entityType: .reminder)
                try stageSave(reminder, span: .futureEvents, into: collection)
            }
        }
    }

    /// Removes a reminder (its file); with `commit: false` the change waits for ``commit()``.
    public func remove(_ reminder: EKReminder, commit: Bool) throws {
        guard reminder.eventStore === self else { throw EKError(.objectBelongsToDifferentStore, "the reminder belongs to another event store") }
        guard level(.reminder) == .full else { throw notAuthorized(.reminder, "removing a reminder") }
        try restoringOnFailure(reminder) {
            try performChange(commit: commit) { () throws(EKError) in
                try stageRemove(reminder, span: .futureEvents)
            }
        }
    }

    // MARK: Reloading objects

    /// Reloads an item from its file: `keepingEdits` re-applies the object's unsaved edits on
    /// top (``EKObject/refresh()``), otherwise they are dropped (``EKObject/reset()``).
    /// False when the item is gone.
    func reload(_ item: EKCalendarItem, keepingEdits: Bool) -> Bool {
        lock.withLock {
            guard let origin = item.origin, let fresh = readItem(origin.key), let uid = item.component.uid else { return false }
            let resolver = TimeZoneResolver.forItem(fresh.calendar)
            var component: Component?
            if let event = item as? EKEvent, let slot = event.slot {
                let instant = resolver.instant(for: slot.recurrenceIdentifier, floatingZone: ItemTime.defaultZone())
                if let index = SeriesEditing.overrideIndex(in: fresh.calendar, uid: uid, slotInstant: instant, resolver: resolver) {
                    component = fresh.calendar.components[index]
                    event.slot?.isOverride = true
                } else if let index = SeriesEditing.masterIndex(in: fresh.calendar, uid: uid) {
                    component = occurrenceComponent(master: fresh.calendar.components[index], slotInstant: instant, calendar: fresh.calendar)
                    event.slot?.isOverride = false
                }
            } else {
                component = fresh.calendar.components.first { SeriesEditing.isItem($0) && $0.uid == uid && $0.property(.recurrenceIdentifier) == nil }
                    ?? fresh.calendar.components.first { SeriesEditing.isItem($0) && $0.uid == uid }
            }
            guard let component else { return false }
            var updated = component
            if keepingEdits { SeriesEditing.apply(item.changedPropertyNames, from: item.component, to: &updated) }
            item.origin = fresh
            item.original = component
            item.component = updated
            item.dropCaches()
            return true
        }
    }

    /// The component of the occurrence of `master`'s series whose slot is at `slotInstant`.
    func occurrenceComponent(master: Component, slotInstant: Int64, calendar: Component) -> Component? {
        let resolver = TimeZoneResolver.forItem(calendar)
        let set = RecurrenceSet(components: [master], zoneLookup: { resolver.resolve($0)?.rules })
        let floating = ItemTime.defaultZone()
        let expansion = set.expand(in: (slotInstant - 1)..<(slotInstant + 1), floatingZone: floating)
        guard let occurrence = expansion.occurrences.first(where: {
            resolver.instant(for: $0.recurrenceIdentifier, floatingZone: floating) == slotInstant
        }) else { return nil }
        return Self.workingComponent(occurrence)
    }

    /// The component an occurrence's ``EKEvent`` edits: its override, or the series' VEVENT
    /// with this occurrence's start and end.
    static func workingComponent(_ occurrence: Occurrence) -> Component {
        var component = occurrence.component
        if occurrence.isOverride, component.recurrenceIdentifier != nil { return component }
        component.dateTimeStart = occurrence.start
        if component.dateTimeEnd != nil { component.dateTimeEnd = occurrence.end }
        return component
    }
}
