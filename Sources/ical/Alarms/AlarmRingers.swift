import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit
import Synchronization

/// `--print`: one line per alarm on standard output (``AlarmFormatter/line(_:)``).
final class LineRinger: AlarmRinger {
    let formatter: AlarmFormatter

    init(formatter: AlarmFormatter) { self.formatter = formatter }

    func ring(_ instance: AlarmInstance, now: Int64) throws -> UInt32? {
        try Self.write(formatter.line(instance) + "\n")
        return nil
    }

    func ringSummary(count: Int, calendar: String) throws {
        try Self.write(TerminalText.line("\(count) more alarms of \(calendar) held back (rate limit)") + "\n")
    }

    var fileDescriptor: Int32? { nil }
    func responses() -> [(UInt32, RingerResponse)] { [] }

    private static func write(_ text: String) throws {
        do throws(ICalError) { try FileIO.writeStandardOutput(text) } catch { throw error }
    }
}

/// `--exec COMMAND`: runs `/bin/sh -c COMMAND` with the alarm as one JSON object (the fields
/// of `ical alarms --format json`) on its standard input; its output goes to the service's
/// standard error. A command still running after a minute is killed.
final class CommandRinger: AlarmRinger {
    let command: String
    let formatter: AlarmFormatter
    static let timeLimit: TimeInterval = 60

    init(command: String, formatter: AlarmFormatter) {
        self.command = command
        self.formatter = formatter
    }

    func ring(_ instance: AlarmInstance, now: Int64) throws -> UInt32? {
        try run(Self.object(formatter.json([instance])))
        return nil
    }

    func ringSummary(count: Int, calendar: String) throws {
        try run("{\"heldBack\": \(count), \"calendar\": \(OccurrenceFormatter.jsonString(calendar))}\n")
    }

    var fileDescriptor: Int32? { nil }
    func responses() -> [(UInt32, RingerResponse)] { [] }

    /// The one object of a one-element JSON array, with a trailing newline.
    static func object(_ array: String) -> String {
        var text = array.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("[") { text.removeFirst() }
        if text.hasSuffix("]") { text.removeLast() }
        return text.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
    }

    private func run(_ input: String) throws {
        let finished = Finished()
        let outcome: HelperProcess.Outcome
        do {
            outcome = try HelperProcess.run("/bin/sh", arguments: ["-c", command], input: Data(input.utf8)) { pid in
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.timeLimit) {
                    if !finished.value.load(ordering: .acquiring) { kill(pid, SIGKILL) }
                }
            }
        } catch {
            throw ValidationError("--exec: \(error)")
        }
        finished.value.store(true, ordering: .releasing)
        if !outcome.output.isEmpty { printError(TerminalText.lines(outcome.output.trimmingCharacters(in: .newlines))) }
        if let status = outcome.status, status != 0 {
            printError("ical: --exec command exited with status \(status)")
        } else if let signal = outcome.signal {
            printError("ical: --exec command was ended by signal \(signal)\(signal == SIGKILL ? " (it ran longer than a minute)" : "")")
        }
    }
}

/// Whether a command has ended (so that its time limit does not kill a later process).
private final class Finished: Sendable {
    let value = Atomic<Bool>(false)
}

/// The default: a desktop notification (org.freedesktop.Notifications over the session bus)
/// with Dismiss and Snooze buttons; closing it dismisses too.
///
/// A notification server that goes away (a desktop session restarted) is connected to again
/// at the next alarm; the buttons of notifications shown before then no longer answer.
final class NotificationRinger: AlarmRinger {
    let formatter: AlarmFormatter
    private var notifications: DesktopNotifications

    init(formatter: AlarmFormatter) throws(DesktopNotificationsError) {
        self.formatter = formatter
        self.notifications = try DesktopNotifications()
    }

    /// The connection, made again when the last one was lost.
    private func connection() throws(DesktopNotificationsError) -> DesktopNotifications {
        if !notifications.isConnected { notifications = try DesktopNotifications() }
        return notifications
    }

    func ring(_ instance: AlarmInstance, now: Int64) throws -> UInt32? {
        let summary = instance.occurrence?.occurrence.component.summary ?? instance.component.summary ?? "Reminder"
        var lines: [String] = []
        if let when = formatter.startText(instance, triggerDay: formatter.zone.local(at: now).date) {
            var line = when.prefix(1).uppercased() + when.dropFirst()
            if let start = instance.occurrence?.startInstant, instance.occurrence?.occurrence.isAllDay == false,
               let coming = Self.comingIn(start - now) {
                line += ", " + coming
            }
            lines.append(line)
        }
        if let location = instance.occurrence?.occurrence.component.location, !location.isEmpty { lines.append(location) }
        if let text = instance.alarmDescription, !text.isEmpty, text != summary, text != "Reminder" { lines.append(text) }
        return try connection().notify(appName: "ical", summary: summary, body: lines.joined(separator: "\n"),
                                        actions: [(key: "dismiss", label: "Dismiss"), (key: "snooze", label: "Snooze")],
                                        hints: DesktopNotifications.Hints(urgency: .normal, category: "x-openeventkit.alarm"),
                                        expireTimeout: 0)
    }

    /// "in 10 minutes", "in 1 hour 5 minutes", "now" for a start within the next day;
    /// nil for one that has passed or is further away.
    static func comingIn(_ seconds: Int64) -> String? {
        guard seconds >= 0, seconds < 86_400 else { return nil }
        let minutes = (seconds + 59) / 60
        if minutes == 0 { return "now" }
        let hours = minutes / 60, rest = minutes % 60
        let hourText = hours == 0 ? "" : hours == 1 ? "1 hour" : "\(hours) hours"
        let minuteText = rest == 0 ? "" : rest == 1 ? "1 minute" : "\(rest) minutes"
        return "in " + [hourText, minuteText].filter { !$0.isEmpty }.joined(separator: " ")
    }

    func ringSummary(count: Int, calendar: String) throws {
        _ = try connection().notify(appName: "ical", summary: "\(count) more alarms of \(calendar)",
                                     body: "Held back: at most a few alarms of one calendar ring per minute.",
                                     actions: [], hints: DesktopNotifications.Hints(urgency: .low, category: "x-openeventkit.alarm"),
                                     expireTimeout: -1)
    }

    /// Nil once the connection is lost: libdbus has closed the descriptor, whose number may
    /// be reused.
    var fileDescriptor: Int32? { notifications.isConnected ? notifications.fileDescriptor : nil }

    func responses() -> [(UInt32, RingerResponse)] {
        var result: [(UInt32, RingerResponse)] = []
        for event in notifications.events() {
            switch event {
            case .actionInvoked(let id, let action):
                let response: RingerResponse? = action == "dismiss" ? .dismiss : action == "snooze" ? .snooze : nil
                guard let response else { continue }
                result.append((id, response))
                // Answered: it goes (a server may keep a notification after an action).
                try? notifications.close(id)
            case .closed(let id, let reason):
                // 2: closed by the user. 1 (expired) and 3 (closed by a call) are not answers.
                if reason == 2 { result.append((id, .dismiss)) }
            }
        }
        return result
    }
}
