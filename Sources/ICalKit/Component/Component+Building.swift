#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Building calendars from Swift.
///
/// ```swift
/// var calendar = Component.calendar(productIdentifier: "-//Example Corp.//Planner 1.0//EN")
/// var event = Component.event(
///     uid: "19970610T172345Z-AF23B2@example.com",
///     start: DateTime(LocalDateTime(year: 1997, month: 7, day: 14, hour: 17)!, zone: .utc),
///     end: DateTime(LocalDateTime(year: 1997, month: 7, day: 15, hour: 4)!, zone: .utc),
///     summary: "Bastille Day Party",
///     stamp: DateTime(LocalDateTime(year: 1997, month: 6, day: 10, hour: 17, minute: 23, second: 45)!, zone: .utc))
/// event.addComponent(.alarm(action: .display, trigger: .relative(Duration(isNegative: true, minutes: 15), relatedTo: .start),
///                           description: "Party"))
/// calendar.addComponent(event)
/// let text = ICalWriter().string([calendar])
/// ```
extension Component {
    /// A VCALENDAR with `VERSION:2.0` and the given PRODID (RFC 5545 §3.4, §3.7.3).
    public static func calendar(productIdentifier: String, version: String = "2.0") -> Component {
        Component(kind: .calendar, properties: [
            Property(.productIdentifier, rawValue: TextCoding.escape(productIdentifier)),
            Property(.version, rawValue: version),
        ])
    }

    /// A VEVENT with UID, DTSTAMP, DTSTART and, when given, DTEND and SUMMARY (RFC 5545 §3.6.1).
    ///
    /// - Parameter stamp: the DTSTAMP; nil uses the current time in UTC, to the second.
    public static func event(
        uid: String, start: DateTime, end: DateTime? = nil, summary: String? = nil, stamp: DateTime? = nil
    ) -> Component {
        var event = Component(kind: .event)
        event.uid = uid
        event.dateTimeStamp = stamp ?? currentUTCDateTime()
        event.dateTimeStart = start
        event.dateTimeEnd = end
        event.summary = summary
        return event
    }

    /// A VTODO with UID, DTSTAMP and, when given, DUE and SUMMARY (RFC 5545 §3.6.2).
    ///
    /// - Parameter stamp: the DTSTAMP; nil uses the current time in UTC, to the second.
    public static func todo(uid: String, due: DateTime? = nil, summary: String? = nil, stamp: DateTime? = nil) -> Component {
        var todo = Component(kind: .todo)
        todo.uid = uid
        todo.dateTimeStamp = stamp ?? currentUTCDateTime()
        todo.due = due
        todo.summary = summary
        return todo
    }

    /// A VALARM with ACTION, TRIGGER and, when given, DESCRIPTION (RFC 5545 §3.6.6).
    /// A DISPLAY or EMAIL alarm needs a DESCRIPTION.
    public static func alarm(action: AlarmAction, trigger: AlarmTrigger, description: String? = nil) -> Component {
        var alarm = Component(kind: .alarm)
        alarm.action = action
        alarm.trigger = trigger
        alarm.descriptionText = description
        return alarm
    }

    /// The current time as a UTC DATE-TIME, to the second.
    static func currentUTCDateTime() -> DateTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return DateTime(LocalDateTime(secondsSinceEpoch: Int64(now.tv_sec)), zone: .utc)
    }
}
