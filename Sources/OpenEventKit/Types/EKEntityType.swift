/// The kinds of calendar item: events and reminders.
///
/// Raw values are Apple's: `event` is 0, `reminder` is 1.
public enum EKEntityType: UInt, Sendable, Hashable, Codable, CaseIterable {
    /// Events (`VEVENT`).
    case event = 0
    /// Reminders (`VTODO`).
    case reminder = 1
}

/// A set of entity types, as a calendar's `allowedEntityTypes` reports it.
///
/// Raw values are Apple's: `event` is 1, `reminder` is 2.
public struct EKEntityMask: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Events.
    public static let event = EKEntityMask(rawValue: 1 << 0)
    /// Reminders.
    public static let reminder = EKEntityMask(rawValue: 1 << 1)
}

/// How far a save or a remove on a recurring event reaches.
public enum EKSpan: Int, Sendable, Hashable, Codable {
    /// Only this occurrence (an override, or an EXDATE on remove).
    case thisEvent = 0
    /// This occurrence and every later one (the series is split here).
    case futureEvents = 1
}
