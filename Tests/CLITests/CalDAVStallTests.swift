import Foundation
import Testing

/// `ical sync`, `ical sources add` and feed refreshes against a real Radicale behind the
/// fault proxy of ``CalDAVFaultTests`` when the server is slow or stuck: one that never
/// answers, one that sends its headers and then nothing, one that trickles a byte every half
/// second. Each run ends by the limit meant for it, with a message naming the server and the
/// request, exit 1, nothing changed in the store, and the next run against the honest server
/// completes. A server that thinks long before it answers, or answers slowly but steadily,
/// is waited for. The proxy's stalls end by themselves after 90 s; the limits here are
/// seconds.
@Suite(.serialized) struct CalDAVStallTests {
    /// Short limits: 2 s of stall window, 3 s to begin an answer, 60 s for the whole run.
    static let limits = ["--stall-timeout", "2s", "--response-timeout", "3s", "--timeout", "60"]

    /// What the store holds of a mirrored calendar: its files and its sync state.
    static func snapshot(_ setup: CalDAVFaultTests.Setup) throws -> (files: [String], state: String) {
        (setup.local(), try String(contentsOfFile: setup.client.store + "/.openeventkit/sync/\(setup.collection).json", encoding: .utf8))
    }

    @Test(arguments: ["silent", "headers", "trickle"])
    func aStuckServerEndsTheSyncByItsLimitAndChangesNothing(mode: String) throws {
        let setup = try CalDAVFaultTests.Setup()
        defer { setup.stop() }
        try setup.server.put("r1.ics", uid: "r1@example", summary: "One")
        #expect(try setup.client.run(["sync"]).status == 0)
        try setup.writeLocal("a.ics", uid: "a@example", summary: "Alpha")
        try setup.server.put("r2.ics", uid: "r2@example", summary: "Two")
        let before = try Self.snapshot(setup)

        try setup.fault(mode)
        let started = Date()
        let sync = try setup.client.run(["sync"] + Self.limits)
        #expect(sync.status == 1, "\(sync.stdout)")
        // Well before the proxy's own 90 s: the limit ended it, not the server.
        #expect(Date().timeIntervalSince(started) < 45)
        #expect(sync.stderr.contains("http://127.0.0.1:\(setup.proxyPort)/alice/lessons/"), "\(sync.stderr)")
        let expected = switch mode {
        case "silent": "no answer from the server within 3 s (the response time-out)"
        case "headers": "the answer stalled: 0 bytes in the last "
        default: "the answer stalled: "
        }
        #expect(sync.stderr.contains(expected), "\(sync.stderr)")
        #expect(mode == "silent" || sync.stderr.contains(" s, below the minimum of 1 KiB/s (the stall time-out)"), "\(sync.stderr)")
        #expect(sync.stderr.contains("REPORT: ") || sync.stderr.contains("PROPFIND: "), "\(sync.stderr)")
        #expect(!sync.stderr.contains(setup.server.password))
        let after = try Self.snapshot(setup)
        #expect(after.files == before.files)
        #expect(after.state == before.state)

        try setup.fault("none")
        let honest = try setup.client.run(["sync"])
        #expect(honest.status == 0, "\(honest.stderr)")
        #expect(honest.stdout.contains(": 1 down, 1 up"), "\(honest.stdout)")
        #expect(try setup.remote() == ["a.ics": "Alpha", "r1.ics": "One", "r2.ics": "Two"])
        #expect(try setup.client.run(["sync"]).stdout.contains(": 0 down, 0 up"))
    }

    @Test func theWholeSyncEndsAtItsTimeout() throws {
        let setup = try CalDAVFaultTests.Setup()
        defer { setup.stop() }
        try setup.server.put("r1.ics", uid: "r1@example", summary: "One")
        let before = try Self.snapshot(setup)
        try setup.fault("silent")
        let sync = try setup.client.run(["sync", "--timeout", "3s"])
        #expect(sync.status == 1)
        #expect(sync.stderr.contains("stopped when the time limit of 3 s for the whole operation ran out"), "\(sync.stderr)")
        let after = try Self.snapshot(setup)
        #expect(after.files == before.files && after.state == before.state)

        try setup.fault("none")
        let honest = try setup.client.run(["sync"])
        #expect(honest.status == 0, "\(honest.stderr)")
        #expect(setup.local() == ["r1.ics"])
    }

