import Testing
@testable import ICalKit

/// The reader's byte-level shortcuts (issue 15) against the plain formulas they stand for:
/// word-at-a-time searches, names compared as bytes, common names taken from constants,
/// and an ASCII rule split over its bytes.
@Suite struct ReaderFastPathTests {
    @Test func byteInWordAgreesWithALoop() {
        var generator = SplitMix64(seed: 0xB17E)
        let interesting: [UInt8] = [0x00, 0x01, 0x0A, 0x0B, 0x0D, 0x0E, 0x7F, 0x80, 0x8A, 0x8D, 0xFF, 0x20, 0x41]
        for round in 0..<50_000 {
            var word: UInt64 = 0
            for lane in 0..<8 {
                let byte = round % 2 == 0 ? interesting[Int(generator.next() % UInt64(interesting.count))]
                    : UInt8(truncatingIfNeeded: generator.next())
                word |= UInt64(byte) << (8 * UInt64(lane))
            }
            for byte in [ASCII.lf, ASCII.cr, UInt8(0)] {
                let expected = (0..<8).contains { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) == byte }
                #expect(ASCII.hasByte(byte, in: word) == expected, "word \(String(word, radix: 16)) byte \(byte)")
            }
        }
    }

    @Test func validUTF8AgreesWithTheStandardLibrary() {
        var generator = SplitMix64(seed: 0x07F8)
        let pieces: [[UInt8]] = [
            Array("abcdefgh".utf8), Array("x".utf8), Array("é".utf8), Array("会".utf8), Array("😀".utf8),
            [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF],
            [0xE4, 0xBC], [0xF0, 0x9F], Array("0123456789abcdef".utf8),
        ]
        for _ in 0..<4_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(generator.next() % 8) { bytes += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            bytes.withUnsafeBufferPointer { buffer in
                #expect(ASCII.isValidUTF8(buffer) == expected, "\(bytes)")
                // Every start, so the eight-byte steps meet the multi-byte sequences at every offset.
                for start in 0..<buffer.count {
                    let rest = UnsafeBufferPointer(rebasing: buffer[start...])
                    #expect(ASCII.isValidUTF8(rest) == (String(validating: Array(rest), as: UTF8.self) != nil))
                }
            }
        }
    }

    @Test func bytesCompareWithCapitalsIgnoringCase() {
        let names = ["BEGIN", "begin", "Begin", "BEGIn", "BEGI", "BEGINS", "END", "end", "ENd", "EN", "", "DTSTART",
                     "dtstart", "DTSTAR", "RECURRENCE-ID", "recurrence-id", "RECURRENCE_ID", "BEGIN\u{301}", "ÉND"]
        for name in names {
            for known: StaticString in ["BEGIN", "END", "DTSTART", "RECURRENCE-ID"] {
                let expected = ASCII.equalsIgnoringCase(name, known.description)
                #expect(ASCII.equalsIgnoringCase(name, known) == expected, "\(name) \(known)")
                Array(name.utf8).withUnsafeBufferPointer { bytes in
                    #expect(ASCII.equalsIgnoringCase(bytes, known) == expected, "\(name) \(known)")
                }
            }
        }
    }

    /// The value checks' shortcuts against the formulas they replaced.
    @Test func trimmingAndZonedDatesAgreeWithTheirFormulas() {
        func trimmed(_ text: String) -> Substring {
            let trimmed = text.drop { $0 == " " }
            return trimmed.dropLast(trimmed.reversed().prefix { $0 == " " }.count)
        }
        func zonedDate(_ text: String) -> Bool {
            let utf8 = Array(text.utf8)
            return utf8.count == 9 && utf8[8] == UInt8(ascii: "Z") && utf8[..<8].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        }
        var generator = SplitMix64(seed: 0x7E1A)
        let pieces = [" ", "  ", "1", "20240101", "Z", "z", "\u{301}", "\u{600}", "é", "\t", "x", "2024010", "T"]
        var zoned = 0
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int(generator.next() % 5) { text += pieces[Int(generator.next() % UInt64(pieces.count))] }
            #expect(text.trimmingSpaces == trimmed(text), "\(text.debugDescription)")
            #expect(DateSyntax.isZonedDate(text) == zonedDate(text), "\(text.debugDescription)")
            #expect(DateSyntax.isZonedDate(Substring(text)) == zonedDate(text), "\(text.debugDescription)")
            if zonedDate(text) { zoned += 1 }
        }
        #expect(zoned > 5)
    }

    /// Common names come from constants only when written exactly so: any other spelling
    /// is kept as written, and the calendar writes back byte for byte.
    @Test func namesAreKeptAsWritten() throws {
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//t//t//EN\r
            BEGIN:vevent\r
            uid:a@example.com\r
            Dtstart;tzid=Europe/Berlin:20240101T100000\r
            DTEND;TZID=Europe/Berlin;Value=DATE-TIME:20240101T110000\r
            SUMMARY;CN=x;LANGUAGE=de:Hallo\r
            DESCRIPTIONS:not a known name\r
            DESCRIPTION:a known name\r
            Rrule:FREQ=DAILY;COUNT=2\r
            ATTENDEE;CN=A;ROLE=CHAIR;PARTSTAT=ACCEPTED;RSVP=TRUE;CUTYPE=GROUP:mailto:a\r
            X-LIC-LOCATION:x\r
            END:vevent\r
            END:VCALENDAR\r

            """
        let result = try ICalReader().read(text)
        #expect(result.diagnostics.isEmpty)
        let event = try #require(result.calendars.first?.components.first)
        #expect(event.name == "vevent")
        #expect(event.properties.map(\.name) == ["uid", "Dtstart", "DTEND", "SUMMARY", "DESCRIPTIONS", "DESCRIPTION",
                                                 "Rrule", "ATTENDEE", "X-LIC-LOCATION"])
        #expect(event.properties[1].parameters.map(\.name) == ["tzid"])
        #expect(event.properties[2].parameters.map(\.name) == ["TZID", "Value"])
        #expect(event.properties[7].parameters.map(\.name) == ["CN", "ROLE", "PARTSTAT", "RSVP", "CUTYPE"])
        #expect(ICalWriter().string(result.calendars) == text)
        // BEGIN and END are found whatever their case.
        let lowered = text.replacing("BEGIN:vevent", with: "begin:vevent").replacing("END:vevent", with: "eNd:vevent")
        let again = try ICalReader().read(lowered)
        #expect(again.diagnostics.isEmpty)
        #expect(again.calendars == result.calendars)
    }

    /// In ASCII text without control characters every byte is a Character, so splitting
    /// the bytes at `;` gives the parts splitting the Characters gives.
    @Test func asciiRulesSplitAsCharactersDo() {
        var generator = SplitMix64(seed: 0x5E11)
        let pieces = ["FREQ=", "WEEKLY", ";", ";;", "COUNT=", "3", "BYDAY=", "MO,TU", "=", " ", "UNTIL=", "20240101T000000Z", "x", "-"]
        for _ in 0..<20_000 {
            var raw = ""
            for _ in 0..<Int(generator.next() % 7) { raw += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let characters = raw.split(separator: ";", omittingEmptySubsequences: true).map(String.init)
            let bytes = raw.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true).map { String(Substring($0)) }
            #expect(characters == bytes, "\(raw)")
            #expect((try? RecurrenceRule.parse(raw)) == (try? RecurrenceRule.parse(raw + ";")))
        }
        // A rule that is not ASCII is split as Characters (the accent joins the ';' before
        // it into one Character) and is refused.
        #expect(throws: ICalError.self) { try RecurrenceRule.parse("FREQ=DAILY;\u{301}COUNT=2") }
        #expect((try? RecurrenceRule.parse("FREQ=DAILY;COUNT=2"))?.count == 2)
    }
}
