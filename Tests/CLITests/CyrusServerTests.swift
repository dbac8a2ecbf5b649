import Foundation
import Testing

/// Cyrus's implicit scheduling (RFC 6638) with plain HTTP requests, no `ical`: what the
/// invitation tests will stand on. Each test starts its own ``CyrusServer`` and stops it.
@Suite(.serialized)
struct CyrusServerTests {
    static let uid = "meeting-1@openeventkit.test"

    /// The teacher's invitation: the teacher chairs, the parent is asked to answer.
    static func invitation(_ server: CyrusServer, sequence: Int = 0, status: String? = nil) -> String {
        let teacher = server.user("teacher"), parent = server.user("parent")
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit tests//EN\r\nBEGIN:VEVENT\r\n"
            + "UID:\(uid)\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261201T100000Z\r\nDURATION:PT30M\r\n"
            + "SUMMARY:Parent-teacher meeting\r\nSEQUENCE:\(sequence)\r\n" + (status.map { "STATUS:\($0)\r\n" } ?? "")
            + "ORGANIZER;CN=Teacher:\(teacher.address)\r\n"
            + "ATTENDEE;CN=Teacher;PARTSTAT=ACCEPTED;ROLE=CHAIR:\(teacher.address)\r\n"
            + "ATTENDEE;CN=Parent;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;ROLE=REQ-PARTICIPANT:\(parent.address)\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    /// The text with folded lines joined and CRLF made LF.
    static func unfolded(_ ics: String) -> String {
        ics.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n ", with: "")
    }

    /// The unfolded line that starts with `prefix` and contains `containing`.
    static func line(_ ics: String, _ prefix: String, containing: String = "") -> String? {
        unfolded(ics).split(separator: "\n").map(String.init).first {
            $0.hasPrefix(prefix) && (containing.isEmpty || $0.contains(containing))
        }
    }

    /// Polls `condition` every 0.1 s for at most `seconds`; Cyrus schedules inside the request,
    /// so this only guards against a slower machine.
    static func eventually(_ seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        return try condition()
    }

    /// The bodies of the resources in `user`'s schedule inbox.
    static func inbox(_ server: CyrusServer, _ name: String) throws -> [String] {
        try server.members(user: name, path: server.user(name).inboxPath).map {
            try server.request(user: name, method: "GET", path: $0).body
        }
    }

    /// The teacher invites; returns the path of the parent's copy.
    static func invite(_ server: CyrusServer) throws -> String {
        let teacher = server.user("teacher"), parent = server.user("parent")
        let put = try server.put(user: "teacher", path: teacher.calendarPath + "meeting-1.ics", ics: invitation(server))
        #expect(put.status == 201)
        #expect(put.scheduleTag != nil)
        let copyPath = parent.calendarPath + uid + ".ics"
        #expect(try eventually { try server.members(user: "parent", path: parent.calendarPath).contains(copyPath) },
                "the parent's calendar has no \(copyPath)")
        return copyPath
    }

    @Test func principalReportsTheSchedulingProperties() throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let teacher = server.user("teacher")
        let answer = try server.request(user: "teacher", method: "PROPFIND", path: teacher.principalPath,
                                        headers: ["Depth": "0", "Content-Type": "application/xml; charset=utf-8"], body: """
            <?xml version="1.0" encoding="utf-8"?>
            <D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop>
            <D:current-user-principal/><C:calendar-home-set/><C:calendar-user-address-set/>
            <C:schedule-inbox-URL/><C:schedule-outbox-URL/></D:prop></D:propfind>
            """)
        #expect(answer.status == 207)
        let body = answer.body
        #expect(body.contains("<D:current-user-principal><D:href>/dav/principals/user/teacher/</D:href>"))
        #expect(body.contains("<C:calendar-home-set><D:href>/dav/calendars/user/teacher/</D:href>"))
        #expect(body.contains("<C:calendar-user-address-set><D:href>mailto:teacher@example.test</D:href>"))
        #expect(body.contains("<C:schedule-inbox-URL><D:href>/dav/calendars/user/teacher/Inbox/</D:href>"))
        #expect(body.contains("<C:schedule-outbox-URL><D:href>/dav/calendars/user/teacher/Outbox/</D:href>"))
        #expect(teacher.address == "mailto:teacher@example.test")

