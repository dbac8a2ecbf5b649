/// Typed accessors for the common properties of events, to-dos, journals and alarms.
///
/// Getters read the first property of a kind (or all of them, for multi-valued kinds) and
/// return nil or skip what cannot be read. Setters change only that property: its position
/// and its other parameters (X- parameters included) are kept, TZID and VALUE are set or
/// removed as the new value requires, and a setter given the value the property already
/// holds changes nothing, so non-canonical text survives. A new property is appended after
/// the existing ones; setting nil (or an empty list) removes every property of the kind.
///
/// ```swift
/// var event = Component.event(uid: "standup@example.com",
///                             start: DateTime(LocalDateTime(year: 2024, month: 3, day: 11, hour: 9)!,
///                                             zone: .identifier("Europe/Berlin")),
///                             summary: "Stand-up",
///                             stamp: DateTime(LocalDateTime(year: 2024, month: 3, day: 1)!, zone: .utc))
/// event.recurrenceRules = [RecurrenceRule(iCalendar: "FREQ=WEEKLY;BYDAY=MO,WE,FR")!]
/// event.status = .confirmed
/// ```
extension Component {
    // MARK: Descriptive (RFC 5545 §3.8.1)

    /// SUMMARY as TEXT (RFC 5545 §3.8.1.12). The corresponding libical function is
    /// `icalcomponent_get_summary`.
    public var summary: String? {
        get { self[text: .summary] }
        set { setText(.summary, newValue) }
    }

    /// DESCRIPTION as TEXT (RFC 5545 §3.8.1.5). The corresponding libical function is
    /// `icalcomponent_get_description`.
    public var descriptionText: String? {
        get { self[text: .description] }
        set { setText(.description, newValue) }
    }

    /// LOCATION as TEXT (RFC 5545 §3.8.1.7). The corresponding libical function is
    /// `icalcomponent_get_location`.
    public var location: String? {
        get { self[text: .location] }
        set { setText(.location, newValue) }
    }

    /// UID as TEXT (RFC 5545 §3.8.4.7). The corresponding libical function is
    /// `icalcomponent_get_uid`.
    public var uid: String? {
        get { self[text: .uniqueIdentifier] }
        set { setText(.uniqueIdentifier, newValue) }
    }

    /// CATEGORIES across every CATEGORIES property, in order (RFC 5545 §3.8.1.2). Setting a
    /// different list writes it all into the first CATEGORIES property (keeping its
    /// parameters) and removes the others.
    public var categories: [String] {
        get { properties(.categories).flatMap(\.textValues) }
        set {
            guard newValue != categories else { return }
            guard !newValue.isEmpty else { removeProperties(.categories); return }
            replaceAll(.categories, count: 1) { property, _ in property.textValues = newValue }
        }
    }

    /// STATUS (RFC 5545 §3.8.1.11). The corresponding libical function is
    /// `icalcomponent_get_status`.
    public var status: Status? {
        get { property(.status).map { Status(rawValue: String($0.rawValue.trimmingSpaces)) } }
        set { setKeyword(.status, newValue?.rawValue) }
    }

    /// GEO (RFC 5545 §3.8.1.6).
    public var geographicPosition: GeographicPosition? {
        get { property(.geographicPosition)?.geographicPositionValue }
        set {
            guard newValue != geographicPosition else { return }
            setSingle(.geographicPosition, newValue.map { value in { $0.rawValue = value.iCalendarText } })
        }
    }

    // MARK: Date and time (RFC 5545 §3.8.2)

    /// DTSTART with its TZID and VALUE (RFC 5545 §3.8.2.4). The corresponding libical
    /// function is `icalcomponent_get_dtstart`.
    public var dateTimeStart: DateTime? {
        get { property(.dateTimeStart)?.dateTimeValue }
        set { setDateTime(.dateTimeStart, newValue) }
    }

