/// Dismissing and snoozing an alarm the way RFC 9074 writes it into the item, so that every
/// client that syncs the item (and a second machine) knows the alarm was handled.
///
/// - Dismiss sets the alarm's `ACKNOWLEDGED` to the moment of dismissal (in UTC): every
///   trigger at or before it counts as handled (``AlarmQuery`` leaves them out). Snooze
///   alarms of the alarm are removed. Dismissing a snooze alarm acknowledges the alarm it
///   snoozes and removes the snooze alarm (RFC 9074 §7).
/// - Snooze acknowledges the alarm too, and adds a snooze alarm: a copy of it (action,
///   description, attachments) with a new `UID`, an absolute `TRIGGER` at the snooze time,
///   and `RELATED-TO;RELTYPE=SNOOZE` naming the alarm's `UID` (one is added to the alarm when
///   it has none). An earlier snooze alarm of the same alarm is replaced, so snoozing again
///   never piles alarms up.
///
/// On a recurring series the alarm is the one of the component the occurrence came from: an
/// override's own, else the master's (its `ACKNOWLEDGED` then covers the earlier occurrences'
/// triggers too, which have passed).
public enum AlarmAcknowledgement {
    /// What to do with an alarm.
    public enum Action: Sendable, Hashable {
        /// Handled: ring no more.
        case dismiss
        /// Ring again at an instant (seconds since 1970-01-01T00:00:00Z).
        case snooze(until: Int64)
    }

    /// The item with the alarm of `instance` dismissed or snoozed at `now`.
    ///
    /// - Parameters:
    ///   - calendar: the item's VCALENDAR as it is now (it may have changed since the alarm
    ///     was found: the alarm is looked up again by its UID, else by its position and
    ///     TRIGGER).
    ///   - newUID: a fresh unique identifier, used for the snooze alarm and, when the alarm
    ///     has none, for the alarm itself.
    /// - Throws: ``ICalError/Code/invalidArgument`` when the item no longer has the alarm.
    public static func apply(_ action: Action, to instance: AlarmInstance, in calendar: Component, at now: Int64,
                             newUID: () -> String) throws(ICalError) -> Component {
        var calendar = calendar
        let recurrenceIdentifier = instance.component.property(.recurrenceIdentifier)?.dateTimeValue?.local
        guard let componentIndex = calendar.components.firstIndex(where: { component in
            component.kind == instance.component.kind && (component.uid ?? "") == instance.uid
                && component.property(.recurrenceIdentifier)?.dateTimeValue?.local == recurrenceIdentifier
        }) else {
            throw ICalError(.invalidArgument, "the item no longer has the event or to-do '\(instance.uid)' the alarm belongs to")
        }
        var component = calendar.components[componentIndex]
        let positions = component.components.indices.filter { component.components[$0].matches(.alarm) }
        guard let found = Self.position(of: instance, among: positions, in: component) else {
            throw ICalError(.invalidArgument, "the alarm of '\(instance.uid)' was changed or removed since it rang")
        }

        // The alarm a snooze alarm snoozes is the one acknowledged.
        var target = found
        var removing: Set<Int> = []
        if let parentUID = instance.snoozedAlarmUID {
            removing.insert(found)
            if let parent = positions.first(where: { AlarmInstance.uid(of: component.components[$0]) == parentUID }) {
                target = parent
            } else {
                target = -1
            }
        }

        let stamp = DateTime(LocalDateTime(secondsSinceEpoch: now), zone: .utc)
        var parentUID: String?
        if target >= 0 {
            var alarm = component.components[target]
            if case .snooze = action, AlarmInstance.uid(of: alarm) == nil {
                alarm.setProperty(Property(.uniqueIdentifier, rawValue: newUID()))
            }
            parentUID = AlarmInstance.uid(of: alarm)
            alarm.setProperty(Property("ACKNOWLEDGED", rawValue: stamp.iCalendarText))
            component.components[target] = alarm
            if let parentUID {
                for position in positions where Self.snoozes(component.components[position], parentUID) {
                    removing.insert(position)
                }
            }
        }

        if case .snooze(let until) = action {
            var snooze = component.components[target >= 0 ? target : found]
            for kind: PropertyKind in [.uniqueIdentifier, "X-WR-ALARMUID", "ACKNOWLEDGED", .repeatCount, .duration, .relatedTo] {
                snooze.removeProperties(kind)
            }
            snooze.setProperty(Property(.uniqueIdentifier, rawValue: newUID()))
            snooze.trigger = .absolute(DateTime(LocalDateTime(secondsSinceEpoch: until), zone: .utc))
            if let parentUID {
                snooze.addProperty(Property(name: "RELATED-TO", parameters: [Parameter(name: "RELTYPE", value: "SNOOZE")],
                                            rawValue: parentUID))
            }
            component.components.append(snooze)
        }
        for position in removing.sorted(by: >) { component.components.remove(at: position) }
        calendar.components[componentIndex] = component
        return calendar
    }

    /// The position of the instance's alarm in its component now: by UID, else the same
    /// position with the same TRIGGER as written.
    static func position(of instance: AlarmInstance, among positions: [Int], in component: Component) -> Int? {
        if let uid = instance.alarmUID {
            return positions.first { AlarmInstance.uid(of: component.components[$0]) == uid }
        }
        guard instance.alarmIndex < positions.count else { return nil }
        let position = positions[instance.alarmIndex]
        let alarm = component.components[position]
        guard alarm.property(.trigger)?.rawValue == instance.alarm.property(.trigger)?.rawValue,
              AlarmInstance.uid(of: alarm) == nil else { return nil }
        return position
    }

    /// Whether a VALARM is a snooze alarm of the alarm with `parentUID`.
    static func snoozes(_ alarm: Component, _ parentUID: String) -> Bool {
        alarm.properties(.relatedTo).contains { related in
            let type = related.parameters.first { $0.matches("RELTYPE") }?.value
            return type.map(ASCII.uppercased) == "SNOOZE" && String(related.rawValue.trimmingSpaces) == parentUID
        }
    }
}
