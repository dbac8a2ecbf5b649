import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical suggestions`: the inbox of event suggestions apps donated.
    struct Suggestions: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggestions",
            abstract: "The events apps suggest (reservations they donated); accept or dismiss them.",
            discussion: """
                An app with no calendar access can donate a reservation (OpenEventKitIntents'
                INInteraction.donate, Siri Event Suggestions on Apple's systems). It waits
                here, outside every calendar and unreadable by any app, until you accept it
                (it becomes an event in your default calendar, or --calendar) or dismiss it.
                The app is never told. A later donation of the same reservation replaces
                its suggestion; a cancelled reservation withdraws it. These are your own
                decisions, like ical privacy: no app's access level applies.

                Examples:
                  ical suggestions list
                  ical suggestions accept 1
                  ical suggestions accept 2 --calendar Family
                  ical suggestions dismiss 1
                """,
            subcommands: [List.self, Accept.self, Dismiss.self])
    }
}

extension ICal.Suggestions {
    /// One line: `1  Fri 4 Dec 2026 19:00–21:00 (Europe/Berlin)  Dinner … @ place  (from App, restaurant)`.
    static func line(_ number: Int, _ suggestion: EventSuggestion) -> String {
        let zone = suggestion.timeZone.flatMap { TimeZone(identifier: $0) } ?? TimeZone.current
        let day = EventViewer.format(suggestion.start, "EEE d MMM yyyy", in: zone)
        let endDay = EventViewer.format(suggestion.end, "EEE d MMM yyyy", in: zone)
        let start = EventViewer.format(suggestion.start, "HH:mm", in: zone), end = EventViewer.format(suggestion.end, "HH:mm", in: zone)
        let when = day == endDay ? "\(day) \(start)–\(end)" : "\(day) \(start) – \(endDay) \(end)"
        var text = String(format: "%3d  ", number) + "\(when) (\(zone.identifier))  \(TerminalText.line(suggestion.title))"
        if let location = suggestion.location { text += " @ \(TerminalText.line(location))" }
        return text + "  (from \(TerminalText.line(suggestion.appName)), \(suggestion.kind))"
    }

    /// The suggestion with a number of the list, or a clear error.
    static func pick(_ number: Int, from all: [EventSuggestion], _ command: String) throws -> EventSuggestion {
        guard all.indices.contains(number - 1) else {
            printError("ical suggestions \(command): there is no suggestion \(number); the inbox has \(all.count) (see ical suggestions list)")
            throw ExitCode(1)
        }
        return all[number - 1]
    }

    /// `ical suggestions list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the pending suggestions, oldest first.",
            discussion: """
                Examples:
                  ical suggestions list
                """)

        @OptionGroup var storeOptions: StoreFolderOptions

        func run() throws {
            let inbox = SuggestionInbox(storeRoot: try storeOptions.path("suggestions list"))
            let all = try reportingFailure("suggestions list") { () throws(SuggestionInboxError) in try inbox.pending() }
            if all.isEmpty { print("No event suggestions.") }
            for (index, suggestion) in all.enumerated() { print(ICal.Suggestions.line(index + 1, suggestion)) }
        }
    }

    /// `ical suggestions accept`.
    struct Accept: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Add a suggestion to your calendar as an event.",
            discussion: """
                The event gets the suggestion's title, time (in its time zone), location
                (with its coordinates), notes and link, in the default calendar for new
                events or --calendar; the suggestion leaves the inbox.

                Examples:
                  ical suggestions accept 1
                  ical suggestions accept 1 --calendar Family
                """)

        @Argument(help: "The suggestion's number in ical suggestions list.")
        var number: Int

        @Option(help: ArgumentHelp("The calendar (an identifier or title; default: the default calendar for new events).", valueName: "calendar"))
        var calendar: String?

        @OptionGroup var storeOptions: StoreFolderOptions

        func run() throws {
            let path = try storeOptions.path("suggestions accept")
            let inbox = SuggestionInbox(storeRoot: path)
            let suggestion = try ICal.Suggestions.pick(number, from: try reportingFailure("suggestions accept") { () throws(SuggestionInboxError) in
                try inbox.pending()
            }, "accept")
            // The user's own decision: the store with full access, as the system's helpers open it.
            let store: EKEventStore
            do { store = EKEventStore(backend: try FolderStore.open(at: path), authority: FullAccessAuthority()) } catch {
                printError("ical suggestions accept: cannot open the store: \(error.message)")
                throw ExitCode(1)
            }
            let target: EKCalendar
            if let calendar {
                let candidates = store.calendars(for: .event).filter(\.allowsContentModifications)
                guard let match = candidates.first(where: { $0.calendarIdentifier == calendar })
                        ?? candidates.first(where: { $0.title.lowercased() == calendar.lowercased() }) else {
                    let known = candidates.map { "'\(TerminalText.line($0.title))'" }.joined(separator: ", ")
                    printError("ical suggestions accept: there is no writable event calendar '\(TerminalText.line(calendar))'; the store has \(known.isEmpty ? "none" : known)")
                    throw ExitCode(1)
                }
                target = match
            } else if let chosen = store.defaultCalendarForNewEvents {
                target = chosen
            } else {
                printError("ical suggestions accept: the store has no calendar for events; create one with ical calendars create NAME")
                throw ExitCode(1)
            }
            let event = EKEvent(eventStore: store)
            event.title = suggestion.title
            event.timeZone = suggestion.timeZone.flatMap { TimeZone(identifier: $0) } ?? TimeZone.current
            event.startDate = suggestion.start
            event.endDate = suggestion.end
            if let location = suggestion.location {
                let structured = EKStructuredLocation(title: location)
                if let latitude = suggestion.latitude, let longitude = suggestion.longitude {
                    structured.geoLocation = CLLocation(latitude: latitude, longitude: longitude)
                }
                event.structuredLocation = structured
            }
            event.notes = suggestion.notes
            event.url = suggestion.url.flatMap { URL(string: $0) }
            event.calendar = target
            do { try store.save(event, span: .thisEvent) } catch {
                printError("ical suggestions accept: the event could not be saved: \(error)")
                throw ExitCode(1)
            }
            try reportingFailure("suggestions accept") { () throws(SuggestionInboxError) in
                try inbox.withdraw(app: suggestion.app, reference: suggestion.reference)
            }
            print("Added “\(TerminalText.line(suggestion.title))” to \(TerminalText.line(target.title)) (\(event.eventIdentifier ?? "")).")
        }
    }

    /// `ical suggestions dismiss`.
    struct Dismiss: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dismiss",
            abstract: "Remove a suggestion without adding it.",
            discussion: """
                Examples:
                  ical suggestions dismiss 1
                """)

        @Argument(help: "The suggestion's number in ical suggestions list.")
        var number: Int

        @OptionGroup var storeOptions: StoreFolderOptions

        func run() throws {
            let inbox = SuggestionInbox(storeRoot: try storeOptions.path("suggestions dismiss"))
            let suggestion = try ICal.Suggestions.pick(number, from: try reportingFailure("suggestions dismiss") { () throws(SuggestionInboxError) in
                try inbox.pending()
            }, "dismiss")
            try reportingFailure("suggestions dismiss") { () throws(SuggestionInboxError) in
                try inbox.withdraw(app: suggestion.app, reference: suggestion.reference)
            }
            print("Dismissed “\(TerminalText.line(suggestion.title))”.")
        }
    }
}
