import Foundation
import ICalKit
import Testing

/// ``CalendarRepair/StreamedFile`` and ``CalendarSplit/Run`` give what the whole repair and
/// split give, on every fixture, read in parts of a few bytes and with records that spill
/// after a few hundred bytes.
@Suite struct StreamedSplitRepairLibraryTests {
    static let fixed = DateTime(iCalendar: "20240501T120000Z")!

    static var files: [String] {
        Fixtures.valid.map { Fixtures.path("valid", $0) } + Fixtures.malformed.map { Fixtures.path("malformed", $0) }
    }

    /// A calendar whose VTIMEZONEs come after its events, with Windows TZIDs, a floating
    /// UNTIL, an override far from its master, twins without UID and a UID an earlier
    /// repair gave to the twins' content.
    static func hard() throws -> String {
        let twin = "BEGIN:VEVENT\r\nDTSTART:20240301T100000\r\nSUMMARY:twin\r\nEND:VEVENT\r\n"
        let repaired = CalendarRepair(now: { fixed }).repair(
            try ICalReader().read("BEGIN:VCALENDAR\r\nX-WR-TIMEZONE:America/New_York\r\n" + twin + "END:VCALENDAR\r\n").calendars, file: nil)
        let given = try #require(repaired.calendars.first?.components.first { $0.matches(.event) }?.uid)
        var text = "BEGIN:VCALENDAR\r\nX-WR-TIMEZONE:America/New_York\r\n"
        text += "BEGIN:VEVENT\r\nUID:series\r\nDTSTART;TZID=W. Europe Standard Time:20240301T100000\r\nRRULE:FREQ=DAILY;UNTIL=20240310T100000\r\nEND:VEVENT\r\n"
        text += "BEGIN:VEVENT\r\nUID:\(given)\r\nDTSTAMP:20240101T000000Z\r\nDTSTART;TZID=America/New_York:20240301T100000\r\nSUMMARY:twin\r\nEND:VEVENT\r\n"
        for index in 0..<30 {
            text += "BEGIN:VEVENT\r\nUID:e\(index % 12)\r\nSEQUENCE:\(index % 3)\r\nDTSTART;TZID=Custom/Zone:20240301T100000\r\nEND:VEVENT\r\n"
        }
        text += twin + twin
        text += "BEGIN:VEVENT\r\nUID:series\r\nRECURRENCE-ID;TZID=W. Europe Standard Time:20240303T100000\r\nDTSTART:20240303T120000\r\nEND:VEVENT\r\n"
        text += "BEGIN:VTIMEZONE\r\nTZID:Custom/Zone\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        text += "BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        return text + "END:VCALENDAR\r\n"
    }

    /// A file's calendars and notes as the streamed repair gives them (nil: the stream is
    /// not faithful, and the whole repair is used instead).
    static func streamedRepair(_ path: String, partSize: Int) throws -> (calendars: [Component], notes: [ConversionNote])? {
        guard let stream = try ICalComponentStream.open(path) else { return nil }
        stream.partSize = partSize
        let file = CalendarRepair.StreamedFile(CalendarRepair(now: { fixed }), stream: stream, file: path, zoneBudget: 1 << 24)
        guard try file.prepare().isFaithful else { return nil }
        var calendars: [Component] = []
        var notes: [(ConversionNote, [Int])] = []
        try file.read({ notes.append(($0, $1)) }) { event, _ in
            switch event {
            case .component(let item):
                while calendars.count <= item.calendarIndex { calendars.append(Component(kind: .calendar)) }
                calendars[item.calendarIndex].components.append(item.component)
            case .endOfCalendar(let header, let index):
                while calendars.count <= index { calendars.append(Component(kind: .calendar)) }
                let components = calendars[index].components
                calendars[index] = header
                calendars[index].components = components
            }
        }
        let sorted = notes.enumerated().sorted { $0.element.1.lexicographicallyPrecedes($1.element.1) }.map(\.element.0)
        return (calendars, sorted)
    }

