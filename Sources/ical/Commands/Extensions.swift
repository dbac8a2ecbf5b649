import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical extensions`: the virtual conference extensions the event editor offers.
    struct Extensions: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "extensions",
            abstract: "Register the virtual conference extensions the event editor offers.",
            discussion: """
                A virtual conference extension (EKVirtualConferenceProvider) is an executable
                of its own, declared by an Info.plist with Apple's NSExtension dictionary
                (NSExtensionPointIdentifier com.apple.calendar.virtualconference) and
                CFBundleExecutable, its path relative to the Info.plist's folder (or given
                with --executable). Once registered in the store, the event editor (ical ui
                edit-event) offers its room types when the user sets the location, runs it
                for the chosen one in a process of its own with no calendar access, and
                saves the conference on the event (RFC 7986 CONFERENCE properties).

                Examples:
                  ical extensions add samples/LessonRooms/Info.plist --executable .build/debug/LessonRooms
                  ical extensions list
                  ical extensions remove org.openeventkit.samples.LessonRooms
                """,
            subcommands: [Add.self, List.self, Remove.self])
    }
}

/// A `--store` option of a command that works on the store's system files (its extensions,
/// its suggestion inbox) rather than as an app: `ical extensions`, `ical suggestions`.
struct StoreFolderOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The store folder (else $OPENEVENTKIT_STORE, else the default location).", valueName: "dir"))
    var store: String?

    /// The store folder's path; `command` (such as `extensions add`) names the command in the error.
    func path(_ command: String) throws -> String {
        if let store, !store.isEmpty { return store }
        do {
            return try FolderStore.defaultLocation(environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("ical \(command): \(error.message); or pass --store DIR")
            throw ExitCode(1)
        }
    }
}

/// Runs a command's action, turning its error into `ical COMMAND: error` on standard error and exit 1.
func reportingFailure<T, Failure: Error & CustomStringConvertible>(_ command: String, _ body: () throws(Failure) -> T) throws -> T {
    do throws(Failure) { return try body() } catch {
        printError("ical \(command): \(error)")
        throw ExitCode(1)
    }
}

extension ICal.Extensions {
    /// `ical extensions add`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Register a virtual conference extension by its Info.plist.",
            discussion: """
                Registering again (the same CFBundleIdentifier) replaces the earlier entry.

                Examples:
                  ical extensions add samples/LessonRooms/Info.plist --executable .build/debug/LessonRooms
                  ical extensions add /opt/rooms/Info.plist
                """)

        @Argument(help: ArgumentHelp("The extension's Info.plist.", valueName: "Info.plist"))
        var manifest: String

        @Option(help: ArgumentHelp("The extension's executable (default: CFBundleExecutable beside the Info.plist).", valueName: "path"))
        var executable: String?

        @OptionGroup var storeOptions: StoreFolderOptions

        func run() throws {
            let registry = ConferenceExtensionRegistry(storeRoot: try storeOptions.path("extensions add"))
            let registered = try reportingFailure("extensions add") { () throws(ConferenceExtensionError) in
                let registered = try ConferenceExtensionRegistry.read(manifest: manifest, executable: executable)
                try registry.add(registered)
                return registered
            }
            print("Registered \(TerminalText.line(registered.name)) (\(registered.identifier)): \(TerminalText.line(registered.executable))")
        }
    }

    /// `ical extensions list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the registered virtual conference extensions.",
            discussion: """
                One line each: the name, the bundle identifier and the executable. With
                --room-types, each extension is run and its room types are listed under it.

                Examples:
                  ical extensions list
                  ical extensions list --room-types
                """)

        @Flag(name: .customLong("room-types"), help: "Run each extension and list its room types.")
        var roomTypes = false

        @OptionGroup var storeOptions: StoreFolderOptions

        func run() throws {
            let registry = ConferenceExtensionRegistry(storeRoot: try storeOptions.path("extensions list"))
            let all = try reportingFailure("extensions list") { () throws(ConferenceExtensionError) in try registry.extensions() }
            if all.isEmpty { print("No virtual conference extensions are registered (add one with: ical extensions add Info.plist).") }
            var failed = false
            for registered in all {
                print("\(TerminalText.line(registered.name))  \(registered.identifier)  \(TerminalText.line(registered.executable))")
                guard roomTypes else { continue }
                do throws(ConferenceExtensionError) {
                    for roomType in try ConferenceExtensionHost().roomTypes(of: registered) {
                        print("  \(TerminalText.line(roomType.title))  (\(TerminalText.line(roomType.identifier)))")
                    }
                } catch {
                    printError("ical extensions list: \(error)")
                    failed = true
                }
            }
            if failed { throw ExitCode(1) }
        }
    }

    /// `ical extensions remove`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Unregister a virtual conference extension.",
            discussion: """
                Events that already have a conference keep it.

                Examples:
                  ical extensions remove org.openeventkit.samples.LessonRooms
                """)

        @Argument(help: ArgumentHelp("The extension's bundle identifier.", valueName: "bundle-id"))
        var identifier: String

        @OptionGroup var storeOptions: StoreFolderOptions

        func run() throws {
            let registry = ConferenceExtensionRegistry(storeRoot: try storeOptions.path("extensions remove"))
            let removed = try reportingFailure("extensions remove") { () throws(ConferenceExtensionError) in try registry.remove(identifier) }
            guard removed else {
                printError("ical extensions remove: no extension \(identifier) is registered (see ical extensions list)")
                throw ExitCode(1)
            }
            print("Removed \(identifier).")
        }
    }
}