    /// DTEND with its TZID and VALUE (RFC 5545 §3.8.2.2). The corresponding libical
    /// function is `icalcomponent_get_dtend` (which, unlike this, computes a missing DTEND).
    public var dateTimeEnd: DateTime? {
        get { property(.dateTimeEnd)?.dateTimeValue }
        set { setDateTime(.dateTimeEnd, newValue) }
    }

    /// DUE of a to-do with its TZID and VALUE (RFC 5545 §3.8.2.3). The corresponding libical
    /// function is `icalcomponent_get_due`.
    public var due: DateTime? {
        get { property(.dateTimeDue)?.dateTimeValue }
        set { setDateTime(.dateTimeDue, newValue) }
    }

    /// DURATION (RFC 5545 §3.8.2.5). The corresponding libical function is
    /// `icalcomponent_get_duration`.
    public var duration: Duration? {
        get { property(.duration)?.durationValue }
        set {
            guard newValue != duration else { return }
            setSingle(.duration, newValue.map { value in { $0.rawValue = value.iCalendarText } })
        }
    }

    /// TRANSP (RFC 5545 §3.8.2.7).
    public var transparency: TimeTransparency? {
        get { property(.timeTransparency).map { TimeTransparency(rawValue: String($0.rawValue.trimmingSpaces)) } }
        set { setKeyword(.timeTransparency, newValue?.rawValue) }
    }

    // MARK: Relationship (RFC 5545 §3.8.4)

    /// RECURRENCE-ID with its TZID and VALUE (RFC 5545 §3.8.4.4). The corresponding libical
    /// function is `icalcomponent_get_recurrenceid`.
    public var recurrenceIdentifier: DateTime? {
        get { property(.recurrenceIdentifier)?.dateTimeValue }
        set { setDateTime(.recurrenceIdentifier, newValue) }
    }

    /// The RANGE parameter of RECURRENCE-ID (`THISANDFUTURE`, RFC 5545 §3.2.13). Setting it
    /// when there is no RECURRENCE-ID changes nothing.
    public var recurrenceIdentifierRange: RecurrenceIdentifierRange? {
        get { property(.recurrenceIdentifier)?[parameter: .range].map(RecurrenceIdentifierRange.init(rawValue:)) }
        set {
            guard newValue != recurrenceIdentifierRange,
                  let index = properties.firstIndex(where: { $0.matches(.recurrenceIdentifier) }) else { return }
            properties[index].setParameter(.range, to: newValue?.rawValue)
        }
    }

    /// URL (RFC 5545 §3.8.4.6).
    public var url: URI? {
        get { property(.url)?.uriValue }
        set {
            guard newValue != url else { return }
            setSingle(.url, newValue.map { value in { $0.rawValue = value.rawValue } })
        }
    }

    /// ORGANIZER with its parameters (RFC 5545 §3.8.4.3). The corresponding libical function
    /// is `icalproperty_get_organizer`.
    public var organizer: CalendarUserAddress? {
        get { property(.organizer).map(CalendarUserAddress.init) }
        set {
            guard newValue != organizer else { return }
            setSingle(.organizer, newValue.map { value in { $0.parameters = value.parameters; $0.rawValue = value.address } })
        }
    }

    /// Every ATTENDEE with its parameters, in order (RFC 5545 §3.8.4.1). Setting updates the
    /// existing ATTENDEE properties one by one in place, appends extra ones and removes those
    /// beyond the new count.
    public var attendees: [CalendarUserAddress] {
        get { properties(.attendee).map(CalendarUserAddress.init) }
        set {
            guard newValue != attendees else { return }
            replaceAll(.attendee, count: newValue.count) { property, index in
                property.parameters = newValue[index].parameters
                property.rawValue = newValue[index].address
            }
        }
    }

    // MARK: Recurrence (RFC 5545 §3.8.5)

