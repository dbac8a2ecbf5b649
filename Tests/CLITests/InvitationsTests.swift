import Foundation
import Testing

/// Invitations end to end on a scheduling server (Cyrus IMAP's CalDAV, RFC 6638 implicit
/// scheduling, started on loopback by ``CyrusServer``): a teacher invites a parent; the
/// parent's `ical sync` brings the invitation down and learns who the account is; the viewer
/// answers for the parent's own invitee entry; the next sync uploads the answer, and the
/// teacher's copy on the server shows it. A cancellation reaches the parent too.
@Suite(.serialized) struct InvitationsTests {
    static func invitation(uid: String, summary: String, start: String, teacher: CyrusServer.User, parent: CyrusServer.User,
                           status: String? = nil) -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//OpenEventKit tests//EN\r
        BEGIN:VEVENT\r
        UID:\(uid)\r
        DTSTAMP:20261101T000000Z\r
        SEQUENCE:0\r
        DTSTART:\(start)\r
        DURATION:PT1H\r
        SUMMARY:\(summary)\r
        \(status.map { "STATUS:\($0)\r\n" } ?? "")ORGANIZER;CN=Teacher:\(teacher.address)\r
        ATTENDEE;CN=Teacher;PARTSTAT=ACCEPTED:\(teacher.address)\r
        ATTENDEE;CN=Parent;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:\(parent.address)\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    /// The parent's machine: a store with the school account as a source.
    struct Machine {
        let client: CalDAVSyncTests.Client

        init(_ server: CyrusServer, user: CyrusServer.User) throws {
            client = try CalDAVSyncTests.Client()
            let secret = try client.folder.write("password", user.password + "\n")
            let added = try client.run(["sources", "add", "caldav", server.baseURL, "--name", "School", "--user", user.name,
                                        "--password-command", "cat \(secret)"])
            #expect(added.status == 0, "\(added.stderr)")
            #expect(try client.run(["privacy", "grant", "org.example.planner", "--events", "full"]).status == 0)
        }

        func sync() throws -> ICalRunner.Output {
            let sync = try client.run(["sync"])
            #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr)")
            return sync
        }

        /// The store path of the item holding `summary` (`collection/file.ics`) and its text.
        func item(_ summary: String) throws -> (id: String, text: String) {
            for entry in try FileManager.default.contentsOfDirectory(atPath: client.store) where !entry.hasPrefix(".") {
                for name in client.files(in: entry) {
                    let text = try String(contentsOfFile: client.store + "/" + entry + "/" + name, encoding: .utf8)
                    if text.contains("SUMMARY:\(summary)\r\n") { return (entry + "/" + name, text) }
                }
            }
            throw CyrusServer.Failure("no item \(summary) in the store")
        }

        /// `ical ui view-event` on a terminal, typing `answer` at the viewer's prompt.
        func view(_ id: String, waitFor: String, answer: String) throws -> TerminalDriver.Result {
            let command = RunCommandTests.shell([ICalRunner.executable.path, "ui", "view-event", "--app-id", "org.example.planner",
                                                 "--event-identifier", id, "--no-calendar-preview", "--store", client.store])
            let result = try TerminalDriver.run(command + " > /dev/null", steps: [.init(waitFor: waitFor, type: answer)],
                                                environment: ["HOME": client.folder.url.path])
            #expect(result.missed.isEmpty, "never shown: \(result.missed)\n\(result.transcript)")
            return result
        }
    }

    /// The ATTENDEE line of `address` in an item's text (unfolded).
    static func attendee(_ address: String, in text: String) -> String {
        text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
            .first { $0.hasPrefix("ATTENDEE") && $0.hasSuffix(address) } ?? ""
    }

    /// The ATTENDEE line of the parent in the teacher's copy of `name` on the server.
    static func organizerSees(_ parent: CyrusServer.User, _ name: String, on server: CyrusServer) throws -> String {
        attendee(parent.address, in: try server.request(user: "teacher", method: "GET",
                                                        path: server.user("teacher").calendarPath + name).body)
    }

