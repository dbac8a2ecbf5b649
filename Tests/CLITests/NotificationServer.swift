import Foundation
import Testing

/// A real desktop notification server for tests: a private D-Bus session bus (`dbus-daemon`),
/// a virtual X server (`Xvfb`) and `dunst` on it, all in a fresh temporary folder, stopped by
/// ``stop()`` (or when the value goes away). Nothing touches the developer's session or home
/// folder: the children's `HOME` and `XDG_*` folders are the temporary folder.
///
/// ```swift
/// let server = try NotificationServer()
/// defer { server.stop() }
/// let notifications = try DesktopNotifications(address: server.address)
/// … try server.invokeAction("snooze")   // as if the user chose Snooze in dunst's menu
/// ```
///
/// What is on screen and in dunst's history is read with `dunstctl`; actions are chosen
/// through dunst's context menu (`dunstctl context`), whose `dmenu` command is a script of the
/// folder that picks the line of the wanted action. dunst 1.9's menu lines read
/// `#Label (Summary) [id,key]`. When `dbus-daemon`, `Xvfb`, `dunst` or `dunstctl` is missing,
/// `init` throws (`make test` installs them through `scripts/deps.sh`).
final class NotificationServer {
    /// Why the server could not be started or asked.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A notification dunst received (recorded by a dunst rule's script when it was shown),
    /// and whether it is still on screen.
    struct Notification: Equatable, Sendable {
        var id: UInt32
        var appName: String
        var summary: String
        var body: String
        /// The `category` hint, empty when none.
        var category: String
        /// dunst's name of the urgency: `LOW`, `NORMAL` or `CRITICAL`.
        var urgency: String
        /// The `desktop-entry` hint, empty when none.
        var desktopEntry: String
        /// On screen (not closed and not in dunst's history).
        var displayed: Bool
    }

    /// An action of a notification on screen, as dunst's context menu lists it.
    struct Action: Equatable, Sendable {
        var id: UInt32
        var key: String
        var label: String
    }

    /// The temporary folder: configuration, sockets, logs (`*.log`), and the children's home.
    let folder: URL
    /// The private bus's address, for `DBUS_SESSION_BUS_ADDRESS`.
    let address: String
    /// The X display dunst draws on (`:N`).
    let display: String
    /// The environment the children run in: `DBUS_SESSION_BUS_ADDRESS`, `DISPLAY`, `HOME`,
    /// `XDG_*` (all in ``folder``), `PATH`, `LANG` and `TZ`. Use it for any client that should
    /// talk to this server (`ical alarms watch`).
    let environment: [String: String]

    private var bus: Process?
    private var xServer: Process?
    private var dunst: Process?
    private var stopped = false

    /// The tools the server needs, and the package that brings each.
    static let tools = ["dbus-daemon": "dbus-daemon", "dbus-send": "dbus-bin", "Xvfb": "xvfb",
                        "dunst": "dunst", "dunstctl": "dunst"]

