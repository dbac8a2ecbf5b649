import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical import`: files into the store, as one all-or-nothing batch.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the events and to-dos of .ics or jCal files to the store.",
            discussion: """
                Every UID becomes one item file (its series, its overrides and the time
                zones they use), with every property kept. The whole import is one batch:
                all of it is written, or nothing (a crash halfway leaves the store as it
                was). Importing the same UIDs again replaces them (full access only).

                ical acts as an app: it needs write-only access to events to add them
                (full access to replace existing ones) and full access to reminders for
                to-dos. When the user has not decided, it asks on the terminal; without
                access it says how to grant it and exits with status 77.

                Examples:
                  ical import term.ics
                  ical import --calendar Lessons lessons.ics holidays.ics
                  ical import --store ~/calendars --app MyApp/Info.plist export.ics
                """)

        @Argument(help: ArgumentHelp("Files, folders of .ics files, or - for standard input.", valueName: "input"))
        var inputs: [String]

        @Option(help: ArgumentHelp("Import into this calendar (identifier or title; needs full access to see calendars).", valueName: "name"))
        var calendar: String?

        @OptionGroup var storeOptions: StoreAppOptions
        @OptionGroup var reading: ReadingOptions

        func run() throws {
            var calendars: [Component] = []
            for input in inputs {
                let paths: [String]
                do { paths = try CalendarFiles.expand(input) } catch {
                    printError("\(error)")
                    throw ExitCode(1)
                }
                for path in paths { calendars += try reading.read(path).calendars }
            }
            let hasTodos = calendars.contains { $0.components.contains { $0.matches(.todo) } }
            let hasEvents = calendars.contains { $0.components.contains { !$0.matches(.todo) && !$0.matches(.timeZone) } }
            let store = try storeOptions.openStore()
            if hasEvents || !hasTodos {
                try storeOptions.require(calendar == nil ? .writeOnly : .full, to: .event, on: store,
                                         for: calendar == nil ? "importing events" : "importing into a chosen calendar")
            }
            if hasTodos { try storeOptions.require(.full, to: .reminder, on: store, for: "importing to-dos") }
            let target = try calendar.map { try storeOptions.calendar(named: $0, in: store) }
            var progress = ProgressLine("ical: importing")
            do {
                let report = try store.importCalendars(calendars, into: target) { progress.update($0, $1) }
                var text = "Imported \(report.added) new item\(report.added == 1 ? "" : "s")"
                if report.updated > 0 { text += " and replaced \(report.updated)" }
                text += " into \(report.calendars.sorted().map { TerminalText.line($0) }.joined(separator: ", "))"
                if report.uidsAdded > 0 { text += " (\(report.uidsAdded) component\(report.uidsAdded == 1 ? "" : "s") without UID got one)" }
                print(text + ".")
            } catch {
                printError("ical: import failed, nothing was written: \(error)")
                throw ExitCode((error as? EKError)?.code == .eventStoreNotAuthorized ? exitNoPermission : 1)
            }
        }
    }

    /// `ical export`: the store's items as one calendar file.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the store's events and to-dos as one .ics (or jCal) file.",
            discussion: """
                Items are written as they are stored, every property and parameter kept,
                with each VTIMEZONE once: exporting what `ical import` stored gives the
                same components back. Needs full access.

                Examples:
                  ical export -o everything.ics
                  ical export --calendar Lessons --format jcal -o lessons.json
                """)

        enum Format: String, ExpressibleByArgument, CaseIterable { case ics, jcal }

        @Option(help: ArgumentHelp("Only this calendar (identifier or title; repeatable).", valueName: "name"))
        var calendar: [String] = []

        @Option(help: "The output format.")
        var format: Format = .ics

        @OptionGroup var storeOptions: StoreAppOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let store = try storeOptions.open(needing: .full, for: "exporting")
            let calendars = try calendar.isEmpty ? nil : calendar.map { try storeOptions.calendar(named: $0, in: store) }
            let exported: Component
            do { exported = try store.exportCalendar(calendars) } catch {
                printError("ical: \(error)")
                throw ExitCode(1)
            }
            store.readDiagnostics.forEach { printError($0.description) }
            let text = format == .ics ? ICalWriter().string(exported) : JCalWriter().string(exported)
            try FileIOBridge.write(text, to: output.output)
        }
    }
}
