import Foundation
import ICalKit

/// A room type's identifier, chosen by the provider (EventKit's
/// `EKVirtualConferenceRoomTypeIdentifier`).
public typealias EKVirtualConferenceRoomTypeIdentifier = String

/// A kind of room a virtual conference provider offers, such as "Personal room".
///
/// The user picks one in the event editor; the provider then makes a conference for it.
open class EKVirtualConferenceRoomTypeDescriptor: NSObject, @unchecked Sendable {
    /// The name the editor shows.
    public let title: String
    /// The provider's identifier of the room type, handed back to
    /// ``EKVirtualConferenceProvider/fetchVirtualConference(identifier:)``.
    public let identifier: EKVirtualConferenceRoomTypeIdentifier

    /// A room type with a title and the provider's identifier.
    public init(title: String, identifier: EKVirtualConferenceRoomTypeIdentifier) {
        self.title = title
        self.identifier = identifier
        super.init()
    }
}

/// One way to join a virtual conference: a link, with an optional label.
///
/// Saved as an RFC 7986 `CONFERENCE` property (`VALUE=URI`), the title as its `LABEL`.
open class EKVirtualConferenceURLDescriptor: NSObject, @unchecked Sendable {
    /// The label, such as "Join with the app" or "Dial in"; nil for none.
    public let title: String?
    /// The link: `https:` (should work without the provider's app, as Apple advises), `tel:`,
    /// `sip:`...
    public let url: URL

    /// A join link with an optional label.
    public init(title: String?, url URL: URL) {
        self.title = title
        self.url = URL
        super.init()
    }
}

/// The details of a virtual conference a provider made for a room type.
///
/// Saved on the event as one RFC 7986 `CONFERENCE` property per URL descriptor, in order (the
/// first is the preferred way to join), with `LABEL` and `FEATURE`; the conference details
/// are added to the event's notes, where Apple's Calendar shows them. See
/// <doc:VirtualConferences>.
open class EKVirtualConferenceDescriptor: NSObject, @unchecked Sendable {
    /// The conference's name; nil for none.
    public let title: String?
    /// The ways to join, the preferred one first.
    public let urlDescriptors: [EKVirtualConferenceURLDescriptor]
    /// Further details for the participants (a meeting code, a dial-in PIN); nil for none.
    public let conferenceDetails: String?

    /// A conference with a title, join links and details.
    public init(title: String?, urlDescriptors URLDescriptors: [EKVirtualConferenceURLDescriptor], conferenceDetails: String?) {
        self.title = title
        self.urlDescriptors = URLDescriptors
        self.conferenceDetails = conferenceDetails
        super.init()
    }
}

/// The principal class of a virtual conference extension: subclass it and override the two
/// fetches.
///
/// On Apple's systems Calendar loads the extension and asks it for room types, and for a
/// conference once the user picks one. On Linux an extension is an executable of its own,
/// declared by an Info.plist with Apple's `NSExtension` dictionary and registered with
/// `ical extensions add`; its `main.swift` hands an instance to
/// ``VirtualConferenceExtension/main(_:arguments:)``. The event editor (`ical ui edit-event`)
/// runs it in its own process, with no calendar access. See <doc:VirtualConferences>.
///
/// Override either the `async` methods or the ones with completion handlers: the `async`
/// ones call the completion-handler ones unless overridden, and those fail with
/// ``EKError/Code/internalFailure`` unless overridden.
open class EKVirtualConferenceProvider: NSObject {
    /// A provider; the system makes one when it needs the extension.
    public override init() {
        super.init()
    }

    /// Lists the room types the user may choose from: an array, or an error.
    open func fetchAvailableRoomTypes(completionHandler: @escaping @Sendable ([EKVirtualConferenceRoomTypeDescriptor]?, (any Error)?) -> Void) {
        completionHandler(nil, EKError(.internalFailure, "the virtual conference provider \(type(of: self)) does not override fetchAvailableRoomTypes"))
    }

    /// Lists the room types the user may choose from.
    open func fetchAvailableRoomTypes() async throws -> [EKVirtualConferenceRoomTypeDescriptor] {
        let box = UncheckedBox(self)
        return try await withCheckedThrowingContinuation { continuation in
            box.value.fetchAvailableRoomTypes { roomTypes, error in
                if let roomTypes { continuation.resume(returning: roomTypes) } else {
                    continuation.resume(throwing: error ?? EKError(.internalFailure, "the provider returned neither room types nor an error"))
                }
            }
        }
    }

