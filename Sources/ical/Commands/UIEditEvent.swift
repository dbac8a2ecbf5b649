import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal.UI {
    /// `ical ui edit-event`: the event editor behind `EKEventEditViewController`.
    struct EditEvent: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit-event",
            abstract: "Show an event as a form on the terminal; save, cancel or delete it as the user says.",
            discussion: """
                The helper behind EKEventEditViewController.present(). The form shows the
                proposed event's title, start, end, all-day, time zone, location, notes and
                calendar (one of the store's writable event calendars); the user changes a
                field by typing its number, then saves or cancels, or deletes an existing
                event. Times are written 2026-12-03 18:00 (a date alone for all-day events)
                in the event's time zone; a time zone is an IANA name or floating, and a
                new zone keeps the times the form shows. A new start keeps the length.

                The store is opened with full access. An existing event (--event-identifier)
                is edited only when the app itself has full access to events; otherwise the
                proposal is added as a new event. Standard output gets one word: saved,
                canceled or deleted. Without a terminal the editor cancels (stderr says why).

                Examples:
                  ical ui edit-event --app-id org.example.lessons --app-name Lessons
                  ical ui edit-event --event lesson.ics --app-id org.example.lessons --calendar lessons
                  ical ui edit-event --event - --app-id org.example.planner < proposal.ics
                  ical ui edit-event --event-identifier calendar/lesson.ics --occurrence 2026-12-08T15:30:00Z --app-id org.example.planner
                """)

        @OptionGroup var app: UIAppOptions

        @Option(help: ArgumentHelp("The proposed event: an iCalendar file whose first VEVENT is used, or - for standard input (default: a new event).", valueName: "file"))
        var event: String?

        @Option(name: .customLong("event-identifier"), help: ArgumentHelp("Edit this stored event (calendar/file.ics) instead of adding one; needs the app to have full access.", valueName: "identifier"))
        var eventIdentifier: String?

        @Option(help: ArgumentHelp("With --event-identifier: the occurrence of a recurring event, by its original start (an ISO 8601 instant).", valueName: "instant"))
        var occurrence: String?

        @Option(help: ArgumentHelp("The calendar the form starts with (an identifier; default: the store's default calendar).", valueName: "identifier"))
        var calendar: String?

        func validate() throws {
            if occurrence != nil && eventIdentifier == nil { throw ValidationError("--occurrence goes with --event-identifier.") }
            if let occurrence, (try? Date(occurrence, strategy: .iso8601)) == nil {
                throw ValidationError("--occurrence must be an ISO 8601 instant such as 2026-12-08T15:30:00Z.")
            }
        }

        func run() throws {
            let proposal = try readProposal()
            let terminal: TerminalSession
            do { terminal = try TerminalSession() } catch {
                printError("ical ui edit-event: \(error); the editor was canceled")
                print("canceled")
                return
            }
            let path = try app.storePath("edit-event")
            let store = try app.openStore("edit-event")
            let editor = EventEditor(store: store, terminal: terminal, appName: app.displayName)

            var stored: EKEvent?
            if let eventIdentifier {
                if app.appAccess(to: .event, storePath: path).level == .full {
                    stored = findEvent(eventIdentifier, in: store)
                    if stored == nil { terminal.write("\nThe event \(eventIdentifier) is no longer in your calendar; saving adds it again.\n") }
                } else {
                    printError("ical ui edit-event: \(app.appID) has no full access to events; --event-identifier is ignored and the event is proposed as a new one")
                }
            }
            print(editor.run(proposal: proposal, stored: stored, calendar: calendar).rawValue)
        }

        /// The proposed VEVENT, read before the terminal is opened (standard input is the app's pipe).
        private func readProposal() throws -> Component? {
            guard let event else { return nil }
            let result: ReadResult
            do {
                if event == "-" {
                    result = try ICalReader().read(Array(FileHandle.standardInput.readDataToEndOfFile()), file: "<stdin>")
                } else {
                    result = try ICalReader().read(contentsOfFile: event)
                }
            } catch {
                printError("ical ui edit-event: \(error)")
                throw ExitCode(1)
            }
            for calendar in result.calendars {
                if let vevent = calendar.components.first(where: { $0.matches(.event) }) { return vevent }
                if calendar.matches(.event) { return calendar }
            }
            printError("ical ui edit-event: \(event == "-" ? "standard input" : event) holds no VEVENT")
            throw ExitCode(1)
        }

        private func findEvent(_ identifier: String, in store: EKEventStore) -> EKEvent? {
            StoredEventLookup.find(identifier, occurrence: occurrence, in: store)
        }
    }
}

