#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `posix_spawn` attributes of every helper process OpenEventKit starts (the trusted UI
/// helpers, virtual conference extensions): SIGINT and SIGPIPE back at their defaults in the
/// child, whatever the parent ignores while it waits, and optionally a session of its own
/// (no controlling terminal).
package final class SpawnAttributes {
    /// Pass as `&attributes.raw` to `posix_spawn`.
    package var raw = posix_spawnattr_t()

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

    /// Calls `spawn` (a `posix_spawn` call) and calls it again, after a short and growing
    /// pause, while it fails with `ETXTBSY`; returns its last result.
    ///
    /// `ETXTBSY` means some process still has the executable open for writing. That is
    /// transient: a helper being installed, or, in any multithreaded program that writes a
    /// script and runs it, another thread's `fork` child that inherited the script's
    /// descriptor and has not reached `exec` yet. The pauses add up to about 0.6 s.
    package static func retryingWhileBusy(_ spawn: () -> Int32) -> Int32 {
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
