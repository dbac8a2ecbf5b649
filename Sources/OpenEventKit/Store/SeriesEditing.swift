import Foundation
import ICalKit

/// How saving and removing with a span changes an item's VCALENDAR: overrides, EXDATEs,
/// truncating a series and splitting it. Pure functions on components, so each rule can be
/// tested and reasoned about alone.
///
/// - `.thisEvent` on an occurrence writes an override: a copy of the series' VEVENT with
///   `RECURRENCE-ID` set to the occurrence's slot and the edited properties (RFC 5545
///   §3.8.4.4). Removing it adds an `EXDATE` for the slot and drops its override.
/// - `.futureEvents` on a later occurrence splits the series, as most clients do: the
///   series ends just before the occurrence (`UNTIL`, with `COUNT` turned into the `UNTIL`
///   it implied), and a new series with a new UID starts at the occurrence, carrying the
///   edits, the remaining `COUNT`, and the later RDATEs, EXDATEs and overrides (shifted when
///   the edit moved the start). Removing truncates the series the same way.
/// - `.futureEvents` on the first occurrence changes the whole series (or removes it).
enum SeriesEditing {
    /// Properties that describe the series' recurrence, which an override does not carry.
    static let recurrenceNames: Set<String> = ["RRULE", "RDATE", "EXDATE", "EXRULE"]
    /// Properties that say when an instance happens.
    static let timingNames: Set<String> = ["DTSTART", "DTEND", "DURATION", "DUE"]

    /// The index of the master (the component without RECURRENCE-ID) of `uid`.
    static func masterIndex(in calendar: Component, uid: String) -> Int? {
        calendar.components.firstIndex { isItem($0) && $0.uid == uid && $0.property(.recurrenceIdentifier) == nil }
    }

    /// The index of the override of `uid` for the slot at `instant`.
    static func overrideIndex(in calendar: Component, uid: String, slotInstant: Int64, resolver: TimeZoneResolver) -> Int? {
        calendar.components.firstIndex { component in
            guard isItem(component), component.uid == uid, let rid = component.recurrenceIdentifier else { return false }
            return resolver.instant(for: rid, floatingZone: ItemTime.defaultZone()) == slotInstant
        }
    }

    static func isItem(_ component: Component) -> Bool {
        component.matches(.event) || component.matches(.todo) || component.matches(.journal)
    }

    /// Copies the properties named in `names` (and the alarms, for `VALARM`) from `source`
    /// onto `target`: each named kind is replaced as a whole, at the place it had.
    static func apply(_ names: Set<String>, from source: Component, to target: inout Component) {
        var names = names
        if !names.isDisjoint(with: timingNames) { names.formUnion(["DTSTART", "DTEND", "DURATION"]) }
        for name in names where name != "VALARM" {
            let replacement = source.properties.filter { $0.name.uppercased() == name }
            let position = target.properties.firstIndex { $0.name.uppercased() == name }
            target.properties.removeAll { $0.name.uppercased() == name }
            let insertAt = min(position ?? target.properties.endIndex, target.properties.endIndex)
            target.properties.insert(contentsOf: replacement, at: insertAt)
        }
        if names.contains("VALARM") {
            target.components = target.components.filter { !$0.matches(.alarm) } + source.components(.alarm)
        }
    }

    /// An override for the slot `recurrenceIdentifier`: the occurrence's component without
    /// the series' recurrence properties, with RECURRENCE-ID.
    static func override(from occurrence: Component, recurrenceIdentifier: DateTime) -> Component {
        var result = occurrence
        result.properties.removeAll { recurrenceNames.contains($0.name.uppercased()) || $0.matches(.recurrenceIdentifier) }
        var property = Property(.recurrenceIdentifier, rawValue: "")
        property.setDateTimeValue(recurrenceIdentifier)
        // RECURRENCE-ID goes right after DTSTART, where readers expect it.
        let position = result.properties.firstIndex { $0.matches(.dateTimeStart) }.map { $0 + 1 } ?? result.properties.endIndex
        result.properties.insert(property, at: position)
        return result
    }

    /// Adds an EXDATE for `slot` (in DTSTART's form) to a master.
    static func exclude(_ slot: DateTime, from master: inout Component) {
        var property = Property(.exceptionDates, rawValue: "")
        property.setDateTimeValue(slot)
        let position = master.properties.lastIndex { recurrenceNames.contains($0.name.uppercased()) }.map { $0 + 1 }
            ?? master.properties.endIndex
        master.properties.insert(property, at: position)
    }

    /// The UNTIL that ends a series just before `slot`, in the form RFC 5545 requires for a
    /// series starting at `start`: a DATE for a DATE start, a floating time for a floating
    /// start, UTC otherwise.
    static func until(before slot: DateTime, slotInstant: Int64, start: DateTime) -> DateTime {
        if start.isDate { return DateTime(date: slot.local.date.adding(days: -1)) }
        if start.isFloating { return DateTime(slot.local.adding(seconds: -1), zone: .floating) }
        return DateTime(LocalDateTime(secondsSinceEpoch: slotInstant - 1), zone: .utc)
    }

