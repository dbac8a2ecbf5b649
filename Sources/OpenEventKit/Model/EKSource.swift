import Foundation

/// An account holding calendars. A store has one local source, the store folder, and one
/// source per remote account or feed it mirrors (`ical sources add`: `.calDAV` or
/// `.subscribed`); an app with write-only access sees one virtual source instead, which holds
/// only the virtual calendar (TN3153). Apps never create sources.
public class EKSource: EKObject {
    /// A remote source: its name in the store and its kind.
    struct Remote: Hashable {
        var name: String
        var type: EKSourceType
    }

    /// Weak: the store keeps its sources; a source outlived by its store has no calendars.
    weak var eventStore: EKEventStore?
    let isVirtual: Bool
    let remote: Remote?

    init(eventStore: EKEventStore, isVirtual: Bool, remote: Remote? = nil) {
        self.eventStore = eventStore
        self.isVirtual = isVirtual
        self.remote = remote
        super.init()
    }

    /// The source's identifier: `local` for the store folder, `write-only` for the virtual
    /// source, `caldav:NAME` or `subscribed:NAME` for a remote one.
    public var sourceIdentifier: String {
        if let remote { return (remote.type == .calDAV ? "caldav:" : "subscribed:") + remote.name }
        return isVirtual ? "write-only" : "local"
    }

    /// The kind of account: `.local`, `.calDAV` or `.subscribed`.
    public var sourceType: EKSourceType { remote?.type ?? .local }

    /// The account's name: "On My Computer", as EventKit names its local source; a remote
    /// source's name as it was added.
    public var title: String { remote?.name ?? (isVirtual ? "Calendar" : "On My Computer") }

    /// Whether the account is delegated to the user: never, for a folder.
    public var isDelegate: Bool { false }

    /// The calendars of this source that hold an entity type (the virtual calendar only,
    /// under write-only access).
    public func calendars(for entityType: EKEntityType) -> Set<EKCalendar> {
        guard let eventStore else { return [] }
        return Set(eventStore.calendars(for: entityType).filter { $0.source === self || $0.source.sourceIdentifier == sourceIdentifier })
    }

    /// Every calendar of this source.
    public var calendars: Set<EKCalendar> {
        calendars(for: .event).union(calendars(for: .reminder))
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? EKSource else { return false }
        return other.eventStore === eventStore && other.sourceIdentifier == sourceIdentifier
    }

    public override var hash: Int { sourceIdentifier.hashValue }
}
