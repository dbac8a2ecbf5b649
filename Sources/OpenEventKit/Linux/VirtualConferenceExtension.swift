// Linux-only: virtual conference extensions as executables of their own.
//
// On Apple's systems a virtual conference provider is an app extension that Calendar loads.
// Here it is an executable whose main.swift hands its provider to
// `VirtualConferenceExtension.main(_:)`, declared by an Info.plist with Apple's `NSExtension`
// dictionary, registered in the store with `ical extensions add`, and run by the event editor
// in a process of its own, with no calendar access.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
import Foundation
import ICalKit

/// The entry point of a virtual conference extension's executable. Linux-only.
///
/// ```swift
/// // main.swift of the extension
/// import OpenEventKit
/// await VirtualConferenceExtension.main(LessonRoomsProvider())
/// ```
///
/// The editor runs the executable with one request as arguments and reads one JSON answer
/// from its standard output:
///
/// | Arguments | Answer |
/// |---|---|
/// | `room-types` | `{"roomTypes": [{"title": …, "identifier": …}]}` |
/// | `conference IDENTIFIER` | `{"title": …, "urlDescriptors": [{"title": …, "url": …}], "conferenceDetails": …}` |
///
/// An error the provider throws is written to standard error, with exit status 1; a request
/// the executable does not know exits with status 64.
public enum VirtualConferenceExtension {
    /// The extension point's identifier, as in Apple's `NSExtensionPointIdentifier`.
    public static let extensionPointIdentifier = "com.apple.calendar.virtualconference"

    /// Answers the request in the process's arguments with `provider`, then exits.
    public static func main(_ provider: EKVirtualConferenceProvider, arguments: [String] = CommandLine.arguments) async -> Never {
        let request = Array(arguments.dropFirst())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let data: Data
            switch request.first {
            case "room-types" where request.count == 1:
                let roomTypes = try await provider.fetchAvailableRoomTypes()
                data = try encoder.encode(RoomTypesAnswer(roomTypes: roomTypes.map { .init(title: $0.title, identifier: $0.identifier) }))
            case "conference" where request.count == 2:
                let conference = try await provider.fetchVirtualConference(identifier: request[1])
                data = try encoder.encode(ConferenceAnswer(conference))
            default:
                FileHandle.standardError.write(Data("usage: \(arguments.first ?? "extension") room-types | conference IDENTIFIER (run by the event editor; see `ical extensions --help`)\n".utf8))
                exit(64)
            }
            FileHandle.standardOutput.write(data + Data("\n".utf8))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(1)
        }
    }

    package struct RoomTypesAnswer: Codable, Sendable {
        package struct RoomType: Codable, Sendable {
            package var title: String
            package var identifier: String
        }
        package var roomTypes: [RoomType]
    }

    package struct ConferenceAnswer: Codable, Sendable {
        package struct Link: Codable, Sendable {
            package var title: String?
            package var url: String
        }
        package var title: String?
        package var urlDescriptors: [Link]
        package var conferenceDetails: String?

        init(_ conference: EKVirtualConferenceDescriptor) {
            title = conference.title
            urlDescriptors = conference.urlDescriptors.map { Link(title: $0.title, url: $0.url.absoluteString) }
            conferenceDetails = conference.conferenceDetails
        }

        /// The descriptor again; nil when a link is not a URL.
        package var descriptor: EKVirtualConferenceDescriptor? {
            var links: [EKVirtualConferenceURLDescriptor] = []
            for link in urlDescriptors {
                guard let url = URL(string: link.url), url.scheme != nil else { return nil }
                links.append(EKVirtualConferenceURLDescriptor(title: link.title, url: url))
            }
            return EKVirtualConferenceDescriptor(title: title, urlDescriptors: links, conferenceDetails: conferenceDetails)
        }
    }
}

/// A virtual conference extension registered in a store (`ical extensions add`). Linux-only.
package struct RegisteredConferenceExtension: Codable, Sendable, Hashable {
    /// The extension's `CFBundleIdentifier`.
    package var identifier: String
    /// `CFBundleDisplayName`, else `CFBundleName`, else the identifier.
    package var name: String
    /// The Info.plist, as an absolute path.
    package var manifest: String
    /// The executable, as an absolute path.
    package var executable: String
}

