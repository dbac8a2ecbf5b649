import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal.UI {
    /// `ical ui view-event`: the event viewer behind `EKEventViewController`.
    struct ViewEvent: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "view-event",
            abstract: "Show a stored event on the terminal; answer its invitation, edit or delete it as the user says.",
            discussion: """
                The helper behind EKEventViewController.present(). It shows the event as the
                store has it: title, time, repetition, location, calendar, alerts, organizer
                and invitees with their answers, link and notes. For an invitation (an event
                with an organizer who is not the user, and invitees) the user may accept (a),
                answer maybe (m) or decline (n), for the invitee that is them: the one whose
                address is the account's (a CalDAV account's calendar-user-address-set) or,
                in a local calendar, one set with `ical calendars me`. When no invitee is the
                user, the invitation is shown without the answer keys, and the viewer says
                why. The answer changes the user's PARTSTAT, removes RSVP and updates DTSTAMP
                (RFC 5546: SEQUENCE is the organizer's and stays). With the calendar preview
                (the default) the other events of the invitation's day are listed. With --allows-editing the user may edit the event
                in the editor of `ical ui edit-event` (e) or delete it, unless its calendar is
                read-only or it is an invitation.

                The viewer shows only events the app may read: the app (--app-id) needs full
                access to events, else the helper refuses with exit status 1. Standard output
                gets one word: done, responded or deleted. Without a terminal the viewer
                closes at once (stderr says why) and prints done.

                Examples:
                  ical ui view-event --app-id org.example.planner --event-identifier calendar/lesson.ics
                  ical ui view-event --app-id org.example.planner --event-identifier calendar/choir.ics --occurrence 2026-12-08T17:00:00Z --allows-editing
                """)

        @OptionGroup var app: UIAppOptions

        @Option(name: .customLong("event-identifier"), help: ArgumentHelp("The stored event to show (calendar/file.ics).", valueName: "identifier"))
        var eventIdentifier: String

        @Option(help: ArgumentHelp("The occurrence of a recurring event, by its original start (an ISO 8601 instant).", valueName: "instant"))
        var occurrence: String?

        @Flag(name: .customLong("allows-editing"), help: "Let the user edit or delete the event (EKEventViewController.allowsEditing).")
        var allowsEditing = false

        @Flag(name: .customLong("no-calendar-preview"), help: "Leave out the day preview of an invitation (EKEventViewController.allowsCalendarPreview false).")
        var noCalendarPreview = false

        func validate() throws {
            if let occurrence, (try? Date(occurrence, strategy: .iso8601)) == nil {
                throw ValidationError("--occurrence must be an ISO 8601 instant such as 2026-12-08T15:30:00Z.")
            }
        }

        func run() throws {
            let path = try app.storePath("view-event")
            guard app.appAccess(to: .event, storePath: path).level == .full else {
                printError("ical ui view-event: \(app.appID) has no full access to events, so it may not show one; allow it with: ical privacy grant \(app.appID) --events full")
                throw ExitCode(1)
            }
            let store = try app.openStore("view-event")
            guard let event = StoredEventLookup.find(eventIdentifier, occurrence: occurrence, in: store) else {
                printError("ical ui view-event: there is no event \(eventIdentifier) in the store \(path)")
                throw ExitCode(1)
            }
            let terminal: TerminalSession
            do { terminal = try TerminalSession() } catch {
                printError("ical ui view-event: \(error); the viewer was closed")
                print(ViewerAction.done.rawValue)
                return
            }
            let viewer = EventViewer(store: store, terminal: terminal, appName: app.displayName,
                                     allowsEditing: allowsEditing, allowsCalendarPreview: !noCalendarPreview)
            print(viewer.run(event, identifier: eventIdentifier, occurrence: occurrence).rawValue)
        }
    }
}

