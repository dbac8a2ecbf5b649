import Foundation
import Testing
@testable import OpenEventKit

/// Every request against every prior status (EVENTKIT-API.md section 3): who is prompted,
/// what the request answers, and what is recorded.
@Suite struct AccessRequestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var request: AccessController.Request
        var prior: EKAuthorizationStatus
        var priorUpgradeDeclined = false
        var answer: PromptAnswer?
        var granted: Bool
        var prompted: AccessQuestion.Kind?
        var after: EKAuthorizationStatus
        var upgradeDeclinedAfter = false
        var testDescription: String {
            "\(request) with \(prior)\(priorUpgradeDeclined ? " (upgrade declined)" : "") answered \(answer.map { "\($0)" } ?? "-")"
        }
    }

    static let cases: [Case] = [
        // requestFullAccessToEvents
        Case(request: .fullAccessToEvents, prior: .notDetermined, answer: .allow, granted: true, prompted: .fullAccessToEvents, after: .fullAccess),
        Case(request: .fullAccessToEvents, prior: .notDetermined, answer: .deny, granted: false, prompted: .fullAccessToEvents, after: .denied),
        Case(request: .fullAccessToEvents, prior: .notDetermined, answer: .unanswered, granted: false, prompted: .fullAccessToEvents, after: .notDetermined),
        Case(request: .fullAccessToEvents, prior: .denied, granted: false, after: .denied),
        Case(request: .fullAccessToEvents, prior: .restricted, granted: false, after: .restricted),
        Case(request: .fullAccessToEvents, prior: .writeOnly, answer: .allow, granted: true, prompted: .upgradeToFullAccessToEvents, after: .fullAccess),
        Case(request: .fullAccessToEvents, prior: .writeOnly, answer: .deny, granted: false, prompted: .upgradeToFullAccessToEvents,
             after: .writeOnly, upgradeDeclinedAfter: true),
        Case(request: .fullAccessToEvents, prior: .writeOnly, priorUpgradeDeclined: true, granted: false, after: .writeOnly, upgradeDeclinedAfter: true),
        Case(request: .fullAccessToEvents, prior: .fullAccess, granted: true, after: .fullAccess),
        // requestWriteOnlyAccessToEvents
        Case(request: .writeOnlyAccessToEvents, prior: .notDetermined, answer: .allow, granted: true, prompted: .writeOnlyAccessToEvents, after: .writeOnly),
        Case(request: .writeOnlyAccessToEvents, prior: .notDetermined, answer: .deny, granted: false, prompted: .writeOnlyAccessToEvents, after: .denied),
        Case(request: .writeOnlyAccessToEvents, prior: .notDetermined, answer: .unanswered, granted: false, prompted: .writeOnlyAccessToEvents, after: .notDetermined),
        Case(request: .writeOnlyAccessToEvents, prior: .denied, granted: false, after: .denied),
        Case(request: .writeOnlyAccessToEvents, prior: .restricted, granted: false, after: .restricted),
        Case(request: .writeOnlyAccessToEvents, prior: .writeOnly, granted: true, after: .writeOnly),
        Case(request: .writeOnlyAccessToEvents, prior: .writeOnly, priorUpgradeDeclined: true, granted: true, after: .writeOnly, upgradeDeclinedAfter: true),
        Case(request: .writeOnlyAccessToEvents, prior: .fullAccess, granted: true, after: .fullAccess),
        // requestFullAccessToReminders
        Case(request: .fullAccessToReminders, prior: .notDetermined, answer: .allow, granted: true, prompted: .fullAccessToReminders, after: .fullAccess),
        Case(request: .fullAccessToReminders, prior: .notDetermined, answer: .deny, granted: false, prompted: .fullAccessToReminders, after: .denied),
        Case(request: .fullAccessToReminders, prior: .notDetermined, answer: .unanswered, granted: false, prompted: .fullAccessToReminders, after: .notDetermined),
        Case(request: .fullAccessToReminders, prior: .denied, granted: false, after: .denied),
        Case(request: .fullAccessToReminders, prior: .restricted, granted: false, after: .restricted),
        Case(request: .fullAccessToReminders, prior: .fullAccess, granted: true, after: .fullAccess),
    ]

    @Test(arguments: cases)
    func requestAgainstPriorStatus(_ test: Case) async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let entity = test.request.entityType
        try setPrior(test.prior, entity, in: folder, upgradeDeclined: test.priorUpgradeDeclined)
        let before = try? Data(contentsOf: URL(fileURLWithPath: folder.path + "/.openeventkit/authorizations.json"))
        let changes = Collected<EKAuthorizationStatus>()
        let (access, prompt) = controller(folder, answers: test.answer.map { [$0] } ?? []) { _, status in changes.append(status) }

        let granted = try await access.request(test.request)

        #expect(granted == test.granted)
        #expect(prompt.asked.map(\.kind) == (test.prompted.map { [$0] } ?? []))
        #expect(access.authorizationStatus(for: entity) == test.after)
        let other: EKEntityType = entity == .event ? .reminder : .event
        #expect(access.authorizationStatus(for: other) == (test.prior == .restricted ? .restricted : .notDetermined))
        let decision = try access.files.readAuthorizations().decision(for: "org.example.lessons", entity)
        #expect((decision?.upgradeDeclined ?? false) == test.upgradeDeclinedAfter)
        if test.prompted == nil || test.answer == .unanswered {
            // Nothing asked, or nothing answered: nothing is written.
            let after = try? Data(contentsOf: URL(fileURLWithPath: folder.path + "/.openeventkit/authorizations.json"))
            #expect(after == before)
            #expect(changes.values.isEmpty)
        } else {
            #expect(decision?.decided == fixedNow)
            #expect(decision?.by == (test.prompted == .upgradeToFullAccessToEvents ? (test.answer == .allow ? .upgradePrompt : .settings) : .prompt))
            if test.after != test.prior { #expect(changes.values == [test.after]) }
        }

        // A second request of the same kind is answered from the record, without a prompt.
        if test.answer != .unanswered {
            let again = try await access.request(test.request)
            #expect(again == test.granted)
            #expect(prompt.asked.count == (test.prompted == nil ? 0 : 1))
        }
    }

    @Test func thePromptShowsTheAppNameLevelAndUsageString() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (access, prompt) = controller(folder, answers: [.allow, .allow])
        _ = try await access.requestWriteOnlyAccessToEvents()
        _ = try await access.requestFullAccessToReminders()
        let questions = prompt.asked
        #expect(questions.count == 2)
        #expect(questions[0].appName == "Lessons")
        #expect(questions[0].bundleIdentifier == "org.example.lessons")
        #expect(questions[0].usageKey == .calendarsWriteOnlyAccess)
        #expect(questions[0].usageDescription == "Lessons uses this for NSCalendarsWriteOnlyAccessUsageDescription.")
        #expect(questions[0].title == "“Lessons” would like to add events to your calendar.")
        #expect(questions[1].usageKey == .remindersFullAccess)
        #expect(questions[1].title == "“Lessons” would like full access to your reminders.")
    }

    // MARK: Missing usage keys (section 3.3)

    @Test(arguments: [
        (AccessController.Request.fullAccessToEvents, "NSCalendarsFullAccessUsageDescription"),
        (.writeOnlyAccessToEvents, "NSCalendarsWriteOnlyAccessUsageDescription"),
        (.fullAccessToReminders, "NSRemindersFullAccessUsageDescription"),
    ])
    func aMissingUsageKeyFailsWithoutAPromptNamingTheKey(request: AccessController.Request, key: String) async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        // Only the legacy keys: the current APIs take the strict rule and do not fall back.
        let (access, prompt) = controller(folder, manifest: lessonsManifest(keys: [.calendars, .reminders]), answers: [.allow])
        let error = await #expect(throws: AccessError.self) { try await access.request(request) }
        #expect(error?.code == .missingUsageDescription)
        #expect(error?.key == key)
        #expect(error?.path == "/apps/Lessons/Info.plist")
        #expect(error?.description.contains(key) == true)
        #expect(prompt.asked.isEmpty)
        #expect(access.authorizationStatus(for: request.entityType) == .notDetermined)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/.openeventkit/authorizations.json"))
    }

    @Test func theCompletionFormGetsTheSameAnswerAndErrorOnAnotherThread() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (access, _) = controller(folder, manifest: lessonsManifest(keys: [.calendarsWriteOnlyAccess]), answers: [.allow])
        let results = Collected<String>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            access.requestWriteOnlyAccessToEvents { granted, error in
                results.append("\(granted) \(error == nil)")
                access.requestFullAccessToReminders { granted, error in
                    results.append("\(granted) \((error as? AccessError)?.key ?? "-")")
                    done.resume()
                }
            }
        }
        #expect(results.values == ["true true", "false NSRemindersFullAccessUsageDescription"])
    }

    // MARK: Legacy requestAccess(to:) (TN3152, TN3153)

    @Test(arguments: [EKEntityType.event, .reminder], [EKAuthorizationStatus.notDetermined, .denied, .writeOnly, .fullAccess, .restricted])
    func theLegacyRequestFailsWithoutAPromptForACurrentApp(entity: EKEntityType, prior: EKAuthorizationStatus) async throws {
        if entity == .reminder && prior == .writeOnly { return }
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(prior, entity, in: folder)
        let (access, prompt) = controller(folder, answers: [.allow])
        let error = await #expect(throws: AccessError.self) { try await access.requestAccess(to: entity) }
        #expect(error?.code == .legacyRequestNotSupported)
        #expect(prompt.asked.isEmpty)
        #expect(access.authorizationStatus(for: entity) == prior)
    }

    @Test func aLegacyAppGetsWriteOnlyFromTheLegacyEventRequestAndReadsItAsAuthorized() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (access, prompt) = controller(folder, manifest: lessonsManifest(sdk: .legacy, keys: [.calendars, .reminders]), answers: [.allow, .allow])
        #expect(try await access.requestAccess(to: .event))
        #expect(prompt.asked.map(\.kind) == [.writeOnlyAccessToEvents])
        #expect(prompt.asked.first?.usageKey == .calendars)
        #expect(try access.recordedStatus(for: .event) == .writeOnly)
        #expect(access.authorizationStatus(for: .event) == .fullAccess)
        #expect(access.authorizationStatus(for: .event).rawValue == 3)   // .authorized
        #expect(access.accessLevel(for: .event) == .writeOnly)
        // Reminders have no write-only level: the legacy request asks for full access.
        #expect(try await access.requestAccess(to: .reminder))
        #expect(prompt.asked.last?.kind == .fullAccessToReminders)
        #expect(prompt.asked.last?.usageKey == .reminders)
        #expect(access.accessLevel(for: .reminder) == .full)
        // Asked again: no prompt, the recorded answer.
        #expect(try await access.requestAccess(to: .event))
        #expect(prompt.asked.count == 2)
    }

    @Test func aLegacyAppPrefersTheNewKeyAndIsDeniedByTheUser() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (access, prompt) = controller(folder, manifest: lessonsManifest(sdk: .legacy), answers: [.deny])
        #expect(try await access.requestAccess(to: .event) == false)
        #expect(prompt.asked.first?.usageKey == .calendarsWriteOnlyAccess)
        #expect(access.authorizationStatus(for: .event) == .denied)
    }

    @Test func aLegacyAppWithoutAnyCalendarKeyFailsNamingTheLegacyKey() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (access, prompt) = controller(folder, manifest: lessonsManifest(sdk: .legacy, keys: []), answers: [.allow])
        let error = await #expect(throws: AccessError.self) { try await access.requestAccess(to: .event) }
        #expect(error?.key == "NSCalendarsUsageDescription")
        #expect(prompt.asked.isEmpty)
    }

    @Test func legacyAppsSeeFullAccessAsAuthorizedToo() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try setPrior(.fullAccess, .event, in: folder)
        let (access, _) = controller(folder, manifest: lessonsManifest(sdk: .legacy))
        #expect(access.authorizationStatus(for: .event).rawValue == 3)
        #expect(access.accessLevel(for: .event) == .full)
    }

    // MARK: No terminal

    @Test func withNoTerminalTheRequestReturnsFalseAndRecordsNothing() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let regularFile = try folder.write("not-a-terminal", "")
        for path in ["/nonexistent/tty", regularFile] {
            let access = AccessController(manifest: lessonsManifest(), storeRoot: folder.path + "/store",
                                          prompt: TerminalPrompt(path: path), clock: { fixedNow })
            #expect(try await access.requestFullAccessToEvents() == false)
            #expect(access.authorizationStatus(for: .event) == .notDetermined)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/store"))
    }

    // MARK: Concurrency

    @Test func concurrentRequestsPromptOnce() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (access, prompt) = controller(folder, answers: [.allow, .deny, .deny])
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { try await access.requestFullAccessToEvents() } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
        #expect(prompt.asked.count == 1)
    }

    @Test func aDecisionMadeMeanwhileByAnotherProcessStands() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        // The prompt is answered Allow, but while it was up the user denied in Settings.
        final class RacingPrompt: SystemPrompt {
            let folder: StoreFolder
            init(folder: StoreFolder) { self.folder = folder }
            func ask(_ question: AccessQuestion) -> PromptAnswer {
                try? setPrior(.denied, .event, in: folder)
                return .allow
            }
        }
        let access = AccessController(manifest: lessonsManifest(), storeRoot: folder.path, prompt: RacingPrompt(folder: folder), clock: { fixedNow })
        #expect(try await access.requestFullAccessToEvents() == false)
        #expect(access.authorizationStatus(for: .event) == .denied)
    }
}