    @Test(arguments: ["think/4", "slow"])
    func aServerThatIsSlowButMovingIsWaitedFor(mode: String) throws {
        // think/4: four seconds of silence before the answer, twice the stall window (which
        // only applies once the answer has begun) and under the response time-out. slow: an
        // answer of 12 KiB at 2.5 KiB/s, longer than the stall window but above the rate.
        let setup = try CalDAVFaultTests.Setup()
        defer { setup.stop() }
        try setup.server.put("r1.ics", uid: "r1@example", summary: "One")
        try setup.fault(mode)
        let sync = try setup.client.run(["sync", "--stall-timeout", "2s", "--response-timeout", "10s"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains(": 1 down, 0 up"), "\(sync.stdout)")
        #expect(setup.local() == ["r1.ics"])
    }

    @Test(arguments: ["silent", "trickle"])
    func discoveryEndsByItsLimitAndAddsNothing(mode: String) throws {
        let setup = try CalDAVFaultTests.Setup(addSource: false)
        defer { setup.stop() }
        try setup.fault(mode)
        let added = try setup.addAccount(Self.limits)
        #expect(added.status == 1, "\(added.stdout)")
        #expect(added.stderr.hasPrefix("ical sources add: http://127.0.0.1:\(setup.proxyPort)/"), "\(added.stderr)")
        #expect(added.stderr.contains(mode == "silent" ? "no answer from the server within 3 s" : "the answer stalled"), "\(added.stderr)")
        #expect(try setup.client.run(["sources", "list"]).stdout == "No sources.\n")
        #expect(try setup.client.run(["calendars"]).stdout.contains("Lessons") == false)

        try setup.fault("none")
        let honest = try setup.addAccount()
        #expect(honest.status == 0, "\(honest.stderr)")
    }

    @Test func aStuckFeedKeepsItsLastGoodCopy() throws {
        let setup = try CalDAVFaultTests.Setup(addSource: false)
        defer { setup.stop() }
        let feed = "http://127.0.0.1:\(setup.proxyPort)/feed.ics"
        let added = try setup.client.run(["sources", "add", "subscription", feed, "--name", "School"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try setup.client.run(["sync"]).stdout.contains(": 1 down"))
        let collection = try setup.client.collection(for: feed)
        let files = setup.client.files(in: collection)
        #expect(files.count == 1)

        for mode in ["headers", "trickle"] {
            try setup.fault(mode)
            let sync = try setup.client.run(["sync", "--force"] + Self.limits)
            #expect(sync.status == 1)
            #expect(sync.stderr.contains("\(feed): GET: the answer stalled: "), "\(sync.stderr)")
            #expect(setup.client.files(in: collection) == files)
        }
        try setup.fault("slow")
        let slow = try setup.client.run(["sync", "--force"] + Self.limits)
        #expect(slow.status == 0, "\(slow.stderr)")
        #expect(setup.client.files(in: collection) == files)
    }

    @Test func aStuckPasswordCommandEndsAtTheTimeout() throws {
        let setup = try CalDAVFaultTests.Setup()
        defer { setup.stop() }
        // The account's password command becomes one that never finishes (`exec`, so the
        // signal reaches the command itself rather than a shell that has forked it).
        let path = setup.client.store + "/.openeventkit/sources.json"
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var sources = try #require(json["sources"] as? [[String: Any]])
        sources[0]["passwordCommand"] = "exec sleep 60"
        json["sources"] = sources
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))

        let started = Date()
        let sync = try setup.client.run(["sync", "--timeout", "2s"])
        #expect(sync.status == 1)
        #expect(sync.stderr.contains("ical sync: Lessons: the password command did not finish within the time limit of 2 s"), "\(sync.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test func theLimitsAreInTheHelpAndCheckedAsGiven() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["OPENEVENTKIT_STORE": folder.url.path + "/store"]
        for command in [["sync"], ["sources", "add"]] {
            let help = try ICalRunner.run(command + ["--help"], environment: environment)
            #expect(help.status == 0)
            let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for expected in ["--timeout <duration> The most the whole command may take: 90s, 10m, 1h or a number of seconds. (default: 30m)",
                             "--response-timeout <duration> How long a server may think before it begins to answer a request. (default: 10m)",
                             "--stall-timeout <duration> A transfer moving slower than 1 KiB/s for this long is stopped. (default: 1m)"] {
                #expect(text.contains(expected), "\(command): \(help.stdout)")
            }
        }
        for (option, value) in [("--timeout", "0"), ("--timeout", "8d"), ("--stall-timeout", "soon"), ("--response-timeout", "1h-")] {
            let run = try ICalRunner.run(["sync", option, value], environment: environment)
            #expect(run.status == 64, "\(option) \(value): \(run.stderr)")
            #expect(run.stderr.contains("\(option) '\(value)' is not a length of time between 1 second and 1 week"), "\(run.stderr)")
        }
    }
}
