/// Typed views of a property's value.
///
/// Getters decode ``Property/rawValue`` with the property's VALUE and TZID parameters and
/// return nil (or skip an item of a list) when the text does not fit the type. Setters
/// change only the value and the parameters the value needs (TZID, VALUE): every other
/// parameter, X- parameters included, keeps its text and position.
extension Property {
    /// The VALUE parameter, uppercased, if present.
    public var valueType: String? { self[parameter: .valueType].map(ASCII.uppercased) }

    /// The TZID parameter, if present and not empty.
    public var timeZoneIdentifier: String? {
        guard let identifier = self[parameter: .timeZoneIdentifier], !identifier.isEmpty else { return nil }
        return identifier
    }

    // MARK: DATE and DATE-TIME

    /// The value as one DATE or DATE-TIME (DTSTART, DTEND, DUE, RECURRENCE-ID, DTSTAMP),
    /// built from the text, the TZID parameter and the VALUE parameter; nil when the text
    /// is not a real date or does not match VALUE (`VALUE=DATE:20240101T100000`).
    ///
    /// The corresponding libical function is `icalproperty_get_dtstart` (and its siblings).
    /// See RFC 5545 §3.3.4, §3.3.5 and §3.2.19.
    public var dateTimeValue: DateTime? {
        Self.dateTime(rawValue.trimmingSpaces, valueType: valueType, timeZoneIdentifier: timeZoneIdentifier)
    }

    /// Sets the value to one DATE or DATE-TIME: writes the text, sets or removes TZID as the
    /// zone requires, and writes `VALUE=DATE` for a DATE (an existing `VALUE=DATE-TIME` on a
    /// DATE-TIME is kept; any other VALUE is removed). Other parameters are untouched.
    public mutating func setDateTimeValue(_ value: DateTime) {
        // setDateTimeValues([value]), without the array and the joined string.
        rawValue = value.iCalendarText
        setTimeZoneIdentifier(value.timeZoneIdentifier)
        setValueType(value.isDate ? "DATE" : nil, default: "DATE-TIME")
    }

    /// The values of a multi-valued DATE or DATE-TIME property (EXDATE, or RDATE without
    /// `VALUE=PERIOD`), in order; items that are not real dates are skipped.
    ///
    /// See RFC 5545 §3.8.5.1.
    public var dateTimeValues: [DateTime] {
        let type = valueType, zone = timeZoneIdentifier
        return rawValue.split(separator: ",").compactMap {
            Self.dateTime(String($0).trimmingSpaces, valueType: type, timeZoneIdentifier: zone)
        }
    }

    /// Sets several DATE or DATE-TIME values on this one property. They share the property's
    /// TZID and VALUE, which are taken from the first value.
    public mutating func setDateTimeValues(_ values: [DateTime]) {
        rawValue = values.map(\.iCalendarText).joined(separator: ",")
        let first = values.first
        setTimeZoneIdentifier(first?.timeZoneIdentifier)
        setValueType(first?.isDate == true ? "DATE" : nil, default: "DATE-TIME")
    }

    // MARK: RDATE

    /// The values of an RDATE: periods with `VALUE=PERIOD`, dates with `VALUE=DATE`,
    /// date-times otherwise, all read with the property's TZID; unreadable items are skipped.
    ///
    /// See RFC 5545 §3.8.5.2. (libical 3.0.16 reads a zoned RDATE as UTC and ignores
    /// periods in expansion; ICalKit reads both as written.)
    public var recurrenceDateValues: [RecurrenceDate] {
        let type = valueType, zone = timeZoneIdentifier
        return rawValue.split(separator: ",").compactMap { item -> RecurrenceDate? in
            let text = String(item).trimmingSpaces
            if type == "PERIOD" || (type == nil && text.contains("/")) {
                return Period(iCalendar: text, timeZoneIdentifier: zone).map(RecurrenceDate.period)
            }
            return Self.dateTime(text, valueType: type, timeZoneIdentifier: zone).map(RecurrenceDate.dateTime)
        }
    }

