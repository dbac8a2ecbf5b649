import ArgumentParser
import ICalKit

extension ICal {
    /// `ical validate`: reports every problem in the inputs with file and line.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check iCalendar files and report every problem with its file and line.",
            discussion: """
                Prints one line per problem (FILE:LINE: SEVERITY: MESSAGE [COMPONENT PROPERTY])
                and a summary. Exits with 1 when any input has an error, or with --strict
                when any input has a warning too.

                Examples:
                  ical validate calendar.ics
                  ical validate --strict calendars/work/ calendars/home.ics
                  cat export.ics | ical validate -
                """)

        @Argument(help: ArgumentHelp("Files, folders of .ics files, or - for standard input.", valueName: "input"))
        var inputs: [String]

        @Flag(help: "Exit with 1 on warnings too, not only on errors.")
        var strict = false

        @Flag(name: .shortAndLong, help: "Print only the summary line.")
        var quiet = false

        func run() throws {
            var files = 0, errors = 0, warnings = 0, components = 0
            for input in inputs {
                let paths: [String]
                do { paths = try CalendarFiles.expand(input) } catch {
                    printError("\(error)")
                    errors += 1
                    continue
                }
                for path in paths {
                    files += 1
                    do {
                        let result = try ICalReader().read(contentsOfFile: path)
                        components += result.calendars.reduce(0) { $0 + $1.components.count }
                        for diagnostic in result.diagnostics {
                            if diagnostic.severity == .error { errors += 1 } else { warnings += 1 }
                            if !quiet { print(diagnostic) }
                        }
                    } catch {
                        printError("\(error)")
                        errors += 1
                    }
                }
            }
            print("\(files) file\(files == 1 ? "" : "s"), \(components) component\(components == 1 ? "" : "s"): "
                  + "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
            if errors > 0 || (strict && warnings > 0) { throw ExitCode(1) }
        }
    }
}