    /// Every RRULE that can be read, in order (RFC 5545 §3.8.5.3). Setting updates the RRULE
    /// properties one by one in place (an unchanged rule keeps its text).
    public var recurrenceRules: [RecurrenceRule] {
        get { properties(.recurrenceRule).compactMap(\.recurrenceRuleValue) }
        set {
            guard newValue != recurrenceRules else { return }
            replaceAll(.recurrenceRule, count: newValue.count) { property, index in
                if property.recurrenceRuleValue != newValue[index] { property.rawValue = newValue[index].iCalendarText }
            }
        }
    }

    /// Every RDATE value across all RDATE properties, in order, each read with its
    /// property's VALUE (PERIOD, DATE) and TZID (RFC 5545 §3.8.5.2). Setting groups
    /// consecutive values of the same type and zone into one property each, reusing the
    /// existing RDATE properties in place.
    public var recurrenceDates: [RecurrenceDate] {
        get { properties(.recurrenceDates).flatMap(\.recurrenceDateValues) }
        set {
            guard newValue != recurrenceDates else { return }
            let groups = Self.group(newValue) { value -> String in
                switch value {
                case .period(let period): return "PERIOD|" + (period.start.timeZoneIdentifier ?? "")
                case .dateTime(let dateTime): return (dateTime.isDate ? "DATE|" : "DATE-TIME|") + (dateTime.timeZoneIdentifier ?? "")
                }
            }
            replaceAll(.recurrenceDates, count: groups.count) { property, index in
                property.setRecurrenceDateValues(groups[index])
            }
        }
    }

    /// Every EXDATE value across all EXDATE properties, in order, each read with its
    /// property's VALUE and TZID (RFC 5545 §3.8.5.1). Setting groups consecutive values of
    /// the same type and zone into one property each, reusing existing EXDATE properties.
    public var exceptionDates: [DateTime] {
        get { properties(.exceptionDates).flatMap(\.dateTimeValues) }
        set {
            guard newValue != exceptionDates else { return }
            let groups = Self.group(newValue) { ($0.isDate ? "DATE|" : "DATE-TIME|") + ($0.timeZoneIdentifier ?? "") }
            replaceAll(.exceptionDates, count: groups.count) { property, index in
                property.setDateTimeValues(groups[index])
            }
        }
    }

    // MARK: Alarm (RFC 5545 §3.8.6)

    /// ACTION of a VALARM (RFC 5545 §3.8.6.1). The corresponding libical function is
    /// `icalproperty_get_action`.
    public var action: AlarmAction? {
        get { property(.action).map { AlarmAction(rawValue: String($0.rawValue.trimmingSpaces)) } }
        set { setKeyword(.action, newValue?.rawValue) }
    }

    /// TRIGGER of a VALARM (RFC 5545 §3.8.6.3): a duration relative to the start (or, with
    /// `RELATED=END`, the end), or with `VALUE=DATE-TIME` an absolute UTC time. The
    /// corresponding libical function is `icalproperty_get_trigger`.
    public var trigger: AlarmTrigger? {
        get {
            guard let property = property(.trigger) else { return nil }
            if property.valueType == "DATE-TIME" {
                return property.dateTimeValue.map(AlarmTrigger.absolute)
            }
            guard property.valueType == nil || property.valueType == "DURATION",
                  let duration = property.durationValue else { return nil }
            let related = property[parameter: .related].map(ASCII.uppercased) == "END" ? AlarmTrigger.Related.end : .start
            return .relative(duration, relatedTo: related)
        }
        set {
            guard newValue != trigger else { return }
            setSingle(.trigger, newValue.map { value in
                { property in
                    switch value {
                    case .relative(let duration, let related):
                        property.rawValue = duration.iCalendarText
                        property.setValueType(nil, default: "DURATION")
                        let current = property[parameter: .related].map(ASCII.uppercased)
                        if related == .end && current != "END" { property.setParameter(.related, to: "END") }
                        if related == .start && current != nil && current != "START" { property.setParameter(.related, to: nil) }
                    case .absolute(let dateTime):
                        property.rawValue = dateTime.iCalendarText
                        property.setParameter(.related, to: nil)
                        property.setTimeZoneIdentifier(nil)
                        property.setValueType("DATE-TIME", default: "DURATION")
                    }
                }
            })
        }
    }