/// Why an extension could not be registered, found or run.
package struct ConferenceExtensionError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// The store's registered virtual conference extensions, in `.openeventkit/extensions.json`.
package struct ConferenceExtensionRegistry: Sendable {
    package let storeRoot: String
    package var file: String { storeRoot + "/.openeventkit/extensions.json" }

    package init(storeRoot: String) {
        self.storeRoot = storeRoot
    }

    /// The registered extensions, by name; none when the file does not exist.
    package func extensions() throws(ConferenceExtensionError) -> [RegisteredConferenceExtension] {
        guard FileManager.default.fileExists(atPath: file) else { return [] }
        guard let data = FileManager.default.contents(atPath: file), data.count <= 1 << 20,
              let all = try? JSONDecoder().decode([RegisteredConferenceExtension].self, from: data) else {
            throw ConferenceExtensionError("\(file) cannot be read as a list of extensions; remove it and add the extensions again")
        }
        return all
    }

    /// Reads an extension's Info.plist and checks it declares a virtual conference extension.
    ///
    /// - Parameter executable: the executable; nil for `CFBundleExecutable`, taken relative
    ///   to the Info.plist's folder.
    package static func read(manifest path: String, executable: String?) throws(ConferenceExtensionError) -> RegisteredConferenceExtension {
        let manifest = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let data = FileManager.default.contents(atPath: manifest) else {
            throw ConferenceExtensionError("\(manifest): no such file (an extension is declared by its Info.plist)")
        }
        guard let plist = (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any] else {
            throw ConferenceExtensionError("\(manifest): not a property list dictionary (XML or binary Info.plist)")
        }
        guard let identifier = plist["CFBundleIdentifier"] as? String, !identifier.isEmpty else {
            throw ConferenceExtensionError("\(manifest): no CFBundleIdentifier")
        }
        guard let declaration = plist["NSExtension"] as? [String: Any] else {
            throw ConferenceExtensionError("\(manifest): no NSExtension dictionary; a virtual conference extension declares NSExtensionPointIdentifier \(VirtualConferenceExtension.extensionPointIdentifier) in it")
        }
        let point = declaration["NSExtensionPointIdentifier"] as? String
        guard point == VirtualConferenceExtension.extensionPointIdentifier else {
            throw ConferenceExtensionError("\(manifest): NSExtensionPointIdentifier is \(point.map { "'\($0)'" } ?? "missing"), not \(VirtualConferenceExtension.extensionPointIdentifier)")
        }
        let name = [plist["CFBundleDisplayName"], plist["CFBundleName"]].compactMap { $0 as? String }.first { !$0.isEmpty } ?? identifier
        let folder = URL(fileURLWithPath: manifest).deletingLastPathComponent()
        let program: String
        if let executable {
            program = URL(fileURLWithPath: executable).standardizedFileURL.path
        } else if let name = plist["CFBundleExecutable"] as? String, !name.isEmpty {
            program = URL(fileURLWithPath: name, relativeTo: folder).standardizedFileURL.path
        } else {
            throw ConferenceExtensionError("\(manifest): no CFBundleExecutable; name the executable with --executable")
        }
        guard access(program, X_OK) == 0 else {
            throw ConferenceExtensionError("\(program) is not an executable file (build the extension first, or name it with --executable)")
        }
        return RegisteredConferenceExtension(identifier: identifier, name: name, manifest: manifest, executable: program)
    }

    /// Adds or replaces (same identifier) an extension.
    package func add(_ registered: RegisteredConferenceExtension) throws(ConferenceExtensionError) {
        var all = try extensions().filter { $0.identifier != registered.identifier }
        all.append(registered)
        try write(all)
    }

    /// Removes an extension; false when it was not registered.
    package func remove(_ identifier: String) throws(ConferenceExtensionError) -> Bool {
        let all = try extensions()
        guard all.contains(where: { $0.identifier == identifier }) else { return false }
        try write(all.filter { $0.identifier != identifier })
        return true
    }

    private func write(_ all: [RegisteredConferenceExtension]) throws(ConferenceExtensionError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let data = try encoder.encode(all.sorted { ($0.name, $0.identifier) < ($1.name, $1.identifier) })
            try FileManager.default.createDirectory(atPath: storeRoot + "/.openeventkit", withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw ConferenceExtensionError("cannot write \(file): \(error.localizedDescription)")
        }
    }
}

