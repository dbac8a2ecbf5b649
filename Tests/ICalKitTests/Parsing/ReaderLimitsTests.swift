import Foundation
import ICalKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ``ICalReader/Limits``: each limit with small custom values, and the headline hostile
/// inputs with the defaults. Every case ends in an error diagnostic, never a crash or hang.
@Suite(.serialized) struct ReaderLimitsTests {
    private func calendar(_ lines: [String]) -> [UInt8] {
        Array((["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN"] + lines + ["END:VCALENDAR"])
            .map { $0 + "\r\n" }.joined().utf8)
    }

    private func event(_ uid: String, _ extra: [String] = []) -> [String] {
        ["BEGIN:VEVENT", "UID:\(uid)", "DTSTART:20240101T100000Z"] + extra + ["END:VEVENT"]
    }

    private func summary(_ result: ReadResult) -> [String] {
        result.diagnostics.map { "\($0.line) \($0.severity.rawValue) \($0.code.rawValue)" }
    }

    // MARK: Custom limits

    @Test func nestingDepth() throws {
        let bytes = calendar(event("a", ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT1M", "BEGIN:X-DEEP", "X-P:1", "BEGIN:X-DEEPER", "END:X-DEEPER", "END:X-DEEP", "END:VALARM"]) + event("b"))
        let result = try ICalReader(limits: .init(maxDepth: 3)).read(bytes)
        #expect(summary(result) == ["10 error limit-exceeded"])
        #expect(result.diagnostics.first?.component == "X-DEEP")
        let events = try #require(result.calendars.first?.components(.event))
        #expect(events.map { $0[.uniqueIdentifier] } == ["a", "b"])
        #expect(events[0].components(.alarm).first?.components.isEmpty == true)
        #expect(events[0].components(.alarm).first?[.trigger] == "-PT1M")
        // The default allows it.
        #expect(try ICalReader().read(bytes).diagnostics.isEmpty)
    }

    @Test func lineLength() throws {
        let long = "DESCRIPTION:" + String(repeating: "x", count: 120)
        let folded = "COMMENT:" + String(repeating: "y", count: 60) + "\r\n " + String(repeating: "y", count: 60)
        let bytes = calendar(event("a", [long, "SUMMARY:short", folded]) + event("b"))
        let result = try ICalReader(limits: .init(maxLineLength: 100)).read(bytes)
        #expect(summary(result) == ["7 error limit-exceeded", "9 error limit-exceeded"])
        let events = try #require(result.calendars.first?.components(.event))
        #expect(events.map { $0[.uniqueIdentifier] } == ["a", "b"])
        #expect(events[0][.description] == nil && events[0][.comment] == nil && events[0][.summary] == "short")
        // Exactly at the limit is fine.
        let exact = calendar(event("c", ["X-P:" + String(repeating: "z", count: 96)]))
        #expect(try ICalReader(limits: .init(maxLineLength: 100)).read(exact).diagnostics.isEmpty)
    }

    @Test func inputSize() throws {
        let bytes = calendar(event("a"))
        let result = try ICalReader(limits: .init(maxInputSize: 64)).read(bytes)
        #expect(summary(result) == ["1 error limit-exceeded"])
        #expect(result.calendars.isEmpty)
        #expect(try ICalReader(limits: .init(maxInputSize: bytes.count)).read(bytes).diagnostics.isEmpty)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("icalkit-limit-\(getpid()).ics").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: ICalError.self) {
            try ICalReader(limits: .init(maxInputSize: 64)).read(contentsOfFile: path)
        }
        #expect(error.code == .limitExceeded)
        #expect(error.file == path)
    }

    @Test func propertyCount() throws {
        let properties = (1...10).map { "X-N:\($0)" }
        let result = try ICalReader(limits: .init(maxPropertiesPerComponent: 5)).read(calendar(event("a", properties) + event("b")))
        #expect(summary(result) == ["10 error limit-exceeded"], "reported once, at the first property over")
        let events = try #require(result.calendars.first?.components(.event))
        #expect(events[0].properties.count == 5)
        #expect(events[0].properties("X-N").map(\.rawValue) == ["1", "2", "3"])
        #expect(events[1].properties.count == 2)
    }

    @Test func componentCount() throws {
        let result = try ICalReader(limits: .init(maxComponents: 3)).read(calendar(event("a") + event("b") + event("c") + event("d")))
        #expect(summary(result) == ["12 error limit-exceeded"], "reported once")
        #expect(result.calendars.first?.components.compactMap { $0[.uniqueIdentifier] } == ["a", "b"])
    }

    @Test func diagnosticsCap() throws {
        let bad = (1...20).map { "bad line \($0)" }
        let result = try ICalReader(limits: .init(maxDiagnostics: 5)).read(calendar(event("a") + bad + event("b")))
        #expect(summary(result) == ["8 error syntax", "9 error syntax", "10 error syntax", "11 error syntax", "12 error syntax", "12 error limit-exceeded"])
        #expect(result.calendars.isEmpty, "reading stopped inside the open VCALENDAR")
    }

    // MARK: Default limits, hostile input

    /// Runs `body` with file descriptor 2 sent to a temporary file; returns the lines written
    /// there by anything but the test runner. Swift Testing reports other tests' progress on
    /// the same descriptor meanwhile: those lines start with its event symbols (or are
    /// indented details) and are left out.
    private func capturingStandardError(_ body: () throws -> Void) rethrows -> [String] {
        let runnerSymbols: Set<Character> = ["◇", "✔", "✘", "↳", "±", "⚠", "→", "􀟈", "􀁢", "􀢄", "􀄵", "􀀄", "􀇾", "􀙟", "􀊱"]
        return try capturingRawStandardError(body)
            .split(separator: "\n")
            .filter { line in
                guard let first = line.first else { return false }
                return !first.isWhitespace && !runnerSymbols.contains(first)
            }
            .map(String.init)
    }

    private func capturingRawStandardError(_ body: () throws -> Void) rethrows -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("icalkit-stderr-\(getpid()).txt").path
        let capture = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        let saved = dup(2)
        fflush(nil)
        dup2(capture, 2)
        defer {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
            close(capture)
            try? FileManager.default.removeItem(atPath: path)
        }
        try body()
        fflush(nil)
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    @Test func standardErrorCaptureSeesForeignOutput() {
        let message = "Encountered END before BEGIN\n"
        let lines = capturingStandardError {
            _ = message.withCString { write(2, $0, strlen($0)) }
        }
        #expect(lines == ["Encountered END before BEGIN"])
    }

    @Test(.timeLimit(.minutes(1)))
    func hundredThousandNestedBegins() throws {
        var text = "BEGIN:VCALENDAR\r\n"
        for index in 0..<100_000 { text += "BEGIN:X-N\(index % 10)\r\n" }
        var result: ReadResult?
        let output = try capturingStandardError { result = try ICalReader().read(text) }
        let read = try #require(result)
        #expect(output.isEmpty, "\(output)")
        #expect(read.errors.first?.code == .limitExceeded)
        #expect(read.errors.first?.line == 33)
        #expect(read.calendars.first?.depth == 32)
        // What was kept is written without recursion trouble and reads back the same.
        let again = try ICalReader().read(ICalWriter().bytes(read.calendars))
        #expect(again.calendars == read.calendars && again.diagnostics.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func fiftyMegabyteLine() throws {
        var bytes = Array("BEGIN:VCALENDAR\r\nX-HUGE:".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "a"), count: 50 << 20)
        bytes += Array("\r\nX-AFTER:kept\r\nEND:VCALENDAR\r\n".utf8)
        var result: ReadResult?
        let output = try capturingStandardError { result = try ICalReader().read(bytes) }
        let read = try #require(result)
        #expect(output.isEmpty, "\(output)")
        #expect(summary(read) == ["2 error limit-exceeded"])
        #expect(read.calendars.first?["X-AFTER"] == "kept")
    }

