import Foundation
import Synchronization

/// The manifest of an app: who it is and what it says it uses calendars and reminders for.
///
/// Linux-only. On Apple's systems this is the app bundle's Info.plist; here it is an
/// Info.plist file (XML or binary property list) that the process names or that sits beside
/// its executable. The keys are Apple's:
///
/// | Key | Meaning |
/// |---|---|
/// | `CFBundleIdentifier` | The app's identity; required. Decisions are recorded under it. |
/// | `CFBundleDisplayName`, else `CFBundleName` | The name the prompt shows; else the identifier. |
/// | `NSCalendarsFullAccessUsageDescription` | Why the app wants full access to events. |
/// | `NSCalendarsWriteOnlyAccessUsageDescription` | Why the app wants to add events. |
/// | `NSRemindersFullAccessUsageDescription` | Why the app wants full access to reminders. |
/// | `NSCalendarsUsageDescription`, `NSRemindersUsageDescription` | The legacy keys, used only by `requestAccess(to:)` from a legacy app. |
/// | `NSContactsUsageDescription` | Read by EventKitUI for attendees. |
/// | `OEKBuiltForSDK` | OpenEventKit's own: `current` (the default) or `legacy`. |
///
/// The app's entitlements are not in the Info.plist: as in Xcode, they are a file of their
/// own beside it (`Lessons.entitlements`), read with the manifest (``AppEntitlements``).
///
/// `OEKBuiltForSDK` says which SDK generation the app was built for. A `legacy` app behaves as
/// an app linked against an SDK before iOS 17 / macOS 14 does on the new systems (TN3153):
/// `requestAccess(to: .event)` asks for write-only access, and both write-only and full access
/// read as `.authorized`. A `current` app cannot use `requestAccess(to:)` at all (TN3152).
///
/// The running process finds its manifest with ``main()``: in order, the manifest given to
/// ``useAsMain(_:)``, the file named by the `OPENEVENTKIT_MANIFEST` environment variable, and
/// `Info.plist` in the folder of the executable.
public struct AppManifest: Sendable, Hashable {
    /// The SDK generation an app was built for (the manifest's `OEKBuiltForSDK`).
    public enum SDKGeneration: String, Sendable, Hashable, Codable {
        /// Built for an SDK before iOS 17 / macOS 14 / watchOS 10: the legacy behaviour of TN3153.
        case legacy
        /// Built for the iOS 17 generation or later.
        case current
    }

    /// The usage-description keys EventKit reads from an Info.plist.
    public enum UsageDescriptionKey: String, Sendable, Hashable, CaseIterable, Codable {
        /// Why the app wants to read and write events.
        case calendarsFullAccess = "NSCalendarsFullAccessUsageDescription"
        /// Why the app wants to add events without reading them.
        case calendarsWriteOnlyAccess = "NSCalendarsWriteOnlyAccessUsageDescription"
        /// Why the app wants to read and write reminders.
        case remindersFullAccess = "NSRemindersFullAccessUsageDescription"
        /// Legacy: why the app wants calendar access.
        case calendars = "NSCalendarsUsageDescription"
        /// Legacy: why the app wants reminders access.
        case reminders = "NSRemindersUsageDescription"
        /// Why the app (through EventKitUI) reads contacts.
        case contacts = "NSContactsUsageDescription"
    }

    /// The name of OpenEventKit's own key for the SDK generation.
    public static let sdkGenerationKey = "OEKBuiltForSDK"
    /// The environment variable that names the manifest file.
    public static let environmentVariable = "OPENEVENTKIT_MANIFEST"

    /// `CFBundleIdentifier`.
    public var bundleIdentifier: String
    /// `CFBundleDisplayName`, else `CFBundleName`, else the bundle identifier.
    public var displayName: String
    /// The usage descriptions the manifest has (empty strings are left out).
    public var usageDescriptions: [UsageDescriptionKey: String]
    /// The SDK generation the app was built for.
    public var sdkGeneration: SDKGeneration
    /// The file the manifest was read from, if it was read from one.
    public var path: String?
    /// The entitlements the app declares (the `.entitlements` file beside its Info.plist);
    /// none for an unsandboxed app.
    public var entitlements: AppEntitlements

