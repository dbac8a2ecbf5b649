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
