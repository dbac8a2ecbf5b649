import Foundation
import ICalKit

/// An error about access that EventKit has no code for: the app's manifest, a request the
/// manifest does not allow, or the store's records of the user's decisions.
///
/// Linux-only. Where EventKit has a code (a save without access is
/// ``EKError/Code/eventStoreNotAuthorized``), the store throws ``EKError`` instead.
/// ``description`` says what went wrong, the file involved and what to do.
public struct AccessError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The kind of problem: an open set, so a new code never breaks a `switch` elsewhere.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// No manifest was found where the process looks for one.
        public static let manifestNotFound = Code(rawValue: "manifestNotFound")
        /// The manifest exists but cannot be read, or is not a property list of the expected shape.
        public static let manifestInvalid = Code(rawValue: "manifestInvalid")
        /// The manifest has no `CFBundleIdentifier` string.
        public static let missingBundleIdentifier = Code(rawValue: "missingBundleIdentifier")
        /// A request needs a usage-description key that the manifest lacks; ``AccessError/key`` names it.
        public static let missingUsageDescription = Code(rawValue: "missingUsageDescription")
        /// A sandboxed app lacks the calendars entitlement (``AppEntitlements``); ``AccessError/key`` names it.
        public static let missingEntitlement = Code(rawValue: "missingEntitlement")
        /// `requestAccess(to:)` from an app built for the current SDK generation (TN3152).
        public static let legacyRequestNotSupported = Code(rawValue: "legacyRequestNotSupported")
        /// `authorizations.json` or `policy.json` cannot be understood.
        public static let corruptRecords = Code(rawValue: "corruptRecords")
        /// The records were written by a newer version of OpenEventKit.
        public static let unsupportedRecordsFormat = Code(rawValue: "unsupportedRecordsFormat")
        /// A file could not be read or written (the message gives the system's reason).
        public static let io = Code(rawValue: "io")

        /// Matches an error against a code in `catch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? AccessError)?.code == code
        }
    }

    /// The kind of problem.
    public var code: Code
    /// What went wrong, for a person.
    public var message: String
    /// The file involved, when there is one.
    public var path: String?
    /// The manifest key involved, when there is one (the missing usage-description key).
    public var key: String?
    /// What to do about it.
    public var remedy: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String? = nil, key: String? = nil, remedy: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.key = key
        self.remedy = remedy
    }

    /// The same as ``description``, so `localizedDescription` says what went wrong.
    public var errorDescription: String? { description }

    /// `PATH: MESSAGE; REMEDY`, on one line and safe for a terminal: a path or a manifest's
    /// value quoted in the message shows its control characters as ``TerminalText`` escapes.
    public var description: String {
        var text = path.map { "\($0): " } ?? ""
        text += message
        if let remedy { text += "; \(remedy)" }
        return TerminalText.line(text)
    }
}
