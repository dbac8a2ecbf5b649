import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

/// Where the occurrences of `ical query` and `ical view` come from: input files and folders,
/// or the store as an app, with the zone and calendar filters; shared by both commands.
///
/// Every input path goes through the ``PathGate`` (a path into a store is the store, read
/// under the app's access), and the store is read under the access of the app (`--app`) as
/// for any other EventKit fetch.
struct OccurrenceInputs: ParsableArguments {
    @Argument(help: ArgumentHelp("Files, folders of .ics files, or - for standard input; none: the store.", valueName: "input"))
    var inputs: [String] = []

    @Option(help: ArgumentHelp("Show times in this zone and read floating times and the window in it.", valueName: "zone"))
    var tz: String?

    @Option(help: ArgumentHelp("Only the calendar with this name: a collection folder's name, its displayname, or X-WR-CALNAME (repeatable).", valueName: "name"))
    var calendar: [String] = []

    @Flag(help: ArgumentHelp("Store queries: compare every item file with the query index first, to see files rewritten in place (otherwise only folders whose times changed are listed).", visibility: .default))
    var rescan = false

    @OptionGroup var reading: ReadingOptions
    @OptionGroup var storeOptions: StoreAppOptions

    /// Refuses `--store` or `--app` together with input files.
    func checkInputsOrStore() throws {
        if !inputs.isEmpty && (storeOptions.store != nil || storeOptions.app != nil) {
            throw ValidationError("--store and --app query the store: give them without input files.")
        }
    }

    /// The zone of `--tz`, else the system zone ($TZ), else UTC; an unknown `--tz` is an
    /// error (exit status 2).
    func zone() throws -> any TimeZoneRules {
        try Self.zone(named: tz)
    }

    /// The zone of a `--tz` value (nil: the system zone, else UTC); an unknown one is an
    /// error (exit status 2).
    static func zone(named tz: String?) throws -> any TimeZoneRules {
        guard let tz else { return IANATimeZone.system() ?? FixedOffsetZone.utc }
        guard let resolved = TimeZoneResolver.resolveStandard(tz) else {
            printError("ical: unknown time zone '\(tz)' (use an IANA name such as Europe/Berlin)")
            throw ExitCode(2)
        }
        return resolved.rules
    }

    /// Whether the store is read (no input files).
    var readsStore: Bool { inputs.isEmpty }

    /// Opens the store as the app with full access to what is read (under write-only access
    /// the fetch may show the upgrade prompt first, as every EventKit fetch does), and runs
    /// `body` with the store and the calendars `--calendar` names (nil: all).
    ///
    /// The command reads once, writes and exits, so the store is left to the exit
    /// (`leavingStoreToExit`) rather than torn down: releasing its query index disposes of
    /// GRDB's dispatch queue, which starts a worker thread just to end. Its database is
    /// closed when `body` returns (SQLite removes its write-ahead log then). Not for whole
    /// components: their iCalendar output may be imported into the same store, whose commit
    /// would then make a kept store list every item to look for changes.
    /// `indexLocking`: how the store's query index is shared while `body` runs (see
    /// ``StoreIndex/Locking``).
    func withReadableStore<Result>(readingToDos: Bool, leavingStoreToExit: Bool = true,
                                   indexLocking: StoreIndex.Locking = .shared,
                                   _ body: (EKEventStore, [EKCalendar]?) throws -> Result) throws -> Result {
        let store = try storeOptions.openStore()
        if leavingStoreToExit { ProcessLifetime.keep(store) }
        defer { if leavingStoreToExit { store.closeForExit() } }
        store.indexScan = rescan ? .everyFile : .changedFolders
        store.indexLocking = indexLocking
        store.memoryBudget = reading.memory
        let action = "querying the store"
        if store.authority.accessLevel(for: .event) != .writeOnly {
            try storeOptions.require(.full, to: .event, on: store, for: action)
        }
        if readingToDos { try storeOptions.require(.full, to: .reminder, on: store, for: "querying to-dos") }
        let calendars = try calendar.isEmpty ? nil : calendar.map { try storeOptions.calendar(named: $0, in: store) }
        let result = try body(store, calendars)
        if store.authority.accessLevel(for: .event) != .full {
            // Write-only access reads nothing, not even the events the app added.
            try storeOptions.require(.full, to: .event, on: store, for: action)
        }
        return result
    }

