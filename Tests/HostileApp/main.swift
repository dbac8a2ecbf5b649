// hostile-app: an app that `ical run` starts in its sandbox and that tries to reach the store
// anyway. Tests/CLITests/HostileAppTests.swift runs it and checks that every attempt held and
// that the store did not change.
//
// Every attempt prints one line:
//
//   ATTEMPT <name> held <detail>       the sandbox or the broker stopped it
//   ATTEMPT <name> ESCAPED <detail>    it got through
//
// and the run ends with `TOTAL n held m escaped` (exit status 0 when nothing escaped, 3 when
// something did).
//
// The test passes what an attacker could learn anyway (the store's path and device/inode from
// the parent's command line and environment, the broker's pid from /proc): the app should not
// have to guess.
//
//   hostile-app --phase main --store S --store-dev D --store-ino I --broker-pid P --ical ICAL
//               --calendar CAL --event NAME.ics --title TITLE --level none|write-only
//   hostile-app --phase before-hello|version|garbage|oversized|truncated (one destructive
//               wire attack: the broker ends this app's connection, so each needs its own run)
//   hostile-app --phase squat --store-dev D --store-ino I [--store S]
//               (forks a daemon that waits for the broker's name to be free, takes it and
//               plays broker to the next `ical run`: see HostileAppTests)
//   hostile-app --read-store FILE      (re-executed by itself: exit 0 when FILE could be read)
//   hostile-app --abi                  (the kernel's Landlock ABI)
//
// Order of the wire attacks: the app has a single connection to the broker (descriptor 3; a
// child would share the same socket), and the broker ends the session on a protocol error
// (a call before hello, a version it does not speak, garbage, an oversized or truncated
// frame). So the main phase makes only calls the broker answers and goes on after (forged
// fields, calls its level forbids, the flood, last), and every destructive attack is its own
// phase, run by the test as a separate `ical run`.
import CHostile
import CLandlock
import Foundation
import OpenEventKit

/// Writes a line at once (no buffering: the test reads the lines as they come).
func print(_ text: Any) { FileHandle.standardOutput.write(Data("\(text)\n".utf8)) }

// MARK: Arguments

var options: [String: String] = [:]
do {
    var index = 1
    let arguments = CommandLine.arguments
    while index < arguments.count {
        let key = arguments[index]
        if key == "--abi" { print(clandlock_abi()); exit(0) }
        if index + 1 < arguments.count { options[key] = arguments[index + 1] }
        index += 2
    }
}

if let file = options["--read-store"] {
    let fd = open(file, O_RDONLY)
    if fd < 0 { print("cannot open \(file): \(String(cString: strerror(errno)))"); exit(1) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = read(fd, &buffer, buffer.count)
    print("READ \(count) bytes of \(file)")
    exit(count > 0 ? 0 : 1)
}

let phase = options["--phase"] ?? "main"
let store = options["--store"] ?? "/nonexistent-store"
let storeDev = UInt64(options["--store-dev"] ?? "0") ?? 0
let storeIno = UInt64(options["--store-ino"] ?? "0") ?? 0
let brokerPid = pid_t(options["--broker-pid"] ?? "0") ?? 0
let ical = options["--ical"] ?? "/nonexistent-ical"
let calendar = options["--calendar"] ?? "calendar"
let eventName = options["--event"] ?? "event.ics"
let title = options["--title"] ?? "NO-TITLE-GIVEN"
let level = options["--level"] ?? "none"
let home = ProcessInfo.processInfo.environment["HOME"] ?? "/nonexistent-home"
let container = (home as NSString).deletingLastPathComponent
let storeFile = store + "/" + calendar + "/" + eventName
let authorizations = store + "/.openeventkit/authorizations.json"
let index = store + "/.openeventkit/index.sqlite"
let brokerAddress = "org.openeventkit.broker/\(getuid())/\(storeDev)-\(storeIno)"

// MARK: Reporting

nonisolated(unsafe) var held = 0
nonisolated(unsafe) var escaped = 0

/// Runs one attempt: `body` answers whether it held, and a detail.
func attempt(_ name: String, _ body: () -> (held: Bool, detail: String)) {
    let (ok, detail) = body()
    if ok { held += 1 } else { escaped += 1 }
    print("ATTEMPT \(name) \(ok ? "held" : "ESCAPED") \(detail.replacingOccurrences(of: "\n", with: " | "))")
}

func finish() -> Never {
    print("TOTAL \(held + escaped) held \(held) escaped \(escaped)")
    exit(escaped == 0 ? 0 : 3)
}

func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

/// A negative errno from CHostile, in words.
func result(_ value: Int32) -> String { value == 0 ? "succeeded" : errnoText(-value) }

// MARK: File system helpers

/// Opens `path` with `flags`; held when it fails (the descriptor is closed at once).
func refusedOpen(_ path: String, _ flags: Int32, mode: mode_t = 0o600) -> (Bool, String) {
    let fd = open(path, flags | O_CLOEXEC, mode)
    if fd >= 0 {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = flags & O_ACCMODE == O_WRONLY ? 0 : read(fd, &buffer, buffer.count)
        close(fd)
        return (false, "opened \(path) (read \(count) bytes)")
    }
    return (true, "open \(path): \(errnoText())")
}

func readable(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    var byte: UInt8 = 0
    let count = read(fd, &byte, 1)
    close(fd)
    return count > 0
}

/// The store path relative to the current folder (`../../…/store`).
func relativeStorePath() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let cwd = getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "/"
    let depth = cwd.split(separator: "/").count
    return String(repeating: "../", count: depth) + store.drop(while: { $0 == "/" })
}