    /// Ends a master's series just before `slotInstant`: its RRULEs get UNTIL (COUNT removed),
    /// RDATEs and EXDATEs at or after the slot are dropped.
    static func truncate(_ master: inout Component, before slot: DateTime, slotInstant: Int64, resolver: TimeZoneResolver) {
        guard let start = master.dateTimeStart else { return }
        let floating = ItemTime.defaultZone()
        let limit = until(before: slot, slotInstant: slotInstant, start: start)
        master.recurrenceRules = master.recurrenceRules.map { rule in
            var rule = rule
            if let until = rule.until, resolver.instant(for: until, floatingZone: floating) < slotInstant, rule.count == nil {
                return rule
            }
            rule.count = nil
            rule.until = limit
            return rule
        }
        filterDates(in: &master, resolver: resolver) { $0 < slotInstant }
    }

    /// Keeps only the RDATE and EXDATE values whose instant passes `keep`; drops properties
    /// left empty.
    static func filterDates(in component: inout Component, resolver: TimeZoneResolver, keep: (Int64) -> Bool) {
        let floating = ItemTime.defaultZone()
        var properties: [Property] = []
        for var property in component.properties {
            if property.matches(.exceptionDates) {
                let kept = property.dateTimeValues.filter { keep(resolver.instant(for: $0, floatingZone: floating)) }
                if kept.isEmpty { continue }
                if kept.count != property.dateTimeValues.count { property.setDateTimeValues(kept) }
            } else if property.matches(.recurrenceDates) {
                let values = property.recurrenceDateValues
                let kept = values.filter { keep(resolver.instant(for: $0.start, floatingZone: floating)) }
                if kept.isEmpty { continue }
                if kept.count != values.count { property.setRecurrenceDateValues(kept) }
            }
            properties.append(property)
        }
        component.properties = properties
    }

    /// Shifts every RDATE and EXDATE value by `seconds` on the wall clock.
    static func shiftDates(in component: inout Component, by seconds: Int64) {
        guard seconds != 0 else { return }
        for index in component.properties.indices {
            var property = component.properties[index]
            if property.matches(.exceptionDates) {
                property.setDateTimeValues(property.dateTimeValues.map { shift($0, by: seconds) })
            } else if property.matches(.recurrenceDates) {
                property.setRecurrenceDateValues(property.recurrenceDateValues.map { value in
                    switch value {
                    case .dateTime(let dateTime): .dateTime(shift(dateTime, by: seconds))
                    case .period(var period):
                        { () -> RecurrenceDate in
                            period.start = shift(period.start, by: seconds)
                            if case .dateTime(let end) = period.end { period.end = .dateTime(shift(end, by: seconds)) }
                            return .period(period)
                        }()
                    }
                })
            } else {
                continue
            }
            component.properties[index] = property
        }
    }

    /// A value moved by `seconds` on its own wall clock (a DATE by whole days).
    static func shift(_ value: DateTime, by seconds: Int64) -> DateTime {
        var result = value
        if value.isDate {
            result.local = LocalDateTime(date: value.local.date.adding(days: Int(seconds / 86_400)))
        } else {
            result.local = value.local.adding(seconds: seconds)
        }
        return result
    }

    /// How many instances the series (master alone) has before `slotInstant`.
    static func instancesBefore(_ slotInstant: Int64, master: Component, resolver: TimeZoneResolver) -> Int? {
        guard let start = master.dateTimeStart else { return nil }
        let floating = ItemTime.defaultZone()
        let startInstant = resolver.instant(for: start, floatingZone: floating)
        guard slotInstant > startInstant else { return 0 }
        var plain = master
        plain.removeProperties(.recurrenceIdentifier)
        let set = RecurrenceSet(components: [plain], zoneLookup: { resolver.resolve($0)?.rules })
        let budget = ExpansionBudget(maximumOccurrences: 1_000_000, maximumIteratorSteps: 5_000_000)
        var count = 0
        var iterator = set.occurrences(in: (startInstant - 1)..<slotInstant, floatingZone: floating, budget: budget).makeIterator()
        while let occurrence = iterator.next() {
            if resolver.instant(for: occurrence.recurrenceIdentifier, floatingZone: floating) < slotInstant { count += 1 }
        }
        return iterator.truncation == nil ? count : nil
    }

    /// The result of splitting a series.
    struct Split {
        /// The item with the series ended before the slot (nil when nothing of it is left).
        var remaining: Component?
        /// The new series' VCALENDAR.
        var future: Component
        /// The new series' master.
        var futureMaster: Component
    }

