import Foundation

/// A calendar: one collection (folder) of the store, holding events or reminders.
///
/// Its title is the folder's `displayname`, its colour the `color` file, as khal and
/// vdirsyncer keep them. Which kinds of item it holds is recorded in the store's
/// `store.json`; a folder another program wrote holds events unless it is the store's
/// default reminder list. EventKit creates single-type calendars only, and so does this.
public class EKCalendar: EKObject {
    /// Strong, as for items: a calendar kept after its store was let go still refreshes.
    let eventStore: EKEventStore
    /// The collection's folder name; for a new calendar, the one it will get.
    let identifier: String
    /// Whether the calendar exists in the store (or in the pending batch).
    var isSaved: Bool
    /// The write-only virtual calendar (TN3153), which stands for no real calendar.
    package let isVirtual: Bool
    private(set) var savedTitle: String
    private(set) var savedColor: String?
    var titleValue: String
    var colorValue: String?
    var entityMask: EKEntityMask
    var sourceValue: EKSource?
    var writable: Bool

    init(eventStore: EKEventStore, identifier: String, title: String, color: String?, entityMask: EKEntityMask,
         source: EKSource?, isSaved: Bool, isVirtual: Bool = false, writable: Bool = true) {
        self.eventStore = eventStore
        self.identifier = identifier
        self.savedTitle = title
        self.savedColor = color
        self.titleValue = title
        self.colorValue = color
        self.entityMask = entityMask
        self.sourceValue = source
        self.isSaved = isSaved
        self.isVirtual = isVirtual
        self.writable = writable
        super.init()
    }

    /// Creates a calendar for one entity type. Set its title and source, then save it with
    /// ``EKEventStore/saveCalendar(_:commit:)``.
    public convenience init(for entityType: EKEntityType, eventStore: EKEventStore) {
        self.init(eventStore: eventStore, identifier: Foundation.UUID().uuidString, title: "", color: nil,
                  entityMask: entityType == .event ? .event : .reminder, source: nil, isSaved: false)
    }

    /// Deprecated: creates an event calendar.
    @available(*, deprecated, renamed: "init(for:eventStore:)")
    public convenience init(eventStore: EKEventStore) {
        self.init(for: .event, eventStore: eventStore)
    }

    /// The calendar's identifier: its folder name in the store.
    public var calendarIdentifier: String { identifier }

    /// The calendar's name (`displayname`).
    public var title: String {
        get { titleValue }
        set { titleValue = newValue }
    }

    /// `.local` for a folder of the store, `.calDAV` for a mirrored CalDAV calendar,
    /// `.subscription` for a subscribed feed.
    public var type: EKCalendarType {
        switch sourceValue?.sourceType {
        case .calDAV?: .calDAV
        case .subscribed?: .subscription
        default: .local
        }
    }

    /// The account the calendar belongs to; set it before saving a new calendar.
    public var source: EKSource! {
        get { sourceValue }
        set { sourceValue = newValue }
    }

    /// Whether items can be added, changed and removed: the folder is writable (and, for the
    /// write-only virtual calendar, new events can be added).
    public var allowsContentModifications: Bool { writable }

    /// Whether the calendar is a subscribed feed (read-only).
    public var isSubscribed: Bool { sourceValue?.sourceType == .subscribed }

    /// Whether the calendar's own attributes cannot change: the virtual calendar only.
    public var isImmutable: Bool { isVirtual }

    /// The display colour (the `color` file); a default blue when the folder has none.
    public var cgColor: CGColor! {
        get { colorValue.flatMap(CGColor.init(hexString:)) ?? CGColor(red: 0.106, green: 0.678, blue: 0.973, alpha: 1) }
        set { colorValue = newValue?.hexString }
    }

    /// The availabilities events here may use: all of them (TRANSP and
    /// X-MICROSOFT-CDO-BUSYSTATUS carry them).
    public var supportedEventAvailabilities: EKCalendarEventAvailabilityMask {
        entityMask.contains(.event) ? [.busy, .free, .tentative, .unavailable] : []
    }

    /// The kinds of item the calendar holds.
    public var allowedEntityTypes: EKEntityMask { entityMask }

    /// Whether the calendar was never saved.
    public override var isNew: Bool { !isSaved }

    /// Whether the title or colour changed since the calendar was fetched.
    public override var hasChanges: Bool { !isSaved || titleValue != savedTitle || colorValue != savedColor }

    /// Restores the fetched title and colour.
    public override func rollback() {
        titleValue = savedTitle
        colorValue = savedColor
    }

    /// Reloads the title and colour from the store.
    public override func reset() {
        guard isSaved, let fresh = eventStore.calendar(withIdentifier: identifier) else { return }
        markSaved(title: fresh.savedTitle, color: fresh.savedColor)
    }

    /// Pulls the stored title and colour unless they were edited; false when the calendar is gone.
    @discardableResult
    public override func refresh() -> Bool {
        guard isSaved else { return true }
        guard let fresh = eventStore.calendar(withIdentifier: identifier) else { return false }
        if titleValue == savedTitle { titleValue = fresh.savedTitle }
        if colorValue == savedColor { colorValue = fresh.savedColor }
        savedTitle = fresh.savedTitle
        savedColor = fresh.savedColor
        return true
    }

    func markSaved(title: String, color: String?) {
        isSaved = true
        savedTitle = title
        savedColor = color
        titleValue = title
        colorValue = color
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? EKCalendar else { return false }
        return other.eventStore === eventStore && other.identifier == identifier
    }

    public override var hash: Int { identifier.hashValue }

    public override var description: String { "EKCalendar(\(identifier), \"\(titleValue)\")" }
}
