/// One moment a VALARM triggers (RFC 5545 §3.6.6, §3.8.6.3): its instant, the alarm, and the
/// occurrence of the event or to-do it belongs to.
///
/// A relative alarm of a recurring series triggers once for every occurrence (an override's
/// own VALARMs replace the master's for its instance); an absolute alarm triggers once. With
/// `REPEAT` and `DURATION`, the repetitions are instances of their own (``repetition`` 1, 2,
/// …). See ``AlarmQuery``.
public struct AlarmInstance: Sendable {
    /// The instant the alarm triggers, in seconds since 1970-01-01T00:00:00Z.
    public var triggerInstant: Int64
    /// 0 for the trigger itself, 1…`REPEAT` for its repetitions.
    public var repetition: Int
    /// The VALARM as written.
    public var alarm: Component
    /// The VALARM's position among the VALARMs of its component (0-based): how the alarm is
    /// found again when it has no `UID`.
    public var alarmIndex: Int
    /// The occurrence the alarm belongs to; nil for an absolute alarm of an item whose own
    /// instance has no time (a to-do without DTSTART or DUE) or is not in its series.
    public var occurrence: OccurrenceQuery.Match?
    /// The component the alarm is in: the master, or the override of the instance.
    public var component: Component
    /// The name of the source (a file, or `collection/item.ics` in a store).
    public var source: String?
    /// Whether the alarm's `ACKNOWLEDGED` (RFC 9074 §6) is at or after the trigger: the user
    /// dismissed or snoozed it already.
    public var isAcknowledged: Bool
    /// For a snooze alarm (RFC 9074 §7: `RELATED-TO;RELTYPE=SNOOZE`), the `UID` of the alarm
    /// it snoozes.
    public var snoozedAlarmUID: String?

    /// Creates an instance.
    public init(triggerInstant: Int64, repetition: Int, alarm: Component, alarmIndex: Int,
                occurrence: OccurrenceQuery.Match?, component: Component, source: String?,
                isAcknowledged: Bool, snoozedAlarmUID: String?) {
        self.triggerInstant = triggerInstant
        self.repetition = repetition
        self.alarm = alarm
        self.alarmIndex = alarmIndex
        self.occurrence = occurrence
        self.component = component
        self.source = source
        self.isAcknowledged = isAcknowledged
        self.snoozedAlarmUID = snoozedAlarmUID
    }

    /// The UID of the event or to-do.
    public var uid: String { occurrence?.occurrence.uid ?? component.uid ?? "" }
    /// The alarm's ACTION (`DISPLAY`, `AUDIO`, `EMAIL`, …); `DISPLAY` when it has none.
    public var action: AlarmAction { alarm.action ?? .display }
    /// The alarm's DESCRIPTION: the text a display alarm shows.
    public var alarmDescription: String? { alarm.descriptionText }
    /// The alarm's SUMMARY (the subject of an e-mail alarm).
    public var alarmSummary: String? { alarm.summary }
    /// The alarm's `UID` (RFC 9074 §4), else Apple's `X-WR-ALARMUID`.
    public var alarmUID: String? { Self.uid(of: alarm) }
    /// Whether this is a snooze alarm.
    public var isSnooze: Bool { snoozedAlarmUID != nil }

    /// The RECURRENCE-ID of the occurrence, in iCalendar form (`20261201T090000`, with the
    /// TZID of DTSTART not repeated), or nil for an item that does not recur.
    public var recurrenceIdentifier: DateTime? {
        guard let occurrence, occurrence.isRecurring else { return nil }
        return occurrence.occurrence.recurrenceIdentifier
    }

    /// An identity that does not change while the item keeps the alarm: the item's UID, the
    /// occurrence's RECURRENCE-ID, the alarm's UID (else its position and trigger as
    /// written) and the trigger instant. A service records the keys it fired so that no
    /// alarm fires twice.
    public var key: String {
        var parts = [uid]
        parts.append(recurrenceIdentifier.map { $0.iCalendarText + ($0.timeZoneIdentifier.map { ";" + $0 } ?? "") } ?? "")
        if let alarmUID {
            parts.append("uid:" + alarmUID)
        } else {
            parts.append("index:\(alarmIndex):" + (alarm.property(.trigger)?.rawValue ?? ""))
        }
        parts.append(String(triggerInstant))
        return parts.joined(separator: "|")
    }

    /// A VALARM's `UID`, else its `X-WR-ALARMUID`.
    public static func uid(of alarm: Component) -> String? {
        let text = (alarm.property(.uniqueIdentifier) ?? alarm.property("X-WR-ALARMUID"))?.rawValue
            .trimmingSpaces
        guard let text, !text.isEmpty else { return nil }
        return String(text)
    }
}
