#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
import Foundation
import ICalKit
import OpenEventKit
import Synchronization

/// The trusted helper process behind the EventKitUI controllers: `ical ui edit-event` and
/// `ical ui choose-calendar`. Linux-only.
///
/// Where `ical` is found, in order:
/// 1. `$OPENEVENTKIT_ICAL`, the path of the executable (when set, nothing else is tried);
/// 2. an `ical` executable in the folder of the running executable (so `.build/debug/ical`
///    serves every program built beside it);
/// 3. the first `ical` on `$PATH`.
///
/// The helper is started in the app's own process group, so it can read the controlling
/// terminal (a process of another group would be stopped by SIGTTIN), with standard input a
/// pipe (the proposed event), standard output a pipe (the result) and standard error shared
/// with the app. While it runs, the app ignores SIGINT: Ctrl-C ends the helper (the
/// controller reports a cancel) and not the app.
enum SystemHelper {
    /// The environment variable that names the `ical` executable.
    static let environmentVariable = "OPENEVENTKIT_ICAL"

    /// Why the helper could not be used.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The `ical` executable, by the order above.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                       executablePath: String? = AppManifest.currentExecutablePath()) throws(Failure) -> String {
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            guard access(explicit, X_OK) == 0 else {
                throw Failure(description: "\(environmentVariable) is \(explicit), which is not an executable file")
            }
            return explicit
        }
        if let executablePath, let slash = executablePath.lastIndex(of: "/") {
            let beside = String(executablePath[..<slash]) + "/ical"
            if access(beside, X_OK) == 0 { return beside }
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/ical"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw Failure(description: "cannot find the `ical` helper: set \(environmentVariable) to it, put it beside this program, or on PATH (build it with `swift build --product ical`)")
    }

    /// What the helper printed and how it ended.
    struct Outcome {
        /// Standard output, as text.
        var output: String
        /// The exit status, or nil when it was ended by a signal.
        var status: Int32?
        /// The signal that ended it, if one did.
        var signal: Int32?
    }

    /// Runs `ical` with `arguments`, writing `input` to its standard input, and waits.
    ///
    /// When called outside a Swift task on the main thread, the main run loop keeps running
    /// while the helper does, so work scheduled on the main queue (a timer that calls
    /// `cancelEditing()`) still runs; `started` receives the helper's process id.
    static func run(_ arguments: [String], input: Data, started: (pid_t) -> Void = { _ in }) throws(Failure) -> Outcome {
        if let client = BrokerClient.shared { return try runThroughBroker(client, arguments, input: input) }
        let executable = try locate()
        // What the app printed so far comes before the helper's form.
        fflush(nil)
        do {
            let outcome = try HelperProcess.run(executable, arguments: arguments, input: input, started: started)
            return Outcome(output: outcome.output, status: outcome.status, signal: outcome.signal)
        } catch {
            throw Failure(description: error.description)
        }
    }

    /// The `--store` argument of a helper for `store`: its folder, or for a sandboxed app's
    /// store the broker's (the broker names the real folder); nil when the store could not be
    /// opened.
    static func storeArgument(for store: EKEventStore) -> String? {
        if let url = store.storeURL { return url.path }
        return BrokerClient.shared != nil ? "-" : nil
    }

    /// In an app `ical run` started in a sandbox: the broker checks the call and has `ical run`
    /// run the helper on its terminal (the app cannot start a trusted `ical` itself).
    private static func runThroughBroker(_ client: BrokerClient, _ arguments: [String], input: Data) throws(Failure) -> Outcome {
        fflush(nil)
        let reply: BrokerReply
        do {
            reply = try client.call(.uiHelper(arguments: arguments, input: input), waitsForPerson: true)
        } catch {
            throw Failure(description: "the broker could not run the helper: \(error.message)")
        }
        switch reply {
        case let .helper(output, status, signal):
            return Outcome(output: output, status: status.map(Int32.init), signal: signal.map(Int32.init))
        case .failure(let failure):
            throw Failure(description: "the broker refused the helper: \(failure.message)")
        default:
            throw Failure(description: "the broker answered the helper call with something else")
        }
    }

    /// Writes a line on standard error (or to the capture of ``ControllerMessages``), on one
    /// line and safe for a terminal: an app's name or a helper's answer quoted in it shows its
    /// control characters as ``TerminalText`` escapes.
    static func report(_ text: String) {
        let text = TerminalText.line(text)
        if ControllerMessages.record(text) { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// The reasons the controllers give on standard error (no terminal, no access, no helper),
/// captured instead while tests run ``capturing(_:)``, so they can be checked and do not reach
/// the test process's standard error.
package enum ControllerMessages {
    private static let captured = Mutex<[String]?>(nil)

    /// Runs `body` with the messages captured; returns its result and the messages.
    package static func capturing<T>(_ body: () throws -> T) rethrows -> (T, [String]) {
        captured.withLock { $0 = [] }
        defer { captured.withLock { $0 = nil } }
        let result = try body()
        return (result, captured.withLock { $0 ?? [] })
    }

    /// Keeps `text` when capturing; false when the message should go to standard error.
    static func record(_ text: String) -> Bool {
        captured.withLock { messages in
            guard messages != nil else { return false }
            messages!.append(text)
            return true
        }
    }
}

/// Who the app is, for the helper's header: from the manifest the store's access controller
/// was made with, else the running process's manifest.
struct AppIdentity {
    var bundleIdentifier: String
    var displayName: String

    init(store: EKEventStore) {
        if let manifest = (store.authority as? AccessController)?.manifest, !manifest.bundleIdentifier.isEmpty {
            bundleIdentifier = manifest.bundleIdentifier
            displayName = manifest.displayName
        } else if let manifest = try? AppManifest.main() {
            bundleIdentifier = manifest.bundleIdentifier
            displayName = manifest.displayName
        } else {
            bundleIdentifier = "unknown"
            displayName = ProcessInfo.processInfo.processName
        }
    }

    /// The helper's options naming the app.
    var arguments: [String] { ["--app-id", bundleIdentifier, "--app-name", displayName] }
}