/// Finds a stored event, or one occurrence of it: shared by the editor and the viewer.
enum StoredEventLookup {
    /// The event `identifier` (calendar/file.ics); with `occurrence` (an ISO 8601 instant),
    /// the occurrence whose original start it is, searched a year either side.
    static func find(_ identifier: String, occurrence: String?, in store: EKEventStore) -> EKEvent? {
        guard let first = store.event(withIdentifier: identifier) else { return nil }
        guard let occurrence, let moment = try? Date(occurrence, strategy: .iso8601) else { return first }
        let predicate = store.predicateForEvents(withStart: moment.addingTimeInterval(-366 * 86_400),
                                                 end: moment.addingTimeInterval(366 * 86_400), calendars: [first.calendar])
        return store.events(matching: predicate).first {
            $0.eventIdentifier == identifier && abs($0.occurrenceDate.timeIntervalSince(moment)) < 1
        } ?? first
    }
}

/// How the user left the viewer (what `ical ui view-event` prints).
enum ViewerAction: String {
    case done, responded, deleted
}

/// The viewer's conversation on the terminal.
struct EventViewer {
    let store: EKEventStore
    let terminal: TerminalSession
    let appName: String
    let allowsEditing: Bool
    let allowsCalendarPreview: Bool

    /// An invitation: someone else organises the event and invites people to it (the
    /// organizer's own event, ``EKParticipant/isCurrentUser``, is not one).
    static func isInvitation(_ event: EKEvent) -> Bool {
        guard let organizer = event.organizer else { return false }
        return event.hasAttendees && !organizer.isCurrentUser
    }

    /// The positions of the invitees that are the user.
    static func myInvitees(_ event: EKEvent) -> [Int] {
        (event.attendees ?? []).indices.filter { event.attendees![$0].isCurrentUser }
    }

    func run(_ first: EKEvent, identifier: String, occurrence: String?) -> ViewerAction {
        var event = first
        terminal.write("\n“\(appName)” shows you an event from your calendar.\n\n")
        while true {
            let invitation = Self.isInvitation(event)
            let editable = allowsEditing && !invitation && (event.calendar?.allowsContentModifications ?? false)
            show(event, invitation: invitation)
            // Only the user's own invitee entry is answered: never someone else's.
            let answerable = invitation && !Self.myInvitees(event).isEmpty
            if invitation && !answerable {
                terminal.write("\nYou are not among the invitees as this calendar knows you, so the invitation cannot be "
                    + "answered here (a local calendar learns your addresses with: ical calendars me ADDRESS).\n")
            }
            var commands = ["Enter Done"]
            if answerable { commands.append("a Accept, m Maybe, n Decline") }
            if editable { commands.append("e Edit, delete Delete") }
            commands.append("l List")
            let help = commands.joined(separator: "; ") + "."
            terminal.write("\n\(help)\n")
            var again = false
            while !again {
                guard let line = terminal.ask("> ") else {
                    terminal.write("\nNo answer; the viewer was closed.\n")
                    return .done
                }
                switch line.lowercased() {
                case "", "done", "d":
                    return .done
                case "l", "list", "?":
                    again = true
                case "a" where answerable, "accept" where answerable:
                    if respond(event, status: .accepted) { return .responded }
                case "m" where answerable, "maybe" where answerable:
                    if respond(event, status: .tentative) { return .responded }
                case "n" where answerable, "decline" where answerable:
                    if respond(event, status: .declined) { return .responded }
                case "e" where editable, "edit" where editable:
                    let editor = EventEditor(store: store, terminal: terminal, appName: appName,
                                             intro: "Editing the event for “\(appName)”: only you see this form.")
                    switch editor.run(proposal: nil, stored: event, calendar: nil) {
                    case .deleted: return .deleted
                    case .canceled: terminal.write("\n")
                    case .saved:
                        terminal.write("\n")
                        // The stored event as it is now (a split series keeps the identifier
                        // of its first part).
                        store.reset()
                        guard let fresh = StoredEventLookup.find(identifier, occurrence: occurrence, in: store) else { return .done }
                        event = fresh
                    }
                    again = true
                case "delete" where editable:
                    if delete(event) { return .deleted }
                default:
                    terminal.write("\(help)\n")
                }
            }
        }
    }

    // MARK: Showing

