import ArgumentParser
import Foundation
import OpenEventKit
import OpenEventKitBroker

extension ICal {
    /// `ical run`: an app in its sandbox, reaching calendars only through the broker.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run an app sandboxed: calendars only through the broker, at the app's access level.",
            discussion: """
                The app runs under Landlock (Linux 6.12 or later: ABI 6): it can read the system \
                (/usr, /etc, the Swift runtime), its own folder, and read and write its container \
                ($XDG_DATA_HOME/openeventkit-apps/BUNDLE-ID, its HOME and TMPDIR); it cannot open \
                the store, the index, the authorization records or another app's container. \
                OpenEventKit in the app talks to the store's broker (started when none runs; it \
                exits when idle) over a socket this command hands it, and the broker applies the \
                level the user gave the app named by --app. Prompts and the event editor show on \
                this terminal. Where Landlock is missing the command refuses (exit 78) and runs \
                nothing. The exit status is the app's.
                """)

        @Option(help: ArgumentHelp("The app's manifest (Info.plist): who the app is, to the broker.", valueName: "info-plist"))
        var app: String

        @Option(help: ArgumentHelp("The store folder (else $OPENEVENTKIT_STORE, else $XDG_DATA_HOME/openeventkit).", valueName: "dir"))
        var store: String?

        @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The program and its arguments (after --).", valueName: "program"))
        var command: [String] = []

        func run() throws {
            let command = self.command.first == "--" ? Array(self.command.dropFirst()) : self.command
            guard let program = command.first else {
                printError("ical run: name the program to run, after --: ical run --app Info.plist -- ./MyApp")
                throw ExitCode(64)
            }
            let environment = ProcessInfo.processInfo.environment
            let storeRoot: String
            if let store, !store.isEmpty {
                storeRoot = store
            } else {
                do { storeRoot = try FolderStore.defaultLocation(environment: environment) } catch {
                    printError("ical run: \(error.message); or pass --store DIR")
                    throw ExitCode(1)
                }
            }
            let launcher = AppLauncher(manifestPath: app, program: program, arguments: Array(command.dropFirst()),
                                       storeRoot: storeRoot, icalPath: Self.executablePath(), environment: environment)
            let status: Int32
            do {
                status = try launcher.run()
            } catch let error as SandboxError {
                printError("ical run: \(error)")
                throw ExitCode(error.code == .landlockUnavailable || error.code == .landlockTooOld ? 78 : 1)
            } catch {
                printError("ical run: \(error)")
                throw ExitCode(1)
            }
            if status != 0 { throw ExitCode(status) }
        }

        /// This `ical`'s executable file (the broker and the UI helpers are this program too).
        static func executablePath() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        }
    }

    /// `ical broker`: the trusted process that owns a store for sandboxed apps.
    struct Broker: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a store to the apps ical run starts (started by ical run when needed).",
            discussion: """
                One broker per store and user. It listens on an abstract Unix socket that no \
                sandboxed app can reach, takes launches only from ical itself (same user, same \
                executable), and serves each app at the access level of the manifest it was \
                launched with. It exits after --idle-timeout seconds without apps.
                """)

        @Option(help: ArgumentHelp("The store folder (else $OPENEVENTKIT_STORE, else $XDG_DATA_HOME/openeventkit).", valueName: "dir"))
        var store: String?

        @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds without apps before the broker exits (default: 60).", valueName: "seconds"))
        var idleTimeout: Double = 60

        @Flag(help: "Log connections on standard error.")
        var verbose = false

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            let root: String
            if let store, !store.isEmpty { root = store } else {
                do { root = try FolderStore.defaultLocation(environment: environment) } catch {
                    printError("ical broker: \(error.message); or pass --store DIR")
                    throw ExitCode(1)
                }
            }
            let folder: FolderStore
            do { folder = try FolderStore.open(at: root) } catch {
                printError("ical broker: cannot open the store: \(error.message)")
                throw ExitCode(1)
            }
            let verbose = self.verbose
            let daemon = BrokerDaemon(store: folder, idleTimeout: max(1, idleTimeout)) { line in
                if verbose { printError(line) }
            }
            do { try daemon.run() } catch {
                if error.alreadyRunning { printError("ical broker: \(error)"); return }
                printError("ical broker: \(error)")
                throw ExitCode(1)
            }
        }
    }
}
