import Foundation
import ICalKit
import Testing

/// The malformed fixtures: each gives exactly the diagnostics in its `.expected` file, and
/// keeps the rest of the file.
@Suite struct MalformedCorpusTests {
    /// What each file must still hold after its problems: every UID in the tree, in order,
    /// and how many properties with the value `kept` survive.
    struct Kept: Sendable {
        var uids: [String]
        var keptValues = 0
    }

    static let kept: [String: Kept] = [
        "bad-begin-names.ics": Kept(uids: ["a", "b"], keptValues: 2),
        "bad-date-lists.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "bad-duration.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "bad-integers.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "bad-property-name.ics": Kept(uids: ["a", "b"]),
        "bare-property-and-bad-lines-lf.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "binary-garbage-between-events.ics": Kept(uids: ["a", "b"]),
        "binary-garbage.ics": Kept(uids: []),
        "continuation-without-previous-line.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "date-february-31.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "depth-limit.ics": Kept(uids: ["a", "b"]),
        "empty.ics": Kept(uids: []),
        "end-without-begin.ics": Kept(uids: ["a", "b"]),
        "file-truncated-mid-line.ics": Kept(uids: ["a", "b"]),
        "hour-25.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "invalid-utf8.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "line-without-colon.ics": Kept(uids: ["a", "b"]),
        "mismatched-end.ics": Kept(uids: ["a", "b"]),
        "missing-end-calendar.ics": Kept(uids: ["a", "b"]),
        "missing-end-eof.ics": Kept(uids: ["a", "b"]),
        "missing-end-middle.ics": Kept(uids: ["a", "b"]),
        "missing-end-nested.ics": Kept(uids: ["a", "b"]),
        "month-13.ics": Kept(uids: ["a", "b"]),
        "nul-byte.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "parameter-without-equals.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "property-outside-components.ics": Kept(uids: ["a", "b"]),
        "rrule-byday-xx.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "rrule-count-and-until.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "rrule-fortnightly.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "unterminated-quote.ics": Kept(uids: ["a", "b"], keptValues: 1),
        "vevent-inside-vevent.ics": Kept(uids: ["a", "b"]),
        "whitespace-only.ics": Kept(uids: []),
    ]

    @Test func everyFileHasExpectationsAndTheCorpusIsLarge() throws {
        let names = Fixtures.malformed
        #expect(names.count >= 28)
        #expect(Set(names) == Set(Self.kept.keys), "the table and the folder differ")
        for name in names {
            let expected = try Fixtures.expected("malformed", name)
            #expect(expected?.isEmpty == false, "\(name) needs a non-empty .expected file")
        }
        #expect(Fixtures.names(in: "malformed", extension: "expected").count == names.count)
    }

    @Test(arguments: Fixtures.malformed)
    func givesExactlyTheExpectedDiagnostics(_ name: String) throws {
        let result = try ICalReader().read(try Fixtures.bytes("malformed", name), file: name)
        let expected = try #require(try Fixtures.expected("malformed", name))
        let actual = result.diagnostics.map(Fixtures.Expected.init)
        #expect(actual == expected, "actual:\n\(actual.map(\.description).joined(separator: "\n"))\n\(result.diagnostics.map(\.description).joined(separator: "\n"))")
        #expect(result.diagnostics.allSatisfy { $0.file == name && !$0.message.isEmpty })
    }

    @Test(arguments: Fixtures.malformed)
    func keepsTheRestOfTheFile(_ name: String) throws {
        let result = try ICalReader().read(try Fixtures.bytes("malformed", name))
        let kept = try #require(Self.kept[name])
        #expect(result.calendars.flatMap(\.allUIDs) == kept.uids)
        #expect(result.calendars.flatMap(\.allProperties).filter { $0.rawValue == "kept" }.count == kept.keptValues)
    }

    /// What was kept is a valid tree: it writes and reads back unchanged and clean.
    @Test(arguments: Fixtures.malformed)
    func whatIsKeptRoundTrips(_ name: String) throws {
        let trip = try RoundTrip(try Fixtures.bytes("malformed", name))
        guard !trip.first.calendars.isEmpty else {
            #expect(trip.written.isEmpty)
            return
        }
        #expect(trip.second.calendars == trip.first.calendars)
        #expect(trip.second.diagnostics.isEmpty, "\(trip.second.diagnostics)")
        #expect(ICalWriter().bytes(trip.second.calendars) == trip.written)
    }

    /// Strict mode throws the first error the lenient reader reports, with its location.
    @Test(arguments: Fixtures.malformed)
    func strictModeThrowsTheFirstExpectedError(_ name: String) throws {
        let expected = try #require(try Fixtures.expected("malformed", name))
        let firstError = try #require(expected.first { $0.severity == "error" })
        let path = Fixtures.path("malformed", name)
        let error = try #require(throws: ICalError.self) {
            try ICalReader(mode: .strict).read(contentsOfFile: path)
        }
        #expect(error.line == firstError.line)
        #expect(error.code.rawValue == firstError.code)
        #expect(error.file == path)
    }

    // MARK: Details the expected files cannot show

    private func read(_ name: String) throws -> ReadResult {
        try ICalReader().read(try Fixtures.bytes("malformed", name), file: name)
    }

    @Test func missingEndKeepsTheComponentAndItsContents() throws {
        let nested = try read("missing-end-nested.ics")
        let event = try #require(nested.calendars.first?.components(.event).first)
        #expect(event.components(.alarm).first?[.trigger] == "-PT5M")
        let first = try #require(nested.errors.first)
        #expect(first.component == "VALARM")
        #expect(first.message.contains("BEGIN at line"))

        let calendars = try read("missing-end-calendar.ics").calendars
        #expect(calendars.count == 2)
    }

    @Test func invalidValuesLoseOnlyTheirProperty() throws {
        let result = try read("date-february-31.ics")
        let events = try #require(result.calendars.first?.components(.event))
        #expect(events[0].property(.dateTimeStart) == nil)
        #expect(events[0][.summary] == "kept")
        #expect(events[1].property(.dateTimeEnd) == nil)
        #expect(events[1][.dateTimeStart] == "20240110T100000Z")
        #expect(result.errors.first?.property == "DTSTART")
        #expect(result.errors.first?.component == "VEVENT")
    }

    @Test func invalidUTF8InAValueIsReplacedNotDropped() throws {
        let result = try read("invalid-utf8.ics")
        let event = try #require(result.calendars.first?.components(.event).first)
        #expect(event[.summary] == "Caf\u{FFFD} au lait")
        #expect(event[.location] == "truncated \u{FFFD}")
        #expect(event.property(.attendee) == nil, "an undecodable parameter costs the line")
    }

    @Test func depthLimitDropsOnlyTheTooDeepPart() throws {
        let result = try read("depth-limit.ics")
        let calendar = try #require(result.calendars.first)
        #expect(calendar.depth == ICalReader.Limits.default.maxDepth)
        #expect(result.errors.first?.component == "X-LEVEL33")
    }
}
