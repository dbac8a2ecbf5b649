// LessonRooms: a virtual conference provider for a music school's online lessons, in the
// shape of Apple's WWDC23 example ("Discover Calendar and EventKit"): a subclass of
// EKVirtualConferenceProvider that overrides the two async fetches.
import Foundation
import OpenEventKit

/// The school's online rooms: one per kind of lesson.
final class LessonRoomsProvider: EKVirtualConferenceProvider {
    /// The kinds of room a teacher can put on a lesson.
    static let rooms: [(identifier: String, title: String, path: String)] = [
        ("piano-studio", "Piano studio (one-to-one)", "piano"),
        ("strings-room", "Strings room (one-to-one)", "strings"),
        ("ensemble-hall", "Ensemble hall (group lesson)", "ensemble"),
    ]

    override func fetchAvailableRoomTypes() async throws -> [EKVirtualConferenceRoomTypeDescriptor] {
        Self.rooms.map { EKVirtualConferenceRoomTypeDescriptor(title: $0.title, identifier: $0.identifier) }
    }

    override func fetchVirtualConference(identifier: EKVirtualConferenceRoomTypeIdentifier) async throws -> EKVirtualConferenceDescriptor {
        guard let room = Self.rooms.first(where: { $0.identifier == identifier }) else {
            throw EKError(.internalFailure, "LessonRooms has no room type '\(identifier)'")
        }
        // A fixed room per kind, so the sample's output is the same every time; a real
        // provider would make a new meeting here.
        let join = EKVirtualConferenceURLDescriptor(title: "Join the lesson", url: URL(string: "https://rooms.musikschule.example/\(room.path)")!)
        let phone = EKVirtualConferenceURLDescriptor(title: "By phone", url: URL(string: "tel:+49-30-5550-1234,,\(room.path.count)01")!)
        return EKVirtualConferenceDescriptor(title: "Lesson Rooms: \(room.title)", urlDescriptors: [join, phone],
                                             conferenceDetails: "Tune your instrument before you join. Room PIN: \(room.path.count)01")
    }
}