    private func show(_ event: EKEvent, invitation: Bool) {
        var rows: [(String, String)] = []
        rows.append(("When", when(event)))
        if let rule = event.component.property(.recurrenceRule)?.rawValue { rows.append(("Repeats", String(rule))) }
        if let location = event.location, !location.isEmpty { rows.append(("Location", location)) }
        for link in event.conferenceLinks { rows.append(("Join", (link.label.map { "\($0): " } ?? "") + link.uri)) }
        rows.append(("Calendar", event.calendar?.title ?? "(none)"))
        for alarm in event.alarms ?? [] { rows.append(("Alert", alert(alarm, event: event))) }
        if let organizer = event.organizer { rows.append(("Organizer", person(organizer))) }
        for attendee in event.attendees ?? [] {
            rows.append(("Invitee", "\(person(attendee)) (\(answer(attendee.participantStatus)))\(attendee.isCurrentUser ? " (you)" : "")"))
        }
        if let url = event.url { rows.append(("Link", url.absoluteString)) }
        if let notes = event.notes, !notes.isEmpty { rows.append(("Notes", notes)) }

        terminal.write("  \(TerminalText.line(event.title ?? "(no title)"))\n")
        for (label, value) in rows {
            terminal.write("  \(label.padding(toLength: 10, withPad: " ", startingAt: 0)) \(TerminalText.line(value))\n")
        }
        if invitation && allowsCalendarPreview { preview(around: event) }
    }

