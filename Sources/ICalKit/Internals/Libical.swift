internal import CLibical
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one funnel every libical call goes through.
///
/// libical 3.0.16 is not thread-safe (global error state, a lazily grown builtin-zone
/// array, per-component cursors), so all calls run under one process-wide lock. Inside a
/// `withLock` body, C values are copied into Swift values and freed; no C pointer leaves
/// it, and nothing awaits in it. The lock is not re-entrant: never call `withLock` from a
/// body, and never release an object whose `deinit` takes the lock inside one.
enum Libical {
    /// The loaded library's functions; nil until the first call.
    private static let lock = Mutex<UnsafePointer<CLibical_library>?>(nil)

    /// Runs `body` under the lock with libical's functions, after loading and bootstrapping
    /// libical once.
    ///
    /// libical is loaded with `dlopen` here, not linked (CLibical's `shim.h`): a process that
    /// never reads or expands a recurrence rule, a warm store query for one, never maps it
    /// or the ICU it brings. When it cannot be loaded there is nothing ICalKit can do: the
    /// process reports why on standard error and exits with status 1, as the dynamic
    /// loader did when libical was linked.
    static func withLock<Result>(_ body: (CLibical_library) throws -> Result) rethrows -> Result {
        try lock.withLock { (library: inout UnsafePointer<CLibical_library>?) throws -> Result in
            if library == nil {
                let loaded = load()
                bootstrap(loaded.pointee)
                library = loaded
            }
            return try body(library.unsafelyUnwrapped.pointee)
        }
    }

    /// Loads libical, or ends the process with the reason.
    private static func load() -> UnsafePointer<CLibical_library> {
        switch DynamicLibrary.load({ CLibical_load($0, $1, $2) }) {
        case .success(let library):
            return library
        case .failure(let failure):
            let program = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "error"
            let message = "\(program): libical could not be loaded (\(failure.reason)); install it (Debian: apt-get install libical3)\n"
            var bytes = Array(message.utf8)
            _ = write(STDERR_FILENO, &bytes, bytes.count)
            exit(EXIT_FAILURE)
        }
    }

    /// Sets libical's global settings explicitly (LIBICAL-NOTES §2, §4).
    private static func bootstrap(_ ical: CLibical_library) {
        ical.error_set_errors_are_fatal(0)
        // Zones load lazily from system tzdata; asking once makes a missing tzdata visible.
        _ = ical.timezone_get_builtin_timezones()
    }

    /// The libical version whose headers ICalKit was built with (`3.0.16`); the library opened at
    /// run time is `libical.so.3` of the same major version.
    static var version: String {
        ICAL_VERSION
    }

    /// How many builtin zones libical loaded from system tzdata (0 means tzdata is missing).
    static var builtinZoneCount: Int {
        withLock { ical in
            guard let zones = ical.timezone_get_builtin_timezones() else { return 0 }
            return Int(zones.pointee.num_elements)
        }
    }
}

/// Facts about the C library ICalKit runs on.
public enum LibicalInfo {
    /// The libical version ICalKit was built with, for example `3.0.16` (its headers; the
    /// library itself, `libical.so.3`, is opened on first use).
    public static var version: String { Libical.version }
    /// The number of IANA zones libical found in system tzdata; 0 means tzdata is missing
    /// and every IANA TZID would float silently inside libical.
    public static var builtinZoneCount: Int { Libical.builtinZoneCount }
}
