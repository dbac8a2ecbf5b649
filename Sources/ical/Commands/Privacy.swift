import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical privacy`: the Settings screen for apps' access to calendars and reminders.
    struct Privacy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "privacy",
            abstract: "See and change which apps may use your calendars and reminders.",
            discussion: """
                The decisions live in the store's .openeventkit/authorizations.json (mode
                0600); restrictions in .openeventkit/policy.json. Apps are named by the
                CFBundleIdentifier of their Info.plist. The store is --store DIR, else
                $OPENEVENTKIT_STORE, else $XDG_DATA_HOME/openeventkit, else
                ~/.local/share/openeventkit.

                Statuses: notDetermined (the app will be asked), denied, writeOnly (events
                only: the app may add events but sees none), fullAccess, restricted (by
                policy; the app is never asked and gets nothing).

                Examples:
                  ical privacy status
                  ical privacy status --app org.example.lessons
                  ical privacy grant org.example.lessons --events write-only
                  ical privacy grant org.example.planner --events full --reminders full
                  ical privacy revoke org.example.planner
                  ical privacy reset org.example.lessons
                  ical privacy restrict org.example.game --store ~/calendars
                  ical privacy request --app Lessons/Info.plist --events full
                """,
            subcommands: [Status.self, Grant.self, Revoke.self, Reset.self, Restrict.self, Unrestrict.self, Request.self])
    }
}

/// The store whose decisions a privacy command reads or changes.
struct PrivacyStoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The store folder (else $OPENEVENTKIT_STORE, else the default location).", valueName: "dir"))
    var store: String?

    /// The store's access files.
    func files() throws -> AccessRecordsFile {
        if let store, !store.isEmpty { return AccessRecordsFile(storeRoot: store) }
        do {
            return AccessRecordsFile(storeRoot: try FolderStore.defaultLocation(environment: ProcessInfo.processInfo.environment))
        } catch {
            printError("ical privacy: \(error.message); or pass --store DIR")
            throw ExitCode(1)
        }
    }
}

/// Runs a privacy action, turning an access error into a message on standard error and exit 1.
private func reportingErrors<T>(_ body: () throws(AccessError) -> T) throws -> T {
    do throws(AccessError) { return try body() } catch {
        printError("ical privacy: \(error)")
        throw ExitCode(1)
    }
}

/// Checks that a bundle identifier is a plain reverse-DNS name.
private func validateBundleIdentifier(_ identifier: String) throws {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_"))
    guard !identifier.isEmpty, identifier.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) else {
        throw ValidationError("'\(identifier)' is not a bundle identifier (letters, digits, '.', '-' and '_', such as org.example.app)")
    }
}

/// The time recorded with a decision: now, or `$ICAL_NOW` (as for `ical lessons`) in tests.
private func privacyNow() -> Date {
    Date(timeIntervalSince1970: Double(ICal.Lessons.now()))
}

extension ICal.Privacy {
    /// `ical privacy status`.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show every app's access, or one app's.",
            discussion: """
                One block per app, sorted by bundle identifier: its status for events and
                for reminders, when and how each was decided (prompt, upgradePrompt or
                settings), and whether it declined the upgrade from write-only. Apps that
                never asked and are not restricted are not listed unless named with --app.

                Examples:
                  ical privacy status
                  ical privacy status --app org.example.lessons --store ~/calendars
                  ical privacy status --app Lessons/Info.plist      (its entitlements too)

                An app whose manifest has a .entitlements file beside it that declares
                com.apple.security.app-sandbox without
                com.apple.security.personal-information.calendars is restricted whatever was
                decided: with --app Info.plist the status says so.
                """)

        @Option(help: ArgumentHelp("Show only this app: its bundle identifier, or its Info.plist (then its entitlements count too).",
                                   valueName: "bundle-id|Info.plist"))
        var app: String?

        @OptionGroup var storeOptions: PrivacyStoreOptions

        /// Whether --app names a manifest file rather than a bundle identifier.
        private var appIsManifest: Bool {
            guard let app else { return false }
            return app.hasSuffix(".plist") || app.contains("/")
        }

        func validate() throws { if let app, !appIsManifest { try validateBundleIdentifier(app) } }

        func run() throws {
            let files = try storeOptions.files()
            let (records, policy) = try reportingErrors { () throws(AccessError) in
                (try files.readAuthorizations(), try files.readPolicy())
            }
            var identifiers = Set(records.apps.keys).union(policy.restricted).sorted()
            var sandboxReason: String?
            if let app {
                if appIsManifest {
                    let manifest = try reportingErrors { () throws(AccessError) in try AppManifest(contentsOfFile: app) }
                    identifiers = [manifest.bundleIdentifier]
                    sandboxReason = manifest.entitlements.denialReason
                } else {
                    identifiers = [app]
                }
            }
            if identifiers.isEmpty {
                print("No app has asked for access yet.")
                return
            }
            for identifier in identifiers {
                // Recorded identifiers are the apps' own (from their manifests): one line each,
                // control characters shown (TerminalText).
                print(TerminalText.line(identifier, maximumLength: 200))
                let restricted = policy.isRestricted(identifier)
                for (label, type) in [("events:   ", EKEntityType.event), ("reminders:", .reminder)] {
                    let decision = records.decision(for: identifier, type)
                    var line = "  \(label) "
                    if let sandboxReason {
                        line += "restricted: \(sandboxReason)"
                        if let decision { line += " (\(decision.status) recorded)" }
                    } else if restricted {
                        line += "restricted by policy"
                        if let decision { line += " (\(decision.status) while unrestricted)" }
                    } else if let decision {
                        line += "\(decision.status) (\(decision.by), \(decision.decided.formatted(.iso8601))"
                        line += decision.upgradeDeclined ? ", upgrade declined)" : ")"
                    } else {
                        line += "notDetermined"
                    }
                    print(line)
                }
            }
        }
    }

    /// `ical privacy grant`.
    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grant",
            abstract: "Give an app access, as the Settings screen does.",
            discussion: """
                Records the decision as made in settings; the app is not asked. Reminders
                have no write-only level. A restricted app stays restricted until
                `ical privacy unrestrict`.

                Examples:
                  ical privacy grant org.example.lessons --events write-only
                  ical privacy grant org.example.planner --events full --reminders full
                """)

        enum EventsLevel: String, ExpressibleByArgument, CaseIterable {
            case full
            case writeOnly = "write-only"
        }

        enum RemindersLevel: String, ExpressibleByArgument, CaseIterable {
            case full
        }

        @Argument(help: ArgumentHelp("The app's bundle identifier (CFBundleIdentifier).", valueName: "bundle-id"))
        var app: String

        @Option(help: "Access to events.")
        var events: EventsLevel?

        @Option(help: "Access to reminders.")
        var reminders: RemindersLevel?

        @OptionGroup var storeOptions: PrivacyStoreOptions

        func validate() throws {
            try validateBundleIdentifier(app)
            guard events != nil || reminders != nil else {
                throw ValidationError("Say what to grant: --events full|write-only and/or --reminders full.")
            }
        }

        func run() throws {
            let files = try storeOptions.files()
            let now = privacyNow()
            var changes: [(EKEntityType, EKAuthorizationStatus)] = []
            if let events { changes.append((.event, events == .full ? .fullAccess : .writeOnly)) }
            if reminders != nil { changes.append((.reminder, .fullAccess)) }
            let app = app
            try reportingErrors { () throws(AccessError) in
                try files.updateAuthorizations { records in
                    for (type, status) in changes {
                        records.setDecision(AuthorizationDecision(status: status, decided: now, by: .settings), for: app, type)
                    }
                }
            }
            print("\(app): " + changes.map { "\($0.0 == .event ? "events" : "reminders") \($0.1)" }.joined(separator: ", "))
            if (try? files.readPolicy().isRestricted(app)) == true {
                printError("ical privacy: \(app) is restricted by policy; the grant applies once `ical privacy unrestrict \(app)` lifts it")
            }
        }
    }

    /// `ical privacy revoke`.
    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Take an app's access away (its status becomes denied).",
            discussion: """
                Without --events or --reminders both are revoked. A denied app is not asked
                again; `ical privacy reset` lets it ask again.

                Examples:
                  ical privacy revoke org.example.planner
                  ical privacy revoke org.example.planner --reminders
                """)

        @Argument(help: ArgumentHelp("The app's bundle identifier.", valueName: "bundle-id"))
        var app: String

        @Flag(help: "Revoke access to events.")
        var events = false

        @Flag(help: "Revoke access to reminders.")
        var reminders = false

        @OptionGroup var storeOptions: PrivacyStoreOptions

        func validate() throws { try validateBundleIdentifier(app) }

        func run() throws {
            let files = try storeOptions.files()
            let now = privacyNow()
            var types: [EKEntityType] = []
            if events || !reminders { types.append(.event) }
            if reminders || !events { types.append(.reminder) }
            let app = app
            try reportingErrors { () throws(AccessError) in
                try files.updateAuthorizations { records in
                    for type in types {
                        records.setDecision(AuthorizationDecision(status: .denied, decided: now, by: .settings), for: app, type)
                    }
                }
            }
            print("\(app): " + types.map { "\($0 == .event ? "events" : "reminders") denied" }.joined(separator: ", "))
        }
    }

    /// `ical privacy reset`.
    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Forget an app's decisions, or every app's, so they are asked again.",
            discussion: """
                The statuses go back to notDetermined; the next request shows the prompt.
                Restrictions are kept (see unrestrict).

                Examples:
                  ical privacy reset org.example.lessons
                  ical privacy reset
                """)

        @Argument(help: ArgumentHelp("The app's bundle identifier; every app when left out.", valueName: "bundle-id"))
        var app: String?

        @OptionGroup var storeOptions: PrivacyStoreOptions

        func validate() throws { if let app { try validateBundleIdentifier(app) } }

        func run() throws {
            let files = try storeOptions.files()
            let app = app
            // Nothing to forget in a store that has no decisions: do not create one.
            guard FileManager.default.fileExists(atPath: files.authorizationsPath) else {
                print(app.map { "\($0): nothing was decided" } ?? "Nothing was decided.")
                return
            }
            let count = try reportingErrors { () throws(AccessError) in
                try files.updateAuthorizations { records -> Int in
                    if let app {
                        return records.apps.removeValue(forKey: app) == nil ? 0 : 1
                    }
                    defer { records.apps = [:] }
                    return records.apps.count
                }
            }
            if let app {
                print(count == 0 ? "\(app): nothing was decided" : "\(app): reset; it will be asked again")
            } else {
                print("Reset \(count) app\(count == 1 ? "" : "s"); they will be asked again.")
            }
        }
    }

    /// `ical privacy restrict`.
    struct Restrict: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restrict",
            abstract: "Restrict an app by policy: no access, never asked, whatever was decided.",
            discussion: """
                Examples:
                  ical privacy restrict org.example.game
                """)

        @Argument(help: ArgumentHelp("The app's bundle identifier.", valueName: "bundle-id"))
        var app: String

        @OptionGroup var storeOptions: PrivacyStoreOptions

        func validate() throws { try validateBundleIdentifier(app) }

        func run() throws {
            let files = try storeOptions.files()
            let app = app
            try reportingErrors { () throws(AccessError) in try files.updatePolicy { $0.setRestricted(app, true) } }
            print("\(app): restricted")
        }
    }

    /// `ical privacy unrestrict`.
    struct Unrestrict: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unrestrict",
            abstract: "Lift an app's restriction; its recorded decisions apply again.",
            discussion: """
                Examples:
                  ical privacy unrestrict org.example.game
                """)

        @Argument(help: ArgumentHelp("The app's bundle identifier.", valueName: "bundle-id"))
        var app: String

        @OptionGroup var storeOptions: PrivacyStoreOptions

        func validate() throws { try validateBundleIdentifier(app) }

        func run() throws {
            let files = try storeOptions.files()
            let app = app
            guard FileManager.default.fileExists(atPath: files.policyPath) else {
                print("\(app): not restricted")
                return
            }
            try reportingErrors { () throws(AccessError) in try files.updatePolicy { $0.setRestricted(app, false) } }
            print("\(app): not restricted")
        }
    }

    /// `ical privacy request`.
    struct Request: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "request",
            abstract: "Ask for access as an app would, showing the system prompt on the terminal.",
            discussion: """
                Acts as the app whose Info.plist is given and makes the request its code
                would make; the prompt appears on the controlling terminal (/dev/tty) only
                when nothing is decided yet. Prints granted or not granted with the app's
                status; exits with 0 when granted, 1 otherwise. Without a terminal nothing
                is asked and nothing recorded. Useful to check what an app's users will
                see.

                Examples:
                  ical privacy request --app Lessons/Info.plist --events write-only
                  ical privacy request --app Planner/Info.plist --reminders full
                  ical privacy request --app Old/Info.plist --legacy events
                """)

        enum LegacyType: String, ExpressibleByArgument, CaseIterable {
            case events
            case reminders
        }

        @Option(help: ArgumentHelp("The app's manifest.", valueName: "Info.plist"))
        var app: String

        @Option(help: "Request access to events (requestFullAccessToEvents or requestWriteOnlyAccessToEvents).")
        var events: Grant.EventsLevel?

        @Option(help: "Request full access to reminders (requestFullAccessToReminders).")
        var reminders: Grant.RemindersLevel?

        @Option(help: "Make the deprecated requestAccess(to:) call.")
        var legacy: LegacyType?

        @OptionGroup var storeOptions: PrivacyStoreOptions

        func validate() throws {
            let count = [events != nil, reminders != nil, legacy != nil].filter { $0 }.count
            guard count == 1 else {
                throw ValidationError("Make one request: --events full|write-only, --reminders full or --legacy events|reminders.")
            }
        }

        func run() throws {
            let files = try storeOptions.files()
            let manifest = try reportingErrors { () throws(AccessError) in try AppManifest(contentsOfFile: app) }
            let request: AccessController.Request
            let type: EKEntityType
            switch (events, reminders, legacy) {
            case (.full?, _, _): (request, type) = (.fullAccessToEvents, .event)
            case (.writeOnly?, _, _): (request, type) = (.writeOnlyAccessToEvents, .event)
            case (_, .full?, _): (request, type) = (.fullAccessToReminders, .reminder)
            case (_, _, .events?): (request, type) = (.legacy(.event), .event)
            default: (request, type) = (.legacy(.reminder), .reminder)
            }
            let controller = AccessController(manifest: manifest, storeRoot: files.storeRoot, clock: { privacyNow() })
            let (granted, error) = controller.respond(to: request)
            if let error {
                printError("ical privacy: \(error)")
                throw ExitCode(1)
            }
            let status = (try? controller.currentStatus(for: type)).map { "\($0)" } ?? "unknown"
            print("\(TerminalText.line(manifest.bundleIdentifier, maximumLength: 200)): \(granted ? "granted" : "not granted") (\(type == .event ? "events" : "reminders") \(status))")
            if !granted { throw ExitCode(1) }
        }
    }
}