    /// Splits the series of `uid` in `calendar` at `slot`: see the type's documentation.
    ///
    /// - Parameters:
    ///   - edited: the occurrence as the user edited it; `changed` names its edited properties.
    ///   - originalStart: the occurrence's start before the edit (the edit's shift is measured from it).
    static func split(_ calendar: Component, uid: String, slot: DateTime, slotInstant: Int64, edited: Component,
                      changed: Set<String>, originalStart: DateTime, newUID: String, resolver: TimeZoneResolver) -> Split? {
        guard let masterIndex = masterIndex(in: calendar, uid: uid) else { return nil }
        let floating = ItemTime.defaultZone()
        let master = calendar.components[masterIndex]
        guard let masterStart = master.dateTimeStart else { return nil }

        // The future series: the master with the edits, starting at the (edited) slot.
        var future = master
        future.uid = newUID
        apply(changed.subtracting(timingNames).subtracting(recurrenceNames).subtracting(["RECURRENCE-ID", "UID"]),
              from: edited, to: &future)
        if changed.contains("RRULE") {
            apply(["RRULE"], from: edited, to: &future)
        }
        let editedStart = edited.dateTimeStart ?? originalStart
        let elapsedShift: Int64
        if editedStart.isDate == originalStart.isDate {
            elapsedShift = resolver.instant(for: editedStart, floatingZone: floating) - resolver.instant(for: originalStart, floatingZone: floating)
        } else {
            elapsedShift = 0
        }
        let wallShift = editedStart.isDate == originalStart.isDate && editedStart.zone == originalStart.zone
            ? editedStart.local.secondsSinceEpoch - originalStart.local.secondsSinceEpoch : elapsedShift
        if !changed.isDisjoint(with: timingNames) {
            apply(["DTSTART"], from: edited, to: &future)
        } else {
            var start = slot
            if start.isDate != masterStart.isDate { start = masterStart }
            future.dateTimeStart = start
            if master.dateTimeEnd != nil, let masterEnd = master.dateTimeEnd {
                let length = resolver.instant(for: masterEnd, floatingZone: floating) - resolver.instant(for: masterStart, floatingZone: floating)
                future.dateTimeEnd = shiftedInstantValue(start, by: length, resolver: resolver)
            }
        }
        if let count = future.recurrenceRules.first?.count,
           let before = instancesBefore(slotInstant, master: master, resolver: resolver) {
            var rules = future.recurrenceRules
            rules[0].count = max(1, count - before)
            future.recurrenceRules = rules
        }
        future.removeProperties(.exceptionDates)
        future.removeProperties(.recurrenceDates)
        for property in master.properties where property.matches(.exceptionDates) || property.matches(.recurrenceDates) {
            future.properties.append(property)
        }
        filterDates(in: &future, resolver: resolver) { $0 >= slotInstant }
        shiftDates(in: &future, by: wallShift)

        // Later overrides move to the future series (the edited slot's own override is merged).
        var futureCalendar = calendar
        var remainingCalendar = calendar
        var movedOverrides: [Component] = []
        var remainingComponents: [Component] = []
        for (index, component) in calendar.components.enumerated() {
            if index == masterIndex { continue }
            if isItem(component), component.uid == uid, let rid = component.recurrenceIdentifier {
                let instant = resolver.instant(for: rid, floatingZone: floating)
                if instant >= slotInstant {
                    if instant == slotInstant { continue }
                    var moved = component
                    moved.uid = newUID
                    if var ridProperty = moved.property(.recurrenceIdentifier) {
                        ridProperty.setDateTimeValue(shift(rid, by: wallShift))
                        moved.setProperty(ridProperty)
                    }
                    movedOverrides.append(moved)
                    continue
                }
            }
            remainingComponents.append(component)
        }
        futureCalendar.components = calendar.components.filter { $0.matches(.timeZone) } + [future] + movedOverrides

        var remainingMaster = master
        truncate(&remainingMaster, before: slot, slotInstant: slotInstant, resolver: resolver)
        let startInstant = resolver.instant(for: masterStart, floatingZone: floating)
        if slotInstant <= startInstant {
            return Split(remaining: nil, future: futureCalendar, futureMaster: future)
        }
        var components = remainingComponents
        components.insert(remainingMaster, at: min(masterIndex, components.count))
        remainingCalendar.components = components
        return Split(remaining: remainingCalendar, future: futureCalendar, futureMaster: future)
    }

    /// `start` moved by `seconds` of elapsed time, in `start`'s form.
    static func shiftedInstantValue(_ start: DateTime, by seconds: Int64, resolver: TimeZoneResolver) -> DateTime {
        if start.isDate { return DateTime(date: start.local.date.adding(days: Int(seconds / 86_400))) }
        switch start.zone {
        case .floating: return DateTime(start.local.adding(seconds: seconds), zone: .floating)
        case .utc: return DateTime(start.local.adding(seconds: seconds), zone: .utc)
        case .identifier(let tzid):
            guard let rules = resolver.resolve(tzid)?.rules else { return DateTime(start.local.adding(seconds: seconds), zone: start.zone) }
            return DateTime(rules.local(at: rules.instant(for: start.local) + seconds), zone: start.zone)
        }
    }
}
