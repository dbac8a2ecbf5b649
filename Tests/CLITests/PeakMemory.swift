import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs the built `ical` as a child process and measures its peak resident memory: the
/// child's VmHWM (the high-water mark of its memory since its exec), read from
/// /proc/PID/status until it exits. Not `wait4`'s `ru_maxrss`: a child spawned with vfork
/// (what posix_spawn does) keeps the high-water mark of this test process, which holds every
/// suite, and would report that instead of its own.
enum PeakMemory {
    /// What the child reads on its standard input.
    enum Input {
        case none
        case file(String)
        /// Bytes written into a pipe while the child runs, by the closure's `write`.
        case generated(@Sendable ((Data) throws -> Void) throws -> Void)
    }

    /// The child's exit status, its standard output (when kept), and its peak in bytes.
    struct Result {
        var status: Int32
        var stdout: String
        var peak: Int
    }

    /// Runs `ical` with `arguments` and exactly `environment`; standard output goes to
    /// `stdoutFile` (else /dev/null), standard error to /dev/null.
    static func run(_ arguments: [String], environment: [String: String], input: Input = .none,
                    stdoutFile: String? = nil) throws -> Result {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ends: [Int32] = [-1, -1]
        switch input {
        case .none: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .generated:
            try #require(pipe(&ends) == 0)
            posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
            posix_spawn_file_actions_addclose(&actions, ends[1])
        }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutFile ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let executable = ICalRunner.executable.path
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        if case .generated(let generate) = input {
            close(ends[0])
            let handle = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
            Thread {
                try? generate { try handle.write(contentsOf: $0) }
                try? handle.close()
            }.start()
        }
        var status: Int32 = 0
        var peak = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") {
                peak = max(peak, kilobytes * 1024)
            }
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { break }
            usleep(10_000)
        }
        let output = stdoutFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exit, stdout: output, peak: peak)
    }
}
