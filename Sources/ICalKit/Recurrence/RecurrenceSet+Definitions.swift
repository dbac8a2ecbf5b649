/// A date or date-time value with the rules of its zone resolved: nil rules mean floating
/// (a floating DATE-TIME, a DATE, or a TZID the lookup could not resolve).
struct ResolvedTime: Sendable {
    var value: DateTime
    /// The rules of the value's zone, behind one reference (see ``SharedZoneRules``); nil for
    /// a value read in the query's floating zone.
    var shared: SharedZoneRules?

    /// The rules of the value's zone, if it has its own.
    var rules: (any TimeZoneRules)? { shared?.rules }

    init(value: DateTime, rules: (any TimeZoneRules)?) {
        self.value = value
        self.shared = rules.map(SharedZoneRules.init)
    }

    /// A value in a zone whose rules another time holds already.
    init(value: DateTime, shared: SharedZoneRules?) {
        self.value = value
        self.shared = shared
    }

    /// The instant used to order and compare the value: its own zone, else `floating`.
    func key(floating: any TimeZoneRules) -> Int64 {
        if value.zone == .utc { return value.local.secondsSinceEpoch }
        return shared?.rules.instant(for: value.local) ?? floating.instant(for: value.local)
    }

    /// ``key(floating:)`` of a value and its zone's rules, without making a ResolvedTime.
    ///
    /// Written with optional chaining, which calls through the existential in place:
    /// `rules ?? floating` copied it (a call through its value witnesses) for every
    /// occurrence.
    static func key(_ value: DateTime, rules: (any TimeZoneRules)?, floating: any TimeZoneRules) -> Int64 {
        if value.zone == .utc { return value.local.secondsSinceEpoch }
        return rules?.instant(for: value.local) ?? floating.instant(for: value.local)
    }
}

/// A zone's rules behind one reference, shared by the times read in the zone: copying a time
/// or a candidate then copies a reference, where an `any TimeZoneRules` is copied through
/// its value witnesses (a tenth of a long expansion's instructions when every candidate
/// carried one).
final class SharedZoneRules: Sendable {
    let rules: any TimeZoneRules

    init(_ rules: any TimeZoneRules) { self.rules = rules }
}

/// How an instance's end follows from its start.
enum EndSpecification: Sendable {
    /// Zero length (a DATE-TIME start without DTEND, DURATION or DUE).
    case none
    /// Whole days on the calendar (all-day instances).
    case days(Int)
    /// An exact number of seconds (DTEND or DUE minus DTSTART), the end shown in `zone`.
    case exact(seconds: Int64, zone: DateTime.Zone, rules: (any TimeZoneRules)?)
    /// A DURATION: days and weeks on the wall clock, then exact seconds (RFC 5545 §3.3.6).
    case nominal(Duration)

    /// An upper bound of the length in seconds, for sizing the look-back before a window.
    var upperBoundSeconds: Int64 {
        switch self {
        case .none: return 0
        case .days(let days): return max(0, Int64(days)) * 86_400 + 7 * 3600
        case .exact(let seconds, _, _): return max(0, seconds)
        case .nominal(let duration):
            return max(0, Int64(duration.nominalDays) * 86_400 + duration.exactSeconds + 7 * 3600)
        }
    }
}

/// Resolves TZIDs through the caller's lookup and remembers those it could not resolve.
struct ZoneResolver {
    let lookup: @Sendable (String) -> (any TimeZoneRules)?
    private(set) var unresolved: [String] = []
    private var lastLookup: (identifier: String, rules: (any TimeZoneRules)?)?

    init(lookup: @escaping @Sendable (String) -> (any TimeZoneRules)?) { self.lookup = lookup }

    /// Reads a DATE or DATE-TIME property value. A floating value inside a zoned series is
    /// read in the series' zone (`seriesRules`).
    mutating func time(_ text: String, timeZoneIdentifier: String?, seriesRules: (any TimeZoneRules)?) -> ResolvedTime? {
        // Spaces are dropped (as Characters, only when there are any: most values have none).
        let value = text.utf8.contains(ASCII.space)
            ? DateTime(iCalendar: text.filter { $0 != " " }, timeZoneIdentifier: timeZoneIdentifier)
            : DateTime(iCalendar: text, timeZoneIdentifier: timeZoneIdentifier)
        guard let value else { return nil }
        switch value.zone {
        case .utc: return ResolvedTime(value: value, rules: FixedOffsetZone.utc)
        case .floating: return ResolvedTime(value: value, rules: value.isDate ? nil : seriesRules)
        case .identifier(let identifier):
            // A series' values mostly share one TZID: ask the lookup once for it.
            let found: (any TimeZoneRules)?
            if let last = lastLookup, last.identifier == identifier {
                found = last.rules
            } else {
                found = lookup(identifier)
                lastLookup = (identifier, found)
            }
            if let rules = found { return ResolvedTime(value: value, rules: rules) }
            if !unresolved.contains(identifier) { unresolved.append(identifier) }
            return ResolvedTime(value: value, rules: nil)
        }
    }

