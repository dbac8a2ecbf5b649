import Foundation
import ICalKit
import OpenEventKit
import Testing

@Suite struct EKParticipantTests {
    /// Reads the ATTENDEE or ORGANIZER on one content line of a VEVENT.
    static func participant(_ line: String, owners: Set<String> = [],
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> EKParticipant {
        let event = try component(.event, in: "BEGIN:VEVENT\nUID:x\n\(line)\nEND:VEVENT", sourceLocation: sourceLocation)
        if let organizer = event.organizer {
            return EKParticipant(organizer, isOrganizer: true, currentUserAddresses: owners)
        }
        let attendee = try #require(event.attendees.first, sourceLocation: sourceLocation)
        return EKParticipant(attendee, isOrganizer: false, currentUserAddresses: owners)
    }

    @Test func attendeeWithEveryParameter() throws {
        let attendee = try Self.participant(
            "ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=CHAIR;PARTSTAT=ACCEPTED;CN=\"Doe, Jane\";RSVP=TRUE:mailto:jane@example.com")
        #expect(attendee.url == URL(string: "mailto:jane@example.com"))
        #expect(attendee.name == "Doe, Jane")
        #expect(attendee.participantStatus == .accepted)
        #expect(attendee.participantRole == .chair)
        #expect(attendee.participantType == .person)
        #expect(!attendee.isCurrentUser)
        #expect(!attendee.isOrganizer)
    }

    /// PARTSTAT: every RFC 5545 value; absent is NEEDS-ACTION (pending); values RFC 5545
    /// does not define read as NEEDS-ACTION too.
    @Test(arguments: [
        ("NEEDS-ACTION", EKParticipantStatus.pending), ("ACCEPTED", .accepted), ("DECLINED", .declined),
        ("TENTATIVE", .tentative), ("DELEGATED", .delegated), ("COMPLETED", .completed), ("IN-PROCESS", .inProcess),
        ("accepted", .accepted), ("X-MAYBE", .pending), ("", .pending),
    ])
    func attendeeStatus(_ value: String, _ status: EKParticipantStatus) throws {
        let parameter = value.isEmpty ? "" : ";PARTSTAT=\(value)"
        #expect(try Self.participant("ATTENDEE\(parameter):mailto:a@example.com").participantStatus == status)
    }

    /// RFC 5545 gives PARTSTAT no meaning on ORGANIZER: absent reads as unknown.
    @Test func organizerStatus() throws {
        let organizer = try Self.participant("ORGANIZER;CN=Boss:mailto:boss@example.com")
        #expect(organizer.isOrganizer)
        #expect(organizer.participantStatus == .unknown)
        #expect(organizer.participantRole == .required)
        #expect(organizer.participantType == .person)
        #expect(organizer.name == "Boss")
        #expect(try Self.participant("ORGANIZER;PARTSTAT=ACCEPTED:mailto:boss@example.com").participantStatus == .accepted)
    }

    /// ROLE: absent and undefined values read as REQ-PARTICIPANT (required).
    @Test(arguments: [
        ("CHAIR", EKParticipantRole.chair), ("REQ-PARTICIPANT", .required), ("OPT-PARTICIPANT", .optional),
        ("NON-PARTICIPANT", .nonParticipant), ("opt-participant", .optional), ("X-OBSERVER", .required), ("", .required),
    ])
    func role(_ value: String, _ role: EKParticipantRole) throws {
        let parameter = value.isEmpty ? "" : ";ROLE=\(value)"
        #expect(try Self.participant("ATTENDEE\(parameter):mailto:a@example.com").participantRole == role)
    }

    /// CUTYPE: absent reads as INDIVIDUAL (person), undefined values as UNKNOWN.
    @Test(arguments: [
        ("INDIVIDUAL", EKParticipantType.person), ("GROUP", .group), ("RESOURCE", .resource), ("ROOM", .room),
        ("UNKNOWN", .unknown), ("room", .room), ("X-VEHICLE", .unknown), ("", .person),
    ])
    func type(_ value: String, _ type: EKParticipantType) throws {
        let parameter = value.isEmpty ? "" : ";CUTYPE=\(value)"
        #expect(try Self.participant("ATTENDEE\(parameter):mailto:a@example.com").participantType == type)
    }

    @Test func nameIsNilWhenAbsentOrEmpty() throws {
        #expect(try Self.participant("ATTENDEE:mailto:a@example.com").name == nil)
        #expect(try Self.participant("ATTENDEE;CN=\"\":mailto:a@example.com").name == nil)
    }

    /// The current user is found by the mailto address or the EMAIL parameter, ignoring case
    /// and the mailto: prefix of the owner's addresses.
    @Test(arguments: [
        ("ATTENDEE:mailto:Jane@Example.com", ["jane@example.com"], true),
        ("ATTENDEE:MAILTO:jane@example.com", ["mailto:JANE@example.com"], true),
        ("ATTENDEE;EMAIL=jane@example.com:urn:uuid:1234", ["jane@example.com"], true),
        ("ATTENDEE:urn:uuid:1234", ["URN:UUID:1234"], true),
        ("ATTENDEE:mailto:max@example.com", ["jane@example.com"], false),
        ("ORGANIZER:mailto:jane@example.com", ["jane@example.com", "other@example.com"], true),
        ("ATTENDEE:mailto:jane@example.com", [], false),
    ] as [(String, Set<String>, Bool)])
    func currentUser(_ line: String, _ owners: Set<String>, _ expected: Bool) throws {
        #expect(try Self.participant(line, owners: owners).isCurrentUser == expected)
    }

    @Test func urls() throws {
        #expect(try Self.participant("ATTENDEE:urn:uuid:1234").url.absoluteString == "urn:uuid:1234")
        // A bare e-mail address, as some producers write it, becomes a mailto: URL.
        #expect(try Self.participant("ATTENDEE:jane@example.com").url == URL(string: "mailto:jane@example.com"))
        // Something that is not a URL is percent-encoded rather than lost.
        let odd = EKParticipant(CalendarUserAddress(address: "mailto:Jane Doe <jane@example.com>"), isOrganizer: false,
                                currentUserAddresses: [])
        #expect(odd.url.absoluteString == "mailto:Jane%20Doe%20%3Cjane@example.com%3E")
    }

    @Test func keepsTheAddressToWriteBack() throws {
        let line = "ATTENDEE;X-NUM-GUESTS=0;RSVP=TRUE;CN=Lena:mailto:lena@example.com"
        let event = try component(.event, in: "BEGIN:VEVENT\nUID:x\n\(line)\nEND:VEVENT")
        let attendee = try #require(event.attendees.first)
        let participant = EKParticipant(attendee, isOrganizer: false, currentUserAddresses: [])
        #expect(participant.address == attendee)
        #expect(participant.address.property(.attendee) == event.property(.attendee))
    }

    @Test func contactPredicateMatchesNothing() throws {
        let participant = try Self.participant("ATTENDEE:mailto:a@example.com")
        #expect(!participant.contactPredicate.evaluate(with: participant))
        #expect(!participant.contactPredicate.evaluate(with: nil))
    }

    @Test func copyAndDescription() throws {
        let participant = try Self.participant("ATTENDEE;CN=Lena;PARTSTAT=DECLINED;CUTYPE=ROOM:mailto:lena@example.com",
                                               owners: ["lena@example.com"])
        let copy = try #require(participant.copy() as? EKParticipant)
        #expect(copy !== participant)
        #expect(copy.url == participant.url && copy.name == "Lena" && copy.participantStatus == .declined)
        #expect(copy.participantType == .room && copy.participantRole == .required && copy.isCurrentUser)
        #expect(copy.address == participant.address && copy.isOrganizer == participant.isOrganizer)
        #expect(participant.description.hasSuffix("{name = Lena; email = lena@example.com; status = 3; role = 1; type = 2}"))
    }
}