/// How the user left the editor (what `ical ui edit-event` prints).
enum EditorAction: String {
    case saved, canceled, deleted
}

/// The editor's form: the fields the user sees and may change.
struct EventForm: Equatable {
    var title = ""
    var start = LocalDateTime(secondsSinceEpoch: 0)
    var end = LocalDateTime(secondsSinceEpoch: 0)
    var allDay = false
    /// The time zone's identifier; nil for floating.
    var zone: String?
    var location = ""
    var notes = ""
    var calendar: String?
    /// The virtual conference the user chose for the location (saved as CONFERENCE properties).
    var conference: ChosenConference?

    /// The form of an event as the store reads it.
    init(_ event: EKEvent) {
        title = event.title ?? ""
        allDay = event.isAllDay
        zone = allDay ? nil : event.timeZone?.identifier
        let shown = zone.flatMap { TimeZone(identifier: $0) } ?? TimeZone.current
        if let start = event.startDate { self.start = Self.local(start, in: shown) }
        if let end = event.endDate { self.end = Self.local(end, in: shown) }
        if allDay {
            start = LocalDateTime(date: start.date)
            end = LocalDateTime(date: end.date)
        }
        location = event.location ?? ""
        notes = event.notes ?? ""
        calendar = event.calendar?.calendarIdentifier
    }

    /// The zone the form's times are in: the event's, or the system's for floating and all-day events.
    var timeZone: TimeZone { (allDay ? nil : zone.flatMap { TimeZone(identifier: $0) }) ?? TimeZone.current }

    var startDate: Date { Self.date(start, in: timeZone) }
    var endDate: Date { Self.date(end, in: timeZone) }

    static func local(_ date: Date, in zone: TimeZone) -> LocalDateTime {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return LocalDateTime(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1,
                             hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0)
            ?? LocalDateTime(secondsSinceEpoch: 0)
    }

    static func date(_ local: LocalDateTime, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = DateComponents(year: local.date.year, month: local.date.month, day: local.date.day,
                                   hour: local.time.hour, minute: local.time.minute, second: local.time.second)
        return calendar.date(from: parts) ?? Date(timeIntervalSince1970: TimeInterval(local.secondsSinceEpoch))
    }

    /// `2026-12-03 18:00`, or `2026-12-03` for an all-day event.
    func text(_ value: LocalDateTime) -> String {
        let date = value.date
        var text = String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
        if !allDay {
            text += String(format: " %02d:%02d", value.time.hour, value.time.minute)
            if value.time.second != 0 { text += String(format: ":%02d", value.time.second) }
        }
        return text
    }
}

/// A conference a registered extension made for the room type the user chose.
struct ChosenConference: Equatable {
    var extensionName: String
    var roomType: String
    var descriptor: EKVirtualConferenceDescriptor
}

/// The room types of the store's registered virtual conference extensions, asked for once
/// per editor (each extension runs in a process of its own).
final class ConferenceOffers {
    struct Offer {
        var registered: RegisteredConferenceExtension
        var roomType: EKVirtualConferenceRoomTypeDescriptor
    }

    private let storeRoot: String?
    private var loaded: (offers: [Offer], problems: [String])?

    init(storeRoot: String?) {
        self.storeRoot = storeRoot
    }