    @Test(arguments: [7, 1 << 20])
    func streamedRepairGivesTheWholeRepair(partSize: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-repair-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let hard = folder.appendingPathComponent("hard.ics").path
        try Data(try Self.hard().utf8).write(to: URL(fileURLWithPath: hard))
        var streamed = 0
        for path in Self.files + [hard] {
            let whole = CalendarRepair(now: { Self.fixed }).repair(try ICalReader().read(contentsOfFile: path).calendars, file: path)
            guard let result = try Self.streamedRepair(path, partSize: partSize) else { continue }
            streamed += 1
            #expect(ICalWriter().string(result.calendars) == ICalWriter().string(whole.calendars), "\(path)")
            #expect(result.notes == whole.changes, "\(path)")
        }
        #expect(streamed > 40)
        let notes = try #require(try Self.streamedRepair(hard, partSize: partSize)).notes.map(\.message)
        #expect(notes.filter { $0.hasPrefix("added UID:") }.count == 2)
        #expect(notes.contains { $0.hasPrefix("RRULE UNTIL 20240310T100000 is floating") })
    }

    /// The split of whole reads, written into `folder`: its notes and the files written.
    static func wholeSplit(_ paths: [String], repair: Bool, into folder: String) throws -> [String] {
        var inputs = try paths.map { CalendarSplit.Input(file: $0, calendars: try ICalReader().read(contentsOfFile: $0).calendars) }
        var notes: [String] = []
        if repair {
            for index in inputs.indices {
                let result = CalendarRepair(now: { fixed }).repair(inputs[index].calendars, file: inputs[index].file)
                inputs[index].calendars = result.calendars
                notes += result.changes.map(\.description)
            }
        }
        let result = CalendarSplit().split(inputs)
        notes += result.notes.map(\.description)
        if !result.notes.contains(where: { $0.kind == .error }) { try CalendarSplit().write(result.items, toFolder: folder) }
        return notes
    }

    static func streamedSplit(_ paths: [String], repair: Bool, into folder: String, recordMemory: Int) throws -> (notes: [String], spilled: Bool) {
        let run = CalendarSplit.Run(CalendarSplit(), memory: .default, recordMemory: recordMemory)
        var notes: [String] = []
        for path in paths {
            let stream = try #require(try ICalComponentStream.open(path))
            stream.partSize = 64
            if repair {
                let file = CalendarRepair.StreamedFile(CalendarRepair(now: { fixed }), stream: stream, file: path, zoneBudget: 1 << 24)
                #expect(try file.prepare().isFaithful)
                var repairNotes: [(ConversionNote, [Int])] = []
                try run.add(repairing: file) { repairNotes.append(($0, $1)) }
                notes += repairNotes.enumerated().sorted { $0.element.1.lexicographicallyPrecedes($1.element.1) }.map(\.element.0.description)
            } else {
                #expect(try run.add(stream, file: path).isFaithful)
            }
        }
        if try !run.finish({ notes.append($0.description) }) { try run.write(toFolder: folder) }
        return (notes, run.spilled)
    }

    static func contents(_ folder: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            files[name] = FileManager.default.contents(atPath: folder + "/" + name)
        }
        return files
    }

    @Test(arguments: [false, true])
    func streamedSplitWritesTheWholeSplit(repair: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-split-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let hard = folder.appendingPathComponent("hard.ics").path
        try Data(try Self.hard().utf8).write(to: URL(fileURLWithPath: hard))
        let faithful = Self.files.filter { path in
            guard let stream = try? ICalComponentStream.open(path), let summary = try? stream.read({ _ in }) else { return false }
            return summary.isFaithful && !summary.calendars.isEmpty
        }
        for paths in [[hard], faithful, faithful.filter { !$0.hasSuffix("x-components-nested.ics") } + [hard]] {
            let whole = folder.appendingPathComponent("whole").path, streamed = folder.appendingPathComponent("streamed").path
            let expected = try Self.wholeSplit(paths, repair: repair, into: whole)
            for recordMemory in [300, 1 << 24] {
                let result = try Self.streamedSplit(paths, repair: repair, into: streamed, recordMemory: recordMemory)
                #expect(result.notes == expected)
                #expect(Self.contents(streamed) == Self.contents(whole))
                #expect(result.spilled == (recordMemory == 300))
                try? FileManager.default.removeItem(atPath: streamed)
            }
            try? FileManager.default.removeItem(atPath: whole)
        }
    }
}
