#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `posix_spawn` attributes of every helper process OpenEventKit starts (the trusted UI
/// helpers, virtual conference extensions): SIGINT and SIGPIPE back at their defaults in the
/// child, whatever the parent ignores while it waits, and optionally a session of its own
/// (no controlling terminal); and the start itself (``spawn(_:arguments:environment:actions:pid:)``).
package final class SpawnAttributes {
    /// What ``spawn(_:arguments:environment:actions:pid:)`` passes to `posix_spawn`.
    private var raw = posix_spawnattr_t()

    package init(newSession: Bool) {
        posix_spawnattr_init(&raw)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&raw, &defaults)
        // glibc's POSIX_SPAWN_SETSID (0x80, since 2.26) is behind _GNU_SOURCE, which Swift's
        // Glibc module does not define.
        let spawnSetSID: Int32 = 0x80
        posix_spawnattr_setflags(&raw, Int16((newSession ? spawnSetSID : 0) | POSIX_SPAWN_SETSIGDEF))
    }

    deinit { posix_spawnattr_destroy(&raw) }

    /// Starts `executable` with `arguments` (after its own path) and `environment`
    /// (`NAME=value` lines; nil for this process's), with these attributes and `actions`;
    /// 0 and the child's id in `pid`, or the error number.
    ///
    /// Tried again, after a short and growing pause, while it fails with `ETXTBSY`: some
    /// process still has the executable open for writing. That is transient: a helper being
    /// installed, or, in any multithreaded program that writes a script and runs it, another
    /// thread's `fork` child that inherited the script's descriptor and has not reached
    /// `exec` yet. The pauses add up to about 0.6 s.
    package func spawn(_ executable: String, arguments: [String], environment: [String]? = nil,
                       actions: inout posix_spawn_file_actions_t, pid: inout pid_t) -> Int32 {
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let envp = environment?.map { strdup($0) }
        defer { envp?.forEach { free($0) } }
        return Self.retryingWhileBusy {
            (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
                let arguments = UnsafeMutablePointer(mutating: argvBuffer.baseAddress!)
                guard let envp else { return posix_spawn(&pid, executable, &actions, &raw, arguments, environ) }
                return (envp + [nil]).withUnsafeBufferPointer { envpBuffer in
                    posix_spawn(&pid, executable, &actions, &raw, arguments, UnsafeMutablePointer(mutating: envpBuffer.baseAddress!))
                }
            }
        }
    }

    /// Calls `spawn` until it fails with anything but `ETXTBSY`, at most twelve times.
    private static func retryingWhileBusy(_ spawn: () -> Int32) -> Int32 {
        var pause: useconds_t = 1_000
        for _ in 0..<11 {
            let result = spawn()
            guard result == ETXTBSY else { return result }
            usleep(pause)
            pause = min(pause * 2, 100_000)
        }
        return spawn()
    }
}
