import Foundation

/// The entitlements an app declares, as Apple's `.entitlements` property list does
/// (Linux-only: on Apple's systems they are signed into the app).
///
/// An app's entitlements are read from the one file whose name ends in `.entitlements` in the
/// folder of its Info.plist (`Lessons.entitlements` beside `Lessons/Info.plist`): the same
/// property list Xcode keeps for the app target, XML or binary, a dictionary whose calendar
/// keys are booleans. An app without such a file declares nothing: it is not sandboxed.
///
/// One rule of Apple's reads them: "To access Calendar data, all sandboxed macOS apps must
/// include the com.apple.security.personal-information.calendars entitlement." An app that
/// declares ``appSandbox`` but not ``calendars`` has no access to events or reminders,
/// whatever the user decided: its status reads `restricted`, a request fails with
/// ``AccessError/Code/missingEntitlement`` without prompting, and `ical privacy status`
/// says why. Unsandboxed apps are unaffected.
public struct AppEntitlements: Sendable, Hashable {
    /// `com.apple.security.app-sandbox`: the app runs in the App Sandbox.
    public static let appSandbox = "com.apple.security.app-sandbox"
    /// `com.apple.security.personal-information.calendars`: a sandboxed app may use the
    /// calendar database (events and reminders).
    public static let calendars = "com.apple.security.personal-information.calendars"
    /// The file name ending that marks an entitlements file.
    public static let fileExtension = "entitlements"

    /// The boolean entitlements declared, by key (other values are kept out).
    public var values: [String: Bool]
    /// The file they were read from, if any.
    public var path: String?

    /// Entitlements declared in memory; none (the default) is an unsandboxed app.
    public init(_ values: [String: Bool] = [:], path: String? = nil) {
        self.values = values
        self.path = path
    }

    /// Whether the app runs in the App Sandbox.
    public var isSandboxed: Bool { values[Self.appSandbox] == true }

    /// Whether the app may use calendars and reminders at all: unsandboxed, or sandboxed with
    /// the calendars entitlement.
    public var allowsCalendarData: Bool { !isSandboxed || values[Self.calendars] == true }

    /// Reads the entitlements that belong to the Info.plist at `manifestPath`: the one
    /// `*.entitlements` file beside it, or none.
    ///
    /// - Throws: ``AccessError/Code/manifestInvalid`` when there are several such files or
    ///   the file is not a property list dictionary.
    public init(besideManifest manifestPath: String) throws(AccessError) {
        let folder = (manifestPath as NSString).deletingLastPathComponent
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? [])
            .filter { $0.hasSuffix("." + Self.fileExtension) && !$0.hasPrefix(".") }.sorted()
        guard let name = names.first else {
            self.init()
            return
        }
        let path = folder.isEmpty ? name : folder + "/" + name
        guard names.count == 1 else {
            throw AccessError(.manifestInvalid, "there are \(names.count) entitlements files beside the app manifest (\(names.joined(separator: ", ")))",
                              path: path, remedy: "keep the app's one .entitlements file beside its Info.plist")
        }
        try self.init(contentsOfFile: path)
    }

    /// Reads an `.entitlements` property list (XML or binary).
    ///
    /// - Throws: ``AccessError/Code/manifestInvalid`` when it cannot be read or is not a
    ///   property list dictionary.
    public init(contentsOfFile path: String) throws(AccessError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw AccessError(.manifestInvalid, "cannot read the entitlements file", path: path, remedy: "check that the file is readable")
        }
        guard let list = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw AccessError(.manifestInvalid, "the entitlements file is not a property list dictionary", path: path,
                              remedy: "write it as Xcode does: <dict><key>\(Self.appSandbox)</key><true/>...</dict>")
        }
        var values: [String: Bool] = [:]
        for (key, value) in list {
            if let flag = value as? Bool { values[key] = flag }
        }
        for key in [Self.appSandbox, Self.calendars] where list[key] != nil && values[key] == nil {
            throw AccessError(.manifestInvalid, "\(key) must be a boolean", path: path, key: key,
                              remedy: "write <key>\(key)</key><true/> (or <false/>)")
        }
        self.init(values, path: path)
    }

    /// Why the app has no access to calendar data, or nil when it may have it.
    public var denialReason: String? {
        guard !allowsCalendarData else { return nil }
        return "the app is sandboxed (\(Self.appSandbox)) without \(Self.calendars)"
            + (path.map { " in \($0)" } ?? "") + ", so it gets no access to events or reminders and is never asked"
    }
}
