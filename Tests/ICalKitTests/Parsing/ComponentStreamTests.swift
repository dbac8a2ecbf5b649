import Foundation
import ICalKit
import Testing

/// ``ICalComponentStream`` and ``CalendarStreamWriter`` against the whole-file reader and
/// writers: on every fixture, in parts of a megabyte and of a few bytes (every line then
/// crosses a part), the same components, diagnostics and bytes.
@Suite struct ComponentStreamTests {
    /// The calendars a streamed read adds up to, with each component read again from its place.
    private static func streamed(_ path: String, reader: ICalReader = ICalReader(), partSize: Int? = nil)
        throws -> (calendars: [Component], summary: ICalComponentStream.Summary, reread: [Component])
    {
        guard let stream = try ICalComponentStream.open(path, reader: reader) else {
            throw ICalError(.io, "not streamed", file: path)
        }
        if let partSize { stream.partSize = partSize }
        var children: [[Component]] = []
        var locations: [ICalComponentStream.Location] = []
        var ends: [Int] = []
        let summary = try stream.read { event in
            switch event {
            case .component(let item):
                while children.count <= item.calendarIndex { children.append([]) }
                children[item.calendarIndex].append(item.component)
                locations.append(item.location)
            case .endOfCalendar(_, let index):
                ends.append(index)
            }
        }
        #expect(ends == Array(summary.calendars.indices))
        var calendars = summary.calendars
        for index in calendars.indices where index < children.count { calendars[index].components = children[index] }
        let reread = try locations.map { try stream.component(at: $0) }
        return (calendars, summary, reread)
    }

    private static var allFixtures: [(String, String)] {
        Fixtures.valid.map { ("valid", $0) } + Fixtures.malformed.map { ("malformed", $0) }
    }

    @Test(arguments: [nil, 7, 64] as [Int?])
    func streamedReadsGiveTheTreeAndDiagnosticsOfAWholeRead(partSize: Int?) throws {
        var faithful = 0
        for (folder, name) in Self.allFixtures {
            let path = Fixtures.path(folder, name)
            let whole = try ICalReader().read(contentsOfFile: path)
            let (calendars, summary, reread) = try Self.streamed(path, partSize: partSize)
            #expect(summary.diagnostics == whole.diagnostics, "\(name)")
            #expect(reread == calendars.flatMap(\.components), "\(name): a component read again from its place differs")
            if summary.isFaithful {
                faithful += 1
                #expect(calendars == whole.calendars, "\(name)")
            }
        }
        #expect(faithful >= Self.allFixtures.count - 3, "most fixtures stream faithfully")
    }

    @Test func strictModeThrowsTheSameFirstError() throws {
        for name in Fixtures.malformed {
            let path = Fixtures.path("malformed", name)
            let reader = ICalReader(mode: .strict)
            var wholeError: ICalError?
            do { _ = try reader.read(contentsOfFile: path) } catch { wholeError = error }
            var streamError: ICalError?
            do { _ = try Self.streamed(path, reader: reader, partSize: 5) } catch { streamError = error as? ICalError }
            #expect(streamError?.description == wholeError?.description, "\(name)")
        }
    }

    @Test func aCalendarPropertyAfterAComponentIsNotFaithful() throws {
        let folder = try TemporaryFiles()
        defer { folder.remove() }
        let path = try folder.write("late.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20260101T100000Z\r\nEND:VEVENT\r\nX-WR-TIMEZONE:Europe/Berlin\r\nEND:VCALENDAR\r\n")
        let (_, summary, _) = try Self.streamed(path)
        #expect(!summary.isFaithful)
    }

    @Test func errorsCarryTheFileAndLineOfAWholeRead() throws {
        let folder = try TemporaryFiles()
        defer { folder.remove() }
        let text = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261341T100000Z\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:b\r\nno colon here\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let path = try folder.write("bad.ics", text)
        let (_, summary, _) = try Self.streamed(path, partSize: 3)
        #expect(summary.diagnostics.map(\.line) == [4, 8])
        #expect(summary.diagnostics.allSatisfy { $0.file == path && $0.severity == .error })
    }

