import Foundation
import Testing

/// The README is a guide that cannot go stale: every command in its ```sh blocks runs, in
/// order, from a copy of the checkout's sample calendars, with `ical` the built binary, a
/// store and a HOME of its own, and a Radicale and a feed on 127.0.0.1 for the CalDAV tour.
/// A command is expected to succeed unless its comment says `exits N`.
@Suite(.serialized) struct ReadmeCommandsTests {
    struct Command: CustomStringConvertible {
        var line: Int
        var text: String
        var status: Int32
        var description: String { "README.md:\(line): \(text)" }
    }

    /// Commands the README shows that this test does not run, and who does: `make demo` and
    /// `make test` are what CI runs (`make test` is this test's own caller); `make install`
    /// is exercised by InstallTests into a temporary DESTDIR; `ical alarms watch` runs until
    /// stopped, on a session bus with a notification server (AlarmsNotificationTests), and the
    /// systemd unit that runs it is installed by InstallTests.
    static let runElsewhere: Set<String> = ["make demo", "make test", "make install PREFIX=$HOME/.local",
                                            "ical alarms watch", "systemctl --user enable --now ical-alarms.service"]

    static let readme = ICalRunner.packageRoot.appendingPathComponent("README.md")

    /// The commands of the ```sh blocks (continuations joined, comments dropped), and the
    /// lines of other blocks that look like commands (which would be shown but not run).
    static func commands(in text: String) -> (commands: [Command], unrun: [String]) {
        var commands: [Command] = [], unrun: [String] = []
        var fence: String?
        var pending: (line: Int, text: String)?
        for (index, raw) in text.components(separatedBy: "\n").enumerated() {
            let number = index + 1
            if raw.hasPrefix("```") {
                fence = fence == nil ? String(raw.dropFirst(3)).trimmingCharacters(in: .whitespaces) : nil
                continue
            }
            guard let language = fence else { continue }
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard language == "sh" else {
                if line.hasPrefix("ical ") || line.hasPrefix("$ ") || line.hasPrefix("make ") {
                    unrun.append("README.md:\(number): a command in a ```\(language) block: \(line)")
                }
                continue
            }
            let (code, comment) = splitComment(line)
            if pending == nil && code.isEmpty { continue }
            var joined = (pending.map { $0.text + " " } ?? "") + code
            let start = pending?.line ?? number
            if joined.hasSuffix("\\") {
                joined.removeLast()
                pending = (start, joined.trimmingCharacters(in: .whitespaces))
                continue
            }
            pending = nil
            var status: Int32 = 0
            if let comment, comment.hasPrefix("exits "),
               let value = Int32(comment.dropFirst("exits ".count).prefix { $0.isNumber }) {
                status = value
            }
            commands.append(Command(line: start, text: joined, status: status))
        }
        return (commands, unrun)
    }

