// Seed fragment: Siri Event Suggestions, as the WWDC fragment donates a restaurant
// reservation. The imports are changed (Intents → OpenEventKitIntents, CoreLocation →
// OpenEventKit, whose CLLocation stand-in it uses); the rest is the fragment's.
import Foundation
import OpenEventKit
import OpenEventKitIntents

func donateReservation(startComponents: DateComponents, endComponents: DateComponents,
                       status: INReservationStatus = .confirmed) async throws {
    let spokenPhrase = "Dinner at Caffè Macs"
    let reservationReference = INSpeakableString(vocabularyIdentifier: "abc123", spokenPhrase: spokenPhrase, pronunciationHint: nil)
    let duration = INDateComponentsRange(start: startComponents, end: endComponents)
    let restaurantLocation = CLPlacemark(location: CLLocation(latitude: 37.3349, longitude: -122.0090), name: "Caffè Macs", postalAddress: nil)
    let reservation = INRestaurantReservation(itemReference: reservationReference, reservationNumber: "abc123", bookingTime: Date(),
                                              reservationStatus: status, reservationHolderName: "Tim", actions: nil, url: nil,
                                              reservationDuration: duration, partySize: 4, restaurantLocation: restaurantLocation)
    let intent = INGetReservationDetailsIntent(reservationContainerReference: reservationReference, reservationItemReferences: nil)
    let intentResponse = INGetReservationDetailsIntentResponse(code: .success, userActivity: nil)
    intentResponse.reservations = [reservation]
    let interaction = INInteraction(intent: intent, response: intentResponse)
    try await interaction.donate()
}
