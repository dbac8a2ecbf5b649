#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal.Alarms {
    /// `ical alarms watch`: the service that rings the store's alarms.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Ring the store's alarms at their time: desktop notifications, a command, or lines.",
            discussion: """
                A long-running service (dist/systemd/ical-alarms.service is its systemd user
                unit). Each alarm of the store's events and to-dos rings once, at its time:
                as a desktop notification over D-Bus (org.freedesktop.Notifications) with
                Dismiss and Snooze buttons (the default), or by running --exec COMMAND with
                the alarm as JSON on its standard input (the fields of `ical alarms --format
                json`), or by printing a line (--print). DISPLAY and AUDIO alarms ring;
                EMAIL and PROCEDURE alarms are not carried out (a line on standard error says
                so once).

                Dismiss writes RFC 9074's ACKNOWLEDGED into the item, Snooze also a snooze
                alarm that rings after --snooze (default 5m); `ical sync` carries both to the
                server, so a second machine does not ring again. Closing a notification
                dismisses it; one that expires does not.

                The service sleeps until the next trigger or a change to the store (inotify;
                any program's change, `ical sync` included); a wall-clock timer also wakes it
                after the machine slept. Alarms missed while it was not running or the machine
                slept ring when it wakes if they are at most --catch-up old (default 1h).
                Fired alarms are recorded in --state (default
                $XDG_STATE_HOME/openeventkit/alarms-fired.json), so no alarm rings twice, also
                across restarts. At most --rate-limit alarms of one calendar ring per minute
                (default 10); the rest are summed up in one notification.

                It reads the store as ical, with full access to events and reminders, and
                says how to grant it when ical lacks it (exit status 77).

                Examples:
                  ical alarms watch
                  ical alarms watch --print --catch-up 12h
                  ical alarms watch --exec 'jq -r .summary | espeak'
                """)

        @Flag(help: "Print one line per alarm on standard output instead of a desktop notification.")
        var print = false

        @Option(help: ArgumentHelp("Run this shell command for each alarm, the alarm as JSON on its standard input.", valueName: "command"))
        var exec: String?

        @Option(help: ArgumentHelp("Ring alarms missed by at most this long (0s: none).", valueName: "duration"))
        var catchUp: String = "1h"

        @Option(help: ArgumentHelp("How long Snooze snoozes.", valueName: "duration"))
        var snooze: String = "5m"

        @Option(help: ArgumentHelp("At most this many alarms of one calendar per minute.", valueName: "count"))
        var rateLimit: Int = 10

        @Option(help: ArgumentHelp("The record of fired alarms.", valueName: "file"))
        var state: String?

        @Option(help: ArgumentHelp("The zone floating and all-day events are read in.", valueName: "zone"))
        var tz: String?

        @Flag(help: "Ring what is due now, then exit.")
        var once = false

        @Option(help: ArgumentHelp("Tests: read the current time from this file (an ISO 8601 instant such as 2026-12-01T08:50:00Z), and wake when it changes.", visibility: .hidden))
        var clockFile: String?

        @Option(help: ArgumentHelp("The store folder (else $OPENEVENTKIT_STORE, else $XDG_DATA_HOME/openeventkit).", valueName: "dir"))
        var store: String?

        mutating func validate() throws {
            if print && exec != nil { throw ValidationError("Give --print or --exec, not both.") }
            if catchUp != "0s" && catchUp != "0" && AlarmHandling.seconds(catchUp) == nil {
                throw ValidationError("--catch-up takes a duration such as 1h, 30m or 0s, not '\(catchUp)'.")
            }
            if AlarmHandling.seconds(snooze) == nil { throw ValidationError("--snooze takes a duration such as 5m or 1h, not '\(snooze)'.") }
            if rateLimit < 1 { throw ValidationError("--rate-limit must be at least 1.") }
        }

        func run() throws {
            let zone = try OccurrenceInputs.zone(named: tz)
            // As ical itself: the user's alarms, not an app's.
            var storeOptions = StoreAppOptions()
            storeOptions.store = store
            storeOptions.app = nil
            let ringer: any AlarmRinger
            if print {
                ringer = LineRinger(formatter: AlarmFormatter(zone: zone))
            } else if let exec {
                ringer = CommandRinger(command: exec, formatter: AlarmFormatter(zone: zone))
            } else {
                do {
                    ringer = try NotificationRinger(formatter: AlarmFormatter(zone: zone))
                } catch {
                    printError("ical: \(error) (without a desktop, --print writes a line and --exec runs a command)")
                    throw ExitCode(1)
                }
            }
            let service = try AlarmService(
                storeOptions: storeOptions, zone: zone, ringer: ringer,
                catchUp: AlarmHandling.seconds(catchUp) ?? 0, snooze: AlarmHandling.seconds(snooze)!,
                rateLimit: rateLimit, statePath: state ?? AlarmService.defaultStatePath(),
                clock: clockFile.map(AlarmClock.file) ?? .system)
            try service.run(once: once)
        }
    }
}
