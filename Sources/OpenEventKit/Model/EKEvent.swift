import Foundation
import ICalKit

/// Which instance of a series an ``EKEvent`` stands for.
struct OccurrenceSlot {
    /// The original slot (RECURRENCE-ID), in the form DTSTART has.
    var recurrenceIdentifier: DateTime
    /// Whether an override component (RECURRENCE-ID) backs this occurrence.
    var isOverride: Bool
}

/// An event: a VEVENT, or one occurrence of a recurring VEVENT.
///
/// Fetches return one `EKEvent` per occurrence. An occurrence of a series reads as the
/// master with this occurrence's start and end, or as its override when it has one
/// (``isDetached``); ``occurrenceDate`` is its original slot. Saving or removing an
/// occurrence takes a span: `.thisEvent` writes an override (or an EXDATE), `.futureEvents`
/// changes the series from this occurrence on (see ``EKEventStore/save(_:span:commit:)``).
///
/// All-day events are written as `DTSTART;VALUE=DATE` with an exclusive `DTEND;VALUE=DATE`
/// (the next day for a one-day event) and report ``endDate`` as 23:59:59 of their last day,
/// as EventKit does since macOS 13 and iOS 16.
public class EKEvent: EKCalendarItem {
    /// The occurrence this object stands for, nil for a single event or a series' master
    /// (``EKEventStore/event(withIdentifier:)``).
    var slot: OccurrenceSlot? {
        get { fetched.slot }
        set { fetched = fetched.with(slot: .some(newValue)) }
    }

    /// Creates a new event in the store. Set its calendar, title and dates, then save it.
    public init(eventStore: EKEventStore) {
        var component = Component(kind: .event)
        component.uid = Foundation.UUID().uuidString
        super.init(eventStore: eventStore, component: component, origin: nil, calendar: nil)
    }

    init(eventStore: EKEventStore, component: Component, origin: ItemOrigin?, calendar: EKCalendar?, slot: OccurrenceSlot?) {
        super.init(eventStore: eventStore, fetched: FetchedItem(component: component, origin: origin, slot: slot), calendar: calendar)
    }

    /// An event for fetched state that others may share (the cached path of
    /// ``EKEventStore/events(matching:)``).
    override init(eventStore: EKEventStore, fetched: FetchedItem, calendar: EKCalendar?) {
        super.init(eventStore: eventStore, fetched: fetched, calendar: calendar)
    }

    // MARK: Identity

    /// The identifier for ``EKEventStore/event(withIdentifier:)``: nil until the event is
    /// saved; `calendar/file.ics` after, so it changes when the event moves to another calendar.
    public var eventIdentifier: String! {
        origin.map { $0.key.collection + "/" + $0.key.name }
    }

    // MARK: Dates

    /// The start. Floating and all-day events are read in the default time zone.
    public var startDate: Date! {
        get { component.dateTimeStart.map { ItemTime.date(instant($0)) } }
        set {
            guard let newValue else { component.dateTimeStart = nil; return }
            pinEndBeforeChangingStart()
            let allDay = isAllDay
            let value = allDay ? ItemTime.dateTime(newValue, zone: nil, allDay: true)
                : valueLike(component.dateTimeStart, at: ItemTime.instant(newValue))
            let formChanged = component.dateTimeStart.map { $0.isDate != value.isDate || $0.zone != value.zone } ?? true
            component.dateTimeStart = value
            if formChanged { refreshRuleForm() }
        }
    }

    /// The end. An all-day event reports 23:59:59 of its last day; setting an all-day end
    /// takes the day it falls on (in the default time zone) as the last day.
    public var endDate: Date! {
        get {
            guard let start = component.dateTimeStart else { return nil }
            if start.isDate {
                let last = lastDay(start: start)
                let local = LocalDateTime(date: last, time: TimeOfDay(hour: 23, minute: 59, second: 59)!)
                return ItemTime.date(ItemTime.defaultZone().instant(for: local))
            }
            return ItemTime.date(endInstant(start: start))
        }
        set {
            guard let newValue else { component.dateTimeEnd = nil; component.duration = nil; return }
            let instant = ItemTime.instant(newValue)
            if let start = component.dateTimeStart, start.isDate {
                component.dateTimeEnd = DateTime(date: exclusiveEndDay(start: start, endInstant: instant))
            } else {
                component.dateTimeEnd = valueLike(component.dateTimeStart, at: instant)
            }
            component.duration = nil
        }
    }

