import Foundation
import ICalKit

/// Where a saved item lives: its file, the identity of the bytes that were read, and the
/// whole VCALENDAR the file holds (its time zones, its other components).
///
/// A value with one reference-counted box inside, copied on write: the events of one item
/// (every occurrence a fetch returns) share their origin's storage, so making or freeing an
/// event retains or releases one object instead of each of the origin's strings and arrays,
/// and an event whose origin changes (a save, a refresh) gets a box of its own first.
struct ItemOrigin {
    private final class Storage {
        var key: ItemKey
        var identity: FileIdentity?
        var calendar: Component

        init(key: ItemKey, identity: FileIdentity?, calendar: Component) {
            self.key = key
            self.identity = identity
            self.calendar = calendar
        }
    }

    private var storage: Storage

    init(key: ItemKey, identity: FileIdentity?, calendar: Component) {
        storage = Storage(key: key, identity: identity, calendar: calendar)
    }

    /// The item's file.
    var key: ItemKey {
        get { storage.key }
        set { uniqueStorage().key = newValue }
    }

    /// The identity read from disk; nil for a file that only exists in the pending batch.
    var identity: FileIdentity? {
        get { storage.identity }
        set { uniqueStorage().identity = newValue }
    }

    /// The file's VCALENDAR.
    var calendar: Component {
        get { storage.calendar }
        set { uniqueStorage().calendar = newValue }
    }

    /// The storage, copied first when another origin shares it.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(key: storage.key, identity: storage.identity, calendar: storage.calendar)
        }
        return storage
    }
}

/// What a calendar item stands for in the store: its component as fetched (or as last saved
/// or reloaded), its file, and for an occurrence of a series its slot.
///
/// Immutable, so it is shared by reference: the events one fetch makes of the same occurrence
/// (each call of ``EKEventStore/events(matching:)`` makes new ones) share the fetched state
/// the store keeps for it, and making or freeing such an event retains or releases this one
/// object. An item whose fetched state changes (a save, a reload) gets a new one; its local
/// edits are its own (``EKCalendarItem/component``).
final class FetchedItem {
    let component: Component
    let origin: ItemOrigin?
    let slot: OccurrenceSlot?

    init(component: Component, origin: ItemOrigin?, slot: OccurrenceSlot?) {
        self.component = component
        self.origin = origin
        self.slot = slot
    }

    /// A copy with another component, origin or slot.
    func with(component: Component? = nil, origin: ItemOrigin?? = .none, slot: OccurrenceSlot?? = .none) -> FetchedItem {
        FetchedItem(component: component ?? self.component, origin: origin ?? self.origin, slot: slot ?? self.slot)
    }
}

/// The abstract base of ``EKEvent`` and ``EKReminder``: what every calendar item has.
///
/// An item wraps its iCalendar component (a VEVENT or VTODO). Reading a property decodes it
/// from the component; setting one changes only that property, so everything EventKit cannot
/// express (a second RRULE, RDATEs, ATTACH, X- properties and parameters) is written back as
/// it was read.
public class EKCalendarItem: EKObject {
    /// The store the item belongs to (package: EventKitUI checks that an event it is given
    /// belongs to the editor's store).
    package let eventStore: EKEventStore
    /// What the item was fetched, saved or reloaded as (shared, immutable).
    var fetched: FetchedItem
    /// The working copy of the component once it was set or edited (nil: the fetched one).
    private var edited: Component?

    /// The file the item was read from, nil for a new item.
    var origin: ItemOrigin? {
        get { fetched.origin }
        set { fetched = fetched.with(origin: .some(newValue)) }
    }

    /// The working copy of the component, with local edits (package: the EventKitUI
    /// helpers pass a proposed event between processes as iCalendar text).
    package var component: Component {
        _read {
            if edited != nil { yield edited! } else { yield fetched.component }
        }
        _modify {
            if edited == nil { edited = fetched.component }
            yield &edited!
        }
    }

    /// The component as fetched or created, for `rollback()` and change detection. Setting
    /// it leaves the working copy as it is.
    var original: Component {
        get { fetched.component }
        set {
            if edited == nil { edited = fetched.component }
            fetched = fetched.with(component: newValue)
        }
    }

