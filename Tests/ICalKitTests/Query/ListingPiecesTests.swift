import Testing
@testable import ICalKit

/// `ical query` writes listings in pieces as they are formatted
/// (``OccurrenceFormatter/write(_:as:reserving:flushingAt:_:)``); the pieces, put together,
/// must be the bytes of the whole output, at any piece size, in every format.
@Suite struct ListingPiecesTests {
    /// Two years of a daily lesson in Berlin, a weekly all-day event and a floating meeting
    /// with non-ASCII text, quotes, commas and a conference link: about 900 listings, some
    /// 300 KB of JSON.
    static let listings: PackedListings = {
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//x//EN\r
            BEGIN:VEVENT\r
            UID:daily@example.org\r
            DTSTAMP:20250101T000000Z\r
            DTSTART;TZID=Europe/Berlin:20250101T170000\r
            DURATION:PT45M\r
            RRULE:FREQ=DAILY\r
            SUMMARY:Piano lesson – grade 3 (Émilie)\r
            LOCATION:Room "A"\\, floor 2\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:weekly@example.org\r
            DTSTAMP:20250101T000000Z\r
            DTSTART;VALUE=DATE:20250103\r
            RRULE:FREQ=WEEKLY\r
            SUMMARY:Market day 📅\r
            CONFERENCE;VALUE=URI;FEATURE=VIDEO;LABEL=Room:https://example.org/room\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:floating@example.org\r
            DTSTAMP:20250101T000000Z\r
            DTSTART:20250106T090000\r
            DTEND:20250106T100000\r
            RRULE:FREQ=WEEKLY;BYDAY=MO,TH\r
            SUMMARY:Team, weekly\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let calendar = try! ICalReader().read(text, file: "pieces.ics").calendars[0]
        let start = LocalDateTime(year: 2025, month: 1, day: 1)!.secondsSinceEpoch
        let end = LocalDateTime(year: 2027, month: 1, day: 1)!.secondsSinceEpoch
        let result = OccurrenceQuery(window: start..<end, floatingZone: IANATimeZone(named: "Europe/Berlin")!)
            .run([OccurrenceQuery.Source(calendar: calendar, name: "pieces.ics")])
        return PackedListings(result.matches.map(OccurrenceListing.init))
    }()

    @Test(arguments: [1, 100, 4096, 1 << 18])
    func piecesPutTogetherAreTheWholeOutput(pieceSize: Int) {
        #expect(Self.listings.count > 800)
        for displayZone in [nil, IANATimeZone(named: "America/New_York")] as [(any TimeZoneRules)?] {
            let formatter = OccurrenceFormatter(displayZone: displayZone)
            for format in [OccurrenceFormatter.ListingFormat.json, .csv, .agenda(color: false), .agenda(color: true)] {
                let whole = formatter.bytes(Self.listings, as: format)
                var pieces: [[UInt8]] = []
                formatter.write(Self.listings, as: format, reserving: 16, flushingAt: pieceSize) { (piece: inout [UInt8]) in
                    pieces.append(piece)
                    piece.removeAll(keepingCapacity: true)
                }
                #expect(pieces.joined().elementsEqual(whole), "\(format) in pieces of \(pieceSize)")
                // Every piece but the last is at least the piece size; a large output is
                // never held whole.
                #expect(pieces.dropLast().allSatisfy { $0.count >= pieceSize })
                if whole.count > 2 * pieceSize { #expect(pieces.count > 1) }
                #expect(pieces.allSatisfy { $0.count < pieceSize + 4096 })
            }
        }
    }

    @Test func aFailingWriteStopsTheListing() {
        struct Full: Error {}
        var written = 0
        #expect(throws: Full.self) {
            try OccurrenceFormatter().write(Self.listings, as: .json, flushingAt: 1000) { (piece: inout [UInt8]) throws(Full) in
                written += 1
                if written == 3 { throw Full() }
                piece.removeAll()
            }
        }
        #expect(written == 3)
    }

