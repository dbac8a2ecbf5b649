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

                Files and standard input (-) of any size are read one component at a time;
                what the checks keep across components (each calendar's VTIMEZONEs, every
                UID for duplicate-uid, the findings to sort by line) stays within --memory
                (default 512M, at least 16M) and goes to temporary files in $TMPDIR past it.
                A calendar whose VTIMEZONEs or METHOD come after its events is read twice.
                jCal input is read whole, up to 256 MiB.

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
            let run = LintRun(memory: memory)
            let gate = PathGate()
            for input in inputs {
                let paths: [String]
                do { paths = try gate.expand(input) } catch let refusal as ExitCode { throw refusal } catch {
                    printError("\(error)")
                    run.addUnreadable()
                    continue
                }
                for path in paths {
                    do {
                        try run.add(contentsOfFile: path)
                    } catch {
                        printError("\(error)")
                        run.addUnreadable()
                    }
                }
            }
            let totals: LintRun.Totals
            do { totals = try run.finish() } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
            var findings = 0
            switch format {
            case .text:
                try run.forEachFinding { finding, acrossFiles in
                    findings += 1
                    if !quiet && !acrossFiles { print(finding) }
                }
                print(totals.line)
            case .json:
                print(LintSummary.jsonHead(files: totals.fileCount, components: totals.componentCount,
                                           errors: totals.errorCount, warnings: totals.warningCount) + "[", terminator: "")
                try run.forEachFinding { finding, _ in
                    print((findings == 0 ? "" : ",") + LintSummary.json(finding), terminator: "")
                    findings += 1
                }
                print("]}")
            }
            if totals.errorCount > 0 || (strict && findings > 0) { throw ExitCode(1) }
        }
    }
}
