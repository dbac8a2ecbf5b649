import Foundation
import OpenEventKit

/// A phrase the system can show and speak, with the app's identifier for it (Intents'
/// `INSpeakableString`). For a reservation it is the reference that ties later donations
/// (updates, a cancellation) to the same suggestion.
open class INSpeakableString: NSObject, @unchecked Sendable {
    /// The app's identifier of the phrase; nil when made from the phrase alone.
    public let vocabularyIdentifier: String?
    /// The phrase, such as "Dinner at Caffè Macs".
    public let spokenPhrase: String
    /// How to pronounce it; not used on Linux.
    public let pronunciationHint: String?

    /// A phrase with the app's identifier for it.
    public init(vocabularyIdentifier: String, spokenPhrase: String, pronunciationHint: String?) {
        self.vocabularyIdentifier = vocabularyIdentifier
        self.spokenPhrase = spokenPhrase
        self.pronunciationHint = pronunciationHint
        super.init()
    }

    /// A phrase without an identifier.
    public init(spokenPhrase: String) {
        self.vocabularyIdentifier = nil
        self.spokenPhrase = spokenPhrase
        self.pronunciationHint = nil
        super.init()
    }
}

/// A span given by date components (Intents' `INDateComponentsRange`).
open class INDateComponentsRange: NSObject, @unchecked Sendable {
    /// The start; nil when open.
    public let startDateComponents: DateComponents?
    /// The end; nil when open.
    public let endDateComponents: DateComponents?

    /// A range from `start` to `end`.
    public init(start startDateComponents: DateComponents?, end endDateComponents: DateComponents?) {
        self.startDateComponents = startDateComponents
        self.endDateComponents = endDateComponents
        super.init()
    }
}

/// A reservation's state (Intents' `INReservationStatus`; Apple's raw values).
public enum INReservationStatus: Int, Sendable, Hashable {
    case unknown = 0
    /// Cancelled: a donation with this status withdraws the pending suggestion.
    case canceled = 1
    case pending = 2
    case hold = 3
    case confirmed = 4
}

/// What the user can do with a reservation (Intents' `INReservationActionType`).
public enum INReservationActionType: Int, Sendable, Hashable {
    case unknown = 0
    case checkIn = 1
}

/// An action offered for a reservation (Intents' `INReservationAction`). Linux: kept for the
/// API's shape; suggestions do not show actions (there is no `NSUserActivity` to continue).
open class INReservationAction: NSObject, @unchecked Sendable {
    /// The kind of action.
    public let type: INReservationActionType
    /// When the action is possible.
    public let validDuration: INDateComponentsRange
    /// The activity that performs it.
    public let userActivity: NSUserActivity

    /// An action of a type, valid for a span, performed by an activity.
    public init(type: INReservationActionType, validDuration: INDateComponentsRange, userActivity: NSUserActivity) {
        self.type = type
        self.validDuration = validDuration
        self.userActivity = userActivity
        super.init()
    }
}

/// A reservation (Intents' abstract `INReservation`); donate a subclass.
open class INReservation: NSObject, @unchecked Sendable {
    /// The reference that identifies the reservation across donations.
    public let itemReference: INSpeakableString
    /// The provider's reservation number.
    public let reservationNumber: String?
    /// When it was booked.
    public let bookingTime: Date?
    /// Its state; `.canceled` withdraws the suggestion.
    public let reservationStatus: INReservationStatus
    /// The name it is booked under.
    public let reservationHolderName: String?
    /// What the user can do with it.
    public let actions: [INReservationAction]?
    /// A link to the reservation in the app or on the web.
    public let url: URL?

    init(itemReference: INSpeakableString, reservationNumber: String?, bookingTime: Date?, reservationStatus: INReservationStatus,
         reservationHolderName: String?, actions: [INReservationAction]?, url: URL?) {
        self.itemReference = itemReference
        self.reservationNumber = reservationNumber
        self.bookingTime = bookingTime
        self.reservationStatus = reservationStatus
        self.reservationHolderName = reservationHolderName
        self.actions = actions
        self.url = url
        super.init()
    }
}

/// A table at a restaurant (Intents' `INRestaurantReservation`).
open class INRestaurantReservation: INReservation, @unchecked Sendable {
    /// When the table is reserved.
    public let reservationDuration: INDateComponentsRange
    /// How many people.
    public let partySize: NSNumber?
    /// The restaurant.
    public let restaurantLocation: CLPlacemark

    /// A restaurant reservation, with Intents' initializer.
    public init(itemReference: INSpeakableString, reservationNumber: String?, bookingTime: Date?, reservationStatus: INReservationStatus,
                reservationHolderName: String?, actions: [INReservationAction]?, url: URL?, reservationDuration: INDateComponentsRange,
                partySize: NSNumber?, restaurantLocation: CLPlacemark) {
        self.reservationDuration = reservationDuration
        self.partySize = partySize
        self.restaurantLocation = restaurantLocation
        super.init(itemReference: itemReference, reservationNumber: reservationNumber, bookingTime: bookingTime,
                   reservationStatus: reservationStatus, reservationHolderName: reservationHolderName, actions: actions, url: url)
    }
}
