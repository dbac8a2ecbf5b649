import Foundation
import Testing
@testable import OpenEventKit

/// `.openeventkit/authorizations.json` and `policy.json`: format, mode, atomic replacement,
/// locking, corrupt files and the restricted policy.
@Suite struct AuthorizationRecordsTests {
    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    private func inode(_ path: String) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }

    @Test func aDecisionIsWrittenAsDocumentedWithMode0600() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (access, _) = controller(folder, answers: [.allow])
        #expect(try await access.requestWriteOnlyAccessToEvents())
        let path = folder.path + "/.openeventkit/authorizations.json"
        #expect(try mode(path) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == """
            {
              "apps" : {
                "org.example.lessons" : {
                  "events" : {
                    "by" : "prompt",
                    "decided" : "2026-11-22T10:00:00Z",
                    "status" : "writeOnly"
                  }
                }
              },
              "formatVersion" : 1
            }

            """)
        // The request made the store (it did not exist): a normal store with its collections.
        #expect(FileManager.default.fileExists(atPath: folder.path + "/.openeventkit/store.json"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/.openeventkit").filter { $0.hasPrefix(".oek-") }
        #expect(leftovers.isEmpty)
    }

    @Test func everyChangeReplacesTheFileWhole() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.fullAccess, .event, in: folder)
        let path = folder.path + "/.openeventkit/authorizations.json"
        let first = try inode(path)
        try setPrior(.denied, .reminder, in: folder)
        #expect(try inode(path) != first)
        #expect(try mode(path) == 0o600)
        try setPrior(.restricted, .event, in: folder)
        #expect(try mode(folder.path + "/.openeventkit/policy.json") == 0o600)
    }

    @Test func anInterruptedWriteLeavesTheOldDecisionsAndIsCleanedUp() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.writeOnly, .event, in: folder)
        // A writer that died before its rename left half a temporary file.
        let leftover = try folder.write(".openeventkit/.oek-1234-authorizations.json", "{ \"apps\" : { \"org.exa")
        let (access, _) = controller(folder)
        #expect(access.authorizationStatus(for: .event) == .writeOnly)
        _ = try FolderStore.open(at: folder.path)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(access.authorizationStatus(for: .event) == .writeOnly)
    }

    @Test func concurrentWritersLoseNoDecision() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let files = AccessRecordsFile(storeRoot: folder.path)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try? files.updateAuthorizations { records in
                        records.setDecision(AuthorizationDecision(status: .fullAccess, decided: fixedNow, by: .settings),
                                            for: "org.example.app\(index)", .event)
                    }
                }
            }
        }
        #expect(try files.readAuthorizations().apps.count == 16)
    }

    @Test func aDecisionMadeElsewhereAppliesAtOnce() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (access, _) = controller(folder)
        #expect(access.accessLevel(for: .event) == .none)
        try setPrior(.fullAccess, .event, in: folder)
        #expect(access.accessLevel(for: .event) == .full)
        try setPrior(.denied, .event, in: folder)
        #expect(access.accessLevel(for: .event) == .none)
        #expect(access.authorizationStatus(for: .event) == .denied)
    }

    static let corruptFiles: [(String, String)] = [
        ("authorizations.json", "{ this is not json"),
        ("authorizations.json", #"{"formatVersion":1,"apps":{"org.example.lessons":{"events":{"status":"granted","decided":"2026-01-01T00:00:00Z","by":"prompt"}}}}"#),
        ("authorizations.json", #"{"formatVersion":1,"apps":{"org.example.lessons":{"reminders":{"status":"writeOnly","decided":"2026-01-01T00:00:00Z","by":"prompt"}}}}"#),
        ("authorizations.json", #"{"formatVersion":1,"apps":{"org.example.lessons":{"events":{"status":"fullAccess","by":"prompt"}}}}"#),
        ("authorizations.json", #"{"apps":{}}"#),
        ("policy.json", #"{"formatVersion":1,"restricted":"org.example.lessons"}"#),
    ]

    @Test(arguments: corruptFiles)
    func aCorruptFileGivesNoAccessAndAClearError(file: String, contents: String) async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.fullAccess, .event, in: folder)
        let path = try folder.write(".openeventkit/" + file, contents)
        let (access, prompt) = controller(folder, answers: [.allow])
        let error = #expect(throws: AccessError.self) { try access.currentStatus(for: .event) }
        #expect(error?.code == .corruptRecords)
        #expect(error?.path == path)
        #expect(error?.description.contains("corrupt") == true)
        #expect(access.authorizationStatus(for: .event) == .restricted)
        #expect(access.accessLevel(for: .event) == .none)
        #expect(access.accessLevel(for: .reminder) == .none)
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .none)
        let requestError = await #expect(throws: AccessError.self) { try await access.requestFullAccessToReminders() }
        #expect(requestError?.code == .corruptRecords)
        #expect(prompt.asked.isEmpty)
        // Nothing overwrote the corrupt file.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
    }

    /// `decided` is read without Foundation's ISO 8601 parser when it has the form the file is
    /// written in; every form must come out as `JSONDecoder`'s `.iso8601` strategy reads it.
    @Test(arguments: ["2026-11-22T10:00:00Z", "1999-12-31T23:59:59Z", "2024-02-29T00:00:00Z", "1970-01-01T00:00:00Z",
                      "2026-11-22T10:00:00+01:00", "2026-11-22T10:00:00.5Z", "2026-02-30T10:00:00Z", "2026-13-01T00:00:00Z",
                      "2026-11-22T24:00:00Z", "2026-11-22 10:00:00Z", "２026-11-22T10:00:00Z", "yesterday"])
    func decisionTimesReadAsFoundationsISO8601StrategyReadsThem(decided: String) throws {
        struct Reference: Decodable { var decided: Date }
        let reference = JSONDecoder()
        reference.dateDecodingStrategy = .iso8601
        let expected = try? reference.decode(Reference.self, from: Data(#"{"decided":"\#(decided)"}"#.utf8)).decided
        let json = #"{"formatVersion":1,"apps":{"org.example.lessons":{"events":{"status":"fullAccess","decided":"\#(decided)","by":"prompt"}}}}"#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let read = try? decoder.decode(AuthorizationRecords.self, from: Data(json.utf8))
        #expect(read?.decision(for: "org.example.lessons", .event)?.decided == expected)
        #expect((read == nil) == (expected == nil))
    }

    @Test func aNewerFormatIsRefused() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try folder.write(".openeventkit/authorizations.json", #"{"formatVersion":2,"apps":{}}"#)
        let (access, _) = controller(folder)
        let error = #expect(throws: AccessError.self) { try access.currentStatus(for: .event) }
        #expect(error?.code == .unsupportedRecordsFormat)
    }

    @Test func aRestrictedAppHasNoAccessWhateverWasDecided() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.fullAccess, .event, in: folder)
        try setPrior(.restricted, .event, in: folder)
        let (access, prompt) = controller(folder, answers: [.allow])
        #expect(access.authorizationStatus(for: .event) == .restricted)
        #expect(access.authorizationStatus(for: .reminder) == .restricted)
        #expect(access.accessLevel(for: .event) == .none)
        #expect(try await access.requestFullAccessToReminders() == false)
        #expect(prompt.asked.isEmpty)
        // Other apps are not affected.
        let other = AccessController(manifest: AppManifest(bundleIdentifier: "org.example.other"), storeRoot: folder.path,
                                     prompt: ScriptedPrompt())
        #expect(other.authorizationStatus(for: .event) == .notDetermined)
        try AccessRecordsFile(storeRoot: folder.path).updatePolicy { $0.setRestricted("org.example.lessons", false) }
        #expect(access.authorizationStatus(for: .event) == .fullAccess)
    }

    @Test func theClassLevelStatusNeedsNoStoreInstance() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let manifest = try folder.write("app/Info.plist", infoPlist(["CFBundleIdentifier": "org.example.lessons"]))
        try setPrior(.writeOnly, .event, in: folder)
        let environment = ["OPENEVENTKIT_MANIFEST": manifest, "OPENEVENTKIT_STORE": folder.path]
        #expect(AccessController.authorizationStatus(for: .event, environment: environment) == .writeOnly)
        #expect(AccessController.authorizationStatus(for: .reminder, environment: environment) == .notDetermined)
        // A missing manifest: restricted, and the throwing form names the file.
        let broken = ["OPENEVENTKIT_MANIFEST": folder.path + "/none.plist", "OPENEVENTKIT_STORE": folder.path]
        #expect(AccessController.authorizationStatus(for: .event, environment: broken) == .restricted)
        let error = #expect(throws: AccessError.self) { try AccessController.currentAuthorizationStatus(for: .event, environment: broken) }
        #expect(error?.path == folder.path + "/none.plist")
        // Reading the status creates nothing.
        let elsewhere = ["OPENEVENTKIT_MANIFEST": manifest, "OPENEVENTKIT_STORE": folder.path + "/no-store"]
        #expect(AccessController.authorizationStatus(for: .event, environment: elsewhere) == .notDetermined)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/no-store"))
    }

    @Test func aStoreForAnAppWithoutAManifestHasNoAccessAndSaysWhy() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let access = AccessController.forMainApp(storeRoot: folder.path, environment: ["OPENEVENTKIT_MANIFEST": folder.path + "/missing.plist"])
        #expect(access.manifestProblem?.code == .manifestNotFound)
        #expect(access.authorizationStatus(for: .event) == .restricted)
        #expect(access.accessLevel(for: .event) == .none)
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .none)
        for request in [AccessController.Request.fullAccessToEvents, .legacy(.event)] {
            let error = await #expect(throws: AccessError.self) { try await access.request(request) }
            #expect(error?.path == folder.path + "/missing.plist")
        }
        let manifest = try folder.write("Info.plist", infoPlist(["CFBundleIdentifier": "org.example.lessons"]))
        let found = AccessController.forMainApp(storeRoot: folder.path, environment: ["OPENEVENTKIT_MANIFEST": manifest])
        #expect(found.manifestProblem == nil)
        #expect(found.manifest.bundleIdentifier == "org.example.lessons")
    }
}
