@testable import ICalKit
import Testing

/// A large input is read in parts on several threads (`ICalReader+Parts`): whatever the input
/// and wherever it is cut, the result (tree, diagnostics with their lines, strict mode's
/// error) is the one a read from start to end gives.
@Suite struct PartsReadingTests {
    /// A read from start to end (inputs are never cut).
    static func whole(_ bytes: [UInt8], _ reader: ICalReader = ICalReader()) -> Result<ReadResult, ICalError> {
        ICalReader.$partMinimum.withValue(Int.max / 4) {
            do throws(ICalError) { return .success(try reader.read(bytes, file: "in.ics")) } catch { return .failure(error) }
        }
    }

    /// A read cut into `parts` wherever a `BEGIN:VEVENT` line allows.
    static func inParts(_ bytes: [UInt8], _ parts: Int, _ reader: ICalReader = ICalReader()) -> Result<ReadResult, ICalError> {
        ICalReader.$partMinimum.withValue(1) {
            ICalReader.$partCount.withValue(parts) {
                do throws(ICalError) { return .success(try reader.read(bytes, file: "in.ics")) } catch { return .failure(error) }
            }
        }
    }

    /// The joined parts alone: nil when the read falls back to start to end.
    static func joined(_ bytes: [UInt8], _ parts: Int, _ reader: ICalReader = ICalReader()) -> ReadResult? {
        ICalReader.$partMinimum.withValue(1) {
            ICalReader.$partCount.withValue(parts) {
                bytes.withUnsafeBufferPointer { reader.readInParts($0, file: "in.ics") }
            }
        }
    }

    /// The tests' reproducible generator.
    typealias Generator = OccurrenceStreamTests.Random

