import Foundation
import Testing

/// `--memory` reaches the store: an import and the first build of the query index keep the
/// same peak memory whatever the number of items already in the store (issue 42). Each
/// process's peak is its own (``PeakMemory``), so tests running beside it do not count.
@Suite struct StoreMemoryBudgetTests {
    /// A store folder with `ical` granted full access to it.
    private struct Store {
        let path: String
        let environment: [String: String]

        init(_ folder: TemporaryFolder, _ name: String) throws {
            path = folder.url.appendingPathComponent(name).path
            let home = folder.url.appendingPathComponent("home-" + name).path
            environment = [
                "TZ": "UTC", "LC_ALL": "C.UTF-8", "COLUMNS": "80", "HOME": home, "PATH": "/usr/bin:/bin",
                "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config", "XDG_CACHE_HOME": home + "/cache",
                "ICAL_NOW": "2026-11-22T10:00:00", "OPENEVENTKIT_STORE": path,
            ]
            let granted = try ICalRunner.run(["privacy", "grant", "org.openeventkit.ical", "--events", "full", "--reminders", "full"],
                                             environment: environment)
            #expect(granted.status == 0, "\(granted.stderr)")
        }

        /// Runs `ical` with its output discarded: the exit status and the peak resident
        /// memory in KiB (``PeakMemory``).
        func peak(_ arguments: [String]) throws -> (status: Int32, kibibytes: Int) {
            let result = try PeakMemory.run(arguments, environment: environment)
            return (result.status, result.peak >> 10)
        }
    }

    /// A calendar of `count` events with UIDs `prefix-N` over 2025 and 2026: one in three a
    /// weekly series of five, the others single events. A query of a month of 2030 then
    /// answers nothing, so its peak is the index build's, not its answer's.
    private static func calendar(_ count: Int, prefix: String) -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//memory//EN\r\n"
        text.reserveCapacity(count * 200)
        for index in 0..<count {
            let day = 1 + index % 28, month = 1 + (index / 28) % 12, year = 2025 + (index / 336) % 2
            let start = String(format: "%04d%02d%02dT%02d%02d00Z", year, month, day, 8 + index % 10, index % 60)
            text += "BEGIN:VEVENT\r\nUID:\(prefix)-\(index)\r\nDTSTAMP:20250101T000000Z\r\nDTSTART:\(start)\r\nDURATION:PT1H\r\n"
            if index % 3 == 0 { text += "RRULE:FREQ=WEEKLY;COUNT=5\r\n" }
            text += "SUMMARY:Event \(index)\r\nEND:VEVENT\r\n"
        }
        return text + "END:VCALENDAR\r\n"
    }

    /// The same import, and the same first index build per item, at two store sizes: the
    /// larger store (three times the items) may cost at most a few MiB more. Before the
    /// budget reached the store, an import listed every item of its target collection and
    /// a first build held every item's row and the whole listing (about 700 bytes an item).
    @Test func importAndFirstIndexBuildKeepToTheBudgetWhateverTheStoreSize() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let added = folder.url.appendingPathComponent("added.ics").path
        try Self.calendar(2_000, prefix: "added").write(toFile: added, atomically: true, encoding: .utf8)
        var importPeaks: [Int] = [], buildPeaks: [Int] = []
        for size in [6_000, 18_000] {
            let store = try Store(folder, "store-\(size)")
            let file = folder.url.appendingPathComponent("store-\(size).ics").path
            try Self.calendar(size, prefix: "item").write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try store.peak(["import", "--memory", "16M", file]).status == 0)
            let imported = try store.peak(["import", "--memory", "16M", added])
            #expect(imported.status == 0)
            importPeaks.append(imported.kibibytes)
            // The first query builds the index (none was made by the imports).
            #expect(!FileManager.default.fileExists(atPath: store.path + "/.openeventkit/index.sqlite"))
            let built = try store.peak(["query", "--memory", "16M", "--at", "2030-01", "--tz", "UTC", "--store", store.path])
            #expect(built.status == 0)
            #expect(FileManager.default.fileExists(atPath: store.path + "/.openeventkit/index.sqlite"))
            buildPeaks.append(built.kibibytes)
        }
        #expect(importPeaks[1] - importPeaks[0] < 4 << 10, "import peaks (KiB) at 8,000 and 20,000 items: \(importPeaks)")
        #expect(buildPeaks[1] - buildPeaks[0] < 4 << 10, "first index build peaks (KiB) at 8,000 and 20,000 items: \(buildPeaks)")
    }

    /// The import's own bookkeeping keeps to the budget whatever the size of the import: the
    /// places of its items, their groups by UID, the batch's file names and journal go to
    /// temporary files (issue 42). Four times the events may cost a few MiB more: the sorts
    /// fill their share of the 16 MiB budget (4 + 2 MiB) before they spill, and the record
    /// logs their megabyte buffers; the heap's peak is then flat (massif: 14.0 MiB at 20,000
    /// events, 15.0 MiB at 60,000). Before, each event cost about 1.2 KB more (release
    /// build: 25 MB at 5,000 events, 43 MB at 20,000; an import of 250,000 events peaked at
    /// 335 MB whatever `--memory` said); now 25 and 31 MB.
    @Test func importKeepsToTheBudgetWhateverTheImportSize() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var peaks: [Int] = []
        for size in [5_000, 20_000] {
            let store = try Store(folder, "import-\(size)")
            let file = folder.url.appendingPathComponent("import-\(size).ics").path
            try Self.calendar(size, prefix: "item").write(toFile: file, atomically: true, encoding: .utf8)
            let imported = try store.peak(["import", "--memory", "16M", file])
            #expect(imported.status == 0)
            let names = try FileManager.default.contentsOfDirectory(atPath: store.path + "/calendar").filter { $0.hasSuffix(".ics") }
            #expect(names.count == size)
            peaks.append(imported.kibibytes)
        }
        #expect(peaks[1] - peaks[0] < 11 << 10, "import peaks (KiB) of 5,000 and 20,000 events: \(peaks)")
    }
}