    /// The room types of every registered extension, and what went wrong with any of them.
    func offers() -> (offers: [Offer], problems: [String]) {
        if let loaded { return loaded }
        var offers: [Offer] = [], problems: [String] = []
        if let storeRoot {
            do throws(ConferenceExtensionError) {
                for registered in try ConferenceExtensionRegistry(storeRoot: storeRoot).extensions() {
                    do throws(ConferenceExtensionError) {
                        offers += try ConferenceExtensionHost().roomTypes(of: registered).map { Offer(registered: registered, roomType: $0) }
                    } catch {
                        problems.append(error.description)
                    }
                }
            } catch {
                problems.append(error.description)
            }
        }
        loaded = (offers, problems)
        return (offers, problems)
    }
}

/// The editor's conversation on the terminal.
struct EventEditor {
    let store: EKEventStore
    let terminal: TerminalSession
    let appName: String
    /// The form's first line; nil for the editor's own (the app wants to add or change an event).
    var intro: String?
    /// The registered extensions' room types, offered when the user sets the location.
    let conferences: ConferenceOffers

    init(store: EKEventStore, terminal: TerminalSession, appName: String, intro: String? = nil) {
        self.store = store
        self.terminal = terminal
        self.appName = appName
        self.intro = intro
        conferences = ConferenceOffers(storeRoot: store.storeURL?.path)
    }

    /// The fields, numbered as the form shows them.
    enum Field: Int, CaseIterable {
        case title = 1, start, end, allDay, timeZone, location, notes, calendar

        var label: String {
            switch self {
            case .title: "Title"
            case .start: "Starts"
            case .end: "Ends"
            case .allDay: "All-day"
            case .timeZone: "Time zone"
            case .location: "Location"
            case .notes: "Notes"
            case .calendar: "Calendar"
            }
        }
    }

    /// The writable event calendars the user may save into, by title.
    var calendars: [EKCalendar] {
        store.calendars(for: .event).filter(\.allowsContentModifications)
            .sorted { ($0.title, $0.calendarIdentifier) < ($1.title, $1.calendarIdentifier) }
    }

    func run(proposal: Component?, stored: EKEvent?, calendar preferred: String?) -> EditorAction {
        let target: EKEvent
        if let stored {
            target = stored
        } else {
            target = EKEvent(eventStore: store)
            if var proposal {
                // A UID the store has already (an app re-proposing an event it saved before)
                // would overwrite nothing and fail: the new event gets its own.
                if let uid = proposal.uid, !store.calendarItems(withExternalIdentifier: uid).isEmpty {
                    proposal.uid = UUID().uuidString
                }
                target.component = proposal
            } else {
                let now = ICal.Query.now(in: IANATimeZone.system() ?? FixedOffsetZone.utc)
                let start = FormStart.nextHour(after: now)
                target.timeZone = TimeZone.current
                target.startDate = EventForm.date(start, in: TimeZone.current)
                target.endDate = target.startDate.addingTimeInterval(3600)
            }
        }
        let base = EventForm(target)
        var form = base
        if let proposal, stored != nil {
            // The app's unsaved edits of the stored event are part of what the user sees.
            let proposed = EKEvent(eventStore: store)
            proposed.component = proposal
            form = EventForm(proposed)
            form.calendar = base.calendar
        }
        let writable = calendars
        if stored == nil {
            let chosen = preferred.flatMap { id in writable.first { $0.calendarIdentifier == id } }
                ?? store.defaultCalendarForNewEvents.flatMap { calendar in writable.first { $0 == calendar } }
                ?? writable.first
            form.calendar = chosen?.calendarIdentifier
        }
        let isRecurring = stored.map { $0.hasRecurrenceRules || $0.isDetached } ?? false
        let rule = target.component.property(.recurrenceRule)?.rawValue

        if let intro {
            terminal.write("\(intro)\n\n")
        } else {
            terminal.write("\n“\(appName)” wants to \(stored == nil ? "add an event to" : "change an event in") your calendar.\n")
            terminal.write("Only you see this form; the app learns only whether you saved\(stored == nil ? " or" : ",") canceled\(stored == nil ? "" : " or deleted").\n\n")
        }
        show(form, rule: rule.map { String($0) })
        let commands = "Type a field's number to change it; s Save, c Cancel\(stored == nil ? "" : ", delete Delete"), l List."
        terminal.write("\n\(commands)\n")
        while true {
            guard let line = terminal.ask("> ") else {
                terminal.write("\nNo answer; the editor was canceled.\n")
                return .canceled
            }
            switch line.lowercased() {
            case "s", "save":
                if let problem = problem(in: form) {
                    terminal.write("\(problem)\n")
                    continue
                }
                var span = EKSpan.thisEvent
                if isRecurring {
                    guard let choice = chooseSpan("Save for this event only (t) or for this and all future events (f)?") else { continue }
                    span = choice
                }
                do {
                    try apply(form, base: base, to: target)
                    try store.save(target, span: stored == nil ? .futureEvents : span, commit: true)
                } catch {
                    terminal.write("The event could not be saved: \(error)\n")
                    store.reset()
                    continue
                }
                terminal.write("Saved.\n")
                return .saved
            case "c", "cancel":
                terminal.write("Canceled.\n")
                return .canceled
            case "delete" where stored != nil:
                guard let stored else { continue }
                var span = EKSpan.futureEvents
                if isRecurring {
                    guard let choice = chooseSpan("Delete this event only (t) or this and all future events (f)?") else { continue }
                    span = choice
                } else {
                    guard let answer = terminal.ask("Delete “\(TerminalText.line(form.title))”? [y/n] "), ["y", "yes"].contains(answer.lowercased()) else {
                        terminal.write("Not deleted.\n")
                        continue
                    }
                }
                do {
                    try store.remove(stored, span: span, commit: true)
                } catch {
                    terminal.write("The event could not be deleted: \(error)\n")
                    store.reset()
                    continue
                }
                terminal.write("Deleted.\n")
                return .deleted
            case "l", "list", "?":
                show(form, rule: rule.map { String($0) })
                terminal.write("\(commands)\n")
            case "":
                continue
            default:
                guard let number = Int(line), let field = Field(rawValue: number) else {
                    terminal.write("\(commands)\n")
                    continue
                }
                guard edit(field, of: &form, writable: writable) else {
                    terminal.write("\nNo answer; the editor was canceled.\n")
                    return .canceled
                }
            }
        }
    }

