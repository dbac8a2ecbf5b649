#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import OpenEventKitBroker

/// A temporary world for one test: a store with a secret, a fake HOME holding the app's
/// container, and a folder outside both.
private struct SandboxWorld {
    let root: String
    let store: String
    let secret: String
    let secretText: String
    let outside: String
    let environment: [String: String]
    let container: AppContainer
    let policy: SandboxPolicy

    init(program: String = "/bin/sh", extraRules: [SandboxPolicy.Rule] = []) throws {
        let template = FileManager.default.temporaryDirectory.path + "/oek-sandbox-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw CocoaError(.fileWriteUnknown) }
        root = SandboxPolicy.resolvedForTests(String(cString: made))
        store = root + "/store"
        secret = store + "/secret.ics"
        secretText = "SECRET-" + UUID().uuidString
        outside = root + "/outside"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try secretText.write(toFile: secret, atomically: false, encoding: .utf8)
        environment = [
            "PATH": "/usr/bin:/bin", "HOME": root + "/home", "LANG": "C",
            "OPENEVENTKIT_STORE": store, "STORE_DIR": store, "SECRET": secret,
            "OUTSIDE": outside, "TEST_PID": String(getpid()),
        ]
        container = try AppContainer(bundleIdentifier: "org.example.SandboxTest", environment: environment)
        policy = try SandboxPolicy(
            container: container, executable: program, forbidden: [store], extraRules: extraRules)
    }

    /// Runs `/bin/sh -c script` in the sandbox; returns its status and its stdout+stderr.
    func run(
        _ script: String, program: String = "/bin/sh", arguments: [String]? = nil,
        workingDirectory: String? = nil, extraEnvironment: [String: String] = [:],
        keep: [CInt: CInt] = [:]
    ) throws -> (status: Int32, output: String) {
        var ends: [CInt] = [-1, -1]
        guard makePipe(&ends) else { throw CocoaError(.fileWriteUnknown) }
        var descriptors = keep
        descriptors[1] = ends[1]
        descriptors[2] = ends[1]
        let pid: pid_t
        do {
            pid = try SandboxedProcess.spawn(
                program: program, arguments: arguments ?? ["-c", script],
                environment: environment.merging(extraEnvironment) { $1 }, policy: policy,
                keepDescriptors: descriptors, workingDirectory: workingDirectory)
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output += buffer[..<count]
        }
        close(ends[0])
        let status = try SandboxedProcess.wait(pid)
        return (status, String(decoding: output, as: UTF8.self))
    }