    var assignedCalendar: EKCalendar?
    var originalCalendar: EKCalendar?
    /// The identifier a new item has until it is saved: made when first asked for (a fetched
    /// item, which has its file's identifier, never needs one), then kept.
    private(set) lazy var creationIdentifier = Foundation.UUID().uuidString
    var alarmObjects: [EKAlarm]?
    var ruleObjects: [EKRecurrenceRule]?
    /// The resolver of the item's time zones, once made (boxed: most items never need one,
    /// and the box keeps the object small).
    private var cachedResolver: ResolverBox?
    /// The zone set before the item had dates: new dates are written in it (nil: floating).
    var preferredTimeZone: TimeZone?? = .none
    /// Set when the item was removed from the store through this object.
    var isRemoved = false

    init(eventStore: EKEventStore, component: Component, origin: ItemOrigin?, calendar: EKCalendar?) {
        self.eventStore = eventStore
        self.fetched = FetchedItem(component: component, origin: origin, slot: nil)
        self.assignedCalendar = calendar
        self.originalCalendar = origin == nil ? nil : calendar
        super.init()
    }

    /// An item for fetched state that others may share.
    init(eventStore: EKEventStore, fetched: FetchedItem, calendar: EKCalendar?) {
        self.eventStore = eventStore
        self.fetched = fetched
        self.assignedCalendar = calendar
        self.originalCalendar = fetched.origin == nil ? nil : calendar
        super.init()
    }

    // MARK: Identity

    /// The item's local identifier: `calendar/file.ics` once saved (the item's file in the
    /// store), a UUID before. Look it up with ``EKEventStore/calendarItem(withIdentifier:)``.
    public var calendarItemIdentifier: String {
        origin.map { $0.key.collection + "/" + $0.key.name } ?? creationIdentifier
    }

    /// The iCalendar UID, shared by every occurrence of a series and by copies of the item
    /// in other calendars.
    public var calendarItemExternalIdentifier: String! {
        component.uid
    }

    /// Deprecated alias of ``calendarItemIdentifier``.
    @available(*, deprecated, renamed: "calendarItemIdentifier")
    public var UUID: String { calendarItemIdentifier }

    // MARK: Calendar

    /// The calendar the item belongs to; nil for a new item until it is set.
    public var calendar: EKCalendar! {
        get { assignedCalendar }
        set { assignedCalendar = newValue }
    }

    // MARK: Text

    /// The title (SUMMARY); an empty string for a new item.
    public var title: String! {
        get { component.summary ?? "" }
        set { component.summary = newValue?.isEmpty == false ? newValue : nil }
    }

    /// The location as text (LOCATION).
    public var location: String? {
        get { component.location }
        set { component.location = newValue?.isEmpty == false ? newValue : nil }
    }

    /// The notes (DESCRIPTION).
    public var notes: String? {
        get { component.descriptionText }
        set { component.descriptionText = newValue?.isEmpty == false ? newValue : nil }
    }

    /// Whether the item has notes.
    public var hasNotes: Bool { notes?.isEmpty == false }

    /// The URL (URL).
    public var url: URL? {
        get { component.property(.url).flatMap { URL(string: String($0.rawValue)) } }
        set {
            if let newValue {
                component.setProperty(Property(.url, rawValue: newValue.absoluteString))
            } else {
                component.removeProperties(.url)
            }
        }
    }

    /// When the item was created (CREATED).
    public var creationDate: Date? { utcDate(.created) }

    /// When the item was last modified (LAST-MODIFIED).
    public var lastModifiedDate: Date? { utcDate(.lastModified) }

    private func utcDate(_ kind: PropertyKind) -> Date? {
        component.property(kind)?.dateTimeValue.map { ItemTime.date(resolver.instant(for: $0, floatingZone: FixedOffsetZone.utc)) }
    }

    // MARK: Time zone

    var resolver: TimeZoneResolver {
        if let cachedResolver { return cachedResolver.resolver }
        let resolver = TimeZoneResolver.forItem(origin?.calendar)
        cachedResolver = ResolverBox(resolver: resolver)
        return resolver
    }

    private final class ResolverBox {
        let resolver: TimeZoneResolver
        init(resolver: TimeZoneResolver) { self.resolver = resolver }
    }

    func resetResolver() { cachedResolver = nil }

    /// The property the item's time zone is read from (DTSTART, or DUE for a reminder without one).
    var timeProperty: PropertyKind { .dateTimeStart }

    /// The instant a value names (floating values and dates read in the default time zone).
    func instant(_ value: DateTime) -> Int64 {
        resolver.instant(for: value, floatingZone: ItemTime.defaultZone())
    }

