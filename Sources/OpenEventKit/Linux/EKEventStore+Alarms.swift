import Foundation
import ICalKit

/// Alarms for the service that rings them (`ical alarms`, `ical alarms watch`): which alarms
/// trigger in a window, and dismissing or snoozing one into its item (RFC 9074), so that a
/// synced server and a second machine know it was handled. EventKit leaves this to the
/// system; on Linux, OpenEventKit is that system.
extension EKEventStore {
    /// How far from an occurrence an alarm may trigger and still be found in the store: the
    /// query index picks the items whose occurrences meet the window widened by this much
    /// (``AlarmQuery/Limits/maximumOffset``, a year and a day).
    static let alarmReach = AlarmQuery.Limits.standard.maximumOffset

    /// The alarms that trigger in a window on the items the app can read (full access to
    /// events for events, to reminders for to-dos; nothing otherwise), with the rules of
    /// ``AlarmQuery``. A trigger's source is `calendar-identifier/item.ics`.
    ///
    /// An absolute alarm is found when its item has an occurrence within a year of the
    /// window (or no time at all).
    public func alarms(in window: Range<Int64>, calendars: [EKCalendar]? = nil, kinds: Set<ComponentKind> = [.event, .todo],
                       floatingZone: any TimeZoneRules, includingAcknowledged: Bool = false) -> AlarmQuery.Result {
        let (collections, effectiveKinds) = readableCollections(calendars: calendars, kinds: kinds)
        guard !effectiveKinds.isEmpty else { return AlarmQuery.Result(instances: [], diagnostics: []) }
        return lock.withLock {
            state.diagnostics = []
            let wide = window.lowerBound.subtractingClamped(Self.alarmReach)..<window.upperBound.addingClamped(Self.alarmReach)
            let sources = querySources(in: collections, window: wide, kinds: effectiveKinds)
            var query = AlarmQuery(window: window, floatingZone: floatingZone, kinds: effectiveKinds)
            query.includesAcknowledged = includingAcknowledged
            var result = query.run(sources)
            result.diagnostics = state.diagnostics + result.diagnostics
            return result
        }
    }

    /// Dismisses or snoozes an alarm found by ``alarms(in:calendars:kinds:floatingZone:includingAcknowledged:)``:
    /// writes RFC 9074's `ACKNOWLEDGED` (and for a snooze, a snooze alarm) into its item, as
    /// ``AlarmAcknowledgement`` describes, and commits at once.
    ///
    /// Needs full access to the item's type. The item is read again first: a change made
    /// since (by a sync, or another program) is kept. An alarm that was removed or changed
    /// since it rang, or an item that is gone, is an ``EKError/Code/internalFailure`` whose
    /// message says so; an alarm of another store is
    /// ``EKError/Code/objectBelongsToDifferentStore``.
    public func acknowledgeAlarm(_ instance: AlarmInstance, _ action: AlarmAcknowledgement.Action, at now: Date = Date()) throws {
        let type: EKEntityType = instance.component.matches(.todo) ? .reminder : .event
        guard level(type) == .full else { throw notAuthorized(type, "dismissing or snoozing an alarm") }
        guard let source = instance.source, let slash = source.firstIndex(of: "/") else {
            throw EKError(.objectBelongsToDifferentStore, "the alarm does not come from this store")
        }
        let key = ItemKey(collection: String(source[..<slash]), name: String(source[source.index(after: slash)...]))
        try performChange(commit: true) { () throws(EKError) in
            // As this store sees it now: the pending batch's version, else the file.
            guard let current = readItem(key) else {
                throw EKError(.internalFailure, "the item of the alarm (\(source)) cannot be read")
            }
            let instant = Int64(now.timeIntervalSince1970.rounded(.down))
            let updated: Component
            do throws(ICalError) {
                updated = try AlarmAcknowledgement.apply(action, to: instance, in: current.calendar, at: instant) { UUID().uuidString }
            } catch {
                throw EKError(.internalFailure, error.message)
            }
            stage(key, content: updated, expecting: current.identity.map { .identity($0) } ?? .absent)
        }
    }
}
