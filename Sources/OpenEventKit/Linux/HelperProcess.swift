#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// A trusted helper process run to its end: `ical ui …` for OpenEventKitUI's controllers
/// (in the app's process, or for a sandboxed app in `ical run`'s), its input written on its
/// standard input, its standard output collected, its standard error and terminal the
/// caller's.
package enum HelperProcess {
    /// Why a helper could not be run.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// How a helper ended.
    package struct Outcome: Sendable {
        /// Standard output, as text.
        package var output: String
        /// The exit status, or nil when it was ended by a signal.
        package var status: Int32?
        /// The signal that ended it, if one did.
        package var signal: Int32?
    }

    /// Runs `executable` with `arguments`, writing `input` to its standard input, and waits
    /// (SIGINT and SIGPIPE ignored here meanwhile, at their defaults in the helper).
    ///
    /// When called outside a Swift task on the main thread, the main run loop keeps running
    /// while the helper does, so work scheduled on the main queue still runs; `started`
    /// receives the helper's process id. `environment` (`NAME=value`) is this process's when nil.
    package static func run(_ executable: String, arguments: [String], input: Data, environment: [String]? = nil,
                            started: (pid_t) -> Void = { _ in }) throws(Failure) -> Outcome {
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
        let spawned = attributes.spawn(executable, arguments: arguments, environment: environment, actions: &actions, pid: &pid)
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
}