    /// Whether the event is all day (`DTSTART;VALUE=DATE`).
    public var isAllDay: Bool {
        get { component.dateTimeStart?.isDate ?? false }
        set {
            guard newValue != isAllDay else { return }
            guard let start = component.dateTimeStart else {
                if newValue { component.dateTimeStart = DateTime(date: ItemTime.dateTime(Date(), zone: nil, allDay: true).date) }
                return
            }
            if newValue {
                let startInstant = instant(start)
                let endInstant = endInstant(start: start)
                let startDay = start.local.date
                let endLocal = start.isFloating ? ItemTime.defaultZone().local(at: endInstant)
                    : valueLike(start, at: endInstant).local
                var lastDay = endLocal.date
                if endInstant > startInstant && endLocal.time == .midnight { lastDay = lastDay.adding(days: -1) }
                if lastDay < startDay { lastDay = startDay }
                component.dateTimeStart = DateTime(date: startDay)
                component.dateTimeEnd = DateTime(date: lastDay.adding(days: 1))
            } else {
                let zone = TimeZone.current
                let exclusiveEnd = lastDay(start: start).adding(days: 1)
                let rules = ItemTime.rules(for: zone) ?? FixedOffsetZone.utc
                let startValue = ItemTime.dateTime(ItemTime.date(rules.instant(for: LocalDateTime(date: start.local.date))), zone: zone, allDay: false)
                let endValue = ItemTime.dateTime(ItemTime.date(rules.instant(for: LocalDateTime(date: exclusiveEnd))), zone: zone, allDay: false)
                component.dateTimeStart = startValue
                component.dateTimeEnd = endValue
            }
            component.duration = nil
            refreshRuleForm()
        }
    }

    /// The original slot of this occurrence in its series; the start date for an event that
    /// does not repeat. A detached occurrence that was moved keeps its original slot here.
    public var occurrenceDate: Date! {
        if let slot { return ItemTime.date(instant(slot.recurrenceIdentifier)) }
        if let rid = component.recurrenceIdentifier { return ItemTime.date(instant(rid)) }
        return startDate
    }

    /// Whether this occurrence differs from its series: an override (RECURRENCE-ID) backs it.
    public var isDetached: Bool {
        slot?.isOverride ?? (component.recurrenceIdentifier != nil)
    }

    /// Orders two events by start date, as EventKit's sort helper.
    public func compareStartDate(with other: EKEvent) -> ComparisonResult {
        let lhs = startDate ?? .distantPast, rhs = other.startDate ?? .distantPast
        if lhs < rhs { return .orderedAscending }
        if lhs > rhs { return .orderedDescending }
        return .orderedSame
    }

    // MARK: Status and availability

    /// How the event counts for free/busy: TRANSP, refined by X-MICROSOFT-CDO-BUSYSTATUS.
    public var availability: EKEventAvailability {
        get {
            switch component.property(named: "X-MICROSOFT-CDO-BUSYSTATUS")?.rawValue.uppercased() {
            case "FREE": return .free
            case "TENTATIVE": return .tentative
            case "OOF": return .unavailable
            case "BUSY": return .busy
            default: return component.transparency == .transparent ? .free : .busy
            }
        }
        set {
            switch newValue {
            case .notSupported: return
            case .free:
                component.transparency = .transparent
                component.setBusyStatus(component.property(named: "X-MICROSOFT-CDO-BUSYSTATUS") == nil ? nil : "FREE")
            case .busy:
                component.transparency = component.transparency == nil ? nil : .opaque
                component.setBusyStatus(component.property(named: "X-MICROSOFT-CDO-BUSYSTATUS") == nil ? nil : "BUSY")
            case .tentative:
                component.transparency = component.transparency == nil ? nil : .opaque
                component.setBusyStatus("TENTATIVE")
            case .unavailable:
                component.transparency = component.transparency == nil ? nil : .opaque
                component.setBusyStatus("OOF")
            }
        }
    }

    /// STATUS: confirmed, tentative or canceled; `.none` without one. Read-only, as in
    /// EventKit: to cancel an event, remove it.
    public var status: EKEventStatus {
        switch component.status {
        case Status.confirmed?: .confirmed
        case Status.tentative?: .tentative
        case Status.cancelled?: .canceled
        default: .none
        }
    }

    /// The organizer (ORGANIZER), read-only.
    public var organizer: EKParticipant? {
        component.organizer.map { EKParticipant($0, isOrganizer: true, currentUserAddresses: currentUserAddresses) }
    }

    // MARK: Location