    /// The occurrences in a window as listings, from the files or the store (the store's
    /// occurrence cache answers most windows without reading items), and for the store the
    /// colours of its calendars by identifier (a store listing's source is
    /// `calendar-identifier/item.ics`).
    func listings(in window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules, includingCancelled: Bool,
                  readingToDos: Bool, gate: PathGate) throws -> (listings: [OccurrenceListing], diagnostics: [Diagnostic],
                                                                 calendarColors: [String: String]) {
        if readsStore {
            return try withReadableStore(readingToDos: readingToDos) { store, calendars in
                let result = store.occurrenceListings(in: window.start..<window.end, calendars: calendars, kinds: kinds,
                                                      floatingZone: zone, includingCancelled: includingCancelled)
                var colors: [String: String] = [:]
                for calendar in store.calendars(for: .event) {
                    colors[calendar.calendarIdentifier] = calendar.cgColor.hexString
                }
                return (result.listings, result.diagnostics, colors)
            }
        }
        let result = try fileMatches(in: window, kinds: kinds, zone: zone, includingCancelled: includingCancelled, gate: gate)
        return (result.matches.map(OccurrenceListing.init), result.diagnostics, [:])
    }

    /// ``listings(in:kinds:zone:includingCancelled:readingToDos:gate:)`` packed, without the
    /// calendars' colours (what `ical query` writes as text, JSON or CSV); or for the store
    /// the same occurrences as the index's rendered weeks in `rendering`'s style (nil: never)
    /// when it has or can make them (see ``EKEventStore/occurrenceAnswer(in:calendars:kinds:floatingZone:includingCancelled:rendering:)``),
    /// with the store's query index shared as `indexLocking` says.
    func listingAnswer(in window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules, includingCancelled: Bool,
                       readingToDos: Bool, gate: PathGate,
                       rendering: EKEventStore.OccurrenceRendering?,
                       indexLocking: StoreIndex.Locking = .shared) throws -> (answer: EKEventStore.OccurrenceAnswer, diagnostics: [Diagnostic]) {
        if readsStore {
            return try withReadableStore(readingToDos: readingToDos, indexLocking: indexLocking) { store, calendars in
                store.occurrenceAnswer(in: window.start..<window.end, calendars: calendars, kinds: kinds, floatingZone: zone,
                                       includingCancelled: includingCancelled, rendering: rendering)
            }
        }
        let result = try fileMatches(in: window, kinds: kinds, zone: zone, includingCancelled: includingCancelled, gate: gate)
        return (.listings(PackedListings(result.matches.map(OccurrenceListing.init))), result.diagnostics)
    }

    /// The occurrences in a window with whole components, from the files or the store.
    func matches(in window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules, includingCancelled: Bool,
                 readingToDos: Bool, gate: PathGate) throws -> OccurrenceQuery.Result {
        if readsStore {
            return try withReadableStore(readingToDos: readingToDos, leavingStoreToExit: false) { store, calendars in
                store.occurrences(in: window.start..<window.end, calendars: calendars, kinds: kinds, floatingZone: zone,
                                  includingCancelled: includingCancelled)
            }
        }
        return try fileMatches(in: window, kinds: kinds, zone: zone, includingCancelled: includingCancelled, gate: gate)
    }

    private func fileMatches(in window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules,
                             includingCancelled: Bool, gate: PathGate) throws -> OccurrenceQuery.Result {
        try fileMatchStream(in: window, kinds: kinds, zone: zone, includingCancelled: includingCancelled, gate: gate)
            .collect()
    }

    /// The occurrences in a window from the input files, as a stream in the query's order
    /// (``OccurrenceQuery/stream(_:)``): the files are read first, then expanded as the
    /// stream is stepped.
    func fileMatchStream(in window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules,
                         includingCancelled: Bool, gate: PathGate) throws -> OccurrenceQuery.Stream {
        var query = OccurrenceQuery(window: window.start..<window.end, floatingZone: zone, kinds: kinds)
        query.includesCancelled = includingCancelled
        let sources = try fileSources(gate: gate, streamingFor: query)
        let stream = query.stream(sources)
        // The trees read are not needed again, and the process ends after printing:
        // leave them (and the stream's, with X-WR-TIMEZONE applied) to the exit rather than
        // freeing every component, property and string of a large file one by one (a tenth
        // of a query's time at 100,000 events).
        ProcessLifetime.keep(sources)
        ProcessLifetime.keep(stream)
        return stream
    }

