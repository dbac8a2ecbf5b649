import Foundation
import OpenEventKit

/// Why a donation was not taken (what ``INInteraction/donate(completion:)`` reports).
public struct INDonationError: Error, CustomStringConvertible, Sendable {
    /// The reason.
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Turns donated reservations into suggestions in the store's inbox.
enum SuggestionDonation {
    static func donate(_ interaction: INInteraction) throws {
        guard interaction.intent is INGetReservationDetailsIntent else {
            throw INDonationError("only INGetReservationDetailsIntent is donated as an event suggestion")
        }
        guard let response = interaction.intentResponse as? INGetReservationDetailsIntentResponse, response.code == .success else {
            throw INDonationError("an event suggestion needs an INGetReservationDetailsIntentResponse with code .success")
        }
        let reservations = response.reservations ?? []
        guard !reservations.isEmpty else { throw INDonationError("the response holds no reservations") }
        let manifest: AppManifest
        do { manifest = try AppManifest.main() } catch {
            throw INDonationError("the app has no manifest (Info.plist): \(error)")
        }
        let root: String
        do { root = try FolderStore.defaultLocation(environment: ProcessInfo.processInfo.environment) } catch {
            throw INDonationError("\(error.message)")
        }
        let inbox = SuggestionInbox(storeRoot: root)
        for reservation in reservations.prefix(50) {
            let reference = reservation.itemReference.vocabularyIdentifier ?? reservation.reservationNumber ?? reservation.itemReference.spokenPhrase
            do throws(SuggestionInboxError) {
                if reservation.reservationStatus == .canceled {
                    try inbox.withdraw(app: manifest.bundleIdentifier, reference: reference)
                } else {
                    try inbox.donate(try suggestion(reservation, reference: reference, manifest: manifest))
                }
            } catch {
                throw INDonationError(error.description)
            }
        }
    }

    /// The event a reservation suggests; see the mapping in <doc:EventSuggestions>.
    static func suggestion(_ reservation: INReservation, reference: String, manifest: AppManifest) throws(SuggestionInboxError) -> EventSuggestion {
        guard let restaurant = reservation as? INRestaurantReservation else {
            throw SuggestionInboxError("\(type(of: reservation)) is not a kind of reservation OpenEventKit suggests (INRestaurantReservation is)")
        }
        let range = restaurant.reservationDuration
        guard let startParts = range.startDateComponents, let start = date(startParts) else {
            throw SuggestionInboxError("the reservation \(reference) has no start (reservationDuration.startDateComponents with a year, month, day, hour)")
        }
        let end = range.endDateComponents.flatMap(date).flatMap { $0 > start ? $0 : nil } ?? start.addingTimeInterval(2 * 3600)
        let place = restaurant.restaurantLocation
        let location = [place.name, place.postalAddress?.singleLine].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        var notes: [String] = []
        if let size = restaurant.partySize?.intValue { notes.append("Table for \(size).") }
        if let number = restaurant.reservationNumber { notes.append("Reservation number \(number).") }
        if let holder = restaurant.reservationHolderName { notes.append("Booked for \(holder).") }
        notes.append("Suggested by \(manifest.displayName).")
        let zone = startParts.timeZone?.identifier
        return EventSuggestion(app: manifest.bundleIdentifier, appName: manifest.displayName, reference: reference, kind: "restaurant",
                               title: String(restaurant.itemReference.spokenPhrase.prefix(500)), start: start, end: end, timeZone: zone,
                               location: location.isEmpty ? nil : String(location.prefix(500)),
                               latitude: place.location?.coordinate.latitude, longitude: place.location?.coordinate.longitude,
                               notes: notes.joined(separator: " "), url: restaurant.url?.absoluteString, donated: Date())
    }

    /// The instant of date components: their calendar and zone, else Gregorian in the system's zone.
    static func date(_ parts: DateComponents) -> Date? {
        guard parts.year != nil, parts.month != nil, parts.day != nil else { return nil }
        var calendar = parts.calendar ?? Calendar(identifier: .gregorian)
        calendar.timeZone = parts.timeZone ?? TimeZone.current
        return calendar.date(from: parts)
    }
}
