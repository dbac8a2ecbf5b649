import Foundation
import Testing

/// What the editor saves for a virtual conference (RFC 7986 CONFERENCE properties, the
/// details in DESCRIPTION) read by the independent peers: Python's icalendar and khal.
extension UICommandTests {
    /// A store with an event that got LessonRooms' piano studio in the editor.
    private func storeWithConference() throws -> Store {
        let store = try Store()
        try store.ical(["extensions", "add", Self.lessonRoomsManifest, "--executable", Self.lessonRooms])
        let (_, action) = try onTerminal(
            ["edit-event", "--app-id", "org.example.dropin", "--event", "-"], store: store,
            steps: [("> ", "6"), ("a video call): ", "v1"), ("> ", "s")], input: Self.proposal)
        #expect(action == "saved\n")
        return store
    }

    @Test func pythonIcalendarReadsTheConference() throws {
        let python = try PythonPeers.python.get()
        let store = try storeWithConference()
        defer { store.remove() }
        let folder = store.path + "/" + (try store.calendar("Calendar"))
        let script = try store.folder.write("read.py", """
            import glob, json, sys, icalendar
            out = []
            for name in sorted(glob.glob(sys.argv[1] + "/*.ics")):
                calendar = icalendar.Calendar.from_ical(open(name, "rb").read())
                for event in calendar.walk("VEVENT"):
                    links = event.get("CONFERENCE")
                    links = links if isinstance(links, list) else [links]
                    out.append({"summary": str(event.get("SUMMARY")), "description": str(event.get("DESCRIPTION")),
                                "conferences": [[str(link), link.params.get("LABEL"), link.params.get("FEATURE"), link.params.get("VALUE")] for link in links]})
            print(json.dumps(out, ensure_ascii=False, sort_keys=True))
            """)
        let result = PythonPeers.run(python, [script, folder])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            [{"conferences": [["https://rooms.musikschule.example/piano", "Join the lesson", ["AUDIO", "VIDEO"], "URI"], \
            ["tel:+49-30-5550-1234,,501", "By phone", "PHONE", "URI"]], "description": "Lesson Rooms: Piano studio (one-to-one)\\nJoin the lesson: \
            https://rooms.musikschule.example/piano\\nBy phone: tel:+49-30-5550-1234,,501\\nTune your instrument before you join. Room PIN: 501", \
            "summary": "Drop-in: jazz harmony"}]

            """, "\(result.stdout)")
    }

    @Test func khalListsTheEventWithTheConferenceDetails() throws {
        let khal = try KhalInteropTests.khal.get()
        let store = try storeWithConference()
        defer { store.remove() }
        let config = try KhalInteropTests.configuration(calendar: store.path + "/" + (try store.calendar("Calendar")), in: store.folder)
        let listed = PythonPeers.run(khal, ["-c", config, "list", "--format", "{start} {title} | {location} | {description}", "--day-format", "",
                                            "2026-12-01", "30d"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "2026-12-03 17:00 Drop-in: jazz harmony | Studio A | Lesson Rooms: Piano studio (one-to-one)\n"
                + "Join the lesson: https://rooms.musikschule.example/piano\nBy phone: tel:+49-30-5550-1234,,501\n"
                + "Tune your instrument before you join. Room PIN: 501\n", "\(listed.stdout)")
    }
}
