import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical import`: files into the store, as one all-or-nothing batch.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Add the events and to-dos of .ics or jCal files to the store.",
            discussion: """
                Every UID becomes one item file (its series, its overrides and the time
                zones they use), with every property kept. A calendar's X-WR-TIMEZONE
                (Google, Apple) is applied first: its floating times get that zone, as
                `ical query FILE` reads them. The whole import is one batch: all of it
                is written, or nothing (a crash halfway leaves the store as it was).
                Importing the same UIDs again replaces them (full access only).

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
            let gate = try PathGate(storeOptions)
            // Files are streamed: the import keeps each component's place, not the tree, and
            // reads the components again item by item as it writes them (see EKImportSource).
            // What the import keeps per item goes to temporary files past the budget.
            let source = EKImportSource(memory: reading.memory)
            for input in inputs {
                for path in try gate.expand(inputOf: input) {
                    // A file that cannot be opened is read whole, which reports why.
                    if let stream = (try? ICalComponentStream.open(path, reader: reading.reader)) ?? nil {
                        // A stream that is not faithful (a VCALENDAR property after its
                        // components, a limit reached) is read whole when its tree fits in
                        // --memory and a whole read takes it, else streamed again with the
                        // complete calendar properties (EKImportSource.add(_:evenIfUnfaithful:)).
                        let size = stream.byteCount
                        let tooLarge = size.multipliedReportingOverflow(by: OccurrenceInputs.wholeReadFactor).partialValue
                            > reading.memory.bytes || size > reading.reader.limits.maxInputSize
                        let summary: ICalComponentStream.Summary
                        do { summary = try source.add(stream, evenIfUnfaithful: tooLarge) } catch {
                            printError("\(error)")
                            throw ExitCode(1)
                        }
                        if summary.isFaithful || tooLarge {
                            try reading.report(summary.diagnostics, of: path)
                            continue
                        }
                    }
                    source.add(calendars: try reading.read(path).calendars)
                }
            }
            let store = try storeOptions.openStore()
            store.memoryBudget = reading.memory
            let access = AppAccess(manifest: try storeOptions.manifest(), storeArgument: storeOptions.store)
            if calendar != nil {
                // Seeing the calendars to choose from needs full access to their kind.
                let todosOnly = !source.containsOtherThanTodos && source.containsTodos
                try access.require(.full, to: todosOnly ? .reminder : .event, on: store,
                                   for: todosOnly ? "importing to-dos" : "importing into a chosen calendar")
            }
            let target = try calendar.map { try storeOptions.calendar(named: $0, in: store) }
            let report = try StoreImport(access: access)
                .run(source, into: target, on: store, action: target == nil ? "importing events" : "importing into a chosen calendar",
                     remindersAction: "importing to-dos")
            print(report)
        }
    }

    /// `ical export`: the store's items as one calendar file.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
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
            try PathGate(storeOptions).writeCalendars([exported], to: output.output) {
                let text = format == .ics ? ICalWriter().string(exported) : JCalWriter().string(exported)
                try FileIOBridge.write(text, to: output.output)
            }
        }
    }
}
