#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
internal import CLandlock

/// The one place that calls CLandlock: converts Swift values to C and C results to Swift.
enum LandlockCalls {
    /// Why `clandlock_spawn` failed.
    struct Failure: Error {
        /// The step that failed (`enum clandlock_stage`).
        let stage: Int32
        /// The errno of that step.
        let error: Int32
        /// The rule involved, for the rule stages.
        let ruleIndex: Int?

        /// The step, in words.
        var stageDescription: String {
            switch UInt32(bitPattern: stage) {
            case CLANDLOCK_STAGE_ARGUMENTS.rawValue: "checking the launch's arguments"
            case CLANDLOCK_STAGE_ABI.rawValue: "finding Landlock"
            case CLANDLOCK_STAGE_CREATE_RULESET.rawValue: "creating the Landlock ruleset"
            case CLANDLOCK_STAGE_OPEN_RULE_PATH.rawValue: "opening a rule's path"
            case CLANDLOCK_STAGE_ADD_RULE.rawValue: "adding a rule to the ruleset"
            case CLANDLOCK_STAGE_PIPE.rawValue: "creating the launch's error pipe"
            case CLANDLOCK_STAGE_FORK.rawValue: "forking"
            case CLANDLOCK_STAGE_DESCRIPTORS.rawValue: "passing the kept descriptors"
            case CLANDLOCK_STAGE_CLOSE_DESCRIPTORS.rawValue: "closing the other descriptors"
            case CLANDLOCK_STAGE_CHDIR.rawValue: "changing to the working folder"
            case CLANDLOCK_STAGE_CAPABILITIES.rawValue: "dropping capabilities"
            case CLANDLOCK_STAGE_NO_NEW_PRIVS.rawValue: "setting no_new_privs"
            case CLANDLOCK_STAGE_RESTRICT.rawValue: "applying the Landlock ruleset"
            case CLANDLOCK_STAGE_EXEC.rawValue: "executing the program"
            case CLANDLOCK_STAGE_SIGNALS.rawValue: "resetting signals"
            case CLANDLOCK_STAGE_SESSION.rawValue: "starting a session of its own"
            default: "step \(stage)"
            }
        }

        /// Whether the step is executing the program (the usual cause: a wrong program).
        var isExec: Bool { UInt32(bitPattern: stage) == CLANDLOCK_STAGE_EXEC.rawValue }
    }

    /// The running kernel's Landlock ABI, 0 when missing. The corresponding C function is
    /// `clandlock_abi`.
    static func abi() -> Int { Int(clandlock_abi()) }

    /// Starts `path` sandboxed. `argv` includes argument 0; `environment` holds `KEY=value`
    /// strings; `rules` pairs a path with whether it is writable; `keep` maps child descriptor
    /// numbers to the parent's descriptors. The corresponding C function is `clandlock_spawn`.
    static func spawn(
        path: String, argv: [String], environment: [String], workingDirectory: String?,
        rules: [(path: String, writable: Bool)], keep: [CInt: CInt]
    ) -> Result<pid_t, Failure> {
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { owned.forEach { free($0) } }
        func copy(_ text: String) -> UnsafeMutablePointer<CChar>? {
            guard let pointer = strdup(text) else { return nil }
            owned.append(pointer)
            return pointer
        }
        let cPath = copy(path)
        let cArgv = argv.map(copy) + [nil]
        let cEnvironment = environment.map(copy) + [nil]
        let cDirectory = workingDirectory.flatMap(copy)
        let cRulePaths = rules.map { copy($0.path) }
        guard cPath != nil, !cArgv.dropLast().contains(where: { $0 == nil }),
            !cEnvironment.dropLast().contains(where: { $0 == nil }),
            !cRulePaths.contains(where: { $0 == nil }),
            workingDirectory == nil || cDirectory != nil
        else {
            return .failure(Failure(stage: Int32(CLANDLOCK_STAGE_ARGUMENTS.rawValue), error: ENOMEM, ruleIndex: nil))
        }
        var cRules = zip(cRulePaths, rules).map { pointer, rule in
            clandlock_rule(
                path: UnsafePointer(pointer),
                access: Int32(rule.writable ? CLANDLOCK_READ_WRITE.rawValue : CLANDLOCK_READ_ONLY.rawValue))
        }
        var pairs = keep.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        var failure = clandlock_failure(stage: 0, error: 0, rule_index: -1)
        let pid = cArgv.withUnsafeBufferPointer { argvBuffer in
            cEnvironment.withUnsafeBufferPointer { environmentBuffer in
                cRules.withUnsafeMutableBufferPointer { rulesBuffer in
                    pairs.withUnsafeMutableBufferPointer { pairsBuffer in
                        clandlock_spawn(
                            cPath, argvBuffer.baseAddress, environmentBuffer.baseAddress, cDirectory,
                            rulesBuffer.baseAddress, Int32(rulesBuffer.count),
                            pairsBuffer.baseAddress, Int32(keep.count), &failure)
                    }
                }
            }
        }
        if pid > 0 { return .success(pid) }
        return .failure(Failure(
            stage: failure.stage, error: failure.error,
            ruleIndex: failure.rule_index >= 0 ? Int(failure.rule_index) : nil))
    }

    /// Waits for `pid` and returns its status as a shell reports it (exit code, or 128 plus the
    /// signal), or the errno of waitpid. The corresponding C function is `clandlock_wait`.
    static func wait(_ pid: pid_t) -> Result<Int32, WaitFailure> {
        let status = clandlock_wait(pid)
        return status >= 0 ? .success(status) : .failure(WaitFailure(error: errno))
    }

    /// Why waitpid failed.
    struct WaitFailure: Error {
        /// The errno of waitpid.
        let error: Int32
    }
}
