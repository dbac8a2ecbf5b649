import ArgumentParser
import Dispatch
import Foundation
import ICalKit
import OpenEventKit

/// The exit status when the app lacks the access a command needs (sysexits' EX_NOPERM).
let exitNoPermission: Int32 = 77

/// Which store a command uses and which app it acts as; shared by every store command.
struct StoreAppOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The store folder (else $OPENEVENTKIT_STORE, else $XDG_DATA_HOME/openeventkit).", valueName: "dir"))
    var store: String?

    @Option(help: ArgumentHelp("Act as the app this Info.plist describes, under its access (default: ical itself, org.openeventkit.ical).",
                               valueName: "info-plist"))
    var app: String?

    /// ical's own manifest: it asks write-only access to add events and import, full access
    /// to read, export and change.
    static let toolManifest = AppManifest(
        bundleIdentifier: "org.openeventkit.ical", displayName: "ical",
        usageDescriptions: [
            .calendarsWriteOnlyAccess: "ical adds the events you import or create on the command line to your calendar.",
            .calendarsFullAccess: "ical lists, exports and changes your events when you ask it to on the command line.",
            .remindersFullAccess: "ical imports, lists and exports your reminders when you ask it to on the command line.",
        ])

    /// The store folder's path.
    func storePath() throws -> String {
        if let store, !store.isEmpty { return store }
        do {
            return try FolderStore.defaultLocation(environment: Self.locationEnvironment())
        } catch {
            printError("ical: \(error.message); or pass --store DIR")
            throw ExitCode(1)
        }
    }

    /// The variables of the environment that ``FolderStore/defaultLocation(environment:)``
    /// reads, as `ProcessInfo`'s environment has them (of a variable given twice, the last),
    /// without making a dictionary of the whole environment (a third of a million
    /// instructions at each use).
    static func locationEnvironment() -> [String: String] {
        environment(["OPENEVENTKIT_STORE", "XDG_DATA_HOME", "HOME"])
    }

    /// Variables of the environment by name, as `ProcessInfo`'s environment has them (of a
    /// variable given twice, the last), without making a dictionary of the whole environment.
    static func environment(_ names: [String]) -> [String: String] {
        var found: [String: String] = [:]
        var entry = environ
        while let variable = entry.pointee {
            for name in names where name.withCString({ strncmp(variable, $0, strlen($0)) == 0 }) {
                let length = name.utf8.count
                guard variable[length] == CChar(UInt8(ascii: "=")) else { continue }
                // `=` followed by a combining mark is not an `=` Character to ProcessInfo,
                // which splits a variable at its first `=` Character: let it decide.
                if UInt8(bitPattern: variable[length + 1]) >= 0x80 { return ProcessInfo.processInfo.environment }
                found[name] = String(cString: variable + length + 1)
            }
            entry += 1
        }
        return found
    }

    /// The app the command acts as.
    func manifest() throws -> AppManifest {
        guard let app else { return Self.toolManifest }
        do { return try AppManifest(contentsOfFile: app) } catch {
            printError("ical: \(error)")
            throw ExitCode(1)
        }
    }

    /// Opens the store as the app and makes sure it has `level` access to `entityType`:
    /// asks (the system prompt, on a terminal) when the user has not decided; otherwise, or
    /// when the answer is no, prints what is missing and how to grant it, and exits 77.
    func open(needing level: NeededAccess, to entityType: EKEntityType = .event, for action: String) throws -> EKEventStore {
        let store = try openStore()
        try require(level, to: entityType, on: store, for: action)
        return store
    }

    /// Opens the store as the app, without checking its access. A command reads or writes
    /// once and exits, so the store does not watch for other processes' changes.
    func openStore() throws -> EKEventStore {
        let path = try storePath()
        do {
            return try EKEventStore(storePath: path, manifest: try manifest(), watchingChanges: false)
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("ical: \(error)")
            throw ExitCode(1)
        }
    }

    /// Makes sure the app has `level` access to `entityType` (see ``open(needing:to:for:)``).
    func require(_ level: NeededAccess, to entityType: EKEntityType, on store: EKEventStore, for action: String) throws {
        try AppAccess(manifest: manifest(), storeArgument: self.store).require(level, to: entityType, on: store, for: action)
    }

    /// The calendar with an identifier or title, among those the store shows.
    func calendar(named name: String, in store: EKEventStore, for entityType: EKEntityType? = nil) throws -> EKCalendar {
        let candidates = (entityType.map { [$0] } ?? [.event, .reminder]).flatMap { store.calendars(for: $0) }
        if let match = candidates.first(where: { $0.calendarIdentifier == name }) ?? candidates.first(where: { $0.title == name })
            ?? candidates.first(where: { $0.title.lowercased() == name.lowercased() }) {
            return match
        }
        let known = candidates.map { "'\(TerminalText.line($0.title))' (\(TerminalText.line($0.calendarIdentifier)))" }.joined(separator: ", ")
        printError("ical: there is no calendar '\(TerminalText.line(name))'; the store has \(known.isEmpty ? "none" : known)")
        throw ExitCode(1)
    }
}

