import Foundation
import OpenEventKit
import Synchronization

/// Runs one OpenEventKitUI helper for a sandboxed app: `ical` with the arguments the broker
/// checked, unsandboxed (it is trusted, with full access), on the launcher's terminal; the
/// app's input on its standard input, its standard output collected for the app.
enum HelperRun {
    private static let running = Atomic<Int>(0)

    /// Whether a helper is running now (it has the terminal).
    static var isRunning: Bool { running.load(ordering: .acquiring) > 0 }

    static func run(_ ical: String, _ arguments: [String], input: Data, environment: [String: String])
        -> (output: String, status: Int?, signal: Int?) {
        running.add(1, ordering: .acquiringAndReleasing)
        defer { running.subtract(1, ordering: .acquiringAndReleasing) }
        do {
            let outcome = try HelperProcess.run(ical, arguments: arguments, input: input,
                                                environment: environment.map { "\($0.key)=\($0.value)" })
            return (outcome.output, outcome.status.map(Int.init), outcome.signal.map(Int.init))
        } catch {
            FileHandle.standardError.write(Data("ical run: \(error)\n".utf8))
            return ("", 1, nil)
        }
    }
}