    static func sequence(_ text: String) -> String? {
        text.components(separatedBy: "\r\n").first { $0.hasPrefix("SEQUENCE:") }
    }

    @Test func theParentAnswersAndTheTeacherSeesIt() throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let teacher = server.user("teacher"), parent = server.user("parent")
        let invited = try server.put(user: "teacher", path: teacher.calendarPath + "meeting.ics",
                                     ics: Self.invitation(uid: "meeting@example.test", summary: "Parents' evening",
                                                          start: "20261203T170000Z", teacher: teacher, parent: parent))
        #expect(invited.status == 201, "\(invited.body)")

        let machine = try Machine(server, user: parent)
        defer { machine.client.folder.remove() }
        // The account says who the parent is (RFC 6638 calendar-user-address-set).
        let me = try machine.client.run(["calendars", "me"])
        #expect(me.stdout.contains("School"), "\(me.stdout)")
        #expect(me.stdout.contains(parent.address), "\(me.stdout)")

        // Down: the invitation (the server put it into the parent's calendar and Inbox); the
        // Inbox message is handled and removed.
        _ = try machine.sync()
        let (id, before) = try machine.item("Parents' evening")
        #expect(try server.members(user: "parent", path: parent.inboxPath).isEmpty)

        // The viewer answers for the parent, without asking which invitee they are.
        let viewed = try machine.view(id, waitFor: "Decline; l List.", answer: "a")
        #expect(viewed.transcript.contains("Parent <parent@example.test> (no answer yet) (you)"), "\(viewed.transcript)")
        #expect(!viewed.transcript.contains("which one answers"))
        #expect(viewed.transcript.contains("Answered: accepted."), "\(viewed.transcript)")
        let answered = try machine.item("Parents' evening").text
        #expect(answered.contains("PARTSTAT=ACCEPTED:\(parent.address)"), "\(answered)")
        #expect(answered.contains("ATTENDEE;CN=Teacher;PARTSTAT=ACCEPTED:\(teacher.address)"), "no other attendee touched")
        #expect(!answered.contains("RSVP=TRUE"))
        // RFC 5546 3.2.3: the attendee's answer keeps the organizer's SEQUENCE.
        #expect(Self.sequence(answered) == Self.sequence(before), "\(answered)")

        // Up: the teacher's copy on the server shows the answer.
        _ = try machine.sync()
        #expect(try Self.organizerSees(parent, "meeting.ics", on: server).contains("PARTSTAT=ACCEPTED"))
        // Nothing left to move.
        #expect(try machine.sync().stdout.contains(": 0 down, 0 up"))

