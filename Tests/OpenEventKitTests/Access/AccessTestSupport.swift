import Foundation
@testable import OpenEventKit

/// An Info.plist in XML with the given keys (string values).
func infoPlist(_ entries: [String: String]) -> String {
    var text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>

        """
    for key in entries.keys.sorted() {
        text += "    <key>\(key)</key>\n    <string>\(entries[key]!)</string>\n"
    }
    return text + "</dict>\n</plist>\n"
}

/// A current-SDK app with every usage key.
func lessonsManifest(sdk: AppManifest.SDKGeneration = .current,
                     keys: Set<AppManifest.UsageDescriptionKey> = Set(AppManifest.UsageDescriptionKey.allCases)) -> AppManifest {
    var usage: [AppManifest.UsageDescriptionKey: String] = [:]
    for key in keys { usage[key] = "Lessons uses this for \(key.rawValue)." }
    return AppManifest(bundleIdentifier: "org.example.lessons", displayName: "Lessons", usageDescriptions: usage,
                       sdkGeneration: sdk, path: "/apps/Lessons/Info.plist")
}

/// A fixed clock: 2026-11-22T10:00:00Z.
let fixedNow = Date(timeIntervalSince1970: 1795341600)

/// A controller on a store folder with scripted answers.
func controller(_ folder: StoreFolder, manifest: AppManifest = lessonsManifest(), answers: [PromptAnswer] = [],
                onChange: (@Sendable (EKEntityType, EKAuthorizationStatus) -> Void)? = nil) -> (AccessController, ScriptedPrompt) {
    let prompt = ScriptedPrompt(answers)
    return (AccessController(manifest: manifest, storeRoot: folder.path, prompt: prompt, clock: { fixedNow }, onChange: onChange), prompt)
}

/// Records a prior decision (or a restriction) directly in the store's files.
func setPrior(_ status: EKAuthorizationStatus, _ entityType: EKEntityType, in folder: StoreFolder,
              app: String = "org.example.lessons", upgradeDeclined: Bool = false) throws {
    let files = AccessRecordsFile(storeRoot: folder.path)
    switch status {
    case .notDetermined:
        return
    case .restricted:
        try files.updatePolicy { $0.setRestricted(app, true) }
    case .denied, .writeOnly, .fullAccess:
        try files.updateAuthorizations { records in
            records.setDecision(AuthorizationDecision(status: status, decided: fixedNow, by: .settings, upgradeDeclined: upgradeDeclined),
                                for: app, entityType)
        }
    }
}

/// Collects values from @Sendable callbacks.
final class Collected<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [T] = []
    func append(_ value: T) { lock.lock(); storage.append(value); lock.unlock() }
    var values: [T] { lock.lock(); defer { lock.unlock() }; return storage }
}
