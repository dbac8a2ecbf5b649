/// How the user left the event viewer, as ``EKEventViewDelegate`` is told.
///
/// The raw values are EventKitUI's.
public enum EKEventViewAction: Int, Sendable, Hashable {
    /// The user closed the viewer (after editing the event, or not).
    case done = 0
    /// The user answered the invitation (accepted, maybe or declined), and the answer was saved.
    case responded = 1
    /// The user deleted the event.
    case deleted = 2
}