    private func show(_ form: EventForm, rule: String?) {
        for field in Field.allCases { terminal.write(line(field, form) + "\n") }
        if let rule { terminal.write("     Repeats    \(TerminalText.line(rule))\n") }
        showConference(form)
    }

    private func showConference(_ form: EventForm) {
        guard let conference = form.conference else { return }
        let descriptor = conference.descriptor
        terminal.write("     Video call \(TerminalText.line(descriptor.title ?? "\(conference.extensionName): \(conference.roomType)"))\n")
        for link in descriptor.urlDescriptors {
            terminal.write("                \(TerminalText.line((link.title.map { "\($0): " } ?? "") + link.url.absoluteString))\n")
        }
    }

    private func line(_ field: Field, _ form: EventForm) -> String {
        let label = field.label.padding(toLength: 10, withPad: " ", startingAt: 0)
        return "  \(field.rawValue)  \(label) \(value(field, form))"
    }

    /// A field's value as the form shows it: the event's text on one line, control
    /// characters, line feeds and tabs shown as TerminalText escapes.
    private func value(_ field: Field, _ form: EventForm) -> String {
        TerminalText.line(plainValue(field, form))
    }

    private func plainValue(_ field: Field, _ form: EventForm) -> String {
        switch field {
        case .title: return form.title
        case .start: return form.text(form.start)
        case .end: return form.text(form.end)
        case .allDay: return form.allDay ? "yes" : "no"
        case .timeZone: return form.allDay ? "(none: all-day)" : (form.zone ?? "floating")
        case .location: return form.location
        case .notes: return form.notes
        case .calendar:
            guard let id = form.calendar else { return "(none: the store has no writable event calendar)" }
            return calendars.first { $0.calendarIdentifier == id }?.title ?? id
        }
    }

