import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical events`: add or remove single events in the store.
    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events",
            abstract: "Add an event to the store, or remove one.",
            discussion: """
                Examples:
                  ical events add --title 'Piano lesson' --start 2026-12-01T16:00 --duration 45m
                  ical events add --title 'Half term' --start 2027-02-15 --end 2027-02-19 --all-day
                  ical events add --title Call --start 2026-12-01T09:00 --tz America/New_York --repeat weekly --count 4
                  ical events remove calendar/3F2A0C1E.ics
                  ical events remove calendar/3F2A0C1E.ics --occurrence 2026-12-15T16:00
                  ical events remove calendar/3F2A0C1E.ics --occurrence 2026-12-15T16:00 --future
                """,
            subcommands: [Add.self, Remove.self])
    }
}

extension ICal.Events {
    /// `ical events add`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add an event (write-only access is enough).",
            discussion: """
                Times are read in --tz (else the system zone). The event goes to the
                default calendar, or --calendar (which needs full access to see calendars).
                Prints the new event's identifier.

                Examples:
                  ical events add --title 'Piano lesson' --start 2026-12-01T16:00 --duration 45m --location 'Room 4'
                  ical events add --title Holiday --start 2026-12-24 --all-day
                """)

        enum Frequency: String, ExpressibleByArgument, CaseIterable { case daily, weekly, monthly, yearly }

        @Option(help: "The title.") var title: String
        @Option(help: ArgumentHelp("The start: 2026-12-01T16:00, or a date with --all-day.", valueName: "when")) var start: String
        @Option(help: ArgumentHelp("The end (default: one hour after the start, or the same day when all-day).", valueName: "when")) var end: String?
        @Option(help: ArgumentHelp("The length instead of an end: 45m, 1h30m, 2d.", valueName: "duration")) var duration: String?
        @Flag(help: "An all-day event: --start and --end are its first and last day.") var allDay = false
        @Option(help: ArgumentHelp("The event's time zone (default: the system zone).", valueName: "zone")) var tz: String?
        @Option(help: "The location.") var location: String?
        @Option(help: "Notes.") var notes: String?
        @Option(help: ArgumentHelp("Repeat: daily, weekly, monthly or yearly.", valueName: "frequency")) var `repeat`: Frequency?
        @Option(help: "With --repeat: how many times.") var count: Int?
        @Option(help: ArgumentHelp("A calendar's identifier or title.", valueName: "name")) var calendar: String?
        @OptionGroup var storeOptions: StoreAppOptions

        func validate() throws {
            if end != nil && duration != nil { throw ValidationError("Give --end or --duration, not both.") }
            if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
            if count != nil && self.repeat == nil { throw ValidationError("--count goes with --repeat.") }
        }

        func run() throws {
            let zoneName = tz ?? (IANATimeZone.system()?.identifier ?? "UTC")
            guard let rules = TimeZoneResolver.resolveStandard(zoneName)?.rules, let zone = TimeZone(identifier: rules.identifier) ?? TimeZone(identifier: zoneName) else {
                printError("ical: unknown time zone '\(zoneName)' (use an IANA name such as Europe/Berlin)")
                throw ExitCode(2)
            }
            let now = ICal.Query.now(in: rules)
            func instant(_ text: String) throws -> Date {
                do { return Date(timeIntervalSince1970: TimeInterval(rules.instant(for: try QueryWindow.moment(text, now: now).local))) } catch {
                    printError("ical: \(error.message)")
                    throw ExitCode(2)
                }
            }
            let store = try storeOptions.open(needing: calendar == nil ? .writeOnly : .full, for: "adding an event")
            let event = EKEvent(eventStore: store)
            event.title = title
            event.timeZone = allDay ? nil : zone
            event.isAllDay = allDay
            let startDate = try instant(start)
            event.startDate = startDate
            if let end {
                event.endDate = try instant(end)
            } else if let duration {
                let length: Duration
                do { length = try LessonText.duration(duration) } catch {
                    printError("ical: \(error.message)")
                    throw ExitCode(2)
                }
                event.endDate = startDate.addingTimeInterval(TimeInterval(length.nominalSeconds))
            } else {
                event.endDate = allDay ? startDate : startDate.addingTimeInterval(3600)
            }
            event.location = location
            event.notes = notes
            if let frequency = self.repeat {
                let type: EKRecurrenceFrequency = switch frequency {
                case .daily: .daily
                case .weekly: .weekly
                case .monthly: .monthly
                case .yearly: .yearly
                }
                event.addRecurrenceRule(EKRecurrenceRule(recurrenceWith: type, interval: 1, end: count.map { EKRecurrenceEnd(occurrenceCount: $0) }))
            }
            event.calendar = try calendar.map { try storeOptions.calendar(named: $0, in: store, for: .event) } ?? store.defaultCalendarForNewEvents
            do { try store.save(event, span: .futureEvents) } catch {
                printError("ical: the event was not added: \(error)")
                throw ExitCode((error as? EKError)?.code == .eventStoreNotAuthorized ? exitNoPermission : 1)
            }
            print(TerminalText.line(event.eventIdentifier ?? ""))
        }
    }

    /// `ical events remove`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an event, one occurrence of it, or it from an occurrence on (full access).",
            discussion: """
                The identifier is what `ical events add` printed, or the `source` of
                `ical query --format json`: calendar/file.ics.

                Examples:
                  ical events remove calendar/lesson.ics
                  ical events remove calendar/lesson.ics --occurrence 2026-12-15T16:00
                  ical events remove calendar/lesson.ics --occurrence 2026-12-15T16:00 --future
                """)

        @Argument(help: "The event's identifier (calendar/file.ics).") var identifier: String
        @Option(help: ArgumentHelp("Only the occurrence that starts at this time (its original time, in --tz).", valueName: "when")) var occurrence: String?
        @Flag(help: "With --occurrence: remove that occurrence and every later one.") var future = false
        @Option(help: ArgumentHelp("The zone --occurrence is read in (default: the system zone).", valueName: "zone")) var tz: String?
        @OptionGroup var storeOptions: StoreAppOptions

        func validate() throws {
            if future && occurrence == nil { throw ValidationError("--future goes with --occurrence.") }
        }

        func run() throws {
            let store = try storeOptions.open(needing: .full, for: "removing an event")
            guard let event = store.event(withIdentifier: identifier) else {
                printError("ical: there is no event '\(TerminalText.line(identifier))' (identifiers look like calendar/file.ics; see ical query --format json)")
                throw ExitCode(1)
            }
            var target = event
            if let occurrence {
                let zoneName = tz ?? (IANATimeZone.system()?.identifier ?? "UTC")
                guard let rules = TimeZoneResolver.resolveStandard(zoneName)?.rules else {
                    printError("ical: unknown time zone '\(zoneName)'")
                    throw ExitCode(2)
                }
                let moment: Date
                do {
                    moment = Date(timeIntervalSince1970: TimeInterval(rules.instant(for: try QueryWindow.moment(occurrence, now: ICal.Query.now(in: rules)).local)))
                } catch {
                    printError("ical: \(error.message)")
                    throw ExitCode(2)
                }
                let predicate = store.predicateForEvents(withStart: moment.addingTimeInterval(-366 * 86_400), end: moment.addingTimeInterval(366 * 86_400),
                                                         calendars: [event.calendar])
                guard let match = store.events(matching: predicate).first(where: {
                    $0.eventIdentifier == identifier && abs($0.occurrenceDate.timeIntervalSince(moment)) < 1
                }) else {
                    printError("ical: '\(identifier)' has no occurrence at \(occurrence)")
                    throw ExitCode(1)
                }
                target = match
            }
            do { try store.remove(target, span: future || occurrence == nil ? .futureEvents : .thisEvent) } catch {
                printError("ical: \(error)")
                throw ExitCode(1)
            }
            let shown = TerminalText.line(identifier)
            print(occurrence == nil ? "Removed \(shown)." : "Removed the occurrence\(future ? "s from" : " at") \(TerminalText.line(occurrence!)) of \(shown).")
        }
    }
}