    /// A line's code and its comment: a `#` after white space, outside quotes.
    static func splitComment(_ line: String) -> (code: String, comment: String?) {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#" && previous.isWhitespace {
                return (line[..<index].trimmingCharacters(in: .whitespaces),
                        line[line.index(after: index)...].trimmingCharacters(in: .whitespaces))
            }
            previous = character
        }
        return (line.trimmingCharacters(in: .whitespaces), nil)
    }

    @Test func theParserJoinsContinuationsAndDropsComments() {
        let (commands, unrun) = Self.commands(in: """
            ```sh
            # a comment
            ical a --color '#FF8000'   # a comment
            ical b \\
                --c d   # exits 77: why
            ```
            ```
            $ ical shown
            ```
            """)
        #expect(commands.map(\.text) == ["ical a --color '#FF8000'", "ical b --c d"])
        #expect(commands.map(\.line) == [3, 4])
        #expect(commands.map(\.status) == [0, 77])
        #expect(unrun.count == 1)
    }

    @Test func theReadmeIsAGuideOfAtMost300Lines() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 300, "README.md has \(lines) lines")
        #expect(text.hasPrefix("# OpenEventKit\n\nOpenEventKit brings Apple's EventKit model"))
        let (commands, unrun) = Self.commands(in: text)
        #expect(unrun.isEmpty, "\(unrun)")
        // The two commands of a fresh machine come first.
        #expect(Array(commands.prefix(2).map(\.text)) == ["make demo", "make test"])
        #expect(commands.filter { Self.runElsewhere.contains($0.text) }.count == Self.runElsewhere.count)
    }

    @Test func everyCommandInTheReadmeRuns() throws {
        let (commands, _) = Self.commands(in: try String(contentsOf: Self.readme, encoding: .utf8))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let manager = FileManager.default
        let work = folder.url.appendingPathComponent("checkout")
        try manager.createDirectory(at: work.appendingPathComponent("samples"), withIntermediateDirectories: true)
        try manager.copyItem(at: ICalRunner.packageRoot.appendingPathComponent("samples/calendars"),
                             to: work.appendingPathComponent("samples/calendars"))
        let bin = folder.url.appendingPathComponent("bin")
        try manager.createDirectory(at: bin, withIntermediateDirectories: true)
        try manager.createSymbolicLink(at: bin.appendingPathComponent("ical"), withDestinationURL: ICalRunner.executable)
        let home = folder.url.appendingPathComponent("home")
        try manager.createDirectory(at: home, withIntermediateDirectories: true)

        // The CalDAV tour's account, and a feed served from the sample calendars.
        let server = try DAVServers.Server(.radicale)
        defer { server.stop() }
        let feedPort = try DAVServers.freePort()
        let feed = Process()
        feed.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        feed.arguments = ["python3", "-m", "http.server", String(feedPort), "--bind", "127.0.0.1",
                          "--directory", work.appendingPathComponent("samples/calendars").path]
        feed.standardOutput = FileHandle.nullDevice
        feed.standardError = FileHandle.nullDevice
        try feed.run()
        defer { DAVServers.end(feed) }
        var served = false
        for _ in 0..<100 where !served {
            served = ((try? server.request("GET", "/holidays.ics", port: feedPort))?.status == 200)
            if !served { Thread.sleep(forTimeInterval: 0.1) }
        }
        try #require(served, "the feed server did not start")

        let environment = [
            "PATH": bin.path + ":/usr/bin:/bin", "HOME": home.path, "TZ": "UTC", "LC_ALL": "C.UTF-8",
            "COLUMNS": "80", "ICAL_NOW": "2026-11-22T10:00:00",
            "OPENEVENTKIT_STORE": folder.url.appendingPathComponent("store").path,
            "SERVER": server.baseURL, "DAV_USER": server.user, "DAV_PASSWORD": server.password,
            "FEED": "http://127.0.0.1:\(feedPort)/holidays.ics",
        ]
        var ran = 0
        var outputs: [String: String] = [:]
        for command in commands where !Self.runElsewhere.contains(command.text) {
            let output = try ProgramRunner.run("/bin/sh", ["-c", command.text], environment: environment, in: work)
            ran += 1
            outputs[command.text] = output.stdout
            #expect(output.status == command.status,
                    """
                    \(command) exited with \(output.status), expected \(command.status)
                    \(output.stdout.suffix(2_000))
                    \(output.stderr.suffix(2_000))
                    """)
        }
        #expect(ran >= 20, "only \(ran) commands found in README.md")
        // The month grid shown is the start of what its command prints.
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let shown = try #require(text.components(separatedBy: "```\nDecember 2026").dropFirst().first?
            .components(separatedBy: "\n   ...\n```").first)
        let grid = try #require(outputs["ical view month 2026-12 --tz Europe/Berlin --holidays samples/calendars/term.yaml term.ics"])
        #expect(grid.hasPrefix("December 2026" + shown + "\n"), "README's month grid:\nDecember 2026\(shown)\nprinted:\n\(grid)")
        // The tour's results are where it says they are.
        for file in ["fixed.ics", "events.json", "events.csv", "piano.ics", "term.ics", "timetable.html", "everything.ics"] {
            #expect(manager.fileExists(atPath: work.appendingPathComponent(file).path), "\(file)")
        }
    }

    /// What users read describes the product, not the work that made it: no issue numbers,
    /// closing notes or work sessions.
    @Test func userFacingDocumentsTellNoWorkHistory() throws {
        let root = ICalRunner.packageRoot
        var documents = ["README.md", "CHANGELOG.md", "samples/README.md", "Benchmarks/README.md", "Conformance/README.md"]
        for folder in ["docs"] + (try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
                                  .map { "Sources/\($0)" }) {
            let path = root.appendingPathComponent(folder).path
            for entry in FileManager.default.enumerator(atPath: path)?.compactMap({ $0 as? String }) ?? []
            where entry.hasSuffix(".md") && (folder == "docs" || entry.contains(".docc/")) {
                documents.append("\(folder)/\(entry)")
            }
        }
        let pattern = try NSRegularExpression(
            pattern: #"\bissues? [0-9]+|\bclosing notes?\b|\b(this|that|previous|the same|a later|second|third) session\b"#,
            options: [.caseInsensitive])
        for document in documents {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            for (index, line) in text.components(separatedBy: "\n").enumerated()
            where pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                Issue.record("\(document):\(index + 1): \(line)")
            }
        }
    }
}
