import Foundation
import Testing
@testable import OpenEventKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif

/// Crash safety and cross-process serialisation, with real processes (`store-stress`).
///
/// `OEK_CRASH_COUNT` and `OEK_CRASH_TRIALS` change the batch size (default 10,000 events)
/// and the number of killed commits (default 6: three
/// anywhere in the run, three after the commit point). Commit time on a shared 2-core
/// machine was 6 to 30 s at 10,000 events with one fsync per file; with one syncfs per
/// batch it is about 1 to 4 s, most of it creating and renaming the files.
@Suite(.serialized) struct StoreCrashTests {
    @Test func killedCommitLeavesTheStoreExactlyBeforeOrAfter() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = Int(environment["OEK_CRASH_COUNT"] ?? "") ?? 10_000
        let trials = Int(environment["OEK_CRASH_TRIALS"] ?? "") ?? 6
        let folder = try StoreFolder()
        defer { folder.remove() }
        let manager = FileManager.default

        // The store before: 50 events. The batch adds `count` events, rewrites 10 and deletes 10.
        let initial = folder.path + "/initial"
        let seeded = try StoreStress.run([initial, "50", "1", "seed"])
        try #require(seeded.status == 0, "store-stress failed: \(seeded.stderr)")
        _ = try FolderStore.open(at: initial)
        let before = try storeTree(initial)
        let arguments = ["\(count)", "1", "crash", "10", "10"]

        // The store after, from a run that is not interrupted; it also measures how long a
        // commit takes and how long it runs after its commit point (the journal appears).
        let reference = folder.path + "/reference"
        try manager.copyItem(atPath: initial, toPath: reference)
        let started = Date()
        let referenceProcess = try StoreStress.start([reference] + arguments)
        var journalSeen: Date?
        while referenceProcess.isRunning {
            if journalSeen == nil && access(reference + "/.openeventkit/journal", F_OK) == 0 { journalSeen = Date() }
            usleep(200)
        }
        referenceProcess.waitUntilExit()
        let finished = Date()
        let duration = finished.timeIntervalSince(started)
        let applyWindow = journalSeen.map { finished.timeIntervalSince($0) } ?? 0.05
        try #require(referenceProcess.terminationStatus == 0, "store-stress failed")
        _ = try FolderStore.open(at: reference)
        let after = try storeTree(reference)
        #expect(after.count == before.count + count - 10)
        try manager.removeItem(atPath: reference)

        var generator = SeededGenerator(state: 0x5EED_2026)
        var outcomes: [String: Int] = [:]
        for trial in 0..<trials {
            // Even trials: a kill anywhere in the run. Odd trials: a kill after the commit
            // point, while the journal is applied (the process is watched for the journal).
            let afterCommitPoint = trial % 2 == 1
            let fraction = Double.random(in: 0..<(afterCommitPoint ? 1 : 0.9), using: &generator)
            let path = folder.path + "/trial-\(trial)"
            try manager.copyItem(atPath: initial, toPath: path)
            let process = try StoreStress.start([path] + arguments)
            var moment: String
            if afterCommitPoint {
                while process.isRunning && access(path + "/.openeventkit/journal", F_OK) != 0 { usleep(100) }
                usleep(useconds_t(applyWindow * fraction * 1_000_000))
                moment = "journal + \(Int(applyWindow * fraction * 1000)) ms"
            } else {
                usleep(useconds_t(duration * fraction * 1_000_000))
                moment = "\(Int(duration * fraction * 1000)) ms"
            }
            let killedWhileRunning = process.isRunning
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            _ = try FolderStore.open(at: path)
            let tree = try storeTree(path)
            let outcome = tree == before ? "before" : (tree == after ? "after" : "neither")
            #expect(outcome != "neither",
                    "trial \(trial): killed at \(moment) the store is neither before nor after (\(tree.count) files)")
            let metadataEntries = try manager.contentsOfDirectory(atPath: path + "/.openeventkit").sorted()
            #expect(metadataEntries.allSatisfy { $0 == "lock" || $0 == "store.json" }, "trial \(trial): \(metadataEntries)")
            let key = killedWhileRunning ? outcome : "\(outcome) (finished before the kill)"
            outcomes[key, default: 0] += 1
            moment += killedWhileRunning ? "" : " (too late)"
            print("crash trial \(trial): N=\(count), run \(String(format: "%.1f", duration)) s, apply \(Int(applyWindow * 1000)) ms, killed at \(moment) -> \(outcome)")
            try manager.removeItem(atPath: path)
        }
        print("crash trials: \(trials), N=\(count), outcomes: \(outcomes.sorted { $0.key < $1.key })")
    }

    @Test func twoProcessesWritingAtOnceLoseNothing() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let path = folder.path + "/store"   // does not exist yet: both processes race to create it
        let first = try StoreStress.start([path, "1000", "10", "first"])
        let second = try StoreStress.start([path, "1000", "10", "second"])
        for process in [first, second] {
            let errors = (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(String(decoding: errors, as: UTF8.self))")
        }
        let store = try FolderStore.open(at: path)
        #expect(try store.collections().map(\.identifier) == ["calendar", "reminders"])
        let contents = try store.readCollection("calendar")
        #expect(contents.items.count == 2000)
        #expect(contents.diagnostics.isEmpty)
        let uids = Set(contents.items.compactMap(\.uid))
        for prefix in ["first", "second"] {
            #expect((0..<1000).allSatisfy { uids.contains("\(prefix)-\($0)@stress") })
        }
    }
}
