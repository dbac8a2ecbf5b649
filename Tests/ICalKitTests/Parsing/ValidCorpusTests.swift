import Foundation
import ICalKit
import Testing

/// The valid fixtures: each reads without an error, survives a write and read unchanged,
/// and, when canonical, comes back byte for byte.
@Suite struct ValidCorpusTests {
    @Test func corpusIsLargeAndCanonicalListNamesRealFiles() {
        let valid = Set(Fixtures.valid)
        #expect(valid.count >= 32)
        #expect(Fixtures.canonical.count >= 16)
        #expect(Fixtures.canonical.isSubset(of: valid), "CANONICAL.txt names missing files: \(Fixtures.canonical.subtracting(valid))")
    }

    @Test(arguments: Fixtures.valid)
    func readsWithOnlyTheExpectedWarnings(_ name: String) throws {
        let result = try ICalReader().read(try Fixtures.bytes("valid", name), file: name)
        let expected = try Fixtures.expected("valid", name) ?? []
        #expect(expected.allSatisfy { $0.severity == "warning" }, "a valid fixture may only expect warnings")
        #expect(result.diagnostics.map(Fixtures.Expected.init) == expected, "\(result.diagnostics)")
        #expect(!result.calendars.isEmpty)
    }

    @Test(arguments: Fixtures.valid)
    func roundTripsToTheSameTree(_ name: String) throws {
        let trip = try RoundTrip(try Fixtures.bytes("valid", name))
        #expect(trip.second.calendars == trip.first.calendars)
        // Warnings about values kept as written (Outlook's -0000) come back; nothing else may.
        let kept = trip.first.diagnostics.filter { $0.code == .invalidValue }.map(\.message)
        #expect(trip.second.diagnostics.map(\.message) == kept, "\(trip.second.diagnostics)")
        // Writing is a fixed point after one round.
        #expect(ICalWriter().bytes(trip.second.calendars) == trip.written)
    }

    /// Byte-identical exactly when listed: a canonical file that changes is a writer bug,
    /// and an unlisted file that comes back unchanged belongs on the list.
    @Test(arguments: Fixtures.valid)
    func canonicalFilesRoundTripByteForByte(_ name: String) throws {
        let bytes = try Fixtures.bytes("valid", name)
        let written = ICalWriter().bytes(try ICalReader().read(bytes).calendars)
        if Fixtures.canonical.contains(name) {
            #expect(written == bytes, "first difference at byte \(zip(written, bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(written.count, bytes.count))")
        } else {
            #expect(written != bytes, "\(name) is canonical; add it to CANONICAL.txt")
        }
    }

    @Test func canonicalLinesAreFoldedAtSeventyFiveOctets() throws {
        for name in Fixtures.canonical.sorted() {
            let bytes = try Fixtures.bytes("valid", name)
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
            #expect(lines.allSatisfy { $0.last == 0x0D }, "\(name): every line ends with CRLF")
            lines = lines.map { $0.dropLast() }[...]
            #expect(lines.allSatisfy { $0.count <= 75 }, "\(name): a line is longer than 75 octets")
        }
    }

    // MARK: What particular files must contain

    private func read(_ name: String) throws -> [Component] {
        try ICalReader().read(try Fixtures.bytes("valid", name), file: name).calendars
    }

    @Test func lineEndsAndByteOrderMarkDoNotChangeTheTree() throws {
        let crlf = try read("bom-crlf.ics")
        #expect(try read("lf-only.ics") == crlf)
        #expect(try read("cr-only.ics") == crlf)
        let event = try #require(crlf.first?.components(.event).first)
        #expect(event[text: .summary] == "Line ends: ümlaut and € sign")
        #expect(event[text: .description] == "First line\nsecond line")
        #expect(crlf.first?.properties.first?.name == "VERSION", "the BOM is not part of the first name")
    }

    @Test func foldsInsideMultiByteCharactersAreJoinedBeforeDecoding() throws {
        let event = try #require(try read("folds-splitting-utf8.ics").first?.components(.event).first)
        #expect(event[text: .summary] == "two-byte ä done")
        #expect(event[text: .description] == "three-byte € and € done")
        #expect(event[text: .location] == "four-byte 😀 done")
        #expect(event.property(.comment)?.parameters.first?.rawValue == "\"de\"")
        #expect(event.properties.last?.name == "X-SPLIT-NAME")
    }

    @Test func continuationKeepsASpaceThatBelongsToTheValue() throws {
        let event = try #require(try read("folded-space-content.ics").first?.components(.event).first)
        #expect(event[.summary] == "words separated by spaces, folded right before a space that belongs to the value")
        #expect(event[.description] == "folded after an empty continuation")
    }

    @Test func textEscapesAreKeptRawAndDecodedOnRequest() throws {
        let event = try #require(try read("text-escapes.ics").first?.components(.event).first)
        #expect(event[.summary] == #"Backslash \\ semicolon \; comma \, newline \n capital \N end"#)
        #expect(event[text: .summary] == "Backslash \\ semicolon ; comma , newline \n capital \n end")
        #expect(event[text: .description] == "Path C:\\Users\\ana\\notes.txt; list: a,b,c\nline two\nline three")
        #expect(event.property("X-RAW")?.rawValue == #"unknown escapes \x \t stay as written"#)
        #expect(event.property(.categories)?.textValues == ["one,still one", "two"])
    }

