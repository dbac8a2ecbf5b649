import Foundation
import ICalKit

/// Someone invited to an event, or its organizer: an iCalendar `ATTENDEE` or `ORGANIZER`.
///
/// Participants are read-only, as in EventKit: no API adds attendees or changes their
/// answers, and the item writes its `ATTENDEE` and `ORGANIZER` properties back as it read
/// them.
///
/// The properties read the parameters as RFC 5545 §3.2 says, with its defaults for
/// parameters that are absent and its fallbacks for values it does not define:
///
/// | property | parameter | absent | unknown value |
/// |---|---|---|---|
/// | ``participantStatus`` | `PARTSTAT` | ``EKParticipantStatus/pending`` for an attendee (NEEDS-ACTION), ``EKParticipantStatus/unknown`` for the organizer | ``EKParticipantStatus/pending`` |
/// | ``participantRole`` | `ROLE` | ``EKParticipantRole/required`` (REQ-PARTICIPANT) | ``EKParticipantRole/required`` |
/// | ``participantType`` | `CUTYPE` | ``EKParticipantType/person`` (INDIVIDUAL) | ``EKParticipantType/unknown`` |
open class EKParticipant: EKObject, NSCopying {
    /// The participant's address, usually `mailto:`.
    public let url: URL
    /// The display name (`CN`), nil when absent or empty.
    public let name: String?
    /// The answer to the invitation (`PARTSTAT`).
    ///
    /// An attendee without `PARTSTAT` has not answered (RFC 5545's default, NEEDS-ACTION:
    /// ``EKParticipantStatus/pending``). RFC 5545 gives `PARTSTAT` no meaning on `ORGANIZER`,
    /// so an organizer without it is ``EKParticipantStatus/unknown``.
    public let participantStatus: EKParticipantStatus
    /// The role in the event (`ROLE`); ``EKParticipantRole/required`` when absent.
    public let participantRole: EKParticipantRole
    /// What kind of calendar user this is (`CUTYPE`); ``EKParticipantType/person`` when
    /// absent.
    public let participantType: EKParticipantType
    /// Whether this participant is the owner of the account the event belongs to: its
    /// address is one of the account's (a CalDAV account's `calendar-user-address-set`, RFC
    /// 6638, learnt from the server) or, in a local calendar, one the user set with `ical
    /// calendars me`.
    public let isCurrentUser: Bool

    /// A predicate that finds this participant in the Contacts framework.
    ///
    /// Linux has no Contacts framework, so this predicate matches nothing
    /// (`NSPredicate(value: false)`).
    open var contactPredicate: NSPredicate {
        NSPredicate(value: false)
    }

    /// The `ATTENDEE` or `ORGANIZER` as read, parameters included, to write back unchanged.
    package let address: CalendarUserAddress
    /// Whether this is the `ORGANIZER` rather than an `ATTENDEE`.
    package let isOrganizer: Bool

    /// Reads an `ATTENDEE` (`isOrganizer` false) or `ORGANIZER` (`isOrganizer` true).
    ///
    /// - Parameter currentUserAddresses: the account owner's addresses, given by the store,
    ///   with or without `mailto:`. The participant is the current user when its `mailto:`
    ///   address or its `EMAIL` parameter is one of them, ignoring case; any other address
    ///   is compared whole, ignoring case.
    ///
    /// An address that is not a valid URL is percent-encoded; a bare e-mail address
    /// (`jane@example.com`, which some producers write) becomes a `mailto:` URL.
    package init(_ address: CalendarUserAddress, isOrganizer: Bool, currentUserAddresses: Set<String>) {
        self.address = address
        self.isOrganizer = isOrganizer
        self.url = Self.url(address.address)
        self.name = address.commonName.flatMap { $0.isEmpty ? nil : $0 }
        self.participantStatus = Self.status(address.participationStatus, isOrganizer: isOrganizer)
        self.participantRole = Self.role(address.role)
        self.participantType = Self.type(address.calendarUserType)
        let owners = Set(currentUserAddresses.map(Self.normalized))
        let candidates = [address.address, address.email].compactMap { $0 }.map(Self.normalized)
        self.isCurrentUser = candidates.contains { owners.contains($0) }
        super.init()
    }

    /// A new participant with the same address and parameters.
    open func copy(with zone: NSZone? = nil) -> Any {
        EKParticipant(copying: self)
    }

    private init(copying participant: EKParticipant) {
        self.address = participant.address
        self.isOrganizer = participant.isOrganizer
        self.url = participant.url
        self.name = participant.name
        self.participantStatus = participant.participantStatus
        self.participantRole = participant.participantRole
        self.participantType = participant.participantType
        self.isCurrentUser = participant.isCurrentUser
        super.init()
    }

    /// `EKParticipant <0x…> {name = Jane Doe; email = jane@example.com; status = 2; role = 1; type = 1}`.
    open override var description: String {
        let email = address.emailAddress ?? url.absoluteString
        return "EKParticipant <\(Unmanaged.passUnretained(self).toOpaque())> {name = \(name ?? "(null)"); email = \(email); "
            + "status = \(participantStatus.rawValue); role = \(participantRole.rawValue); type = \(participantType.rawValue)}"
    }

    // MARK: Helpers

    private static func status(_ value: CalendarUserAddress.ParticipationStatus?, isOrganizer: Bool) -> EKParticipantStatus {
        switch value {
        case nil: return isOrganizer ? .unknown : .pending
        case .needsAction?: return .pending
        case .accepted?: return .accepted
        case .declined?: return .declined
        case .tentative?: return .tentative
        case .delegated?: return .delegated
        case .completed?: return .completed
        case .inProcess?: return .inProcess
        default: return .pending  // RFC 5545 §3.2.12: unknown values read as NEEDS-ACTION
        }
    }

    private static func role(_ value: CalendarUserAddress.Role?) -> EKParticipantRole {
        switch value {
        case .chair?: return .chair
        case .optionalParticipant?: return .optional
        case .nonParticipant?: return .nonParticipant
        default: return .required  // absent, REQ-PARTICIPANT, and unknown values (RFC 5545 §3.2.16)
        }
    }

    private static func type(_ value: CalendarUserAddress.CalendarUserType?) -> EKParticipantType {
        switch value {
        case nil, .individual?: return .person
        case .group?: return .group
        case .resource?: return .resource
        case .room?: return .room
        default: return .unknown  // UNKNOWN, and unknown values (RFC 5545 §3.2.3)
        }
    }

    /// The address as a URL: as written when it is one, `mailto:` added to a bare e-mail
    /// address, percent-encoded otherwise.
    private static func url(_ raw: String) -> URL {
        let text = raw.trimmingCharacters(in: .whitespaces)
        let hasScheme = text.range(of: "^[A-Za-z][A-Za-z0-9+.-]*:", options: .regularExpression) != nil
        let candidate = !hasScheme && text.contains("@") ? "mailto:" + text : text
        if let url = URL(string: candidate) { return url }
        let encoded = candidate.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? ""
        return URL(string: encoded) ?? URL(string: "mailto:")!
    }

    /// An address for comparison: `mailto:` removed, lowercased, spaces trimmed.
    private static func normalized(_ address: String) -> String {
        var text = address.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("mailto:") { text.removeFirst("mailto:".count) }
        return text
    }
}
