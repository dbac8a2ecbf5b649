/// A calendar user as an ATTENDEE or ORGANIZER names one: a CAL-ADDRESS (RFC 5545
/// §3.3.3, usually `mailto:`) and the property's parameters.
///
/// All parameters are kept as read, in order, X- parameters included; the typed members
/// (``commonName``, ``role``, ...) read and write them in place. So an attendee taken from
/// a component and put back changes nothing it did not touch.
///
/// ```swift
/// var jane = CalendarUserAddress(address: "mailto:jane@example.com", commonName: "Jane Doe")
/// jane.participationStatus = .accepted
/// event.attendees.append(jane)
/// ```
///
/// See RFC 5545 §3.8.4.1 and §3.8.4.3. libical reads the address with
/// `icalproperty_get_attendee` and the parameters with `icalparameter_get_cn`,
/// `icalparameter_get_role` and so on.
public struct CalendarUserAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The CAL-ADDRESS as written (`mailto:jane@example.com`).
    public var address: String
    /// The property's parameters, in order, as read.
    public var parameters: [Parameter]

    /// Creates an address with the common parameters.
    public init(
        address: String, commonName: String? = nil, role: Role? = nil, participationStatus: ParticipationStatus? = nil,
        rsvp: Bool? = nil, calendarUserType: CalendarUserType? = nil, email: String? = nil
    ) {
        self.address = address
        self.parameters = []
        self.commonName = commonName
        self.role = role
        self.participationStatus = participationStatus
        self.rsvp = rsvp
        self.calendarUserType = calendarUserType
        self.email = email
    }

    /// Reads an ATTENDEE or ORGANIZER property: its value and all its parameters.
    public init(_ property: Property) {
        self.address = property.rawValue
        self.parameters = property.parameters
    }

    /// A property of `kind` (ATTENDEE or ORGANIZER) holding this address and its parameters.
    public func property(_ kind: PropertyKind) -> Property {
        Property(kind, parameters: parameters, rawValue: address)
    }

    /// The address as a URI, when it is one.
    public var uri: URI? { URI(rawValue: address) }

    /// The e-mail address: the EMAIL parameter (RFC 7986), else the `mailto:` address.
    public var emailAddress: String? {
        if let email { return email }
        guard let uri, uri.scheme == "mailto" else { return nil }
        return uri.schemeSpecificPart
    }

    /// CN: the display name.
    public var commonName: String? {
        get { self[.commonName] }
        set { self[.commonName] = newValue }
    }

    /// ROLE (default REQ-PARTICIPANT when absent).
    public var role: Role? {
        get { self[.role].map(Role.init(rawValue:)) }
        set { self[.role] = newValue?.rawValue }
    }

    /// PARTSTAT (default NEEDS-ACTION when absent).
    public var participationStatus: ParticipationStatus? {
        get { self[.participationStatus].map(ParticipationStatus.init(rawValue:)) }
        set { self[.participationStatus] = newValue?.rawValue }
    }

    /// RSVP: whether a reply is expected; nil when absent or not a BOOLEAN.
    public var rsvp: Bool? {
        get { self[.rsvp].flatMap { ScalarValue.boolean(iCalendar: $0) } }
        set { self[.rsvp] = newValue.map(ScalarValue.booleanText) }
    }

    /// CUTYPE (default INDIVIDUAL when absent).
    public var calendarUserType: CalendarUserType? {
        get { self[.calendarUserType].map(CalendarUserType.init(rawValue:)) }
        set { self[.calendarUserType] = newValue?.rawValue }
    }

    /// EMAIL (RFC 7986 §6.2).
    public var email: String? {
        get { self["EMAIL"] }
        set { self["EMAIL"] = newValue }
    }

    /// The decoded value of the first parameter of a kind; setting keeps its position,
    /// appends when absent, and removes on nil.
    public subscript(kind: ParameterKind) -> String? {
        get { parameters.first { $0.matches(kind) }?.value }
        set {
            var property = Property(name: "X", parameters: parameters, rawValue: "")
            property.setParameter(kind, to: newValue)
            parameters = property.parameters
        }
    }

    public var description: String { commonName.map { "\($0) <\(address)>" } ?? address }
}

extension CalendarUserAddress {
    /// A ROLE parameter value (RFC 5545 §3.2.16); an open set.
    public struct Role: RawRepresentable, Sendable, Hashable, Codable {
        /// The value, uppercased.
        public let rawValue: String
        /// Creates a value from its text in any case.
        public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
        /// Chairs the meeting.
        public static let chair = Role(rawValue: "CHAIR")
        /// Must attend (the default).
        public static let requiredParticipant = Role(rawValue: "REQ-PARTICIPANT")
        /// May attend.
        public static let optionalParticipant = Role(rawValue: "OPT-PARTICIPANT")
        /// Is copied for information only.
        public static let nonParticipant = Role(rawValue: "NON-PARTICIPANT")
    }

    /// A PARTSTAT parameter value (RFC 5545 §3.2.12); an open set.
    public struct ParticipationStatus: RawRepresentable, Sendable, Hashable, Codable {
        /// The value, uppercased.
        public let rawValue: String
        /// Creates a value from its text in any case.
        public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
        /// Has not answered (the default).
        public static let needsAction = ParticipationStatus(rawValue: "NEEDS-ACTION")
        /// Accepted.
        public static let accepted = ParticipationStatus(rawValue: "ACCEPTED")
        /// Declined.
        public static let declined = ParticipationStatus(rawValue: "DECLINED")
        /// Tentatively accepted.
        public static let tentative = ParticipationStatus(rawValue: "TENTATIVE")
        /// Delegated to someone else.
        public static let delegated = ParticipationStatus(rawValue: "DELEGATED")
        /// Completed (to-dos).
        public static let completed = ParticipationStatus(rawValue: "COMPLETED")
        /// In progress (to-dos).
        public static let inProcess = ParticipationStatus(rawValue: "IN-PROCESS")
    }

    /// A CUTYPE parameter value (RFC 5545 §3.2.3); an open set.
    public struct CalendarUserType: RawRepresentable, Sendable, Hashable, Codable {
        /// The value, uppercased.
        public let rawValue: String
        /// Creates a value from its text in any case.
        public init(rawValue: String) { self.rawValue = ASCII.uppercased(rawValue) }
        /// A person (the default).
        public static let individual = CalendarUserType(rawValue: "INDIVIDUAL")
        /// A group of people.
        public static let group = CalendarUserType(rawValue: "GROUP")
        /// A physical resource.
        public static let resource = CalendarUserType(rawValue: "RESOURCE")
        /// A room.
        public static let room = CalendarUserType(rawValue: "ROOM")
        /// Not known.
        public static let unknown = CalendarUserType(rawValue: "UNKNOWN")
    }
}