    @Test func caretEscapedParametersDecode() throws {
        let event = try #require(try read("rfc6868-caret-parameters.ics").first?.components(.event).first)
        let attendees = event.properties(.attendee)
        #expect(attendees.map { $0[parameter: .commonName] } == ["George Herman \"Babe\" Ruth", "The ^ caret, quoted"])
        #expect(event.property(.location)?[parameter: "X-ADDRESS"] == "Pittsburgh Pirates\n115 Federal St\nPittsburgh, PA 15212")
        #expect(event.property("X-NOTE")?[parameter: "X-UNKNOWN-CARET"] == "a^bc^")
    }

    @Test func outlookHTMLDescriptionAndWindowsZoneSurvive() throws {
        let calendar = try #require(try read("outlook-meeting.ics").first)
        #expect(calendar.components(.timeZone).first?[.timeZoneIdentifier] == "W. Europe Standard Time")
        let event = try #require(calendar.components(.event).first)
        #expect(event.property(.dateTimeStart)?[parameter: .timeZoneIdentifier] == "W. Europe Standard Time")
        let html = try #require(event.property("X-ALT-DESC"))
        #expect(html[parameter: .formatType] == "text/html")
        #expect(html.rawValue.contains(#"text/html\; charset=utf-8""#) && html.rawValue.contains(#"Q4\; Budget"#))
        #expect(event.properties.filter { $0.name.hasPrefix("X-MICROSOFT-CDO-") }.count == 7)
        #expect(event.property(.attendee)?[parameter: .commonName] == "Jonas Keller")
        #expect(event.properties(.attendee).last?[parameter: .commonName] == "Müller, Eva")
    }

    @Test func appleStructuredLocationKeepsQuotedParameters() throws {
        let event = try #require(try read("icloud-structured-location.ics").first?.components(.event).first)
        let location = try #require(event.property("X-APPLE-STRUCTURED-LOCATION"))
        #expect(location.rawValue == "geo:37.769421,-122.486214")
        #expect(location[parameter: "X-ADDRESS"] == "Golden Gate Park, San Francisco CA 94117, United States")
        #expect(location[parameter: "X-TITLE"] == "Golden Gate Park")
        #expect(event["X-APPLE-TRAVEL-ADVISORY-BEHAVIOR"] == "AUTOMATIC")
        #expect(event.components(.alarm).count == 2)
    }

    @Test func experimentalAndUnknownComponentsNestAndStay() throws {
        let calendar = try #require(try read("x-components-nested.ics").first)
        let project = try #require(calendar.components("X-ACME-PROJECT").first)
        #expect(project.components("X-ACME-MILESTONE").count == 2)
        #expect(project.components.first?.components.first?.name == "X-ACME-NOTE")
        let event = try #require(calendar.components(.event).first)
        #expect(event.components.map(\.name) == ["X-ACME-BUDGET", "VALARM"])
        #expect(event.components(.alarm).first?.components.first?.name == "X-ACME-SNOOZE")

        let unknown = try #require(try read("unknown-iana-names.ics").first)
        #expect(unknown["FOOBAR"] == "calendar-level unknown property")
        let unknownEvent = try #require(unknown.components(.event).first)
        #expect(unknownEvent.property(.summary)?.parameters.map(\.name) == ["FOO", "DISPLAY"])
        #expect(unknownEvent.property("FOOBAR")?.parameters.first?.rawValue == "\"a;b:c,d\"")
        #expect(unknownEvent["X-EMPTY"] == "")
        #expect(unknownEvent.components.map(\.name) == ["VFOO"])
        #expect(unknown.components("VPOLL").first?.components.first?.components.first?.name == "VOTE")
    }

    @Test func newerRFCComponentsAreRead() throws {
        let participants = try #require(try read("rfc9073-participant-vlocation.ics").first?.components(.event).first)
        #expect(participants.components.map(\.name) == ["PARTICIPANT", "PARTICIPANT", "VLOCATION", "VRESOURCE"])
        #expect(participants.components(.participant).last?.components(.location).count == 1)
        let availability = try #require(try read("vavailability.ics").first?.components(.availability).first)
        #expect(availability.components(.available).count == 2)
        let rfc7986 = try #require(try read("rfc7986-properties.ics").first)
        #expect(rfc7986.components(.event).first?.properties("CONFERENCE").count == 3)
        #expect(try read("vjournal.ics").first?.components(.journal).count == 2)
        #expect(try read("vfreebusy.ics").first?.components(.freeBusy).first?.properties("FREEBUSY").count == 4)
    }

    @Test func severalCalendarsAndBareComponents() throws {
        #expect(try read("several-vcalendars.ics").count == 3)
        #expect(try read("concatenated-mixed-line-ends.ics").flatMap(\.allUIDs) == ["cat-a@example.com", "cat-b@example.com"])
        // A byte order mark at the start of a later file is skipped (with a warning).
        let joined = try read("concatenated-with-bom.ics")
        #expect(joined.map { $0[.productIdentifier] } == ["-//A//EN", "-//B//EN"])
        #expect(joined.flatMap(\.allUIDs) == ["bom-a@example.com", "bom-b@example.com"])
        let wrapped = try #require(try read("bare-vevent.ics").first)
        #expect(wrapped.matches(.calendar))
        #expect(wrapped[.version] == "2.0")
        #expect(wrapped.components(.event).first?[.uniqueIdentifier] == "bare@example.com")
    }

    @Test func longAndUnfoldedLinesAreKeptWhole() throws {
        let event = try #require(try read("very-long-lines.ics").first?.components(.event).first)
        #expect((event[.description]?.utf8.count ?? 0) > 10_000)
        let unfolded = try #require(try read("unfolded-long-lines-blank-lines.ics").first?.components(.event).first)
        #expect(unfolded[.description]?.utf8.count == 48 * 40)
        #expect(unfolded[.summary] == "Trailing space kept in values ")
    }
}
