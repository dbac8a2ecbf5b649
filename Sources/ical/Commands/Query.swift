import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical query`: the occurrences of events, to-dos and journal entries in a window.
    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the occurrences in a time window, recurring series expanded.",
            discussion: """
                A moment is a year, month, day, hour, minute or second (2026, 2026-12,
                2026-12-01, 2026-12-01T16, 2026-12-01T16:30, 2026-12-01T16:30:00), an ISO
                week or week day (2026-W49, 2026-W49-2), or now, today, tomorrow, yesterday.
                A time may end in Z or an offset, as ical prints it (2026-10-26T00:00:00Z,
                2026-11-10T17:00:00+01:00): then it is that instant. --at covers the whole of
                its precision (2026-12 is all of December); --between START END is [START,
                END), END being a moment or an offset from START (+7d, +1d12h, +30m, +2w; days
                move the wall clock, hours are exact). Without --at or --between the window is
                today and the next six days (--between today +7d). Moments without an offset
                are read in --tz, or the system zone ($TZ), or UTC.

                An occurrence is listed when it starts before the end and ends after the start
                (a zero-length one when START <= start < END). Overrides (RECURRENCE-ID),
                RDATE, EXDATE, cancelled instances and SEQUENCE versions are applied; times are
                converted with tzdata (also for a file's VTIMEZONE under an IANA name), a
                file's other VTIMEZONEs, then Windows zone names. Floating times are read in
                the calendar's X-WR-TIMEZONE when it has one, else in --tz; under --tz they stay
                floating in json and csv (no offset, timeZone null). An instance cancelled by
                an override (STATUS:CANCELLED) is left out, as Apple and Google show it;
                --include-cancelled lists it with status CANCELLED (json, csv, ics, and
                "[cancelled]" in text).

                Output formats: text (an agenda by day; all-day ranges show their last day),
                json (one array; fields uid, recurrenceId, summary, start, end, allDay,
                timeZone, component, location, status, source; ISO 8601 times: a date for
                all-day, local time for floating, local time with offset otherwise), csv
                (RFC 4180, header row), ics (a VCALENDAR of the occurrences with the
                VTIMEZONEs they need).

                Calendar text is untrusted: text shows control characters, line feeds and
                bidirectional controls as escapes such as \\u{1B} and \\u{0A}, one occurrence
                per line; json escapes them and keeps the exact text; csv writes every cell
                as it is, also cells that start with =, +, - or @ (no guard against
                spreadsheet formulas: CSV is data); ics is lossless.

                Examples:
                  ical query --at 2026-12 lessons.ics
                  ical query --between 2026-12-01 +7d --tz Europe/Berlin calendars/
                  ical query --at today --format json --component VTODO work.ics
                  ical query --between 2026-12-01T08:00 2026-12-01T18:00 --format ics -o day.ics cal.ics
                  ical query --at 2026-12 --calendar Lessons          (the store, as ical; needs full access)
                  ical query --at today --store ~/calendars --app Planner/Info.plist

                With no input, the store is queried (--store, else $OPENEVENTKIT_STORE, else
                $XDG_DATA_HOME/openeventkit) as an app under its access: ical itself, or the
                app of --app. Without full access nothing can be read (write-only access adds
                events but never reads them): the command says how to grant access and exits
                with status 77. On the store, text, json and csv come from the query index's
                occurrence cache (a window's first query fills it); the index notices other
                programs' changes by their folders' times, and --rescan compares every file
                (for files rewritten in place). See the QueryIndex article.
                """)

        /// Output formats.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json, csv, ics
        }

        /// Component kinds to include.
        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case VEVENT, VTODO, VJOURNAL
            init?(argument: String) { self.init(rawValue: argument.uppercased()) }
        }

        @Option(help: ArgumentHelp("The window is this moment, at its precision.", valueName: "when"))
        var at: String?

        @Option(parsing: .upToNextOption,
                help: ArgumentHelp("The window [START, END): two values, END absolute or +offset.", valueName: "start end"))
        var between: [String] = []

        @Argument(help: ArgumentHelp("Files, folders of .ics files, or - for standard input; none: the store.", valueName: "input"))
        var inputs: [String] = []

        @Option(help: ArgumentHelp("Show times in this zone and read floating times and the window in it.", valueName: "zone"))
        var tz: String?

        @Option(help: ArgumentHelp("Only this component kind (repeatable).", valueName: "kind"))
        var component: [Kind] = []

        @Option(help: ArgumentHelp("Only the calendar with this name: a collection folder's name, its displayname, or X-WR-CALNAME (repeatable).", valueName: "name"))
        var calendar: [String] = []

        @Option(help: "At most this many occurrences (the earliest).")
        var limit: Int?

        @Option(help: "The output format.")
        var format: Format = .text

        @Flag(help: "List instances cancelled by an override (STATUS:CANCELLED), with their status; by default they are left out.")
        var includeCancelled = false

        @Flag(help: ArgumentHelp("Store queries: compare every item file with the query index first, to see files rewritten in place (otherwise only folders whose times changed are listed).", visibility: .default))
        var rescan = false

        @OptionGroup var reading: ReadingOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var storeOptions: StoreAppOptions

        mutating func validate() throws {
            if between.count > 2 {
                inputs = Array(between[2...]) + inputs
                between = Array(between[0..<2])
            }
            if at != nil && !between.isEmpty { throw ValidationError("Give either --at or --between, not both.") }
            if !between.isEmpty && between.count != 2 { throw ValidationError("--between takes two values: START and END (a moment or +offset such as +7d).") }
            if !inputs.isEmpty && (storeOptions.store != nil || storeOptions.app != nil) {
                throw ValidationError("--store and --app query the store: give them without input files.")
            }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        func run() throws {
            let zone: any TimeZoneRules
            if let tz {
                guard let resolved = TimeZoneResolver.resolveStandard(tz) else {
                    printError("ical: unknown time zone '\(tz)' (use an IANA name such as Europe/Berlin)")
                    throw ExitCode(2)
                }
                zone = resolved.rules
            } else {
                zone = IANATimeZone.system() ?? FixedOffsetZone.utc
            }
            let now = Self.now(in: zone)
            let window: QueryWindow
            do {
                if let at {
                    window = try QueryWindow.at(at, in: zone, now: now)
                } else if between.count == 2 {
                    window = try QueryWindow.between(between[0], between[1], in: zone, now: now)
                } else {
                    // No window: today and the next six days, as `khal list` and icalBuddy's
                    // eventsToday+N show.
                    window = try QueryWindow.between("today", "+7d", in: zone, now: now)
                }
            } catch {
                printError("ical: \(error.message)")
                throw ExitCode(2)
            }

            // Output into a store is an import of calendar data (--format ics) or refused.
            let gate = try PathGate(storeOptions)
            if format != .ics { try gate.checkTextOutput(output.output) }

            let kinds: Set<ComponentKind> = component.isEmpty
                ? [.event, .todo, .journal] : Set(component.map { ComponentKind(rawValue: $0.rawValue) })
            let formatter = OccurrenceFormatter(displayZone: tz == nil ? nil : zone)
            if format == .ics {
                // Whole components: read the items (an iCalendar result copies them).
                var result = inputs.isEmpty
                    ? try queryStore(window: window, kinds: kinds, zone: zone)
                    : try queryFiles(window: window, kinds: kinds, zone: zone, gate: gate)
                result.diagnostics.forEach { printError($0.description) }
                if let limit, result.matches.count > limit { result.matches = Array(result.matches.prefix(limit)) }
                let calendar = formatter.calendar(result.matches)
                try gate.writeCalendars([calendar], to: output.output) {
                    try FileIOBridge.write(ICalWriter().string(calendar), to: output.output)
                }
                return
            } else {
                // Listings: the store's occurrence cache answers most windows without reading items.
                var (listings, diagnostics) = inputs.isEmpty
                    ? try listStore(window: window, kinds: kinds, zone: zone)
                    : try listFiles(window: window, kinds: kinds, zone: zone, gate: gate)
                diagnostics.forEach { printError($0.description) }
                if let limit, listings.count > limit { listings = Array(listings.prefix(limit)) }
                let text = format == .json ? formatter.json(listings)
                    : format == .csv ? formatter.csv(listings)
                    : formatter.agenda(listings, color: output.output == "-" && isatty(1) == 1)
                try FileIOBridge.write(text, to: output.output)
            }
        }

        /// Opens the store as the app with full access to what the query reads (under
        /// write-only access the fetch may show the upgrade prompt first, as every EventKit
        /// fetch does), and runs `body`.
        private func withReadableStore<Result>(_ body: (EKEventStore, [EKCalendar]?) throws -> Result) throws -> Result {
            let store = try storeOptions.openStore()
            store.indexScan = rescan ? .everyFile : .changedFolders
            let action = "querying the store"
            if store.authority.accessLevel(for: .event) != .writeOnly {
                try storeOptions.require(.full, to: .event, on: store, for: action)
            }
            if component.contains(.VTODO) { try storeOptions.require(.full, to: .reminder, on: store, for: "querying to-dos") }
            let calendars = try calendar.isEmpty ? nil : calendar.map { try storeOptions.calendar(named: $0, in: store) }
            let result = try body(store, calendars)
            if store.authority.accessLevel(for: .event) != .full {
                // Write-only access reads nothing, not even the events the app added.
                try storeOptions.require(.full, to: .event, on: store, for: action)
            }
            return result
        }

        /// The store's occurrences as listings, as the app.
        private func listStore(window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules) throws -> ([OccurrenceListing], [Diagnostic]) {
            try withReadableStore { store, calendars in
                let result = store.occurrenceListings(in: window.start..<window.end, calendars: calendars, kinds: kinds, floatingZone: zone,
                                                      includingCancelled: includeCancelled)
                return (result.listings, result.diagnostics)
            }
        }

        /// The files' occurrences as listings.
        private func listFiles(window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules,
                               gate: PathGate) throws -> ([OccurrenceListing], [Diagnostic]) {
            let result = try queryFiles(window: window, kinds: kinds, zone: zone, gate: gate)
            return (result.matches.map(OccurrenceListing.init), result.diagnostics)
        }

        /// The store's occurrences with whole components, as the app (needs full access).
        private func queryStore(window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules) throws -> OccurrenceQuery.Result {
            try withReadableStore { store, calendars in
                store.occurrences(in: window.start..<window.end, calendars: calendars, kinds: kinds, floatingZone: zone,
                                  includingCancelled: includeCancelled)
            }
        }

        private func queryFiles(window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules,
                                gate: PathGate) throws -> OccurrenceQuery.Result {
            var sources: [OccurrenceQuery.Source] = []
            for input in inputs {
                for path in try gate.expand(inputOf: input) {
                    let result = try reading.read(path)
                    // A file's VCALENDARs are one set of versions (SeriesVersions), as import
                    // makes them: the same UID in two of them is one series, not two.
                    let calendars = result.calendars.filter { matchesCalendarFilter($0, path: path) }
                    if let calendar = SeriesVersions.merged(calendars) {
                        sources.append(OccurrenceQuery.Source(calendar: calendar, name: path == "-" ? "<stdin>" : path))
                    }
                }
            }

            var query = OccurrenceQuery(window: window.start..<window.end, floatingZone: zone, kinds: kinds)
            query.includesCancelled = includeCancelled
            let result = query.run(sources)
            // The trees read are not needed again, and the process ends after printing:
            // leave them to the exit rather than freeing every component, property and
            // string of a large file one by one (a tenth of a query's time at 100,000 events).
            ProcessLifetime.keep(sources)
            return result
        }

        /// Whether a calendar passes --calendar: its folder name, the folder's displayname
        /// file, or its X-WR-CALNAME.
        func matchesCalendarFilter(_ calendar: Component, path: String) -> Bool {
            guard !self.calendar.isEmpty else { return true }
            var names: Set<String> = []
            if let name = calendar.property(.calendarName)?.textValue { names.insert(name) }
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            names.insert(folder.lastPathComponent)
            if let displayName = try? String(contentsOf: folder.appendingPathComponent("displayname"), encoding: .utf8) {
                names.insert(displayName.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return !names.isDisjoint(with: self.calendar)
        }

        /// The current wall-clock time in a zone; `ICAL_NOW` (YYYY-MM-DDTHH:MM:SS, UTC)
        /// pins it for tests.
        static func now(in zone: any TimeZoneRules) -> LocalDateTime {
            var instant = Int64(Date().timeIntervalSince1970)
            if let pinned = ProcessInfo.processInfo.environment["ICAL_NOW"],
               let moment = try? QueryWindow.moment(pinned, now: LocalDateTime(secondsSinceEpoch: 0)) {
                instant = moment.local.secondsSinceEpoch
            }
            return zone.local(at: instant)
        }
    }
}

/// Writes command output: standard output for `-`, else the file, atomically.
enum FileIOBridge {
    static func write(_ text: String, to path: String) throws {
        if path == "-" {
            do {
                try FileIO.writeStandardOutput(text)
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
            return
        }
        do {
            try ICalWriter.writeFileAtomically(Array(text.utf8), to: path)
        } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
    }
}

/// Values a command leaves to the process's exit instead of freeing them.
enum ProcessLifetime {
    nonisolated(unsafe) private static var kept: [Any] = []

    /// Keeps `value` until the process exits. Only for a command's last large values.
    static func keep(_ value: Any) { kept.append(value) }
}
