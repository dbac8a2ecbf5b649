import Foundation
import Synchronization

/// The access rules of one app on one store: statuses, the request state machine, the system
/// prompt and the write-only upgrade prompt (EVENTKIT-API.md section 3).
///
/// An ``EKEventStore`` holds one controller as its ``AccessAuthority`` and forwards its
/// authorization API to it. Decisions are read from the store's `authorizations.json` and
/// `policy.json` whenever those files change, so a decision made in another process (`ical
/// privacy`, another instance of the app) applies at once.
///
/// A request prompts only when nothing is decided; a denied or restricted app is never
/// prompted; a missing usage-description key fails the request with an ``AccessError`` naming
/// the key, without a prompt and without recording anything (the strict rule of section 3.3
/// for the current APIs; the legacy keys serve only `requestAccess(to:)` of a legacy app).
/// When the decisions or policy cannot be read, the app has no access, its statuses read as
/// `restricted`, and requests fail with the error that names the file.
package final class AccessController: AccessAuthority {
    /// The app.
    package let manifest: AppManifest
    /// Why the app's manifest could not be read, for a controller made with
    /// ``init(unavailableManifest:storeRoot:)``: then the app has no access, reads
    /// `restricted`, and every request fails with this error.
    package let manifestProblem: AccessError?
    /// The store's access files.
    package let files: AccessRecordsFile
    private let prompt: any SystemPrompt
    private let clock: @Sendable () -> Date
    private let onChange: (@Sendable (EKEntityType, EKAuthorizationStatus) -> Void)?

    private struct Snapshot {
        var identities: [FileIdentity?]
        var records: AuthorizationRecords
        var policy: AccessPolicy
    }

    private struct State {
        var snapshot: Snapshot?
        /// The upgrade prompt could not be shown in this session (no terminal, no key): not again.
        var upgradeUnavailable = false
        /// Status changes to report once the request gate is released.
        var pendingChanges: [(EKEntityType, EKAuthorizationStatus)] = []
    }

    private let state = Mutex(State())

    /// All requests of the process, and the upgrade prompt, go one at a time, so two
    /// requests never show two prompts.
    private static let requestGate = Mutex(0)

    /// Creates the controller of `manifest`'s app on the store at `storeRoot`.
    ///
    /// - Parameters:
    ///   - prompt: the system prompt; ``TerminalPrompt`` by default (tests pass ``ScriptedPrompt``).
    ///   - clock: the time recorded with each decision.
    ///   - onChange: called after the app's status changed through a prompt (a grant, a denial,
    ///     an upgrade), so the store can post `EKEventStoreChanged`.
    package init(manifest: AppManifest, storeRoot: String, prompt: any SystemPrompt = TerminalPrompt(),
                 clock: @escaping @Sendable () -> Date = { Date() },
                 onChange: (@Sendable (EKEntityType, EKAuthorizationStatus) -> Void)? = nil) {
        self.manifest = manifest
        self.manifestProblem = nil
        self.files = AccessRecordsFile(storeRoot: storeRoot)
        self.prompt = prompt
        self.clock = clock
        self.onChange = onChange
    }

    /// A controller for an app whose manifest could not be read: no access, statuses
    /// `restricted`, every request failing with `error` (which names the manifest file).
    package init(unavailableManifest error: AccessError, storeRoot: String) {
        self.manifest = AppManifest(bundleIdentifier: "", path: error.path)
        self.manifestProblem = error
        self.files = AccessRecordsFile(storeRoot: storeRoot)
        self.prompt = ScriptedPrompt()
        self.clock = { Date() }
        self.onChange = nil
    }

    /// The controller of the running process's app (``AppManifest/main()``) on the store at
    /// `storeRoot`, for `EKEventStore`'s initialisers, which cannot throw: when the manifest
    /// cannot be found or read, a controller made with ``init(unavailableManifest:storeRoot:)``.
    package static func forMainApp(storeRoot: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                                   onChange: (@Sendable (EKEntityType, EKAuthorizationStatus) -> Void)? = nil) -> AccessController {
        do {
            let manifest = try AppManifest.discover(explicit: AppManifest.explicitMainManifest, environment: environment,
                                                    executablePath: AppManifest.currentExecutablePath())
            return AccessController(manifest: manifest, storeRoot: storeRoot, onChange: onChange)
        } catch {
            return AccessController(unavailableManifest: error, storeRoot: storeRoot)
        }
    }

    /// The controller of the running process's app (``AppManifest/main()``) on the default
    /// store (`FolderStore.defaultLocation`).
    package static func forMainApp(environment: [String: String] = ProcessInfo.processInfo.environment,
                                   prompt: any SystemPrompt = TerminalPrompt()) throws(AccessError) -> AccessController {
        let manifest = try AppManifest.discover(explicit: AppManifest.explicitMainManifest, environment: environment,
                                                executablePath: AppManifest.currentExecutablePath())
        let root: String
        do { root = try FolderStore.defaultLocation(environment: environment) } catch {
            throw AccessError(.io, error.message, remedy: "set OPENEVENTKIT_STORE to the store folder")
        }
        return AccessController(manifest: manifest, storeRoot: root, prompt: prompt)
    }

    // MARK: Class-level status

    /// `EKEventStore.authorizationStatus(for:)`: the running app's status on the default
    /// store, without a store instance. `restricted` when the manifest, the store location or
    /// the records cannot be read (``currentAuthorizationStatus(for:environment:)`` says why).
    package static func authorizationStatus(for entityType: EKEntityType,
                                            environment: [String: String] = ProcessInfo.processInfo.environment) -> EKAuthorizationStatus {
        (try? currentAuthorizationStatus(for: entityType, environment: environment)) ?? .restricted
    }

    /// Like ``authorizationStatus(for:environment:)``, throwing what stops the status from being known.
    package static func currentAuthorizationStatus(for entityType: EKEntityType,
                                                   environment: [String: String] = ProcessInfo.processInfo.environment) throws(AccessError) -> EKAuthorizationStatus {
        try forMainApp(environment: environment).currentStatus(for: entityType)
    }

    // MARK: Status

    private func snapshot() throws(AccessError) -> Snapshot {
        if let manifestProblem { throw manifestProblem }
        let identities = try files.identities()
        if let cached = state.withLock({ $0.snapshot }), cached.identities == identities { return cached }
        let fresh = Snapshot(identities: identities, records: try files.readAuthorizations(), policy: try files.readPolicy())
        state.withLock { $0.snapshot = fresh }
        return fresh
    }

    /// The status as recorded (writeOnly stays writeOnly, also for a legacy app).
    package func recordedStatus(for entityType: EKEntityType) throws(AccessError) -> EKAuthorizationStatus {
        let snapshot = try snapshot()
        if !manifest.entitlements.allowsCalendarData { return .restricted }
        if snapshot.policy.isRestricted(manifest.bundleIdentifier) { return .restricted }
        return snapshot.records.decision(for: manifest.bundleIdentifier, entityType)?.status ?? .notDetermined
    }

    /// The status the app sees: as recorded, except that a legacy app sees write-only access
    /// as `.authorized` (= `.fullAccess`, TN3153).
    package func currentStatus(for entityType: EKEntityType) throws(AccessError) -> EKAuthorizationStatus {
        let status = try recordedStatus(for: entityType)
        if status == .writeOnly && manifest.sdkGeneration == .legacy { return .fullAccess }
        return status
    }

    package func authorizationStatus(for entityType: EKEntityType) -> EKAuthorizationStatus {
        (try? currentStatus(for: entityType)) ?? .restricted
    }

    package func accessLevel(for entityType: EKEntityType) -> AccessLevel {
        switch (try? recordedStatus(for: entityType)) ?? .restricted {
        case .fullAccess: .full
        case .writeOnly: entityType == .event ? .writeOnly : .none
        case .notDetermined, .restricted, .denied: .none
        }
    }

    // MARK: The implicit upgrade prompt

    package func fetchAttemptedUnderWriteOnly(_ entityType: EKEntityType) -> AccessLevel {
        guard entityType == .event, accessLevel(for: .event) == .writeOnly else { return accessLevel(for: entityType) }
        if state.withLock({ $0.upgradeUnavailable }) { return .writeOnly }
        let level = Self.requestGate.withLock { _ in
            (try? upgrade().level) ?? .writeOnly
        }
        reportChanges()
        return level
    }

    /// Queues a status change for ``reportChanges()``.
    private func changed(_ entityType: EKEntityType) {
        guard onChange != nil, let status = try? currentStatus(for: entityType) else { return }
        state.withLock { $0.pendingChanges.append((entityType, status)) }
    }

    /// Calls `onChange` for the queued changes, outside the request gate, so that an observer
    /// may fetch or request again without waiting on itself.
    private func reportChanges() {
        guard let onChange else { return }
        let changes = state.withLock { state in
            defer { state.pendingChanges = [] }
            return state.pendingChanges
        }
        for (type, status) in changes { onChange(type, status) }
    }

    /// The upgrade from write-only: prompts unless declined before; returns whether the app
    /// has full access now. Call with the request gate held.
    private func upgrade() throws(AccessError) -> (level: AccessLevel, granted: Bool) {
        guard let decision = try snapshot().records.decision(for: manifest.bundleIdentifier, .event),
              decision.status == .writeOnly, try recordedStatus(for: .event) == .writeOnly else {
            let level = accessLevel(for: .event)
            return (level, level == .full)
        }
        if decision.upgradeDeclined { return (.writeOnly, false) }
        guard let (key, usage) = usage(for: .upgradeToFullAccessToEvents) else {
            state.withLock { $0.upgradeUnavailable = true }
            throw missingKey(for: .upgradeToFullAccessToEvents)
        }
        let question = AccessQuestion(kind: .upgradeToFullAccessToEvents, appName: manifest.displayName,
                                      bundleIdentifier: manifest.bundleIdentifier, usageDescription: usage, usageKey: key)
        switch prompt.ask(question) {
        case .unanswered:
            state.withLock { $0.upgradeUnavailable = true }
            return (.writeOnly, false)
        case .allow:
            let status = try record(.event) { current in
                guard current?.status == .writeOnly, current?.upgradeDeclined == false else { return current }
                return AuthorizationDecision(status: .fullAccess, decided: self.clock(), by: .upgradePrompt)
            }
            if status == .fullAccess { changed(.event) }
            return (status == .fullAccess ? .full : accessLevel(for: .event), status == .fullAccess)
        case .deny:
            _ = try record(.event) { current in
                guard var current, current.status == .writeOnly else { return current }
                current.upgradeDeclined = true
                return current
            }
            return (accessLevel(for: .event), false)
        }
    }

    // MARK: Requests

    /// The four request calls of ``EKEventStore``.
    package enum Request: Sendable, Hashable {
        /// `requestFullAccessToEvents`.
        case fullAccessToEvents
        /// `requestWriteOnlyAccessToEvents`.
        case writeOnlyAccessToEvents
        /// `requestFullAccessToReminders`.
        case fullAccessToReminders
        /// The deprecated `requestAccess(to:)`.
        case legacy(EKEntityType)

        package var entityType: EKEntityType {
            switch self {
            case .fullAccessToEvents, .writeOnlyAccessToEvents: .event
            case .fullAccessToReminders: .reminder
            case .legacy(let type): type
            }
        }
    }

    /// Answers a request, prompting when nothing is decided yet: whether the app has the access
    /// it asked for, and the error that stopped it, if one did. Blocks while the prompt waits.
    package func respond(to request: Request) -> (granted: Bool, error: AccessError?) {
        let result: (Bool, AccessError?) = Self.requestGate.withLock { _ in
            do throws(AccessError) { return (try respondLocked(to: request), nil) } catch { return (false, error) }
        }
        reportChanges()
        return result
    }

    private func respondLocked(to request: Request) throws(AccessError) -> Bool {
        if let manifestProblem { throw manifestProblem }
        if let reason = manifest.entitlements.denialReason {
            // As on macOS: a sandboxed app without the entitlement is never asked.
            throw AccessError(.missingEntitlement, reason, path: manifest.entitlements.path ?? manifest.path,
                              key: AppEntitlements.calendars,
                              remedy: "add <key>\(AppEntitlements.calendars)</key><true/> to the app's .entitlements file")
        }
        if case .legacy(let type) = request, manifest.sdkGeneration == .current {
            let modern = type == .event ? "requestFullAccessToEvents or requestWriteOnlyAccessToEvents" : "requestFullAccessToReminders"
            throw AccessError(.legacyRequestNotSupported,
                              "requestAccess(to:) is not available to an app built for the current SDK generation (TN3152)",
                              path: manifest.path, remedy: "call \(modern), or set \(AppManifest.sdkGenerationKey) to legacy in the manifest")
        }
        let entityType = request.entityType
        let wanted: EKAuthorizationStatus
        let kind: AccessQuestion.Kind
        switch request {
        case .fullAccessToEvents: (wanted, kind) = (.fullAccess, .fullAccessToEvents)
        case .writeOnlyAccessToEvents, .legacy(.event): (wanted, kind) = (.writeOnly, .writeOnlyAccessToEvents)
        case .fullAccessToReminders, .legacy(.reminder): (wanted, kind) = (.fullAccess, .fullAccessToReminders)
        }
        switch try recordedStatus(for: entityType) {
        case .restricted, .denied:
            return false
        case .fullAccess:
            return true
        case .writeOnly:
            if wanted == .writeOnly { return true }
            return try upgrade().granted
        case .notDetermined:
            let isLegacy = if case .legacy = request { true } else { false }
            guard let (key, usage) = usage(for: kind, legacy: isLegacy) else { throw missingKey(for: kind, legacy: isLegacy) }
            let question = AccessQuestion(kind: kind, appName: manifest.displayName, bundleIdentifier: manifest.bundleIdentifier,
                                          usageDescription: usage, usageKey: key)
            let answer = prompt.ask(question)
            if answer == .unanswered { return false }
            let status = try record(entityType) { current in
                // Decided meanwhile (another process asked too): that decision stands.
                if current != nil { return current }
                return AuthorizationDecision(status: answer == .allow ? wanted : .denied, decided: self.clock(), by: .prompt)
            }
            changed(entityType)
            return status == .fullAccess || (status == .writeOnly && wanted == .writeOnly)
        }
    }

    /// The usage description a prompt shows, and its key; nil when the manifest lacks it.
    private func usage(for kind: AccessQuestion.Kind, legacy: Bool = false) -> (AppManifest.UsageDescriptionKey, String)? {
        for key in usageKeys(for: kind, legacy: legacy) {
            if let text = manifest.usageDescription(key) { return (key, text) }
        }
        return nil
    }

    /// The keys a prompt may take its text from, in order: the current key, and the legacy key
    /// only for a legacy app's `requestAccess(to:)` and upgrade prompt (TN3153's fallback).
    private func usageKeys(for kind: AccessQuestion.Kind, legacy: Bool) -> [AppManifest.UsageDescriptionKey] {
        let fallback = legacy || (kind == .upgradeToFullAccessToEvents && manifest.sdkGeneration == .legacy)
        switch kind {
        case .fullAccessToEvents, .upgradeToFullAccessToEvents: return fallback ? [.calendarsFullAccess, .calendars] : [.calendarsFullAccess]
        case .writeOnlyAccessToEvents: return fallback ? [.calendarsWriteOnlyAccess, .calendars] : [.calendarsWriteOnlyAccess]
        case .fullAccessToReminders: return fallback ? [.remindersFullAccess, .reminders] : [.remindersFullAccess]
        }
    }

    private func missingKey(for kind: AccessQuestion.Kind, legacy: Bool = false) -> AccessError {
        let keys = usageKeys(for: kind, legacy: legacy)
        let key = (legacy || manifest.sdkGeneration == .legacy ? keys.last : keys.first) ?? keys[0]
        let what: String
        switch kind {
        case .fullAccessToEvents: what = "full access to events"
        case .writeOnlyAccessToEvents: what = "write-only access to events"
        case .fullAccessToReminders: what = "full access to reminders"
        case .upgradeToFullAccessToEvents: what = "the upgrade to full access to events"
        }
        return AccessError(.missingUsageDescription,
                           "the app manifest has no \(key.rawValue), which \(what) needs; the request is denied without a prompt",
                           path: manifest.path, key: key.rawValue,
                           remedy: "add <key>\(key.rawValue)</key><string>why the app needs it</string>")
    }

    /// Records a decision for the app under the store's lock; `change` sees the decision on
    /// disk now and returns the one to keep. Returns the status recorded.
    private func record(_ entityType: EKEntityType,
                        _ change: @escaping (AuthorizationDecision?) -> AuthorizationDecision?) throws(AccessError) -> EKAuthorizationStatus {
        let identifier = manifest.bundleIdentifier
        let decision = try files.updateAuthorizations { (records: inout AuthorizationRecords) throws(AccessError) -> AuthorizationDecision? in
            let new = change(records.decision(for: identifier, entityType))
            records.setDecision(new, for: identifier, entityType)
            return new
        }
        state.withLock { $0.snapshot = nil }
        return decision?.status ?? .notDetermined
    }
}