    /// Asks for a new value of `field`; false when the terminal gave no answer.
    private func edit(_ field: Field, of form: inout EventForm, writable: [EKCalendar]) -> Bool {
        let current = value(field, form)
        switch field {
        case .title, .location, .notes:
            let clearing = field == .title ? "" : "; - clears it"
            var offers: [ConferenceOffers.Offer] = []
            if field == .location {
                let found = conferences.offers()
                offers = found.offers
                for problem in found.problems { terminal.write("  (\(TerminalText.line(problem)))\n") }
                if !offers.isEmpty {
                    terminal.write("  Video calls:\n")
                    for (index, offer) in offers.enumerated() {
                        terminal.write("   v\(index + 1)  \(TerminalText.line(offer.registered.name)): \(TerminalText.line(offer.roomType.title))\n")
                    }
                }
            }
            let videoHint = offers.isEmpty ? "" : "; v1\(offers.count > 1 ? "–v\(offers.count)" : "") a video call"
            guard let text = terminal.ask("\(field.label) [\(current)] (Enter keeps it\(clearing)\(videoHint)): ") else { return false }
            if text.isEmpty { break }
            if field == .location, !offers.isEmpty, text.lowercased().hasPrefix("v"), let number = Int(text.dropFirst()) {
                guard (1...offers.count).contains(number) else {
                    terminal.write("Type v1\(offers.count > 1 ? " to v\(offers.count)" : "") for a video call.\n")
                    return true
                }
                let offer = offers[number - 1]
                terminal.write("Asking \(TerminalText.line(offer.registered.name)) for a room…\n")
                do throws(ConferenceExtensionError) {
                    let descriptor = try ConferenceExtensionHost().conference(of: offer.registered, roomType: offer.roomType.identifier)
                    form.conference = ChosenConference(extensionName: offer.registered.name, roomType: offer.roomType.title, descriptor: descriptor)
                    if form.location.isEmpty { form.location = descriptor.title ?? offer.roomType.title }
                } catch {
                    terminal.write("No video call: \(TerminalText.line(error.description))\n")
                    return true
                }
                terminal.write(line(field, form) + "\n")
                showConference(form)
                return true
            }
            let new = text == "-" && field != .title ? "" : text
            switch field {
            case .title: form.title = new
            case .location: form.location = new
            default: form.notes = new
            }
        case .start, .end:
            let shape = form.allDay ? "YYYY-MM-DD" : "YYYY-MM-DD HH:MM"
            guard let text = terminal.ask("\(field.label) [\(current)] (\(shape)): ") else { return false }
            if text.isEmpty { break }
            guard let local = parse(text, allDay: form.allDay) else {
                terminal.write("'\(text)' is not a \(form.allDay ? "date" : "time"); write it as \(shape).\n")
                return true
            }
            if field == .start {
                // Moving the start keeps the length, as calendar editors do.
                let length = form.end.secondsSinceEpoch - form.start.secondsSinceEpoch
                form.start = local
                form.end = local.adding(seconds: max(length, 0))
            } else {
                guard local >= form.start else {
                    terminal.write("The end cannot be before the start (\(form.text(form.start))).\n")
                    return true
                }
                form.end = local
            }
        case .allDay:
            guard let text = terminal.ask("All-day [\(current)] (y/n): ") else { return false }
            let answer = text.lowercased()
            guard ["y", "yes", "n", "no", ""].contains(answer) else {
                terminal.write("Answer y or n.\n")
                return true
            }
            let wanted = answer.isEmpty ? form.allDay : answer.hasPrefix("y")
            if wanted != form.allDay {
                if wanted {
                    var lastDay = form.end.date
                    if form.end.time == .midnight && form.end > form.start { lastDay = lastDay.adding(days: -1) }
                    form.start = LocalDateTime(date: form.start.date)
                    form.end = LocalDateTime(date: max(lastDay, form.start.date))
                } else {
                    form.start = LocalDateTime(date: form.start.date, time: TimeOfDay(hour: 9, minute: 0)!)
                    form.end = LocalDateTime(date: form.start.date, time: TimeOfDay(hour: 10, minute: 0)!)
                    if form.zone == nil { form.zone = TimeZone.current.identifier }
                }
                form.allDay = wanted
            }
        case .timeZone:
            guard !form.allDay else {
                terminal.write("An all-day event has no time zone.\n")
                return true
            }
            guard let text = terminal.ask("Time zone [\(current)] (an IANA name such as Europe/Berlin, or floating): ") else { return false }
            if text.isEmpty { break }
            if text.lowercased() == "floating" || text == "-" {
                form.zone = nil
            } else if let zone = TimeZone(identifier: text) {
                form.zone = zone.identifier
            } else {
                terminal.write("'\(text)' is not a time zone this system knows.\n")
                return true
            }
        case .calendar:
            guard !writable.isEmpty else {
                terminal.write("The store has no calendar you can add events to.\n")
                return true
            }
            for (index, calendar) in writable.enumerated() {
                let mark = calendar.calendarIdentifier == form.calendar ? "*" : " "
                terminal.write("   \(mark)\(index + 1)  \(TerminalText.line(calendar.title))\n")
            }
            guard let text = terminal.ask("Calendar [\(current)] (a number): ") else { return false }
            if text.isEmpty { break }
            guard let number = Int(text), (1...writable.count).contains(number) else {
                terminal.write("Type a number from 1 to \(writable.count).\n")
                return true
            }
            form.calendar = writable[number - 1].calendarIdentifier
        }
        terminal.write(line(field, form) + "\n")
        if field == .start || field == .allDay { terminal.write(line(.end, form) + "\n") }
        return true
    }

