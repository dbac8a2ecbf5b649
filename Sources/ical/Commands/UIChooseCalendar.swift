import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal.UI {
    /// `ical ui choose-calendar`: the calendar chooser behind `EKCalendarChooser`.
    struct ChooseCalendar: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "choose-calendar",
            abstract: "Show the store's calendars as a numbered list on the terminal and let the user choose.",
            discussion: """
                The helper behind EKCalendarChooser.present(). With single selection a
                number picks that calendar; with multiple selection a number adds or removes
                it. d is Done (with --done-button), c is Cancel (with --cancel-button); an
                empty line closes a chooser that has neither.

                What the app may do decides what is offered: with full access, the calendars
                --display asks for, in --selection's style; with write-only access to events,
                only the writable event calendars and one choice (the app can then save into
                it but not read it); without access nothing (the chooser cancels and says
                why on standard error).

                Standard output: done, closed or canceled on the first line, then the
                identifiers of the selected calendars, one a line. Without a terminal the
                chooser cancels.

                Examples:
                  ical ui choose-calendar --app-id org.example.lessons --app-name Lessons --done-button --cancel-button
                  ical ui choose-calendar --app-id org.example.planner --selection multiple --display all --done-button
                  ical ui choose-calendar --app-id org.example.planner --entity-type reminder --selected reminders --done-button
                """)

        enum Selection: String, ExpressibleByArgument, CaseIterable { case single, multiple }
        enum Display: String, ExpressibleByArgument, CaseIterable { case all, writable }
        enum Entity: String, ExpressibleByArgument, CaseIterable { case event, reminder }

        @OptionGroup var app: UIAppOptions

        @Option(help: "One calendar or several.")
        var selection: Selection = .single

        @Option(help: "Every calendar, or only those the user can add items to.")
        var display: Display = .all

        @Option(name: .customLong("entity-type"), help: "Calendars of events or lists of reminders.")
        var entityType: Entity = .event

        @Option(help: ArgumentHelp("A calendar selected at the start (repeat for several).", valueName: "identifier"))
        var selected: [String] = []

        @Flag(name: .customLong("done-button"), help: "Offer Done (d).")
        var doneButton = false

        @Flag(name: .customLong("cancel-button"), help: "Offer Cancel (c).")
        var cancelButton = false

        func run() throws {
            let path = try app.storePath("choose-calendar")
            let type: EKEntityType = entityType == .event ? .event : .reminder
            let (level, status) = app.appAccess(to: type, storePath: path)
            let kind = type == .event ? "events" : "reminders"
            guard level != .none else {
                printError("ical ui choose-calendar: \(app.appID) has no access to \(kind) (\(status)); the calendar chooser needs write-only or full access")
                print("canceled")
                return
            }
            let terminal: TerminalSession
            do { terminal = try TerminalSession() } catch {
                printError("ical ui choose-calendar: \(error); the chooser was canceled")
                print("canceled")
                return
            }
            let store = try app.openStore("choose-calendar")
            let writeOnly = level == .writeOnly
            var calendars = store.calendars(for: type)
            if writeOnly || display == .writable { calendars = calendars.filter(\.allowsContentModifications) }
            calendars.sort { ($0.title, $0.calendarIdentifier) < ($1.title, $1.calendarIdentifier) }
            let single = writeOnly || selection == .single
            var chosen = Set(selected.filter { id in calendars.contains { $0.calendarIdentifier == id } })
            if single && chosen.count > 1 { chosen = Set(chosen.sorted().prefix(1)) }
            if writeOnly && chosen.isEmpty, let fallback = store.defaultCalendarForNewEvents?.calendarIdentifier,
               calendars.contains(where: { $0.calendarIdentifier == fallback }) {
                chosen = [fallback]
            }

            let noun = type == .event ? "calendar" : "list"
            terminal.write("\n“\(app.displayName)” asks you to choose \(single ? "a \(noun)" : "\(noun)s").\n")
            if writeOnly {
                terminal.write("It can add events to the calendar you choose, but not see any of its events.\n")
            }
            guard !calendars.isEmpty else {
                terminal.write("There is no \(noun) to choose from.\n")
                print("canceled")
                return
            }
            var buttons: [String] = []
            if doneButton { buttons.append("d Done") }
            if cancelButton { buttons.append("c Cancel") }
            let help = "Type a number to \(single ? "choose" : "select or deselect") a \(noun)"
                + (buttons.isEmpty ? "; an empty line closes." : "; " + buttons.joined(separator: ", ") + ".")
            func show() {
                terminal.write("\n")
                for (index, calendar) in calendars.enumerated() {
                    let selected = chosen.contains(calendar.calendarIdentifier)
                    let mark = single ? (selected ? "(•)" : "( )") : (selected ? "[x]" : "[ ]")
                    terminal.write("  \(index + 1)  \(mark) \(TerminalText.line(calendar.title))\n")
                }
                terminal.write("\(help)\n")
            }
            show()
            func finish(_ action: String) {
                print(action)
                for id in calendars.map(\.calendarIdentifier) where chosen.contains(id) { print(id) }
            }
            while true {
                guard let line = terminal.ask("> ") else {
                    terminal.write("\nNo answer; the chooser was canceled.\n")
                    print("canceled")
                    return
                }
                switch line.lowercased() {
                case "d" where doneButton, "done" where doneButton:
                    terminal.write("Done.\n")
                    finish("done")
                    return
                case "c" where cancelButton, "cancel" where cancelButton:
                    terminal.write("Canceled.\n")
                    print("canceled")
                    return
                case "" where !doneButton && !cancelButton:
                    finish("closed")
                    return
                case "":
                    continue
                default:
                    guard let number = Int(line), (1...calendars.count).contains(number) else {
                        terminal.write("\(help)\n")
                        continue
                    }
                    let id = calendars[number - 1].calendarIdentifier
                    if single {
                        chosen = [id]
                    } else if chosen.contains(id) {
                        chosen.remove(id)
                    } else {
                        chosen.insert(id)
                    }
                    show()
                }
            }
        }
    }
}