    /// The other events of the invitation's day, so the user sees what it would collide with.
    private func preview(around event: EKEvent) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        let day = calendar.startOfDay(for: event.startDate)
        guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { return }
        let others = store.events(matching: store.predicateForEvents(withStart: day, end: next, calendars: nil))
            .filter { !($0.eventIdentifier == event.eventIdentifier && $0.occurrenceDate == event.occurrenceDate) }
            .sorted { $0.compareStartDate(with: $1) == .orderedAscending }
        terminal.write("\n  Your day, \(Self.format(day, "EEE d MMM yyyy", in: TimeZone.current)):\n")
        if others.isEmpty { terminal.write("    nothing else\n") }
        for other in others.prefix(50) {
            let time = other.isAllDay ? "all day    "
                : "\(Self.format(other.startDate, "HH:mm", in: TimeZone.current))–\(Self.format(other.endDate, "HH:mm", in: TimeZone.current))"
            terminal.write("    \(time)  \(TerminalText.line(other.title ?? "(no title)"))  [\(TerminalText.line(other.calendar?.title ?? ""))]\n")
        }
        if others.count > 50 { terminal.write("    and \(others.count - 50) more\n") }
    }

    private func when(_ event: EKEvent) -> String {
        if event.isAllDay {
            let start = Self.format(event.startDate, "EEE d MMM yyyy", in: TimeZone.current)
            let last = Self.format(event.endDate, "EEE d MMM yyyy", in: TimeZone.current)
            return start == last ? "\(start), all day" : "\(start) to \(last), all day"
        }
        let zone = event.timeZone ?? TimeZone.current
        let startDay = Self.format(event.startDate, "EEE d MMM yyyy", in: zone)
        let endDay = Self.format(event.endDate, "EEE d MMM yyyy", in: zone)
        let start = Self.format(event.startDate, "HH:mm", in: zone), end = Self.format(event.endDate, "HH:mm", in: zone)
        let zoneText = event.timeZone?.identifier ?? "floating"
        return startDay == endDay ? "\(startDay), \(start)–\(end) (\(zoneText))"
            : "\(startDay) \(start) to \(endDay) \(end) (\(zoneText))"
    }

    private func alert(_ alarm: EKAlarm, event: EKEvent) -> String {
        if let date = alarm.absoluteDate {
            return Self.format(date, "EEE d MMM yyyy HH:mm", in: event.timeZone ?? TimeZone.current)
        }
        let minutes = Int((-alarm.relativeOffset / 60).rounded())
        if minutes == 0 { return "at the start" }
        let amount = abs(minutes)
        let text = amount % 1440 == 0 ? "\(amount / 1440) day\(amount == 1440 ? "" : "s")"
            : amount % 60 == 0 ? "\(amount / 60) hour\(amount == 60 ? "" : "s")"
            : "\(amount) minute\(amount == 1 ? "" : "s")"
        return minutes > 0 ? "\(text) before" : "\(text) after the start"
    }

    private func person(_ participant: EKParticipant) -> String {
        let address = participant.url.scheme == "mailto"
            ? String(participant.url.absoluteString.dropFirst("mailto:".count)) : participant.url.absoluteString
        guard let name = participant.name else { return address }
        return "\(name) <\(address)>"
    }

    private func answer(_ status: EKParticipantStatus) -> String {
        switch status {
        case .accepted: "accepted"
        case .declined: "declined"
        case .tentative: "maybe"
        case .delegated: "delegated"
        case .completed: "completed"
        case .inProcess: "in process"
        case .pending: "no answer yet"
        default: "unknown"
        }
    }

    static func format(_ date: Date, _ pattern: String, in zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }

    // MARK: Acting

    /// Records the user's answer on their ATTENDEE line and saves it; false when nothing was saved.
    private func respond(_ event: EKEvent, status: CalendarUserAddress.ParticipationStatus) -> Bool {
        var component = event.component
        let attendees = component.properties(.attendee)
        let positions = component.properties.indices.filter { component.properties[$0].kind == .attendee }
        guard !attendees.isEmpty, positions.count == attendees.count else { return false }
        // The invitee that is the user (by the account's addresses); when the user appears
        // more than once (two of their addresses invited), they say which one answers.
        let mine = Self.myInvitees(event)
        guard var index = mine.first else { return false }
        if mine.count > 1 {
            for (number, position) in mine.enumerated() {
                let participant = event.attendees?[position]
                terminal.write("   \(number + 1)  \(TerminalText.line(participant.map(person) ?? attendees[position].rawValue))\n")
            }
            guard let text = terminal.ask("You are invited as more than one address; which one answers? (a number) "),
                  let number = Int(text), (1...mine.count).contains(number) else {
                terminal.write("Nothing answered.\n")
                return false
            }
            index = mine[number - 1]
        }
        var span = EKSpan.thisEvent
        if event.hasRecurrenceRules || event.isDetached {
            guard let answer = terminal.ask("Answer for this event only (t) or for this and all future events (f)? [t/f] ")?.lowercased(),
                  ["t", "f"].contains(answer) else {
                terminal.write("Nothing answered.\n")
                return false
            }
            span = answer == "t" ? .thisEvent : .futureEvents
        }
        var address = CalendarUserAddress(attendees[index])
        address.participationStatus = status
        address.rsvp = nil
        component.properties[positions[index]] = address.property(.attendee)   // in place: the order is kept
        event.component = component
        do {
            try store.save(event, span: span, commit: true)
        } catch {
            terminal.write("The answer could not be saved: \(error)\n")
            store.reset()
            return false
        }
        terminal.write("Answered: \(status == .accepted ? "accepted" : status == .tentative ? "maybe" : "declined").\n")
        return true
    }

    private func delete(_ event: EKEvent) -> Bool {
        var span = EKSpan.futureEvents
        if event.hasRecurrenceRules || event.isDetached {
            guard let answer = terminal.ask("Delete this event only (t) or this and all future events (f)? [t/f] ")?.lowercased(),
                  ["t", "f"].contains(answer) else {
                terminal.write("Not deleted.\n")
                return false
            }
            span = answer == "t" ? .thisEvent : .futureEvents
        } else {
            guard let answer = terminal.ask("Delete “\(TerminalText.line(event.title ?? ""))”? [y/n] "),
                  ["y", "yes"].contains(answer.lowercased()) else {
                terminal.write("Not deleted.\n")
                return false
            }
        }
        do {
            try store.remove(event, span: span, commit: true)
        } catch {
            terminal.write("The event could not be deleted: \(error)\n")
            store.reset()
            return false
        }
        terminal.write("Deleted.\n")
        return true
    }
}