    /// JSON text is escaped from bytes exactly as ``OccurrenceFormatter/jsonString(_:)``
    /// escapes a string, and agenda text as ``TerminalText/line(_:maximumLength:)``: random text from scalars that are escaped, that share an escaped
    /// scalar's lead byte, and others; then bytes that are not UTF-8.
    @Test func jsonTextFromBytesIsTheStringsEscaping() {
        let pool: [Unicode.Scalar] = ["a", "Z", " ", "a", "b", "c", "d", "e", "f", "0", "~", "!", "#", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1B}", "\u{7F}", "\u{80}",
                                      "\u{85}", "\u{9F}", "\u{A0}", "\u{A9}", "é", "\u{600}", "\u{61C}", "\u{63F}", "\u{2013}",
                                      "—", "\u{200B}", "\u{200E}", "\u{200F}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{202E}",
                                      "\u{2066}", "\u{2069}", "\u{206A}", "€", "☕", "\u{2FFF}", "会", "📅", "\u{10FFFF}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                text.unicodeScalars.append(pool.randomElement(using: &generator)!)
            }
            var out: [UInt8] = []
            Array(text.utf8).withUnsafeBytes { OccurrenceFormatter.appendJSON($0, to: &out) }
            #expect(out == Array(OccurrenceFormatter.jsonString(text).utf8), "\(Array(text.unicodeScalars))")
            var line: [UInt8] = []
            Array(text.utf8).withUnsafeBytes { OccurrenceFormatter.appendLine($0, to: &line) }
            #expect(line == Array(TerminalText.line(text).utf8), "\(Array(text.unicodeScalars))")
            // The same into the buffer a listing is gathered in (another specialisation),
            // started nearly full so that it grows in the middle of the text.
            var buffer = ByteBuffer(capacity: 16)
            for _ in 0..<15 { buffer.append(UInt8(ascii: "x")) }
            Array(text.utf8).withUnsafeBytes { OccurrenceFormatter.appendJSON($0, to: &buffer) }
            buffer.withUnsafeBytes { #expect(Array($0) == Array(repeating: UInt8(ascii: "x"), count: 15) + out) }
        }
        for bytes: [UInt8] in [[0x22, 0xC3], [0xE2, 0x80], [0x41, 0x80, 0x22], [0xC2], [0xE2, 0x28, 0xA1, 0x5C], [0xFF, 0x0A]] {
            var out: [UInt8] = []
            bytes.withUnsafeBytes { OccurrenceFormatter.appendJSON($0, to: &out) }
            #expect(out == Array(OccurrenceFormatter.jsonString(String(decoding: bytes, as: UTF8.self)).utf8), "\(bytes)")
            var line: [UInt8] = []
            bytes.withUnsafeBytes { OccurrenceFormatter.appendLine($0, to: &line) }
            if bytes.contains(where: OccurrenceFormatter.needsJSONEscape) {
                #expect(line == Array(TerminalText.line(String(decoding: bytes, as: UTF8.self)).utf8), "\(bytes)")
            }
        }
        var null: [UInt8] = []
        OccurrenceFormatter.appendJSON(nil, to: &null)
        #expect(null == Array("null".utf8))
    }

    /// ``PackedListing/keys(_:at:)`` checks a stored record as the full reader does and reads
    /// the same keys: every record of the listings, then each cut short or with a byte
    /// changed (random, seeded), must be accepted by both or by neither.
    @Test func recordKeysAreTheFullReadersKeys() {
        var generator = OccurrenceStreamTests.Random(state: 15)
        var accepted = 0, refused = 0
        Self.listings.bytes.withUnsafeBytes { all in
            let ends = Array(Self.listings.offsets.dropFirst()) + [all.count]
            for (offset, end) in zip(Self.listings.offsets, ends) {
                var record = Array(all[offset..<end])
                func compare() {
                    record.withUnsafeBytes { bytes in
                        let full = PackedListing(bytes, at: 0, end: bytes.count)
                        let keys = PackedListing.keys(bytes, at: 0)
                        guard let full, let keys else {
                            if (full == nil) != (keys == nil) { #expect(Bool(false), "one reader accepts \(record)") }
                            return refused += 1
                        }
                        accepted += 1
                        let same = keys.startInstant == full.startInstant && keys.endInstant == full.endInstant
                            && keys.recurrenceLocal == full.recurrenceLocal
                            && keys.uid.baseAddress == full.uid.baseAddress && keys.uid.count == full.uid.count
                            && keys.source?.baseAddress == full.source?.baseAddress && keys.source?.count == full.source?.count
                        if !same { #expect(Bool(false), "other keys in \(record)") }
                    }
                }
                compare()
                let whole = record
                // The strings that must not be missing (component name, UID, a link's URI),
                // written as missing: refused by both.
                var required: [[UInt8]] = []
                whole.withUnsafeBytes { bytes in
                    guard let full = PackedListing(bytes, at: 0, end: bytes.count) else { return }
                    func missing(_ view: UnsafeRawBufferPointer) -> [UInt8] {
                        let start = view.baseAddress! - bytes.baseAddress!
                        return Array(bytes[..<(start - 4)]) + [0xFF, 0xFF, 0xFF, 0xFF] + Array(bytes[(start + view.count)...])
                    }
                    required = [missing(full.componentName), missing(full.uid)]
                    var firstLink = true
                    full.forEachLink { _, uri in
                        if firstLink { required.append(missing(uri)) }
                        firstLink = false
                    }
                }
                for bytes in required {
                    record = bytes
                    compare()
                }
                for _ in 0..<3 {
                    record = Array(whole.prefix(generator.int(0...(whole.count - 1))))
                    compare()
                    record = whole
                    record[generator.int(0...(whole.count - 1))] = UInt8(truncatingIfNeeded: generator.next())
                    compare()
                    record = whole + [UInt8(truncatingIfNeeded: generator.next())]
                    compare()
                }
            }
        }
        #expect(accepted > 900 && refused > 2000)
    }

    /// A listing is gathered in a ``ByteBuffer`` of 1 KB before it is appended; one of many
    /// kilobytes (a long escaped summary, many conference links) grows it and comes out whole
    /// in every format.
    @Test func aListingLargerThanItsBufferIsWrittenWhole() throws {
        let summary = String(repeating: "Répétition \"générale\"\u{1B} — ☕, ", count: 200)
        let links = (0..<40).map { OccurrenceListing.ConferenceLink(label: "Room \($0)", uri: "https://example.org/room/\($0)") }
        let start = LocalDateTime(year: 2026, month: 3, day: 2, hour: 9)!
        let end = LocalDateTime(year: 2026, month: 3, day: 2, hour: 10)!
        let listing = OccurrenceListing(
            uid: "long@example.org", recurrenceIdentifier: nil, summary: summary, location: "Hall, \"B\"", status: "CONFIRMED",
            componentName: "VEVENT", start: DateTime(start, zone: .utc), end: DateTime(end, zone: .utc),
            startInstant: start.secondsSinceEpoch, endInstant: end.secondsSinceEpoch, startOffset: 0, endOffset: 0,
            zoneName: "UTC", isAllDay: false, source: "long.ics", conferences: links)
        let formatter = OccurrenceFormatter()
        let json = String(decoding: formatter.bytes(PackedListings([listing, listing]), as: .json), as: UTF8.self)
        #expect(json.utf8.count > 2 * 8000)
        #expect(json.ranges(of: OccurrenceFormatter.jsonString(summary)).count == 2)
        #expect(json.hasSuffix("\"uri\": \"https://example.org/room/39\"}]}\n]\n"))
        let csv = String(decoding: formatter.bytes(PackedListings([listing]), as: .csv), as: UTF8.self)
        #expect(csv.contains("\"" + summary.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""))
        #expect(csv.hasSuffix((0..<40).map { "https://example.org/room/\($0)" }.joined(separator: " ") + "\r\n"))
        let agenda = String(decoding: formatter.bytes(PackedListings([listing]), as: .agenda(color: false)), as: UTF8.self)
        #expect(agenda.contains(TerminalText.line(summary)))
    }
}
