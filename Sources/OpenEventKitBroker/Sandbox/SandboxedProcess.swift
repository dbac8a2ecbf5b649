#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif

/// Starts programs under a ``SandboxPolicy`` and waits for them.
///
/// A program is started only once its Landlock ruleset is in force, its capabilities are
/// gone and `no_new_privs` is set; if any step fails, ``spawn(program:arguments:environment:policy:keepDescriptors:workingDirectory:)``
/// throws and the program never runs.
package enum SandboxedProcess {
    /// Starts `program` sandboxed by `policy` and returns its process id; call ``wait(_:)``
    /// to reap it.
    ///
    /// - Parameters:
    ///   - program: a path, or a name looked up in `environment`'s `PATH` as `execvp` does.
    ///   - arguments: the arguments after argument 0 (which is `program` as given).
    ///   - environment: the caller's environment; the app gets it through
    ///     ``AppContainer/environment(from:)`` (its own `HOME`, `TMPDIR` and XDG folders, no
    ///     `OPENEVENTKIT_STORE`). ``Landlock/abiLimitVariable`` is read from it.
    ///   - policy: the rules the program runs under.
    ///   - keepDescriptors: descriptors to pass, keyed by their number in the program, valued
    ///     by the caller's descriptor (for example `[3: brokerSocket]`). Descriptors 0, 1 and 2
    ///     are inherited unless replaced here; every other descriptor is closed.
    ///   - workingDirectory: the program's current folder; the container's `home/` when nil.
    /// - Throws: ``SandboxError`` when Landlock is too old or missing, the program cannot be
    ///   found, or any step of the launch fails (the program then did not run).
    package static func spawn(
        program: String, arguments: [String], environment: [String: String],
        policy: SandboxPolicy, keepDescriptors: [CInt: CInt] = [:],
        workingDirectory: String? = nil
    ) throws(SandboxError) -> pid_t {
        try Landlock.requireSandbox(environment: environment)
        let path = try resolve(program: program, environment: environment)
        let appEnvironment = policy.container.environment(from: environment)
            .map { "\($0.key)=\($0.value)" }.sorted()
        let directory = workingDirectory ?? policy.container.home
        let result = LandlockCalls.spawn(
            path: path, argv: [program] + arguments, environment: appEnvironment,
            workingDirectory: directory,
            rules: policy.rules.map { ($0.path, $0.access == .readWrite) },
            keep: keepDescriptors)
        switch result {
        case .success(let pid):
            return pid
        case .failure(let failure):
            let reason = String(cString: strerror(failure.error))
            if let index = failure.ruleIndex, policy.rules.indices.contains(index) {
                let rule = policy.rules[index]
                throw SandboxError(
                    .launchFailed,
                    "Could not start \(program) in the sandbox: \(failure.stageDescription) failed "
                        + "for the \(rule): \(reason). The app did not run; check that "
                        + "\(rule.path) exists and can be opened, then try again.",
                    path: rule.path, errno: failure.error)
            }
            let advice = failure.isExec
                ? "check that \(path) is an executable the sandbox can read (its folder, the "
                    + "system folders and the container are readable) and that its interpreter "
                    + "and libraries are there too"
                : "this is a problem of the machine or of `ical run`; report it with this message"
            throw SandboxError(
                .launchFailed,
                "Could not start \(program) in the sandbox: \(failure.stageDescription) failed: "
                    + "\(reason). The app did not run; \(advice).",
                path: path, errno: failure.error)
        }
    }

    /// Waits for the sandboxed process `pid` to end and returns its status the way a shell
    /// reports it: its exit code, or 128 plus the number of the signal that ended it.
    ///
    /// The corresponding C function is `waitpid` (retried on `EINTR`).
    package static func wait(_ pid: pid_t) throws(SandboxError) -> Int32 {
        switch LandlockCalls.wait(pid) {
        case .success(let status):
            return status
        case .failure(let failure):
            let code = failure.error
            throw SandboxError(
                .waitFailed,
                "Could not wait for process \(pid): \(String(cString: strerror(code))); wait only "
                    + "once for a process this one started.",
                errno: code)
        }
    }

    /// The absolute path `program` names: itself when it contains a slash (made absolute
    /// against the current folder), else the first executable regular file named so in
    /// `environment`'s `PATH` (empty entries skipped; `/usr/local/bin:/usr/bin:/bin` when
    /// unset), as `execvp` would.
    package static func resolve(program: String, environment: [String: String]) throws(SandboxError) -> String {
        guard !program.isEmpty else {
            throw SandboxError(.programNotFound, "No program given; name the app's executable.")
        }
        if program.contains("/") { return SandboxPolicy.absolute(program) }
        let search = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in search.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + program
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                access(candidate, X_OK) == 0
            {
                return candidate
            }
        }
        throw SandboxError(
            .programNotFound,
            "Cannot find the program \(program) in PATH (\(search)); give its full path.",
            path: program)
    }
}