    /// The store is as it was made: the secret alone, unchanged.
    func expectStoreIntact(sourceLocation: SourceLocation = #_sourceLocation) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []
        #expect(names == ["secret.ics"], sourceLocation: sourceLocation)
        #expect((try? String(contentsOfFile: secret, encoding: .utf8)) == secretText, sourceLocation: sourceLocation)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

extension SandboxPolicy {
    fileprivate static func resolvedForTests(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}

/// A pipe whose two ends are close-on-exec (the sandbox's launch clears the flag on the
/// descriptors it passes).
private func makePipe(_ ends: inout [CInt]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return true
}

/// Expects `body` to throw a SandboxError of `code`, and returns it.
@discardableResult
private func expectSandboxError<R>(
    _ code: SandboxError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> SandboxError? {
    do {
        _ = try body()
        Issue.record("expected SandboxError \(code), got no error", sourceLocation: sourceLocation)
    } catch let error as SandboxError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected SandboxError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

private let landlockReady = Landlock.kernelABI >= Landlock.requiredABI

@Suite(
    "The sandbox of `ical run`",
    .enabled(if: landlockReady, "Landlock ABI \(Landlock.kernelABI) on this kernel; the sandbox needs ABI 6"))
struct SandboxTests {
    @Test("The store cannot be read by absolute or relative path")
    func storeIsUnreadable() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        let absolute = try world.run(#"cat "$SECRET""#)
        #expect(absolute.status != 0)
        #expect(!absolute.output.contains(world.secretText))
        let relative = try world.run("cat ../store/secret.ics", workingDirectory: world.outside)
        #expect(relative.status != 0)
        #expect(!relative.output.contains(world.secretText))
        let listing = try world.run(#"ls "$STORE_DIR""#)
        #expect(listing.status != 0)
        #expect(!listing.output.contains("secret.ics"))
    }

    @Test("The store cannot be written, created in, renamed in or unlinked from")
    func storeIsUnwritable() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        for script in [
            #"echo x > "$SECRET""#, #"echo x >> "$SECRET""#, #": > "$SECRET""#,
            #"touch "$STORE_DIR/new.ics""#, #"mkdir "$STORE_DIR/folder""#,
            #"mv "$SECRET" "$STORE_DIR/renamed.ics""#, #"rm -f "$SECRET""#,
            #"mv "$SECRET" "$HOME/stolen.ics""#, #"ln -s /etc/passwd "$STORE_DIR/link""#,
        ] {
            let result = try world.run(script)
            #expect(result.status != 0, "\(script) succeeded: \(result.output)")
        }
        world.expectStoreIntact()
    }

    @Test("Links made in the container do not reach the store")
    func linksDoNotReachTheStore() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        let symbolic = try world.run(#"ln -s "$SECRET" "$HOME/link" || exit 3; cat "$HOME/link" && exit 0; exit 4"#)
        #expect(symbolic.status == 4, "\(symbolic.output)")
        #expect(!symbolic.output.contains(world.secretText))
        let hard = try world.run(#"ln "$SECRET" "$HOME/hard" || exit 5; cat "$HOME/hard"; exit 0"#)
        #expect(hard.status == 5, "\(hard.output)")
        #expect(!hard.output.contains(world.secretText))
        world.expectStoreIntact()
    }

    @Test("/proc does not open the test process's root or descriptors")
    func procIsClosedForOtherProcesses() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        let descriptor = open(world.secret, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let viaRoot = try world.run(#"cat "/proc/$TEST_PID/root$SECRET""#)
        #expect(viaRoot.status != 0)
        #expect(!viaRoot.output.contains(world.secretText))
        let viaDescriptor = try world.run(#"cat "/proc/$TEST_PID/fd/$FD""#, extraEnvironment: ["FD": String(descriptor)])
        #expect(viaDescriptor.status != 0)
        #expect(!viaDescriptor.output.contains(world.secretText))
        let viaCwd = try world.run(#"ls "/proc/$TEST_PID/cwd/""#)
        #expect(viaCwd.status != 0)
        // /proc itself stays readable: the app's own entries work.
        let own = try world.run("cat /proc/self/status")
        #expect(own.status == 0)
        #expect(own.output.contains("NoNewPrivs:\t1"))
        #expect(own.output.contains("CapEff:\t0000000000000000"))
        #expect(own.output.contains("CapBnd:\t0000000000000000"))
        #expect(own.output.contains("CapPrm:\t0000000000000000"))
        #expect(own.output.contains("CapInh:\t0000000000000000"))
        #expect(own.output.contains("CapAmb:\t0000000000000000"))
    }

    @Test("User and mount namespaces do not open the store, and mount fails")
    func namespacesAndMountsDoNotHelp() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        for script in [
            #"unshare -U -m sh -c 'cat "$SECRET"'"#,
            #"unshare -r sh -c 'cat "$SECRET"'"#,
            #"unshare -r -m sh -c 'mount --bind "$STORE_DIR" "$HOME" && cat "$HOME/secret.ics"'"#,
        ] {
            let result = try world.run(script)
            #expect(result.status != 0, "\(script): \(result.output)")
            #expect(!result.output.contains(world.secretText), "\(script)")
        }
        // A user namespace the app can make (no uid map: /proc is read-only), with full
        // capabilities inside it, still neither opens the store nor mounts.
        let inside = try world.run(#"unshare -U -m --propagation unchanged sh -c 'echo entered; cat "$SECRET"; mkdir -p "$HOME/u" && mount -t tmpfs none "$HOME/u" && echo mounted'"#)
        #expect(inside.output.hasPrefix("entered"), "\(inside.output)")
        #expect(!inside.output.contains(world.secretText))
        #expect(!inside.output.contains("mounted"))
        let mounts = try world.run(#"mkdir -p "$HOME/m" && { mount -t tmpfs none "$HOME/m" || mount --bind "$STORE_DIR" "$HOME/m"; }"#)
        #expect(mounts.status != 0, "\(mounts.output)")
        let namespaced = try world.run(#"mkdir -p "$HOME/n" && unshare -r -m mount -t tmpfs none "$HOME/n""#)
        #expect(namespaced.status != 0, "\(namespaced.output)")
        world.expectStoreIntact()
    }

    @Test("Signals to processes outside the sandbox are refused")
    func signalsAreScoped() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        let outside = try world.run(#"kill -0 "$TEST_PID""#)
        #expect(outside.status != 0)
        let itself = try world.run(#"kill -0 $$"#)
        #expect(itself.status == 0)
    }

    @Test("Abstract UNIX sockets outside the sandbox cannot be reached")
    func abstractSocketsAreScoped() throws {
        let world = try SandboxWorld(program: "/usr/bin/python3")
        defer { world.remove() }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        let name = Array("oek-sandbox-test-\(UUID().uuidString)".utf8)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path[0] = 0  // abstract: a leading NUL, no file
            for (index, byte) in name.enumerated() { path[index + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        try #require(bound == 0)
        try #require(listen(listener, 4) == 0)
        let script = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect("\\0" + os.environ["SOCKET_NAME"])
            except OSError as error:
                print("refused", error.strerror); sys.exit(4)
            print("connected"); sys.exit(0)
            """
        let result = try world.run(
            "", program: "/usr/bin/python3", arguments: ["-c", script],
            extraEnvironment: ["SOCKET_NAME": String(decoding: name, as: UTF8.self)])
        #expect(result.status == 4, "\(result.output)")
        #expect(result.output.contains("Operation not permitted"), "\(result.output)")
    }

    @Test("The system is readable, the container writable, the rest of /tmp not")
    func allowedAndDeniedPaths() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        let system = try world.run("ls /usr/bin > /dev/null && cat /etc/passwd > /dev/null && head -c 8 /dev/urandom > /dev/null")
        #expect(system.status == 0, "\(system.output)")
        let container = try world.run(#"echo hello > "$HOME/note" && cat "$HOME/note" && mkdir "$TMPDIR/t" && mv "$HOME/note" "$TMPDIR/t/" && rm -r "$TMPDIR/t""#)
        #expect(container.status == 0, "\(container.output)")
        #expect(container.output == "hello\n")
        let environment = try world.run(#"echo "$HOME|$TMPDIR|$XDG_CONFIG_HOME|${OPENEVENTKIT_STORE-unset}""#)
        #expect(environment.output == "\(world.container.home)|\(world.container.temporary)|\(world.container.home)/.config|unset\n")
        let probe = "/tmp/oek-sandbox-probe-\(UUID().uuidString)"
        let temporary = try world.run(#"touch "$PROBE""#, extraEnvironment: ["PROBE": probe])
        #expect(temporary.status != 0)
        #expect(!FileManager.default.fileExists(atPath: probe))
        let outside = try world.run(#"touch "$OUTSIDE/x""#)
        #expect(outside.status != 0)
        #expect(!FileManager.default.fileExists(atPath: world.outside + "/x"))
    }

    @Test("The program's exit status comes back as a shell reports it")
    func exitStatusIsPassedThrough() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        #expect(try world.run("exit 0").status == 0)
        #expect(try world.run("exit 42").status == 42)
        #expect(try world.run("kill -TERM $$").status == 128 + SIGTERM)
    }

    @Test("Kept descriptors reach the program under their new numbers; others do not")
    func keptDescriptors() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        let secretDescriptor = open(world.secret, O_RDONLY)  // not close-on-exec on purpose
        try #require(secretDescriptor >= 0)
        defer { close(secretDescriptor) }
        var ends: [CInt] = [-1, -1]
        try #require(makePipe(&ends))
        defer { close(ends[0]); close(ends[1]) }
        try #require(write(ends[1], "hi", 2) == 2)
        close(ends[1])
        ends[1] = -1
        let result = try world.run(
            #"cat <&7; ls /proc/self/fd/ | sort -n | tr '\n' ' '"#, keep: [7: ends[0]])
        #expect(result.output.hasPrefix("hi"))
        #expect(!result.output.contains(world.secretText))
        // 0 1 2, fd 7, and the descriptor ls opens for the listing (3).
        #expect(result.output.hasSuffix("0 1 2 3 7 "), "\(result.output)")
    }

    @Test("A failure before exec is an error, never an unsandboxed run")
    func failuresBeforeExecAreErrors() throws {
        let extra = FileManager.default.temporaryDirectory.path + "/oek-sandbox-gone-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: extra, withIntermediateDirectories: true)
        let world = try SandboxWorld(extraRules: [.init(path: extra, access: .readOnly, reason: "a test")])
        defer { world.remove() }
        try FileManager.default.removeItem(atPath: extra)
        expectSandboxError(SandboxError.Code.launchFailed) { try world.run("exit 0") }
        if let error = expectSandboxError(.launchFailed, { try world.run("exit 0") }) {
            #expect(error.path?.hasSuffix(URL(fileURLWithPath: extra).lastPathComponent) == true)
            #expect(error.description.contains("did not run"))
        }
    }

    @Test("A missing or unusable program is an error")
    func badProgramsAreErrors() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        expectSandboxError(SandboxError.Code.launchFailed) {
            try world.run("", program: world.root + "/no-such-program", arguments: [])
        }
        expectSandboxError(SandboxError.Code.launchFailed) {
            try world.run("", program: world.secret, arguments: [])  // not executable, not readable
        }
        expectSandboxError(SandboxError.Code.programNotFound) {
            try world.run("", program: "no-such-program-\(UUID().uuidString)", arguments: [])
        }
        let found = try world.run("", program: "sh", arguments: ["-c", "exit 7"])
        #expect(found.status == 7)
    }

    @Test("open_by_handle_at cannot reopen the store")
    func openByHandleIsRefused() throws {
        let world = try SandboxWorld(program: "/usr/bin/python3")
        defer { world.remove() }
        let script = """
            import ctypes, os, sys
            libc = ctypes.CDLL(None, use_errno=True)
            class Handle(ctypes.Structure):
                _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("f", ctypes.c_ubyte * 128)]
            h = Handle(); h.bytes = 128; mount_id = ctypes.c_int()
            if libc.name_to_handle_at(-100, os.environ["SECRET"].encode(), ctypes.byref(h), ctypes.byref(mount_id), 0) != 0:
                print("name_to_handle_at", os.strerror(ctypes.get_errno())); sys.exit(3)
            mount_fd = os.open(os.environ["HOME"], os.O_RDONLY | os.O_DIRECTORY)  # same file system
            fd = libc.open_by_handle_at(mount_fd, ctypes.byref(h), os.O_RDONLY)
            if fd < 0:
                print("open_by_handle_at", os.strerror(ctypes.get_errno())); sys.exit(4)
            print(os.read(fd, 100).decode()); sys.exit(0)
            """
        let result = try world.run("", program: "/usr/bin/python3", arguments: ["-c", script])
        #expect(result.status == 4, "\(result.output)")
        #expect(result.output.contains("Operation not permitted"), "\(result.output)")
        #expect(!result.output.contains(world.secretText))
    }

    @Test("With Landlock limited to ABI 5, the sandbox refuses to start apps")
    func olderABIIsRefused() throws {
        let world = try SandboxWorld()
        defer { world.remove() }
        #expect(Landlock.abi(in: [Landlock.abiLimitVariable: "5"]) == 5)
        #expect(Landlock.abi(in: [Landlock.abiLimitVariable: "99"]) == Landlock.kernelABI)
        if let error = expectSandboxError(.landlockTooOld, {
            try world.run("exit 0", extraEnvironment: [Landlock.abiLimitVariable: "5"])
        }) {
            #expect(error.description.contains("ABI 5"))
            #expect(error.description.contains("ABI 6"))
        }
        expectSandboxError(SandboxError.Code.landlockUnavailable) {
            try world.run("exit 0", extraEnvironment: [Landlock.abiLimitVariable: "0"])
        }
    }
}

@Suite("Sandbox policies and containers")
struct SandboxPolicyTests {
    private func temporaryRoot() throws -> String {
        let path = FileManager.default.temporaryDirectory.path + "/oek-policy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return SandboxPolicy.resolvedForTests(path)
    }

    @Test("Bundle identifiers must be one safe path component", arguments: [
        "../x", "..", ".", "", ".hidden", "a/b", "/abs", "a\u{0}b", "a\nb", "a\u{7F}b",
    ])
    func unsafeBundleIdentifiers(identifier: String) {
        expectSandboxError(SandboxError.Code.invalidBundleIdentifier) {
            try AppContainer(bundleIdentifier: identifier, environment: ["HOME": "/tmp/nowhere"])
        }
    }

    @Test("The container lives under XDG_DATA_HOME, else HOME/.local/share, and is private")
    func containerPlacement() throws {
        let root = try temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let viaHome = try AppContainer(bundleIdentifier: "org.example.A", environment: ["HOME": root])
        #expect(viaHome.path == root + "/.local/share/openeventkit-apps/org.example.A")
        let viaXDG = try AppContainer(
            bundleIdentifier: "org.example.A", environment: ["HOME": "/nowhere", "XDG_DATA_HOME": root + "/data/"])
        #expect(viaXDG.path == root + "/data/openeventkit-apps/org.example.A")
        try viaXDG.create()
        for folder in [viaXDG.path, viaXDG.home, viaXDG.temporary, root + "/data/openeventkit-apps"] {
            var info = stat()
            #expect(stat(folder, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700, "\(folder)")
        }
        expectSandboxError(SandboxError.Code.containerUnavailable) {
            try AppContainer(bundleIdentifier: "org.example.A", environment: [:])
        }
    }

    @Test("A store inside an allowed folder, or around one, is refused")
    func storeMustStayOutside() throws {
        let root = try temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let app = root + "/app"
        try FileManager.default.createDirectory(atPath: app + "/store", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: app + "/prog", contents: Data())
        let container = try AppContainer(bundleIdentifier: "org.example.A", environment: ["HOME": root + "/home"])
        // The store under the app's own folder.
        if let error = expectSandboxError(.storeNotIsolated, {
            try SandboxPolicy(container: container, executable: app + "/prog", forbidden: [app + "/store"])
        }) {
            #expect(error.description.contains("the app's folder"))
            #expect(error.description.contains("Move the store"))
        }
        // The same, through a symbolic link to the app's folder.
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: app)
        expectSandboxError(SandboxError.Code.storeNotIsolated) {
            try SandboxPolicy(container: container, executable: app + "/prog", forbidden: [root + "/link/store"])
        }
        // A store that does not exist yet, inside the container.
        expectSandboxError(SandboxError.Code.storeNotIsolated) {
            try SandboxPolicy(container: container, executable: "/bin/sh", forbidden: [container.home + "/later/store"])
        }
        // The app inside the store.
        expectSandboxError(SandboxError.Code.storeNotIsolated) {
            try SandboxPolicy(container: container, executable: app + "/prog", forbidden: [root])
        }
        // A system folder as the store.
        expectSandboxError(SandboxError.Code.storeNotIsolated) {
            try SandboxPolicy(container: container, executable: "/bin/sh", forbidden: ["/etc/openeventkit"])
        }
        // A store beside the app is fine.
        let policy = try SandboxPolicy(container: container, executable: app + "/prog", forbidden: [root + "/store"])
        #expect(policy.rules.contains { $0.path == app && $0.access == .readOnly })
        #expect(policy.rules.contains { $0.path == container.path && $0.access == .readWrite })
        #expect(!policy.rules.contains { $0.path == "/" || $0.path == "/tmp" || $0.path == "/sys" })
    }
}