/// Runs `program` (in this sandbox, as any child is) and returns its status and output.
func runProgram(_ program: String, _ arguments: [String]) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    do { try process.run() } catch { return (-1, "cannot start \(program): \(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func short(_ text: String) -> String {
    let line = text.split(separator: "\n").first.map(String.init) ?? ""
    return line.count > 160 ? String(line.prefix(160)) + "…" : line
}

// MARK: The wire (descriptor 3)

final class Wire {
    let fd: Int32 = 3
    var nextID: UInt64 = 1

    func sendRaw(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 { if errno == EINTR { continue }; return false }
            offset += sent
        }
        return true
    }

    func frame(_ payload: Data) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xff), UInt8((length >> 8) & 0xff), UInt8(length & 0xff)] + [UInt8](payload)
    }

    func sendJSON(_ text: String) -> Bool { sendRaw(frame(Data(text.utf8))) }

    func send(_ call: BrokerCall) -> UInt64? {
        let id = nextID
        nextID += 1
        guard let data = try? JSONEncoder().encode(BrokerRequest(id: id, call: call)), sendRaw(frame(data)) else { return nil }
        return id
    }

    /// Reads exactly `count` bytes within `timeout` seconds; nil at the end or on timeout.
    func readExactly(_ count: Int, timeout: Double) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        let end = Date().addingTimeInterval(timeout)
        while offset < count {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, end.timeIntervalSinceNow) * 1000)
            guard poll(&entry, 1, left) > 0 else { return nil }
            let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { return nil }
            offset += got
        }
        return bytes
    }

    /// The next response that is not a notice; nil when the connection ended or timed out.
    func response(timeout: Double = 30) -> BrokerResponse? {
        while true {
            guard let header = readExactly(4, timeout: timeout) else { return nil }
            let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            guard let payload = readExactly(length, timeout: timeout),
                let response = try? JSONDecoder().decode(BrokerResponse.self, from: Data(payload)) else { return nil }
            if response.id == 0 { continue }   // a notice: the store or the access changed
            return response
        }
    }

    func call(_ call: BrokerCall) -> BrokerReply? {
        guard send(call) != nil else { return nil }
        return response()?.reply
    }

    /// Whether the broker ended the connection within `timeout` (after answering or not).
    func closedByBroker(timeout: Double) -> (closed: Bool, detail: String) {
        var answers: [String] = []
        let end = Date().addingTimeInterval(timeout)
        while end.timeIntervalSinceNow > 0 {
            guard let header = readExactly(4, timeout: end.timeIntervalSinceNow) else {
                if end.timeIntervalSinceNow <= 0 { break }
                return (true, "connection ended" + (answers.isEmpty ? "" : " after: " + answers.joined(separator: "; ")))
            }
            let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            guard let payload = readExactly(length, timeout: 5) else { return (true, "connection ended mid-answer") }
            answers.append(short(String(decoding: payload, as: UTF8.self)))
        }
        return (false, "the connection is still open after \(Int(timeout)) s")
    }
}

