import ArgumentParser
import Foundation
import ICalKit

extension ICal {
    /// `ical lessons`: a recurring lesson calendar from options or a YAML term specification.
    struct Lessons: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lessons",
            abstract: "Generate a recurring lesson calendar, holidays left out.",
            discussion: """
                Each lesson slot becomes one VEVENT with a weekly RRULE: DTSTART on the first
                lesson held on or after --from, UNTIL (in UTC) on the last lesson on or before
                --until, or COUNT for --count lessons held (holidays do not use up the count).
                Lessons on a holiday are left out as EXDATEs: dates and ranges from
                --skip-date, and every day covered by an event in a --skip calendar (all-day,
                multi-day and recurring events expanded). Times are wall-clock times in --tz
                (default: the system zone, $TZ), so lessons keep their time across DST
                changes; the VTIMEZONE is included. UIDs are derived from title, days, time,
                zone and --from, so generating again and re-importing updates the lessons.
                DTSTAMP is the current time ($ICAL_NOW, YYYY-MM-DDTHH:MM:SS in UTC, pins it).

                Values: days MO,TU,WE,TH,FR,SA,SU (or Monday, mon); time HH:MM (24-hour);
                lengths 45m, 1h, 1h30m (alarms also 1d); dates YYYY-MM-DD; --skip-date also
                takes a range FIRST..LAST.

                --spec FILE.yaml describes a whole term (other lesson options are then not
                allowed, except --skip, --skip-date and -o):

                  name: Music school, autumn term 2026     # X-WR-CALNAME (optional)
                  timezone: Europe/Berlin                  # default: system zone
                  floating: false                          # true: no zone at all
                  term:
                    from: 2026-09-07
                    until: 2026-12-18                      # or count: 12
                  alarms: [15m]                            # default for every lesson
                  holidays:
                    - 2026-10-03                           # a date
                    - 2026-12-21..2027-01-01               # a range
                    - {from: 2026-10-19, until: 2026-10-30, name: Autumn break}
                    - file: holidays.ics                   # relative to the spec
                  lessons:
                    - title: Piano                         # required
                      teacher: Ms Keys                     # into DESCRIPTION
                      room: Room 12                        # LOCATION
                      days: [TU, TH]                       # required
                      time: "16:00"                        # required
                      length: 45m                          # required
                      every: 2                             # weeks (default 1)
                      notes: Bring your book               # DESCRIPTION
                      alarms: [10m]                        # instead of the default

                Errors are one line on standard error naming the option, or the file, line
                and key; nothing is written. Exit status: 0 done, 1 a file could not be read
                or written, 2 invalid options or specification.

                Examples:
                  ical lessons --title Piano --days TU,TH --time 16:00 --duration 45m \\
                      --from 2026-09-07 --until 2026-12-18 --tz Europe/Berlin -o piano.ics
                  ical lessons --title Chess --days WE --time 15:30 --duration 1h30m \\
                      --from 2026-09-07 --count 12 --every 2 --alarm 15m --skip holidays.ics
                  ical lessons --spec samples/calendars/term.yaml -o term.ics
                """)

        @Option(help: ArgumentHelp("A YAML term specification (see above) instead of the lesson options.", valueName: "file"))
        var spec: String?

        @Option(help: ArgumentHelp("The lesson's title (SUMMARY).", valueName: "text"))
        var title: String?

        @Option(help: ArgumentHelp("The weekdays, such as TU,TH.", valueName: "days"))
        var days: String?

        @Option(help: ArgumentHelp("The start time, HH:MM on a 24-hour clock.", valueName: "time"))
        var time: String?

        @Option(help: ArgumentHelp("How long a lesson lasts: 45m, 1h, 1h30m.", valueName: "length"))
        var duration: String?

        @Option(help: ArgumentHelp("The first day of the term, YYYY-MM-DD.", valueName: "date"))
        var from: String?

        @Option(help: ArgumentHelp("The last day of the term (inclusive), YYYY-MM-DD.", valueName: "date"))
        var until: String?

        @Option(help: ArgumentHelp("The number of lessons held (instead of --until).", valueName: "n"))
        var count: String?

        @Option(help: ArgumentHelp("Every N weeks (default 1).", valueName: "n"))
        var every: String?

        @Option(help: ArgumentHelp("The time zone, an IANA name such as Europe/Berlin (default: the system zone).", valueName: "zone"))
        var tz: String?

        @Flag(help: "Write floating local times, with no time zone (instead of --tz).")
        var floating = false

        @Option(help: ArgumentHelp("Where the lesson is (LOCATION).", valueName: "text"))
        var location: String?

        @Option(help: ArgumentHelp("A description (DESCRIPTION).", valueName: "text"))
        var notes: String?

        @Option(help: ArgumentHelp("An alarm this long before each lesson, such as 15m (repeatable).", valueName: "length"))
        var alarm: [String] = []

        @Option(help: ArgumentHelp("Leave out lessons on every day covered by an event in this calendar (repeatable).", valueName: "file"))
        var skip: [String] = []

        @Option(help: ArgumentHelp("Leave out lessons on this date or FIRST..LAST range (repeatable).", valueName: "date"))
        var skipDate: [String] = []

        @OptionGroup var output: OutputOptions

        /// A failure already explained: one line for standard error and an exit status.
        struct Failure: Error {
            var message: String
            var status: Int32
        }

        func run() throws {
            let gate = PathGate()
            do {
                let (plan, diagnostics) = try makePlan(gate: gate)
                diagnostics.forEach { printError($0.description) }
                let stamp = DateTime(LocalDateTime(secondsSinceEpoch: Self.now()), zone: .utc)
                let generated: LessonPlan.Generated
                do { generated = try plan.generate(stamp: stamp) } catch { throw Failure(message: error.description, status: 2) }
                generated.diagnostics.forEach { printError($0.description) }
                try gate.writeCalendars([generated.calendar], to: output.output) {
                    let bytes = ICalWriter().bytes(generated.calendar)
                    if output.output == "-" {
                        FileHandle.standardOutput.write(Data(bytes))
                    } else {
                        do { try ICalWriter.writeFileAtomically(bytes, to: output.output) } catch {
                            throw Failure(message: "\(error)", status: 1)
                        }
                    }
                }
            } catch let failure as Failure {
                printError("ical lessons: \(failure.message)")
                throw ExitCode(failure.status)
            }
        }

        /// The plan the options (or the specification) describe.
        func makePlan(gate: PathGate) throws -> (LessonPlan, [Diagnostic]) {
            let systemZone = IANATimeZone.system()?.identifier
            var plan: LessonPlan
            var diagnostics: [Diagnostic] = []
            if let spec {
                let lessonOptions: [(String, Bool)] = [
                    ("--title", title != nil), ("--days", days != nil), ("--time", time != nil),
                    ("--duration", duration != nil), ("--from", from != nil), ("--until", until != nil),
                    ("--count", count != nil), ("--every", every != nil), ("--tz", tz != nil),
                    ("--floating", floating), ("--location", location != nil), ("--notes", notes != nil),
                    ("--alarm", !alarm.isEmpty),
                ]
                if let given = lessonOptions.first(where: \.1) {
                    throw Failure(message: "\(given.0) cannot be combined with --spec: set it in the specification", status: 2)
                }
                try gate.checkRead(spec, purpose: "reading the specification")
                do {
                    (plan, diagnostics) = try LessonPlan.read(contentsOfSpecificationFile: spec, defaultTimeZoneIdentifier: systemZone,
                                                              checkingFile: gate.fileCheck(purpose: "reading the holidays in"))
                } catch {
                    throw Failure(message: error.description,
                                  status: error.code == .notPermitted ? exitNoPermission : error.code == .io || error.code == .encoding ? 1 : 2)
                }
            } else {
                plan = try planFromOptions(systemZone: systemZone)
            }
            for text in skipDate {
                plan.holidays.insert(try parse("--skip-date", text, LessonText.dateRange))
            }
            for path in skip {
                try gate.checkRead(path, purpose: "reading the holidays in")
                do {
                    diagnostics += try plan.holidays.add(contentsOfFile: path)
                } catch {
                    throw Failure(message: "--skip \(path): \(error.message)", status: 1)
                }
            }
            return (plan, diagnostics)
        }

        private func planFromOptions(systemZone: String?) throws -> LessonPlan {
            guard let title, !title.isEmpty else { throw Failure(message: "give --title (or --spec FILE)", status: 2) }
            guard let days else { throw Failure(message: "give --days, such as --days TU,TH", status: 2) }
            guard let time else { throw Failure(message: "give --time, such as --time 16:00", status: 2) }
            guard let duration else { throw Failure(message: "give --duration, such as --duration 45m", status: 2) }
            guard let from else { throw Failure(message: "give --from, the first day of the term (YYYY-MM-DD)", status: 2) }
            let end: LessonPlan.End
            switch (until, count) {
            case (let until?, nil): end = .until(try parse("--until", until, LessonText.date))
            case (nil, let count?): end = .count(try number("--count", count))
            case (_?, _?): throw Failure(message: "give either --until or --count, not both", status: 2)
            case (nil, nil): throw Failure(message: "give --until (the last day) or --count (the number of lessons)", status: 2)
            }
            let zone: String?
            if floating {
                if tz != nil { throw Failure(message: "give either --tz or --floating, not both", status: 2) }
                zone = nil
            } else if let tz {
                if tz.lowercased() == "floating" {
                    throw Failure(message: "--tz floating is not a zone: use --floating for floating local times", status: 2)
                }
                guard TimeZoneResolver.resolveStandard(tz)?.rules is IANATimeZone else {
                    throw Failure(message: "--tz: unknown time zone '\(tz)': use an IANA name such as Europe/Berlin", status: 2)
                }
                zone = tz
            } else {
                guard let systemZone else {
                    throw Failure(message: "the system time zone is unknown: give --tz ZONE (or --floating)", status: 2)
                }
                zone = systemZone
            }
            var plan = LessonPlan(from: try parse("--from", from, LessonText.date), end: end, timeZoneIdentifier: zone)
            plan.alarms = try alarm.map { try parse("--alarm", $0, LessonText.duration) }
            plan.slots = [LessonPlan.Slot(
                title: title, location: location, notes: notes,
                weekdays: try parse("--days", days, LessonText.weekdays),
                time: try parse("--time", time, LessonText.timeOfDay),
                length: try parse("--duration", duration, LessonText.duration),
                interval: try every.map { try number("--every", $0) } ?? 1)]
            return plan
        }

        private func parse<T>(_ option: String, _ text: String, _ read: (String) throws(ICalError) -> T) throws -> T {
            do { return try read(text) } catch { throw Failure(message: "\(option): \(error.message)", status: 2) }
        }

        private func number(_ option: String, _ text: String) throws -> Int {
            guard let value = Int(text), value >= 1, value <= LessonPlan.maximumLessons else {
                throw Failure(message: "\(option): '\(text)' is not a whole number from 1 to \(LessonPlan.maximumLessons)", status: 2)
            }
            return value
        }

        /// The current time, seconds since the epoch; `ICAL_NOW` (YYYY-MM-DDTHH:MM:SS, UTC)
        /// pins it for tests.
        static func now() -> Int64 {
            if let pinned = ProcessInfo.processInfo.environment["ICAL_NOW"],
               let moment = try? QueryWindow.moment(pinned, now: LocalDateTime(secondsSinceEpoch: 0)) {
                return moment.local.secondsSinceEpoch
            }
            return Int64(Date().timeIntervalSince1970)
        }
    }
}
