import ICalKit
import Testing

/// ``ICalReader/Mode/strict``: the first error throws with its file and line; warnings
/// are reported and do not throw.
@Suite struct StrictModeTests {
    @Test func firstErrorThrowsWithFileAndLine() throws {
        let text = """
            BEGIN:VEVENT\r
            UID:1\r
            DTSTART:20240231T100000Z\r
            RRULE:FREQ=FORTNIGHTLY\r
            END:VEVENT\r

            """
        let error = try #require(throws: ICalError.self) {
            try ICalReader(mode: .strict).read(text, file: "lessons.ics")
        }
        #expect(error.code == .invalidValue)
        #expect(error.file == "lessons.ics")
        #expect(error.line == 3, "the warning on line 1 (bare VEVENT) did not throw; the first error did")
        #expect(error.description.hasPrefix("lessons.ics:3: "))

        let lenient = try ICalReader(mode: .lenient).read(text, file: "lessons.ics")
        #expect(lenient.diagnostics.map(\.line) == [1, 3, 4])
        #expect(ICalError(try #require(lenient.errors.first)) == error)
    }

    @Test func warningsDoNotThrow() throws {
        let text = "BEGIN:VEVENT\r\nUID:1\r\nSUMMARY:Caf\u{E9}\r\nEND:VEVENT\r\n"
        var bytes = Array(text.utf8)
        bytes.insert(contentsOf: [0xFF], at: bytes.firstIndex(of: UInt8(ascii: "f"))!)  // invalid UTF-8: a warning
        let result = try ICalReader(mode: .strict).read(bytes)
        #expect(result.diagnostics.map(\.severity) == [.warning, .warning])
        #expect(result.diagnostics.map(\.code) == [.placement, .encoding])
        #expect(result.calendars.first?.components(.event).first?[.summary] == "Ca\u{FFFD}f\u{E9}")
    }

    @Test func structuralAndLimitErrorsThrowToo() throws {
        let missingEnd = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\n"
        let structure = try #require(throws: ICalError.self) { try ICalReader(mode: .strict).read(missingEnd) }
        #expect(structure.code == .structure && structure.line == 3)

        let deep = "BEGIN:VCALENDAR\r\nBEGIN:X-A\r\nBEGIN:X-B\r\nEND:X-B\r\nEND:X-A\r\nEND:VCALENDAR\r\n"
        let limit = try #require(throws: ICalError.self) {
            try ICalReader(mode: .strict, limits: .init(maxDepth: 2)).read(deep)
        }
        #expect(limit.code == .limitExceeded && limit.line == 3)

        let empty = try #require(throws: ICalError.self) { try ICalReader(mode: .strict).read("") }
        #expect(empty.code == .noCalendarData)
    }

    /// The diagnostics cap is an error even when only warnings led to it.
    @Test func diagnosticsCapReachedByWarningsThrows() throws {
        var bytes = Array("BEGIN:VCALENDAR\r\n".utf8)
        for _ in 0..<5 { bytes += Array("X-A:".utf8) + [0xFF] + Array("\r\n".utf8) }
        bytes += Array("END:VCALENDAR\r\n".utf8)
        let limits = ICalReader.Limits(maxDiagnostics: 3)
        let lenient = try ICalReader(limits: limits).read(bytes)
        #expect(lenient.diagnostics.map(\.severity) == [.warning, .warning, .warning, .error])
        let error = try #require(throws: ICalError.self) {
            try ICalReader(mode: .strict, limits: limits).read(bytes)
        }
        #expect(error.code == .limitExceeded && error.line == 4)
        #expect(ICalError(try #require(lenient.errors.first)) == error)
    }

    @Test func cleanInputReadsTheSameInBothModes() throws {
        let bytes = try Fixtures.bytes("valid", "google-calendar-export.ics")
        #expect(try ICalReader(mode: .strict).read(bytes) == ICalReader(mode: .lenient).read(bytes))
    }
}
