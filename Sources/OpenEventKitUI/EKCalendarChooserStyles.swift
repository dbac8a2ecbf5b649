/// Whether the user may choose one calendar or several. The raw values are EventKitUI's.
public enum EKCalendarChooserSelectionStyle: Int, Sendable, Hashable {
    /// One calendar.
    case single = 0
    /// Any number of calendars.
    case multiple = 1
}

/// Which calendars the chooser lists. The raw values are EventKitUI's.
public enum EKCalendarChooserDisplayStyle: Int, Sendable, Hashable {
    /// Every calendar of the entity type.
    case allCalendars = 0
    /// Only the calendars the user can add items to.
    case writableCalendarsOnly = 1
}