    /// Makes a conference for the room type the user chose: a descriptor, or an error.
    open func fetchVirtualConference(identifier: EKVirtualConferenceRoomTypeIdentifier,
                                     completionHandler: @escaping @Sendable (EKVirtualConferenceDescriptor?, (any Error)?) -> Void) {
        completionHandler(nil, EKError(.internalFailure, "the virtual conference provider \(type(of: self)) does not override fetchVirtualConference"))
    }

    /// Makes a conference for the room type the user chose.
    open func fetchVirtualConference(identifier: EKVirtualConferenceRoomTypeIdentifier) async throws -> EKVirtualConferenceDescriptor {
        let box = UncheckedBox(self)
        return try await withCheckedThrowingContinuation { continuation in
            box.value.fetchVirtualConference(identifier: identifier) { conference, error in
                if let conference { continuation.resume(returning: conference) } else {
                    continuation.resume(throwing: error ?? EKError(.internalFailure, "the provider returned neither a conference nor an error"))
                }
            }
        }
    }
}

/// Carries the provider into the continuation's closure (a class EventKit does not mark
/// Sendable; the call is made at once, on this task).
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

// MARK: iCalendar

extension EKVirtualConferenceDescriptor {
    /// The `CONFERENCE` properties (RFC 7986 §5.11) for the descriptor, one per URL
    /// descriptor in order: `VALUE=URI`, `FEATURE` from the link's scheme (`AUDIO,VIDEO` for
    /// `http`/`https`, `PHONE` for `tel`, `AUDIO` for `sip`/`sips`, `CHAT` for `xmpp`, none for
    /// others) and `LABEL` from the URL descriptor's title, else the conference's title.
    package var conferenceProperties: [Property] {
        urlDescriptors.map { descriptor in
            var parameters = [Parameter(name: "VALUE", value: "URI")]
            if let feature = Self.feature(for: descriptor.url) { parameters.append(Parameter(name: "FEATURE", rawValue: feature)) }
            if let label = descriptor.title ?? title, !label.isEmpty { parameters.append(Parameter(name: "LABEL", value: label)) }
            return Property(name: "CONFERENCE", parameters: parameters, rawValue: descriptor.url.absoluteString)
        }
    }

    static func feature(for url: URL) -> String? {
        switch url.scheme?.lowercased() {
        case "http", "https": "AUDIO,VIDEO"
        case "tel": "PHONE"
        case "sip", "sips": "AUDIO"
        case "xmpp": "CHAT"
        default: nil
        }
    }

    /// What the notes get: the conference's title and details, and its links, as Apple's
    /// Calendar lists them under the event's notes.
    package var notesText: String {
        var lines: [String] = []
        if let title, !title.isEmpty { lines.append(title) }
        for descriptor in urlDescriptors {
            lines.append((descriptor.title.map { "\($0): " } ?? "") + descriptor.url.absoluteString)
        }
        if let conferenceDetails, !conferenceDetails.isEmpty { lines.append(conferenceDetails) }
        return lines.joined(separator: "\n")
    }
}

extension EKEvent {
    /// Puts the conference on the event: replaces its `CONFERENCE` properties with the
    /// descriptor's, appends the conference to the notes (after a blank line), and, when the
    /// event has no location, makes the conference's title its location.
    package func setVirtualConference(_ conference: EKVirtualConferenceDescriptor, roomTypeTitle: String) {
        var component = self.component
        component.removeProperties("CONFERENCE")
        for property in conference.conferenceProperties { component.addProperty(property) }
        self.component = component
        let text = conference.notesText
        if !text.isEmpty {
            let existing = notes ?? ""
            notes = existing.isEmpty ? text : existing + "\n\n" + text
        }
        if (location ?? "").isEmpty { location = conference.title ?? roomTypeTitle }
    }

    /// The event's `CONFERENCE` links with their labels, in order (RFC 7986).
    package var conferenceLinks: [(label: String?, uri: String)] {
        component.properties("CONFERENCE").map { property in
            (property.parameters.first { $0.matches("LABEL") }?.value, property.rawValue)
        }
    }
}