    /// A calendar's lines: events with alarms, folds, X- properties and non-ASCII text,
    /// and with `damage` a share of broken lines and structure.
    static func calendar(seed: UInt64, events: Int, damage: Int) -> [String] {
        var random = Generator(state: seed)
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//Parts//EN", "X-WR-CALNAME:Stunden ü"]
        let broken = [
            "THIS LINE HAS NO COLON", "DTSTART:20240231T100000", "RRULE:FREQ=SOMETIMES", "END:VTODO",
            "BEGIN:VALARM", "END:VCALENDAR", "BEGIN:VCALENDAR", " continued without a line", "X-BAD;PARAM:value",
            "begin:vevent", "SUMMARY;LANGUAGE=de:\u{FEFF}x", "CATEGORIES:a,b", "END:VEVENT",
        ]
        for index in 0..<events {
            if damage > 0 && random.chance(damage) { lines.append(random.pick(broken)) }
            let kind = random.chance(3) ? "VTODO" : "VEVENT"
            lines.append("BEGIN:" + kind)
            lines.append("UID:event-\(index)@parts")
            lines.append("DTSTAMP:20240101T000000Z")
            lines.append("DTSTART;TZID=Europe/Berlin:2024\(OccurrenceStreamTests.two(random.int(1...12)))\(OccurrenceStreamTests.two(random.int(1...28)))T100000")
            if random.chance(30) { lines.append("RRULE:FREQ=WEEKLY;COUNT=\(random.int(1...19))") }
            let summary = "Lesson \(index) " + String(repeating: "größer ", count: random.int(0...29))
            lines.append("SUMMARY:" + summary)
            if random.chance(20) { lines.append("X-OPENEVENTKIT-TEST;X-P=\"a;b\":\(index)") }
            if random.chance(15) {
                lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "DESCRIPTION:Reminder", "END:VALARM"]
            }
            if damage > 0 && random.chance(damage) { lines.append(random.pick(broken)) }
            if !(damage > 0 && random.chance(damage / 2 + 1)) { lines.append("END:" + kind) }
            if random.chance(2) { lines.append("X-LATE-CALENDAR-PROPERTY:\(index)") }
            if random.chance(1) { lines += ["END:VCALENDAR", "BEGIN:VCALENDAR", "VERSION:2.0"] }
        }
        if !(damage > 0 && random.chance(20)) { lines.append("END:VCALENDAR") }
        return lines
    }

    /// Lines joined by `ending`, folded at 75 bytes (sometimes inside a character).
    static func text(_ lines: [String], ending: String, fold: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in lines {
            let utf8 = Array(line.utf8)
            if fold && utf8.count > 75 {
                var start = 0
                while start < utf8.count {
                    if start > 0 { bytes += Array(ending.utf8) + [0x20] }
                    let end = min(utf8.count, start + (start == 0 ? 75 : 74))
                    bytes += utf8[start..<end]
                    start = end
                }
            } else {
                bytes += utf8
            }
            bytes += Array(ending.utf8)
        }
        return bytes
    }

    @Test func fixturesReadInPartsAsFromStartToEnd() throws {
        var names = Fixtures.valid.map { ("valid", $0) } + Fixtures.malformed.map { ("malformed", $0) }
        names += Fixtures.names(in: "itip").map { ("itip", $0) }
        #expect(names.count >= 60)
        var joins = 0
        for (folder, name) in names {
            let bytes = try Fixtures.bytes(folder, name)
            let expected = Self.whole(bytes)
            for parts in 2...4 {
                #expect(Self.inParts(bytes, parts) == expected, "\(folder)/\(name) in \(parts) parts")
                if let joined = Self.joined(bytes, parts) {
                    joins += 1
                    #expect(Result.success(joined) == expected, "\(folder)/\(name) joined from \(parts) parts")
                }
            }
        }
        // Fixtures with several events are cut and joined, not only read again.
        #expect(joins >= 20)
    }

    @Test(arguments: ["\r\n", "\n"], [false, true])
    func wellFormedCalendarsAreJoined(ending: String, fold: Bool) {
        for seed in 0..<40 as Range<UInt64> {
            let bytes = Self.text(Self.calendar(seed: seed, events: 5 + Int(seed) * 7, damage: 0), ending: ending, fold: fold)
            let expected = Self.whole(bytes)
            guard case .success(let read) = expected else {
                Issue.record("seed \(seed) does not read")
                continue
            }
            #expect(!read.calendars.isEmpty)
            for parts in [2, 3, 5, 8] {
                let joined = Self.joined(bytes, parts)
                #expect(joined != nil, "seed \(seed), \(parts) parts: not joined")
                #expect(joined.map(Result.success) == expected, "seed \(seed), \(parts) parts")
            }
        }
    }

    @Test(arguments: ["\r\n", "\n", "\r"])
    func damagedCalendarsReadAsFromStartToEnd(ending: String) {
        var joins = 0, withDiagnostics = 0
        for seed in 0..<150 as Range<UInt64> {
            let bytes = Self.text(Self.calendar(seed: seed &* 31 &+ 7, events: 3 + Int(seed % 40) * 3, damage: 1 + Int(seed % 12)),
                                  ending: ending, fold: seed % 2 == 0)
            for reader in [ICalReader(), ICalReader(mode: .strict)] {
                let expected = Self.whole(bytes, reader)
                for parts in [2, 3, 6] {
                    #expect(Self.inParts(bytes, parts, reader) == expected, "seed \(seed), \(reader.mode), \(parts) parts")
                    if let joined = Self.joined(bytes, parts, reader) {
                        joins += 1
                        if !joined.diagnostics.isEmpty { withDiagnostics += 1 }
                        #expect(Result.success(joined) == expected, "seed \(seed), \(reader.mode), joined from \(parts) parts")
                    }
                }
            }
        }
        if ending.contains("\n") {
            // Damage between the split points still joins, with its diagnostics.
            #expect(withDiagnostics >= 30, "joined \(joins), with diagnostics \(withDiagnostics)")
        } else {
            // Split points are found after an LF: lines ended by a CR alone are read whole.
            #expect(joins == 0)
        }
    }

    @Test func limitsCountOverTheWholeInput() {
        let bytes = Self.text(Self.calendar(seed: 5, events: 300, damage: 4), ending: "\r\n", fold: true)
        let limits = [
            ICalReader.Limits(maxComponents: 200), ICalReader.Limits(maxComponents: 301),
            ICalReader.Limits(maxDiagnostics: 10), ICalReader.Limits(maxDiagnostics: 1_000),
            ICalReader.Limits(maxPropertiesPerComponent: 6),
        ]
        for limit in limits {
            for mode in [ICalReader.Mode.lenient, .strict] {
                let reader = ICalReader(mode: mode, limits: limit)
                let expected = Self.whole(bytes, reader)
                for parts in [2, 4] {
                    #expect(Self.inParts(bytes, parts, reader) == expected, "\(limit), \(mode), \(parts) parts")
                }
            }
        }
        // Late VCALENDAR properties spread over the parts count together.
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0"]
        for index in 0..<40 { lines += ["BEGIN:VEVENT", "UID:\(index)", "END:VEVENT", "X-LATE:\(index)"] }
        lines.append("END:VCALENDAR")
        let late = Self.text(lines, ending: "\r\n", fold: false)
        for maximum in [20, 41, 42, 43] {
            let reader = ICalReader(limits: ICalReader.Limits(maxPropertiesPerComponent: maximum))
            #expect(Self.inParts(late, 4, reader) == Self.whole(late, reader), "at most \(maximum) properties")
        }
    }

    @Test func lineEndsCountAsTheReaderCounts() {
        var random = Generator(state: 99)
        let alphabet: [UInt8] = [0x0D, 0x0A, 0x41, 0x20, 0x0D, 0x0A]
        for _ in 0..<500 {
            let bytes = (0..<random.int(0...69)).map { _ in random.pick(alphabet) }
            let next = random.pick(alphabet)
            var expected = 0
            for (index, byte) in bytes.enumerated() {
                if byte == 0x0A { expected += 1 }
                if byte == 0x0D && (index + 1 < bytes.count ? bytes[index + 1] : next) != 0x0A { expected += 1 }
            }
            let counted = bytes.withUnsafeBufferPointer { ICalReader.lineEnds(in: $0, next: next) }
            #expect(counted == expected, "\(bytes) then \(next)")
        }
    }

    @Test func splitPointsAreWholeEventLines() {
        let text = Array("X:1\nBEGIN:VEVENTS\nBEGIN:VEVENT;\n BEGIN:VEVENT\nbegin:vevent\nBEGIN:VEVENT\r\nY".utf8)
        let split = text.withUnsafeBufferPointer { ICalReader.splitPoint(in: $0, from: 0) }
        #expect(split == Array("X:1\nBEGIN:VEVENTS\nBEGIN:VEVENT;\n BEGIN:VEVENT\nbegin:vevent\n".utf8).count)
        let none = Array("BEGIN:VEVENT\nEND:VEVENT\nBEGIN:VEVENT".utf8)
        #expect(none.withUnsafeBufferPointer { ICalReader.splitPoint(in: $0, from: 0) } == nil)
    }
}
