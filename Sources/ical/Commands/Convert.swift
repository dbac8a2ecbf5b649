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

                Files and standard input (-) of any size are converted one component at a
                time (ics, jcal, json, csv); what is kept across components stays within
                --memory (default 512M). A file whose calendar properties or VTIMEZONEs
                come after its events is read twice. --repair reads each input twice (first
                what each calendar's repair needs, then component by component), and a third
                time when a VTIMEZONE comes after the events it repairs. --split keeps a
                record of each component (UID, versions, place) in a sort that spills to
                temporary files, then reads each item's components again from their places;
                the files written, the notes and the checks before writing are those of a
                whole read. jCal input is read whole, up to 256 MiB; so is everything when
                --split's folder or the output is in a store (an import).

                Examples:
                  ical convert export.ics -o clean.ics
                  ical convert export.ics --to jcal --pretty > export.json
                  ical convert export.json --to ics -o export.ics
                  ical convert work/ home.ics > all.ics
                  ical convert outlook.ics --repair -o fixed.ics
                  ical convert calendar.ics --to json | jq '.[].summary'
                  ical convert calendar.ics --to csv -o calendar.csv
                  ical convert --repair --split ~/.calendars/work/ google.ics outlook.ics
                  gunzip -c export.ics.gz | ical convert - --to csv --memory 256M > export.csv
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
            if try runStreamed(gate) { return }
            if try runStreamedRepairOrSplit(gate) { return }
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

        /// Output without --repair and --split, written component by component as the files
        /// are read (``ICalComponentStream``; ``CalendarStreamWriter`` for ics and jCal, one
        /// ``ComponentSummary`` at a time for json and csv): memory holds one component, a
        /// megabyte of output and, for json and csv, each calendar's VTIMEZONEs (up to a
        /// quarter of --memory), not the files' trees. Standard input is streamed too (copied
        /// to a temporary file first). The output goes to a temporary file first and is put in
        /// place at the end, so a failure writes nothing; the bytes are those of ``write(_:)``.
        ///
        /// A file is read a second time when what comes late changes what was written: a
        /// VCALENDAR property after its components (ics, jCal), a VTIMEZONE after the events
        /// it resolves (json, csv). Only jCal input, a named pipe or device, and a file the
        /// stream cannot give exactly (a component over the component limit) within the
        /// whole-read limit are read whole. Returns false, having done nothing, when the
        /// conversion is not streamed (--repair, --split, output into a store).
        private func runStreamed(_ gate: PathGate) throws -> Bool {
            guard split == nil, !repair else { return false }
            if case .store = gate.destination(output.output) { return false }
            guard let spool = try? SpooledOutput() else { return false }
            var sink = Sink(format: to, pretty: pretty)
            var buffer: [UInt8] = []
            var failure: ICalError?
            if to == .csv { buffer += Array(ComponentCSVWriter.headerRow.utf8) }
            func take() throws {
                do { try spool.take(&buffer) } catch {
                    printError("\(error)")
                    throw ExitCode(1)
                }
            }
            func flushIfLarge() {
                if buffer.count >= 1 << 16 {
                    do throws(ICalError) { try spool.take(&buffer) } catch { failure = failure ?? error }
                }
            }
            let zoneBudget = reading.memory.bytes / 4
            for input in inputs {
                for path in try gate.expand(inputOf: input) {
                    let name = path == "-" ? "<stdin>" : path
                    var streamed = false
                    // A file that cannot be opened is read whole, which reports why.
                    if let stream = (try? ICalComponentStream.open(path, reader: reading.reader)) ?? nil {
                        try take()
                        let mark = spool.count
                        let saved = sink
                        var pass = Pass(file: name, headers: nil, zones: [])
                        let summary: ICalComponentStream.Summary
                        do {
                            summary = try stream.read { event in
                                guard failure == nil else { return }
                                do throws(ICalError) {
                                    try sink.take(event, pass: &pass, spool: spool, buffer: &buffer, zoneBudget: zoneBudget)
                                } catch { failure = error }
                                flushIfLarge()
                            }
                            if failure == nil && pass.late {
                                // Second pass: every calendar's properties and VTIMEZONEs are known.
                                buffer.removeAll()
                                try spool.truncate(to: mark)
                                sink = saved
                                var second = Pass(file: name, headers: summary.calendars, zones: pass.zones)
                                _ = try stream.read { event in
                                    guard failure == nil else { return }
                                    do throws(ICalError) {
                                        try sink.take(event, pass: &second, spool: spool, buffer: &buffer, zoneBudget: zoneBudget)
                                    } catch { failure = error }
                                    flushIfLarge()
                                }
                            }
                        } catch {
                            printError("\(error)")
                            throw ExitCode(1)
                        }
                        if let failure {
                            printError("\(failure)")
                            throw ExitCode(1)
                        }
                        if summary.isFaithful || pass.late || stream.byteCount > reading.reader.limits.maxInputSize {
                            streamed = true
                            try reading.report(summary.diagnostics, of: path)
                            if summary.calendars.isEmpty {
                                printError("ical: \(name) holds no calendar data; nothing written")
                                throw ExitCode(1)
                            }
                        } else {
                            buffer.removeAll()
                            do { try spool.truncate(to: mark) } catch {
                                printError("\(error)")
                                throw ExitCode(1)
                            }
                            sink = saved
                        }
                    }
                    if !streamed {
                        let result = try reading.read(path)
                        if result.calendars.isEmpty {
                            printError("ical: \(name) holds no calendar data; nothing written")
                            throw ExitCode(1)
                        }
                        for calendar in result.calendars {
                            do { try sink.take(wholeCalendar: calendar, spool: spool, buffer: &buffer) } catch {
                                printError("\(error)")
                                throw ExitCode(1)
                            }
                            try take()
                        }
                    }
                }
            }
            sink.finish(to: &buffer)
            try take()
            if let failure {
                printError("\(failure)")
                throw ExitCode(1)
            }
            do {
                if let firstCalendarEnd = sink.firstCalendarEnd {
                    try spool.commit(to: output.output, opening: sink.writer.severalCalendarsOpening,
                                     indentedBefore: pretty ? firstCalendarEnd : 0)
                } else {
                    try spool.commit(to: output.output)
                }
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
            return true
        }

        /// An input of --repair or --split after its first read: a file streamed, or
        /// calendars read whole (jCal, a named pipe, a file the stream cannot give exactly).
        private enum ReadInput {
            case streamed(CalendarRepair.StreamedFile)
            case whole(name: String, calendars: [Component])
        }

        /// --repair and --split on inputs of any size, with the output, the notes and the
        /// exit status of the whole reads below (``CalendarRepair``, ``CalendarSplit``).
        ///
        /// Each input is read first (its diagnostics reported, as a whole read reports them):
        /// for --repair by ``CalendarRepair/StreamedFile/prepare()``, which gathers what each
        /// VCALENDAR's repair needs; for --split alone by ``CalendarSplit/Run/add(_:file:)``,
        /// which records each component's UID, versions and place. With --repair each input
        /// is then read again and repaired component by component, into the output (as
        /// ``runStreamed(_:)`` writes it) or into the split's records; the repair's notes go
        /// through a sort that spills, and are printed by file and line as the whole repair
        /// prints them. --split then chooses the versions, reports the duplicates, checks
        /// every target and writes the files (``CalendarSplit/Run``). Memory holds the
        /// component being read, each input's VCALENDAR properties and VTIMEZONEs, and the
        /// records within --memory; the rest spills to temporary files.
        ///
        /// Returns false, having done nothing, without --repair or --split, or when the
        /// output or the split's folder is in a store (an import, which takes the calendars
        /// whole).
        private func runStreamedRepairOrSplit(_ gate: PathGate) throws -> Bool {
            guard repair || split != nil else { return false }
            if let split, case .store = gate.destination(split) { return false }
            if split == nil, case .store = gate.destination(output.output) { return false }
            var repairer = CalendarRepair()
            if let text = stamp, let fixed = DateTime(iCalendar: text) {
                repairer.now = { fixed }
            } else {
                // One time for the run: a component read again gets the DTSTAMP it got before.
                let now = repairer.now()
                repairer.now = { now }
            }
            let zoneBudget = reading.memory.bytes / 4
            let run = split.map { _ in CalendarSplit.Run(memory: reading.memory) }
            var read: [ReadInput] = []
            for input in inputs {
                for path in try gate.expand(inputOf: input) {
                    let name = path == "-" ? "<stdin>" : path
                    var streamed = false
                    // A file that cannot be opened is read whole, which reports why.
                    if let stream = (try? ICalComponentStream.open(path, reader: reading.reader)) ?? nil {
                        var file: CalendarRepair.StreamedFile?
                        let summary: ICalComponentStream.Summary
                        do {
                            if repair {
                                file = CalendarRepair.StreamedFile(repairer, stream: stream, file: name, zoneBudget: zoneBudget)
                                summary = try file!.prepare()
                                stream.close()
                            } else {
                                summary = try run!.add(stream, file: name)
                            }
                        } catch {
                            printError("\(error)")
                            throw ExitCode(1)
                        }
                        if summary.isFaithful || stream.byteCount > reading.reader.limits.maxInputSize {
                            streamed = true
                            try reading.report(summary.diagnostics, of: path)
                            if summary.calendars.isEmpty {
                                printError("ical: \(name) holds no calendar data; nothing written")
                                throw ExitCode(1)
                            }
                            if let file { read.append(.streamed(file)) }
                        } else if !repair {
                            run!.discardLastInput()
                        }
                    }
                    if !streamed {
                        let result = try reading.read(path)
                        if result.calendars.isEmpty {
                            printError("ical: \(name) holds no calendar data; nothing written")
                            throw ExitCode(1)
                        }
                        if repair {
                            read.append(.whole(name: name, calendars: result.calendars))
                        } else {
                            do { try run!.add(CalendarSplit.Input(file: name, calendars: result.calendars)) } catch {
                                printError("\(error)")
                                throw ExitCode(1)
                            }
                        }
                    }
                }
            }
            if repair {
                try repairStreamed(read, repairer: repairer, into: run)
            }
            guard let split, let run else { return true }
            let failed: Bool
            do {
                failed = try run.finish { printError($0.description) }
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
            if failed {
                printError("ical: nothing written to \(split)")
                throw ExitCode(1)
            }
            do {
                try run.write(toFolder: split)
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
            return true
        }

        /// The repair's last read of each input: into the split's records, or into the
        /// output in the format --to names. The notes are printed by input, then line, as
        /// ``CalendarRepair/repair(_:file:)`` sorts them, before anything is written.
        private func repairStreamed(_ read: [ReadInput], repairer: CalendarRepair, into run: CalendarSplit.Run?) throws {
            let notes = RecordSorter(memoryLimit: reading.memory.bytes / 8)
            var failure: ICalError?
            func note(_ input: Int) -> (ConversionNote, [Int]) -> Void {
                { note, order in
                    guard failure == nil else { return }
                    var key = RecordSorter.Key()
                    key.append(input)
                    order.forEach { key.append($0) }
                    var payload = RecordSorter.Payload()
                    payload.append(note.kind.rawValue)
                    payload.append(note.file)
                    payload.append(note.line)
                    payload.append(note.message)
                    do throws(ICalError) { try notes.add(key: key, payload: payload) } catch { failure = error }
                }
            }
            let spool = run == nil ? try? SpooledOutput() : nil
            if run == nil && spool == nil {
                printError("ical: cannot create a temporary file for the output")
                throw ExitCode(1)
            }
            var sink = Sink(format: to, pretty: pretty)
            var buffer: [UInt8] = []
            if to == .csv && run == nil { buffer += Array(ComponentCSVWriter.headerRow.utf8) }
            func flushIfLarge() {
                if let spool, buffer.count >= 1 << 16 {
                    do throws(ICalError) { try spool.take(&buffer) } catch { failure = failure ?? error }
                }
            }
            do {
                for (index, input) in read.enumerated() {
                    switch input {
                    case .streamed(let file):
                        if let run {
                            try run.add(repairing: file, note: note(index))
                        } else if let spool {
                            let calendars = file.calendars
                            var pass = Pass(file: file.file ?? "", headers: calendars.map(\.header), zones: calendars.map(\.timeZones))
                            try file.read(note(index)) { event, _ in
                                guard failure == nil else { return }
                                do throws(ICalError) {
                                    try sink.take(event, pass: &pass, spool: spool, buffer: &buffer, zoneBudget: Int.max)
                                } catch { failure = error }
                                flushIfLarge()
                            }
                            file.stream.close()
                        }
                    case .whole(let name, let calendars):
                        let result = repairer.repair(calendars, file: name)
                        let add = note(index)
                        for (position, change) in result.changes.enumerated() { add(change, [position]) }
                        if let run {
                            try run.add(CalendarSplit.Input(file: name, calendars: result.calendars))
                        } else if let spool {
                            for calendar in result.calendars {
                                try sink.take(wholeCalendar: calendar, spool: spool, buffer: &buffer)
                                try spool.take(&buffer)
                            }
                        }
                    }
                    if let failure { throw failure }
                }
                try notes.forEachSorted { _, payload in
                    var payload = payload
                    let kind = ConversionNote.Kind(rawValue: payload.string() ?? "") ?? .warning
                    let file = payload.string()
                    let line = payload.int()
                    printError(ConversionNote(kind, file: file, line: line, message: payload.string() ?? "").description)
                }
                guard let spool else { return }
                sink.finish(to: &buffer)
                try spool.take(&buffer)
                if let failure { throw failure }
                if let firstCalendarEnd = sink.firstCalendarEnd {
                    try spool.commit(to: output.output, opening: sink.writer.severalCalendarsOpening,
                                     indentedBefore: pretty ? firstCalendarEnd : 0)
                } else {
                    try spool.commit(to: output.output)
                }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
        }

        /// What one read of a file knows and finds: with `headers` and `zones` from a first
        /// read, a second read writes each calendar with all its properties and VTIMEZONEs.
        private struct Pass {
            /// The file's name in errors.
            var file: String
            /// Each VCALENDAR's properties, complete (second pass), or nil (first pass).
            var headers: [Component]?
            /// Each VCALENDAR's VTIMEZONEs (json, csv): gathered by the first pass.
            var zones: [[Component]]
            /// The calendar being written (ics, jCal) and the number of its properties then.
            var open = -1
            var propertiesAtBegin = 0
            /// The resolver of each calendar, once one of its items was written (json, csv).
            var resolvers: [Int: TimeZoneResolver] = [:]
            var zoneBytes = 0
            /// Whether something came after what it changes: a second pass is needed.
            var late = false
        }

        /// The output being written, across inputs: a value, so that it can be set back
        /// when a file is written again.
        private struct Sink {
            let format: Format
            var writer: CalendarStreamWriter
            var calendars = 0
            /// jCal: where the second VCALENDAR starts in the spool (the first needs re-indenting).
            var firstCalendarEnd: Int?
            /// json, csv: the items written.
            var items = 0
            let json: ComponentJSONWriter

            init(format: Format, pretty: Bool) {
                self.format = format
                writer = CalendarStreamWriter(format: format == .jcal ? .jCal : .iCalendar, pretty: pretty)
                json = ComponentJSONWriter(pretty: pretty)
            }

            private var writesCalendars: Bool { format == .ics || format == .jcal }

            mutating func beginCalendar(_ header: Component, spool: SpooledOutput, buffer: inout [UInt8]) throws(ICalError) {
                if calendars == 1 && format == .jcal {
                    try spool.take(&buffer)
                    firstCalendarEnd = spool.count
                    writer.continueAsSeveral()
                }
                writer.beginCalendar(header, to: &buffer)
                calendars += 1
            }

            mutating func summarize(_ component: Component, resolver: TimeZoneResolver, buffer: inout [UInt8]) {
                guard ComponentSummary.summarizedKinds.contains(where: { component.matches($0) }) else { return }
                let summary = ComponentSummary(component, resolver: resolver)
                let text = format == .json ? json.element(summary, index: items) : ComponentCSVWriter().row(summary)
                buffer.append(contentsOf: text.utf8)
                items += 1
            }

            /// One event of a streamed read.
            mutating func take(_ event: ICalComponentStream.Event, pass: inout Pass, spool: SpooledOutput,
                               buffer: inout [UInt8], zoneBudget: Int) throws(ICalError) {
                switch event {
                case .component(let item) where writesCalendars:
                    if item.calendarIndex != pass.open {
                        try beginCalendar(pass.headers?[item.calendarIndex] ?? item.calendar, spool: spool, buffer: &buffer)
                        pass.open = item.calendarIndex
                        pass.propertiesAtBegin = item.calendar.properties.count
                    }
                    writer.append(item.component, to: &buffer)
                case .endOfCalendar(let header, let index) where writesCalendars:
                    if index != pass.open {
                        try beginCalendar(pass.headers?[index] ?? header, spool: spool, buffer: &buffer)
                    } else if pass.headers == nil && header.properties.count != pass.propertiesAtBegin {
                        pass.late = true
                    }
                    writer.endCalendar(header, to: &buffer)
                    pass.open = -1
                case .component(let item):
                    let index = item.calendarIndex
                    if item.component.matches(.timeZone) {
                        guard pass.headers == nil else { return }
                        while pass.zones.count <= index { pass.zones.append([]) }
                        pass.zoneBytes += item.location.bytes.count
                        guard pass.zoneBytes <= zoneBudget else {
                            throw ICalError(.limitExceeded, "its VTIMEZONEs take more than \(zoneBudget) bytes, a quarter of --memory; give more memory", file: pass.file)
                        }
                        pass.zones[index].append(item.component)
                        if pass.resolvers[index] != nil { pass.late = true }
                        return
                    }
                    guard ComponentSummary.summarizedKinds.contains(where: { item.component.matches($0) }) else { return }
                    if pass.resolvers[index] == nil {
                        var calendar = pass.headers?[index] ?? item.calendar
                        calendar.components = index < pass.zones.count ? pass.zones[index] : []
                        pass.resolvers[index] = TimeZoneResolver(calendar: calendar)
                    }
                    summarize(item.component, resolver: pass.resolvers[index]!, buffer: &buffer)
                case .endOfCalendar:
                    break
                }
            }

            /// A calendar read whole.
            mutating func take(wholeCalendar calendar: Component, spool: SpooledOutput, buffer: inout [UInt8]) throws(ICalError) {
                guard writesCalendars else {
                    let resolver = TimeZoneResolver(calendar: calendar)
                    for item in calendar.matches(.calendar) ? calendar.components : [calendar] {
                        summarize(item, resolver: resolver, buffer: &buffer)
                    }
                    return
                }
                var header = calendar
                header.components = []
                try beginCalendar(header, spool: spool, buffer: &buffer)
                for component in calendar.components { writer.append(component, to: &buffer) }
                writer.endCalendar(header, to: &buffer)
            }

            func finish(to buffer: inout [UInt8]) {
                switch format {
                case .ics, .jcal: writer.finish(to: &buffer)
                case .json: buffer.append(contentsOf: json.end(count: items).utf8)
                case .csv: break
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
