import Foundation
import GRDB
import ICalKit
import Testing
@testable import OpenEventKit

/// The rendered weeks' promise: for every window, kind filter, collection subset, floating
/// zone, format, display zone and limit, the bytes written from them are exactly the bytes
/// written from the occurrence cache's listings (which `OccurrenceCacheTests` holds to a
/// query over the candidates), with the same diagnostics, when the week is rendered, when it
/// is read back, and after items change.
@Suite struct RenderingCacheTests {
    static let formats: [OccurrenceFormatter.ListingFormat] = [.json, .csv, .agenda(color: false), .agenda(color: true)]

    /// The rendered answer for a window and the bytes written from its weeks as the index
    /// gives them (nil when the cache does not answer).
    static func rendered(_ index: StoreIndex, window: Range<Int64>, collections: Set<String>, kinds: Set<ComponentKind>,
                         zone: any TimeZoneRules, formatter: OccurrenceFormatter, format: OccurrenceFormatter.ListingFormat,
                         limit: Int? = nil, directRunsFrom directRun: Int = 1 << 14) throws -> (answer: RenderedAnswer, bytes: [UInt8], begun: Bool)? {
        var writer: OccurrenceFormatter.RenderedWeeksWriter?
        var all: [UInt8] = []
        let sink = { (bytes: UnsafeRawBufferPointer) in all += bytes }
        guard let answer = try index.renderedWeeks(window: window, collections: collections, kinds: kinds, floatingZone: zone,
                                                   style: formatter.renderingStyle(format),
                                                   render: { RenderedWeek.render($0, formatter: formatter, format: format) },
                                                   begin: { selection, _ in
            writer = OccurrenceFormatter.RenderedWeeksWriter(formatter: formatter, format: format, selection: selection,
                                                             limit: limit, flushingAt: 4096, directRunsFrom: directRun)
        }, write: { week, start in writer!.write(week, start: start, sink) }) else { return nil }
        writer?.finish(sink)
        return (answer, all, writer != nil)
    }