    /// The location with optional coordinates: LOCATION, GEO and Apple's
    /// X-APPLE-STRUCTURED-LOCATION.
    public var structuredLocation: EKStructuredLocation? {
        get { EKStructuredLocation(component: component) }
        set {
            if let newValue {
                newValue.apply(to: &component)
            } else {
                component.removeProperties(.location)
                component.removeProperties(.geographicPosition)
                component.removeProperties(PropertyKind(rawValue: "X-APPLE-STRUCTURED-LOCATION"))
            }
        }
    }

    /// The location's title; setting it is the same as setting a title-only structured
    /// location (coordinates are dropped), as in EventKit.
    public override var location: String? {
        get { component.location }
        set {
            guard newValue != component.location else { return }
            if let newValue, !newValue.isEmpty {
                structuredLocation = EKStructuredLocation(title: newValue)
            } else {
                structuredLocation = nil
            }
        }
    }

    // MARK: Birthdays

    /// The Contacts identifier of a birthday event; always nil (no Birthdays calendar on Linux).
    public var birthdayContactIdentifier: String? { nil }

    /// Deprecated AddressBook identifier of a birthday event; always 0 here.
    @available(*, deprecated, message: "Use birthdayContactIdentifier")
    public var birthdayPersonID: Int { 0 }

    // MARK: Date helpers

    /// The end instant: DTEND, or DTSTART plus DURATION (days on the wall clock, RFC 5545
    /// §3.3.6), or the start (a date: the next day) when there is neither.
    func endInstant(start: DateTime) -> Int64 {
        if let end = component.dateTimeEnd { return instant(end) }
        if let duration = component.duration {
            var local = start.local
            local = local.adding(seconds: Int64(duration.nominalDays) * 86_400)
            var shifted = start
            shifted.local = local
            return instant(shifted) + duration.exactSeconds
        }
        if start.isDate { return instant(DateTime(date: start.local.date.adding(days: 1))) }
        return instant(start)
    }

    /// The last day of an all-day event (its exclusive DTEND's day before).
    func lastDay(start: DateTime) -> CalendarDate {
        if let end = component.dateTimeEnd, end.isDate, end.local.date > start.local.date {
            return end.local.date.adding(days: -1)
        }
        if let duration = component.duration, duration.nominalDays > 0 {
            return start.local.date.adding(days: duration.nominalDays - 1)
        }
        return start.local.date
    }

    /// The exclusive DTEND day for an all-day end date: the day the date falls on is the
    /// last day (`endDate = startDate` is a one-day event, as with EventKit).
    private func exclusiveEndDay(start: DateTime, endInstant: Int64) -> CalendarDate {
        var last = ItemTime.defaultZone().local(at: endInstant).date
        if last < start.local.date { last = start.local.date }
        return last.adding(days: 1)
    }

    /// A DATE-TIME for `instant` in the same form as `reference` (same TZID text, UTC or
    /// floating); for a new event, in the default time zone.
    func valueLike(_ reference: DateTime?, at instant: Int64) -> DateTime {
        guard let reference, !reference.isDate else {
            return ItemTime.dateTime(ItemTime.date(instant), zone: preferredTimeZone ?? TimeZone.current, allDay: false)
        }
        switch reference.zone {
        case .floating:
            return DateTime(ItemTime.defaultZone().local(at: instant), zone: .floating)
        case .utc:
            return DateTime(LocalDateTime(secondsSinceEpoch: instant), zone: .utc)
        case .identifier(let tzid):
            let rules = resolver.resolve(tzid)?.rules ?? FixedOffsetZone.utc
            return DateTime(rules.local(at: instant), zone: .identifier(tzid))
        }
    }

    /// EventKit's start and end are independent: before the start moves, a DURATION becomes
    /// the DTEND it implies, so the end stays where it was.
    private func pinEndBeforeChangingStart() {
        guard component.dateTimeEnd == nil, component.duration != nil, let start = component.dateTimeStart else { return }
        if start.isDate {
            component.dateTimeEnd = DateTime(date: lastDay(start: start).adding(days: 1))
        } else {
            component.dateTimeEnd = valueLike(start, at: endInstant(start: start))
        }
        component.duration = nil
    }
}

extension Component {
    /// The first property with a name (for X- properties that have no ``PropertyKind``).
    func property(named name: String) -> Property? {
        properties.first { $0.name.uppercased() == name }
    }

    mutating func setBusyStatus(_ value: String?) {
        properties.removeAll { $0.name.uppercased() == "X-MICROSOFT-CDO-BUSYSTATUS" }
        if let value { properties.append(Property(name: "X-MICROSOFT-CDO-BUSYSTATUS", rawValue: value)) }
    }
}
