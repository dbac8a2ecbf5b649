import ArgumentParser
import ICalKit

extension ICal {
    /// `ical convert`: reads calendars and writes them in another format, repaired or split.
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "convert",
            abstract: "Convert calendars between formats, repair them, or split them into one file per event.",
            discussion: """
                Reads iCalendar or jCal (RFC 7265; detected from the content) and writes the
                format --to names. Several inputs are merged into one output. Problems go to
                standard error; with --strict the first error stops the conversion. When an
                input cannot be read or holds no calendar data, nothing is written and the exit
                status is 1; output files are written atomically, never half-written.

                ics: canonical iCalendar: CRLF line ends, lines folded at 75 octets, every
                property, parameter and component kept (unknown and X- ones too). iCalendar and
                jCal convert both ways without loss.

                json: a flat array for scripts, one object per VEVENT, VTODO and VJOURNAL:
                {"component", "uid", "summary", "start", "end", "allDay", "timeZone",
                "location", "description", "rrule", "status", "categories", "recurrenceId",
                "sequence", "properties"}. Times are ISO 8601: a date for all-day values
                (2024-03-10), a local time without offset for floating ones
                (2024-03-10T09:00:00), the local time with its offset for zoned and UTC ones
                (2024-03-10T09:00:00+01:00, 2024-03-10T08:00:00Z). "end" is DTEND (DUE),
                or DTSTART plus DURATION. "properties" lists every property as written:
                {"name", "parameters": {NAME: value}, "value"}. Absent values are null.

                csv: RFC 4180 (CRLF rows, quotes doubled), a header row and one row per
                VEVENT, VTODO and VJOURNAL: uid, summary, start, end, all-day, time zone,
                location, description, rrule, status, categories (joined with commas).
                Cells are written exactly as they are, also those that start with =, +, - or
                @: no guard against spreadsheet formulas (CSV is data; a ' prefix would
                change it). Open CSV made from untrusted calendars in a spreadsheet with
                care.

                Calendar text is untrusted: json and jcal escape every control character
                (also DEL, C1 and bidirectional controls, as \\u escapes such as \\u001B) and keep the exact
                text; ics keeps it as it is; problems on standard error show control
                characters as escapes such as \\u{1B}.

                --repair makes output other programs accept, reporting each change as
                FILE:LINE: repaired: ... on standard error: Windows and vendor-prefixed TZIDs
                become IANA names (with VTIMEZONEs from tzdata instead of the Windows ones);
                X-WR-TIMEZONE is applied (floating date-times get it as TZID, as Google and
                Apple mean them); missing VTIMEZONEs, DTSTAMP (now, or --stamp), UID (derived
                from the content, so the same on every run), VERSION and PRODID are added.
                Unknown TZIDs are reported and left as they are.

                --split DIR writes one .ics per UID into DIR (a vdir collection): the master
                and its overrides together, each a complete VCALENDAR with the VTIMEZONEs it
                needs. File names come from the UID (unsafe characters become _, long names
                end in a hash, collisions get a hash suffix). When UIDs repeat, the highest
                SEQUENCE wins, then the latest DTSTAMP; each duplicate is reported. An
                existing file is replaced only when it holds the same UID; any other file in
                the way stops the split before anything is written.

                Examples:
                  ical convert export.ics -o clean.ics
                  ical convert export.ics --to jcal --pretty > export.json
                  ical convert export.json --to ics -o export.ics
                  ical convert work/ home.ics > all.ics
                  ical convert outlook.ics --repair -o fixed.ics
                  ical convert calendar.ics --to json | jq '.[].summary'
                  ical convert calendar.ics --to csv -o calendar.csv
                  ical convert --repair --split ~/.calendars/work/ google.ics outlook.ics
                """)

        /// Output formats.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case ics
            case jcal
            case json
            case csv
        }

        @Argument(help: ArgumentHelp("Files, folders of .ics files, or - for standard input.", valueName: "input"))
        var inputs: [String]

        @Option(help: "The output format.")
        var to: Format = .ics

        @Flag(help: "Indent JSON output (jcal, json) for people to read.")
        var pretty = false

        @Flag(help: "Repair what other programs reject (time zones, UID, DTSTAMP, VERSION, PRODID); report each change.")
        var repair = false

        @Option(help: ArgumentHelp(
            "With --repair: the DTSTAMP for components without one, as YYYYMMDDTHHMMSSZ (default: now).",
            valueName: "date-time"))
        var stamp: String?

        @Option(help: ArgumentHelp("Write one .ics file per UID into this folder (a vdir collection).", valueName: "folder"))
        var split: String?

        @OptionGroup var reading: ReadingOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if split != nil && output.output != "-" {
                throw ValidationError("--split writes into its folder; it cannot be used with --output.")
            }
            if split != nil && to != .ics {
                throw ValidationError("--split writes .ics files; it cannot be used with --to \(to.rawValue).")
            }
            if pretty && !(to == .jcal || to == .json) {
                throw ValidationError("--pretty applies to --to jcal and --to json only.")
            }
            if let stamp {
                guard let value = DateTime(iCalendar: stamp), value.zone == .utc else {
                    throw ValidationError("--stamp must be a UTC date-time such as 20240101T120000Z, not '\(stamp)'.")
                }
                _ = value
                if !repair { throw ValidationError("--stamp applies to --repair only.") }
            }
        }

        func run() throws {
            // Output into a store is an import of calendar data, or refused (see PathGate).
            let gate = PathGate()
            if split == nil && (to == .json || to == .csv) { try gate.checkTextOutput(output.output) }
            var inputs: [CalendarSplit.Input] = []
            for input in self.inputs {
                for path in try gate.expand(inputOf: input) {
                    let name = path == "-" ? "<stdin>" : path
                    let result = try reading.read(path)
                    if result.calendars.isEmpty {
                        printError("ical: \(name) holds no calendar data; nothing written")
                        throw ExitCode(1)
                    }
                    inputs.append(CalendarSplit.Input(file: name, calendars: result.calendars))
                }
            }
            if repair {
                var repairer = CalendarRepair()
                if let text = stamp, let fixed = DateTime(iCalendar: text) {
                    repairer.now = { fixed }
                }
                for index in inputs.indices {
                    let result = repairer.repair(inputs[index].calendars, file: inputs[index].file)
                    result.changes.forEach { printError($0.description) }
                    inputs[index].calendars = result.calendars
                }
            }
            if let split {
                let result = CalendarSplit().split(inputs)
                result.notes.forEach { printError($0.description) }
                if result.notes.contains(where: { $0.kind == .error }) {
                    printError("ical: nothing written to \(split)")
                    throw ExitCode(1)
                }
                try gate.writeCalendars(result.items.map(\.calendar), to: split) {
                    do {
                        try CalendarSplit().write(result.items, toFolder: split)
                    } catch {
                        printError("\(error)")
                        throw ExitCode(1)
                    }
                }
                return
            }
            let calendars = inputs.flatMap(\.calendars)
            try gate.writeCalendars(calendars, to: output.output) {
                do {
                    try write(calendars)
                } catch {
                    printError("\(error)")
                    throw ExitCode(1)
                }
            }
        }

        /// Writes the merged calendars in the format --to names.
        private func write(_ calendars: [Component]) throws(ICalError) {
            switch to {
            case .ics:
                try ICalWriter().write(calendars, toFile: output.output)
            case .jcal:
                try JCalWriter().write(calendars, toFile: output.output, pretty: pretty)
            case .json:
                try ComponentJSONWriter(pretty: pretty).write(calendars, toFile: output.output)
            case .csv:
                try ComponentCSVWriter().write(calendars, toFile: output.output)
            }
        }
    }
}
