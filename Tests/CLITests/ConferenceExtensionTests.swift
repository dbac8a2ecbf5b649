import Foundation
import Testing

/// Virtual conference extensions: `ical extensions add|list|remove`, and the event editor
/// offering their room types when the user sets the location, running the chosen one in a
/// process of its own and saving the conference as RFC 7986 CONFERENCE properties. The
/// extension is the sample LessonRooms (built beside `ical`) or a shell script.
extension UICommandTests {
    static var lessonRooms: String {
        ICalRunner.executable.deletingLastPathComponent().appendingPathComponent("LessonRooms").path
    }

    static var lessonRoomsManifest: String {
        ICalRunner.packageRoot.appendingPathComponent("samples/LessonRooms/Info.plist").path
    }

    /// An extension that is a shell script answering `body` (a shell command's output) to
    /// every request, declared by its own Info.plist.
    private func scriptExtension(in store: Store, identifier: String, body: String) throws -> String {
        let script = try store.folder.write("\(identifier).sh", "#!/bin/sh\n\(body)\n")
        chmod(script, 0o755)
        return try store.folder.write("\(identifier).plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>\(identifier)</string>
            <key>CFBundleExecutable</key><string>\(identifier).sh</string>
            <key>NSExtension</key><dict>
            <key>NSExtensionPointIdentifier</key><string>com.apple.calendar.virtualconference</string>
            </dict></dict></plist>
            """)
    }

    @Test func extensionsAreRegisteredListedAndRemoved() throws {
        let store = try Store()
        defer { store.remove() }
        let empty = try store.ical(["extensions", "list"])
        #expect(empty.stdout == "No virtual conference extensions are registered (add one with: ical extensions add Info.plist).\n")

        let added = try store.ical(["extensions", "add", Self.lessonRoomsManifest, "--executable", Self.lessonRooms])
        #expect(added.stdout == "Registered Lesson Rooms (org.openeventkit.samples.LessonRooms): \(Self.lessonRooms)\n")
        let listed = try store.ical(["extensions", "list", "--room-types"])
        #expect(listed.stdout == """
            Lesson Rooms  org.openeventkit.samples.LessonRooms  \(Self.lessonRooms)
              Piano studio (one-to-one)  (piano-studio)
              Strings room (one-to-one)  (strings-room)
              Ensemble hall (group lesson)  (ensemble-hall)

            """)
        #expect(try store.ical(["extensions", "remove", "org.openeventkit.samples.LessonRooms"]).stdout == "Removed org.openeventkit.samples.LessonRooms.\n")
        let again = try ICalRunner.run(["extensions", "remove", "org.openeventkit.samples.LessonRooms"], environment: store.environment)
        #expect(again.status == 1)
        #expect(again.stderr == "ical extensions remove: no extension org.openeventkit.samples.LessonRooms is registered (see ical extensions list)\n")
    }

    @Test func aManifestThatDeclaresNoConferenceExtensionIsRefused() throws {
        let store = try Store()
        defer { store.remove() }
        let app = ICalRunner.packageRoot.appendingPathComponent("samples/DropInLessons/Info.plist").path
        let noExtension = try ICalRunner.run(["extensions", "add", app], environment: store.environment)
        #expect(noExtension.status == 1)
        #expect(noExtension.stderr.contains("no NSExtension dictionary; a virtual conference extension declares NSExtensionPointIdentifier com.apple.calendar.virtualconference"))

        let other = try store.folder.write("share.plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>org.example.share</string>
            <key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key><string>com.apple.share-services</string></dict>
            </dict></plist>
            """)
        let wrongPoint = try ICalRunner.run(["extensions", "add", other], environment: store.environment)
        #expect(wrongPoint.status == 1)
        #expect(wrongPoint.stderr.contains("NSExtensionPointIdentifier is 'com.apple.share-services', not com.apple.calendar.virtualconference"))

        let missing = try ICalRunner.run(["extensions", "add", Self.lessonRoomsManifest], environment: store.environment)
        #expect(missing.status == 1, "CFBundleExecutable is not beside the Info.plist in the source tree")
        #expect(missing.stderr.contains("LessonRooms is not an executable file (build the extension first, or name it with --executable)"))
    }