    /// Creates a manifest in memory.
    public init(bundleIdentifier: String, displayName: String? = nil,
                usageDescriptions: [UsageDescriptionKey: String] = [:],
                sdkGeneration: SDKGeneration = .current, path: String? = nil,
                entitlements: AppEntitlements = AppEntitlements()) {
        self.bundleIdentifier = bundleIdentifier
        self.entitlements = entitlements
        self.displayName = displayName ?? bundleIdentifier
        self.usageDescriptions = usageDescriptions.filter { !$0.value.trimmingWhitespaceAndNewlines().isEmpty }
        self.sdkGeneration = sdkGeneration
        self.path = path
    }

    /// The usage description for `key`, or nil when the manifest has none.
    public func usageDescription(_ key: UsageDescriptionKey) -> String? { usageDescriptions[key] }

    // MARK: Reading

    private struct PropertyList: Decodable {
        var CFBundleIdentifier: String?
        var CFBundleDisplayName: String?
        var CFBundleName: String?
        var NSCalendarsFullAccessUsageDescription: String?
        var NSCalendarsWriteOnlyAccessUsageDescription: String?
        var NSRemindersFullAccessUsageDescription: String?
        var NSCalendarsUsageDescription: String?
        var NSRemindersUsageDescription: String?
        var NSContactsUsageDescription: String?
        var OEKBuiltForSDK: String?
    }