    @Test(.timeLimit(.minutes(1)))
    func fiftyMegabytesOfRandomBinary() throws {
        var generator = SplitMix64(seed: 0x1CA1_F022)
        var bytes = [UInt8](repeating: 0, count: 50 << 20)
        bytes.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
        }
        var result: ReadResult?
        let output = try capturingStandardError { result = try ICalReader().read(bytes) }
        let read = try #require(result)
        #expect(output.isEmpty, "\(output)")
        #expect(read.hasErrors)
        #expect(read.diagnostics.count <= ICalReader.Limits.default.maxDiagnostics + 1)
        #expect(read.diagnostics.last?.code == .limitExceeded)
    }

    @Test(.timeLimit(.minutes(1)))
    func nulByte() throws {
        var result: ReadResult?
        let output = try capturingStandardError {
            result = try ICalReader().read(Array("BEGIN:VCALENDAR\r\nSUMMARY:a\0b\r\nX-OK:kept\r\nEND:VCALENDAR\r\n".utf8))
        }
        let read = try #require(result)
        #expect(output.isEmpty, "\(output)")
        #expect(summary(read) == ["2 error encoding"])
        #expect(read.calendars.first?.properties.map(\.name) == ["X-OK"])
    }
}

/// A small seeded generator, so the random input is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