func describe(_ reply: BrokerReply?) -> String {
    guard let reply else { return "no answer" }
    guard let data = try? JSONEncoder().encode(reply) else { return "\(reply)" }
    return short(String(decoding: data, as: UTF8.self))
}

func isFailure(_ reply: BrokerReply?) -> Bool {
    if case .failure? = reply { return true }
    return false
}

/// Held when the broker refused the call; the reply must also not carry the title.
func refused(_ reply: BrokerReply?) -> (Bool, String) {
    let text = describe(reply)
    return (isFailure(reply) && !text.contains(title), text)
}

nonisolated(unsafe) let wire = Wire()

func event(uid: String, summary: String, todo: Bool = false) -> Data {
    let component = todo ? "VTODO" : "VEVENT"
    let dates = todo ? "DUE:20261210T100000Z\r\n" : "DTSTART:20261210T100000Z\r\nDTEND:20261210T110000Z\r\n"
    return Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit//hostile-app//EN\r\nBEGIN:\(component)\r\nUID:\(uid)\r\nDTSTAMP:20261122T100000Z\r\n\(dates)SUMMARY:\(summary)\r\nEND:\(component)\r\nEND:VCALENDAR\r\n".utf8)
}

// MARK: Destructive wire phases (one per run)

func destructive(_ name: String, _ send: () -> Bool) -> Never {
    attempt(name) {
        guard send() else { return (true, "the broker had closed the connection already") }
        let (closed, detail) = wire.closedByBroker(timeout: 35)
        return (closed, detail)
    }
    finish()
}

switch phase {
case "before-hello":
    destructive("wire-call-before-hello") { wire.send(.readCollection(collection: calendar, known: [:])) != nil }
case "version":
    destructive("wire-hello-version-999") { wire.send(.hello(version: 999)) != nil }
case "garbage":
    destructive("wire-garbage-bytes") {
        _ = wire.send(.hello(version: 1))
        _ = wire.response()
        return wire.sendRaw(wire.frame(Data("\u{1}\u{2}not json at all {{{".utf8)))
    }
case "oversized":
    destructive("wire-oversized-length-0x7fffffff") {
        _ = wire.send(.hello(version: 1))
        _ = wire.response()
        return wire.sendRaw([0x7f, 0xff, 0xff, 0xff] + [UInt8](repeating: 0x41, count: 4096))
    }
case "truncated":
    // Half a frame, then silence until the test closes standard input (it runs the honest
    // app meanwhile); the broker must not wait on this connection for anyone else.
    attempt("wire-truncated-frame-then-silence") {
        _ = wire.send(.hello(version: 1))
        _ = wire.response()
        guard wire.sendRaw([0, 0, 1, 0] + [UInt8]("{\"id\":2,\"call\":".utf8)) else { return (true, "connection already closed") }
        print("SILENT")
        var byte: UInt8 = 0
        while read(0, &byte, 1) > 0 {}   // until the test closes standard input
        return (true, "the honest app was served while this frame hung; the broker drops it after 30 s")
    }
    finish()
case "squat":
    squat()
default:
    break
}

// MARK: Squatting the broker's name (a daemon that outlives the app)

