internal import CLibical
import Synchronization

/// The one funnel every libical call goes through.
///
/// libical 3.0.16 is not thread-safe (global error state, a lazily grown builtin-zone
/// array, per-component cursors), so all calls run under one process-wide lock. Inside a
/// `withLock` body, C values are copied into Swift values and freed; no C pointer leaves
/// it, and nothing awaits in it. The lock is not re-entrant: never call `withLock` from a
/// body, and never release an object whose `deinit` takes the lock inside one.
enum Libical {
    private static let lock = Mutex<Bool>(false)

    /// Runs `body` under the lock, after bootstrapping libical once.
    static func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try lock.withLock { (bootstrapped: inout Bool) throws -> Result in
            if !bootstrapped {
                bootstrap()
                bootstrapped = true
            }
            return try body()
        }
    }

    /// Sets libical's global settings explicitly (LIBICAL-NOTES §2, §4).
    private static func bootstrap() {
        icalerror_set_errors_are_fatal(0)
        // Zones load lazily from system tzdata; asking once makes a missing tzdata visible.
        _ = icaltimezone_get_builtin_timezones()
    }

    /// The libical version this process is linked with (`3.0.16`).
    static var version: String {
        ICAL_VERSION
    }

    /// How many builtin zones libical loaded from system tzdata (0 means tzdata is missing).
    static var builtinZoneCount: Int {
        withLock {
            guard let zones = icaltimezone_get_builtin_timezones() else { return 0 }
            return Int(zones.pointee.num_elements)
        }
    }
}

/// Facts about the C library ICalKit runs on.
public enum LibicalInfo {
    /// The libical version this process is linked with, for example `3.0.16`.
    public static var version: String { Libical.version }
    /// The number of IANA zones libical found in system tzdata; 0 means tzdata is missing
    /// and every IANA TZID would float silently inside libical.
    public static var builtinZoneCount: Int { Libical.builtinZoneCount }
}
