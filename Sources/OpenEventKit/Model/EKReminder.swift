import Foundation
import ICalKit

/// A reminder: a VTODO.
///
/// Its dates are date components, as in EventKit: components without an hour make an
/// all-day value (`VALUE=DATE`), components without a time zone a floating one, and the
/// components' calendar must be Gregorian. ``isCompleted`` and ``completionDate`` are
/// coupled: completing stamps the completion date (COMPLETED, in UTC), STATUS:COMPLETED and
/// PERCENT-COMPLETE:100; un-completing clears them and sets STATUS:NEEDS-ACTION.
public class EKReminder: EKCalendarItem {
    /// Creates a new reminder in the store. Set its calendar and title, then save it.
    public init(eventStore: EKEventStore) {
        var component = Component(kind: .todo)
        component.uid = Foundation.UUID().uuidString
        super.init(eventStore: eventStore, component: component, origin: nil, calendar: nil)
    }

    override init(eventStore: EKEventStore, component: Component, origin: ItemOrigin?, calendar: EKCalendar?) {
        super.init(eventStore: eventStore, component: component, origin: origin, calendar: calendar)
    }

    override var timeProperty: PropertyKind {
        component.dateTimeStart == nil ? .dateTimeDue : .dateTimeStart
    }

    /// The start (DTSTART) as date components.
    public var startDateComponents: DateComponents? {
        get { component.dateTimeStart.map { ItemTime.components($0, resolver: resolver) } }
        set { component.dateTimeStart = newValue.flatMap(ItemTime.dateTime) }
    }

    /// The due date (DUE) as date components; its zone is independent of the start's.
    public var dueDateComponents: DateComponents? {
        get { component.due.map { ItemTime.components($0, resolver: resolver) } }
        set { component.due = newValue.flatMap(ItemTime.dateTime) }
    }

    /// Whether the reminder is completed (STATUS:COMPLETED, or a COMPLETED date).
    public var isCompleted: Bool {
        get { component.status == .completed || component.property(.dateTimeCompleted) != nil }
        set {
            guard newValue != isCompleted else { return }
            completionDate = newValue ? Date() : nil
        }
    }

    /// When the reminder was completed (COMPLETED). Setting a date completes it; nil
    /// un-completes it.
    public var completionDate: Date? {
        get {
            component.property(.dateTimeCompleted)?.dateTimeValue.map {
                ItemTime.date(resolver.instant(for: $0, floatingZone: FixedOffsetZone.utc))
            }
        }
        set {
            if let newValue {
                var property = component.property(.dateTimeCompleted) ?? Property(.dateTimeCompleted, rawValue: "")
                property.setDateTimeValue(DateTime(LocalDateTime(secondsSinceEpoch: ItemTime.instant(newValue)), zone: .utc))
                component.setProperty(property)
                component.status = .completed
                component.setProperty(Property(.percentComplete, rawValue: "100"))
            } else {
                component.removeProperties(.dateTimeCompleted)
                component.removeProperties(.percentComplete)
                component.status = .needsAction
            }
        }
    }

    /// The priority: 0 none, 1 highest … 9 lowest (PRIORITY). Values outside 0–9 fail to
    /// save with `priorityIsInvalid`.
    public var priority: Int {
        get { component.property(.priority)?.integerValue ?? 0 }
        set {
            if newValue == 0 {
                component.removeProperties(.priority)
            } else {
                component.setProperty(Property(.priority, rawValue: String(newValue)))
            }
        }
    }
}
