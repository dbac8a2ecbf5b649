internal import CLandlock
import Foundation
import OpenEventKit

/// `ical run`: starts an app in its sandbox with a socket to the store's broker, and shows
/// the broker's prompts and UI helpers for it on this terminal until the app exits.
///
/// In order: Landlock must be there (ABI 6 or later: else a ``SandboxError`` and no app);
/// the manifest is read (its errors name the file); the app's container and rules are made,
/// refusing a store that any rule would open; the store's broker is found, or started (`ical
/// broker`, detached, ending when idle); a socket pair is made and its broker end passed to
/// the broker with the manifest's path; the app starts in the sandbox with the other end as
/// descriptor 3 (``BrokerWire/descriptorVariable``).
package struct AppLauncher {
    /// The app's manifest (Info.plist).
    package var manifestPath: String
    /// The program and its arguments.
    package var program: String
    package var arguments: [String]
    /// The store folder.
    package var storeRoot: String
    /// This `ical` (started as the broker and the UI helpers).
    package var icalPath: String
    /// The environment the app's is made from.
    package var environment: [String: String]

    package init(manifestPath: String, program: String, arguments: [String], storeRoot: String, icalPath: String,
                 environment: [String: String]) {
        self.manifestPath = manifestPath
        self.program = program
        self.arguments = arguments
        self.storeRoot = storeRoot
        self.icalPath = icalPath
        self.environment = environment
    }

    /// What stopped the launch, for a person: what is wrong and what to do.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// Launches the app and waits for it; its exit status as a shell reports it.
    package func run() throws -> Int32 {
        try Landlock.requireSandbox(environment: environment)
        let manifest = try AppManifest(contentsOfFile: manifestPath)
        let absoluteManifest = URL(fileURLWithPath: manifestPath).standardizedFileURL.path
        let store = try FolderStore.open(at: storeRoot)
        let container = try AppContainer(bundleIdentifier: manifest.bundleIdentifier, environment: environment)
        let executable = try SandboxedProcess.resolve(program: program, environment: environment)
        // The app may read its own manifest and entitlements, as an app reads its bundle.
        var ownFiles = [SandboxPolicy.Rule(path: absoluteManifest, access: .readOnly, reason: "the app's manifest")]
        if let entitlements = manifest.entitlements.path {
            ownFiles.append(SandboxPolicy.Rule(path: URL(fileURLWithPath: entitlements).standardizedFileURL.path, access: .readOnly,
                                               reason: "the app's entitlements"))
        }
        let policy = try SandboxPolicy(container: container, executable: executable, forbidden: [store.root], extraRules: ownFiles)

        let broker = try connectToBroker(store: store)
        let (appEnd, brokerEnd) = try FrameChannel.pair()
        guard cbroker_send_descriptor(broker.descriptor, brokerEnd.descriptor) == 0 else {
            throw Failure("cannot pass the app's socket to the broker: \(String(cString: strerror(errno)))")
        }
        brokerEnd.closeDescriptor()   // the broker has its copy
        try broker.send(.launch(version: BrokerWire.version, manifest: absoluteManifest))
        switch try broker.receiveLauncherMessage(idle: 30) {
        case .launched?: break
        case .refused(let why)?: throw Failure("the broker refused the app: \(why)")
        default: throw Failure("the broker did not answer the launch")
        }

        var appEnvironment = environment
        appEnvironment[BrokerWire.descriptorVariable] = "3"
        appEnvironment[AppManifest.environmentVariable] = absoluteManifest
        let pid = try SandboxedProcess.spawn(program: executable, arguments: arguments, environment: appEnvironment,
                                             policy: policy, keepDescriptors: [3: appEnd.descriptor])
        appEnd.closeDescriptor()   // the app has its copy
        // The app has a session of its own (no controlling terminal): the terminal's signals
        // come to this launcher, which passes them on.
        let forwarded = [SIGINT, SIGTERM, SIGHUP, SIGQUIT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // While a UI helper has the terminal, Control-C is the helper's alone (as when
                // the app runs the helper itself and ignores SIGINT meanwhile).
                if (number == SIGINT || number == SIGQUIT) && HelperRun.isRunning { return }
                _ = kill(pid, number)
            }
            source.resume()
            return source
        }
        defer { for source in forwarded { source.cancel() } }
        let served = Thread { serve(broker, store: store) }
        served.start()
        let status = try SandboxedProcess.wait(pid)
        broker.close()
        return status
    }

    /// The broker of `store`, started when none answers.
    private func connectToBroker(store: FolderStore) throws -> FrameChannel {
        let name: String
        do { name = try BrokerDaemon.address(for: store.root) } catch { throw Failure(error.description) }
        var descriptor = cbroker_connect_abstract(name)
        if descriptor >= 0 { return try verifiedBroker(descriptor, name: name) }
        try startBroker(store: store)
        let deadline = Deadline(seconds: 10)
        while !deadline.hasPassed {
            descriptor = cbroker_connect_abstract(name)
            if descriptor >= 0 { return try verifiedBroker(descriptor, name: name) }
            usleep(20_000)
        }
        throw Failure("the broker for \(store.root) did not start within 10 seconds: run `ical broker --store \(store.root)` to see why")
    }

    /// The connection, once its peer is a broker this launcher trusts: a process of this user
    /// running this `ical` (the same check the broker makes of its launchers). Anyone may bind
    /// the abstract name while no broker holds it, a sandboxed app included (Landlock scopes
    /// connecting out of the sandbox, not binding); such a squatter would be handed the app's
    /// socket and could ask this launcher for prompts and helpers. A sandboxed `ical broker`
    /// cannot open the store, so it never listens.
    private func verifiedBroker(_ descriptor: Int32, name: String) throws -> FrameChannel {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        guard cbroker_peer(descriptor, &pid, &uid, &gid) == 0, uid == getuid(), BrokerDaemon.runsThisExecutable(pid) else {
            close(descriptor)
            throw Failure("the process listening on the broker's socket @\(name) (process \(pid), user \(uid)) is not this ical's broker "
                + "(another program, or a broker of an ical since replaced by an upgrade); stop it (kill \(pid)) and run again")
        }
        return FrameChannel(descriptor: descriptor)
    }

    /// Starts `ical broker` for the store, detached: its own session, no terminal, and none of
    /// this process's descriptors (a caller reading `ical run`'s output to its end must not
    /// wait for the broker too).
    private func startBroker(store: FolderStore) throws {
        let arguments = [icalPath, "broker", "--store", store.root]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environ: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in environ { free(pointer) } }
        let pid = cbroker_spawn_detached(icalPath, &argv, &environ)
        guard pid > 0 else { throw Failure("cannot start the broker (\(icalPath) broker): \(String(cString: strerror(errno)))") }
        // The broker runs on when this launcher ends; a thread reaps it if it exits first.
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }

    /// Answers the broker's prompts and helper calls on this terminal until the connection ends.
    private func serve(_ broker: FrameChannel, store: FolderStore) {
        while true {
            guard let message = try? broker.receiveLauncherMessage() else { return }
            switch message {
            case let .prompt(id, question):
                let answer = question.question.map { TerminalPrompt().ask($0) } ?? .unanswered
                let text = switch answer { case .allow: "allow"; case .deny: "deny"; case .unanswered: "unanswered" }
                try? broker.send(.answer(id: id, answer: text))
            case let .runHelper(id, arguments, input):
                // Only the ui helpers, whatever the broker asks (defense in depth).
                guard arguments.count >= 2, arguments[0] == "ui", ["edit-event", "choose-calendar", "view-event"].contains(arguments[1]) else {
                    try? broker.send(.helperResult(id: id, output: "", status: 1, signal: nil))
                    continue
                }
                let outcome = HelperRun.run(icalPath, arguments, input: input, environment: environment)
                try? broker.send(.helperResult(id: id, output: outcome.output, status: outcome.status, signal: outcome.signal))
            default:
                continue
            }
        }
    }
}
