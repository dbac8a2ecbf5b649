import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real RFC 6638 scheduling CalDAV server for tests: Cyrus IMAP 3.6's httpd (Debian's
/// `cyrus-imapd`, `cyrus-caldav`, `sasl2-bin`; `make test` installs them through
/// `scripts/deps.sh`), started on 127.0.0.1 with free ports, its own configuration and a fresh
/// temporary folder, and stopped by the test. When a program is missing, `init` throws with the
/// package to install: the tests fail, they never pass silently.
///
/// How it runs:
/// - `imapd.conf` and `cyrus.conf` are written into the folder; `cyrmaster -C -M -p -L` runs in
///   the foreground (no `-d`) with SERVICES `imap` and `http` on loopback and the START entry
///   `recover` (`ctl_cyrusdb -r`). Nothing of the system's Cyrus (/etc/imapd.conf,
///   /var/lib/cyrus, port 143) is used; installing the packages on Debian enables
///   `cyrus-imapd.service`, which these tests neither need nor disturb.
/// - Cyrus will not stay root: `cyrmaster` switches to `cyrus_user`. As root the harness writes
///   `cyrus_user: cyrus` and chowns the folder to `cyrus` (so the temporary directory must be
///   one that user can reach, such as /tmp); as anyone else it writes that user's own name, and
///   Cyrus runs as the current user.
/// - Cyrus logs to syslog, which test machines usually lack: the errors carry the tail of
///   `master.log` (cyrmaster's stdout and stderr, `-L`) and the HTTP answer instead.
/// - Users are SASL accounts in the folder's sasldb (`saslpasswd2 -u localhost`: the realm
///   must be `servername`), and Basic authentication over plain HTTP needs
///   `allowplaintext: yes`. Their mailboxes (`user.NAME`, `unixhierarchysep: no`) are created
///   over IMAP by `admin` (Python's imaplib): CalDAV alone answers 500 for a user without one.
/// - Each user's calendar home is provisioned on that user's first authenticated CalDAV
///   request (`caldav_create_default`, `caldav_create_sched`, on by default): `Default`,
///   `Inbox`, `Outbox`. The harness makes that request for every user at start, because an
///   invitation to a user whose home does not exist yet is not delivered (the organizer's copy
///   then says `SCHEDULE-STATUS=1.1`, "sent", and nothing arrives).
///
/// What Cyrus 3.6.1 reports for a user (PROPFIND Depth 0 on the principal):
/// - `DAV:current-user-principal` and `DAV:principal-URL`: `/dav/principals/user/NAME/`
/// - `C:calendar-home-set`: `/dav/calendars/user/NAME/`
/// - `C:calendar-user-address-set` (RFC 6638 §2.4.1): one href, `mailto:NAME@example.test`
///   (the domain is `calendar_user_address_set`; without it Cyrus uses `servername`)
/// - `C:schedule-inbox-URL`: `/dav/calendars/user/NAME/Inbox/`;
///   `C:schedule-outbox-URL`: `/dav/calendars/user/NAME/Outbox/`
/// - `C:calendar-user-type`: `INDIVIDUAL`
/// - `/.well-known/caldav` answers 301 to `/dav/calendars`.
/// - OPTIONS on the calendar home: `DAV: 1, 2, 3, access-control, extended-mkcol,
///   resource-sharing`, `DAV: calendar-access, calendar-auto-schedule`, `DAV:
///   calendar-query-extended, calendar-availability, calendar-managed-attachments`, `DAV:
///   calendarserver-sharing, inbox-availability` (several `DAV` header lines).
/// - Every answer carries `Connection: Upgrade` and `Upgrade: h2c` (an offer of HTTP/2 over
///   cleartext), which HTTP/1.1 clients ignore.
///
/// Implicit scheduling, as Cyrus 3.6.1 does it (``CyrusServerTests`` pins each point):
/// - The organizer PUTs into `Default/` an event with `ORGANIZER` and `ATTENDEE`s at
///   `@example.test`: 201 with a `Schedule-Tag` header. The organizer's copy is stored as sent
///   (its `SEQUENCE` is not raised) except that each delivered attendee gets
///   `SCHEDULE-STATUS=1.2` (delivered).
/// - The attendee receives two resources at once (no delay: scheduling is done inside the
///   PUT): `Default/UID.ics` (the attendee's copy, named after the UID, with a
///   `Schedule-Tag`), and `Inbox/<random>.ics` with `METHOD:REQUEST`. In both, Cyrus rewrites
///   `PRODID` to its own, `DTSTAMP` to now, and `SEQUENCE` one higher than the organizer's
///   (0 becomes 1); `SCHEDULE-STATUS` is removed.
/// - The attendee answers by PUTting its copy back (same `SEQUENCE`, its `ATTENDEE` with
///   `PARTSTAT=ACCEPTED`, `If-Schedule-Tag-Match` optional): 204 and a new `Schedule-Tag`. The
///   organizer's copy then shows that attendee `PARTSTAT=ACCEPTED` with `X-DTSTAMP` and
///   `X-SEQUENCE` parameters added and `RSVP` removed, and the organizer's `Inbox/` gets a
///   `METHOD:REPLY`. The attendee's copy gets `SCHEDULE-STATUS=1.2` on its `ORGANIZER`.
/// - The organizer DELETEs its copy (204), or PUTs it with `STATUS:CANCELLED`: the attendee's
///   `Inbox/` gets a `METHOD:CANCEL`, and the attendee's copy stays, with `STATUS:CANCELLED`
///   and `SEQUENCE` raised again.
/// - A PUT that schedules (organizer or attendee) answers with `Schedule-Tag` and *no* `ETag`,
///   because Cyrus stored something else than what was sent; a client must GET (or PROPFIND
///   `getetag`) to learn the new ETag. A PUT of an event without attendees answers 201 with an
///   `ETag`.
/// - Cyrus adds no `SCHEDULE-AGENT` parameter; `SCHEDULE-STATUS` appears only as described
///   above (1.2 delivered, 1.1 sent but not delivered locally).
/// - Inbox items are not removed by the server: they stay until a client DELETEs them. The
///   inbox's `C:schedule-default-calendar-URL` is `/dav/calendars/user/NAME/Default/`; both
///   `Default/` and `Inbox/` support `sync-collection` (tokens `data:,N-M`), `calendar-query`
///   and `calendar-multiget`.
/// - Cyrus rejects (403, `C:valid-calendar-data`, "DTEND must occur after DTSTART") a timed
///   `VEVENT` with neither `DTEND` nor `DURATION`, which RFC 5545 allows.
/// - For debugging: a folder `conf/log/NAME` makes httpd write that user's HTTP sessions there
///   (Cyrus's telemetry log); the harness does not create it.
final class CyrusServer {
    /// A failure to start or to talk to the server, with what Cyrus said.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// One account: `admin` (the IMAP administrator), `teacher` and `parent`.
    struct User: Sendable {
        let name: String
        let password: String
        /// `/dav/principals/user/NAME/`
        var principalPath: String { "/dav/principals/user/\(name)/" }
        /// `/dav/calendars/user/NAME/` (the `calendar-home-set`)
        var calendarHomePath: String { "/dav/calendars/user/\(name)/" }
        /// The default calendar collection, `/dav/calendars/user/NAME/Default/`.
        var calendarPath: String { calendarHomePath + "Default/" }
        /// The schedule inbox, `/dav/calendars/user/NAME/Inbox/`.
        var inboxPath: String { calendarHomePath + "Inbox/" }
        /// The schedule outbox, `/dav/calendars/user/NAME/Outbox/`.
        var outboxPath: String { calendarHomePath + "Outbox/" }
        /// The calendar user address, `mailto:NAME@example.test`.
        var address: String { "mailto:\(name)@\(CyrusServer.domain)" }
    }

