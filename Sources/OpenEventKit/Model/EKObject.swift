import Foundation

/// The abstract base of EventKit's persistent objects: per-object change tracking.
///
/// As in EventKit, `hasChanges` is true when the object, or an object it contains (an alarm,
/// a recurrence rule, a location), has edits that are not saved; `reset()` reloads the object
/// from the store, `rollback()` restores the values it had when it was fetched, and
/// `refresh()` pulls the newest stored values while keeping local edits.
///
/// Value objects that belong to a calendar item (``EKAlarm``, ``EKRecurrenceRule``,
/// ``EKStructuredLocation``) tell their owner when they change, so an edit through
/// `event.alarms?.first?.relativeOffset = -600` changes the event, as it does with EventKit.
///
/// Like Apple's, these objects are not `Sendable`: use each from one thread or actor at a time.
open class EKObject: NSObject {
    /// Called after the object changed, by the item that holds it (package only).
    package var ownerDidChange: (() -> Void)?

    package override init() {
        super.init()
    }

    /// Whether the object, or an object it contains, has unsaved changes.
    open var hasChanges: Bool { false }

    /// Whether the object has never been saved.
    open var isNew: Bool { false }

    /// Reloads every property from the store, dropping unsaved edits; does nothing for an
    /// object that was never saved.
    open func reset() {}

    /// Restores the values the object had when it was fetched (or created), without going
    /// back to the store.
    open func rollback() {}

    /// Pulls the newest stored values while keeping local edits; false when the object no
    /// longer exists in the store.
    @discardableResult
    open func refresh() -> Bool { true }

    /// Tells the owner (if any) that this object changed.
    package func noteChange() {
        ownerDidChange?()
    }
}
