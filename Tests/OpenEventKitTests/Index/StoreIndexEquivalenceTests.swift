import Foundation
import ICalKit
import Testing
@testable import OpenEventKit

/// The index's one promise: a query over its candidates finds exactly what a query over
/// every item finds, for every window and floating zone.
@Suite struct StoreIndexEquivalenceTests {
    /// Floating zones from the largest offset to one of the smallest.
    static let floatingZones = ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"]

    /// A store of seeded random items in two collections.
    static func randomStore(seed: UInt64, count: Int, in folder: StoreFolder) throws -> FolderStore {
        var generator = RandomItemGenerator(seed: seed)
        for index in 0..<count {
            try folder.write("\(index % 2 == 0 ? "home" : "work")/item-\(index).ics", generator.item(index))
        }
        return try FolderStore.open(at: folder.path)
    }

    @Test(arguments: [UInt64(0x1DE5), 0xCA1E_0D42])
    func candidatesGiveTheSameMatchesAsEveryItem(seed: UInt64) throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try Self.randomStore(seed: seed, count: 240, in: folder)
        let (index, notices, refresh) = try StoreIndex.open(store: store)
        #expect(notices.isEmpty)
        #expect(refresh.added == 240)
        #expect(refresh.broken > 0, "the generator writes broken files")

        var items: [String: StoredItem] = [:]
        var allFiles: [String] = []
        for collection in ["home", "work"] {
            for file in try store.items(in: collection) {
                allFiles.append(file.path)
                if let item = try store.readItem(in: collection, name: file.name).item { items[file.path] = item }
            }
        }
        let brokenFiles = Set(allFiles).subtracting(items.keys)

        var random = SeededGenerator(state: seed ^ 0xF00D)
        let earliest = LocalDateTime(year: 2022, month: 6, day: 1)!.secondsSinceEpoch / 3600
        let latest = LocalDateTime(year: 2030, month: 1, day: 1)!.secondsSinceEpoch / 3600
        let lengths: [Int64] = [1, 2, 24, 24 * 7, 24 * 31, 24 * 366]
        var compared = 0, candidateTotal = 0, matchTotal = 0
        for zoneName in Self.floatingZones {
            let zone = try #require(IANATimeZone(named: zoneName))
            for trial in 0..<70 {
                // Whole hours, like every generated time, so windows often start or end
                // exactly where an occurrence does.
                let start = Int64.random(in: earliest...latest, using: &random) * 3600
                let hours = trial % 5 == 0 ? Int64.random(in: 1...2000, using: &random) : lengths[trial % lengths.count]
                let window = start..<(start + hours * 3600)
                let kinds: Set<ComponentKind> = trial % 7 == 3 ? [.todo] : (trial % 7 == 5 ? [.event] : [.event, .todo, .journal])
                let candidates = try index.candidates(window: window, kinds: kinds)
                let candidatePaths = candidates.map(\.path)
                #expect(brokenFiles.isSubset(of: candidatePaths), "broken files are always candidates")
                let everything = queryMatches(items, files: allFiles, window: window, zone: zone, kinds: kinds)
                let indexed = queryMatches(items, files: candidatePaths, window: window, zone: zone, kinds: kinds)
                #expect(indexed.matches == everything.matches,
                        "window \(window) in \(zoneName): missing \(Set(everything.matches).subtracting(indexed.matches).sorted())")
                #expect(indexed.diagnostics == everything.diagnostics, "window \(window) in \(zoneName)")
                compared += 1
                candidateTotal += candidates.count
                matchTotal += everything.matches.count
            }
        }
        print("index equivalence seed \(seed): \(compared) windows, \(allFiles.count) files, "
              + "\(candidateTotal) candidates and \(matchTotal) matches in all")
        #expect(candidateTotal < compared * allFiles.count, "the index must leave items out")
        #expect(matchTotal > 0)
    }

    @Test func collectionsFilterTheCandidates() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try Self.randomStore(seed: 7, count: 40, in: folder)
        let (index, _, _) = try StoreIndex.open(store: store)
        let everything = -62_135_596_800 ..< Int64(253_402_300_799)
        let all = try index.candidates(window: everything)
        let work = try index.candidates(window: everything, collections: ["work"])
        #expect(all.count == 40)
        #expect(work.map(\.path) == all.filter { $0.collection == "work" }.map(\.path))
        #expect(try index.candidates(window: everything, collections: []).isEmpty)
    }
}
