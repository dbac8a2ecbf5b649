// Seed fragment: Siri Event Suggestions, a restaurant reservation donated with the calls the
// issue lists (INRestaurantReservation, INGetReservationDetailsIntent and its response,
// INInteraction(intent:response:).donate()), written in Apple's published shape: the seed
// document itself is not in the repository. Only the imports are Linux's (Intents →
// OpenEventKitIntents, CoreLocation → OpenEventKit, whose CLLocation stand-in it uses).
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