    /// An HTTP answer.
    struct Response: Sendable {
        let status: Int
        let body: String
        let etag: String?
        /// The `Schedule-Tag` header (RFC 6638 §3.2.10), on scheduling object resources.
        let scheduleTag: String?
    }

    /// The domain of the calendar user addresses (`calendar_user_address_set`).
    static let domain = "example.test"
    /// `servername`, which is also the SASL realm the users are created in.
    static let serverName = "localhost"
    static let accounts = ["admin", "teacher", "parent"]

    /// The programs the server needs, each with the Debian package that installs it.
    static let programs: [(path: String, package: String)] = [
        ("/usr/sbin/cyrmaster", "cyrus-common"),
        ("/usr/lib/cyrus/bin/ctl_cyrusdb", "cyrus-common"),
        ("/usr/lib/cyrus/bin/imapd", "cyrus-imapd"),
        ("/usr/lib/cyrus/bin/httpd", "cyrus-caldav"),
        ("/usr/sbin/saslpasswd2", "sasl2-bin"),
        ("/usr/bin/python3", "python3"),
    ]

    let folder: TemporaryFolder
    let httpPort: Int
    let imapPort: Int
    private let process = Process()
    private var stopped = false

    var baseURL: String { "http://127.0.0.1:\(httpPort)/" }
    private var logPath: String { folder.url.appendingPathComponent("master.log").path }

