/// An app's access to events or reminders.
///
/// Raw values are Apple's. `authorized` is the deprecated name of `fullAccess` (raw value 3);
/// apps built for an SDK before the iOS 17 generation see it for write-only access too.
public enum EKAuthorizationStatus: Int, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The user has not been asked yet.
    case notDetermined = 0
    /// Access is not allowed by policy, and the user cannot change that.
    case restricted = 1
    /// The user said no.
    case denied = 2
    /// Read and write access.
    case fullAccess = 3
    /// Create-only access to events.
    case writeOnly = 4

    /// Deprecated: check for `fullAccess` or `writeOnly` instead.
    @available(*, deprecated, message: "Check for fullAccess or writeOnly instead.")
    public static var authorized: EKAuthorizationStatus { .fullAccess }

    public var description: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .fullAccess: "fullAccess"
        case .writeOnly: "writeOnly"
        }
    }
}