    /// The item's time zone; nil means floating (a wall-clock time read in whatever zone the
    /// device is in), which is also what all-day items report.
    ///
    /// Setting it keeps the absolute instants of the item's dates and rewrites their wall-clock
    /// times in the new zone, as EventKit does since macOS 13 (TN3130).
    public var timeZone: TimeZone? {
        get {
            guard let value = component.property(timeProperty)?.dateTimeValue ?? component.dateTimeStart ?? component.due else {
                return preferredTimeZone ?? TimeZone.current
            }
            guard !value.isDate else { return nil }
            switch value.zone {
            case .floating: return nil
            case .utc: return TimeZone(identifier: "UTC")
            case .identifier(let tzid):
                return ItemTime.foundationZone(resolver.resolve(tzid), at: instant(value)) ?? TimeZone(identifier: tzid)
            }
        }
        set {
            preferredTimeZone = .some(newValue)
            for kind in [PropertyKind.dateTimeStart, .dateTimeEnd, .dateTimeDue] {
                guard let value = component.property(kind)?.dateTimeValue, !value.isDate else { continue }
                let converted = ItemTime.dateTime(ItemTime.date(instant(value)), zone: newValue, allDay: false)
                setDateTime(kind, converted)
            }
        }
    }

    func setDateTime(_ kind: PropertyKind, _ value: DateTime?) {
        switch kind {
        case .dateTimeStart: component.dateTimeStart = value
        case .dateTimeEnd: component.dateTimeEnd = value
        case .dateTimeDue: component.due = value
        default:
            if let value {
                var property = component.property(kind) ?? Property(kind, rawValue: "")
                property.setDateTimeValue(value)
                component.setProperty(property)
            } else {
                component.removeProperties(kind)
            }
        }
    }

    // MARK: Attendees

    /// The addresses that are the user in the item's calendar, for
    /// ``EKParticipant/isCurrentUser`` (``EKEventStore/currentUserAddresses(inCollection:)``).
    var currentUserAddresses: Set<String> {
        eventStore.currentUserAddresses(inCollection: origin?.key.collection ?? assignedCalendar?.calendarIdentifier)
    }

    /// Whether the item has attendees.
    public var hasAttendees: Bool { !component.properties(.attendee).isEmpty }

    /// The attendees (ATTENDEE), read-only as in EventKit; nil when there are none.
    public var attendees: [EKParticipant]? {
        let list = component.attendees.map { EKParticipant($0, isOrganizer: false, currentUserAddresses: currentUserAddresses) }
        return list.isEmpty ? nil : list
    }

    // MARK: Alarms

    /// Whether the item has alarms.
    public var hasAlarms: Bool { !component.components(.alarm).isEmpty }

    /// The alarms (VALARM components); nil when there are none. Setting replaces them all;
    /// editing an alarm in the array edits the item.
    public var alarms: [EKAlarm]? {
        get {
            if alarmObjects == nil {
                alarmObjects = component.components(.alarm).map(adopt)
            }
            return alarmObjects!.isEmpty ? nil : alarmObjects
        }
        set {
            alarmObjects = (newValue ?? []).map { alarm in
                let copy = alarm.ownerDidChange == nil ? alarm : (alarm.copy() as! EKAlarm)
                return adoptObject(copy)
            }
            writeAlarms()
        }
    }

    /// Adds an alarm.
    public func addAlarm(_ alarm: EKAlarm) {
        var list = alarms ?? []
        list.append(alarm)
        alarms = list
    }

    /// Removes an alarm (the same object, or one equal to it).
    public func removeAlarm(_ alarm: EKAlarm) {
        var list = alarms ?? []
        if let index = list.firstIndex(where: { $0 === alarm }) ?? list.firstIndex(where: { $0.component == alarm.component }) {
            list.remove(at: index)
        }
        alarms = list
    }

    private func adopt(_ component: Component) -> EKAlarm {
        adoptObject(EKAlarm(component: component))
    }

    private func adoptObject(_ alarm: EKAlarm) -> EKAlarm {
        alarm.ownerDidChange = { [weak self] in self?.writeAlarms() }
        return alarm
    }

    private func writeAlarms() {
        guard let alarmObjects else { return }
        let alarms = alarmObjects.map(\.component)
        var subcomponents: [Component] = []
        var inserted = false
        for child in component.components {
            if child.matches(.alarm) {
                if !inserted { subcomponents += alarms; inserted = true }
            } else {
                subcomponents.append(child)
            }
        }
        if !inserted { subcomponents += alarms }
        component.components = subcomponents
    }

    // MARK: Recurrence

    /// The DTSTART recurrence rules are written against.
    var recurrenceStart: DateTime? { component.dateTimeStart ?? component.due }

