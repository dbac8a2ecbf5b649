import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical view`: a month or a week as a grid, on the terminal or as a printable page.
    struct View: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "view",
            abstract: "Show a month or a week as a grid, on the terminal or as a printable page.",
            discussion: """
                ical view month [WHEN] [INPUT...] shows the month of WHEN as a grid, each
                day's all-day events and then its timed ones (16:00 Piano), cut to the cell;
                a day with more events than --lines ends in +N more. ical view week [WHEN]
                [INPUT...] shows the week of WHEN with a row per hour (08:00 to 18:00, wider
                when events are earlier or later) and the all-day events on top; events that
                overlap share the day's column. WHEN is a moment as ical query takes it
                (2026-12, 2026-12-07, 2026-W49, today, ...; default today).

                Inputs, --tz, --calendar, --app and --store work as for ical query: files,
                folders or the store, read as an app under its access. Times are shown on
                the wall clock of --tz (else $TZ); days with a DST change are noted under
                the grid. Only events (VEVENT) are shown. --holidays FILE marks and names
                holidays: every day covered by an event of an .ics file, or the holidays of
                a lesson specification (.yaml, as ical lessons --spec reads it).

                The grid fits $COLUMNS (else the terminal, else 80 columns). Colour (the
                calendars' colours from the store or a folder's color file) is used on a
                terminal unless NO_COLOR is set; --color always or never decides instead.
                Weeks start on the locale's first weekday (LC_ALL, LC_TIME, LANG: Sunday in
                en_US, Monday in C and most others) or --first-weekday.

                --format html writes one self-contained page (no scripts, nothing loaded
                from the network) that prints on one landscape page: the month grid, or the
                week as a timetable with weekday columns and time rows, holidays shaded and
                named. --paper a4 or letter sets the page size (default: the printer's).
                --format svg draws the same page as one SVG picture (A4 unless --paper
                letter).

                Examples:
                  ical view month 2026-12 --tz Europe/Berlin term.ics
                  ical view week 2026-W49 --holidays term.yaml term.ics
                  ical view week 2026-12-07 --format html --title "Autumn term" -o week.html term.ics
                  ical view month --calendar Lessons                  (the store, as ical; needs full access)
                """,
            subcommands: [Month.self, Week.self])

        /// `ical view month`.
        struct Month: ViewCommand {
            static let configuration = CommandConfiguration(
                commandName: "month",
                abstract: "Show the month of WHEN (default: this month) as a grid.",
                discussion: """
                    Examples:
                      ical view month 2026-12 --tz Europe/Berlin term.ics
                      ical view month 2026-12 --format html --paper a4 -o december.html term.ics
                    """)

            static let kind = ViewRun.Kind.month

            @Argument(help: ArgumentHelp("A moment in the month: 2026-12, 2026-12-07, today (default).", valueName: "when"))
            var when: String?

            @OptionGroup var source: OccurrenceInputs
            @OptionGroup var options: ViewOptions
            @OptionGroup var output: OutputOptions
        }

        /// `ical view week`.
        struct Week: ViewCommand {
            static let configuration = CommandConfiguration(
                commandName: "week",
                abstract: "Show the week of WHEN (default: this week) with a row per hour.",
                discussion: """
                    Examples:
                      ical view week 2026-W49 --tz Europe/Berlin term.ics
                      ical view week 2026-12-07 --format html --holidays term.yaml -o week.html term.ics
                    """)

            static let kind = ViewRun.Kind.week

            @Argument(help: ArgumentHelp("A moment in the week: 2026-W49, 2026-12-07, today (default).", valueName: "when"))
            var when: String?

            @OptionGroup var source: OccurrenceInputs
            @OptionGroup var options: ViewOptions
            @OptionGroup var output: OutputOptions
        }
    }
}

/// `ical view month` and `ical view week`: the same arguments and run, another window.
protocol ViewCommand: ParsableCommand {
    static var kind: ViewRun.Kind { get }
    var when: String? { get set }
    var source: OccurrenceInputs { get set }
    var options: ViewOptions { get }
    var output: OutputOptions { get }
}

extension ViewCommand {
    mutating func validate() throws {
        var when = self.when, source = self.source
        try options.validate(when: &when, source: &source)
        self.when = when
        self.source = source
    }

    func run() throws { try ViewRun(kind: Self.kind, when: when, source: source, options: options, output: output).run() }
}

/// The options of `ical view month` and `ical view week`.
struct ViewOptions: ParsableArguments {
    /// What is written.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, html, svg
    }

    /// When ANSI colour is used.
    enum ColorMode: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(help: "The output format: the grid as text, a printable HTML page, or an SVG picture of the page.")
    var format: Format = .text

    @Option(help: ArgumentHelp("The first day of the week: monday ... sunday (default: the locale's).", valueName: "day"))
    var firstWeekday: String?

    @Option(help: ArgumentHelp("Mark and name holidays: an .ics file's events, or a lesson specification's holidays (.yaml) (repeatable).",
                               valueName: "file"))
    var holidays: [String] = []

    @Option(help: ArgumentHelp("The most event lines per day in the month grid (the last one says +N more).", valueName: "n"))
    var lines: Int = 4

    @Option(help: "Colour on the terminal: auto (a terminal without NO_COLOR), always or never.")
    var color: ColorMode = .auto

    @Option(help: ArgumentHelp("HTML and SVG: the page size to print on, landscape.", valueName: "paper"))
    var paper: ViewHTML.Paper = .auto

    @Option(help: ArgumentHelp("HTML and SVG: a line under the page's title (the term, the school).", valueName: "text"))
    var title: String?

    /// Checks the options; WHEN that is not a moment (a file name) is the first input.
    func validate(when: inout String?, source: inout OccurrenceInputs) throws {
        if let text = when, (try? QueryWindow.moment(text, now: LocalDateTime(secondsSinceEpoch: 0))) == nil {
            source.inputs.insert(text, at: 0)
            when = nil
        }
        try source.checkInputsOrStore()
        if let firstWeekday, FirstWeekday.parse(firstWeekday) == nil {
            throw ValidationError("--first-weekday takes a day: monday ... sunday (or 1 for Monday ... 7 for Sunday).")
        }
        if !(1...50).contains(lines) { throw ValidationError("--lines must be from 1 to 50.") }
    }
}

extension ViewHTML.Paper: ExpressibleByArgument {}

/// Runs a view: the window of WHEN, the occurrences and holidays in it, the grid.
struct ViewRun {
    enum Kind { case month, week }

    let kind: Kind
    let when: String?
    let source: OccurrenceInputs
    let options: ViewOptions
    let output: OutputOptions

    func run() throws {
        let zone = try source.zone()
        let now = ICal.Query.now(in: zone)
        let date: CalendarDate
        if let when {
            do { date = try QueryWindow.moment(when, now: now).local.date } catch {
                printError("ical view: '\(when)': \(error.message)")
                throw ExitCode(2)
            }
        } else {
            date = now.date
        }
        let environment = ProcessInfo.processInfo.environment
        let firstWeekday = options.firstWeekday.flatMap(FirstWeekday.parse) ?? FirstWeekday.fromLocale(environment)
        let first: CalendarDate, last: CalendarDate
        switch kind {
        case .month:
            first = CalendarDate(year: date.year, month: date.month, day: 1) ?? date
            last = (date.month == 12 ? CalendarDate(year: date.year + 1, month: 1, day: 1)
                : CalendarDate(year: date.year, month: date.month + 1, day: 1))?.adding(days: -1) ?? date
        case .week:
            first = date.adding(days: -((date.isoWeekday - firstWeekday + 7) % 7))
            last = first.adding(days: 6)
        }
        let window = QueryWindow(localStart: LocalDateTime(date: first), localEnd: LocalDateTime(date: last.adding(days: 1)), in: zone)

        let gate = try PathGate(source.storeOptions)
        try gate.checkTextOutput(output.output)
        let holidayNames = try holidays(from: first, through: last, zone: zone, gate: gate)
        let (listings, diagnostics, calendarColors) = try source.listings(in: window, kinds: [.event], zone: zone, includingCancelled: false,
                                                                         readingToDos: false, gate: gate)
        diagnostics.forEach { printError($0.description) }
        if listings.count > ViewLayout.maximumEntries {
            printError("ical view: \(listings.count) events in the \(kind == .month ? "month" : "week"); the first \(ViewLayout.maximumEntries) are shown")
        }
        let colors = SourceColors(calendarColors: calendarColors, fromStore: source.readsStore)
        let days = ViewLayout.days(listings, from: first, through: last, zone: zone, color: colors.color(of:), holidays: holidayNames)
        let zoneName = zone.identifier
        let today = now.date

        let text: String
        switch (options.format, kind) {
        case (.html, .month):
            text = ViewHTML(paper: options.paper, zoneName: zoneName, heading: options.title)
                .month(year: first.year, month: first.month, days: days, firstWeekday: firstWeekday, today: today)
        case (.html, .week):
            text = ViewHTML(paper: options.paper, zoneName: zoneName, heading: options.title).week(days: days, today: today)
        case (.svg, .month):
            text = ViewSVG(paper: options.paper, zoneName: zoneName, heading: options.title)
                .month(year: first.year, month: first.month, days: days, firstWeekday: firstWeekday, today: today)
        case (.svg, .week):
            text = ViewSVG(paper: options.paper, zoneName: zoneName, heading: options.title).week(days: days, today: today)
        case (.text, .month):
            text = MonthGridText(width: Self.width(environment), cells: ViewCells(color: useColor(environment)), firstWeekday: firstWeekday,
                                 maximumLines: options.lines, today: today, zoneName: zoneName)
                .render(year: first.year, month: first.month, days: days)
        case (.text, .week):
            text = WeekGridText(width: Self.width(environment), cells: ViewCells(color: useColor(environment)), today: today, zoneName: zoneName)
                .render(days: days)
        }
        try FileIOBridge.write(text, to: output.output)
    }

    /// The holiday dates from `--holidays`, named by the event that covers them, else by
    /// the specification's `name:`, else "Holiday".
    private func holidays(from first: CalendarDate, through last: CalendarDate, zone: any TimeZoneRules,
                          gate: PathGate) throws -> [CalendarDate: String] {
        guard !options.holidays.isEmpty else { return [:] }
        var holidays = LessonHolidays()
        for path in options.holidays {
            try gate.checkRead(path, purpose: "reading the holidays in")
            do {
                if path.hasSuffix(".yaml") || path.hasSuffix(".yml") {
                    let (plan, diagnostics) = try LessonPlan.read(contentsOfSpecificationFile: path, defaultTimeZoneIdentifier: zone.identifier,
                                                                  reader: source.reading.reader,
                                                                  checkingFile: gate.fileCheck(purpose: "reading the holidays in"))
                    diagnostics.forEach { printError($0.description) }
                    holidays.ranges += plan.holidays.ranges
                    holidays.calendars += plan.holidays.calendars
                    holidays.names.merge(plan.holidays.names) { first, _ in first }
                } else {
                    try holidays.add(contentsOfFile: path, reader: source.reading.reader).forEach { printError($0.description) }
                }
            } catch {
                printError("ical view: --holidays \(path): \(error.message)")
                throw ExitCode(error.code == .notPermitted ? exitNoPermission : error.code == .invalidArgument ? 2 : 1)
            }
        }
        let (dates, diagnostics) = holidays.days(from: first, through: last, in: zone)
        diagnostics.forEach { printError($0.description) }
        // Names: the first event covering each date, placed as the views place events.
        let window = QueryWindow(localStart: LocalDateTime(date: first), localEnd: LocalDateTime(date: last.adding(days: 1)), in: zone)
        let matches = OccurrenceQuery(window: window.start..<window.end, floatingZone: zone).run(holidays.calendars).matches
        let named = ViewLayout.days(matches.map(OccurrenceListing.init), from: first, through: last, zone: zone,
                                    color: { _ in ViewColor.palette[0] }, holidays: [:])
        var names: [CalendarDate: String] = [:]
        for day in named where dates.contains(day.date) {
            if let entry = day.entries.first { names[day.date] = entry.title }
        }
        // Dates and ranges: their name in the specification, else "Holiday".
        for date in dates where names[date] == nil {
            names[date] = holidays.names.first { $0.key.contains(date) }?.value ?? "Holiday"
        }
        return names
    }

    /// Colour on the terminal: `--color`, else standard output is a terminal, NO_COLOR is
    /// not set and TERM is not dumb.
    private func useColor(_ environment: [String: String]) -> Bool {
        switch options.color {
        case .always: return true
        case .never: return false
        case .auto:
            return output.output == "-" && isatty(1) == 1 && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
    }

    /// The width to fit: $COLUMNS, else the terminal's, else 80.
    static func width(_ environment: [String: String]) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return min(columns, 1000) }
        var size = winsize()
        if isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}

/// The colour of each occurrence's calendar: the store's calendar colour, else the `color`
/// file of an input's folder (vdir), else a palette colour per calendar in the order met.
final class SourceColors {
    private let calendarColors: [String: String]
    private let fromStore: Bool
    private var byFolder: [String: ViewColor] = [:]
    private var bySource: [String: ViewColor] = [:]
    private var assigned = 0

    init(calendarColors: [String: String], fromStore: Bool) {
        self.calendarColors = calendarColors
        self.fromStore = fromStore
    }

    func color(of listing: OccurrenceListing) -> ViewColor {
        let source = listing.source ?? ""
        if fromStore {
            let calendar = String(source.prefix { $0 != "/" })
            if let known = byFolder[calendar] { return known }
            let color = calendarColors[calendar].flatMap(ViewColor.init(hex:)) ?? nextColor()
            byFolder[calendar] = color
            return color
        }
        if let known = bySource[source] { return known }
        let folder = source == "<stdin>" ? "" : URL(fileURLWithPath: source).deletingLastPathComponent().path
        let key = folderHasColor(folder) ? folder : source
        let color = byFolder[key] ?? (key == folder ? readColor(folder) : nil) ?? nextColor()
        byFolder[key] = color
        bySource[source] = color
        return color
    }

    private func nextColor() -> ViewColor {
        defer { assigned += 1 }
        return ViewColor.palette[assigned % ViewColor.palette.count]
    }

    private func folderHasColor(_ folder: String) -> Bool {
        !folder.isEmpty && FileManager.default.fileExists(atPath: folder + "/color")
    }

    /// A folder's `color` file (`#RRGGBB`), read up to 64 bytes.
    private func readColor(_ folder: String) -> ViewColor? {
        guard let handle = FileHandle(forReadingAtPath: folder + "/color") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 64) else { return nil }
        return ViewColor(hex: String(decoding: data, as: UTF8.self))
    }
}
