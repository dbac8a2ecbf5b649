import Foundation
import Testing
import ICalKit

/// IANA zones read from system tzdata: RFC 5545 §3.3.5 gaps and overlaps, edges, and
/// agreement with glibc (asked in a child process, so this process's TZ is untouched).
@Suite struct IANATimeZoneTests {
    static func local(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> LocalDateTime {
        LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)!
    }

    static func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> Int64 {
        local(y, mo, d, h, mi, s).secondsSinceEpoch
    }

    static func zone(_ name: String) throws -> IANATimeZone {
        try #require(IANATimeZone(named: name))
    }

    // MARK: RFC 5545 §3.3.5

    @Test(arguments: [
        // Gaps: the offset from before the gap.
        ("Europe/Berlin", local(2024, 3, 31, 2, 30), utc(2024, 3, 31, 1, 30)),
        ("America/New_York", local(2024, 3, 10, 2, 30), utc(2024, 3, 10, 7, 30)),
        ("Australia/Sydney", local(2024, 10, 6, 2, 30), utc(2024, 10, 5, 16, 30)),
        ("Australia/Lord_Howe", local(2024, 10, 6, 2, 15), utc(2024, 10, 5, 15, 45)),
        // Overlaps: the first occurrence.
        ("Europe/Berlin", local(2024, 10, 27, 2, 30), utc(2024, 10, 27, 0, 30)),
        ("America/New_York", local(2024, 11, 3, 1, 30), utc(2024, 11, 3, 5, 30)),
        ("Australia/Sydney", local(2024, 4, 7, 2, 30), utc(2024, 4, 6, 15, 30)),
        ("Australia/Lord_Howe", local(2024, 4, 7, 1, 45), utc(2024, 4, 6, 14, 45)),
    ])
    func gapAndOverlapFollowRFC5545(zone name: String, local: LocalDateTime, expected: Int64) throws {
        #expect(try Self.zone(name).instant(for: local) == expected)
    }

    @Test func edgesOfBerlinGapAndOverlap() throws {
        let berlin = try Self.zone("Europe/Berlin")
        // Spring: 02:00 to 03:00 does not exist.
        #expect(berlin.instant(for: Self.local(2024, 3, 31, 1, 59, 59)) == Self.utc(2024, 3, 31, 0, 59, 59))
        #expect(berlin.instant(for: Self.local(2024, 3, 31, 2, 0, 0)) == Self.utc(2024, 3, 31, 1, 0, 0))
        #expect(berlin.instant(for: Self.local(2024, 3, 31, 2, 59, 59)) == Self.utc(2024, 3, 31, 1, 59, 59))
        #expect(berlin.instant(for: Self.local(2024, 3, 31, 3, 0, 0)) == Self.utc(2024, 3, 31, 1, 0, 0))
        // Autumn: 02:00 to 03:00 happens twice.
        #expect(berlin.instant(for: Self.local(2024, 10, 27, 1, 59, 59)) == Self.utc(2024, 10, 26, 23, 59, 59))
        #expect(berlin.instant(for: Self.local(2024, 10, 27, 2, 0, 0)) == Self.utc(2024, 10, 27, 0, 0, 0))
        #expect(berlin.instant(for: Self.local(2024, 10, 27, 2, 59, 59)) == Self.utc(2024, 10, 27, 0, 59, 59))
        #expect(berlin.instant(for: Self.local(2024, 10, 27, 3, 0, 0)) == Self.utc(2024, 10, 27, 2, 0, 0))
        // Instants one second either side of the changes.
        let spring = Self.utc(2024, 3, 31, 1, 0)
        #expect(berlin.utcOffset(atInstant: spring - 1) == 3600)
        #expect(berlin.utcOffset(atInstant: spring) == 7200)
        let autumn = Self.utc(2024, 10, 27, 1, 0)
        #expect(berlin.utcOffset(atInstant: autumn - 1) == 7200)
        #expect(berlin.utcOffset(atInstant: autumn) == 3600)
        #expect(berlin.local(at: autumn - 1) == Self.local(2024, 10, 27, 2, 59, 59))
        #expect(berlin.local(at: autumn) == Self.local(2024, 10, 27, 2, 0, 0))
    }