    mutating func time(_ property: Property?, seriesRules: (any TimeZoneRules)?) -> ResolvedTime? {
        guard let property else { return nil }
        return time(property.rawValue, timeZoneIdentifier: property[parameter: .timeZoneIdentifier], seriesRules: seriesRules)
    }

    /// A key naming one RECURRENCE-ID for choosing between versions of an override.
    static func identityKey(_ property: Property, lookup: @Sendable (String) -> (any TimeZoneRules)?) -> String {
        let tzid = property[parameter: .timeZoneIdentifier]
        guard let value = DateTime(iCalendar: property.rawValue, timeZoneIdentifier: tzid) else {
            return "raw:" + property.rawValue
        }
        if value.isDate { return "D\(value.date.daysSinceEpoch)" }
        switch value.zone {
        case .utc: return "I\(value.local.secondsSinceEpoch)"
        case .floating: return "L\(value.local.secondsSinceEpoch)"
        case .identifier(let identifier):
            guard let rules = lookup(identifier) else { return "L\(value.local.secondsSinceEpoch)" }
            return "I\(rules.instant(for: value.local))"
        }
    }
}

/// One RDATE value: a start, and for `VALUE=PERIOD` its own end.
struct ResolvedRecurrenceDate: Sendable {
    var start: ResolvedTime
    var end: EndSpecification?
}

/// The master of a series, read once: DTSTART, how instances end, rules, RDATE and EXDATE.
final class SeriesDefinition: Sendable {
    let component: Component
    let start: ResolvedTime
    let end: EndSpecification
    let rules: [RecurrenceRuleText]
    let recurrenceDates: [ResolvedRecurrenceDate]
    let exceptionDates: [ResolvedTime]

    var isAllDay: Bool { start.value.isDate }

    /// Nil when the component has no readable DTSTART (nor DUE for a VTODO): such a
    /// component has no occurrences.
    /// - Parameter readingExceptionDates: false to leave EXDATE unread (empty), for a
    ///   caller that only asks where the series can be.
    init?(component: Component, fields: ComponentFields, resolver: inout ZoneResolver, readingExceptionDates: Bool = true) {
        guard let start = Self.start(of: component, fields: fields, resolver: &resolver) else { return nil }
        self.component = component
        self.start = start
        self.end = Self.end(of: component, fields: fields, start: start, resolver: &resolver) ?? Self.defaultEnd(start)
        self.rules = fields.ruleCount == 0 ? []
            : component.properties(.recurrenceRule).compactMap {
                RecurrenceRuleText(PropertyValidation.RuleVerdicts.expandableText($0.rawValue))
            }

        var dates: [ResolvedRecurrenceDate] = []
        for property in fields.recurrenceDateCount == 0 ? [] : component.properties(.recurrenceDates) {
            let tzid = property[parameter: .timeZoneIdentifier]
            let isPeriod = property[parameter: .valueType].map { ASCII.equalsIgnoringCase($0, "PERIOD") } ?? false
            for item in property.rawValue.split(separator: ",") {
                let text = String(item)
                if isPeriod || text.contains("/") {
                    let pieces = text.split(separator: "/", maxSplits: 1).map(String.init)
                    guard pieces.count == 2,
                          let periodStart = resolver.time(pieces[0], timeZoneIdentifier: tzid, seriesRules: start.rules) else { continue }
                    let coerced = Self.coerce(periodStart, to: start)
                    var periodEnd: EndSpecification?
                    if let duration = Duration(iCalendar: pieces[1]) {
                        periodEnd = coerced.value.isDate
                            ? .days(max(1, duration.nominalDays + Int((duration.exactSeconds + 86_399) / 86_400)))
                            : (duration.isNegative ? EndSpecification.none : .nominal(duration))
                    } else if let endTime = resolver.time(pieces[1], timeZoneIdentifier: tzid, seriesRules: start.rules) {
                        periodEnd = Self.exactEnd(from: coerced, to: endTime)
                    }
                    dates.append(ResolvedRecurrenceDate(start: coerced, end: periodEnd))
                } else if let time = resolver.time(text, timeZoneIdentifier: tzid, seriesRules: start.rules) {
                    dates.append(ResolvedRecurrenceDate(start: Self.coerce(time, to: start), end: nil))
                }
            }
        }
        self.recurrenceDates = dates

        var exceptions: [ResolvedTime] = []
        for property in fields.exceptionDateCount == 0 || !readingExceptionDates ? [] : component.properties(.exceptionDates) {
            let tzid = property[parameter: .timeZoneIdentifier]
            for item in property.rawValue.split(separator: ",") {
                if let time = resolver.time(String(item), timeZoneIdentifier: tzid, seriesRules: start.rules) {
                    exceptions.append(time)
                }
            }
        }
        self.exceptionDates = exceptions
    }

    /// DTSTART (or DUE for a VTODO without DTSTART), read; nil when there is none.
    static func start(of component: Component, fields: ComponentFields, resolver: inout ZoneResolver) -> ResolvedTime? {
        var startProperty = component.property(at: fields.start)
        if startProperty == nil, component.matches(.todo) { startProperty = component.property(at: fields.due) }
        return resolver.time(startProperty, seriesRules: nil)
    }

