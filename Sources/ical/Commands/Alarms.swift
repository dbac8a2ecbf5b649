import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical alarms`: the alarms that trigger in a window; `watch` rings them; `dismiss` and
    /// `snooze` handle one.
    struct Alarms: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alarms",
            abstract: "List the alarms that trigger in a window, ring them (watch), dismiss or snooze one.",
            discussion: """
                `ical alarms` (the same as `ical alarms list`) lists the VALARMs of events and
                to-dos that trigger in a window, for files, folders or the store. `ical alarms
                watch` is the service that rings them on the desktop. `ical alarms dismiss KEY`
                and `ical alarms snooze KEY` handle one alarm of the store, as the
                notification's buttons do.
                """,
            subcommands: [List.self, Watch.self, Dismiss.self, Snooze.self],
            defaultSubcommand: List.self)
    }
}

extension ICal.Alarms {
    /// `ical alarms list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the alarms that trigger in a time window.",
            discussion: """
                Every VALARM of every event and to-do (RFC 5545 3.6.6 and 3.8.6.3, RFC 9074),
                on every occurrence of a recurring series, whose trigger falls in [START, END):
                the trigger's moment, the occurrence it belongs to, the alarm's action,
                description and summary.

                The window is given as for `ical query` (--at, --between, moments such as
                2026-12-01, now, today, +7d; see `ical query --help`); without one it is
                today and the next six days. Times are read and shown in --tz, or the system
                zone ($TZ), or UTC.

                Rules: a relative TRIGGER counts from the occurrence's start, or with
                RELATED=END from its end (a to-do's DUE; a to-do without DTSTART counts a
                start-related trigger from its DUE). Days and weeks are calendar days in the
                occurrence's zone (-P1D is the same wall-clock time the day before, across a
                daylight-saving change too); hours, minutes and seconds are exact. All-day
                and floating events are read in the user's zone (an all-day event's -PT15M
                alarm rings at 23:45 the evening before). An absolute TRIGGER (UTC
                DATE-TIME) rings once, also on a recurring series. REPEAT with DURATION adds
                repetitions (at most 1,000). An override's VALARMs replace the master's for
                its instance; cancelled events and instances and completed to-dos do not
                ring. A trigger at or before the alarm's ACKNOWLEDGED (RFC 9074: dismissed
                or snoozed) is left out unless --include-acknowledged; a snooze alarm
                (RELATED-TO;RELTYPE=SNOOZE) is listed as an alarm of its own. ACTION:NONE
                and proximity alarms (they ring at a place) are not listed.

                Bad alarms get a warning on standard error and are skipped or read the
                way the warning says: no or an unreadable TRIGGER, REPEAT without
                DURATION, an absolute trigger not in UTC, a trigger more than 366 days from
                its event. Work is bounded: at most 100,000 triggers per run (it stops there;
                a warning says when more were cut), and each series' expansion is limited as
                for `ical query`.

                Output formats: text (one line per trigger, in the display zone), json (one
                array; fields trigger, triggerUTC, action, description, alarmSummary,
                repetition, acknowledged, snooze, alarmUid, uid, recurrenceId, summary,
                start, end, allDay, component, source, key), csv (the same columns). The key
                names one trigger of one alarm for `ical alarms dismiss` and `snooze`.

                Examples:
                  ical alarms --at today lessons.ics
                  ical alarms --between now +2h --format json
                  ical alarms --at 2026-12 --tz Europe/Berlin --format csv calendars/

                With no input, the store is read as ical (or the app of --app) under its
                access, as `ical query` reads it; without full access the command says how
                to grant it and exits with status 77.
                """)

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json, csv
        }

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case VEVENT, VTODO
            init?(argument: String) { self.init(rawValue: argument.uppercased()) }
        }

        @OptionGroup var window: WindowOptions

        @Option(help: ArgumentHelp("Only this component kind (repeatable).", valueName: "kind"))
        var component: [Kind] = []

        @Option(help: "The output format.")
        var format: Format = .text

        @Flag(help: "List triggers that were acknowledged (dismissed or snoozed) too.")
        var includeAcknowledged = false

        @OptionGroup var source: OccurrenceInputs
        @OptionGroup var output: OutputOptions

        mutating func validate() throws {
            var inputs = source.inputs
            try window.check(movingExtraInto: &inputs)
            source.inputs = inputs
            try source.checkInputsOrStore()
        }

        func run() throws {
            let zone = try source.zone()
            let window = try self.window.window(in: zone)
            let gate = try PathGate(source.storeOptions)
            try gate.checkTextOutput(output.output)
            let kinds: Set<ComponentKind> = component.isEmpty ? [.event, .todo]
                : Set(component.map { ComponentKind(rawValue: $0.rawValue) })
            let result = try AlarmWindow.alarms(in: window, kinds: kinds, zone: zone, source: source, gate: gate,
                                                includingAcknowledged: includeAcknowledged,
                                                readingToDos: component.contains(.VTODO))
            result.diagnostics.forEach { printError($0.description) }
            let formatter = AlarmFormatter(zone: zone, occurrences: OccurrenceFormatter(displayZone: source.tz == nil ? nil : zone))
            let text: String = switch format {
            case .text: formatter.text(result.instances)
            case .json: formatter.json(result.instances)
            case .csv: formatter.csv(result.instances)
            }
            try FileIOBridge.write(text, to: output.output)
        }
    }
}

/// The query of `ical alarms`, over files or the store.
enum AlarmWindow {
    /// The triggers in a window, from the input files or the store (read as the app, under
    /// its access).
    static func alarms(in window: QueryWindow, kinds: Set<ComponentKind>, zone: any TimeZoneRules, source: OccurrenceInputs,
                       gate: PathGate, includingAcknowledged: Bool, readingToDos: Bool) throws -> AlarmQuery.Result {
        if source.readsStore {
            return try source.withReadableStore(readingToDos: readingToDos) { store, calendars in
                store.alarms(in: window.start..<window.end, calendars: calendars, kinds: kinds, floatingZone: zone,
                             includingAcknowledged: includingAcknowledged)
            }
        }
        var query = AlarmQuery(window: window.start..<window.end, floatingZone: zone, kinds: kinds)
        query.includesAcknowledged = includingAcknowledged
        return query.run(try source.fileSources(gate: gate))
    }
}