    /// Starts the bus, the X server and, when `startsDunst`, dunst; returns once dunst owns
    /// `org.freedesktop.Notifications` (at most 10 s), else throws.
    init(startsDunst: Bool = true) throws {
        var paths: [String: String] = [:]
        for (tool, package) in Self.tools.sorted(by: { $0.key < $1.key }) {
            guard let path = Self.which(tool) else {
                throw Failure(description: "\(tool) is not installed (Debian package \(package)); `make test` installs it "
                    + "(sh scripts/deps.sh dunst Xvfb:xvfb dbus-daemon:dbus-daemon dbus-send:dbus-bin)")
            }
            paths[tool] = path
        }
        // /tmp rather than $TMPDIR: the bus socket's path must fit in sockaddr_un (108 bytes).
        var template = Array("/tmp/oek-notifications.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        let folder = URL(fileURLWithPath: String(cString: made))
        self.folder = folder
        var cleanUp = true
        defer { if cleanUp { try? FileManager.default.removeItem(at: folder) } }
        let runtime = folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try Self.writeConfiguration(in: folder)

        var base = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC", "HOME": folder.path,
            "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
            "XDG_DATA_HOME": folder.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path,
            "XDG_RUNTIME_DIR": runtime.path,
        ]
        let bus = try Self.start(paths["dbus-daemon"]!, ["--config-file=\(folder.path)/session.conf", "--nofork",
                                                        "--print-address=1"],
                                 environment: base, log: folder.appendingPathComponent("dbus-daemon.log"))
        self.bus = bus.process
        guard let address = bus.firstLine, address.hasPrefix("unix:") else {
            bus.process.terminate()
            throw Failure(description: "dbus-daemon did not start: \(Self.log(folder, "dbus-daemon.log"))")
        }
        self.address = address
        let xServer = try Self.start(paths["Xvfb"]!, ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "1024x768x24"],
                                     environment: base, log: folder.appendingPathComponent("Xvfb.log"))
        self.xServer = xServer.process
        guard let number = xServer.firstLine, Int(number) != nil else {
            xServer.process.terminate()
            bus.process.terminate()
            throw Failure(description: "Xvfb did not start: \(Self.log(folder, "Xvfb.log"))")
        }
        display = ":" + number
        base["DISPLAY"] = display
        base["DBUS_SESSION_BUS_ADDRESS"] = address
        environment = base
        cleanUp = false
        if startsDunst { try startDunst(path: paths["dunst"]!) }
    }

    /// Stops everything and removes the folder.
    deinit { stop() }

    /// Stops dunst, Xvfb and the bus, and removes the folder; later calls do nothing.
    ///
    /// They are killed (SIGKILL): they keep nothing worth a graceful end, and Xvfb alone takes
    /// 2 s to end on SIGTERM. Xvfb's lock file and socket for its display go with it.
    func stop() {
        guard !stopped else { return }
        stopped = true
        for process in [dunst, xServer, bus].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        for process in [dunst, xServer, bus].compactMap({ $0 }) { process.waitUntilExit() }
        if let xServer, let number = Int(display.dropFirst()) {
            let lock = "/tmp/.X\(number)-lock"
            let owner = (try? String(contentsOfFile: lock, encoding: .utf8))?.trimmingCharacters(in: .whitespaces)
            if owner.flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) == xServer.processIdentifier {
                unlink(lock)
                unlink("/tmp/.X11-unix/X\(number)")
            }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Stops dunst only, as when the notification server goes away with the bus still there.
    func stopNotificationServer() {
        guard let dunst, dunst.isRunning else { return }
        kill(dunst.processIdentifier, SIGKILL)
        dunst.waitUntilExit()
        _ = waitUntil { !((try? self.hasNotificationServer()) ?? true) }
    }

    /// Suspends dunst (SIGSTOP) when `suspended`, else lets it go on (SIGCONT): a suspended
    /// server keeps its name but answers nothing, as a hung one.
    func suspendNotificationServer(_ suspended: Bool) {
        guard let dunst, dunst.isRunning else { return }
        kill(dunst.processIdentifier, suspended ? SIGSTOP : SIGCONT)
    }

    /// Whether a connection owns `org.freedesktop.Notifications` on the bus.
    func hasNotificationServer() throws -> Bool {
        let reply = try tool("dbus-send", ["--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"])
        return reply.contains("boolean true")
    }

    /// The notifications dunst has shown, by id, each marked displayed or not (closed, in its
    /// history).
    func notifications() throws -> [Notification] {
        let history = try historyIDs()
        let records = folder.appendingPathComponent("shown")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: records.path)) ?? []
        return try names.compactMap(UInt32.init).sorted().map { id in
            let record = records.appendingPathComponent(String(id))
            func field(_ name: String) throws -> String {
                try String(contentsOf: record.appendingPathComponent(name), encoding: .utf8)
            }
            return Notification(id: id, appName: try field("appname"), summary: try field("summary"),
                                body: try field("body"), category: try field("category"), urgency: try field("urgency"),
                                desktopEntry: try field("desktop-entry"), displayed: !history.contains(id))
        }
    }

    /// How many notifications are on screen (`dunstctl count displayed`).
    func displayedCount() throws -> Int {
        let text = try tool("dunstctl", ["count", "displayed"]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int(text) else { throw Failure(description: "dunstctl count displayed printed \(text)") }
        return count
    }

    /// Waits (at most `timeout`) until a notification with `summary` is shown, and returns it.
    func waitForNotification(summary: String, timeout: Duration = .seconds(10)) throws -> Notification {
        var found: Notification?
        _ = waitUntil(timeout: timeout) {
            found = (try? self.notifications())?.first { $0.summary == summary }
            return found != nil
        }
        guard let found else {
            throw Failure(description: "no notification \"\(summary)\" within \(timeout); dunst: \(Self.log(folder, "dunst.log"))")
        }
        return found
    }

    /// The actions of the notifications on screen, from dunst's context menu (opened and
    /// left without a choice).
    func actions() throws -> [Action] {
        try menu(choosing: nil).compactMap(Self.action(fromMenuLine:))
    }

    /// Chooses the action `key` of the notification on screen through dunst's context menu,
    /// as a user would; dunst then sends `ActionInvoked`. Throws when no notification on screen
    /// has that action.
    func invokeAction(_ key: String) throws {
        let lines = try menu(choosing: key)
        guard lines.contains(where: { Self.action(fromMenuLine: $0)?.key == key }) else {
            throw Failure(description: "no notification on screen has the action \(key); dunst's menu: \(lines)")
        }
    }

    /// Closes every notification on screen as the user's close button does (`dunstctl
    /// close-all`): dunst sends `NotificationClosed` with reason 2.
    func closeAll() throws {
        _ = try tool("dunstctl", ["close-all"])
    }

    /// Waits until `condition` holds, checking every 20 ms, at most `timeout`; whether it held.
    func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// Runs a tool (`dunstctl`, `dbus-send`) against this server; its standard output, or
    /// throws with its standard error when it fails.
    @discardableResult
    func tool(_ name: String, _ arguments: [String]) throws -> String {
        guard let path = Self.which(name) else { throw Failure(description: "\(name) is not installed") }
        let output = try ProgramRunner.run(path, arguments, environment: environment)
        guard output.status == 0 else {
            throw Failure(description: "\(name) \(arguments.joined(separator: " ")) failed (\(output.status)): \(output.stderr)")
        }
        return output.stdout
    }

    // MARK: - Internals

    /// Starts dunst and waits until it owns the name.
    private func startDunst(path: String) throws {
        let dunst = try Self.start(path, ["-config", folder.appendingPathComponent("dunstrc").path],
                                   environment: environment, log: folder.appendingPathComponent("dunst.log"),
                                   readsFirstLine: false)
        self.dunst = dunst.process
        guard waitUntil({ (try? self.hasNotificationServer()) ?? false }) else {
            throw Failure(description: "dunst did not own org.freedesktop.Notifications within 10 s: "
                + Self.log(folder, "dunst.log"))
        }
    }

    /// The ids in dunst's history (closed notifications).
    private func historyIDs() throws -> Set<UInt32> {
        let json = try tool("dunstctl", ["history"])
        guard let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let data = root["data"] as? [[[String: Any]]] else {
            throw Failure(description: "dunstctl history printed unexpected JSON: \(json.prefix(200))")
        }
        return Set(data.joined().compactMap { entry in
            ((entry["id"] as? [String: Any])?["data"] as? NSNumber).map { UInt32(truncating: $0) }
        })
    }

    /// Opens dunst's context menu; the script picks the line of action `key` (nothing when
    /// nil). Returns the lines dunst offered.
    private func menu(choosing key: String?) throws -> [String] {
        let want = folder.appendingPathComponent("want")
        let offered = folder.appendingPathComponent("menu")
        try? FileManager.default.removeItem(at: offered)
        try Data((key.map { ",\($0)]" } ?? "").utf8).write(to: want)
        try tool("dunstctl", ["context"])
        guard waitUntil({ FileManager.default.fileExists(atPath: offered.path) }) else {
            throw Failure(description: "dunst did not open its context menu (no notification with actions on screen?); "
                + Self.log(folder, "dunst.log"))
        }
        return try String(contentsOf: offered, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// An action from a menu line of dunst 1.9: `#Label (Summary) [id,key]`.
    private static func action(fromMenuLine line: String) -> Action? {
        guard line.hasPrefix("#"), line.hasSuffix("]"), let open = line.lastIndex(of: "["),
              let label = line.dropFirst().range(of: " (").map({ String(line[line.index(after: line.startIndex)..<$0.lowerBound]) })
        else { return nil }
        let inside = line[line.index(after: open)..<line.index(before: line.endIndex)]
        guard let comma = inside.firstIndex(of: ","), let id = UInt32(inside[..<comma]) else { return nil }
        return Action(id: id, key: String(inside[inside.index(after: comma)...]), label: label)
    }

    /// Writes the bus's configuration, dunst's, the menu script and the recording script.
    private static func writeConfiguration(in folder: URL) throws {
        let path = folder.path
        let files: [(String, String, Bool)] = [
            ("session.conf", """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <listen>unix:path=\(path)/bus</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow send_destination="*" eavesdrop="true"/>
                    <allow eavesdrop="true"/>
                    <allow own="*"/>
                  </policy>
                </busconfig>

                """, false),
            // Notifications stay until closed; the menu is the script below; every notification
            // shown is recorded by `record.sh`.
            ("dunstrc", """
                [global]
                    font = Monospace 8
                    markup = full
                    dmenu = \(path)/choose.sh
                    browser = /bin/true
                    show_indicators = no
                    idle_threshold = 0
                [urgency_low]
                    timeout = 0
                [urgency_normal]
                    timeout = 0
                [urgency_critical]
                    timeout = 0
                [record]
                    summary = "*"
                    script = \(path)/record.sh

                """, false),
            // dunst's dmenu: the offered lines on standard input; prints the first that holds
            // the text in `want` (`,key]`), nothing when it is empty. The lines are written
            // first to menu.part and renamed, so the harness sees them whole.
            ("choose.sh", """
                #!/bin/sh
                cat > '\(path)/menu.part'
                want=$(cat '\(path)/want')
                if [ -n "$want" ]; then grep -F -e "$want" '\(path)/menu.part' | head -n 1; fi
                mv '\(path)/menu.part' '\(path)/menu'

                """, true),
            ("record.sh", """
                #!/bin/sh
                dir='\(path)/shown'
                mkdir -p "$dir/part.$DUNST_ID"
                cd "$dir/part.$DUNST_ID" || exit 1
                printf '%s' "$DUNST_APP_NAME" > appname
                printf '%s' "$DUNST_SUMMARY" > summary
                printf '%s' "$DUNST_BODY" > body
                printf '%s' "$DUNST_CATEGORY" > category
                printf '%s' "$DUNST_URGENCY" > urgency
                printf '%s' "$DUNST_DESKTOP_ENTRY" > desktop-entry
                cd "$dir" && rm -rf "$DUNST_ID" && mv "part.$DUNST_ID" "$DUNST_ID"

                """, true),
        ]
        for (name, text, executable) in files {
            let url = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            if executable { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path) }
        }
    }

    /// A started child and the first line it printed (nil when it printed none within 10 s).
    private struct Started {
        var process: Process
        var firstLine: String?
    }

    /// Starts `executable` with `environment`, its standard error (and output, unless
    /// `readsFirstLine`) appended to `log`; when `readsFirstLine`, waits at most 10 s for the
    /// first line of its standard output.
    private static func start(_ executable: String, _ arguments: [String], environment: [String: String], log: URL,
                              readsFirstLine: Bool = true) throws -> Started {
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw Failure(description: "cannot create \(log.path)")
        }
        let logHandle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardError = logHandle
        let pipe = Pipe()
        process.standardOutput = readsFirstLine ? pipe : logHandle
        try process.run()
        try? logHandle.close()
        guard readsFirstLine else { return Started(process: process, firstLine: nil) }
        try? pipe.fileHandleForWriting.close()
        let line = firstLine(of: pipe.fileHandleForReading.fileDescriptor, timeout: 10_000)
        return Started(process: process, firstLine: line)
    }

    /// The first line read from `descriptor` within `timeout` milliseconds, without its line
    /// feed; nil at end of file or time-out.
    private static func firstLine(of descriptor: Int32, timeout: Int32) -> String? {
        var bytes: [UInt8] = []
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(timeout))
        while clock.now < deadline {
            var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, (deadline - clock.now).components.seconds * 1000 + 1))
            let ready = poll(&polled, 1, left)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }

    /// The full path of `tool` on `PATH` (and the usual folders), or nil.
    private static func which(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin"]
        return folders.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A child's log, for error messages (its last 2,000 characters).
    private static func log(_ folder: URL, _ name: String) -> String {
        let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
        return text.isEmpty ? "(\(name) is empty)" : String(text.suffix(2000))
    }
}