        let options = try server.request(user: "teacher", method: "OPTIONS", path: teacher.calendarHomePath)
        #expect(options.status == 200)
        // URLSession joins the repeated DAV header lines; a raw HTTP check keeps the facts honest.
        let raw = try rawHeaders(port: server.httpPort, path: teacher.calendarHomePath, user: teacher)
        #expect(raw.contains("DAV: calendar-access, calendar-auto-schedule"), "\(raw)")
    }

    @Test func invitationLandsInTheAttendeesCalendarAndInbox() throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let copyPath = try Self.invite(server)

        let copy = try server.request(user: "parent", method: "GET", path: copyPath)
        #expect(copy.status == 200)
        #expect(copy.scheduleTag != nil)
        #expect(Self.line(copy.body, "ATTENDEE", containing: "mailto:parent@example.test")?.contains("PARTSTAT=NEEDS-ACTION") == true)
        #expect(Self.line(copy.body, "SEQUENCE") == "SEQUENCE:1", "Cyrus raises the attendee copy's SEQUENCE")
        #expect(Self.line(copy.body, "PRODID")?.contains("CyrusIMAP.org") == true)
        #expect(!Self.unfolded(copy.body).contains("SCHEDULE-STATUS"))

        let inbox = try Self.inbox(server, "parent")
        #expect(inbox.count == 1)
        #expect(inbox.first.flatMap { Self.line($0, "METHOD") } == "METHOD:REQUEST")
        #expect(inbox.first.flatMap { Self.line($0, "UID") } == "UID:\(Self.uid)")

        let organizerCopy = try server.request(user: "teacher", method: "GET", path: server.user("teacher").calendarPath + "meeting-1.ics")
        #expect(Self.line(organizerCopy.body, "ATTENDEE", containing: "mailto:parent@example.test")?.contains("SCHEDULE-STATUS=1.2") == true)
        #expect(Self.line(organizerCopy.body, "SEQUENCE") == "SEQUENCE:0", "the organizer's copy keeps its SEQUENCE")
    }

    @Test func acceptanceReachesTheOrganizer() throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let copyPath = try Self.invite(server)
        let copy = try server.request(user: "parent", method: "GET", path: copyPath)
        let accepted = Self.unfolded(copy.body).replacingOccurrences(of: "PARTSTAT=NEEDS-ACTION", with: "PARTSTAT=ACCEPTED")
            .replacingOccurrences(of: "\n", with: "\r\n")
        let put = try server.put(user: "parent", path: copyPath, ics: accepted,
                                 headers: copy.scheduleTag.map { ["If-Schedule-Tag-Match": $0] } ?? [:])
        #expect(put.status == 204)

        let teacher = server.user("teacher")
        var organizerCopy = ""
        #expect(try Self.eventually {
            organizerCopy = try server.request(user: "teacher", method: "GET", path: teacher.calendarPath + "meeting-1.ics").body
            return Self.line(organizerCopy, "ATTENDEE", containing: "mailto:parent@example.test")?.contains("PARTSTAT=ACCEPTED") == true
        }, "\(organizerCopy)")
        let parentLine = Self.line(organizerCopy, "ATTENDEE", containing: "mailto:parent@example.test") ?? ""
        #expect(parentLine.contains("X-SEQUENCE=1"), "\(parentLine)")
        #expect(parentLine.contains("X-DTSTAMP="), "\(parentLine)")

        let inbox = try Self.inbox(server, "teacher")
        #expect(inbox.count == 1)
        #expect(inbox.first.flatMap { Self.line($0, "METHOD") } == "METHOD:REPLY")
    }

    @Test(arguments: ["DELETE", "CANCELLED"])
    func cancellationReachesTheAttendee(_ how: String) throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let copyPath = try Self.invite(server)
        let organizerPath = server.user("teacher").calendarPath + "meeting-1.ics"
        if how == "DELETE" {
            #expect(try server.request(user: "teacher", method: "DELETE", path: organizerPath).status == 204)
        } else {
            let put = try server.put(user: "teacher", path: organizerPath, ics: Self.invitation(server, sequence: 1, status: "CANCELLED"))
            #expect(put.status == 204)
        }
        var methods: [String] = []
        #expect(try Self.eventually {
            methods = try Self.inbox(server, "parent").compactMap { Self.line($0, "METHOD") }.sorted()
            return methods == ["METHOD:CANCEL", "METHOD:REQUEST"]
        }, "\(methods)")
        let copy = try server.request(user: "parent", method: "GET", path: copyPath)
        #expect(copy.status == 200, "the attendee's copy stays")
        #expect(Self.line(copy.body, "STATUS") == "STATUS:CANCELLED")
    }

    @Test func schedulingPutAnswersWithoutETag() throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let teacher = server.user("teacher")
        let scheduling = try server.put(user: "teacher", path: teacher.calendarPath + "meeting-1.ics", ics: Self.invitation(server))
        #expect(scheduling.status == 201)
        #expect(scheduling.etag == nil, "Cyrus stored the organizer's copy with SCHEDULE-STATUS added")
        #expect(scheduling.scheduleTag != nil)
        let stored = try server.request(user: "teacher", method: "GET", path: teacher.calendarPath + "meeting-1.ics")
        #expect(stored.etag != nil)

        let plain = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit tests//EN\r\nBEGIN:VEVENT\r\nUID:plain-1\r\n"
            + "DTSTAMP:20260101T000000Z\r\nDTSTART:20261201T100000Z\r\nDURATION:PT1H\r\nSUMMARY:Marking\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let put = try server.put(user: "teacher", path: teacher.calendarPath + "plain-1.ics", ics: plain)
        #expect(put.status == 201)
        #expect(put.etag != nil)
        #expect(put.scheduleTag == nil)

        let noEnd = try server.put(user: "teacher", path: teacher.calendarPath + "plain-2.ics",
                                   ics: plain.replacingOccurrences(of: "plain-1", with: "plain-2").replacingOccurrences(of: "DURATION:PT1H\r\n", with: ""))
        #expect(noEnd.status == 403, "Cyrus wants DTEND or DURATION on a timed event")
        #expect(noEnd.body.contains("DTEND must occur after DTSTART"))
    }

    @Test func missingProgramNamesItsPackage() {
        let error = #expect(throws: CyrusServer.Failure.self) {
            try CyrusServer.checkInstalled([("/nonexistent/cyrmaster", "cyrus-common"), ("/bin/sh", "dash")])
        }
        #expect(error?.description.contains("apt-get install -y cyrus-common") == true)
        #expect(error?.description.contains("dash") == false)
    }

    @Test func stopLeavesNoProcessOrFolder() throws {
        let server = try CyrusServer()
        let folder = server.folder.url.path
        #expect(!CyrusServer.processes(mentioning: folder).isEmpty)
        server.stop()
        #expect(CyrusServer.processes(mentioning: folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    /// The response headers of an OPTIONS request, read from a raw socket (curl would fold them).
    func rawHeaders(port: Int, path: String, user: CyrusServer.User) throws -> String {
        let handle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(handle >= 0)
        defer { close(handle) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(handle, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw CyrusServer.Failure("connect to \(port) failed") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(handle, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let credentials = Data("\(user.name):\(user.password)".utf8).base64EncodedString()
        let request = "OPTIONS \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Basic \(credentials)\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(handle, $0, strlen($0), 0) }
        let data = PipeReader.readAll(FileHandle(fileDescriptor: handle, closeOnDealloc: false))
        return String(decoding: data, as: UTF8.self)
    }
}