        // The teacher moves the meeting (a new SEQUENCE): the server sends the update, and
        // the parent sees the new time with their answer back to NEEDS-ACTION.
        let moved = Self.invitation(uid: "meeting@example.test", summary: "Parents' evening", start: "20261203T180000Z",
                                    teacher: teacher, parent: parent).replacingOccurrences(of: "SEQUENCE:0", with: "SEQUENCE:1")
        #expect((200..<300).contains(try server.put(user: "teacher", path: teacher.calendarPath + "meeting.ics", ics: moved).status))
        #expect(try machine.sync().stdout.contains(": 1 down, 0 up"))
        let updated = try machine.item("Parents' evening").text
        #expect(updated.contains("DTSTART:20261203T180000Z"), "\(updated)")
        #expect(Self.attendee(parent.address, in: updated).contains("PARTSTAT=NEEDS-ACTION"), "\(updated)")
        // Maybe, this time.
        let again = try machine.view(try machine.item("Parents' evening").id, waitFor: "Decline; l List.", answer: "m")
        #expect(again.transcript.contains("Answered: maybe."), "\(again.transcript)")
        _ = try machine.sync()
        #expect(try Self.organizerSees(parent, "meeting.ics", on: server).contains("PARTSTAT=TENTATIVE"))
    }

    @Test func anInvitationLeftOnlyInTheInboxIsSeenAndAnswered() throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let teacher = server.user("teacher"), parent = server.user("parent")
        #expect(try server.put(user: "teacher", path: teacher.calendarPath + "concert.ics",
                               ics: Self.invitation(uid: "concert@example.test", summary: "Concert", start: "20261212T180000Z",
                                                    teacher: teacher, parent: parent)).status == 201)
        // Only the Inbox keeps it: the parent's calendar copy is removed without a reply
        // (RFC 6638 Schedule-Reply: F), as on a server that does not add invitations.
        let copies = try server.members(user: "parent", path: parent.calendarPath)
        let copy = try #require(copies.first)
        #expect(try server.request(user: "parent", method: "DELETE", path: copy, headers: ["Schedule-Reply": "F"]).status < 300)
        #expect(try server.members(user: "parent", path: parent.calendarPath).isEmpty)
        #expect(try server.members(user: "parent", path: parent.inboxPath).count == 1)

        let machine = try Machine(server, user: parent)
        defer { machine.client.folder.remove() }
        let sync = try machine.sync()
        #expect(sync.stdout.contains("note: 1 invitation from the scheduling Inbox added"), "\(sync.stdout)")
        let (id, text) = try machine.item("Concert")
        #expect(!text.contains("METHOD:"))
        #expect(try server.members(user: "parent", path: parent.inboxPath).isEmpty)
        // It is in the parent's calendar on the server too, and answering it reaches the teacher.
        #expect(try server.members(user: "parent", path: parent.calendarPath).count == 1)
        let viewed = try machine.view(id, waitFor: "Decline; l List.", answer: "n")
        #expect(viewed.transcript.contains("Answered: declined."), "\(viewed.transcript)")
        _ = try machine.sync()
        #expect(try Self.organizerSees(parent, "concert.ics", on: server).contains("PARTSTAT=DECLINED"))
    }

    @Test func aSourceAddedBeforeIdentitiesLearnsItsOwnAtTheNextSync() throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let parent = server.user("parent")
        let machine = try Machine(server, user: parent)
        defer { machine.client.folder.remove() }
        // sources.json as an earlier version wrote it: no identity.
        let path = machine.client.store + "/.openeventkit/sources.json"
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var sources = try #require(json["sources"] as? [[String: Any]])
        #expect(sources[0]["identity"] != nil)
        sources[0]["identity"] = nil
        json["sources"] = sources
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        #expect(!(try machine.client.run(["calendars", "me"]).stdout.contains(parent.address)))
        _ = try machine.sync()
        #expect(try machine.client.run(["calendars", "me"]).stdout.contains(parent.address))
    }

    @Test func aCancellationReachesTheParent() throws {
        let server = try CyrusServer()
        defer { server.stop() }
        let teacher = server.user("teacher"), parent = server.user("parent")
        #expect(try server.put(user: "teacher", path: teacher.calendarPath + "trip.ics",
                               ics: Self.invitation(uid: "trip@example.test", summary: "School trip", start: "20261210T080000Z",
                                                    teacher: teacher, parent: parent)).status == 201)
        let machine = try Machine(server, user: parent)
        defer { machine.client.folder.remove() }
        _ = try machine.sync()
        #expect(!(try machine.item("School trip").text.contains("STATUS:CANCELLED")))

        // The teacher cancels; the parent's next sync shows it cancelled and empties the Inbox.
        let cancelled = try server.put(user: "teacher", path: teacher.calendarPath + "trip.ics",
                                       ics: Self.invitation(uid: "trip@example.test", summary: "School trip", start: "20261210T080000Z",
                                                            teacher: teacher, parent: parent, status: "CANCELLED"))
        #expect((200..<300).contains(cancelled.status), "\(cancelled.body)")
        _ = try machine.sync()
        #expect(try machine.item("School trip").text.contains("STATUS:CANCELLED"))
        #expect(try server.members(user: "parent", path: parent.inboxPath).isEmpty)
        // Listed as cancelled.
        let listed = try machine.client.run(["query", "--at", "2026-12-10", "--format", "json"])
        #expect(listed.stdout.contains("\"status\": \"CANCELLED\""), "\(listed.stdout)")
    }
}