    @Test func onlyJCalIsNotStreamedAndSizeIsNoLimit() throws {
        let folder = try TemporaryFiles()
        defer { folder.remove() }
        let jcal = try folder.write("a.json", "  [\"vcalendar\",[],[]]")
        #expect(try ICalComponentStream.open(jcal) == nil)
        // A file over maxInputSize is streamed: that limit bounds whole reads only.
        let big = try folder.write("big.ics", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        let reader = ICalReader(limits: .init(maxInputSize: 10))
        #expect(throws: ICalError.self) { _ = try reader.read(contentsOfFile: big) }
        let stream = try #require(try ICalComponentStream.open(big, reader: reader))
        var uids: [String] = []
        let summary = try stream.read { if case .component(let item) = $0 { uids.append(item.component.uid ?? "") } }
        #expect(uids == ["a"] && summary.diagnostics.isEmpty && summary.isFaithful)
        #expect(throws: ICalError.self) { _ = try ICalComponentStream.open(folder.path + "/missing.ics") }
    }

    /// A stream is bounded per component: one too long is left out with an error naming
    /// its BEGIN line, and the components after it are read.
    @Test func aComponentOverTheSizeLimitIsLeftOut() throws {
        let folder = try TemporaryFiles()
        defer { folder.remove() }
        let long = String(repeating: "DESCRIPTION:padding padding padding\r\n", count: 200)
        let text = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:big\r\n" + long
            + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:c\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let path = try folder.write("a.ics", text)
        let stream = try #require(try ICalComponentStream.open(path, reader: ICalReader(limits: .init(maxComponentSize: 2_000))))
        stream.partSize = 64
        var uids: [String] = []
        let summary = try stream.read { if case .component(let item) = $0 { uids.append(item.component.uid ?? "") } }
        #expect(uids == ["a", "c"])
        #expect(summary.diagnostics.count == 1)
        #expect(summary.diagnostics.first?.code == .limitExceeded)
        #expect(summary.diagnostics.first?.message.contains("BEGIN at line 5") == true)
    }

    /// Past maxDiagnostics a stream reads on (a whole read stops) and ends with a count of
    /// the problems it did not list.
    @Test func aStreamReadsOnPastTheDiagnosticLimit() throws {
        let folder = try TemporaryFiles()
        defer { folder.remove() }
        var text = "BEGIN:VCALENDAR\r\n"
        for index in 0..<30 { text += "BEGIN:VEVENT\r\nUID:\(index)\r\nDTSTART:20261341T100000Z\r\nEND:VEVENT\r\n" }
        text += "END:VCALENDAR\r\n"
        let path = try folder.write("a.ics", text)
        let reader = ICalReader(limits: .init(maxDiagnostics: 10))
        let stream = try #require(try ICalComponentStream.open(path, reader: reader))
        var count = 0
        let summary = try stream.read { if case .component = $0 { count += 1 } }
        #expect(count == 30)
        #expect(summary.diagnostics.count == 11)
        #expect(summary.diagnostics.last?.message.hasPrefix("20 more problems (20 of them errors)") == true)
        #expect(summary.diagnostics.last?.severity == .error)
    }

    // MARK: Writer

    private static func streamWrite(_ calendars: [Component], format: CalendarFormat, pretty: Bool, learnLate: Bool) -> [UInt8] {
        var writer = CalendarStreamWriter(format: format, pretty: pretty, severalCalendars: !learnLate && calendars.count != 1)
        var output: [UInt8] = []
        var firstEnd: Int?
        for (index, calendar) in calendars.enumerated() {
            if learnLate && index == 1 {
                firstEnd = output.count
                writer.continueAsSeveral()
            }
            var header = calendar
            header.components = []
            writer.beginCalendar(header, to: &output)
            for component in calendar.components { writer.append(component, to: &output) }
            writer.endCalendar(header, to: &output)
        }
        writer.finish(to: &output)
        guard let firstEnd, format == .jCal else { return output }
        // What `ical convert` does when it commits: the opening, and the first calendar re-indented.
        var fixed = writer.severalCalendarsOpening
        for byte in output[0..<firstEnd] {
            fixed.append(byte)
            if pretty && byte == 0x0A { fixed += [0x20, 0x20] }
        }
        return fixed + output[firstEnd...]
    }

    @Test func theStreamWriterWritesTheBytesOfTheTreeWriters() throws {
        var checked = 0
        for name in Fixtures.valid {
            let calendars = try ICalReader().read(contentsOfFile: Fixtures.path("valid", name)).calendars
            for several in [calendars, calendars + calendars] where !several.isEmpty {
                for learnLate in [false, true] {
                    #expect(Self.streamWrite(several, format: .iCalendar, pretty: false, learnLate: learnLate) == ICalWriter().bytes(several), "\(name)")
                    for pretty in [false, true] {
                        #expect(Self.streamWrite(several, format: .jCal, pretty: pretty, learnLate: learnLate)
                            == JCalWriter().bytes(several, pretty: pretty), "\(name) pretty \(pretty) late \(learnLate)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 20)
    }
}

/// A temporary folder for test files (never $HOME).
private struct TemporaryFiles {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("icalkit-stream-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}