    /// Reads a manifest from an Info.plist file (XML or binary).
    ///
    /// - Throws: ``AccessError`` naming the file: ``AccessError/Code/manifestNotFound`` when
    ///   there is no such file, ``AccessError/Code/manifestInvalid`` when it cannot be read or
    ///   is not a property list dictionary with string values for the keys above,
    ///   ``AccessError/Code/missingBundleIdentifier`` when it has no `CFBundleIdentifier`.
    public init(contentsOfFile path: String) throws(AccessError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw AccessError(.manifestNotFound, "no app manifest here", path: path,
                              remedy: "create an Info.plist with at least CFBundleIdentifier, or point \(Self.environmentVariable) at one")
        }
        guard !isFolder.boolValue else {
            throw AccessError(.manifestInvalid, "the app manifest is a folder, not an Info.plist file", path: path,
                              remedy: "name the Info.plist file itself")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw AccessError(.manifestInvalid, "cannot read the app manifest: \((error as NSError).localizedDescription)", path: path,
                              remedy: "check that the file is readable")
        }
        try self.init(propertyList: data, path: path)
        entitlements = try AppEntitlements(besideManifest: path)
    }

    /// Reads a manifest from the bytes of an Info.plist (XML or binary); `path` is only used
    /// in error messages and kept in ``path``.
    public init(propertyList data: Data, path: String? = nil) throws(AccessError) {
        let where_ = path ?? "<manifest>"
        let list: PropertyList
        do {
            list = try PropertyListDecoder().decode(PropertyList.self, from: data)
        } catch let DecodingError.typeMismatch(_, context) {
            let key = context.codingPath.last?.stringValue
            if let key {
                throw AccessError(.manifestInvalid, "\(key) must be a string", path: where_, key: key,
                                  remedy: "write it as <key>\(key)</key><string>...</string>")
            }
            throw AccessError(.manifestInvalid, "the app manifest is not a property list dictionary", path: where_,
                              remedy: "write an Info.plist whose top level is a <dict>")
        } catch {
            throw AccessError(.manifestInvalid, "the app manifest is not a readable property list (XML or binary)", path: where_,
                              remedy: "check it with `plutil -lint` or rewrite it as an XML property list")
        }
        func clean(_ value: String?) -> String? {
            guard let value = value?.trimmingWhitespaceAndNewlines(), !value.isEmpty else { return nil }
            return value
        }
        guard let identifier = clean(list.CFBundleIdentifier) else {
            throw AccessError(.missingBundleIdentifier, "the app manifest has no CFBundleIdentifier", path: where_,
                              key: "CFBundleIdentifier",
                              remedy: "add <key>CFBundleIdentifier</key><string>org.example.app</string>")
        }
        var generation = SDKGeneration.current
        if let value = clean(list.OEKBuiltForSDK) {
            guard let parsed = SDKGeneration(rawValue: value) else {
                throw AccessError(.manifestInvalid, "\(Self.sdkGenerationKey) is \"\(value)\"; it must be \"legacy\" or \"current\"",
                                  path: where_, key: Self.sdkGenerationKey, remedy: "write legacy or current, or leave the key out")
            }
            generation = parsed
        }
        var usage: [UsageDescriptionKey: String] = [:]
        usage[.calendarsFullAccess] = clean(list.NSCalendarsFullAccessUsageDescription)
        usage[.calendarsWriteOnlyAccess] = clean(list.NSCalendarsWriteOnlyAccessUsageDescription)
        usage[.remindersFullAccess] = clean(list.NSRemindersFullAccessUsageDescription)
        usage[.calendars] = clean(list.NSCalendarsUsageDescription)
        usage[.reminders] = clean(list.NSRemindersUsageDescription)
        usage[.contacts] = clean(list.NSContactsUsageDescription)
        self.init(bundleIdentifier: identifier,
                  displayName: clean(list.CFBundleDisplayName) ?? clean(list.CFBundleName),
                  usageDescriptions: usage, sdkGeneration: generation, path: path)
    }

    // MARK: The running process's manifest

    private static let explicitMain = Mutex<AppManifest?>(nil)

    /// Makes `manifest` the running process's manifest, ahead of the environment variable and
    /// the file beside the executable; nil goes back to looking for one. Call it before the
    /// first event store is made. Linux-only.
    public static func useAsMain(_ manifest: AppManifest?) {
        explicitMain.withLock { $0 = manifest }
    }

    /// Reads the Info.plist at `path` and makes it the running process's manifest. Linux-only.
    public static func useAsMain(contentsOfFile path: String) throws(AccessError) {
        let manifest = try AppManifest(contentsOfFile: path)
        useAsMain(manifest)
    }

    /// The running process's manifest: the one given to ``useAsMain(_:)``, else the file named
    /// by `OPENEVENTKIT_MANIFEST`, else `Info.plist` beside the executable.
    ///
    /// - Throws: ``AccessError`` naming the file that was looked for or read.
    public static func main() throws(AccessError) -> AppManifest {
        try discover(explicit: explicitMainManifest,
                     environment: ProcessInfo.processInfo.environment,
                     executablePath: currentExecutablePath())
    }

    /// The manifest given to ``useAsMain(_:)``, if any.
    package static var explicitMainManifest: AppManifest? { explicitMain.withLock { $0 } }

    /// The discovery order of ``main()`` with its inputs as parameters, for tests.
    package static func discover(explicit: AppManifest?, environment: [String: String],
                                 executablePath: String?) throws(AccessError) -> AppManifest {
        if let explicit { return explicit }
        if let path = environment[environmentVariable], !path.isEmpty {
            return try AppManifest(contentsOfFile: path)
        }
        guard let executablePath, let slash = executablePath.lastIndex(of: "/") else {
            throw AccessError(.manifestNotFound, "no app manifest: the executable's folder is unknown and \(environmentVariable) is not set",
                              remedy: "set \(environmentVariable) to the app's Info.plist, or call AppManifest.useAsMain(contentsOfFile:)")
        }
        let beside = String(executablePath[..<slash]) + "/Info.plist"
        guard FileManager.default.fileExists(atPath: beside) else {
            throw AccessError(.manifestNotFound, "no app manifest: there is no Info.plist beside the executable and \(environmentVariable) is not set",
                              path: beside,
                              remedy: "put the app's Info.plist there, set \(environmentVariable), or call AppManifest.useAsMain(contentsOfFile:)")
        }
        return try AppManifest(contentsOfFile: beside)
    }

    /// The running executable's path (`/proc/self/exe`), or nil when it cannot be read.
    package static func currentExecutablePath() -> String? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return CommandLine.arguments.first.flatMap { $0.hasPrefix("/") ? $0 : nil }
    }
}