/// Forks a daemon that waits (up to a minute) for the store's broker to exit, binds its
/// abstract name, and answers the next `ical run` as if it were the broker: it accepts the
/// launch and asks the launcher to run `ical privacy grant` (a "UI helper") for this app.
/// The test then checks that the launcher refused to talk to it.
func squat() -> Never {
    let child = fork()
    if child == 0 {
        _ = setsid()
        var listener: Int32 = -1
        let end = Date().addingTimeInterval(60)
        while listener < 0 && end.timeIntervalSinceNow > 0 {
            listener = cbroker_listen_abstract(brokerAddress)
            if listener < 0 { usleep(20_000) }
        }
        guard listener >= 0 else { _exit(2) }
        let log = open(home + "/squat.log", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        func note(_ text: String) { _ = (text + "\n").withCString { write(log, $0, strlen($0)) } }
        note("LISTENING \(brokerAddress)")
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { note("ACCEPT failed"); _exit(3) }
        note("LAUNCHER CONNECTED")
        let channel = FrameChannel(descriptor: connection)
        let appSocket = cbroker_receive_descriptor(connection)
        note("APP SOCKET \(appSocket)")
        if let message = try? channel.receive(idle: 10) { note("LAUNCH " + String(decoding: message, as: UTF8.self)) }
        try? channel.send(Data(#"{"launched":{}}"#.utf8))
        let helper = #"{"runHelper":{"id":1,"arguments":["privacy","grant","org.openeventkit.tests.HostileApp","--events","full","--store","\#(store)"],"input":""}}"#
        try? channel.send(Data(helper.utf8))
        if let answer = try? channel.receive(idle: 20) { note("HELPER ANSWER " + String(decoding: answer, as: UTF8.self)) } else { note("NO HELPER ANSWER") }
        close(connection)
        _exit(0)
    }
    print("SQUATTER \(child)")
    attempt("squat-broker-name-daemon") { (true, "daemon \(child) started; the test checks the next ical run refuses it") }
    finish()
}

// MARK: The main phase

// 1. The file system, by path.
attempt("read-store-item-absolute") { refusedOpen(storeFile, O_RDONLY) }
attempt("read-store-item-relative") { refusedOpen(relativeStorePath() + "/" + calendar + "/" + eventName, O_RDONLY) }
attempt("list-store-folder") {
    guard let folder = opendir(store) else { return (true, "opendir \(store): \(errnoText())") }
    var names: [String] = []
    while let entry = readdir(folder) { names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }) }
    closedir(folder)
    return (false, "listed \(names.joined(separator: ","))")
}
attempt("write-store-item") { refusedOpen(storeFile, O_WRONLY | O_APPEND) }
attempt("create-store-item") { refusedOpen(store + "/" + calendar + "/hostile.ics", O_WRONLY | O_CREAT | O_EXCL) }
attempt("truncate-store-item") { truncate(storeFile, 0) == 0 ? (false, "truncated") : (true, "truncate: \(errnoText())") }
attempt("rename-store-item") {
    rename(storeFile, store + "/" + calendar + "/renamed.ics") == 0 ? (false, "renamed") : (true, "rename: \(errnoText())")
}
attempt("unlink-store-item") { unlink(storeFile) == 0 ? (false, "unlinked") : (true, "unlink: \(errnoText())") }
attempt("rename-calendar-folder") {
    rename(store + "/" + calendar, store + "/stolen") == 0 ? (false, "renamed the calendar") : (true, "rename: \(errnoText())")
}
attempt("read-authorizations-json") { refusedOpen(authorizations, O_RDONLY) }
attempt("write-authorizations-json") { refusedOpen(authorizations, O_WRONLY | O_TRUNC) }
attempt("write-index-sqlite") { refusedOpen(index, O_RDWR) }

// 2. Links made in the container.
attempt("symlink-in-container") {
    let link = container + "/tmp/store-link.ics"
    unlink(link)
    guard symlink(storeFile, link) == 0 else { return (true, "symlink: \(errnoText())") }
    return refusedOpen(link, O_RDONLY)
}
attempt("symlink-folder-then-create") {
    let link = container + "/tmp/store-folder"
    unlink(link)
    guard symlink(store + "/" + calendar, link) == 0 else { return (true, "symlink: \(errnoText())") }
    return refusedOpen(link + "/through-link.ics", O_WRONLY | O_CREAT | O_EXCL)
}
attempt("hardlink-into-container") {
    let target = container + "/tmp/store-hardlink.ics"
    unlink(target)
    guard link(storeFile, target) == 0 else { return (true, "link: \(errnoText())") }
    return (!readable(target), "linked \(target)")
}
attempt("rename-into-container") {
    rename(storeFile, container + "/tmp/stolen.ics") == 0 ? (false, "moved the event out") : (true, "rename: \(errnoText())")
}

// 3. /proc.
attempt("proc-broker-root") { refusedOpen("/proc/\(brokerPid)/root" + storeFile, O_RDONLY) }
attempt("proc-broker-cwd") { refusedOpen("/proc/\(brokerPid)/cwd/" + calendar + "/" + eventName, O_RDONLY) }
attempt("proc-broker-fd") {
    // Listing the numbers is allowed (same user, DAC); what they are and opening them is not.
    var numbers = 0
    if let folder = opendir("/proc/\(brokerPid)/fd") {
        while let entry = readdir(folder) { if entry.pointee.d_name.0 != 46 { numbers += 1 } }
        closedir(folder)
    }
    for number in 0..<64 {
        var buffer = [CChar](repeating: 0, count: 4096)
        if readlink("/proc/\(brokerPid)/fd/\(number)", &buffer, buffer.count - 1) > 0 { return (false, "readlink of the broker's descriptor \(number): \(String(cString: buffer))") }
        if readable("/proc/\(brokerPid)/fd/\(number)") { return (false, "read the broker's descriptor \(number)") }
    }
    return (true, "listed \(numbers) descriptor numbers (same user); readlink and open of /proc/\(brokerPid)/fd/N refused")
}
attempt("proc-broker-mem-environ") {
    for file in ["mem", "environ", "maps"] where readable("/proc/\(brokerPid)/\(file)") { return (false, "read /proc/\(brokerPid)/\(file)") }
    return (true, "mem, environ and maps closed")
}
attempt("proc-launcher-root-and-fd") {
    let launcher = getppid()
    if readable("/proc/\(launcher)/root" + storeFile) { return (false, "read the store through ical run's root") }
    for number in 0..<64 where readable("/proc/\(launcher)/fd/\(number)") { return (false, "read ical run's descriptor \(number)") }
    return (true, "ical run (\(launcher)): root and descriptors closed")
}
attempt("proc-self-fd-inherited") {
    // Reopen every inherited descriptor by its /proc link; none may lead into the store.
    var seen: [String] = []
    for number in 0..<256 {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/fd/\(number)", &buffer, buffer.count - 1)
        guard count > 0 else { continue }
        let target = String(cString: buffer)
        seen.append("\(number)=\(target)")
        if target.hasPrefix(store) { return (false, "descriptor \(number) is \(target)") }
        if number >= 3, target.hasPrefix("/"), readable("/proc/self/fd/\(number)/../" + calendar + "/" + eventName) {
            return (false, "reached the store from descriptor \(number)")
        }
    }
    let reopen = open("/proc/self/fd/3", O_RDWR | O_CLOEXEC)
    if reopen >= 0 { close(reopen) }
    return (true, "descriptors \(seen.joined(separator: " ")); reopening 3: \(reopen >= 0 ? "a socket, same connection" : errnoText())")
}

// 4. open_by_handle_at.
attempt("open-by-handle-own-file") {
    let own = container + "/tmp/handle-probe"
    let fd = open(own, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    if fd >= 0 { close(fd) }
    var type: Int32 = 0
    let named = hostile_name_to_handle(own, &type)
    let opened = hostile_open_by_own_handle(own, container)
    return (opened != 0, "name_to_handle_at: \(result(named)) (type \(type)); open_by_handle_at of its own file: \(result(opened))")
}
attempt("open-by-handle-guessed-store") {
    var info = stat()
    let known = stat(storeFile, &info) == 0
    let inode = known ? UInt64(info.st_ino) : storeIno
    let opened = hostile_open_by_guessed_handle(container + "/tmp/handle-probe", container, inode, 16)
    return (opened <= 0, "inode \(inode)\(known ? " (stat of the store works)" : ""): \(opened > 0 ? "opened \(opened)" : result(opened))")
}

// 5. Mounts and namespaces.
attempt("unshare-user-mount-bind") {
    let target = container + "/tmp/mountpoint"
    mkdir(target, 0o700)
    let bits = hostile_namespace_child(store, target, target + "/" + calendar + "/" + eventName, storeFile)
    let detail = "unshare \(bits & 1 != 0 ? "worked" : "refused"), bind mount \(bits & 2 != 0 ? "worked" : "refused"), "
        + "store through mount \(bits & 4 != 0 ? "OPENED" : "closed"), store directly \(bits & 8 != 0 ? "OPENED" : "closed")"
    return (bits >= 0 && bits & (2 | 4 | 8) == 0, detail)
}
attempt("mount-without-namespace") {
    let target = container + "/tmp/mountpoint"
    let bind = hostile_mount_bind(store, target)
    let tmpfs = hostile_mount_tmpfs(target)
    return (bind != 0 && tmpfs != 0, "bind: \(result(bind)); tmpfs: \(result(tmpfs))")
}
attempt("chroot") {
    let value = hostile_chroot(container)
    return (value != 0, "chroot: \(result(value))")
}
attempt("capabilities-left") {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let lines = status.split(separator: "\n").filter { $0.hasPrefix("Cap") || $0.hasPrefix("NoNewPrivs") }
    let values = Dictionary(lines.map { line -> (String, String) in
        let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        return (parts[0], parts.count > 1 ? parts[1] : "")
    }, uniquingKeysWith: { $1 })
    let empty = ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"].allSatisfy { (values[$0] ?? "").allSatisfy { $0 == "0" } }
    return (empty && values["NoNewPrivs"] == "1", lines.joined(separator: " "))
}

// 6. ptrace and signals.
attempt("ptrace-attach-broker") { let value = hostile_ptrace_attach(brokerPid); return (value != 0, "PTRACE_ATTACH \(brokerPid): \(result(value))") }
attempt("ptrace-seize-broker") { let value = hostile_ptrace_seize(brokerPid); return (value != 0, "PTRACE_SEIZE \(brokerPid): \(result(value))") }
attempt("process-vm-readv-broker") { let value = hostile_process_vm_read(brokerPid); return (value != 0, "process_vm_readv: \(result(value))") }
attempt("ptrace-attach-launcher") { let value = hostile_ptrace_attach(getppid()); return (value != 0, "PTRACE_ATTACH ical run \(getppid()): \(result(value))") }
attempt("signal-0-broker") { let value = hostile_kill(brokerPid, 0); return (value != 0, "kill(\(brokerPid), 0): \(result(value))") }
attempt("signal-stop-broker") { let value = hostile_kill(brokerPid, SIGSTOP); return (value != 0, "kill(SIGSTOP): \(result(value))") }
attempt("signal-term-broker") { let value = hostile_kill(brokerPid, SIGTERM); return (value != 0, "kill(SIGTERM): \(result(value))") }
attempt("signal-term-launcher") { let value = hostile_kill(getppid(), SIGTERM); return (value != 0, "kill(ical run, SIGTERM): \(result(value))") }

// 7. Sockets.
attempt("connect-broker-abstract-socket") {
    let fd = cbroker_connect_abstract(brokerAddress)
    if fd >= 0 { close(fd); return (false, "connected to @\(brokerAddress)") }
    return (true, "@\(brokerAddress): \(errnoText())")
}
attempt("connect-broker-by-path") {
    // The broker has no path socket; try what a path form of its name would be, and every
    // path socket /proc/net/unix names under the store or with the broker's name.
    var tried: [String] = [brokerAddress, "/" + brokerAddress, store + "/.openeventkit/broker.sock", "/run/user/\(getuid())/" + brokerAddress]
    let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
    for line in table.split(separator: "\n").dropFirst() {
        guard let path = line.split(separator: " ").last.map(String.init), path.hasPrefix("/") else { continue }
        if path.hasPrefix(store) || path.contains("openeventkit") { tried.append(path) }
    }
    for path in tried where hostile_connect_path(path) == 0 { return (false, "connected to \(path)") }
    return (true, "no path socket: \(tried.count) tried")
}
attempt("tty-inject-tiocsti") {
    var outcomes: [String] = []
    for fd: Int32 in [0, 1, 2] { outcomes.append("fd \(fd): \(result(hostile_tiocsti(fd, 0x61)))") }
    let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
    if tty >= 0 { outcomes.append("/dev/tty: \(result(hostile_tiocsti(tty, 0x61)))"); close(tty) } else { outcomes.append("/dev/tty: \(errnoText())") }
    return (!outcomes.contains { $0.hasSuffix("succeeded") }, outcomes.joined(separator: "; "))
}

// 8. Re-exec to shed the sandbox.
attempt("reexec-ical-privacy-grant") {
    let (status, output) = runProgram(ical, ["privacy", "grant", "org.openeventkit.tests.HostileApp", "--events", "full", "--reminders", "full", "--store", store])
    return (status != 0, "exit \(status): \(short(output))")
}
attempt("reexec-ical-query") {
    let (status, output) = runProgram(ical, ["query", "--store", store])
    return (status != 0 && !output.contains(title), "exit \(status): \(short(output))")
}
attempt("reexec-ical-run-nested") {
    let manifest = ProcessInfo.processInfo.environment[AppManifest.environmentVariable] ?? ""
    let (status, output) = runProgram(ical, ["run", "--app", manifest, "--store", store, "--", CommandLine.arguments[0], "--read-store", storeFile])
    return (status != 0 && !output.contains("READ"), "exit \(status): \(short(output))")
}
attempt("reexec-ical-broker-on-store") {
    let (status, output) = runProgram(ical, ["broker", "--store", store, "--idle-timeout", "1"])
    return (status != 0 || output.contains("already"), "exit \(status): \(short(output))")
}
attempt("reexec-self") {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let me = count > 0 ? String(cString: buffer) : CommandLine.arguments[0]
    let (status, output) = runProgram(me, ["--read-store", storeFile])
    return (status != 0, "exit \(status): \(short(output))")
}

// 9. The broker's protocol on descriptor 3 (answered calls only; see the phases above).
attempt("wire-forged-identity-and-level") {
    let hello = #"{"id":1,"call":{"hello":{"version":1}},"bundleIdentifier":"org.openeventkit.ical","level":2,"fullAccess":true}"#
    wire.nextID = 2
    guard wire.sendJSON(hello), let answer = wire.response() else { return (true, "no answer to hello") }
    let forged = #"{"id":2,"call":{"level":{"entityType":0}},"bundleIdentifier":"org.openeventkit.ical","level":2}"#
    guard wire.sendJSON(forged), let reply = wire.response()?.reply else { return (true, "no answer") }
    wire.nextID = 3
    let expected = level == "write-only" ? 1 : 0
    guard case .level(let got) = reply else { return (true, "hello: \(describe(answer.reply)); level: \(describe(reply))") }
    return (got == expected, "hello \(describe(answer.reply)); events level still \(got) (expected \(expected))")
}
attempt("wire-request-full-access-no-terminal") {
    let reply = wire.call(.request(.fullAccessToEvents))
    let reminders = wire.call(.request(.fullAccessToReminders))
    let level = wire.call(.level(entityType: 0))
    let denied: (BrokerReply?) -> Bool = { if case .granted(false, _)? = $0 { true } else { false } }
    let expected = self_level()
    guard case .level(let now)? = level else { return (true, describe(level)) }
    return (denied(reply) && denied(reminders) && now == expected, "events: \(describe(reply)); reminders: \(describe(reminders)); level now \(now)")
}
attempt("wire-fetch-under-write-only-prompt") {
    let reply = wire.call(.fetchUnderWriteOnly(entityType: 0))
    guard case .level(let now)? = reply else { return (isFailure(reply), describe(reply)) }
    return (now == self_level(), "level \(now)")
}
attempt("wire-read-collection") { refused(wire.call(.readCollection(collection: calendar, known: [:]))) }
attempt("wire-read-item") { refused(wire.call(.readItem(collection: calendar, name: eventName))) }
attempt("wire-list-items") { refused(wire.call(.items(collection: calendar))) }
attempt("wire-collections") {
    let reply = wire.call(.collections)
    if case .collections(let list)? = reply { return (list.isEmpty, describe(reply)) }
    return (true, describe(reply))
}
attempt("wire-snapshot") {
    let reply = wire.call(.snapshot)
    if case .snapshot(let collections)? = reply { return (collections.isEmpty, describe(reply)) }
    return (true, describe(reply))
}
attempt("wire-metadata") {
    let reply = wire.call(.metadata)
    let text = describe(reply)
    return (!text.contains(calendar) || isFailure(reply), text)
}
attempt("wire-default-calendar") {
    let reply = wire.call(.defaultEventCollection)
    if case .collection(let name)? = reply { return (name == nil, describe(reply)) }
    return (true, describe(reply))
}
attempt("wire-put-into-real-calendar") {
    refused(wire.call(.commit([.putItem(collection: calendar, name: "hostile-direct.ics", bytes: event(uid: "hostile-direct", summary: "direct"), expecting: .absent)])))
}
attempt("wire-overwrite-existing-event") {
    refused(wire.call(.commit([.putItem(collection: calendar, name: eventName, bytes: event(uid: "hostile-over", summary: "overwritten"), expecting: .any)])))
}
attempt("wire-delete-existing-event") { refused(wire.call(.commit([.deleteItem(collection: calendar, name: eventName, expecting: .any)]))) }
attempt("wire-write-only-overwrite-by-name") {
    refused(wire.call(.commit([.putItem(collection: "write-only", name: eventName, bytes: event(uid: "hostile-virtual-over", summary: "overwritten"), expecting: .any)])))
}
attempt("wire-write-only-existing-name") {
    refused(wire.call(.commit([.putItem(collection: "write-only", name: eventName, bytes: event(uid: "hostile-virtual-clash", summary: "clash"), expecting: .absent)])))
}
attempt("wire-write-only-vtodo") {
    refused(wire.call(.commit([.putItem(collection: "write-only", name: "hostile-todo.ics", bytes: event(uid: "hostile-todo", summary: "todo", todo: true), expecting: .absent)])))
}
attempt("wire-calendar-changes") {
    let tries: [BrokerOperation] = [
        .createCollection(identifier: "hostile", title: "Hostile", color: nil),
        .deleteCollection(identifier: calendar),
        .moveCollection(from: calendar, to: "hostile-moved"),
        .updateCollection(identifier: calendar, title: "Owned", color: nil),
        .setDefaults(eventCalendar: calendar, reminderList: nil),
        .setEntityTypes(collection: calendar, types: ["reminder"]),
    ]
    let replies = tries.map { wire.call(.commit([$0])) }
    return (replies.allSatisfy(isFailure), replies.map(describe).joined(separator: "; "))
}
attempt("wire-ui-helper-arbitrary-command") {
    let replies = [
        wire.call(.uiHelper(arguments: ["privacy", "grant", "org.openeventkit.tests.HostileApp", "--events", "full"], input: Data())),
        wire.call(.uiHelper(arguments: ["ui", "view-event", "--store", "/", "--event-identifier", calendar + "/" + eventName, "--app-id", "org.openeventkit.ical"], input: Data())),
        wire.call(.uiHelper(arguments: ["ui", "edit-event", "--event", store + "/" + calendar + "/" + eventName], input: Data())),
    ]
    // The view-event call passes the check (its --store and --app-id are dropped) and must be
    // refused by the helper itself: the app has no full access.
    let ok = replies.allSatisfy { reply in
        if isFailure(reply) { return true }
        if case let .helper(output, status, _)? = reply { return status != 0 && !output.contains(title) }
        return false
    }
    return (ok, replies.map(describe).joined(separator: "; "))
}
attempt("wire-write-only-read-back") {
    // A write-only app may add an event (the broker files it in the default calendar), and
    // must not read it, or anything, back: not by the virtual calendar, not by the real one.
    let name = "hostile-added.ics"
    let put = wire.call(.commit([.putItem(collection: "write-only", name: name, bytes: event(uid: "hostile-added", summary: "HOSTILE-ADDED"), expecting: .absent)]))
    let added: Bool = { if case .committed? = put { true } else { false } }()
    if level != "write-only" && added { return (false, "a put under no access succeeded: \(describe(put))") }
    let backs = [
        wire.call(.readItem(collection: "write-only", name: name)),
        wire.call(.readCollection(collection: "write-only", known: [:])),
        wire.call(.readItem(collection: calendar, name: name)),
        wire.call(.items(collection: "write-only")),
    ]
    let leaked = backs.contains { describe($0).contains("HOSTILE-ADDED") || !isFailure($0) }
    return (!leaked, "put: \(describe(put)); read back: \(backs.map(describe).joined(separator: "; "))")
}
attempt("wire-flood-100000-status-calls") {
    // Written by a second thread while this one reads the answers; the test runs the honest
    // app meanwhile (it waits for the FLOOD line).
    let total = 100_000
    let first = wire.nextID
    wire.nextID += UInt64(total)
    let writer = Thread {
        var chunk: [UInt8] = []
        for offset in 0..<total {
            let json = #"{"id":\#(first + UInt64(offset)),"call":{"status":{"entityType":0}}}"#
            chunk += wire.frame(Data(json.utf8))
            if chunk.count > 32_768 || offset == total - 1 {
                guard wire.sendRaw(chunk) else { return }
                chunk.removeAll(keepingCapacity: true)
            }
        }
    }
    print("FLOOD started")
    let started = Date()
    writer.start()
    var answered = 0, full = 0
    while answered < total, let response = wire.response(timeout: 60) {
        answered += 1
        if case .status(let status) = response.reply, status == 3 { full += 1 }
    }
    let seconds = Date().timeIntervalSince(started)
    print("FLOOD done")
    return (full == 0, "\(answered) of \(total) answered in \(String(format: "%.1f", seconds)) s, none fullAccess")
}

func self_level() -> Int { level == "write-only" ? 1 : 0 }

finish()
