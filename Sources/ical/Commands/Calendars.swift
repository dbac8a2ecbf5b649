import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical calendars`: the store's calendars and reminder lists.
    struct Calendars: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "calendars",
            abstract: "List, create, remove the store's calendars, or choose the default one.",
            discussion: """
                A calendar is a folder of the store (a vdir collection: its title in
                `displayname`, its colour in `color`). Each holds events or reminders.
                These commands need full access to events (and to reminders for lists).

                Examples:
                  ical calendars list
                  ical calendars create Lessons --color '#FF8000'
                  ical calendars create Practice --reminders
                  ical calendars default Lessons
                  ical calendars remove Lessons
                """,
            subcommands: [List.self, Create.self, Remove.self, Default.self, Me.self],
            defaultSubcommand: List.self)
    }
}

extension ICal.Calendars {
    /// `ical calendars list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the calendars: identifier, kind, colour, title; * marks the defaults.",
            discussion: """
                Examples:
                  ical calendars list
                  ical calendars list --store ~/calendars
                """)

        @OptionGroup var storeOptions: StoreAppOptions

        func run() throws {
            let store = try storeOptions.open(needing: .full, for: "listing calendars")
            let reminders = store.authority.accessLevel(for: .reminder) == .full ? store.calendars(for: .reminder) : []
            let defaults = Set([store.defaultCalendarForNewEvents?.calendarIdentifier, store.defaultCalendarForNewReminders()?.calendarIdentifier].compactMap { $0 })
            let rows = store.calendars(for: .event).map { ($0, "events") } + reminders.map { ($0, "reminders") }
            // Identifiers are folder names and titles come from the store's files: one line
            // each, control characters shown (TerminalText).
            let width = rows.map { TerminalText.line($0.0.calendarIdentifier).count }.max() ?? 0
            for (calendar, kind) in rows.sorted(by: { ($0.1, $0.0.title) < ($1.1, $1.0.title) }) {
                let marker = defaults.contains(calendar.calendarIdentifier) ? "*" : " "
                let identifier = TerminalText.line(calendar.calendarIdentifier).padding(toLength: width, withPad: " ", startingAt: 0)
                let kindColumn = kind.padding(toLength: 9, withPad: " ", startingAt: 0)
                print("\(marker) \(identifier)  \(kindColumn)  \(calendar.cgColor.hexString)  \(TerminalText.line(calendar.title))")
            }
        }
    }

    /// `ical calendars create`.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a calendar (or, with --reminders, a reminder list).",
            discussion: """
                Examples:
                  ical calendars create Lessons
                  ical calendars create Practice --reminders --color '#63DA38'
                """)

        @Argument(help: "The calendar's title.")
        var title: String

        @Flag(help: "Create a reminder list instead of an event calendar.")
        var reminders = false

        @Option(help: ArgumentHelp("The colour, #RRGGBB.", valueName: "color"))
        var color: String?

        @OptionGroup var storeOptions: StoreAppOptions

        func validate() throws {
            if title.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("The title cannot be empty.") }
            if let color, CGColor(hexString: color) == nil { throw ValidationError("'\(color)' is not a colour: use #RRGGBB, such as #FF8000.") }
        }

        func run() throws {
            let type: EKEntityType = reminders ? .reminder : .event
            let store = try storeOptions.open(needing: .full, to: type, for: "creating a calendar")
            let calendar = EKCalendar(for: type, eventStore: store)
            calendar.title = title
            calendar.source = store.sources.first { $0.sourceType == .local }
            if let color { calendar.cgColor = CGColor(hexString: color) }
            do { try store.saveCalendar(calendar, commit: true) } catch {
                printError("ical: \(error)")
                throw ExitCode(1)
            }
            print("Created \(reminders ? "reminder list" : "calendar") '\(TerminalText.line(title))' (\(TerminalText.line(calendar.calendarIdentifier))).")
        }
    }

    /// `ical calendars remove`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a calendar and everything in it.",
            discussion: """
                Examples:
                  ical calendars remove Lessons
                  ical calendars remove 3F2A0C1E-7B8D-4E55-9F00-1C2D3E4F5A6B
                """)

        @Argument(help: "The calendar's identifier or title.")
        var name: String

        @OptionGroup var storeOptions: StoreAppOptions

        func run() throws {
            let store = try storeOptions.open(needing: .full, for: "removing a calendar")
            let calendar = try storeOptions.calendar(named: name, in: store)
            do { try store.removeCalendar(calendar, commit: true) } catch {
                printError("ical: \(error)")
                throw ExitCode(1)
            }
            print("Removed '\(TerminalText.line(calendar.title))' (\(TerminalText.line(calendar.calendarIdentifier))).")
        }
    }

    /// `ical calendars default`.
    struct Default: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default",
            abstract: "Make a calendar the default for new events (or a list for new reminders).",
            discussion: """
                Examples:
                  ical calendars default Lessons
                """)

        @Argument(help: "The calendar's identifier or title.")
        var name: String

        @OptionGroup var storeOptions: StoreAppOptions

        func run() throws {
            let store = try storeOptions.open(needing: .full, for: "choosing the default calendar")
            let calendar = try storeOptions.calendar(named: name, in: store)
            do { try store.setDefaultCalendar(calendar) } catch {
                printError("ical: \(error)")
                throw ExitCode(1)
            }
            print("'\(TerminalText.line(calendar.title))' is now the default for new \(calendar.allowedEntityTypes.contains(.event) ? "events" : "reminders").")
        }
    }

    /// `ical calendars me`.
    struct Me: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "me",
            abstract: "Show or set the addresses that are you, so that invitations know which invitee you are.",
            discussion: """
                An invitation lists its invitees by address (mailto:...). EventKit marks the
                one that is you (EKParticipant.isCurrentUser), and `ical ui view-event`
                answers for that invitee only. For a CalDAV account the addresses are the
                account's own (RFC 6638 calendar-user-address-set, learnt from the server at
                `ical sources add` and at every sync); for the store's local calendars they
                are the ones set here (kept in .openeventkit/me.json).

                Without addresses, the command shows them all; with addresses, it sets the
                local calendars' (a bare address gets mailto:); --clear removes them.

                Examples:
                  ical calendars me
                  ical calendars me jane@example.org mailto:jane.doe@example.com
                  ical calendars me --clear
                """)

        @Argument(help: "The addresses that are you in the local calendars.")
        var addresses: [String] = []

        @Flag(help: "Remove the local calendars' addresses.")
        var clear = false

        @OptionGroup var storeOptions: StoreAppOptions

        mutating func validate() throws {
            if clear && !addresses.isEmpty { throw ValidationError("Give addresses or --clear, not both.") }
            for address in addresses where !Self.isAddress(address) {
                throw ValidationError("'\(address)' is not an address (such as jane@example.org or mailto:jane@example.org).")
            }
        }

        func run() throws {
            _ = try storeOptions.open(needing: .full, for: "showing or setting your addresses")
            let files = RemoteSourceFiles(storeRoot: try storeOptions.storePath())
            do {
                if clear || !addresses.isEmpty {
                    try files.setLocalAddresses(addresses.map(Self.normalized))
                }
                let local = try files.localAddresses()
                print("Local calendars: " + (local.isEmpty ? "no address (set one with: ical calendars me ADDRESS)"
                    : local.map { TerminalText.line($0) }.joined(separator: ", ")))
                for source in try files.sources() where source.kind == .caldav {
                    let identity = source.identity
                    let shown = identity?.addresses.isEmpty == false
                        ? identity!.addresses.map { TerminalText.line($0) }.joined(separator: ", ")
                        : "no address (the server names none; it does not schedule)"
                    let name = identity?.displayName.map { " (\(TerminalText.line($0)))" } ?? ""
                    print("\(TerminalText.line(source.name))\(name): \(shown)")
                }
            } catch {
                printError("ical: \(error)")
                throw ExitCode(1)
            }
        }

        /// A bare e-mail address as a `mailto:` URI; anything with a scheme as it is.
        static func normalized(_ address: String) -> String {
            let trimmed = address.trimmingCharacters(in: .whitespaces)
            return trimmed.contains(":") ? trimmed : "mailto:" + trimmed
        }

        static func isAddress(_ address: String) -> Bool {
            let trimmed = address.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.count <= 320, !trimmed.contains(where: { $0.isWhitespace || $0.isNewline }) else { return false }
            return trimmed.contains("@") || trimmed.contains(":")
        }
    }
}