    @Test func edgesOfNewYorkAndSydney() throws {
        let newYork = try Self.zone("America/New_York")
        #expect(newYork.instant(for: Self.local(2024, 3, 10, 1, 59, 59)) == Self.utc(2024, 3, 10, 6, 59, 59))
        #expect(newYork.instant(for: Self.local(2024, 3, 10, 3, 0, 0)) == Self.utc(2024, 3, 10, 7, 0, 0))
        #expect(newYork.instant(for: Self.local(2024, 11, 3, 0, 59, 59)) == Self.utc(2024, 11, 3, 4, 59, 59))
        #expect(newYork.instant(for: Self.local(2024, 11, 3, 2, 0, 0)) == Self.utc(2024, 11, 3, 7, 0, 0))
        let sydney = try Self.zone("Australia/Sydney")
        // Southern hemisphere: DST starts in October and ends in April.
        let start = Self.utc(2024, 10, 5, 16, 0)
        #expect(sydney.utcOffset(atInstant: start - 1) == 36_000)
        #expect(sydney.utcOffset(atInstant: start) == 39_600)
        #expect(sydney.isDaylightSavingTime(atInstant: start))
        #expect(sydney.instant(for: Self.local(2024, 10, 6, 1, 59, 59)) == start - 1)
        #expect(sydney.instant(for: Self.local(2024, 10, 6, 3, 0, 0)) == start)
        let end = Self.utc(2024, 4, 6, 16, 0)
        #expect(sydney.utcOffset(atInstant: end - 1) == 39_600)
        #expect(sydney.utcOffset(atInstant: end) == 36_000)
        #expect(sydney.instant(for: Self.local(2024, 4, 7, 2, 0, 0)) == end - 3600)
        #expect(sydney.instant(for: Self.local(2024, 4, 7, 3, 0, 0)) == end + 3600)
    }

    @Test func lordHoweHasHalfHourDaylightSavingTime() throws {
        let lordHowe = try Self.zone("Australia/Lord_Howe")
        #expect(lordHowe.utcOffset(atInstant: Self.utc(2024, 7, 1, 0, 0)) == 37_800)
        #expect(lordHowe.utcOffset(atInstant: Self.utc(2024, 12, 1, 0, 0)) == 39_600)
        // 2024-10-06 02:00 +10:30 becomes 02:30 +11:00 (15:30Z).
        let start = Self.utc(2024, 10, 5, 15, 30)
        #expect(lordHowe.utcOffset(atInstant: start - 1) == 37_800)
        #expect(lordHowe.utcOffset(atInstant: start) == 39_600)
        #expect(lordHowe.instant(for: Self.local(2024, 10, 6, 2, 29, 59)) == start + 1799)
        #expect(lordHowe.instant(for: Self.local(2024, 10, 6, 2, 30, 0)) == start)
    }

    @Test func farFutureUsesTheFooterRule() throws {
        let newYork = try Self.zone("America/New_York")
        #expect(newYork.utcOffset(atInstant: Self.utc(2300, 7, 1, 12, 0)) == -4 * 3600)
        #expect(newYork.utcOffset(atInstant: Self.utc(2300, 1, 1, 12, 0)) == -5 * 3600)
        #expect(newYork.instant(for: Self.local(2300, 3, 11, 2, 30)) == Self.utc(2300, 3, 11, 7, 30))
        let kolkata = try Self.zone("Asia/Kolkata")
        #expect(kolkata.utcOffset(atInstant: Self.utc(2400, 6, 1, 0, 0)) == 19_800)
        let dublin = try Self.zone("Europe/Dublin")
        #expect(dublin.utcOffset(atInstant: Self.utc(2100, 1, 15, 0, 0)) == 0)
        #expect(dublin.utcOffset(atInstant: Self.utc(2100, 7, 15, 0, 0)) == 3600)
    }

    @Test func legacyLinksAndUnknownNames() throws {
        let eastern = try Self.zone("US/Eastern")
        #expect(eastern.utcOffset(atInstant: Self.utc(2024, 7, 1, 0, 0)) == -4 * 3600)
        #expect(IANATimeZone(named: "UTC")?.utcOffset(atInstant: 0) == 0)
        #expect(IANATimeZone(named: "Mars/Olympus_Mons") == nil)
        #expect(IANATimeZone(named: "europe/berlin") == nil)
    }

