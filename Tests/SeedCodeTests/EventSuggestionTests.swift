import Foundation
@testable import OpenEventKit
import OpenEventKitIntents
import Testing

/// The seed's donation runs as an app with no calendar access: the reservation lands in the
/// store's suggestion inbox (not a calendar), an update replaces it, a cancellation withdraws
/// it, and the app can read none of it.
extension SeedCodeTests {
    static func components(_ day: Int, _ hour: Int) -> DateComponents {
        DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "America/Los_Angeles"),
                       year: 2026, month: 12, day: day, hour: hour, minute: 30)
    }

    @Test func aDonatedReservationBecomesAPendingSuggestionOnly() async throws {
        let fixture = try Fixture(keys: [], events: .denied)
        defer { fixture.remove() }
        try await donateReservation(startComponents: Self.components(4, 19), endComponents: Self.components(4, 21))

        let pending = try SuggestionInbox(storeRoot: fixture.path).pending()
        #expect(pending.count == 1)
        let suggestion = try #require(pending.first)
        #expect(suggestion.app == Self.appIdentifier)
        #expect(suggestion.reference == "abc123")
        #expect(suggestion.kind == "restaurant")
        #expect(suggestion.title == "Dinner at Caffè Macs")
        #expect(suggestion.start == Date(timeIntervalSince1970: 1_796_441_400))   // 2026-12-04T19:30-08:00
        #expect(suggestion.end == suggestion.start.addingTimeInterval(7200))
        #expect(suggestion.timeZone == "America/Los_Angeles")
        #expect(suggestion.location == "Caffè Macs")
        #expect(suggestion.latitude == 37.3349 && suggestion.longitude == -122.0090)
        #expect(suggestion.notes == "Table for 4. Reservation number abc123. Booked for Tim. Suggested by \(Self.appIdentifier).")

        // Not a calendar, not an event: neither the app nor the user's calendars show it.
        #expect(try fixture.events(from: Self.december, to: Self.december.addingTimeInterval(31 * 86_400)).isEmpty)
        #expect(try fixture.userStore().calendars(for: .event).map(\.title) == ["Calendar"])
        #expect(EKEventStore().calendars(for: .event).isEmpty, "the app has no access")
    }

    @Test func anUpdateReplacesTheSuggestionAndACancellationWithdrawsIt() async throws {
        let fixture = try Fixture(keys: [])
        defer { fixture.remove() }
        try await donateReservation(startComponents: Self.components(4, 19), endComponents: Self.components(4, 21))
        try await donateReservation(startComponents: Self.components(5, 18), endComponents: Self.components(5, 20))
        let pending = try SuggestionInbox(storeRoot: fixture.path).pending()
        #expect(pending.count == 1, "the same reservation reference")
        #expect(pending.first?.start == Date(timeIntervalSince1970: 1_796_524_200))   // 2026-12-05T18:30-08:00

        try await donateReservation(startComponents: Self.components(5, 18), endComponents: Self.components(5, 20), status: .canceled)
        #expect(try SuggestionInbox(storeRoot: fixture.path).pending().isEmpty)
    }

    @Test func aReservationWithoutAStartIsRefused() async throws {
        let fixture = try Fixture(keys: [])
        defer { fixture.remove() }
        await #expect(throws: INDonationError.self) {
            try await donateReservation(startComponents: DateComponents(hour: 19), endComponents: DateComponents(hour: 21))
        }
        #expect(try SuggestionInbox(storeRoot: fixture.path).pending().isEmpty)

        // The completion-handler form reports the same.
        let reference = INSpeakableString(spokenPhrase: "Lunch")
        let intent = INGetReservationDetailsIntent(reservationContainerReference: reference, reservationItemReferences: nil)
        let response = INGetReservationDetailsIntentResponse(code: .failure, userActivity: nil)
        let reported = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            INInteraction(intent: intent, response: response).donate { error in continuation.resume(returning: error.map { "\($0)" }) }
        }
        #expect(reported == "an event suggestion needs an INGetReservationDetailsIntentResponse with code .success")
    }
}