    /// Sets RDATE values on this one property; TZID and VALUE come from the first value
    /// (`VALUE=PERIOD` for periods, `VALUE=DATE` for dates).
    public mutating func setRecurrenceDateValues(_ values: [RecurrenceDate]) {
        rawValue = values.map(\.iCalendarText).joined(separator: ",")
        switch values.first {
        case .period(let period)?:
            setTimeZoneIdentifier(period.start.timeZoneIdentifier)
            setValueType("PERIOD", default: "DATE-TIME")
        case .dateTime(let dateTime)?:
            setTimeZoneIdentifier(dateTime.timeZoneIdentifier)
            setValueType(dateTime.isDate ? "DATE" : nil, default: "DATE-TIME")
        case nil:
            setTimeZoneIdentifier(nil)
        }
    }

    // MARK: Other types

    /// The value as a DURATION (RFC 5545 §3.3.6); nil when it is not one.
    public var durationValue: Duration? { Duration(iCalendar: rawValue.trimmingSpaces) }

    /// The value as an INTEGER (RFC 5545 §3.3.8), surrounding spaces ignored; the setter
    /// writes it.
    public var integerValue: Int? {
        get { ScalarValue.integer(iCalendar: rawValue.trimmingSpaces) }
        set { rawValue = newValue.map(ScalarValue.integerText) ?? "" }
    }

    /// The value as a BOOLEAN (RFC 5545 §3.3.2); the setter writes `TRUE` or `FALSE`.
    public var booleanValue: Bool? {
        get { ScalarValue.boolean(iCalendar: rawValue.trimmingSpaces) }
        set { rawValue = newValue.map(ScalarValue.booleanText) ?? "" }
    }

    /// The value as a UTC-OFFSET (TZOFFSETFROM, TZOFFSETTO; RFC 5545 §3.3.14).
    public var utcOffsetValue: UTCOffset? { UTCOffset(iCalendar: rawValue.trimmingSpaces) }

    /// The value as a GEO position (RFC 5545 §3.8.1.6).
    public var geographicPositionValue: GeographicPosition? { GeographicPosition(iCalendar: rawValue.trimmingSpaces) }

    /// The value as a URI (URL, TZURL, ATTACH;VALUE=URI; RFC 5545 §3.3.13).
    public var uriValue: URI? { URI(rawValue: rawValue) }

    /// The value as a RECUR rule (RRULE, EXRULE; RFC 5545 §3.3.10).
    public var recurrenceRuleValue: RecurrenceRule? { RecurrenceRule(iCalendar: rawValue) }

    // MARK: Helpers

    /// Sets TZID in place when it differs, appends it when absent, removes it on nil. An equal
    /// TZID keeps its text (quotes included).
    mutating func setTimeZoneIdentifier(_ identifier: String?) {
        if self[parameter: .timeZoneIdentifier] != identifier { setParameter(.timeZoneIdentifier, to: identifier) }
    }

    /// Writes `VALUE=type`, or, for the default type (nil), keeps an explicit `VALUE=default`
    /// and removes any other VALUE.
    mutating func setValueType(_ type: String?, default defaultType: String) {
        let current = valueType
        if let type {
            if current != type { setParameter(.valueType, to: type) }
        } else if current != nil && current != defaultType {
            setParameter(.valueType, to: nil)
        }
    }

    static func dateTime(_ text: some StringProtocol, valueType: String?, timeZoneIdentifier: String?) -> DateTime? {
        guard let value = DateTime(iCalendar: text, timeZoneIdentifier: timeZoneIdentifier) else { return nil }
        switch valueType {
        case nil: return value
        case "DATE": return value.isDate ? value : nil
        case "DATE-TIME": return value.isDate ? nil : value
        default: return nil
        }
    }
}
