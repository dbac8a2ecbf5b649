import Foundation
import OpenEventKit

/// What an ``EKEventViewController`` tells the app.
@MainActor
public protocol EKEventViewDelegate: NSObjectProtocol {
    /// The user finished with the viewer: done, responded to the invitation, or deleted the
    /// event.
    ///
    /// On Apple's systems the app dismisses the controller here; on Linux the viewer has
    /// already left the terminal when this is called. After ``EKEventViewAction/responded``
    /// or ``EKEventViewAction/deleted``, or an edit before Done, the store posts
    /// `EKEventStoreChanged`: fetch the event again (or call `refresh()` on it).
    func eventViewController(_ controller: EKEventViewController, didCompleteWith action: EKEventViewAction)
}
