/// The kind of account a source is. Raw values are Apple's.
public enum EKSourceType: Int, Sendable, Hashable, Codable {
    case local = 0
    case exchange = 1
    case calDAV = 2
    case mobileMe = 3
    case subscribed = 4
    case birthdays = 5
}

/// The kind of calendar. Raw values are Apple's.
public enum EKCalendarType: Int, Sendable, Hashable, Codable {
    case local = 0
    case calDAV = 1
    case exchange = 2
    case subscription = 3
    case birthday = 4
}

/// The availability values a calendar's events may use. Raw values are Apple's.
public struct EKCalendarEventAvailabilityMask: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let busy = EKCalendarEventAvailabilityMask(rawValue: 1)
    public static let free = EKCalendarEventAvailabilityMask(rawValue: 2)
    public static let tentative = EKCalendarEventAvailabilityMask(rawValue: 4)
    public static let unavailable = EKCalendarEventAvailabilityMask(rawValue: 8)
}

/// How an event counts for free/busy scheduling: `TRANSP` and
/// `X-MICROSOFT-CDO-BUSYSTATUS` in iCalendar. Raw values are Apple's.
public enum EKEventAvailability: Int, Sendable, Hashable, Codable {
    case notSupported = -1
    case busy = 0
    case free = 1
    case tentative = 2
    case unavailable = 3
}

/// An event's `STATUS`. Raw values are Apple's.
public enum EKEventStatus: Int, Sendable, Hashable, Codable {
    /// No STATUS property.
    case none = 0
    /// `CONFIRMED`.
    case confirmed = 1
    /// `TENTATIVE`.
    case tentative = 2
    /// `CANCELLED`.
    case canceled = 3
}

/// An attendee's `ROLE`. Raw values are Apple's.
public enum EKParticipantRole: Int, Sendable, Hashable, Codable {
    case unknown = 0
    case required = 1
    case optional = 2
    case chair = 3
    case nonParticipant = 4
}

/// An attendee's `PARTSTAT`. Raw values are Apple's.
public enum EKParticipantStatus: Int, Sendable, Hashable, Codable {
    case unknown = 0
    case pending = 1
    case accepted = 2
    case declined = 3
    case tentative = 4
    case delegated = 5
    case completed = 6
    case inProcess = 7
}

/// An attendee's `CUTYPE`. Raw values are Apple's.
public enum EKParticipantType: Int, Sendable, Hashable, Codable {
    case unknown = 0
    case person = 1
    case room = 2
    case resource = 3
    case group = 4
}

/// An attendee's `SCHEDULE-STATUS` (RFC 6638). Raw values are Apple's.
public enum EKParticipantScheduleStatus: Int, Sendable, Hashable, Codable {
    case none = 0
    case pending = 1
    case sent = 2
    case delivered = 3
    case recipientNotRecognized = 4
    case noPrivileges = 5
    case deliveryFailed = 6
    case cannotDeliver = 7
    case recipientNotAllowed = 8
}

/// The unit of a recurrence rule (`FREQ`). Raw values are Apple's.
public enum EKRecurrenceFrequency: Int, Sendable, Hashable, Codable {
    case daily = 0
    case weekly = 1
    case monthly = 2
    case yearly = 3
}

/// A day of the week, Sunday first. Raw values are Apple's.
public enum EKWeekday: Int, Sendable, Hashable, Codable, CaseIterable {
    case sunday = 1
    case monday = 2
    case tuesday = 3
    case wednesday = 4
    case thursday = 5
    case friday = 6
    case saturday = 7
}

/// When a location alarm fires. Raw values are Apple's.
public enum EKAlarmProximity: Int, Sendable, Hashable, Codable {
    case none = 0
    case enter = 1
    case leave = 2
}

/// What an alarm does (`ACTION`). Raw values are Apple's.
public enum EKAlarmType: Int, Sendable, Hashable, Codable {
    case display = 0
    case audio = 1
    case procedure = 2
    case email = 3
}

/// The named reminder priorities. Raw values are Apple's.
public enum EKReminderPriority: UInt, Sendable, Hashable, Codable {
    case none = 0
    case high = 1
    case medium = 5
    case low = 9
}
