// Seed fragment: a virtual conference provider in the WWDC23 code's shape as the issue quotes
// it (the seed document itself is not in the repository): a subclass of
// EKVirtualConferenceProvider overriding the two async fetches and building the three
// descriptors. The only change for Linux is the import.
import Foundation
import OpenEventKit

class VirtualConferenceProvider: EKVirtualConferenceProvider {
    override func fetchAvailableRoomTypes() async throws -> [EKVirtualConferenceRoomTypeDescriptor] {
        let title = "Chess Club"
        let identifier = "chess_club"
        let roomType = EKVirtualConferenceRoomTypeDescriptor(title: title, identifier: identifier)
        return [roomType]
    }

    override func fetchVirtualConference(identifier: EKVirtualConferenceRoomTypeIdentifier) async throws -> EKVirtualConferenceDescriptor {
        let urlDescriptor = EKVirtualConferenceURLDescriptor(title: nil, url: URL(string: "https://example.com/chess_club")!)
        let details = "Join the chess club on this link."
        return EKVirtualConferenceDescriptor(title: nil, urlDescriptors: [urlDescriptor], conferenceDetails: details)
    }
}