    /// The rendered answer for a window, and whether its bytes and diagnostics are those the
    /// occurrence cache's listings give (and, with `general`, those of a query over the
    /// candidates, the path without any cache).
    static func compare(_ index: StoreIndex, window: Range<Int64>, collections: Set<String>, kinds: Set<ComponentKind>,
                        zone: any TimeZoneRules, display: Bool, format: OccurrenceFormatter.ListingFormat,
                        limit: Int? = nil, general: Bool = false) throws -> (rendered: RenderedAnswer, same: Bool, diagnosticsSame: Bool, listings: Int) {
        let formatter = OccurrenceFormatter(displayZone: display ? zone : nil)
        let (answer, got, begun) = try #require(try rendered(index, window: window, collections: collections, kinds: kinds,
                                                             zone: zone, formatter: formatter, format: format, limit: limit))
        #expect(begun)
        var listings = try #require(try index.cachedPackedListings(window: window, collections: collections, kinds: kinds,
                                                                   floatingZone: zone))
        if let limit, listings.listings.count > limit { listings.listings.offsets = Array(listings.listings.offsets.prefix(limit)) }
        let expected = formatter.bytes(listings.listings, as: format)
        // Every run of entries handed to the sink as it is, rather than gathered: the same bytes.
        let direct = try #require(try rendered(index, window: window, collections: collections, kinds: kinds,
                                               zone: zone, formatter: formatter, format: format, limit: limit, directRunsFrom: 1))
        var same = got == expected && direct.bytes == got
        var diagnosticsSame = answer.diagnostics.map(\.description) == listings.diagnostics.map(\.description)
        if general {
            let query = try OccurrenceCacheTests.expected(index, window: window, collections: collections, kinds: kinds, zone: zone)
            var packed = PackedListings(query.listings)
            if let limit, packed.count > limit { packed.offsets = Array(packed.offsets.prefix(limit)) }
            same = same && got == formatter.bytes(packed, as: format)
            diagnosticsSame = diagnosticsSame && answer.diagnostics.map(\.description) == query.diagnostics
        }
        return (answer, same, diagnosticsSame, listings.listings.count)
    }

    /// Every week stored in a file (`inFiles`), or as the index stores them (a week in its
    /// row below 256 KiB, as all of these are).
    @Test(arguments: [UInt64(0x4E4D), 0x5EED_4E4D], [false, true])
    func renderedWeeksWriteWhatTheListingsWrite(seed: UInt64, inFiles: Bool) throws {
        try StoreIndex.$renderingFileMinimum.withValue(inFiles ? 0 : StoreIndex.renderingFileMinimum) {
            try Self.renderedWeeksWriteWhatTheListingsWrite(seed: seed, inFiles: inFiles)
        }
    }

    static func renderedWeeksWriteWhatTheListingsWrite(seed: UInt64, inFiles: Bool) throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try OccurrenceCacheTests.writeRandomItems(folder, seed: seed)
        // Diagnostics kept per item: an unknown zone, a broken file.
        try folder.write("work/unknown-zone.ics", """
            BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//tests//EN\nBEGIN:VEVENT\nUID:unknown-zone\nDTSTAMP:20260101T000000Z
            DTSTART;TZID=Mars/Olympus_Mons:20260305T090000\nDURATION:PT2H\nRRULE:FREQ=DAILY;COUNT=400\nSUMMARY:Somewhere
            END:VEVENT\nEND:VCALENDAR\n
            """)
        try folder.write("home/broken.ics", "BEGIN:VCALENDAR\nthis is not iCalendar\n")
        let (index, _, _) = try StoreIndex.open(store: try FolderStore.open(at: folder.path))
        // Every sixth window with a limit.
        let windows = OccurrenceCacheTests.randomWindows(seed: seed ^ 0x7E11, count: 12).enumerated().map { trial, window in
            (window.0, window.1, window.2, trial % 6 == 5 ? 7 : nil as Int?)
        }
        var compared = 0, listed = 0, notesSeen = false
        for zoneName in ["UTC", "Pacific/Kiritimati", "America/New_York"] {
            let zone = try #require(IANATimeZone(named: zoneName))
            for (number, (window, kinds, collections, limit)) in windows.enumerated() {
                let format = Self.formats[number % Self.formats.count]
                let display = number % 2 == 0
                for round in 0..<2 {
                    let result = try Self.compare(index, window: window, collections: collections, kinds: kinds, zone: zone,
                                                  display: display, format: format, limit: limit, general: round == 0)
                    let same = result.same, diagnosticsSame = result.diagnosticsSame, rendered = result.rendered.renderedWeeks
                    #expect(same, "window \(window) in \(zoneName), \(format), display \(display), round \(round)")
                    #expect(diagnosticsSame, "window \(window) in \(zoneName), round \(round)")
                    if round == 1 { #expect(rendered == 0, "a repeated window copies the stored weeks") }
                    notesSeen = notesSeen || result.rendered.diagnostics.contains { $0.description.contains("Mars/Olympus_Mons") }
                    listed += result.listings
                    compared += 1
                }
            }
        }
        #expect(listed > 100)
        #expect(notesSeen, "the unknown zone's diagnostic is among the results")
        print("rendering cache seed \(seed): \(compared) comparisons, \(listed) listings")

        // Items change: the generation changes, and each week is rendered again.
        try OccurrenceCacheTests.editItems(in: folder, seed: seed)
        #expect(try index.refresh().changed > 0)
        let zone = try #require(IANATimeZone(named: "America/New_York"))
        for (number, (window, kinds, collections, limit)) in windows.enumerated() {
            let format = Self.formats[number % Self.formats.count]
            let result = try Self.compare(index, window: window, collections: collections, kinds: kinds, zone: zone,
                                          display: number % 2 == 0, format: format, limit: limit, general: true)
            let same = result.same, diagnosticsSame = result.diagnosticsSame
            #expect(same, "after edits: window \(window), \(format)")
            #expect(diagnosticsSame, "after edits: window \(window)")
        }
        // Only the current generation's renderings are kept, and only the files they name.
        let (generations, named, inRows) = try DatabaseQueue(path: index.path).read { db in
            (try Int64.fetchAll(db, sql: "SELECT DISTINCT generation FROM rendering"),
             Set(try String.fetchAll(db, sql: "SELECT file FROM rendering WHERE file IS NOT NULL")),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM rendering WHERE bytes IS NOT NULL") ?? 0)
        }
        #expect(generations.count == 1)
        #expect(inFiles ? !named.isEmpty && inRows == 0 : named.isEmpty && inRows > 0)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: index.renderingsFolder)) ?? []
        #expect(Set(files) == named)
    }

    /// A row whose file is gone, or whose name is not one the index gives (a path out of the
    /// renderings folder), is rendered again; the new rendering's file replaces it, and a
    /// file no row names (left by a process that stopped before its commit) is removed.
    @Test func missingOrMisnamedRenderingsAreRenderedAgain() throws {
        try StoreIndex.$renderingFileMinimum.withValue(0) { try Self.missingOrMisnamedRenderingsAreRenderedAgain() }
    }

    /// A store of forty random items in the calendar `home`, its index, and March 2026.
    static func randomHomeStore(seed: UInt64) throws -> (folder: StoreFolder, index: StoreIndex, march: Range<Int64>) {
        let folder = try StoreFolder()
        var generator = RandomItemGenerator(seed: seed)
        for index in 0..<40 { try folder.write("home/item-\(index).ics", generator.item(index)) }
        let (index, _, _) = try StoreIndex.open(store: try FolderStore.open(at: folder.path))
        let march = LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch
        return (folder, index, march..<(march + 31 * 86_400))
    }

    static func missingOrMisnamedRenderingsAreRenderedAgain() throws {
        let (folder, index, window) = try randomHomeStore(seed: 0xF11E)
        defer { folder.remove() }
        func compare() throws -> (same: Bool, rendered: Int) {
            let result = try RenderingCacheTests.compare(index, window: window, collections: ["home"],
                                                         kinds: [.event, .todo, .journal], zone: FixedOffsetZone.utc,
                                                         display: false, format: .csv)
            return (result.same, result.rendered.renderedWeeks)
        }
        let first = try compare()
        #expect(first.same && first.rendered == OccurrenceCache.weeks(window).count)
        let database = try DatabaseQueue(path: index.path)
        let files = try database.read { try String.fetchAll($0, sql: "SELECT file FROM rendering ORDER BY week") }
        try #require(files.count >= 3)
        try FileManager.default.removeItem(atPath: index.renderingsFolder + "/" + files[0])
        // A copy of a rendering outside the folder, which a row names by a path.
        try FileManager.default.copyItem(atPath: index.renderingsFolder + "/" + files[1], toPath: folder.path + "/outside.week")
        try database.write { db in
            try db.execute(sql: "UPDATE rendering SET file = '../../outside.week' WHERE file = ?", arguments: [files[1]])
        }
        try Data("left over".utf8).write(to: URL(fileURLWithPath: index.renderingsFolder + "/abc.week"))
        let again = try compare()
        #expect(again.same && again.rendered == 2, "the missing and the misnamed week")
        let named = try database.read { Set(try String.fetchAll($0, sql: "SELECT file FROM rendering")) }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: index.renderingsFolder)) == named)
        #expect(!named.contains("abc.week") && !named.contains(files[0]) && named.contains(files[2]))
        let third = try compare()
        #expect(third.same && third.rendered == 0)
        try database.close()
    }

    /// A stored week is written in part: only the bytes of the entries the window, kinds and
    /// calendars choose. Weeks of hundreds of kilobytes (many pieces of `renderingPiece`,
    /// whose heads are checked piece by piece), windows from an hour to two weeks that start
    /// and end inside weeks, a calendar filter that skips entries between chosen ones: the
    /// bytes are those of the listings, rendered and read back.
    @Test func weeksLargerThanAPieceAreWrittenInPart() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        for number in 0..<12 {
            let collection = number % 3 == 0 ? "work" : "home"
            try folder.write("\(collection)/hourly-\(number).ics", """
                BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//tests//EN\nBEGIN:VEVENT\nUID:hourly-\(number)\nDTSTAMP:20260101T000000Z
                DTSTART:20260302T\(String(format: "%02d", number))1500Z\nDURATION:PT\(20 + number)M\nRRULE:FREQ=HOURLY;COUNT=600
                SUMMARY:Hourly \(number), a summary long enough to make each entry a few hundred bytes
                LOCATION:Room \(number)\nEND:VEVENT\nEND:VCALENDAR\n
                """)
        }
        let (index, _, _) = try StoreIndex.open(store: try FolderStore.open(at: folder.path))
        let zone = try #require(IANATimeZone(named: "Europe/Berlin"))
        let day: Int64 = 86_400
        let march2 = Int64(try #require(CalendarDate(year: 2026, month: 3, day: 2)).daysSinceEpoch) * day
        let windows: [(Range<Int64>, Set<String>)] = [
            ((march2 + 3 * day + 3_600)..<(march2 + 3 * day + 7_200), []),
            ((march2 + 4 * day)..<(march2 + 5 * day), []),
            ((march2 + 2 * day + 43_200)..<(march2 + 9 * day + 43_200), ["work"]),
            ((march2 - day)..<(march2 + 15 * day), []),
            ((march2 + 10 * day)..<(march2 + 12 * day), ["home"]),
        ]
        for (number, (window, collections)) in windows.enumerated() {
            for format in Self.formats {
                for round in 0..<2 {
                    let result = try Self.compare(index, window: window, collections: collections.isEmpty ? ["home", "work"] : collections,
                                                  kinds: [.event], zone: zone, display: number % 2 == 0, format: format,
                                                  limit: number == 3 ? 500 : nil)
                    #expect(result.same, "window \(number), \(format), round \(round)")
                    if round == 1 { #expect(result.rendered.renderedWeeks == 0, "read back, window \(number)") }
                    #expect(result.listings > 0, "window \(number) has entries")
                }
            }
        }
        let (largest, inFiles, inRows) = try DatabaseQueue(path: index.path).read { db in
            (try Int.fetchOne(db, sql: "SELECT max(length) FROM rendering") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM rendering WHERE file IS NOT NULL") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM rendering WHERE bytes IS NOT NULL") ?? 0)
        }
        #expect(largest > 4 * StoreIndex.renderingPiece, "weeks of several pieces: \(largest) bytes")
        #expect(inFiles > 0 && inRows > 0, "weeks from 256 KiB in files (\(inFiles)), shorter ones in rows (\(inRows))")
    }

    /// A window's items of which each query expands some itself (mixed component kinds): no
    /// rendered answer, the listings answer.
    @Test func windowsWithItemsExpandedPerQueryAreNotRendered() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try OccurrenceCacheTests.writeSpecialItems(folder)
        let (index, _, _) = try StoreIndex.open(store: try FolderStore.open(at: folder.path))
        let march = LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch
        let formatter = OccurrenceFormatter()
        func rendered(_ window: Range<Int64>) throws -> RenderedAnswer? {
            try Self.rendered(index, window: window, collections: ["home", "work"], kinds: [.event, .todo],
                              zone: FixedOffsetZone.utc, formatter: formatter, format: .json)?.answer
        }
        let month = try rendered(march..<(march + 31 * 86_400)) == nil, day = try rendered(march..<(march + 86_400)) != nil
        #expect(month, "the mixed item recurs in March")
        #expect(day, "it starts on the 10th")
        var called = false
        #expect(try index.renderedWeeks(window: march..<(march + 366 * 86_400), collections: ["home"], kinds: [.event],
                                        floatingZone: FixedOffsetZone.utc, style: "json", render: { _ in [] },
                                        begin: { _, _ in called = true }, write: { _, _ in
            called = true
            return true
        }) == nil, "longer than 100 days")
        #expect(!called, "nothing given when the cache does not answer")
    }

    /// The weeks are given one at a time, in order, each starting a week after the one
    /// before, and none is read after `write` stops them; a week's bytes are the same whether
    /// it was rendered by the call or read back.
    @Test func weeksAreGivenInOrderUntilStopped() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try OccurrenceCacheTests.writeRandomItems(folder, seed: 0x57EA)
        let (index, _, _) = try StoreIndex.open(store: try FolderStore.open(at: folder.path))
        let march = LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch
        let window = march..<(march + 31 * 86_400)
        let formatter = OccurrenceFormatter()
        func given(stoppingAfter stop: Int) throws -> (starts: [Int64], counts: [Int], begun: Int)? {
            var starts: [Int64] = [], counts: [Int] = [], begun = 0
            let answer = try index.renderedWeeks(window: window, collections: ["home", "work"], kinds: [.event, .todo, .journal],
                                                 floatingZone: FixedOffsetZone.utc, style: formatter.renderingStyle(.csv),
                                                 render: { RenderedWeek.render($0, formatter: formatter, format: .csv) },
                                                 begin: { _, _ in begun += 1 }, write: { week, start in
                starts.append(start)
                counts.append(week.count)
                return starts.count < stop
            })
            return answer == nil ? nil : (starts, counts, begun)
        }
        let all = try #require(try given(stoppingAfter: .max))
        let weeks = OccurrenceCache.weeks(window)
        #expect(all.begun == 1)
        #expect(all.starts == weeks.map { $0 * OccurrenceCache.week })
        #expect(all.counts.reduce(0, +) > 0)
        let again = try #require(try given(stoppingAfter: .max))
        #expect(again.counts == all.counts, "read back as rendered")
        let first = try #require(try given(stoppingAfter: 1))
        #expect(first.starts == [all.starts[0]] && first.begun == 1)
    }

    /// Once the first week was given, the answer is not taken again another way: a week
    /// that cannot be made after it (here a rendering in no known layout) ends the answer
    /// as interrupted, with an error, and the weeks given stay the only ones.
    @Test func anAnswerThatFailsAfterItsFirstWeekIsInterrupted() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try OccurrenceCacheTests.writeRandomItems(folder, seed: 0xB0B)
        let authority = FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess)
        let store = EKEventStore(backend: try FolderStore.open(at: folder.path), authority: authority)
        let march = LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch
        let formatter = OccurrenceFormatter()
        var renders = 0, begun = 0, weeks = 0
        let rendering = EKEventStore.OccurrenceRendering(style: formatter.renderingStyle(.csv), render: { listings in
            renders += 1
            return renders == 1 ? RenderedWeek.render(listings, formatter: formatter, format: .csv) : [RenderedWeek.version &+ 1]
        }, begin: { _, _ in begun += 1 }, write: { _, _ in
            weeks += 1
            return true
        })
        let (answer, diagnostics) = store.occurrenceAnswer(in: march..<(march + 31 * 86_400), floatingZone: FixedOffsetZone.utc,
                                                           rendering: rendering)
        guard case .interrupted = answer else {
            Issue.record("expected an interrupted answer, got \(answer)")
            return
        }
        #expect(begun == 1 && weeks == 1 && renders == 2)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.severity == .error)
        #expect(diagnostics.first?.description.contains("the answer is incomplete") == true)
    }

    /// A stored rendering that cannot be read, or rendered for another layout, is rendered
    /// again; one made by another program is dropped when this one stores its own. Weeks in
    /// their rows, or in files (`inFiles`).
    @Test(arguments: [false, true])
    func damagedOrForeignRenderingsAreRenderedAgain(inFiles: Bool) throws {
        try StoreIndex.$renderingFileMinimum.withValue(inFiles ? 0 : StoreIndex.renderingFileMinimum) {
            try Self.damagedOrForeignRenderingsAreRenderedAgain(inFiles: inFiles)
        }
    }

    static func damagedOrForeignRenderingsAreRenderedAgain(inFiles: Bool) throws {
        let (folder, index, window) = try randomHomeStore(seed: 0xDA7A)
        defer { folder.remove() }
        let zone = try #require(IANATimeZone(named: "Europe/Berlin"))
        let first = try Self.compare(index, window: window, collections: ["home"], kinds: [.event, .todo, .journal], zone: zone,
                                     display: true, format: .json)
        let firstSame = first.same, firstRendered = first.rendered.renderedWeeks
        #expect(firstSame && firstRendered > 0)
        // One week cut short, another's first byte (the layout version) changed, and every
        // rendering also named as another program's.
        let database = try DatabaseQueue(path: index.path)
        if inFiles {
            let (earliest, latest) = try database.read { db in
                (try String.fetchOne(db, sql: "SELECT file FROM rendering ORDER BY week LIMIT 1") ?? "",
                 try String.fetchOne(db, sql: "SELECT file FROM rendering ORDER BY week DESC LIMIT 1") ?? "")
            }
            let cut = URL(fileURLWithPath: index.renderingsFolder + "/" + earliest)
            try Data(try Data(contentsOf: cut).dropLast()).write(to: cut)
            let versioned = URL(fileURLWithPath: index.renderingsFolder + "/" + latest)
            var bytes = try Data(contentsOf: versioned)
            bytes[bytes.startIndex] = 0x09
            try bytes.write(to: versioned)
        } else {
            try database.write { db in
                try db.execute(sql: "UPDATE rendering SET bytes = substr(bytes, 1, length(bytes) - 1) WHERE week = (SELECT min(week) FROM rendering)")
                try db.execute(sql: "UPDATE rendering SET bytes = x'09' || substr(bytes, 2) WHERE week = (SELECT max(week) FROM rendering)")
            }
        }
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO rendering SELECT zone, replace(style, '; program ', '; program other '), week, generation, length, file, bytes
                FROM rendering
                """)
        }
        let again = try Self.compare(index, window: window, collections: ["home"], kinds: [.event, .todo, .journal], zone: zone,
                                     display: true, format: .json)
        let againSame = again.same, againRendered = again.rendered.renderedWeeks
        #expect(againSame)
        #expect(againRendered == 2, "the cut and the wrong-version week")
        let foreign = try database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM rendering WHERE style LIKE '%program other%'")
        }
        #expect(foreign == 0)
        let third = try Self.compare(index, window: window, collections: ["home"], kinds: [.event, .todo, .journal], zone: zone,
                                     display: true, format: .json)
        let thirdSame = third.same, thirdRendered = third.rendered.renderedWeeks
        #expect(thirdSame && thirdRendered == 0)
        // The cache made with another engine or tzdata is dropped, renderings with it.
        try database.write { try $0.execute(sql: "UPDATE setting SET value = 'engine 0' WHERE key = 'cache'") }
        let fourth = try Self.compare(index, window: window, collections: ["home"], kinds: [.event, .todo, .journal], zone: zone,
                                      display: true, format: .json)
        let fourthSame = fourth.same, fourthRendered = fourth.rendered.renderedWeeks
        #expect(fourthSame && fourthRendered == first.rendered.renderedWeeks)
        try database.close()
    }
}