    private func parse(_ text: String, allDay: Bool) -> LocalDateTime? {
        guard let moment = try? QueryWindow.moment(text, now: LocalDateTime(secondsSinceEpoch: 0)) else { return nil }
        if allDay { return moment.precision == .day ? moment.local : nil }
        return moment.precision == .minute || moment.precision == .second ? moment.local : nil
    }

    /// What stops the form from being saved, if anything.
    private func problem(in form: EventForm) -> String? {
        if form.calendar == nil { return "There is no calendar to save into." }
        if form.end < form.start { return "The end is before the start." }
        return nil
    }

    private func chooseSpan(_ question: String) -> EKSpan? {
        guard let answer = terminal.ask("\(question) [t/f] ")?.lowercased() else { return nil }
        switch answer {
        case "t", "this": return .thisEvent
        case "f", "future": return .futureEvents
        default:
            terminal.write("Nothing done.\n")
            return nil
        }
    }

    /// Writes the fields that differ from `base` (the event as the store has it) into `event`.
    private func apply(_ form: EventForm, base: EventForm, to event: EKEvent) throws {
        if form.title != base.title { event.title = form.title }
        if form.location != base.location { event.location = form.location.isEmpty ? nil : form.location }
        if form.notes != base.notes { event.notes = form.notes.isEmpty ? nil : form.notes }
        if form.start != base.start || form.end != base.end || form.allDay != base.allDay || form.zone != base.zone {
            if form.allDay {
                event.isAllDay = true
                event.startDate = form.startDate
                event.endDate = form.endDate
            } else {
                if event.isAllDay { event.isAllDay = false }
                event.timeZone = form.zone.flatMap { TimeZone(identifier: $0) }
                event.startDate = form.startDate
                event.endDate = form.endDate
            }
        }
        if let conference = form.conference, conference != base.conference {
            event.setVirtualConference(conference.descriptor, roomTypeTitle: conference.roomType)
        }
        if form.calendar != base.calendar || event.calendar == nil, let id = form.calendar {
            guard let calendar = store.calendar(withIdentifier: id) else {
                throw EKError(.noCalendar, "there is no calendar '\(id)'")
            }
            event.calendar = calendar
        }
    }
}

/// The start of a new event the app proposed nothing for: the next full hour.
enum FormStart {
    static func nextHour(after now: LocalDateTime) -> LocalDateTime {
        LocalDateTime(date: now.date, time: TimeOfDay(hour: now.time.hour, minute: 0)!).adding(seconds: 3600)
    }
}