    /// How many times its size a file's tree takes in memory when it is read whole (the
    /// tree, the parts read on every core, and the query's state; measured about 5.5).
    static let wholeReadFactor = 6

    /// The input files' calendars (after --calendar), one source per file: a file's
    /// VCALENDARs are one set of versions (``SeriesVersions``), as import makes them, so the
    /// same UID in two of them is one series, not two.
    ///
    /// With a query, files are read whole (on every core) while their trees fit in
    /// `--memory`; a file that would not is streamed
    /// (``OccurrenceQuery/source(streaming:name:memory:including:)``): memory then holds
    /// the series that may touch the query's window, not the file. Standard input is
    /// copied to a temporary file first, so it is no different.
    func fileSources(gate: PathGate, streamingFor query: OccurrenceQuery? = nil) throws -> [OccurrenceQuery.Source] {
        var sources: [OccurrenceQuery.Source] = []
        var wholeBytes = 0
        for input in inputs {
            for path in try gate.expand(inputOf: input) {
                if let query {
                    let stream: ICalComponentStream?
                    do { stream = try ICalComponentStream.open(path, reader: reading.reader) } catch {
                        printError("\(error)")
                        throw ExitCode(1)
                    }
                    if let stream {
                        let size = stream.byteCount
                        if (wholeBytes + size).multipliedReportingOverflow(by: Self.wholeReadFactor).partialValue
                            > reading.memory.bytes || size > reading.reader.limits.maxInputSize {
                            let streamed: OccurrenceQuery.StreamedSource
                            do {
                                streamed = try query.source(streaming: stream, name: path == "-" ? "<stdin>" : path,
                                                            memory: reading.memory,
                                                            including: { matchesCalendarFilter($0, path: path) })
                            } catch {
                                printError("\(error)")
                                throw ExitCode(1)
                            }
                            try reading.report(streamed.diagnostics, of: path)
                            if let source = streamed.source { sources.append(source) }
                            continue
                        }
                        wholeBytes += size
                    }
                }
                let result = try reading.read(path)
                let calendars = result.calendars.filter { matchesCalendarFilter($0, path: path) }
                if let calendar = SeriesVersions.merged(calendars) {
                    sources.append(OccurrenceQuery.Source(calendar: calendar, name: path == "-" ? "<stdin>" : path))
                }
            }
        }
        return sources
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
}

/// `--at` and `--between`: the window of `ical query` and `ical alarms`.
struct WindowOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The window is this moment, at its precision.", valueName: "when"))
    var at: String?

    @Option(parsing: .upToNextOption,
            help: ArgumentHelp("The window [START, END): two values, END absolute or +offset.", valueName: "start end"))
    var between: [String] = []

    /// Checks the two; values after --between's two are input files (`--between 2026-12
    /// +7d a.ics`), moved to the front of `inputs`.
    mutating func check(movingExtraInto inputs: inout [String]) throws {
        if between.count > 2 {
            inputs = Array(between[2...]) + inputs
            between = Array(between[0..<2])
        }
        if at != nil && !between.isEmpty { throw ValidationError("Give either --at or --between, not both.") }
        if !between.isEmpty && between.count != 2 {
            throw ValidationError("--between takes two values: START and END (a moment or +offset such as +7d).")
        }
    }

    /// The window in `zone`: --at's moment, --between's range, else today and the next six
    /// days (as `khal list` and icalBuddy's eventsToday+N show). A bad moment is an error
    /// (exit status 2).
    func window(in zone: any TimeZoneRules) throws -> QueryWindow {
        let now = ICal.Query.now(in: zone)
        do {
            if let at { return try QueryWindow.at(at, in: zone, now: now) }
            if between.count == 2 { return try QueryWindow.between(between[0], between[1], in: zone, now: now) }
            return try QueryWindow.between("today", "+7d", in: zone, now: now)
        } catch {
            printError("ical: \(error.message)")
            throw ExitCode(2)
        }
    }
}