    var recurrenceZone: (any TimeZoneRules)? {
        guard let start = recurrenceStart else { return nil }
        switch start.zone {
        case .identifier(let tzid): return resolver.resolve(tzid)?.rules
        case .utc: return FixedOffsetZone.utc
        case .floating: return ItemTime.defaultZone()
        }
    }

    /// Whether the item has a recurrence rule.
    public var hasRecurrenceRules: Bool { !(recurrenceRules ?? []).isEmpty }

    /// The recurrence rules: EventKit supports one, the item's first RRULE (rules whose
    /// frequency EventKit cannot express, such as HOURLY, are not listed). An empty array when
    /// there is none. Setting it replaces the first RRULE only: a second RRULE, RDATEs and
    /// EXDATEs of an imported item are kept.
    public var recurrenceRules: [EKRecurrenceRule]? {
        get {
            if ruleObjects == nil {
                let start = recurrenceStart ?? DateTime(LocalDateTime(secondsSinceEpoch: 0), zone: .utc)
                ruleObjects = component.recurrenceRules.prefix(1).compactMap { rule in
                    EKRecurrenceRule(rule, start: start, zone: recurrenceZone).map(adoptRule)
                }
            }
            return ruleObjects
        }
        set {
            let rule = newValue?.first.map { $0.ownerDidChange == nil ? $0 : ($0.copy() as! EKRecurrenceRule) }
            ruleObjects = rule.map { [adoptRule($0)] } ?? []
            writeRules()
        }
    }

    /// Sets the item's recurrence rule, replacing the one it had (EventKit supports one).
    public func addRecurrenceRule(_ rule: EKRecurrenceRule) {
        recurrenceRules = [rule]
    }

    /// Removes the item's recurrence rule.
    public func removeRecurrenceRule(_ rule: EKRecurrenceRule) {
        recurrenceRules = []
    }

    private func adoptRule(_ rule: EKRecurrenceRule) -> EKRecurrenceRule {
        rule.ownerDidChange = { [weak self] in self?.writeRules() }
        return rule
    }

    /// Writes the rule objects back as the first RRULE, keeping any further RRULEs.
    func writeRules() {
        guard let ruleObjects else { return }
        var rules = component.recurrenceRules
        let start = recurrenceStart ?? DateTime(LocalDateTime(secondsSinceEpoch: 0), zone: .utc)
        if let first = ruleObjects.first {
            let written = first.iCalendarRule(start: start, zone: recurrenceZone)
            if rules.isEmpty { rules = [written] } else { rules[0] = written }
        } else if !rules.isEmpty {
            rules.removeFirst()
        }
        component.recurrenceRules = rules
    }

    /// Rewrites the rule's UNTIL in the form DTSTART now has (after a change of start, zone or
    /// all-day), so RFC 5545's rule that UNTIL matches DTSTART holds.
    func refreshRuleForm() {
        guard component.property(.recurrenceRule) != nil else { return }
        _ = recurrenceRules
        writeRules()
    }

    // MARK: EKObject

    /// Whether the item was never saved.
    public override var isNew: Bool { origin == nil }

    /// Whether the item has unsaved edits (its component or its calendar changed).
    public override var hasChanges: Bool {
        component != original || assignedCalendar?.calendarIdentifier != originalCalendar?.calendarIdentifier
    }

    /// Restores the values the item had when it was fetched or created.
    public override func rollback() {
        component = original
        assignedCalendar = originalCalendar ?? assignedCalendar
        dropCaches()
    }

    /// Reloads the item from the store, dropping local edits; nothing for a new item.
    public override func reset() {
        guard origin != nil else { return }
        _ = eventStore.reload(self, keepingEdits: false)
    }

    /// Pulls the newest stored values, keeping local edits; false when the item is gone.
    @discardableResult
    public override func refresh() -> Bool {
        guard origin != nil else { return !isRemoved }
        return eventStore.reload(self, keepingEdits: true)
    }

    func dropCaches() {
        alarmObjects = nil
        ruleObjects = nil
        cachedResolver = nil
    }

    /// Property names (and `VALARM`) whose content differs from the item as fetched.
    var changedPropertyNames: Set<String> {
        var names = Set<String>()
        let before = Dictionary(grouping: original.properties, by: { $0.name.uppercased() })
        let after = Dictionary(grouping: component.properties, by: { $0.name.uppercased() })
        for name in Set(before.keys).union(after.keys) where before[name] != after[name] {
            names.insert(name)
        }
        if original.components != component.components { names.insert("VALARM") }
        return names
    }
}
