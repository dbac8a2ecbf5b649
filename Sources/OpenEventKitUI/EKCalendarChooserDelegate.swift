import Foundation

/// What an ``EKCalendarChooser`` tells the app. Every method is optional (protocol-extension
/// defaults that do nothing stand in for Objective-C's `@optional`).
@MainActor
public protocol EKCalendarChooserDelegate: NSObjectProtocol {
    /// The user changed the selection (not called when the app sets
    /// ``EKCalendarChooser/selectedCalendars`` itself, as since the iOS 16 SDK).
    func calendarChooserSelectionDidChange(_ calendarChooser: EKCalendarChooser)
    /// The user chose Done.
    func calendarChooserDidFinish(_ calendarChooser: EKCalendarChooser)
    /// The user chose Cancel, or the chooser could not be shown (no access, no terminal).
    func calendarChooserDidCancel(_ calendarChooser: EKCalendarChooser)
}

extension EKCalendarChooserDelegate {
    /// Does nothing.
    public func calendarChooserSelectionDidChange(_ calendarChooser: EKCalendarChooser) {}
    /// Does nothing.
    public func calendarChooserDidFinish(_ calendarChooser: EKCalendarChooser) {}
    /// Does nothing.
    public func calendarChooserDidCancel(_ calendarChooser: EKCalendarChooser) {}
}
