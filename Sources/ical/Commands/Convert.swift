import ArgumentParser
import ICalKit

extension ICal {
    /// `ical convert`: reads calendars and writes them in another format.
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert calendars between formats.",
            discussion: """
                Reads iCalendar or jCal (RFC 7265; detected from the content) and writes the
                format --to names. iCalendar output is canonical: CRLF line ends, lines folded
                at 75 octets, every property, parameter and component kept (unknown and X- ones
                too). iCalendar and jCal convert both ways without loss. Several inputs are
                merged into one output. Problems go to standard error; with --strict the first
                error stops the conversion and nothing is written.

                Examples:
                  ical convert export.ics -o clean.ics
                  ical convert export.ics --to jcal --pretty > export.json
                  ical convert export.json --to ics -o export.ics
                  ical convert work/ home.ics > all.ics
                """)

        /// Output formats.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case ics
            case jcal
        }

        @Argument(help: ArgumentHelp("Files, folders of .ics files, or - for standard input.", valueName: "input"))
        var inputs: [String]

        @Option(help: "The output format.")
        var to: Format = .ics

        @Flag(help: "Indent JSON output (jcal) for people to read.")
        var pretty = false

        @OptionGroup var reading: ReadingOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            var calendars: [Component] = []
            var failed = false
            for input in inputs {
                for path in try CalendarFiles.expand(input) {
                    do {
                        let result = try reading.reader.read(contentsOfFileInAnyFormat: path)
                        result.diagnostics.forEach { printError($0.description) }
                        failed = failed || result.calendars.isEmpty
                        calendars += result.calendars
                    } catch {
                        printError("\(error)")
                        throw ExitCode(1)
                    }
                }
            }
            guard !calendars.isEmpty else {
                printError("ical: no calendar data in the input; nothing written")
                throw ExitCode(1)
            }
            switch to {
            case .ics:
                try ICalWriter().write(calendars, toFile: output.output)
            case .jcal:
                try JCalWriter().write(calendars, toFile: output.output, pretty: pretty)
            }
            if failed { throw ExitCode(1) }
        }
    }
}
