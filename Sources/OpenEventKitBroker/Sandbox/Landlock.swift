import Foundation

/// Landlock, the Linux security module `ical run` confines apps with.
///
/// Landlock lets an unprivileged process restrict itself (and the programs it starts) to a
/// set of paths; it has grown in versions called ABIs. The sandbox needs ABI 6 (Linux 6.12):
/// ABI 6 scopes abstract UNIX sockets and signals, which is what keeps an app from connecting
/// to the broker's abstract listening socket or signalling the broker and other processes.
/// With an older ABI, or none, `ical run` refuses to start apps: it never runs one
/// unconfined.
package enum Landlock {
    /// The lowest ABI the sandbox accepts.
    package static let requiredABI = 6

    /// The environment variable that may lower the detected ABI, for tests of the refusal
    /// path (for example `OPENEVENTKIT_LANDLOCK_ABI_LIMIT=5`). It never raises it; a value
    /// that is not a non-negative integer is ignored.
    package static let abiLimitVariable = "OPENEVENTKIT_LANDLOCK_ABI_LIMIT"

    /// The highest ABI the running kernel supports, or 0 when Landlock is missing or disabled.
    ///
    /// The corresponding kernel call is `landlock_create_ruleset` with
    /// `LANDLOCK_CREATE_RULESET_VERSION`.
    package static var kernelABI: Int { LandlockCalls.abi() }

    /// The ABI the sandbox may use in this process: ``kernelABI``, lowered by
    /// ``abiLimitVariable`` in the process's environment. 0 means unavailable.
    package static var abi: Int { abi(in: ProcessInfo.processInfo.environment) }

    /// The ABI the sandbox may use given `environment`: ``kernelABI``, lowered by
    /// ``abiLimitVariable`` when it is set there.
    package static func abi(in environment: [String: String]) -> Int {
        let kernel = kernelABI
        guard let text = environment[abiLimitVariable], let limit = Int(text), limit >= 0 else {
            return kernel
        }
        return min(kernel, limit)
    }

    /// Throws unless the sandbox can run here: the ABI (``abi(in:)``) is at least
    /// ``requiredABI``.
    package static func requireSandbox(environment: [String: String]) throws(SandboxError) {
        let found = abi(in: environment)
        let lowered = found < kernelABI
            ? " (lowered from \(kernelABI) by \(abiLimitVariable))" : ""
        if found == 0 {
            throw SandboxError(
                .landlockUnavailable,
                "Landlock is not available on this kernel (ABI 0\(lowered)): `ical run` cannot "
                    + "sandbox apps here; boot a kernel with Landlock enabled "
                    + "(CONFIG_SECURITY_LANDLOCK=y, and `landlock` in the lsm= boot parameter).")
        }
        if found < requiredABI {
            throw SandboxError(
                .landlockTooOld,
                "Landlock ABI \(found)\(lowered) is too old for `ical run`: it needs ABI "
                    + "\(requiredABI) (Linux 6.12 or later), which keeps apps from connecting to "
                    + "the broker's abstract socket and from signalling other processes; boot a "
                    + "newer kernel.")
        }
    }
}
