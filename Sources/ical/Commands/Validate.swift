import ArgumentParser
import ICalKit

extension ICal {
    /// `ical validate`: a linter that reports every problem in the inputs with file, line
    /// and rule.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check iCalendar files and report every problem with its file, line and rule.",
            discussion: """
                Prints one line per problem, FILE:LINE: SEVERITY: [RULE] MESSAGE, then a
                summary line. Rules: missing-version, missing-prodid, missing-uid,
                missing-dtstamp, missing-dtstart, dtend-before-dtstart, dtend-and-duration,
                unknown-tzid, rrule (INTERVAL=0, COUNT=0, UNTIL of the wrong type),
                exdate-type, duplicate-uid (within a file and across the inputs),
                line-length (over 75 octets), time-zone (VTIMEZONE and X-WR-TIMEZONE
                problems), and the reader's own: syntax, structure, invalid-value,
                placement, encoding, limit-exceeded. Exits with 1 when any input has an
                error, or with --strict when there is any finding at all. --format json
                prints one JSON object (files, components, errors, warnings, findings)
                for tools instead.

                Examples:
                  ical validate calendar.ics
                  ical validate --strict calendars/work/ calendars/home.ics
                  ical validate --format json export.ics | jq '.findings[].rule'
                  cat export.ics | ical validate -
                """)

        /// Output formats.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text
            case json
        }

        @Argument(help: ArgumentHelp("Files, folders of .ics files, or - for standard input.", valueName: "input"))
        var inputs: [String]

        @Flag(help: "Exit with 1 on any finding (warnings too), not only on errors.")
        var strict = false

        @Flag(name: .shortAndLong, help: "Print only the summary line (text format).")
        var quiet = false

        @Option(help: "The output format.")
        var format: Format = .text

        @Option(help: ArgumentHelp(
            "Memory for what a streamed read keeps besides the component it reads (K, M, G); past it, temporary files.",
            valueName: "size"))
        var memory: MemoryBudget = .default

        func run() throws {
            var summary = LintSummary()
            let linter = Linter()
            let gate = PathGate()
            for input in inputs {
                let paths: [String]
                do { paths = try gate.expand(input) } catch let refusal as ExitCode { throw refusal } catch {
                    printError("\(error)")
                    summary.unreadableCount += 1
                    continue
                }
                for path in paths {
                    do {
                        let report = try linter.lint(contentsOfFile: path)
                        summary.add(report)
                        if format == .text && !quiet { report.findings.forEach { print($0) } }
                    } catch {
                        printError("\(error)")
                        summary.fileCount += 1
                        summary.unreadableCount += 1
                    }
                }
            }
            switch format {
            case .text: print(summary.line)
            case .json: print(summary.json(), terminator: "")
            }
            if summary.errorCount > 0 || (strict && !summary.findings.isEmpty) { throw ExitCode(1) }
        }
    }
}
