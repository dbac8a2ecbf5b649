import Foundation

/// An account holding calendars. A store has one local source, the store folder; an app
/// with write-only access sees one virtual source instead, which holds only the virtual
/// calendar (TN3153). Apps never create sources.
public class EKSource: EKObject {
    /// Weak: the store keeps its sources; a source outlived by its store has no calendars.
    weak var eventStore: EKEventStore?
    let isVirtual: Bool

    init(eventStore: EKEventStore, isVirtual: Bool) {
        self.eventStore = eventStore
        self.isVirtual = isVirtual
        super.init()
    }

    /// The source's identifier: `local` for the store folder, `write-only` for the virtual source.
    public var sourceIdentifier: String { isVirtual ? "write-only" : "local" }

    /// The kind of account: `.local`.
    public var sourceType: EKSourceType { .local }

    /// The account's name: "On My Computer", as EventKit names its local source.
    public var title: String { isVirtual ? "Calendar" : "On My Computer" }

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