    @Test(arguments: ["../../../etc/passwd", "/etc/passwd", "Europe/../../etc/passwd", "..", ".", "",
                      "Europe//Berlin", "Europe/Berlin/", "zone.tab", "tzdata.zi", "Europe/Berlin\u{0}",
                      "right/Europe/Berlin", "localtime", "posixrules", "Europe/ Berlin", String(repeating: "A", count: 300)])
    func refusesPathsAndNonZones(name: String) {
        #expect(IANATimeZone(named: name) == nil)
    }

    @Test func rejectsBadTZifBytes() {
        #expect(throws: ICalError.self) { try IANATimeZone(tzifBytes: Array("TZif2".utf8), identifier: "x") }
        #expect(throws: ICalError.self) { try IANATimeZone(tzifBytes: [], identifier: "x") }
        #expect(throws: ICalError.self) {
            try IANATimeZone(tzifBytes: Array("not a zone file at all, long enough to have a header".utf8), identifier: "x")
        }
    }

    @Test func damagedTZifFilesThrowOrReadButNeverTrap() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: IANATimeZone.databaseDirectory + "/Europe/Berlin")))
        var generator = SystemRandomNumberGenerator()
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 60)) {
            _ = try? IANATimeZone(tzifBytes: Array(bytes[0..<length]), identifier: "cut")
        }
        for _ in 0..<300 {
            var damaged = bytes
            for _ in 0..<4 {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let zone = try? IANATimeZone(tzifBytes: damaged, identifier: "damaged") {
                _ = zone.utcOffset(atInstant: 1_700_000_000)
                _ = zone.instant(for: LocalDateTime(year: 2024, month: 3, day: 31, hour: 2, minute: 30)!)
                _ = zone.transitions(from: 0, through: 2_000_000_000)
            }
        }
    }

    @Test func extremeInstantsAreBoundedWork() throws {
        let berlin = try Self.zone("Europe/Berlin")
        _ = berlin.utcOffset(atInstant: .max)
        _ = berlin.utcOffset(atInstant: .min)
        let all = berlin.transitions(from: .min, through: .max)
        #expect(all.count > 100 && all.count < 30_000)
        #expect(berlin.utcOffset(atInstant: Self.utc(9999, 7, 1, 0, 0)) == 7200)
        #expect(berlin.instant(for: Self.local(9999, 12, 31, 23, 59)) == Self.utc(9999, 12, 31, 22, 59))
        #expect(berlin.instant(for: Self.local(0, 1, 1, 0, 0)) == Self.utc(0, 1, 1, 0, 0) - 3208)
        let component = berlin.vTimeZone(from: .min, through: .max)
        #expect(!component.components.isEmpty)
    }

    @Test func readsAnotherDatabaseFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tzdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Test"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: IANATimeZone.databaseDirectory + "/Asia/Tokyo",
                                         toPath: folder.appendingPathComponent("Test/Zone").path)
        try Data("not tzif".utf8).write(to: folder.appendingPathComponent("Test/Broken"))
        let zone = try #require(IANATimeZone(named: "Test/Zone", databaseDirectory: folder.path))
        #expect(zone.utcOffset(atInstant: 0) == 9 * 3600)
        #expect(IANATimeZone(named: "Test/Zone") == nil)
        #expect(IANATimeZone(named: "Test/Broken", databaseDirectory: folder.path) == nil)
        #expect(IANATimeZone(named: "Europe/Berlin", databaseDirectory: folder.path) == nil)
        #expect(IANATimeZone(named: "../Test/Zone", databaseDirectory: folder.appendingPathComponent("Test").path) == nil)
    }

    @Test func honoursTZDIRForTheDatabaseFolder() throws {
        // The folder is read from the environment at lookup time; without TZDIR it is the system one.
        if ProcessInfo.processInfo.environment["TZDIR"] == nil {
            #expect(IANATimeZone.databaseDirectory == "/usr/share/zoneinfo")
        }
        #expect(IANATimeZone.isValidIdentifier("America/Argentina/Buenos_Aires"))
        #expect(IANATimeZone.isValidIdentifier("Etc/GMT+5"))
        #expect(!IANATimeZone.isValidIdentifier("../x"))
    }

    // MARK: Agreement with glibc

    /// Asks glibc (`date`, with TZ set in the child's environment only) for offsets.
    static func glibcOffsets(zone: String, instants: [Int64]) throws -> [Int] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["TZ=" + zone, "date", "-f", "-", "+%::z"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let text = instants.map { "@\($0)" }.joined(separator: "\n") + "\n"
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let sign = line.hasPrefix("-") ? -1 : 1
            let parts = line.dropFirst().split(separator: ":").compactMap { Int($0) }
            return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])
        }
    }

    @Test(arguments: ["America/New_York", "Europe/Berlin", "Australia/Sydney", "Australia/Lord_Howe",
                      "Asia/Kolkata", "America/Sao_Paulo", "Pacific/Chatham", "Europe/Dublin",
                      "America/St_Johns", "Africa/Casablanca", "Pacific/Apia", "America/Santiago",
                      "Asia/Tehran", "Europe/London", "America/Godthab"])
    func offsetsMatchGlibc(zone name: String) throws {
        let zone = try Self.zone(name)
        // Every 5 days over 1970...2045, plus one second either side of each change.
        var instants: [Int64] = stride(from: Self.utc(1970, 1, 1, 0, 0), to: Self.utc(2045, 1, 1, 0, 0), by: 5 * 86_400).map { $0 }
        for change in zone.transitions(from: Self.utc(1970, 1, 1, 0, 0), through: Self.utc(2045, 1, 1, 0, 0)) {
            instants += [change.instant - 1, change.instant]
        }
        let expected = try Self.glibcOffsets(zone: name, instants: instants)
        try #require(expected.count == instants.count)
        var mismatches: [String] = []
        for (instant, offset) in zip(instants, expected) where zone.utcOffset(atInstant: instant) != offset {
            mismatches.append("@\(instant): \(zone.utcOffset(atInstant: instant)) vs glibc \(offset)")
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches.prefix(5))")
    }

    /// Every zone and link in tzdata.zi, at one second either side of every change from
    /// 1900 to 2100 and on 1 January and 1 July of each year, against glibc: one shell
    /// runs `date` once per zone with TZ set for that child only.
    @Test func allZonesMatchGlibc() throws {
        let index = try String(contentsOfFile: IANATimeZone.databaseDirectory + "/tzdata.zi", encoding: .utf8)
        let names = index.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            if fields.first == "Z", fields.count > 1 { return String(fields[1]) }
            if fields.first == "L", fields.count > 2 { return String(fields[2]) }
            return nil
        }.filter { IANATimeZone.isValidIdentifier($0) }
        #expect(names.count > 500)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ianatz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var script = ""
        var instantsByZone: [[Int64]] = []
        let lower = Self.utc(1900, 1, 1, 0, 0), upper = Self.utc(2100, 1, 1, 0, 0)
        for (number, name) in names.enumerated() {
            let zone = try Self.zone(name)
            var instants: [Int64] = []
            for year in 1900...2099 {
                instants += [Self.utc(year, 1, 1, 0, 0), Self.utc(year, 7, 1, 0, 0)]
            }
            for change in zone.transitions(from: lower, through: upper) {
                instants += [change.instant - 1, change.instant]
            }
            instantsByZone.append(instants)
            let file = folder.appendingPathComponent("\(number)").path
            try instants.map { "@\($0)" }.joined(separator: "\n").appending("\n").write(toFile: file, atomically: false, encoding: .utf8)
            script += "TZ='\(name)' date -f '\(file)' '+%::z' || echo FAILED\n"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n")[...]
        try #require(lines.count == instantsByZone.reduce(0) { $0 + $1.count })
        var mismatchedZones: [String] = []
        for (name, instants) in zip(names, instantsByZone) {
            let zone = try Self.zone(name)
            let answers = lines.prefix(instants.count)
            lines = lines.dropFirst(instants.count)
            for (instant, answer) in zip(instants, answers) {
                let sign = answer.hasPrefix("-") ? -1 : 1
                let parts = answer.dropFirst().split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3 else { mismatchedZones.append("\(name): glibc said \(answer)"); break }
                let expected = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])
                if zone.utcOffset(atInstant: instant) != expected {
                    mismatchedZones.append("\(name) @\(instant): \(zone.utcOffset(atInstant: instant)) vs \(expected)")
                    break
                }
            }
        }
        #expect(mismatchedZones.isEmpty, "\(mismatchedZones.count) zones: \(mismatchedZones.prefix(8))")
    }

    @Test func concurrentLookupsAgree() async throws {
        let names = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney", "US/Pacific"]
        let offsets = await withTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask { IANATimeZone(named: names[index % names.count])?.utcOffset(atInstant: 0) ?? -1 }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(offsets.count == 200)
        #expect(!offsets.contains(-1))
    }
}
