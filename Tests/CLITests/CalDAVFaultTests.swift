import Foundation
import Testing

/// `ical sync` against a real Radicale behind a fault-injecting proxy (a small Python
/// program on loopback, written by the test): a 500 on some items, malformed XML, a response
/// larger than the limit, and a server that goes away in the middle of a sync. After each: no
/// local change lost, no duplicate, and the next sync completes.
@Suite(.serialized) struct CalDAVFaultTests {
    /// Forwards every request to the server, or fails it as `/__fault__/MODE[/N]` last said:
    /// `none`, `fail-items` (500 for PUT and DELETE of hrefs with "fail" in them),
    /// `malformed` (a cut-off multistatus for PROPFIND and REPORT), `huge` (a 70 MiB answer to
    /// PROPFIND and REPORT), `drop/N` (after N more requests, close connections unanswered),
    /// `rewrite` (a PUT is stored changed and answered without an ETag). The slow modes
    /// (``CalDAVStallTests``) apply to PROPFIND, REPORT and the proxy's own feed,
    /// `/feed.ics`: `silent` (no answer at all), `headers` (a status line and a
    /// `Content-Length` of 100,000, then nothing), `trickle` (the same, then one byte every
    /// half second), `think/N` (N seconds of nothing, then the answer) and `slow` (the answer
    /// padded to 12 KiB and sent at 2.5 KiB/s). A stalled answer gives up after 90 s.
    static let proxy = #"""
        import http.server, socket, sys, time, urllib.request, urllib.error
        PORT, UPSTREAM = int(sys.argv[1]), sys.argv[2]
        STATE = {"mode": "none", "after": 0, "count": 0}
        FEED = (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit tests//EN\r\nX-WR-CALNAME:School\r\n"
                b"BEGIN:VEVENT\r\nUID:feed-1@example\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261201T090000Z\r\n"
                b"DURATION:PT1H\r\nSUMMARY:Assembly\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def reply(self, status, body=b"", headers=()):
                self.send_response(status)
                for name, value in headers: self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def stall(self, mode, status, content_type):
                # Gives up after 90 s: the test's process is gone long before.
                if mode != "silent":
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                end = time.time() + 90
                try:
                    while time.time() < end:
                        if mode == "trickle":
                            self.wfile.write(b" ")
                        time.sleep(0.5)
                except OSError:
                    pass
                self.close_connection = True
            def slowly(self, status, data, headers):
                data = data + b" " * max(0, 12288 - len(data))
                self.send_response(status)
                for name, value in headers: self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                for start in range(0, len(data), 1024):
                    self.wfile.write(data[start:start + 1024])
                    time.sleep(0.4)
            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if self.path.startswith("/__fault__/"):
                    parts = self.path.split("/")[2:]
                    STATE.update(mode=parts[0], after=int(parts[1]) if len(parts) > 1 else 0, count=0)
                    return self.reply(200)
                STATE["count"] += 1
                mode, listing = STATE["mode"], self.command in ("PROPFIND", "REPORT")
                feed = self.path == "/feed.ics"
                if mode in ("silent", "headers", "trickle") and (listing or feed):
                    return self.stall(mode, 200 if feed else 207, "text/calendar" if feed else "application/xml")
                if mode == "think" and (listing or feed):
                    time.sleep(STATE["after"])
                if feed:
                    if mode == "slow":
                        return self.slowly(200, FEED, [("Content-Type", "text/calendar")])
                    return self.reply(200, FEED, [("Content-Type", "text/calendar")])
                if mode == "drop" and STATE["count"] > STATE["after"]:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if mode == "fail-items" and self.command in ("PUT", "DELETE") and "fail" in self.path:
                    return self.reply(500, b"injected failure")
                if mode == "malformed" and listing:
                    return self.reply(207, b"<?xml version='1.0'?><multistatus xmlns='DAV:'><response><href>/x", [("Content-Type", "application/xml")])
                if mode == "huge" and listing:
                    size = 70 << 20
                    self.send_response(207)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(size))
                    self.end_headers()
                    try:
                        chunk = b" " * (1 << 20)
                        for _ in range(size >> 20): self.wfile.write(chunk)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection", "accept-encoding", "expect", "transfer-encoding")}
                request = urllib.request.Request(UPSTREAM + self.path, data=body, method=self.command, headers=headers)
                try:
                    response = urllib.request.urlopen(request, timeout=30)
                    status, data, got = response.status, response.read(), response.headers
                except urllib.error.HTTPError as error:
                    status, data, got = error.code, error.read(), error.headers
                keep = [(k, v) for k, v in got.items() if k.lower() in ("content-type", "etag", "location", "last-modified")]
                if mode == "rewrite" and self.command == "PUT" and status < 300:
                    # A server that changes what it was sent: it keeps its own version and
                    # answers without an ETag.
                    text = body.decode().replace("SUMMARY:", "SUMMARY:[normalised] ", 1).encode()
                    plain = {k: v for k, v in headers.items() if k.lower() not in ("if-match", "if-none-match")}
                    urllib.request.urlopen(urllib.request.Request(UPSTREAM + self.path, data=text, method="PUT", headers=plain), timeout=30)
                    keep = [(k, v) for k, v in keep if k.lower() != "etag"]
                if mode == "slow" and listing:
                    return self.slowly(status, data, keep)
                self.reply(status, data, keep)
            do_GET = do_PUT = do_DELETE = do_PROPFIND = do_REPORT = do_OPTIONS = do_MKCALENDAR = do_POST = do_HEAD = handle_any

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
        Server(("127.0.0.1", PORT), Handler).serve_forever()
        """#

    /// Radicale, the proxy in front of it, and a store syncing through the proxy.
    struct Setup {
        let server: DAVServers.Server
        let proxyProcess: Process
        let proxyPort: Int
        let client: CalDAVSyncTests.Client
        let collection: String
        var folder: String { client.store + "/" + collection }

        /// `addSource`: whether the store gets the account (through the proxy) at once.
        init(addSource: Bool = true) throws {
            let server = try DAVServers.Server(.radicale)
            self.server = server
            client = try CalDAVSyncTests.Client()
            proxyPort = try DAVServers.freePort()
            let script = try client.folder.write("proxy.py", CalDAVFaultTests.proxy)
            proxyProcess = Process()
            proxyProcess.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            proxyProcess.arguments = ["python3", script, String(proxyPort), "http://127.0.0.1:\(server.port)"]
            proxyProcess.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try proxyProcess.run()
            for attempt in 0..<50 {
                if let answer = try? server.request("GET", "/__fault__/none", port: proxyPort), answer.status == 200 { break }
                if attempt == 49 { throw PythonPeers.PeerError("the proxy did not start listening on \(proxyPort)") }
                Thread.sleep(forTimeInterval: 0.1)
            }
            guard addSource else {
                collection = ""
                return
            }
            let added = try Self.addAccount(client, server, proxyPort)
            #expect(added.status == 0, "\(added.stderr)")
            collection = try client.collection(for: server.calendarPath)
        }

        /// `ical sources add caldav` through the proxy, as Lessons.
        func addAccount(_ options: [String] = []) throws -> ICalRunner.Output {
            try Self.addAccount(client, server, proxyPort, options)
        }

        private static func addAccount(_ client: CalDAVSyncTests.Client, _ server: DAVServers.Server, _ proxyPort: Int,
                                       _ options: [String] = []) throws -> ICalRunner.Output {
            let secret = try client.folder.write("password", server.password + "\n")
            return try client.run(["sources", "add", "caldav", "http://127.0.0.1:\(proxyPort)/", "--name", "Lessons",
                                   "--user", server.user, "--password-command", "cat \(secret)"] + options)
        }

        func fault(_ mode: String) throws {
            let answer = try server.request("GET", "/__fault__/\(mode)", port: proxyPort)
            #expect(answer.status == 200)
        }

        func stop() {
            DAVServers.end(proxyProcess)
            server.stop()
            client.folder.remove()
        }

        /// Writes an item file here, as another program would.
        func writeLocal(_ name: String, uid: String, summary: String) throws {
            try DAVServers.Server.event(uid: uid, summary: summary).write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }

        func local() -> [String] { client.files(in: collection) }

        /// The server's items (name to summary), read directly.
        func remote() throws -> [String: String] {
            var result: [String: String] = [:]
            let listing = try server.request("PROPFIND", server.calendarPath, headers: ["Depth": "1"])
            for match in listing.body.matches(of: /<href>([^<]*\.ics)<\/href>/) {
                let href = String(match.1)
                let body = try server.request("GET", href).body
                let summary = body.split(separator: "\r\n").first { $0.hasPrefix("SUMMARY:") }.map { String($0.dropFirst(8)) } ?? ""
                result[String(href.split(separator: "/").last!)] = summary
            }
            return result
        }
    }

    @Test func aFiveHundredOnSomeItemsLosesNothing() throws {
        let setup = try Setup()
        defer { setup.stop() }
        try setup.server.put("r1.ics", uid: "r1@example", summary: "One")
        #expect(try setup.client.run(["sync"]).status == 0)
        try setup.writeLocal("a.ics", uid: "a@example", summary: "Alpha")
        try setup.writeLocal("fail-b.ics", uid: "fail-b@example", summary: "Beta")
        try setup.writeLocal("r1.ics", uid: "r1@example", summary: "One (changed here)")
        try setup.server.put("r2.ics", uid: "r2@example", summary: "Two")

        try setup.fault("fail-items")
        var sync = try setup.client.run(["sync"])
        #expect(sync.status == 1)
        #expect(sync.stderr.contains("fail-b.ics") && sync.stderr.contains("HTTP 500"), "\(sync.stderr)")
        #expect(sync.stdout.contains(": 1 down, 2 up"), "\(sync.stdout)")

        try setup.fault("none")
        sync = try setup.client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains(": 0 down, 1 up"), "\(sync.stdout)")
        #expect(setup.local() == ["a.ics", "fail-b.ics", "r1.ics", "r2.ics"])
        #expect(try setup.remote() == ["a.ics": "Alpha", "fail-b.ics": "Beta", "r1.ics": "One (changed here)", "r2.ics": "Two"])
        #expect(try setup.client.run(["sync"]).stdout.contains(": 0 down, 0 up"))
    }

    @Test func anUploadTheServerRewroteIsFetchedAgain() throws {
        let setup = try Setup()
        defer { setup.stop() }
        try setup.writeLocal("a.ics", uid: "a@example", summary: "Alpha")
        try setup.fault("rewrite")
        let sync = try setup.client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains(": 0 down, 1 up"), "\(sync.stdout)")
        try setup.fault("none")
        // The local file is the server's version, and the next sync has nothing to do.
        #expect(try String(contentsOfFile: setup.folder + "/a.ics", encoding: .utf8).contains("SUMMARY:[normalised] Alpha"))
        #expect(try setup.remote() == ["a.ics": "[normalised] Alpha"])
        #expect(try setup.client.run(["sync"]).stdout.contains(": 0 down, 0 up"))
    }

    @Test(arguments: ["malformed", "huge"])
    func aBrokenListingChangesNothing(mode: String) throws {
        let setup = try Setup()
        defer { setup.stop() }
        try setup.server.put("r1.ics", uid: "r1@example", summary: "One")
        #expect(try setup.client.run(["sync"]).status == 0)
        try setup.writeLocal("a.ics", uid: "a@example", summary: "Alpha")
        let state = try String(contentsOfFile: setup.client.store + "/.openeventkit/sync/\(setup.collection).json", encoding: .utf8)

        try setup.fault(mode)
        var sync = try setup.client.run(["sync"])
        #expect(sync.status == 1)
        #expect(sync.stderr.contains(mode == "huge" ? "larger than 64 MiB" : "XML cannot be read"), "\(sync.stderr)")
        #expect(setup.local() == ["a.ics", "r1.ics"])
        #expect(try String(contentsOfFile: setup.client.store + "/.openeventkit/sync/\(setup.collection).json", encoding: .utf8) == state)

        try setup.fault("none")
        sync = try setup.client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try setup.remote() == ["a.ics": "Alpha", "r1.ics": "One"])
    }

    @Test(arguments: [1, 2, 3])
    func aServerGoneInTheMiddleLosesNothingAndDuplicatesNothing(after requests: Int) throws {
        let setup = try Setup()
        defer { setup.stop() }
        try setup.server.put("r1.ics", uid: "r1@example", summary: "One")
        try setup.server.put("r2.ics", uid: "r2@example", summary: "Two")
        #expect(try setup.client.run(["sync"]).status == 0)
        // Both directions pending: a change and a creation here, a change there.
        try setup.writeLocal("r1.ics", uid: "r1@example", summary: "One (here)")
        try setup.writeLocal("c.ics", uid: "c@example", summary: "Three")
        let current = try setup.server.request("GET", setup.server.calendarPath + "r2.ics")
        _ = try setup.server.request("PUT", setup.server.calendarPath + "r2.ics", headers: ["If-Match": current.etag ?? "*"],
                                     body: current.body.replacingOccurrences(of: "SUMMARY:Two", with: "SUMMARY:Two (there)"))

        try setup.fault("drop/\(requests)")
        let cut = try setup.client.run(["sync"])
        #expect(cut.status == 1, "\(cut.stdout)")

        try setup.fault("none")
        let sync = try setup.client.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(!sync.stdout.contains("conflict"), "\(sync.stdout)")
        #expect(setup.local() == ["c.ics", "r1.ics", "r2.ics"])
        #expect(try setup.remote() == ["c.ics": "Three", "r1.ics": "One (here)", "r2.ics": "Two (there)"])
        #expect(try String(contentsOfFile: setup.folder + "/r2.ics", encoding: .utf8).contains("Two (there)"))
        #expect(try setup.client.run(["sync"]).stdout.contains(": 0 down, 0 up"))
    }
}