/// An app's access to one store, as a command checks it: asks when the user has not decided,
/// and says what is missing and how to grant it when the answer is no.
struct AppAccess {
    /// The app the command acts as.
    let manifest: AppManifest
    /// The store as the user named it, repeated in the advice (nil: the default store).
    let storeArgument: String?

    /// Makes sure the app has `level` access to `entityType`: asks (the system prompt, on a
    /// terminal) when the user has not decided; otherwise, or when the answer is no, prints
    /// what is missing and how to grant it, and exits 77.
    func require(_ level: NeededAccess, to entityType: EKEntityType, on store: EKEventStore, for action: String) throws {
        var status = store.authority.authorizationStatus(for: entityType)
        if status == .notDetermined {
            request(level, entityType, on: store)
            status = store.authority.authorizationStatus(for: entityType)
        }
        if !level.isSatisfied(by: store.authority.accessLevel(for: entityType)) {
            printError(guidance(level, entityType, action: action, status: status))
            throw ExitCode(exitNoPermission)
        }
    }

    private func request(_ level: NeededAccess, _ entityType: EKEntityType, on store: EKEventStore) {
        let semaphore = DispatchSemaphore(value: 0)
        let done: EKEventStoreRequestAccessCompletionHandler = { _, error in
            if let error { printError("ical: \(error)") }
            semaphore.signal()
        }
        switch (entityType, level) {
        case (.reminder, _): store.requestFullAccessToReminders(completion: done)
        case (.event, .writeOnly): store.requestWriteOnlyAccessToEvents(completion: done)
        case (.event, .full): store.requestFullAccessToEvents(completion: done)
        }
        semaphore.wait()
    }

    /// What an app without enough access is told.
    func guidance(_ level: NeededAccess, _ entityType: EKEntityType, action: String, status: EKAuthorizationStatus) -> String {
        let kind = entityType == .event ? "events" : "reminders"
        let key: AppManifest.UsageDescriptionKey = entityType == .reminder ? .remindersFullAccess
            : (level == .writeOnly ? .calendarsWriteOnlyAccess : .calendarsFullAccess)
        // The manifest's text is the app's own: one line each, bounded, control characters shown.
        let app = TerminalText.line(manifest.bundleIdentifier, maximumLength: 200)
        let name = TerminalText.line(manifest.displayName, maximumLength: 200)
        var lines = ["ical: \(action) needs \(level) access to \(kind); \(app) has \(status)."]
        if let usage = manifest.usageDescription(key) {
            lines.append("  \(name) says why (\(key.rawValue)): \(TerminalText.line(usage, maximumLength: 1000))")
        } else {
            lines.append("  \(name)'s Info.plist has no \(key.rawValue), so it cannot be asked for this access.")
        }
        switch status {
        case .restricted where !manifest.entitlements.allowsCalendarData:
            lines.append("  The app is sandboxed (\(AppEntitlements.appSandbox)) without \(AppEntitlements.calendars)"
                         + (manifest.entitlements.path.map { " in \($0)" } ?? "") + ": it gets no access to events or reminders and is never asked.")
            lines.append("  Add <key>\(AppEntitlements.calendars)</key><true/> to its .entitlements file.")
        case .restricted:
            lines.append("  A policy restricts this app (.openeventkit/policy.json): lift it with: ical privacy unrestrict \(shellQuoted(app))\(storeFlag)")
        case .writeOnly where entityType == .event && level == .full:
            lines.append("  Write-only access can add events but never read them, not even the ones it added.")
            fallthrough
        default:
            lines.append("  Grant it with: ical privacy grant \(shellQuoted(app)) \(grantFlag(level, entityType))\(storeFlag)")
        }
        return lines.joined(separator: "\n")
    }

    /// The `ical privacy grant` flag that gives `level` access to `entityType`.
    func grantFlag(_ level: NeededAccess, _ entityType: EKEntityType) -> String {
        entityType == .event ? "--events \(level == .writeOnly ? "write-only" : "full")" : "--reminders full"
    }

    /// ` --store DIR` when the store is not the default one.
    var storeFlag: String {
        storeArgument.map { " --store \(shellQuoted(TerminalText.line($0)))" } ?? ""
    }
}

/// The access a command needs.
enum NeededAccess: CustomStringConvertible {
    case writeOnly, full

    func isSatisfied(by level: AccessLevel) -> Bool {
        switch self {
        case .writeOnly: level >= .writeOnly
        case .full: level == .full
        }
    }

    var description: String { self == .writeOnly ? "write-only" : "full" }
}

/// A shell word: quoted when it has anything but safe characters.
func shellQuoted(_ text: String) -> String {
    let safe = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "/._-+=:@,%"))
    if !text.isEmpty && text.unicodeScalars.allSatisfy({ safe.contains($0) }) { return text }
    return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Reports progress on standard error when it is a terminal: `label 1234/5000`.
struct ProgressLine {
    let label: String
    let enabled = isatty(2) == 1
    private var last = Date.distantPast

    init(_ label: String) { self.label = label }

    mutating func update(_ done: Int, _ total: Int) {
        guard enabled, done == total || Date().timeIntervalSince(last) > 0.1 else { return }
        last = Date()
        FileHandle.standardError.write(Data("\r\(label) \(done)/\(total)\(done == total ? "\n" : "")".utf8))
    }
}
