/// How the user left the event editor, as ``EKEventEditViewDelegate`` is told.
///
/// The raw values are EventKitUI's.
public enum EKEventEditViewAction: Int, Sendable, Hashable {
    /// The user canceled: nothing was saved or deleted.
    case canceled = 0
    /// The user saved the event (the app is not told what was saved).
    case saved = 1
    /// The user deleted the event.
    case deleted = 2

    /// The old spelling of ``canceled``.
    @available(*, deprecated, renamed: "canceled")
    public static var cancelled: EKEventEditViewAction { .canceled }
}
