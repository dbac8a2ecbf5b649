/// A STATUS value (RFC 5545 §3.8.1.11) of an event, to-do or journal; an open set.
///
/// The corresponding libical type is `enum icalproperty_status`.
public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The value, uppercased.
    public let rawValue: String
    /// Creates a status from its text in any case.
    public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
    public var description: String { rawValue }

    /// An event that may not happen.
    public static let tentative = Status(rawValue: "TENTATIVE")
    /// A confirmed event.
    public static let confirmed = Status(rawValue: "CONFIRMED")
    /// A cancelled event, to-do or journal.
    public static let cancelled = Status(rawValue: "CANCELLED")
    /// A to-do that needs action.
    public static let needsAction = Status(rawValue: "NEEDS-ACTION")
    /// A completed to-do.
    public static let completed = Status(rawValue: "COMPLETED")
    /// A to-do in progress.
    public static let inProcess = Status(rawValue: "IN-PROCESS")
    /// A draft journal entry.
    public static let draft = Status(rawValue: "DRAFT")
    /// A final journal entry.
    public static let final = Status(rawValue: "FINAL")
}

/// A TRANSP value (RFC 5545 §3.8.2.7): whether an event blocks time; an open set.
///
/// The corresponding libical type is `enum icalproperty_transp`.
public struct TimeTransparency: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The value, uppercased.
    public let rawValue: String
    /// Creates a value from its text in any case.
    public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
    public var description: String { rawValue }

    /// Blocks time on free/busy lookups (the default).
    public static let opaque = TimeTransparency(rawValue: "OPAQUE")
    /// Does not block time.
    public static let transparent = TimeTransparency(rawValue: "TRANSPARENT")
}

/// An ACTION value of a VALARM (RFC 5545 §3.8.6.1); an open set.
///
/// The corresponding libical type is `enum icalproperty_action`.
public struct AlarmAction: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The value, uppercased.
    public let rawValue: String
    /// Creates a value from its text in any case.
    public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
    public var description: String { rawValue }

    /// Play a sound.
    public static let audio = AlarmAction(rawValue: "AUDIO")
    /// Show a message.
    public static let display = AlarmAction(rawValue: "DISPLAY")
    /// Send an e-mail.
    public static let email = AlarmAction(rawValue: "EMAIL")
    /// Run a procedure (deprecated by RFC 5545).
    public static let procedure = AlarmAction(rawValue: "PROCEDURE")
}

/// A RANGE parameter value of RECURRENCE-ID (RFC 5545 §3.2.13); an open set.
///
/// The corresponding libical type is `enum icalparameter_range`.
public struct RecurrenceIdentifierRange: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The value, uppercased.
    public let rawValue: String
    /// Creates a value from its text in any case.
    public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
    public var description: String { rawValue }

    /// The override applies to this instance and all later ones.
    public static let thisAndFuture = RecurrenceIdentifierRange(rawValue: "THISANDFUTURE")
}

/// When a VALARM fires: a TRIGGER value (RFC 5545 §3.8.6.3).
///
/// The corresponding libical type is `struct icaltriggertype`.
public enum AlarmTrigger: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What a relative trigger is measured from (the RELATED parameter).
    public enum Related: String, Sendable, Hashable, Codable {
        /// The start of the event or to-do (the default).
        case start = "START"
        /// The end of the event, or the DUE of the to-do.
        case end = "END"
    }

    /// A duration from the start or end (`-PT15M`, `RELATED=END`).
    case relative(Duration, relatedTo: Related)
    /// An absolute UTC time (`VALUE=DATE-TIME`).
    case absolute(DateTime)

    public var description: String {
        switch self {
        case .relative(let duration, let related): return "\(duration) from \(related.rawValue)"
        case .absolute(let dateTime): return dateTime.description
        }
    }
}

/// One RDATE value (RFC 5545 §3.8.5.2): a DATE, a DATE-TIME or a PERIOD.
public enum RecurrenceDate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A DATE or DATE-TIME.
    case dateTime(DateTime)
    /// A PERIOD (`VALUE=PERIOD`).
    case period(Period)

    /// The start of the instance.
    public var start: DateTime {
        switch self {
        case .dateTime(let dateTime): return dateTime
        case .period(let period): return period.start
        }
    }

    /// The value as written in the property, without its TZID.
    public var iCalendarText: String {
        switch self {
        case .dateTime(let dateTime): return dateTime.iCalendarText
        case .period(let period): return period.iCalendarText
        }
    }

    public var description: String { iCalendarText }
}