    @Test func theEditorOffersRoomTypesAndSavesTheConference() throws {
        let store = try Store()
        defer { store.remove() }
        try store.ical(["extensions", "add", Self.lessonRoomsManifest, "--executable", Self.lessonRooms])
        let (run, action) = try onTerminal(
            ["edit-event", "--app-id", "org.example.dropin", "--app-name", "Drop-in Lessons", "--event", "-"], store: store,
            steps: [("> ", "6"), ("a video call): ", "v4"), ("> ", "6"), ("a video call): ", "v1"), ("> ", "s")],
            input: Self.proposal)
        #expect(action == "saved\n")
        let transcript = run.transcript
        #expect(transcript.contains("""
              Video calls:
               v1  Lesson Rooms: Piano studio (one-to-one)
               v2  Lesson Rooms: Strings room (one-to-one)
               v3  Lesson Rooms: Ensemble hall (group lesson)
            Location [Studio A] (Enter keeps it; - clears it; v1–v3 a video call): v4
            Type v1 to v3 for a video call.
            """), "\(transcript)")
        #expect(transcript.contains("""
            Asking Lesson Rooms for a room…
              6  Location   Studio A
                 Video call Lesson Rooms: Piano studio (one-to-one)
                            Join the lesson: https://rooms.musikschule.example/piano
                            By phone: tel:+49-30-5550-1234,,501
            """), "\(transcript)")

        let item = (try store.items(in: "Calendar").first ?? "").replacingOccurrences(of: "\r\n ", with: "")   // unfolded
        #expect(item.contains("CONFERENCE;VALUE=URI;FEATURE=AUDIO,VIDEO;LABEL=Join the lesson:https://rooms.musikschule.example/piano\r\n"), "\(item)")
        #expect(item.contains("CONFERENCE;VALUE=URI;FEATURE=PHONE;LABEL=By phone:tel:+49-30-5550-1234,,501\r\n"), "\(item)")
        #expect(item.contains("LOCATION:Studio A\r\n"))
        #expect(item.contains("DESCRIPTION:Lesson Rooms: Piano studio (one-to-one)\\nJoin the lesson: https://rooms.musikschule.example/piano\\nBy phone: tel:+49-30-5550-1234\\,\\,501\\nTune your instrument before you join. Room PIN: 501\r\n"), "\(item)")
        #expect(item.contains("X-SCHOOL-LEVEL:beginners\r\n"), "the proposal's other properties are kept")

        // ical query shows the links in every format, from the store (its occurrence cache,
        // twice: the second answer is read back from the cache) and from a file.
        _ = try ICalRunner.run(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--store", store.path])
        for _ in 0..<2 {
            let text = try store.ical(["query", "--at", "2026-12-03", "--tz", "Europe/Berlin"]).stdout
            #expect(text.contains("  18:00-19:30  Drop-in: jazz harmony @ Studio A <https://rooms.musikschule.example/piano>\n"), "\(text)")
            let json = try store.ical(["query", "--at", "2026-12-03", "--format", "json"]).stdout
            #expect(json.contains(#""conferences": [{"label": "Join the lesson", "uri": "https://rooms.musikschule.example/piano"}, {"label": "By phone", "uri": "tel:+49-30-5550-1234,,501"}]}"#), "\(json)")
            let csv = try store.ical(["query", "--at", "2026-12-03", "--format", "csv"]).stdout
            #expect(csv.hasPrefix("uid,recurrence-id,summary,start,end,all-day,time-zone,component,location,status,source,conference\r\n"))
            #expect(csv.contains(",https://rooms.musikschule.example/piano tel:+49-30-5550-1234,,501\r\n") == false, "a cell with commas is quoted")
            #expect(csv.contains(",\"https://rooms.musikschule.example/piano tel:+49-30-5550-1234,,501\"\r\n"), "\(csv)")
            let ics = try store.ical(["query", "--at", "2026-12-03", "--format", "ics"]).stdout
            #expect(ics.replacingOccurrences(of: "\r\n ", with: "").contains("CONFERENCE;VALUE=URI;FEATURE=PHONE;LABEL=By phone:tel:+49-30-5550-1234,,501\r\n"))
        }
        let exported = try store.folder.write("lesson.ics", try store.items(in: "Calendar").first ?? "")
        let fromFile = try ICalRunner.run(["query", "--at", "2026-12-03", "--format", "json", exported])
        #expect(fromFile.stdout.contains(#""conferences": [{"label": "Join the lesson""#), "\(fromFile.stdout)")

        // The viewer shows the links.
        _ = try ICalRunner.run(["privacy", "grant", "org.example.planner", "--events", "full", "--store", store.path])
        let folder = try store.calendar("Calendar")
        let name = try FileManager.default.contentsOfDirectory(atPath: store.path + "/" + folder).first { $0.hasSuffix(".ics") } ?? ""
        let (viewed, _) = try onTerminal(["view-event", "--app-id", "org.example.planner", "--event-identifier", "\(folder)/\(name)"],
                                         store: store, steps: [("l List.", "")])
        #expect(viewed.transcript.contains("  Join       Join the lesson: https://rooms.musikschule.example/piano\n  Join       By phone: tel:+49-30-5550-1234,,501\n"),
                "\(viewed.transcript)")
    }

    @Test func anExtensionRunsWithoutTheUsersStoreAndWithinLimits() throws {
        let store = try Store()
        defer { store.remove() }
        // It reports what it can see of the user's store: nothing.
        let spy = try scriptExtension(in: store, identifier: "org.example.spy", body: """
            store="${OPENEVENTKIT_STORE:-none}"; data="${XDG_DATA_HOME:-none}"; ls "$data" | wc -l > /dev/null
            printf '{"roomTypes":[{"title":"store=%s","identifier":"a"},{"title":"data-is-store=%s","identifier":"b"},{"title":"stdin=%s","identifier":"c"}]}\\n' \\
              "$store" "$(test "$data" = '\(store.path)' && echo yes || echo no)" "$(cat | wc -c)"
            """)
        try store.ical(["extensions", "add", spy])
        let listed = try store.ical(["extensions", "list", "--room-types"]).stdout
        #expect(listed.contains("  store=none  (a)\n"), "\(listed)")
        #expect(listed.contains("  data-is-store=no  (b)\n"))
        #expect(listed.contains("  stdin=0  (c)\n"))

        let broken = try scriptExtension(in: store, identifier: "org.example.broken", body: "echo 'the room server is down' >&2; exit 3")
        try store.ical(["extensions", "add", broken])
        let failed = try ICalRunner.run(["extensions", "list", "--room-types"], environment: store.environment)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("ical extensions list: org.example.broken failed (exit status 3): the room server is down\n"), "\(failed.stderr)")

        let slow = try scriptExtension(in: store, identifier: "org.example.slow", body: "exec sleep 60")
        try store.ical(["extensions", "remove", "org.example.broken"])
        try store.ical(["extensions", "add", slow])
        let started = Date()
        let timedOut = try ICalRunner.run(["extensions", "list", "--room-types"], environment: store.environment)
        #expect(timedOut.status == 1)
        #expect(timedOut.stderr.contains("org.example.slow did not answer within 10 seconds"), "\(timedOut.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
    }
}
