import Foundation
import Testing

/// `ical ui view-event`, the trusted helper behind EKEventViewController, run as the built
/// binary on a pseudo-terminal: it shows a stored event to an app with full access, lets the
/// user answer an invitation or (when allowed) edit and delete it, and prints the action.
extension UICommandTests {
    static let invitation = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Tests//EN\r
        BEGIN:VEVENT\r
        UID:concert-rehearsal@school.example\r
        DTSTAMP:20261101T000000Z\r
        SEQUENCE:2\r
        DTSTART;TZID=Europe/Berlin:20261203T180000\r
        DTEND;TZID=Europe/Berlin:20261203T193000\r
        SUMMARY:Concert rehearsal\r
        LOCATION:Hall\r
        ORGANIZER;CN=Ada Director:mailto:ada@school.example\r
        ATTENDEE;CN=Ben Viola;PARTSTAT=ACCEPTED:mailto:ben@school.example\r
        ATTENDEE;CN=Cleo Cello;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:cleo@school.example\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        DESCRIPTION:Rehearsal\r
        TRIGGER:-PT30M\r
        END:VALARM\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:theory@school.example\r
        DTSTAMP:20261101T000000Z\r
        DTSTART:20261203T090000Z\r
        DTEND:20261203T100000Z\r
        SUMMARY:Theory class\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// The identifier of the event with this title (`ical events list` shows identifiers).
    private func identifier(of title: String, store: Store) throws -> String {
        let folder = try store.calendar("Calendar")
        let path = store.path + "/" + folder
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where name.hasSuffix(".ics") {
            if try String(contentsOfFile: path + "/" + name, encoding: .utf8).contains("SUMMARY:\(title)\r\n") { return folder + "/" + name }
        }
        throw CocoaError(.fileNoSuchFile)
    }

    /// Imports ``invitation`` into the store's Calendar, grants the planner app full access,
    /// and returns the rehearsal's identifier.
    private func importedInvitation(into store: Store) throws -> String {
        let file = try store.folder.write("invitation.ics", Self.invitation)
        try store.ical(["import", "--calendar", try store.calendar("Calendar"), file])
        _ = try ICalRunner.run(["privacy", "grant", "org.example.planner", "--events", "full", "--store", store.path])
        return try identifier(of: "Concert rehearsal", store: store)
    }