/// Runs registered extensions for the event editor: each request in a new process with no
/// calendar access (no store of the user's: `$XDG_DATA_HOME` is an empty folder of its own,
/// `$OPENEVENTKIT_STORE` unset, its own Info.plist as its manifest), in a session of its own
/// (no terminal to ask the user on), standard input empty, at most ``timeLimit`` seconds and
/// ``outputLimit`` bytes of answer.
package struct ConferenceExtensionHost: Sendable {
    package static let timeLimit: Double = 10
    package static let outputLimit = 1 << 20

    package init() {}

    /// The extension's room types.
    package func roomTypes(of registered: RegisteredConferenceExtension) throws(ConferenceExtensionError) -> [EKVirtualConferenceRoomTypeDescriptor] {
        let data = try run(registered, ["room-types"])
        guard let answer = try? JSONDecoder().decode(VirtualConferenceExtension.RoomTypesAnswer.self, from: data) else {
            throw ConferenceExtensionError("\(registered.name) answered something other than room types")
        }
        return answer.roomTypes.prefix(100).map { EKVirtualConferenceRoomTypeDescriptor(title: $0.title, identifier: $0.identifier) }
    }

    /// The conference the extension makes for a room type.
    package func conference(of registered: RegisteredConferenceExtension, roomType: EKVirtualConferenceRoomTypeIdentifier) throws(ConferenceExtensionError) -> EKVirtualConferenceDescriptor {
        let data = try run(registered, ["conference", roomType])
        guard let answer = try? JSONDecoder().decode(VirtualConferenceExtension.ConferenceAnswer.self, from: data),
              let descriptor = answer.descriptor else {
            throw ConferenceExtensionError("\(registered.name) answered something other than a conference with links")
        }
        guard !descriptor.urlDescriptors.isEmpty else { throw ConferenceExtensionError("\(registered.name) made a conference without a link to join") }
        return descriptor
    }

    private func run(_ registered: RegisteredConferenceExtension, _ arguments: [String]) throws(ConferenceExtensionError) -> Data {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("oek-extension-\(UUID().uuidString)")
        do { try FileManager.default.createDirectory(at: scratch.appendingPathComponent("data"), withIntermediateDirectories: true) } catch {
            throw ConferenceExtensionError("cannot make a folder for \(registered.name): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: scratch) }
        let output = scratch.appendingPathComponent("answer"), errors = scratch.appendingPathComponent("errors")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)

        var environment: [String: String] = [:]
        let inherited = ProcessInfo.processInfo.environment
        for key in ["PATH", "LANG", "LC_ALL", "TZ", "HOME"] { environment[key] = inherited[key] }
        environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data").path
        environment[AppManifest.environmentVariable] = registered.manifest

        // posix_spawn: a new session (no controlling terminal), standard input /dev/null, the
        // answer and errors into files.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_TRUNC, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors.path, O_WRONLY | O_TRUNC, 0)
        let attributes = SpawnAttributes(newSession: true)

        var pid: pid_t = 0
        let spawned = attributes.spawn(registered.executable, arguments: arguments,
                                       environment: environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" },
                                       actions: &actions, pid: &pid)
        guard spawned == 0 else {
            throw ConferenceExtensionError("cannot start \(registered.name) (\(registered.executable)): \(String(cString: strerror(spawned)))")
        }
        // Wait, at most the time limit; then end its whole session's process group.
        let deadline = Date().addingTimeInterval(Self.timeLimit)
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR {
                throw ConferenceExtensionError("cannot wait for \(registered.name): \(String(cString: strerror(errno)))")
            }
            if Date() >= deadline {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                throw ConferenceExtensionError("\(registered.name) did not answer within \(Int(Self.timeLimit)) seconds")
            }
            usleep(10_000)
        }
        let exited = status & 0x7f == 0
        let exitStatus = (status >> 8) & 0xff
        let size = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
        guard size <= Self.outputLimit else { throw ConferenceExtensionError("\(registered.name) answered more than 1 MiB") }
        guard exited && exitStatus == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8))?.prefix(500).trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let how = exited ? "exit status \(exitStatus)" : "signal \(status & 0x7f)"
            throw ConferenceExtensionError("\(registered.name) failed (\(how))\(message.isEmpty ? "" : ": \(TerminalText.line(message))")")
        }
        return (try? Data(contentsOf: output)) ?? Data()
    }
}
