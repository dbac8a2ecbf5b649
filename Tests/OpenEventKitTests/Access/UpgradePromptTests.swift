import Foundation
import Testing
@testable import OpenEventKit

/// The implicit write-only to full access prompt on the first fetch (TN3153).
@Suite struct UpgradePromptTests {
    @Test func allowedOnTheFirstFetchGivesFullAccessAndReportsTheChange() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.writeOnly, .event, in: folder)
        let changes = Collected<String>()
        let (access, prompt) = controller(folder, answers: [.allow]) { type, status in changes.append("\(type) \(status)") }
        #expect(access.accessLevel(for: .event) == .writeOnly)
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .full)
        #expect(prompt.asked.map(\.kind) == [.upgradeToFullAccessToEvents])
        #expect(prompt.asked.first?.usageKey == .calendarsFullAccess)
        #expect(access.authorizationStatus(for: .event) == .fullAccess)
        #expect(access.accessLevel(for: .event) == .full)
        #expect(changes.values == ["event fullAccess"])
        let decision = try access.files.readAuthorizations().decision(for: "org.example.lessons", .event)
        #expect(decision?.by == .upgradePrompt)
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .full)
        #expect(prompt.asked.count == 1)
    }

    @Test func declinedMeansWriteOnlyForGoodAcrossProcesses() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.writeOnly, .event, in: folder)
        let (access, prompt) = controller(folder, answers: [.deny, .allow])
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .writeOnly)
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .writeOnly)
        #expect(prompt.asked.count == 1)
        #expect(access.authorizationStatus(for: .event) == .writeOnly)
        // A later run of the app (a new controller) is not asked again.
        let (later, laterPrompt) = controller(folder, answers: [.allow])
        #expect(later.fetchAttemptedUnderWriteOnly(.event) == .writeOnly)
        #expect(laterPrompt.asked.isEmpty)
        // Only Settings can still give full access; that clears the declined mark.
        try setPrior(.fullAccess, .event, in: folder)
        #expect(later.accessLevel(for: .event) == .full)
    }

    @Test func unansweredAsksNoMoreThisSessionButAgainNextTime() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.writeOnly, .event, in: folder)
        let (access, prompt) = controller(folder, answers: [.unanswered, .allow])
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .writeOnly)
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .writeOnly)
        #expect(prompt.asked.count == 1)
        #expect(try access.files.readAuthorizations().decision(for: "org.example.lessons", .event)?.upgradeDeclined == false)
        let (later, laterPrompt) = controller(folder, answers: [.allow])
        #expect(later.fetchAttemptedUnderWriteOnly(.event) == .full)
        #expect(laterPrompt.asked.count == 1)
    }

    @Test(arguments: [EKAuthorizationStatus.notDetermined, .denied, .restricted, .fullAccess])
    func noPromptUnlessWriteOnly(prior: EKAuthorizationStatus) throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(prior, .event, in: folder)
        let (access, prompt) = controller(folder, answers: [.allow])
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == (prior == .fullAccess ? .full : .none))
        #expect(access.fetchAttemptedUnderWriteOnly(.reminder) == .none)
        #expect(prompt.asked.isEmpty)
    }

    @Test func withoutTheFullAccessKeyThereIsNoUpgradePrompt() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.writeOnly, .event, in: folder)
        let (access, prompt) = controller(folder, manifest: lessonsManifest(keys: [.calendarsWriteOnlyAccess, .calendars]), answers: [.allow])
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .writeOnly)
        #expect(prompt.asked.isEmpty)
    }

    @Test func aLegacyAppsUpgradePromptUsesItsLegacyKey() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.writeOnly, .event, in: folder)
        let (access, prompt) = controller(folder, manifest: lessonsManifest(sdk: .legacy, keys: [.calendars]), answers: [.allow])
        #expect(access.authorizationStatus(for: .event).rawValue == 3)
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .full)
        #expect(prompt.asked.first?.usageKey == .calendars)
    }
}

/// The change callback runs outside the request gate: an observer that fetches again (as an
/// app does on EKEventStoreChanged) does not wait on itself.
@Suite struct AccessChangeObserverTests {
    @Test func anObserverMayFetchAndRequestAgain() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let seen = Collected<String>()
        let holder = Collected<AccessController>()
        let prompt = ScriptedPrompt([.allow, .deny])
        let access = AccessController(manifest: lessonsManifest(), storeRoot: folder.path, prompt: prompt, clock: { fixedNow }) { type, status in
            guard let access = holder.values.first else { return }
            // Refetch: under write-only this asks the upgrade question (answered deny here).
            seen.append("\(type) \(status) -> \(access.fetchAttemptedUnderWriteOnly(type))")
            seen.append("request again: \(access.respond(to: .writeOnlyAccessToEvents).granted)")
        }
        holder.append(access)
        #expect(try await access.requestWriteOnlyAccessToEvents())
        #expect(seen.values == ["event writeOnly -> write-only", "request again: true"])
        #expect(prompt.asked.map(\.kind) == [.writeOnlyAccessToEvents, .upgradeToFullAccessToEvents])
    }
}