    @Test func theViewerShowsTheEventAndAnswersTheInvitation() throws {
        let store = try Store()
        defer { store.remove() }
        let id = try importedInvitation(into: store)
        // The user is Cleo (a local calendar: the addresses set with `ical calendars me`).
        let me = try store.ical(["calendars", "me", "cleo@school.example"])
        #expect(me.stdout.hasPrefix("Local calendars: mailto:cleo@school.example\n"), "\(me.stdout)")

        let (run, action) = try onTerminal(
            ["view-event", "--app-id", "org.example.planner", "--app-name", "Planner", "--event-identifier", id, "--allows-editing"],
            store: store, steps: [("Decline; l List.", "e"), ("Decline; l List.", "a")],
            environment: ["TZ": "Europe/Berlin"])
        #expect(action == "responded\n")
        let transcript = run.transcript
        #expect(transcript.contains("“Planner” shows you an event from your calendar.\n"))
        #expect(transcript.contains("""
              Concert rehearsal
              When       Thu 3 Dec 2026, 18:00–19:30 (Europe/Berlin)
              Location   Hall
              Calendar   Calendar
              Alert      30 minutes before
              Organizer  Ada Director <ada@school.example>
              Invitee    Ben Viola <ben@school.example> (accepted)
              Invitee    Cleo Cello <cleo@school.example> (no answer yet) (you)

              Your day, Thu 3 Dec 2026:
                10:00–11:00  Theory class  [Calendar]

            Enter Done; a Accept, m Maybe, n Decline; l List.
            """), "\(transcript)")
        #expect(!transcript.contains("e Edit"), "an invitation is not edited, even when editing is allowed")
        // (The typed "a" may be echoed before or after the prompt.)
        #expect(transcript.contains("\nAnswered: accepted.\n"), "\(transcript)")
        let item = try store.items(in: "Calendar").first { $0.contains("Concert rehearsal") } ?? ""
        #expect(item.contains("ATTENDEE;CN=Cleo Cello;PARTSTAT=ACCEPTED:mailto:cleo@school.example\r\n"), "\(item)")
        #expect(item.contains("ATTENDEE;CN=Ben Viola;PARTSTAT=ACCEPTED:mailto:ben@school.example\r\nATTENDEE;CN=Cleo"), "order kept")
        // RFC 5546 3.2.3: SEQUENCE is the organizer's; the answer keeps it and stamps DTSTAMP.
        #expect(item.contains("SEQUENCE:2\r\n"), "\(item)")
        #expect(!item.contains("DTSTAMP:20261101T000000Z\r\nSEQUENCE"), "\(item)")
    }

    @Test func anInvitationTheUserIsNotInIsShownWithoutTheAnswerKeys() throws {
        let store = try Store()
        defer { store.remove() }
        let id = try importedInvitation(into: store)
        // No address is the user: nobody's answer can be given for them.
        let (run, action) = try onTerminal(
            ["view-event", "--app-id", "org.example.planner", "--event-identifier", id],
            store: store, steps: [("l List.", "a"), ("l List.", "")], environment: ["TZ": "Europe/Berlin"])
        #expect(action == "done\n")
        #expect(run.transcript.contains("You are not among the invitees as this calendar knows you"), "\(run.transcript)")
        #expect(run.transcript.contains("\nEnter Done; l List.\n"))
        #expect(try store.items(in: "Calendar").first { $0.contains("Concert rehearsal") }?.contains("PARTSTAT=NEEDS-ACTION") == true)

        // The organizer's own event is not an invitation.
        _ = try store.ical(["calendars", "me", "ada@school.example"])
        let (own, _) = try onTerminal(["view-event", "--app-id", "org.example.planner", "--event-identifier", id],
                                      store: store, steps: [("l List.", "")], environment: ["TZ": "Europe/Berlin"])
        #expect(!own.transcript.contains("a Accept"))
        #expect(!own.transcript.contains("You are not among the invitees"))
    }

    @Test func withEditingAllowedTheUserEditsThenDeletes() throws {
        let store = try Store()
        defer { store.remove() }
        let id = try store.ical(["events", "add", "--title", "Piano", "--start", "2026-12-02T16:00", "--duration", "45m", "--tz", "Europe/Berlin"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try ICalRunner.run(["privacy", "grant", "org.example.planner", "--events", "full", "--store", store.path])

        // Without --allows-editing: Done only.
        let (plain, done) = try onTerminal(["view-event", "--app-id", "org.example.planner", "--event-identifier", id],
                                           store: store, steps: [("> ", "e"), ("> ", "")])
        #expect(done == "done\n")
        #expect(plain.transcript.contains("  When       Wed 2 Dec 2026, 16:00–16:45 (Europe/Berlin)\n"), "\(plain.transcript)")
        #expect(plain.transcript.contains("Enter Done; l List.\n> e\nEnter Done; l List.\n"))

        let (edited, after) = try onTerminal(
            ["view-event", "--app-id", "org.example.planner", "--event-identifier", id, "--allows-editing"],
            store: store, steps: [("> ", "e"), ("> ", "1"), ("keeps it", "Piano (duet)"), ("> ", "s"), ("> ", "")])
        #expect(after == "done\n", "editing, then Done: the app is told done")
        #expect(edited.transcript.contains("Editing the event for “org.example.planner”: only you see this form."))
        #expect(try store.items(in: "Calendar").first?.contains("SUMMARY:Piano (duet)\r\n") == true)

        let (_, deleted) = try onTerminal(
            ["view-event", "--app-id", "org.example.planner", "--event-identifier", id, "--allows-editing"],
            store: store, steps: [("> ", "delete"), ("[y/n]", "y")])
        #expect(deleted == "deleted\n")
        #expect(try store.items(in: "Calendar").isEmpty)
    }

    @Test func anAppWithoutFullAccessMayNotShowAnEvent() throws {
        let store = try Store()
        defer { store.remove() }
        let id = try store.ical(["events", "add", "--title", "Private", "--start", "2026-12-02T16:00", "--tz", "UTC"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try ICalRunner.run(["privacy", "grant", "org.example.lessons", "--events", "write-only", "--store", store.path])
        let output = try ICalRunner.run(["ui", "view-event", "--app-id", "org.example.lessons", "--event-identifier", id, "--store", store.path])
        #expect(output.status == 1)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "ical ui view-event: org.example.lessons has no full access to events, so it may not show one; allow it with: ical privacy grant org.example.lessons --events full\n")

        let missing = try ICalRunner.run(["ui", "view-event", "--app-id", "org.openeventkit.ical", "--event-identifier", "calendar/nothing.ics",
                                          "--store", store.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("there is no event calendar/nothing.ics in the store"))
    }
}
