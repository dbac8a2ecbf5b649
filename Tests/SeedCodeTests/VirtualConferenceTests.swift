import Foundation
@testable import OpenEventKit
import ICalKit
import Testing

/// The seed's virtual conference provider, run in process; the completion-handler forms;
/// and what a conference becomes on an event (RFC 7986 CONFERENCE properties, the notes).
extension SeedCodeTests {
    @Test func theSeedProviderListsItsRoomAndMakesAConference() async throws {
        let provider = VirtualConferenceProvider()
        let roomTypes = try await provider.fetchAvailableRoomTypes()
        #expect(roomTypes.map(\.title) == ["Chess Club"])
        #expect(roomTypes.map(\.identifier) == ["chess_club"])
        let conference = try await provider.fetchVirtualConference(identifier: "chess_club")
        #expect(conference.title == nil)
        #expect(conference.urlDescriptors.map(\.url.absoluteString) == ["https://example.com/chess_club"])
        #expect(conference.conferenceDetails == "Join the chess club on this link.")
    }

    /// A provider written with completion handlers (the Objective-C form).
    final class HandlerProvider: EKVirtualConferenceProvider {
        override func fetchAvailableRoomTypes(completionHandler: @escaping @Sendable ([EKVirtualConferenceRoomTypeDescriptor]?, (any Error)?) -> Void) {
            completionHandler([EKVirtualConferenceRoomTypeDescriptor(title: "Studio", identifier: "studio")], nil)
        }

        override func fetchVirtualConference(identifier: EKVirtualConferenceRoomTypeIdentifier,
                                             completionHandler: @escaping @Sendable (EKVirtualConferenceDescriptor?, (any Error)?) -> Void) {
            completionHandler(nil, EKError(.internalFailure, "no room \(identifier)"))
        }
    }

    @Test func theAsyncFormsCallTheCompletionHandlerForms() async throws {
        let provider = HandlerProvider()
        #expect(try await provider.fetchAvailableRoomTypes().map(\.identifier) == ["studio"])
        await #expect(throws: EKError.self) { _ = try await provider.fetchVirtualConference(identifier: "x") }
        // A provider that overrides nothing fails, it does not hang or recurse.
        await #expect(throws: EKError.self) { _ = try await EKVirtualConferenceProvider().fetchAvailableRoomTypes() }
    }

    @Test func aConferenceIsSavedAsConferencePropertiesAndNotes() throws {
        let fixture = try Fixture(events: .fullAccess)
        defer { fixture.remove() }
        let store = try fixture.userStore()
        let event = EKEvent(eventStore: store)
        event.title = "Chess club"
        event.notes = "Bring a board."
        event.startDate = Self.december.addingTimeInterval(3 * 86_400 + 17 * 3600)
        event.endDate = event.startDate.addingTimeInterval(3600)
        event.calendar = store.defaultCalendarForNewEvents
        let conference = EKVirtualConferenceDescriptor(
            title: "Chess Club", conferenceDetails: "PIN 1234",
            links: [("Join", "https://example.com/chess_club"), (nil, "tel:+1-555-0100"), ("Chat", "xmpp:club@example.com"), (nil, "zoommtg://x")])
        event.setVirtualConference(conference, roomTypeTitle: "Chess Club room")
        try store.save(event, span: .thisEvent)

        let saved = try #require(try fixture.userStore().event(withIdentifier: event.eventIdentifier))
        let properties = saved.component.properties("CONFERENCE")
        #expect(properties.map(\.rawValue) == ["https://example.com/chess_club", "tel:+1-555-0100", "xmpp:club@example.com", "zoommtg://x"])
        #expect(properties.map { $0.parameters.map { "\($0.name)=\($0.rawValue)" } } == [
            ["VALUE=URI", "FEATURE=AUDIO,VIDEO", "LABEL=Join"],
            ["VALUE=URI", "FEATURE=PHONE", "LABEL=Chess Club"],
            ["VALUE=URI", "FEATURE=CHAT", "LABEL=Chat"],
            ["VALUE=URI", "LABEL=Chess Club"],
        ])
        #expect(saved.notes == "Bring a board.\n\nChess Club\nJoin: https://example.com/chess_club\ntel:+1-555-0100\nChat: xmpp:club@example.com\nzoommtg://x\nPIN 1234")
        #expect(saved.location == "Chess Club", "an event without a location gets the conference's title")
        #expect(saved.conferenceLinks.map(\.uri).first == "https://example.com/chess_club")

        // Choosing another conference replaces the links.
        saved.setVirtualConference(EKVirtualConferenceDescriptor(title: nil, conferenceDetails: nil, links: [(nil, "https://example.com/other")]),
                                   roomTypeTitle: "Other")
        #expect(saved.component.properties("CONFERENCE").map(\.rawValue) == ["https://example.com/other"])
        #expect(saved.location == "Chess Club", "a location is kept")
    }
}

private extension EKVirtualConferenceDescriptor {
    convenience init(title: String?, conferenceDetails: String?, links: [(String?, String)]) {
        self.init(title: title, urlDescriptors: links.map { EKVirtualConferenceURLDescriptor(title: $0.0, url: URL(string: $0.1)!) },
                  conferenceDetails: conferenceDetails)
    }
}