    // MARK: Change management (RFC 5545 §3.8.7)

    /// DTSTAMP (RFC 5545 §3.8.7.2), a UTC date-time. The corresponding libical function is
    /// `icalcomponent_get_dtstamp`.
    public var dateTimeStamp: DateTime? {
        get { property(.dateTimeStamp)?.dateTimeValue }
        set { setDateTime(.dateTimeStamp, newValue) }
    }

    /// SEQUENCE as an INTEGER (RFC 5545 §3.8.7.4). The corresponding libical function is
    /// `icalcomponent_get_sequence`.
    public var sequence: Int? {
        get { property(.sequence)?.integerValue }
        set {
            guard newValue != sequence else { return }
            setSingle(.sequence, newValue.map { value in { $0.integerValue = value } })
        }
    }

    // MARK: Helpers

    /// Applies `apply` to the first property of a kind, or to a new one appended at the end;
    /// removes every property of the kind when `apply` is nil.
    mutating func setSingle(_ kind: PropertyKind, _ apply: ((inout Property) -> Void)?) {
        guard let apply else { removeProperties(kind); return }
        if let index = properties.firstIndex(where: { $0.matches(kind) }) {
            apply(&properties[index])
        } else {
            var property = Property(kind, rawValue: "")
            apply(&property)
            properties.append(property)
        }
    }

    /// Brings the properties of a kind to `count`: the first ones are updated in place, new
    /// ones are appended after the last property of the kind (or at the end), extra ones are
    /// removed.
    mutating func replaceAll(_ kind: PropertyKind, count: Int, _ update: (inout Property, Int) -> Void) {
        let indices = properties.indices.filter { properties[$0].matches(kind) }
        for index in 0..<min(count, indices.count) { update(&properties[indices[index]], index) }
        if count > indices.count {
            var insertAt = (indices.last.map { $0 + 1 }) ?? properties.endIndex
            for index in indices.count..<count {
                var property = Property(kind, rawValue: "")
                update(&property, index)
                properties.insert(property, at: insertAt)
                insertAt += 1
            }
        } else {
            for index in indices[count...].reversed() { properties.remove(at: index) }
        }
    }

    private mutating func setText(_ kind: PropertyKind, _ value: String?) {
        guard value != self[text: kind] else { return }
        setSingle(kind, value.map { text in { $0.textValue = text } })
    }

    private mutating func setKeyword(_ kind: PropertyKind, _ value: String?) {
        if let value, let current = property(kind), ASCII.uppercased(String(current.rawValue.trimmingSpaces)) == value { return }
        setSingle(kind, value.map { text in { $0.rawValue = text } })
    }

    private mutating func setDateTime(_ kind: PropertyKind, _ value: DateTime?) {
        // setSingle with a setter, finding the property once: a value it already has keeps
        // its text; nil removes every property of the kind.
        guard let value else { return removeProperties(kind) }
        if let index = properties.firstIndex(where: { $0.matches(kind) }) {
            if properties[index].dateTimeValue == value { return }
            properties[index].setDateTimeValue(value)
        } else {
            var property = Property(kind, rawValue: "")
            property.setDateTimeValue(value)
            properties.append(property)
        }
    }

    /// Splits `values` into runs of consecutive values with the same key.
    static func group<Value>(_ values: [Value], by key: (Value) -> String) -> [[Value]] {
        var groups: [[Value]] = []
        var lastKey: String?
        for value in values {
            let valueKey = key(value)
            if valueKey == lastKey, !groups.isEmpty {
                groups[groups.count - 1].append(value)
            } else {
                groups.append([value])
            }
            lastKey = valueKey
        }
        return groups
    }
}
