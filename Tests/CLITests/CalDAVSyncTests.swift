import Foundation
import Testing

/// `ical sources` and `ical sync` against real CalDAV servers (Radicale and Xandikos, started
/// on loopback for each test): discovery, both directions, conflicts, removals, a forgotten
/// sync token, a server that is gone, subscribed feeds, and that no password is written.
@Suite(.serialized) struct CalDAVSyncTests {
    /// A store acting as `ical` with full access, and the source added to it.
    struct Client {
        let folder: TemporaryFolder
        var store: String { folder.url.path + "/store" }

        init() throws {
            folder = try TemporaryFolder()
            let grant = try run(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"])
            #expect(grant.status == 0, "\(grant.stderr)")
        }

        func run(_ arguments: [String], stdin: String? = nil) throws -> ICalRunner.Output {
            try ICalRunner.run(arguments, stdin: stdin, environment: ["OPENEVENTKIT_STORE": store])
        }

        /// The collection that mirrors the server's calendar at `href`.
        func collection(for href: String) throws -> String {
            let data = try Data(contentsOf: URL(fileURLWithPath: store + "/.openeventkit/sources.json"))
            let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            for source in json["sources"] as! [[String: Any]] {
                for calendar in source["calendars"] as! [[String: Any]] where calendar["href"] as? String == href {
                    return calendar["collection"] as! String
                }
            }
            throw PythonPeers.PeerError("no mirror of \(href)")
        }

        func files(in collection: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: store + "/" + collection)) ?? []).filter { $0.hasSuffix(".ics") }.sorted()
        }

        /// Every byte the store holds, as text (to look for secrets).
        func everything() -> String {
            var text = ""
            let enumerator = FileManager.default.enumerator(atPath: store)
            while let relative = enumerator?.nextObject() as? String {
                if let data = FileManager.default.contents(atPath: store + "/" + relative) { text += String(decoding: data, as: UTF8.self) }
            }
            return text
        }
    }

    private func addSource(_ client: Client, _ server: DAVServers.Server) throws -> String {
        // The password lives outside the store, in a file only the command reads.
        let secret = try client.folder.write("password", server.password + "\n")
        let added = try client.run(["sources", "add", "caldav", server.baseURL, "--name", "Lessons", "--user", server.user,
                                    "--password-command", "cat \(secret)"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasPrefix("Added Lessons with "), "\(added.stdout)")
        return try client.collection(for: server.calendarPath)
    }

    @Test(arguments: DAVServers.Kind.allCases)
    func bothWaysWithConflictsAndRemovals(kind: DAVServers.Kind) throws {
        let server = try DAVServers.Server(kind)
        defer { server.stop() }
        let client = try Client()
        defer { client.folder.remove() }
        let collection = try addSource(client, server)

        // Down: an event another client put on the server.
        #expect(try server.put("remote-1.ics", uid: "remote-1@example", summary: "Orchestra") == 201)
        var sync = try client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains(": 1 down, 0 up"), "\(sync.stdout)")
        var query = try client.run(["query", "--at", "2026-12-01"])
        #expect(query.stdout.contains("Orchestra"), "\(query.stdout)")

        // Nothing changed: nothing moves.
        sync = try client.run(["sync"])
        #expect(sync.stdout.contains(": 0 down, 0 up"), "\(sync.stdout)")

        // Up: an event added here (by ical), then changed here (by another program).
        let lessons = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path
        let imported = try client.run(["import", "--calendar", collection, lessons])
        #expect(imported.status == 0, "\(imported.stderr)")
        sync = try client.run(["sync"])
        #expect(sync.stdout.contains(": 0 down, 1 up"), "\(sync.stdout)")
        let uploaded = try server.request("GET", server.calendarPath + "piano-weekly@openeventkit.example.ics")
        #expect(uploaded.status == 200)
        #expect(uploaded.body.contains("UID:piano-weekly@openeventkit.example"))

        let local = client.store + "/" + collection + "/remote-1.ics"
        try String(contentsOfFile: local, encoding: .utf8).replacingOccurrences(of: "Orchestra", with: "Orchestra (room 5)")
            .write(toFile: local, atomically: true, encoding: .utf8)
        sync = try client.run(["sync"])
        #expect(sync.stdout.contains(": 0 down, 1 up"), "\(sync.stdout)")
        #expect(try server.request("GET", server.calendarPath + "remote-1.ics").body.contains("Orchestra (room 5)"))

        // A conflict: changed on both sides. The server's version wins the item, the local
        // one is kept beside it, marked, and goes up at the next sync.
        try String(contentsOfFile: local, encoding: .utf8).replacingOccurrences(of: "room 5", with: "room 7 (here)")
            .write(toFile: local, atomically: true, encoding: .utf8)
        let current = try server.request("GET", server.calendarPath + "remote-1.ics")
        let changed = try server.request("PUT", server.calendarPath + "remote-1.ics", headers: ["If-Match": current.etag ?? "*", "Content-Type": "text/calendar"],
                                         body: current.body.replacingOccurrences(of: "room 5", with: "room 9 (server)"))
        #expect(changed.status == 204 || changed.status == 201)
        sync = try client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("1 conflict"), "\(sync.stdout)")
        #expect(try String(contentsOfFile: local, encoding: .utf8).contains("room 9 (server)"))
        let copies = client.files(in: collection).filter { $0.contains("conflict") }
        #expect(copies.count == 1, "\(client.files(in: collection))")
        let copy = try String(contentsOfFile: client.store + "/" + collection + "/" + copies[0], encoding: .utf8)
        #expect(copy.contains("room 7 (here)") && copy.contains("X-OPENEVENTKIT-CONFLICT:remote-1@example"), "\(copy)")
        sync = try client.run(["sync"])
        #expect(sync.stdout.contains(": 0 down, 1 up"), "\(sync.stdout)")

        // Removals, both ways.
        #expect(try server.request("DELETE", server.calendarPath + "remote-1.ics").status < 300)
        try FileManager.default.removeItem(atPath: client.store + "/" + collection + "/piano-weekly@openeventkit.example.ics")
        sync = try client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains(": 1 down, 1 up"), "\(sync.stdout)")
        #expect(!FileManager.default.fileExists(atPath: local))
        #expect(try server.request("GET", server.calendarPath + "piano-weekly@openeventkit.example.ics").status == 404)
        query = try client.run(["query", "--at", "2026-12-01"])
        #expect(!query.stdout.contains("Orchestra (room 9"), "\(query.stdout)")

        // What is left agrees, and nothing secret was written.
        sync = try client.run(["sync"])
        #expect(sync.stdout.contains(": 0 down, 0 up"), "\(sync.stdout)")
        #expect(!client.everything().contains(server.password))
    }

    /// The token that came with the calendar listing (`sources add`) starts the first sync, so
    /// the first sync does not ask for one (on Radicale that costs as much as listing every
    /// item); what changed after it is still found, and nothing comes down twice.
    @Test(arguments: DAVServers.Kind.allCases)
    func theFirstSyncStartsFromTheListingsToken(kind: DAVServers.Kind) throws {
        let server = try DAVServers.Server(kind)
        defer { server.stop() }
        let client = try Client()
        defer { client.folder.remove() }
        let collection = try addSource(client, server)
        let statePath = client.store + "/.openeventkit/sync/" + collection + ".json"
        func state() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statePath))) as! [String: Any]
        }
        let baseline = try #require(try state()["baselineToken"] as? String)
        #expect(try state()["syncToken"] == nil)

        // Changed on the server after the listing and before the first sync.
        #expect(try server.put("a.ics", uid: "a@example", summary: "Cello") == 201)
        #expect(try server.put("b.ics", uid: "b@example", summary: "Viola") == 201)
        var sync = try client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains(": 2 down, 0 up"), "\(sync.stdout)")
        #expect(try state()["baselineToken"] == nil)
        #expect(try state()["syncToken"] as? String == baseline)

        // The next sync starts from that token: the two items are reported again, with the
        // ETags already known, so nothing comes down; a new one does.
        sync = try client.run(["sync"])
        #expect(sync.stdout.contains(": 0 down, 0 up"), "\(sync.stdout)")
        #expect(try server.put("c.ics", uid: "c@example", summary: "Double bass") == 201)
        sync = try client.run(["sync"])
        #expect(sync.stdout.contains(": 1 down, 0 up"), "\(sync.stdout)")
        #expect(client.files(in: collection) == ["a.ics", "b.ics", "c.ics"])
        #expect(try (state()["syncToken"] as? String) != baseline)
    }

    /// Without `--password-command` the password is asked on the terminal, without echo, at
    /// `sources add` and at each sync; it is written nowhere. Without a terminal the sync says
    /// what to do instead.
    @Test func thePasswordIsAskedOnTheTerminalAndNeverEchoedOrStored() throws {
        let server = try DAVServers.Server(.radicale)
        defer { server.stop() }
        let client = try Client()
        defer { client.folder.remove() }
        #expect(try server.put("a.ics", uid: "a@example", summary: "Cello") == 201)
        func onTerminal(_ arguments: [String]) throws -> TerminalDriver.Result {
            try TerminalDriver.run(([ICalRunner.executable.path] + arguments)
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " "),
                steps: [.init(waitFor: "Password for \(server.user) at ", type: server.password)],
                environment: ["OPENEVENTKIT_STORE": client.store])
        }
        let added = try onTerminal(["sources", "add", "caldav", server.baseURL, "--name", "Lessons", "--user", server.user])
        #expect(added.missed.isEmpty && added.status == 0, "\(added.transcript)")
        #expect(added.transcript.contains("Added Lessons with "), "\(added.transcript)")
        let synced = try onTerminal(["sync"])
        #expect(synced.missed.isEmpty && synced.status == 0, "\(synced.transcript)")
        #expect(synced.transcript.contains(": 1 down, 0 up"), "\(synced.transcript)")
        for transcript in [added.transcript, synced.transcript] {
            #expect(!transcript.contains(server.password + "\n") && !transcript.contains(": " + server.password), "echoed: \(transcript)")
        }
        #expect(!client.everything().contains(server.password))

        let wrong = try TerminalDriver.run(([ICalRunner.executable.path, "sync"]).joined(separator: " "),
                                           steps: [.init(waitFor: "Password for ", type: "not-the-password")],
                                           environment: ["OPENEVENTKIT_STORE": client.store])
        #expect(wrong.status != 0)
        #expect(wrong.transcript.contains("refused the user name or password"), "\(wrong.transcript)")

        // In a session of its own: no controlling terminal to ask on.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", ICalRunner.executable.path, "sync"]
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "OPENEVENTKIT_STORE": client.store]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: PipeReader.readAll(errors.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(stderr.contains("no terminal to ask on: give the source a --password-command"), "\(stderr)")
    }

    @Test func conflictPoliciesAndRemovingASource() throws {
        let server = try DAVServers.Server(.radicale)
        defer { server.stop() }
        let client = try Client()
        defer { client.folder.remove() }
        let collection = try addSource(client, server)
        try server.put("r1.ics", uid: "r1@example", summary: "One")
        #expect(try client.run(["sync"]).status == 0)
        let local = client.store + "/" + collection + "/r1.ics"

        func changeBoth(_ here: String, _ there: String) throws {
            try DAVServers.Server.event(uid: "r1@example", summary: here).write(toFile: local, atomically: true, encoding: .utf8)
            let current = try server.request("GET", server.calendarPath + "r1.ics")
            let put = try server.request("PUT", server.calendarPath + "r1.ics", headers: ["If-Match": current.etag ?? "*"],
                                         body: DAVServers.Server.event(uid: "r1@example", summary: there))
            #expect(put.status < 300)
        }

        try changeBoth("Here 1", "There 1")
        var sync = try client.run(["sync", "--conflicts", "server"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("the local change dropped"), "\(sync.stdout)")
        #expect(try String(contentsOfFile: local, encoding: .utf8).contains("SUMMARY:There 1"))
        #expect(client.files(in: collection) == ["r1.ics"])

        try changeBoth("Here 2", "There 2")
        sync = try client.run(["sync", "--conflicts", "local"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("the local version replaced the server's"), "\(sync.stdout)")
        #expect(try server.request("GET", server.calendarPath + "r1.ics").body.contains("SUMMARY:Here 2"))
        #expect(try client.run(["sync"]).stdout.contains(": 0 down, 0 up"))

        let listed = try client.run(["sources", "list"])
        #expect(listed.stdout.contains("Lessons  caldav  \(server.baseURL)  user \(server.user)"), "\(listed.stdout)")
        var removed = try client.run(["sources", "remove", "Lessons"])
        #expect(removed.status == 1)
        #expect(removed.stderr.contains("no terminal to confirm on; give --yes"), "\(removed.stderr)")
        removed = try client.run(["sources", "remove", "Lessons", "--yes"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: client.store + "/" + collection))
        #expect(try client.run(["sources", "list"]).stdout == "No sources.\n")
        // The server keeps its calendar.
        #expect(try server.request("GET", server.calendarPath + "r1.ics").status == 200)
    }

    @Test(arguments: DAVServers.Kind.allCases)
    func aForgottenSyncTokenListsEverythingAndLosesNothing(kind: DAVServers.Kind) throws {
        let server = try DAVServers.Server(kind)
        defer { server.stop() }
        let client = try Client()
        defer { client.folder.remove() }
        let collection = try addSource(client, server)
        try server.put("a.ics", uid: "a@example", summary: "Alpha")
        #expect(try client.run(["sync"]).status == 0)
        // A local change, a server change, and a token the server never issued.
        let statePath = client.store + "/.openeventkit/sync/\(collection).json"
        let state = try String(contentsOfFile: statePath, encoding: .utf8)
        let token = try #require(state.range(of: #""syncToken" ?: ?"[^"]*""#, options: .regularExpression))
        try state.replacingCharacters(in: token, with: #""syncToken":"http:\/\/radicale.org\/ns\/sync\/forgotten""#)
            .write(toFile: statePath, atomically: true, encoding: .utf8)
        try server.put("b.ics", uid: "b@example", summary: "Beta")
        let output = try client.run(["sync"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("note: the server no longer knew the sync token"), "\(output.stdout)")
        #expect(output.stdout.contains(": 1 down, 0 up"), "\(output.stdout)")
        #expect(client.files(in: collection) == ["a.ics", "b.ics"])
        #expect(try client.run(["sync"]).stdout.contains(": 0 down, 0 up"))
    }

    @Test func aServerThatIsGoneChangesNothingAndTheNextSyncCompletes() throws {
        let server = try DAVServers.Server(.radicale)
        let client = try Client()
        defer { client.folder.remove() }
        let collection = try addSource(client, server)
        try server.put("a.ics", uid: "a@example", summary: "Alpha")
        #expect(try client.run(["sync"]).status == 0)
        let lessons = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path
        #expect(try client.run(["import", "--calendar", collection, lessons]).status == 0)
        let before = client.files(in: collection)
        let statePath = client.store + "/.openeventkit/sync/\(collection).json"
        let stateBefore = try String(contentsOfFile: statePath, encoding: .utf8)
        DAVServers.end(server.process)
        let output = try client.run(["sync"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("ical sync: Lessons:"), "\(output.stderr)")
        #expect(!output.stderr.contains(server.password))
        #expect(client.files(in: collection) == before)
        #expect(try String(contentsOfFile: statePath, encoding: .utf8) == stateBefore)
        server.stop()
    }

    @Test func plainHTTPToAnotherMachineAndCredentialsInTheURLAreRefused() throws {
        let client = try Client()
        defer { client.folder.remove() }
        var output = try client.run(["sources", "add", "caldav", "http://192.0.2.1/dav/", "--name", "Far", "--user", "ada",
                                     "--password-command", "echo x"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("plain http to another machine"), "\(output.stderr)")
        output = try client.run(["sources", "add", "caldav", "https://ada:pw@dav.example/", "--name", "Far", "--user", "ada"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("credentials go in --user and --password-command"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: client.store + "/.openeventkit/sources.json"))
    }

    @Test func certificatesAreVerified() throws {
        // An https server with a self-signed certificate (openssl, Python's ssl): not trusted
        // by the system's store, so nothing is fetched from it.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let key = folder.url.path + "/key.pem", certificate = folder.url.path + "/cert.pem"
        let made = PythonPeers.run("/usr/bin/env", ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                                                    "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1"])
        #expect(made.status == 0, "\(made.stderr)")
        _ = try folder.write("feed.ics", try String(contentsOfFile: ICalRunner.packageRoot
            .appendingPathComponent("samples/calendars/holidays.ics").path, encoding: .utf8))
        let port = try DAVServers.freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.currentDirectoryURL = folder.url
        server.arguments = ["python3", "-c", """
            import functools, http.server, ssl, sys
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[4])
            server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[2], sys.argv[3])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            server.serve_forever()
            """, String(port), certificate, key, folder.url.path]
        server.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        server.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try server.run()
        defer { DAVServers.end(server) }
        let client = try Client()
        defer { client.folder.remove() }
        var output = try client.run(["sources", "add", "subscription", "https://127.0.0.1:\(port)/feed.ics", "--name", "Self"])
        for _ in 0..<50 where output.stderr.contains("onnect") {
            Thread.sleep(forTimeInterval: 0.1)
            output = try client.run(["sources", "add", "subscription", "https://127.0.0.1:\(port)/feed.ics", "--name", "Self"])
        }
        #expect(output.status == 1)
        #expect(output.stderr.lowercased().contains("certificate") || output.stderr.contains("SSL"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: client.store + "/.openeventkit/sources.json"))
    }

    @Test func subscribedFeedsRefreshAndKeepTheLastGoodCopy() throws {
        let feeds = try TemporaryFolder()
        defer { feeds.remove() }
        let holidays = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/holidays.ics").path
        // The feed asks to be fetched again at most daily (RFC 7986).
        var original = try String(contentsOfFile: holidays, encoding: .utf8)
        let firstEvent = try #require(original.range(of: "BEGIN:VEVENT"))
        original.replaceSubrange(firstEvent, with: "REFRESH-INTERVAL;VALUE=DURATION:P1D\r\nBEGIN:VEVENT")
        _ = try feeds.write("holidays.ics", original)
        let port = try DAVServers.freePort()
        let httpServer = Process()
        httpServer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        httpServer.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", feeds.url.path]
        httpServer.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        httpServer.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try httpServer.run()
        defer { DAVServers.end(httpServer) }
        let client = try Client()
        defer { client.folder.remove() }
        var added = try client.run(["sources", "add", "subscription", "http://127.0.0.1:\(port)/holidays.ics", "--name", "School"])
        for _ in 0..<50 where added.status != 0 {
            Thread.sleep(forTimeInterval: 0.1)
            added = try client.run(["sources", "add", "subscription", "http://127.0.0.1:\(port)/holidays.ics", "--name", "School"])
        }
        #expect(added.status == 0, "\(added.stderr)")
        let collection = try client.collection(for: "http://127.0.0.1:\(port)/holidays.ics")
        #expect(try String(contentsOfFile: client.store + "/.openeventkit/sources.json", encoding: .utf8).contains(#""refreshSeconds" : 86400"#))
        var sync = try client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let count = client.files(in: collection).count
        #expect(count >= 3, "\(client.files(in: collection))")
        // Within the interval nothing is fetched; --force fetches the changed feed.
        let changedFeed = try feeds.write("holidays.ics", original.replacingOccurrences(of: "SUMMARY:Autumn break", with: "SUMMARY:Autumn holidays"))
        // Last-Modified has whole seconds: make the change visibly later.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: changedFeed)
        sync = try client.run(["sync"])
        #expect(sync.stdout.contains("0 down, 0 up (feed unchanged)"), "\(sync.stdout)")
        sync = try client.run(["sync", "--force"])
        #expect(sync.stdout.contains(": 1 down, 0 up"), "\(sync.stdout)")
        #expect(try client.run(["query", "--at", "2026-10-20"]).stdout.contains("Autumn holidays"))
        // A feed that is no longer iCalendar keeps the last good copy.
        let moved = try feeds.write("holidays.ics", "<html>moved</html>")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(20)], ofItemAtPath: moved)
        sync = try client.run(["sync", "--force"])
        #expect(sync.status == 1)
        #expect(sync.stderr.contains("not iCalendar data; the last good copy is kept"), "\(sync.stderr)")
        #expect(client.files(in: collection).count == count)
    }
}

/// The same account through vdirsyncer and the same mirror through khal: what one client
/// uploads the other sees.
@Suite(.serialized) struct CalDAVInteropTests {
    @Test func vdirsyncerAndKhalSeeWhatWeSyncAndWeSeeWhatVdirsyncerUploads() throws {
        let server = try DAVServers.Server(.radicale)
        defer { server.stop() }
        let client = try CalDAVSyncTests.Client()
        defer { client.folder.remove() }
        let secret = try client.folder.write("password", server.password + "\n")
        let added = try client.run(["sources", "add", "caldav", server.baseURL, "--name", "Lessons", "--user", server.user,
                                    "--password-command", "cat \(secret)"])
        #expect(added.status == 0, "\(added.stderr)")
        let collection = try client.collection(for: server.calendarPath)

        // Ours goes up.
        let lessons = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path
        #expect(try client.run(["import", "--calendar", collection, lessons]).status == 0)
        #expect(try client.run(["sync"]).status == 0)

        // vdirsyncer mirrors the same account into a folder of its own.
        let bin = try DAVServers.bin.get()
        let root = client.folder.url.path
        let config = try client.folder.write("vdirsyncer.conf", """
            [general]
            status_path = "\(root)/vdirsyncer-status/"

            [pair lessons]
            a = "local"
            b = "remote"
            collections = ["from b"]

            [storage local]
            type = "filesystem"
            path = "\(root)/vdirsyncer/"
            fileext = ".ics"

            [storage remote]
            type = "caldav"
            url = "\(server.baseURL)"
            username = "\(server.user)"
            password.fetch = ["command", "cat", "\(secret)"]
            """)
        var run = PythonPeers.run("/bin/sh", ["-c", "yes | \(bin)/vdirsyncer -c \(config) discover"])
        #expect(run.status == 0, "\(run.stderr)")
        run = PythonPeers.run(bin + "/vdirsyncer", ["-c", config, "sync"])
        #expect(run.status == 0, "\(run.stderr)")
        let theirs = root + "/vdirsyncer/lessons"
        let mirrored = (try? FileManager.default.contentsOfDirectory(atPath: theirs)) ?? []
        let texts = try mirrored.map { try String(contentsOfFile: theirs + "/" + $0, encoding: .utf8) }
        #expect(texts.contains { $0.contains("UID:piano-weekly@openeventkit.example") }, "\(mirrored)")

        // Theirs comes down.
        try DAVServers.Server.event(uid: "from-vdirsyncer@example", summary: "Choir", start: "20261203T170000Z")
            .write(toFile: theirs + "/from-vdirsyncer.ics", atomically: true, encoding: .utf8)
        run = PythonPeers.run(bin + "/vdirsyncer", ["-c", config, "sync"])
        #expect(run.status == 0, "\(run.stderr)")
        let sync = try client.run(["sync"])
        #expect(sync.stdout.contains(": 1 down, 0 up"), "\(sync.stdout)")
        #expect(try client.run(["query", "--at", "2026-12-03"]).stdout.contains("Choir"))

        // khal reads the mirror as it reads any vdir.
        if let khal = try? KhalInteropTests.khal.get() {
            let khalConfig = try KhalInteropTests.configuration(calendar: client.store + "/" + collection, in: client.folder)
            let listed = PythonPeers.run(khal, ["-c", khalConfig, "list", "--format", "{start} {title}", "--day-format", "", "2026-12-03", "1d"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("Choir"), "\(listed.stdout)")
        } else {
            Issue.record("khal could not be installed from PyPI")
        }
    }
}