    /// The end a start has without DTEND, DURATION or DUE: one day for a DATE, zero length
    /// for a DATE-TIME (RFC 5545 §3.6.1).
    static func defaultEnd(_ start: ResolvedTime) -> EndSpecification {
        start.value.isDate ? .days(1) : .none
    }

    /// The end from DTEND, DUE (VTODO) or DURATION, or nil when there is none.
    static func end(of component: Component, fields: ComponentFields, start: ResolvedTime,
                    resolver: inout ZoneResolver) -> EndSpecification? {
        let isTodo = component.matches(.todo)
        let endProperty = component.property(at: isTodo ? fields.due : fields.end)
        if let endProperty, let endTime = resolver.time(endProperty, seriesRules: start.rules) {
            // A VTODO without DTSTART starts at DUE: zero length.
            if isTodo, fields.start == nil { return defaultEnd(start) }
            return exactEnd(from: start, to: endTime)
        }
        if let text = component.property(at: fields.duration)?.rawValue,
           let duration = Duration(iCalendar: text.utf8.contains(ASCII.space) ? text.filter { $0 != " " } : text) {
            if start.value.isDate {
                let days = duration.nominalDays + Int((duration.exactSeconds + 86_399) / 86_400)
                return days > 0 ? .days(days) : .days(1)
            }
            return duration.isNegative ? EndSpecification.none : .nominal(duration)
        }
        return nil
    }

    /// DTEND minus DTSTART as an exact length, coerced to DTSTART's type; an end before
    /// the start gives zero length.
    static func exactEnd(from start: ResolvedTime, to end: ResolvedTime) -> EndSpecification {
        if start.value.isDate {
            let days = end.value.date.daysSinceEpoch - start.value.date.daysSinceEpoch
            return days > 0 ? .days(days) : .days(1)
        }
        // Floating sides are read as UTC here: only their wall-clock difference matters.
        let utc = FixedOffsetZone.utc
        let endValue = end.value.isDate ? ResolvedTime(value: DateTime(LocalDateTime(date: end.value.date), zone: start.value.zone),
                                                       rules: start.rules) : end
        let seconds = endValue.key(floating: utc) - start.key(floating: utc)
        guard seconds > 0 else { return EndSpecification.none }
        return .exact(seconds: seconds, zone: endValue.value.zone, rules: endValue.rules)
    }

    /// A value coerced to DTSTART's type: a DATE in a DATE-TIME series gets DTSTART's time
    /// of day and zone; a DATE-TIME in an all-day series keeps its date as written.
    static func coerce(_ time: ResolvedTime, to start: ResolvedTime) -> ResolvedTime {
        if start.value.isDate && !time.value.isDate {
            return ResolvedTime(value: DateTime(date: time.value.date), rules: nil)
        }
        if !start.value.isDate && time.value.isDate {
            return ResolvedTime(value: DateTime(LocalDateTime(date: time.value.date, time: start.value.local.time),
                                                zone: start.value.zone), rules: start.rules)
        }
        return time
    }
}

/// One override (a component with RECURRENCE-ID), read once.
struct OverrideDefinition: Sendable {
    let component: Component
    let recurrenceIdentifier: ResolvedTime
    let start: ResolvedTime
    let hasOwnStart: Bool
    let end: EndSpecification?
    let isThisAndFuture: Bool
    /// STATUS:CANCELLED, unless the set lists cancelled instances
    /// (``RecurrenceSet/includingCancelledInstances()``).
    var isCancelled: Bool

    init?(component: Component, fields: ComponentFields, series: SeriesDefinition?, resolver: inout ZoneResolver) {
        guard let property = component.property(at: fields.recurrenceIdentifier),
              let recurrenceIdentifier = resolver.time(property, seriesRules: series?.start.rules) else { return nil }
        self.component = component
        self.recurrenceIdentifier = recurrenceIdentifier
        let ownStart = resolver.time(component.property(at: fields.start), seriesRules: series?.start.rules)
        self.hasOwnStart = ownStart != nil
        let start = ownStart ?? recurrenceIdentifier
        self.start = start
        self.end = SeriesDefinition.end(of: component, fields: fields, start: start, resolver: &resolver)
        self.isThisAndFuture = property[parameter: .range].map { ASCII.equalsIgnoringCase($0, "THISANDFUTURE") } ?? false
        self.isCancelled = component.property(at: fields.status).map { ASCII.equalsIgnoringCase($0.rawValue, "CANCELLED") } ?? false
    }

    /// How this override's own occurrence ends: its own DTEND/DURATION/DUE; else the
    /// default for its start type when it has its own DTSTART; else the series' end.
    func ownEnd(series: SeriesDefinition?) -> EndSpecification {
        if let end { return end }
        if hasOwnStart || series == nil { return SeriesDefinition.defaultEnd(start) }
        return series?.end ?? SeriesDefinition.defaultEnd(start)
    }
}