    init() throws {
        try Self.checkInstalled(Self.programs)
        httpPort = try DAVServers.freePort()
        var imap = try DAVServers.freePort()
        while imap == httpPort { imap = try DAVServers.freePort() }
        imapPort = imap
        folder = try TemporaryFolder()
        do {
            try start()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Throws, naming the packages to install, when one of `programs` is not an executable file.
    static func checkInstalled(_ programs: [(path: String, package: String)]) throws {
        let missing = programs.filter { !FileManager.default.isExecutableFile(atPath: $0.path) }
        guard missing.isEmpty else {
            let packages = Set(missing.map(\.package)).sorted().joined(separator: " ")
            throw Failure("Cyrus is not installed (missing \(missing.map(\.path).joined(separator: ", "))): "
                          + "apt-get install -y \(packages) (make test does, through scripts/deps.sh)")
        }
    }

    /// The account called `name` (`admin`, `teacher` or `parent`).
    func user(_ name: String) -> User {
        precondition(Self.accounts.contains(name), "API misuse: CyrusServer has no user \(name)")
        return User(name: name, password: "pw-\(name)-1")
    }

    private func start() throws {
        let root = folder.url.path
        for sub in ["conf", "conf/socket", "spool"] {
            try FileManager.default.createDirectory(atPath: root + "/" + sub, withIntermediateDirectories: true)
        }
        let runningAsRoot = getuid() == 0
        let cyrusUser = runningAsRoot ? "cyrus" : (getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "")
        let configuration = try folder.write("imapd.conf", """
            configdirectory: \(root)/conf
            partition-default: \(root)/spool
            servername: \(Self.serverName)
            cyrus_user: \(cyrusUser)
            admins: admin
            allowplaintext: yes
            sasl_pwcheck_method: auxprop
            sasl_auxprop_plugin: sasldb
            sasl_sasldb_path: \(root)/sasldb2
            sasl_mech_list: PLAIN LOGIN
            virtdomains: off
            unixhierarchysep: no
            httpmodules: caldav
            caldav_realm: OpenEventKit
            httpallowcompress: no
            caldav_allowscheduling: on
            caldav_create_default: yes
            caldav_create_sched: yes
            calendar_user_address_set: \(Self.domain)

            """)
        let services = try folder.write("cyrus.conf", """
            START {
              recover cmd="/usr/lib/cyrus/bin/ctl_cyrusdb -r -C \(configuration)"
            }
            SERVICES {
              imap cmd="/usr/lib/cyrus/bin/imapd -C \(configuration)" listen="127.0.0.1:\(imapPort)" prefork=0
              http cmd="/usr/lib/cyrus/bin/httpd -C \(configuration)" listen="127.0.0.1:\(httpPort)" prefork=0
            }

            """)
        for name in Self.accounts {
            let account = user(name)
            let made = try Self.run("/usr/sbin/saslpasswd2", ["-p", "-c", "-f", root + "/sasldb2", "-u", Self.serverName, name],
                                    input: account.password)
            guard made.status == 0 else { throw Failure("saslpasswd2 \(name) failed (\(made.status)): \(made.output)") }
        }
        if runningAsRoot {
            let owned = try Self.run("/bin/chown", ["-R", "cyrus:", root])
            guard owned.status == 0 else { throw Failure("chown -R cyrus \(root) failed: \(owned.output)") }
        }

        process.executableURL = URL(fileURLWithPath: "/usr/sbin/cyrmaster")
        process.arguments = ["-C", configuration, "-M", services, "-p", root + "/master.pid", "-L", logPath]
        var environment = ProcessInfo.processInfo.environment
        environment["CYRUS_USER"] = nil
        environment["CYRUS_GROUP"] = nil
        process.environment = environment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        try waitUntilListening()
        try createMailboxes()
        for name in Self.accounts where name != "admin" {
            let account = user(name)
            let home = try request(user: name, method: "PROPFIND", path: account.calendarHomePath, headers: ["Depth": "1"])
            guard home.status == 207, home.body.contains(account.inboxPath), home.body.contains(account.calendarPath) else {
                throw failure("\(name)'s calendar home was not provisioned (PROPFIND answered \(home.status): \(home.body.prefix(500)))")
            }
        }
    }

    /// Polls OPTIONS on the HTTP port for up to 15 seconds.
    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let response = try? request(user: "admin", method: "OPTIONS", path: "/"), response.status > 0 { return }
            guard process.isRunning else { throw failure("cyrmaster exited at start (status \(process.terminationStatus))") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw failure("Cyrus did not answer HTTP on 127.0.0.1:\(httpPort) within 15 s")
    }

    /// `user.teacher` and `user.parent`, created over IMAP by `admin` (Python's imaplib).
    private func createMailboxes() throws {
        let names = Self.accounts.filter { $0 != "admin" }
        let script = """
            import imaplib, sys, time
            for attempt in range(100):
                try:
                    m = imaplib.IMAP4("127.0.0.1", \(imapPort))
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                sys.exit("IMAP port \(imapPort) did not answer")
            m.login("admin", sys.argv[1])
            for name in sys.argv[2:]:
                status, data = m.create("user." + name)
                if status != "OK":
                    sys.exit("CREATE user.%s: %s %r" % (name, status, data))
            m.logout()
            """
        let made = try Self.run("/usr/bin/python3", ["-c", script, user("admin").password] + names)
        guard made.status == 0 else { throw failure("creating the mailboxes over IMAP failed: \(made.output)") }
    }

    /// A failure that ends with the tail of Cyrus's log.
    func failure(_ message: String) -> Failure {
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        let tail = log.split(separator: "\n").suffix(20).joined(separator: "\n")
        return Failure(message + "\n--- master.log (tail) ---\n" + (tail.isEmpty ? "(empty: Cyrus logs to syslog)" : tail))
    }

    /// Ends cyrmaster with SIGTERM (it then ends its children; it installs its own handler, so
    /// the test runner's ignored SIGTERM does not stay ignored), SIGKILL after 5 seconds, then
    /// SIGKILL for any process still running with this folder in its command line, and removes
    /// the folder. Safe to call twice.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if process.processIdentifier > 0 && process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        for pid in Self.processes(mentioning: folder.url.path) { kill(pid, SIGKILL) }
        folder.remove()
    }

    /// The processes whose command line contains `text` (from /proc).
    static func processes(mentioning text: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry), pid != getpid(),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            return String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(text) ? pid : nil
        }
    }

    /// A request as `user` (HTTP Basic), waiting at most 10 seconds.
    @discardableResult
    func request(user name: String, method: String, path: String, headers: [String: String] = [:],
                 body: String? = nil) throws -> Response {
        let account = user(name)
        guard let url = URL(string: "http://127.0.0.1:\(httpPort)\(path)") else { throw Failure("not a path: \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 10
        request.setValue("Basic " + Data("\(account.name):\(account.password)".utf8).base64EncodedString(),
                         forHTTPHeaderField: "Authorization")
        request.setValue("close", forHTTPHeaderField: "Connection")
        for (header, value) in headers { request.setValue(value, forHTTPHeaderField: header) }
        if let body { request.httpBody = Data(body.utf8) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Response?
        nonisolated(unsafe) var failure: Error?
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error { failure = error }
            if let response = response as? HTTPURLResponse {
                result = Response(status: response.statusCode, body: String(decoding: data ?? Data(), as: UTF8.self),
                                  etag: response.value(forHTTPHeaderField: "ETag"),
                                  scheduleTag: response.value(forHTTPHeaderField: "Schedule-Tag"))
            }
            done.signal()
        }.resume()
        done.wait()
        if let failure { throw failure }
        guard let result else { throw Failure("\(method) \(path): no response") }
        return result
    }

    /// PUTs `ics` at `path` as `user` (`text/calendar`); `headers` may add `If-Match` or
    /// `If-Schedule-Tag-Match`.
    @discardableResult
    func put(user name: String, path: String, ics: String, headers: [String: String] = [:]) throws -> Response {
        try request(user: name, method: "PUT", path: path,
                    headers: headers.merging(["Content-Type": "text/calendar; charset=utf-8"]) { first, _ in first }, body: ics)
    }

    /// The hrefs of the members of the collection at `path` (PROPFIND Depth 1, the collection
    /// itself left out), sorted.
    func members(user name: String, path: String) throws -> [String] {
        let answer = try request(user: name, method: "PROPFIND", path: path, headers: ["Depth": "1"])
        guard answer.status == 207 else { throw failure("PROPFIND \(path) as \(name) answered \(answer.status)") }
        var hrefs: [String] = []
        var rest = answer.body[...]
        while let open = rest.range(of: "<D:href>"), let close = rest[open.upperBound...].range(of: "</D:href>") {
            hrefs.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return hrefs.filter { $0 != path }.sorted()
    }

    /// Runs a program to its end (``ProgramRunner``), with `input` on stdin; stdout and
    /// stderr together.
    private static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let result = try ProgramRunner.run(executable, arguments, input: input)
        return (result.status, result.stdout + result.stderr)
    }
}
