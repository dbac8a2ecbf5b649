import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Real CalDAV servers for the sync tests: Radicale and Xandikos from PyPI (and vdirsyncer, the
/// client compared with), installed into a
/// test-only virtualenv (`.build/dav-venv`, retried once), each started on 127.0.0.1 with a
/// free port and a temporary folder, and stopped by the test. Never a mock, never another
/// address than loopback.
enum DAVServers {
    static let venv = ICalRunner.packageRoot.appendingPathComponent(".build/dav-venv")

    /// The venv's bin folder, or why it could not be set up.
    static let bin: Result<String, PythonPeers.PeerError> = {
        let python = venv.appendingPathComponent("bin/python").path
        if !FileManager.default.isExecutableFile(atPath: python) {
            let created = PythonPeers.run("/usr/bin/env", ["python3", "-m", "venv", venv.path])
            guard created.status == 0 else { return .failure(PythonPeers.PeerError("python3 -m venv failed: \(created.stderr)")) }
        }
        let bin = venv.appendingPathComponent("bin").path
        if PythonPeers.run(python, ["-c", "import radicale, xandikos, vdirsyncer"]).status == 0 { return .success(bin) }
        for _ in 0..<2 {
            let install = PythonPeers.run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                                   "radicale==3.9.0", "xandikos==0.4.10", "vdirsyncer==0.21.0"])
            if install.status == 0 { return .success(bin) }
        }
        return .failure(PythonPeers.PeerError("pip could not install radicale and xandikos from PyPI"))
    }()

    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case radicale, xandikos
        var testDescription: String { rawValue }
    }

    /// A running server; `stop()` ends it.
    final class Server {
        let kind: Kind
        let port: Int
        let folder: TemporaryFolder
        let process: Process
        let user = "alice"
        let password = "s3cret-pw"

        var baseURL: String { "http://127.0.0.1:\(port)/" }

        /// The path of the calendar the tests write to directly (as another client would).
        var calendarPath: String { kind == .radicale ? "/alice/lessons/" : "/user/calendars/calendar/" }

        init(_ kind: Kind) throws {
            let bin = try DAVServers.bin.get()
            self.kind = kind
            folder = try TemporaryFolder()
            port = try DAVServers.freePort()
            process = Process()
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            switch kind {
            case .radicale:
                let users = try folder.write("users", "\(user):\(password)\n")
                let config = try folder.write("config", """
                    [server]
                    hosts = 127.0.0.1:\(port)
                    [auth]
                    type = htpasswd
                    htpasswd_filename = \(users)
                    htpasswd_encryption = plain
                    [storage]
                    filesystem_folder = \(folder.url.path)/collections
                    [rights]
                    type = owner_only
                    [logging]
                    level = warning
                    """)
                process.executableURL = URL(fileURLWithPath: bin + "/python")
                process.arguments = ["-m", "radicale", "--config", config]
            case .xandikos:
                process.executableURL = URL(fileURLWithPath: bin + "/xandikos")
                process.arguments = ["serve", "-d", folder.url.path + "/data", "--defaults", "-l", "127.0.0.1",
                                     "-p", String(port), "--state-dir", folder.url.path + "/state"]
            }
            try process.run()
            try waitUntilListening()
            if kind == .radicale {
                // Radicale makes the principal on the first request; the calendar by MKCALENDAR.
                _ = try request("PROPFIND", "/alice/", headers: ["Depth": "0"])
                let made = try request("MKCALENDAR", calendarPath)
                guard made.status == 201 else { throw PythonPeers.PeerError("MKCALENDAR answered \(made.status)") }
            }
        }

        deinit { stop() }

        /// Ends the server (see ``DAVServers/end(_:)``) and removes its folder.
        func stop() {
            DAVServers.end(process)
            folder.remove()
        }

        private func waitUntilListening() throws {
            for _ in 0..<150 {
                if let response = try? request("OPTIONS", "/"), response.status > 0 { return }
                guard process.isRunning else { throw PythonPeers.PeerError("\(kind) exited at start") }
                Thread.sleep(forTimeInterval: 0.1)
            }
            throw PythonPeers.PeerError("\(kind) did not start listening on \(port)")
        }

        /// A request as another client would make it (HTTP Basic with the account).
        func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil,
                     port: Int? = nil) throws -> (status: Int, body: String, etag: String?) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port ?? self.port)\(path)")!)
            request.httpMethod = method
            request.timeoutInterval = 10
            request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            if let body { request.httpBody = Data(body.utf8) }
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var result: (Int, String, String?)?
            nonisolated(unsafe) var failure: Error?
            request.setValue("close", forHTTPHeaderField: "Connection")
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { failure = error }
                if let response = response as? HTTPURLResponse {
                    result = (response.statusCode, String(decoding: data ?? Data(), as: UTF8.self), response.value(forHTTPHeaderField: "ETag"))
                }
                done.signal()
            }.resume()
            done.wait()
            if let failure { throw failure }
            guard let result else { throw PythonPeers.PeerError("no response") }
            return result
        }

        /// Puts an event at `name` in the test calendar.
        @discardableResult
        func put(_ name: String, uid: String, summary: String, start: String = "20261201T100000Z") throws -> Int {
            try request("PUT", calendarPath + name, headers: ["Content-Type": "text/calendar; charset=utf-8"], body: Self.event(uid: uid, summary: summary, start: start)).status
        }

        static func event(uid: String, summary: String, start: String = "20261201T100000Z") -> String {
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit tests//EN\r\nBEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260101T000000Z\r\n"
                + "DTSTART:\(start)\r\nDURATION:PT1H\r\nSUMMARY:\(summary)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        }
    }

    /// Ends a server process with SIGKILL: the test runner ignores SIGTERM, and an ignored
    /// signal stays ignored across exec, so the servers it starts would never see one.
    static func end(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A TCP port nothing listens on now (bound and released by the kernel's choice).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PythonPeers.PeerError("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw PythonPeers.PeerError("bind failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw PythonPeers.PeerError("getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
