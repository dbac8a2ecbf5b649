import Foundation
import ICalKit

/// The error domain of every EventKit error.
public let EKErrorDomain: String = "EKErrorDomain"

/// An EventKit error: a code from Apple's list and, on Linux, a message that says what
/// went wrong and, where there is one, the file involved.
///
/// `catch EKError.eventStoreNotAuthorized` works as it does with EventKit.
public struct EKError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// EventKit's error codes, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable, Codable {
        case eventNotMutable = 0
        case noCalendar = 1
        case noStartDate = 2
        case noEndDate = 3
        case datesInverted = 4
        case internalFailure = 5
        case calendarReadOnly = 6
        case durationGreaterThanRecurrence = 7
        case alarmGreaterThanRecurrence = 8
        case startDateTooFarInFuture = 9
        case startDateCollidesWithOtherOccurrence = 10
        case objectBelongsToDifferentStore = 11
        case invitesCannotBeMoved = 12
        case invalidSpan = 13
        case calendarHasNoSource = 14
        case calendarSourceCannotBeModified = 15
        case calendarIsImmutable = 16
        case sourceDoesNotAllowCalendarAddDelete = 17
        case recurringReminderRequiresDueDate = 18
        case structuredLocationsNotSupported = 19
        case reminderLocationsNotSupported = 20
        case alarmProximityNotSupported = 21
        case calendarDoesNotAllowEvents = 22
        case calendarDoesNotAllowReminders = 23
        case sourceDoesNotAllowReminders = 24
        case sourceDoesNotAllowEvents = 25
        case priorityIsInvalid = 26
        case invalidEntityType = 27
        case procedureAlarmsNotMutable = 28
        case eventStoreNotAuthorized = 29
        case osNotSupported = 30
        case invalidInviteReplyCalendar = 31
        case notificationsCollectionFlagNotSet = 32
        case sourceMismatch = 33
        case notificationCollectionMismatch = 34
        case notificationSavedWithoutCollection = 35
        case reminderAlarmContainsEmailOrUrl = 36
        case last = 37
    }

    /// The code.
    public var code: Code
    /// What went wrong, for a person.
    public var message: String
    /// The file involved, when there is one.
    public var path: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String = "", path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// The domain, as NSError bridging gives it.
    public static var errorDomain: String { EKErrorDomain }

    public static let eventNotMutable = Code.eventNotMutable
    public static let noCalendar = Code.noCalendar
    public static let noStartDate = Code.noStartDate
    public static let noEndDate = Code.noEndDate
    public static let datesInverted = Code.datesInverted
    public static let internalFailure = Code.internalFailure
    public static let calendarReadOnly = Code.calendarReadOnly
    public static let objectBelongsToDifferentStore = Code.objectBelongsToDifferentStore
    public static let invalidSpan = Code.invalidSpan
    public static let calendarHasNoSource = Code.calendarHasNoSource
    public static let calendarIsImmutable = Code.calendarIsImmutable
    public static let sourceDoesNotAllowCalendarAddDelete = Code.sourceDoesNotAllowCalendarAddDelete
    public static let recurringReminderRequiresDueDate = Code.recurringReminderRequiresDueDate
    public static let calendarDoesNotAllowEvents = Code.calendarDoesNotAllowEvents
    public static let calendarDoesNotAllowReminders = Code.calendarDoesNotAllowReminders
    public static let priorityIsInvalid = Code.priorityIsInvalid
    public static let invalidEntityType = Code.invalidEntityType
    public static let eventStoreNotAuthorized = Code.eventStoreNotAuthorized

    /// `EKErrorDomain 29: message (path)`, on one line and safe for a terminal: a title or a
    /// path quoted in the message shows its control characters as ICalKit `TerminalText`
    /// escapes (`\u{1B}`).
    public var description: String {
        var text = "\(EKErrorDomain) \(code.rawValue) (\(code))"
        if !message.isEmpty { text += ": \(message)" }
        if let path { text += " [\(path)]" }
        return TerminalText.line(text)
    }

    public var errorDescription: String? { description }
}

extension EKError.Code {
    /// Matches an error against a code in `catch` patterns.
    public static func ~= (code: EKError.Code, error: any Error) -> Bool {
        (error as? EKError)?.code == code
    }
}
