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
        var inputPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
        guard makePipe(&inputPipe) else { throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))") }
        guard makePipe(&outputPipe) else {
            close(inputPipe[0]); close(inputPipe[1])
            throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)

        let attributes = SpawnAttributes(newSession: false)

        let previousInterrupt = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previousInterrupt) }
        let previousPipe = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previousPipe) }

        var pid: pid_t = 0
        let spawned = attributes.spawn(executable, arguments: arguments, actions: &actions, pid: &pid)
        close(inputPipe[0])
        close(outputPipe[1])
        guard spawned == 0 else {
            close(inputPipe[1]); close(outputPipe[0])
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        started(pid)

        let child = pid
        let writer = inputPipe[1], reader = outputPipe[0]
        let collected = Collected()
        let finished = DispatchSemaphore(value: 0)
        let bytes = [UInt8](input)
        Thread.detachNewThread {
            // Standard input first: the helper reads it all before it talks to the user.
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(writer, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 { if errno == EINTR { continue }; break }
                offset += written
            }
            close(writer)
            var output: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(reader, &buffer, buffer.count)
                if count < 0 { if errno == EINTR { continue }; break }
                if count == 0 { break }
                output += buffer[..<count]
            }
            close(reader)
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            collected.set(output: output, status: status)
            finished.signal()
        }
        let inTask = withUnsafeCurrentTask { $0 != nil }
        if Thread.isMainThread && !inTask {
            while finished.wait(timeout: .now()) == .timedOut {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
            }
        } else {
            finished.wait()
        }
        let (output, status) = collected.get()
        let exited = status & 0x7f == 0
        return Outcome(output: String(decoding: output, as: UTF8.self),
                       status: exited ? (status >> 8) & 0xff : nil,
                       signal: exited ? nil : status & 0x7f)
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

    /// A pipe whose ends are closed on exec (the child gets only the ends dup2 gives it).
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var output: [UInt8] = []
        private var status: Int32 = 0
        func set(output: [UInt8], status: Int32) { lock.withLock { self.output = output; self.status = status } }
        func get() -> ([UInt8], Int32) { lock.withLock { (output, status) } }
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
