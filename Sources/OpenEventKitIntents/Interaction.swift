import Foundation
import OpenEventKit

/// A request the app handled (Intents' abstract `INIntent`).
open class INIntent: NSObject, @unchecked Sendable {
    override init() {
        super.init()
    }
}

/// The app's answer to an intent (Intents' abstract `INIntentResponse`).
open class INIntentResponse: NSObject, @unchecked Sendable {
    /// The activity to continue in the app; not used on Linux.
    public let userActivity: NSUserActivity?

    init(userActivity: NSUserActivity?) {
        self.userActivity = userActivity
        super.init()
    }
}

/// "Show my reservation details" (Intents' `INGetReservationDetailsIntent`): the intent an
/// app donates, with its response, to suggest events for reservations.
open class INGetReservationDetailsIntent: INIntent, @unchecked Sendable {
    /// The reservation (or the booking that holds several).
    public let reservationContainerReference: INSpeakableString?
    /// The reservations inside the container.
    public let reservationItemReferences: [INSpeakableString]?

    /// An intent for a reservation container and its items.
    public init(reservationContainerReference: INSpeakableString?, reservationItemReferences: [INSpeakableString]?) {
        self.reservationContainerReference = reservationContainerReference
        self.reservationItemReferences = reservationItemReferences
        super.init()
    }
}

/// The outcome of an ``INGetReservationDetailsIntent`` (Intents' codes and raw values).
public enum INGetReservationDetailsIntentResponseCode: Int, Sendable, Hashable {
    case unspecified = 0
    case ready
    case inProgress
    case success
    case failure
    case failureRequiringAppLaunch
}

/// The app's answer with the reservations (Intents' `INGetReservationDetailsIntentResponse`).
open class INGetReservationDetailsIntentResponse: INIntentResponse, @unchecked Sendable {
    /// The outcome; only `.success` responses suggest events.
    public let code: INGetReservationDetailsIntentResponseCode
    /// The reservations to suggest.
    open var reservations: [INReservation]?

    /// A response with a code and an optional activity.
    public init(code: INGetReservationDetailsIntentResponseCode, userActivity: NSUserActivity?) {
        self.code = code
        super.init(userActivity: userActivity)
    }
}

/// An intent with its response, donated to the system (Intents' `INInteraction`).
///
/// Donating an ``INGetReservationDetailsIntent`` with a successful response puts each of its
/// reservations in the store's suggestion inbox, outside every calendar: the app needs no
/// calendar access and learns nothing of what the user does with it. A later donation with
/// the same reservation reference replaces the pending suggestion; a `.canceled` reservation
/// withdraws it. See <doc:EventSuggestions>.
open class INInteraction: NSObject, @unchecked Sendable {
    /// The intent.
    public let intent: INIntent
    /// The response.
    public let intentResponse: INIntentResponse?

    /// An interaction of an intent and its response.
    public init(intent: INIntent, response: INIntentResponse?) {
        self.intent = intent
        self.intentResponse = response
        super.init()
    }

    /// Donates the interaction; `completion` gets nil, or why the system did not take it (no
    /// app manifest, no store, a reservation without a start). Called on a background queue.
    open func donate(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        let error: (any Error)?
        do { try SuggestionDonation.donate(self); error = nil } catch let failure { error = failure }
        guard let completion else { return }
        DispatchQueue.global().async { completion(error) }
    }

    /// Donates the interaction; throws why the system did not take it.
    open func donate() async throws {
        try SuggestionDonation.donate(self)
    }
}
