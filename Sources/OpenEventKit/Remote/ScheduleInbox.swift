import Foundation
import ICalKit

/// The scheduling Inbox of a CalDAV account (RFC 6638 §2.2), read at each sync of a server
/// that schedules (one whose principal names a `schedule-inbox-URL`).
///
/// A server with implicit scheduling delivers an invitation into the attendee's calendar and
/// leaves the iTIP message (RFC 5546) in the Inbox; some deliver to the Inbox only (the
/// attendee has no default calendar yet, or the server does not add invitations). What each
/// message does here:
///
/// - `REQUEST`: when no mirrored calendar of the account has the event yet, it is added to
///   the account's first writable calendar, as it came (its METHOD left
///   out), so that it shows as an invitation (the user's `PARTSTAT` is `NEEDS-ACTION`) and
///   goes up with the sync; answering it then is answering any invitation.
/// - `CANCEL`: the event (or the instances it names) is marked `STATUS:CANCELLED` where the
///   server did not already.
/// - `REPLY` and the rest: the server applied them to the organizer's copy.
///
/// Every message handled is removed from the Inbox, as RFC 6638 §2.2 asks of the client that
/// processes it. At most ``maximumMessages`` are read per sync (network input is bounded).
struct ScheduleInbox {
    /// The most Inbox messages one sync reads.
    static let maximumMessages = 200

    let store: FolderStore
    let client: CalDAVClient

    /// What one pass did.
    struct Report: Sendable, Hashable {
        /// Invitations found only in the Inbox, added to a calendar.
        var added = 0
        /// Events marked cancelled by a CANCEL.
        var cancelled = 0
        /// Messages removed from the Inbox.
        var removed = 0
        /// The collections changed here (to sync again, so that the changes go up now).
        var changed: Set<String> = []
    }

    /// Reads the Inbox at `inbox` and files its messages into the source's collections.
    func process(inbox: String, calendars: [MirroredCalendar]) throws -> Report {
        var report = Report()
        let listed = Array(try client.listItems(in: inbox).prefix(Self.maximumMessages))
        guard !listed.isEmpty else { return report }
        let messages = try client.fetch(listed.map(\.href), from: inbox)

        // The items of the account's calendars, by UID.
        var items: [String: StoredItem] = [:]
        for calendar in calendars {
            guard let contents = try? store.readCollection(calendar.collection) else { continue }
            for item in contents.items { if let uid = item.uid { items[uid] = item } }
        }
        let target = calendars.first { $0.writable }?.collection

        var batch = Batch()
        var handled: [RemoteVersion] = []
        var staged = Set<String>()
        for version in listed {
            guard let message = messages[version.href],
                  let calendar = try? ICalReader().read(Array(message.data.utf8), file: version.href).calendars.first else { continue }
            let method = calendar.property("METHOD").map { $0.rawValue.trimmingCharacters(in: .whitespaces).uppercased() } ?? ""
            let events = calendar.components.filter { $0.matches(.event) || $0.matches(.todo) }
            guard let uid = events.first?.uid, !uid.isEmpty else { handled.append(version); continue }
            switch method {
            case "REQUEST":
                if items[uid] == nil, !staged.contains(uid), let target {
                    var item = calendar
                    item.removeProperties("METHOD")
                    try batch.put(item, into: target, expecting: .absent)
                    staged.insert(uid)
                    report.added += 1
                    report.changed.insert(target)
                }
                handled.append(version)
            case "CANCEL":
                if let stored = items[uid], !staged.contains(uid) {
                    let cancelled = Self.cancelling(stored.calendar, by: events)
                    if cancelled != stored.calendar {
                        try batch.put(cancelled, into: stored.file.collection, name: stored.file.name,
                                      expecting: .identity(stored.file.identity))
                        staged.insert(uid)
                        report.cancelled += 1
                        report.changed.insert(stored.file.collection)
                    }
                }
                handled.append(version)
            default:
                handled.append(version)
            }
        }
        if !batch.isEmpty { _ = try store.commit(batch) }
        for version in handled {
            do {
                try client.delete(version.href, etag: version.etag)
                report.removed += 1
            } catch {
                continue   // changed meanwhile: read again at the next sync
            }
        }
        return report
    }

    /// The item with the instances a CANCEL names marked `STATUS:CANCELLED`: the whole event
    /// when the message names no RECURRENCE-ID, else those instances (an override made for
    /// an instance that has none yet is not invented: the master's EXDATE is the server's).
    static func cancelling(_ item: Component, by cancelled: [Component]) -> Component {
        var item = item
        let named = cancelled.compactMap { $0.property(.recurrenceIdentifier)?.dateTimeValue?.local }
        for index in item.components.indices where item.components[index].matches(.event) || item.components[index].matches(.todo) {
            let instance = item.components[index].property(.recurrenceIdentifier)?.dateTimeValue?.local
            guard named.isEmpty || instance.map(named.contains) == true else { continue }
            if item.components[index].status?.rawValue.uppercased() != "CANCELLED" {
                item.components[index][.status] = "CANCELLED"
            }
        }
        return item
    }
}
