import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical query`: the occurrences of events, to-dos and journal entries in a window.
    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "query",
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
                timeZone, component, location, status, source, and conferences when the
                event has RFC 7986 CONFERENCE links; ISO 8601 times: a date for all-day,
                local time for floating, local time with offset otherwise), csv (RFC 4180,
                header row; the conference column holds the links' URIs), ics (a VCALENDAR
                of the occurrences with the VTIMEZONEs they need). Text shows an event's
                first conference link in <>.

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

        @OptionGroup var window: WindowOptions

        @Option(help: ArgumentHelp("Only this component kind (repeatable).", valueName: "kind"))
        var component: [Kind] = []

        @Option(help: "At most this many occurrences (the earliest).")
        var limit: Int?

        @Option(help: "The output format.")
        var format: Format = .text

        @Flag(help: "List instances cancelled by an override (STATUS:CANCELLED), with their status; by default they are left out.")
        var includeCancelled = false

        @OptionGroup var source: OccurrenceInputs
        @OptionGroup var output: OutputOptions

        mutating func validate() throws {
            var inputs = source.inputs
            try window.check(movingExtraInto: &inputs)
            source.inputs = inputs
            try source.checkInputsOrStore()
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        func run() throws {
            let zone = try source.zone()
            let window = try self.window.window(in: zone)

            // Output into a store is an import of calendar data (--format ics) or refused.
            let gate = try PathGate(source.storeOptions)
            if format != .ics { try gate.checkTextOutput(output.output) }

            let kinds: Set<ComponentKind> = component.isEmpty
                ? [.event, .todo, .journal] : Set(component.map { ComponentKind(rawValue: $0.rawValue) })
            let formatter = OccurrenceFormatter(displayZone: source.tz == nil ? nil : zone)
            let toStore: Bool
            if case .store = gate.destination(output.output) { toStore = true } else { toStore = false }
            if !source.readsStore && !toStore {
                // Files: the query's occurrences are merged from the series' ordered streams
                // and written as they come, in pieces (memory by series, not by occurrence).
                let stream = try source.fileMatchStream(in: window, kinds: kinds, zone: zone,
                                                        includingCancelled: includeCancelled, gate: gate)
                try writeStreamed(stream, formatter: formatter)
                return
            }
            if format == .ics {
                // Whole components: read the items (an iCalendar result copies them).
                var result = try source.matches(in: window, kinds: kinds, zone: zone, includingCancelled: includeCancelled,
                                                readingToDos: component.contains(.VTODO), gate: gate)
                result.diagnostics.forEach { printError($0.description) }
                if let limit, result.matches.count > limit { result.matches = Array(result.matches.prefix(limit)) }
                let calendar = formatter.calendar(result.matches)
                try gate.writeCalendars([calendar], to: output.output) {
                    try FileIOBridge.write(ICalWriter().string(calendar), to: output.output)
                }
                return
            } else {
                // Listings: the store's occurrence cache answers most windows without reading items.
                // Written from packed listings: no String for each field of each occurrence.
                let toTerminal = output.output == "-" && isatty(1) == 1
                let listingFormat: OccurrenceFormatter.ListingFormat = format == .json ? .json : format == .csv ? .csv
                    : .agenda(color: toTerminal)
                // A repeated store query copies the weeks the index rendered in this format,
                // written one at a time as the index gives them; not onto a terminal, where
                // every value is escaped as it is written (bytes from the index file are not
                // sent to a terminal as they are). The output is open before the query runs:
                // a file is still written whole or not at all (a temporary file beside it).
                try FileIOBridge.write(to: output.output) { descriptor, reported in
                    let flush = { (piece: inout [UInt8]) throws(ICalError) in
                        try FileIO.writeAll(piece, to: descriptor, path: reported)
                        piece.removeAll(keepingCapacity: true)
                    }
                    let sink = { (bytes: UnsafeRawBufferPointer) throws(ICalError) in
                        try FileIO.writeAll(bytes, to: descriptor, path: reported)
                    }
                    var writer: OccurrenceFormatter.RenderedWeeksWriter?
                    var failure: ICalError?
                    let rendering = toTerminal ? nil : EKEventStore.OccurrenceRendering(
                        style: formatter.renderingStyle(listingFormat),
                        render: { listings in RenderedWeek.render(listings, formatter: formatter, format: listingFormat) },
                        begin: { selection, diagnostics in
                            diagnostics.forEach { printError($0.description) }
                            writer = OccurrenceFormatter.RenderedWeeksWriter(formatter: formatter, format: listingFormat,
                                                                             selection: selection, limit: limit)
                        },
                        write: { week, start in
                            guard failure == nil, writer != nil else { return false }
                            do throws(ICalError) { return try writer!.write(week, start: start, sink) } catch {
                                failure = error
                                return false
                            }
                        })
                    // The index is held alone while the output cannot make the query wait
                    // (a reader at the other end of a pipe, such as a pager, could keep it
                    // locked for as long as it likes).
                    let (answer, diagnostics) = try source.listingAnswer(in: window, kinds: kinds, zone: zone,
                                                                         includingCancelled: includeCancelled,
                                                                         readingToDos: component.contains(.VTODO), gate: gate,
                                                                         rendering: rendering,
                                                                         indexLocking: Self.neverWaits(descriptor) ? .exclusiveWhenAlone : .shared)
                    switch answer {
                    case .rendered:
                        if let failure { throw failure }
                        try writer?.finish(sink)
                    case .listings(var listings):
                        diagnostics.forEach { printError($0.description) }
                        if let limit, listings.count > limit { listings.offsets = Array(listings.offsets.prefix(limit)) }
                        try formatter.write(listings, as: listingFormat, flush)
                    case .interrupted:
                        diagnostics.forEach { printError($0.description) }
                        throw ExitCode(1)
                    }
                }
            }
        }

        /// Whether writing to `descriptor` never waits for another program: a regular file
        /// (`--output`'s temporary file, or standard output redirected to a file) or
        /// `/dev/null`; not a pipe, a socket or a terminal.
        static func neverWaits(_ descriptor: Int32) -> Bool {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { return false }
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                return true
            case S_IFCHR:
                var null = stat()
                return stat("/dev/null", &null) == 0 && (null.st_mode & S_IFMT) == S_IFCHR && null.st_rdev == status.st_rdev
            default:
                return false
            }
        }

        /// Writes a file query's stream to the output, all or nothing for a file (a temporary
        /// file beside it, renamed at the end; an iCalendar result is spooled first, as its
        /// VTIMEZONEs come before the occurrences but depend on all of them). The diagnostics
        /// follow the output, as they are complete only at the stream's end; on a write error
        /// they are printed, then the error, and the exit status is 1.
        private func writeStreamed(_ stream: OccurrenceQuery.Stream, formatter: OccurrenceFormatter) throws {
            let path = output.output
            do throws(ICalError) {
                if format == .ics {
                    let spool = try SpooledOutput()
                    let opening = try formatter.writeCalendar(stream, limit: limit) { (chunk: [UInt8]) throws(ICalError) in
                        var chunk = chunk
                        try spool.take(&chunk)
                    }
                    try spool.commit(to: path, opening: opening)
                } else {
                    let listing: OccurrenceFormatter.ListingFormat = format == .json ? .json : format == .csv ? .csv
                        : .agenda(color: path == "-" && isatty(1) == 1)
                    try FileIO.writeAtomically(to: path) { descriptor, reported throws(ICalError) in
                        try formatter.write(stream, as: listing, limit: limit) { (chunk: [UInt8]) throws(ICalError) in
                            try FileIO.writeAll(chunk, to: descriptor, path: reported)
                        }
                    }
                }
            } catch {
                // Standard output is named as every other command's output names it.
                var error = error
                if path == "-" && error.file == "-" { error.file = "<stdout>" }
                stream.drain()
                stream.diagnostics.forEach { printError($0.description) }
                printError("\(error)")
                throw ExitCode(1)
            }
            stream.diagnostics.forEach { printError($0.description) }
        }

        /// The current wall-clock time in a zone; `ICAL_NOW` (YYYY-MM-DDTHH:MM:SS, UTC)
        /// pins it for tests.
        static func now(in zone: any TimeZoneRules) -> LocalDateTime {
            var instant = Int64(Date().timeIntervalSince1970)
            if let pinned = StoreAppOptions.environment(["ICAL_NOW"])["ICAL_NOW"],
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
            try reporting { () throws(ICalError) in try FileIO.writeStandardOutput(text) }
        } else {
            try write(Array(text.utf8), to: path)
        }
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try reporting { () throws(ICalError) in
            if path == "-" { try FileIO.writeStandardOutput(bytes) } else { try ICalWriter.writeFileAtomically(bytes, to: path) }
        }
    }

    /// Writes what `content` writes into a descriptor (and the path to name in errors):
    /// standard output for `-`, else the file, atomically. A write error (``ICalError``) is
    /// printed and the exit status is 1; any other error `content` throws leaves a file as it
    /// was and is thrown on as it is (`ExitCode(1)` once `content` printed why).
    static func write(to path: String, content: (Int32, String) throws -> Void) throws {
        var other: (any Error)?
        do throws(ICalError) {
            try FileIO.writeAtomically(to: path) { descriptor, reported throws(ICalError) in
                do {
                    try content(descriptor, path == "-" ? "<stdout>" : reported)
                } catch let error as ICalError {
                    throw error
                } catch {
                    other = error
                    throw ICalError(.io, "not written", file: reported)
                }
            }
        } catch {
            if let other { throw other }
            printError("\(error)")
            throw ExitCode(1)
        }
    }

    /// Runs a write; its error is printed and the exit status is 1.
    private static func reporting(_ body: () throws(ICalError) -> Void) throws {
        do {
            try body()
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
