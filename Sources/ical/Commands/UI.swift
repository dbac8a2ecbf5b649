import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical ui`: the trusted helpers behind OpenEventKitUI.
    struct UI: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ui",
            abstract: "The system's event editor, event viewer and calendar chooser, on the terminal.",
            discussion: """
                These are the trusted helpers that OpenEventKitUI's EKEventEditViewController,
                EKEventViewController and EKCalendarChooser start when an app presents them.
                They open the store with full access, whatever the app's own access, talk to
                the user on the controlling terminal (/dev/tty, never standard input or
                output), and print on standard output only what the app may learn: the
                editor's or viewer's action, or the chooser's result. Without a terminal
                they cancel and say why on standard error. The app is named with --app-id (its CFBundleIdentifier) and --app-name.

                Examples:
                  ical ui edit-event --app-id org.example.lessons --app-name Lessons
                  ical ui edit-event --event lesson.ics --app-id org.example.lessons
                  ical ui choose-calendar --app-id org.example.lessons --selection multiple --done-button
                  ical ui view-event --app-id org.example.planner --event-identifier calendar/lesson.ics
                """,
            subcommands: [EditEvent.self, ViewEvent.self, ChooseCalendar.self])
    }
}

/// The store and the app a helper works for; shared by `ical ui edit-event` and
/// `ical ui choose-calendar`.
struct UIAppOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The store folder (else $OPENEVENTKIT_STORE, else $XDG_DATA_HOME/openeventkit).", valueName: "dir"))
    var store: String?

    @Option(name: .customLong("app-id"), help: ArgumentHelp("The bundle identifier of the app the helper works for.", valueName: "bundle-id"))
    var appID: String

    @Option(name: .customLong("app-name"), help: ArgumentHelp("The app's name, as the user knows it (default: the bundle identifier).", valueName: "name"))
    var appName: String?

    /// The name shown in the helper's header: the app's own text, so on one line, at most
    /// 200 characters, control characters shown (TerminalText).
    var displayName: String { TerminalText.line(appName.flatMap { $0.isEmpty ? nil : $0 } ?? appID, maximumLength: 200) }

    /// The store folder's path.
    func storePath(_ command: String) throws -> String {
        if let store, !store.isEmpty { return store }
        do {
            return try FolderStore.defaultLocation(environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("ical ui \(command): \(error.message); or pass --store DIR")
            throw ExitCode(1)
        }
    }

    /// The store with full access: the helper acts for the user, not for the app.
    func openStore(_ command: String) throws -> EKEventStore {
        let path = try storePath(command)
        do {
            return EKEventStore(backend: try FolderStore.open(at: path), authority: FullAccessAuthority())
        } catch {
            printError("ical ui \(command): cannot open the store: \(error.message)")
            throw ExitCode(1)
        }
    }

    /// The app's own access to `entityType`, as the user decided it (read, never changed).
    func appAccess(to entityType: EKEntityType, storePath: String) -> (level: AccessLevel, status: EKAuthorizationStatus) {
        let controller = AccessController(manifest: AppManifest(bundleIdentifier: appID, displayName: appName), storeRoot: storePath)
        return (controller.accessLevel(for: entityType), controller.authorizationStatus(for: entityType))
    }
}
