/// What the store lets an app do with one entity type.
///
/// The reported ``EKAuthorizationStatus`` and the enforced level are kept apart because they
/// differ for apps built for an SDK before the iOS 17 generation (TN3153): such an app reads
/// `.authorized` (raw value 3) while the store gives it write-only access.
package enum AccessLevel: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// No calendars, no items; every save fails.
    case none = 0
    /// Events only: new events may be saved; every fetch returns nothing; one virtual calendar.
    case writeOnly = 1
    /// Everything.
    case full = 2

    package static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String {
        switch self {
        case .none: "none"
        case .writeOnly: "write-only"
        case .full: "full"
        }
    }
}

/// The one place an ``EKEventStore`` asks what the running app may do.
///
/// Every store operation (fetch, save, remove, calendar listing and editing, commit) passes
/// through the store's authority before it touches the folder, so the access levels are
/// enforced by the store on every path, never by callers.
package protocol AccessAuthority: Sendable {
    /// The status the app sees for `entityType` (``EKEventStore/authorizationStatus(for:)``).
    func authorizationStatus(for entityType: EKEntityType) -> EKAuthorizationStatus
    /// The level the store enforces for `entityType` right now.
    func accessLevel(for entityType: EKEntityType) -> AccessLevel
    /// Called by the store on a fetch made under write-only access. The first such fetch may
    /// show the upgrade prompt once (TN3153); the result is the level from then on.
    func fetchAttemptedUnderWriteOnly(_ entityType: EKEntityType) -> AccessLevel
}

/// Full access to events and reminders: the trusted system helpers (`ical ui ...`) and tests
/// that exercise the model rather than the access rules.
package struct FullAccessAuthority: AccessAuthority {
    package init() {}
    package func authorizationStatus(for entityType: EKEntityType) -> EKAuthorizationStatus { .fullAccess }
    package func accessLevel(for entityType: EKEntityType) -> AccessLevel { .full }
    package func fetchAttemptedUnderWriteOnly(_ entityType: EKEntityType) -> AccessLevel { .full }
}

/// A fixed level per entity type, for tests of the enforcement matrix.
package struct FixedAccessAuthority: AccessAuthority {
    package var events: EKAuthorizationStatus
    package var reminders: EKAuthorizationStatus

    package init(events: EKAuthorizationStatus, reminders: EKAuthorizationStatus) {
        self.events = events
        self.reminders = reminders
    }

    package func authorizationStatus(for entityType: EKEntityType) -> EKAuthorizationStatus {
        entityType == .event ? events : reminders
    }

    package func accessLevel(for entityType: EKEntityType) -> AccessLevel {
        switch authorizationStatus(for: entityType) {
        case .fullAccess: .full
        case .writeOnly: entityType == .event ? .writeOnly : .none
        case .notDetermined, .restricted, .denied: .none
        }
    }

    package func fetchAttemptedUnderWriteOnly(_ entityType: EKEntityType) -> AccessLevel { accessLevel(for: entityType) }
}
