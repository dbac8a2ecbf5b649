import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal.Alarms {
    /// `ical alarms dismiss KEY`.
    struct Dismiss: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dismiss",
            abstract: "Dismiss one alarm of the store (RFC 9074 ACKNOWLEDGED), as a notification's Dismiss button does.",
            discussion: """
                KEY is the key `ical alarms --format json` (or `watch --exec`) gives for the
                trigger. The alarm's ACKNOWLEDGED is set to now in its item, so `ical sync`
                carries it to the server and no other machine rings it again; snooze alarms
                of the alarm are removed. Dismissing a snooze alarm acknowledges the alarm it
                snoozes. Needs full access (ical has it unless taken away).

                Example:
                  ical alarms dismiss "$(ical alarms --between now +1h --format json | jq -r '.[0].key')"
                """)

        @Argument(help: "The alarm's key.")
        var key: String

        @Option(help: ArgumentHelp("The zone floating and all-day events are read in (as when the key was listed).", valueName: "zone"))
        var tz: String?

        @OptionGroup var storeOptions: StoreAppOptions

        func run() throws {
            try AlarmHandling.handle(key: key, action: .dismiss, tz: tz, storeOptions: storeOptions)
        }
    }

    /// `ical alarms snooze KEY [--for 10m]`.
    struct Snooze: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snooze",
            abstract: "Snooze one alarm of the store (an RFC 9074 snooze alarm), as a notification's Snooze button does.",
            discussion: """
                The alarm is acknowledged and a snooze alarm (RELATED-TO;RELTYPE=SNOOZE, an
                absolute TRIGGER) is added that rings again after --for (default 5m; amounts
                with w, d, h, m or s such as 10m or 1h30m). Snoozing again replaces the
                earlier snooze alarm.
                """)

        @Argument(help: "The alarm's key.")
        var key: String

        @Option(name: .customLong("for"), help: ArgumentHelp("How long to snooze.", valueName: "duration"))
        var duration: String = "5m"

        @Option(help: ArgumentHelp("The zone floating and all-day events are read in (as when the key was listed).", valueName: "zone"))
        var tz: String?

        @OptionGroup var storeOptions: StoreAppOptions

        mutating func validate() throws {
            guard AlarmHandling.seconds(duration) != nil else {
                throw ValidationError("--for takes a duration such as 10m, 1h or 1h30m, not '\(duration)'.")
            }
        }

        func run() throws {
            let now = AlarmHandling.now()
            let until = now + AlarmHandling.seconds(duration)!
            try AlarmHandling.handle(key: key, action: .snooze(until: until), tz: tz, storeOptions: storeOptions)
        }
    }
}

/// Dismissing and snoozing by key, for the commands and the watch service.
enum AlarmHandling {
    /// Seconds of a duration such as `10m`, `1h30m` or `+2d` (days as 24 hours); nil when
    /// it is not one or not positive.
    static func seconds(_ text: String) -> Int64? {
        let relative = text.hasPrefix("+") ? text : "+" + text
        guard let parts = try? QueryWindow.relative(relative) else { return nil }
        let total = Int64(parts.days) * 86_400 + parts.seconds
        return total > 0 ? total : nil
    }

    /// Now, in seconds since 1970 (`ICAL_NOW` pins it for tests).
    static func now() -> Int64 {
        ICal.Query.now(in: FixedOffsetZone.utc).secondsSinceEpoch
    }

    /// Finds the trigger a key names in the store and dismisses or snoozes its alarm.
    static func handle(key: String, action: AlarmAcknowledgement.Action, tz: String?, storeOptions: StoreAppOptions) throws {
        guard let last = key.split(separator: "|", omittingEmptySubsequences: false).last, let instant = Int64(last) else {
            printError("ical: '\(TerminalText.line(key))' is not an alarm key (keys come from `ical alarms --format json`)")
            throw ExitCode(2)
        }
        let zone = try OccurrenceInputs.zone(named: tz)
        let store = try storeOptions.openStore()
        try storeOptions.require(.full, to: .event, on: store, for: "dismissing or snoozing alarms")
        try storeOptions.require(.full, to: .reminder, on: store, for: "dismissing or snoozing alarms")
        let found = store.alarms(in: instant..<(instant + 1), floatingZone: zone, includingAcknowledged: true)
        guard let instance = found.instances.first(where: { $0.key == key }) else {
            printError("ical: no alarm of the store has the key '\(TerminalText.line(key))' (was it changed or removed? list them with `ical alarms`)")
            throw ExitCode(1)
        }
        do {
            try store.acknowledgeAlarm(instance, action, at: Date(timeIntervalSince1970: TimeInterval(now())))
        } catch {
            printError("ical: \(error)")
            throw ExitCode(1)
        }
        let formatter = AlarmFormatter(zone: zone)
        switch action {
        case .dismiss:
            print("Dismissed: " + formatter.line(instance))
        case .snooze(let until):
            print("Snoozed until \(formatter.iso(until, in: zone)): " + formatter.line(instance))
        }
    }
}
