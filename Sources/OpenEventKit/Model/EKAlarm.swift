import Foundation
import ICalKit

/// A reminder that fires at a time or at a place: an iCalendar `VALARM`.
///
/// An alarm fires at a fixed moment (``absoluteDate``), or at an offset from the start of
/// its event or reminder (``relativeOffset``, negative before). A proximity alarm fires on
/// arriving at or leaving a ``structuredLocation``. What it does, ``type``, follows from the
/// other properties, as in EventKit: it sends mail when ``emailAddress`` is set, plays a sound
/// when ``soundName`` is, runs a procedure when ``url`` is, and otherwise shows a message.
///
/// ## iCalendar
///
/// | property | VALARM |
/// |---|---|
/// | ``absoluteDate`` | `TRIGGER;VALUE=DATE-TIME:…Z` |
/// | ``relativeOffset`` | `TRIGGER:-PT15M` |
/// | ``type`` | `ACTION` (`DISPLAY`, `AUDIO`, `PROCEDURE`, `EMAIL`) |
/// | ``emailAddress`` | `ATTENDEE:mailto:…` of an `EMAIL` alarm |
/// | ``soundName`` | `ATTACH;VALUE=URI:…` of an `AUDIO` alarm |
/// | ``url`` | `ATTACH` of a `PROCEDURE` alarm |
/// | ``proximity`` | `X-APPLE-PROXIMITY:ARRIVE` / `DEPART` |
/// | ``structuredLocation`` | `X-APPLE-STRUCTURED-LOCATION` |
///
/// An alarm read from a file is written back as it was read, with only the properties whose
/// value changed rewritten: `UID`, `X-WR-ALARMUID`, `ACKNOWLEDGED`, `REPEAT`/`DURATION` and
/// every unknown or X- property survive.
///
/// A `TRIGGER;RELATED=END` counts from the end of the event (the due date of a reminder):
/// ``relativeOffset`` reports that offset as written and the trigger keeps `RELATED=END`
/// until ``relativeOffset`` or ``absoluteDate`` is set, which makes the trigger count from
/// the start (or be absolute), as EventKit's API defines it.
open class EKAlarm: EKObject, NSCopying {
    /// When the alarm fires.
    private enum Trigger: Equatable {
        /// An offset in seconds from the start (or, as read, from the end).
        case relative(TimeInterval, AlarmTrigger.Related)
        /// A fixed moment.
        case absolute(Date)
    }

    /// The decoded state of an alarm: what is compared to tell which properties to rewrite.
    private struct State: Equatable {
        var trigger: Trigger?
        var proximity: EKAlarmProximity
        var emailAddress: String?
        var soundName: String?
        var url: URL?
        var location: LocationValues?

        /// The ACTION the state calls for.
        var action: AlarmAction {
            if emailAddress != nil { return .email }
            if soundName != nil { return .audio }
            if url != nil { return .procedure }
            return .display
        }
    }

    /// A location's title, coordinates and radius, compared by value.
    private struct LocationValues: Equatable {
        var title: String?
        var latitude: Double?
        var longitude: Double?
        var radius: Double

        init(_ location: EKStructuredLocation) {
            title = location.title
            latitude = location.geoLocation?.coordinate.latitude
            longitude = location.geoLocation?.coordinate.longitude
            radius = location.radius
        }
    }

    /// The VALARM as read (empty for a new alarm).
    private var base: Component
    /// The state as read; nil for a new alarm, which writes everything.
    private var readState: State?

    private var trigger: Trigger?
    private var storedEmailAddress: String?
    private var storedSoundName: String?
    private var storedURL: URL?
    private var storedLocation: EKStructuredLocation?

    // MARK: Creating alarms

    /// An alarm that fires at a fixed moment.
    public init(absoluteDate date: Date) {
        self.base = Component(kind: .alarm)
        self.trigger = .absolute(date)
        self.proximity = .none
        super.init()
    }

    /// An alarm that fires `offset` seconds after the start of its event or reminder
    /// (negative: before).
    public init(relativeOffset offset: TimeInterval) {
        self.base = Component(kind: .alarm)
        self.trigger = .relative(offset, .start)
        self.proximity = .none
        super.init()
    }

    private init(copying alarm: EKAlarm) {
        var base = alarm.base
        // A copy is a new alarm: it must not share the original's identity.
        base.removeProperties(.uniqueIdentifier)
        base.removeProperties(Self.alarmUIDKind)
        self.base = base
        self.readState = alarm.readState
        self.trigger = alarm.trigger
        self.proximity = alarm.proximity
        self.storedEmailAddress = alarm.storedEmailAddress
        self.storedSoundName = alarm.storedSoundName
        self.storedURL = alarm.storedURL
        super.init()
        self.structuredLocation = alarm.storedLocation
    }

    /// A new alarm with the same trigger, action and location, and, for an alarm read from
    /// iCalendar, the same other properties except `UID` and `X-WR-ALARMUID` (a copy is a
    /// different alarm). The copy belongs to no item.
    open func copy(with zone: NSZone? = nil) -> Any {
        EKAlarm(copying: self)
    }

    // MARK: When

    /// The moment the alarm fires, or nil for a relative alarm. Setting a date makes the
    /// alarm absolute (``relativeOffset`` reads 0); setting nil makes an absolute alarm fire
    /// at the start (offset 0) and leaves a relative one as it is.
    open var absoluteDate: Date? {
        get {
            if case .absolute(let date)? = trigger { return date }
            return nil
        }
        set {
            if let newValue {
                trigger = .absolute(newValue)
            } else if absoluteDate != nil || trigger == nil {
                trigger = .relative(0, .start)
            }
            noteChange()
        }
    }

    /// Seconds from the start of the event or reminder (negative: before); 0 for an absolute
    /// alarm. Setting it makes the alarm relative to the start (``absoluteDate`` reads nil).
    open var relativeOffset: TimeInterval {
        get {
            if case .relative(let offset, _)? = trigger { return offset }
            return 0
        }
        set {
            trigger = .relative(newValue, .start)
            noteChange()
        }
    }

    // MARK: Where

    /// The place a proximity alarm watches (its geofence). Setting it stores a copy (Apple
    /// declares it `@NSCopying`) and tells the owning item; edits to the stored location do
    /// too.
    open var structuredLocation: EKStructuredLocation? {
        get { storedLocation }
        set {
            storedLocation?.ownerDidChange = nil
            storedLocation = newValue?.copy() as? EKStructuredLocation
            storedLocation?.ownerDidChange = { [weak self] in self?.noteChange() }
            noteChange()
        }
    }

    /// Whether the alarm fires on arriving at (``EKAlarmProximity/enter``) or leaving
    /// (``EKAlarmProximity/leave``) its ``structuredLocation``.
    open var proximity: EKAlarmProximity {
        didSet { noteChange() }
    }

    // MARK: What

    /// What the alarm does, derived as EventKit does: ``EKAlarmType/email`` when
    /// ``emailAddress`` is set, ``EKAlarmType/audio`` when ``soundName`` is,
    /// ``EKAlarmType/procedure`` when ``url`` is, ``EKAlarmType/display`` otherwise.
    open var type: EKAlarmType {
        if storedEmailAddress != nil { return .email }
        if storedSoundName != nil { return .audio }
        if storedURL != nil { return .procedure }
        return .display
    }

    /// The address an e-mail alarm writes to. Setting an address clears ``soundName`` and
    /// ``url``.
    ///
    /// An `EMAIL` alarm read without a `mailto:` attendee reads as the empty string, so it
    /// stays an e-mail alarm.
    open var emailAddress: String? {
        get { storedEmailAddress }
        set {
            storedEmailAddress = newValue
            if newValue != nil {
                storedSoundName = nil
                storedURL = nil
            }
            noteChange()
        }
    }

    /// The name of the sound an audio alarm plays (`ATTACH;VALUE=URI:Chord`). Setting a name
    /// clears ``emailAddress`` and ``url``.
    ///
    /// An `AUDIO` alarm read without a URI attachment (the default sound, or an inline
    /// binary sound) reads as the empty string, so it stays an audio alarm; the empty
    /// string writes no `ATTACH` of its own.
    open var soundName: String? {
        get { storedSoundName }
        set {
            storedSoundName = newValue
            if newValue != nil {
                storedEmailAddress = nil
                storedURL = nil
            }
            noteChange()
        }
    }

    /// The procedure a procedure alarm runs (`ATTACH` of `ACTION:PROCEDURE`). Setting it
    /// clears ``emailAddress`` and ``soundName``.
    ///
    /// Deprecated by Apple; EventKit refuses to save a created or changed procedure alarm
    /// (`EKError.Code.procedureAlarmsNotMutable`), which is the store's check.
    open var url: URL? {
        get { storedURL }
        set {
            storedURL = newValue
            if newValue != nil {
                storedEmailAddress = nil
                storedSoundName = nil
            }
            noteChange()
        }
    }

    /// `EKAlarm <0x…> {triggerDate = …; triggerInterval = -900.0; type = 0; proximity = 0}`.
    open override var description: String {
        let date = absoluteDate.map { String(describing: $0) } ?? "(null)"
        return "EKAlarm <\(Unmanaged.passUnretained(self).toOpaque())> {triggerDate = \(date); "
            + "triggerInterval = \(relativeOffset); type = \(type.rawValue); proximity = \(proximity.rawValue)}"
    }

    // MARK: iCalendar

    /// Apple's proximity property (`ARRIVE`, `DEPART`).
    private static let proximityKind: PropertyKind = "X-APPLE-PROXIMITY"
    /// RFC 9074's proximity property, read when Apple's is absent and kept in step.
    private static let standardProximityKind: PropertyKind = "PROXIMITY"
    /// The alarm identifier Apple and others write next to `UID`.
    private static let alarmUIDKind: PropertyKind = "X-WR-ALARMUID"
    /// The text a new display or e-mail alarm is given (RFC 5545 requires one).
    private static let defaultDescription = "Reminder"

    /// Reads a VALARM.
    ///
    /// `TRIGGER` gives ``relativeOffset`` (a duration, days counted as 86,400 seconds, kept
    /// with its `RELATED`) or ``absoluteDate`` (`VALUE=DATE-TIME`, UTC; a floating time is
    /// read as UTC and a time with a TZID in that zone). `ACTION:EMAIL` gives
    /// ``emailAddress`` from the first `mailto:` `ATTENDEE`; `ACTION:AUDIO` gives
    /// ``soundName`` from a URI `ATTACH`; `ACTION:PROCEDURE` gives ``url`` from `ATTACH`; any
    /// other action (`DISPLAY`, Apple's `NONE`, X- actions) reads as a display alarm and is
    /// written back unchanged unless the type changes. `X-APPLE-PROXIMITY` (or RFC 9074
    /// `PROXIMITY`) gives ``proximity``, `X-APPLE-STRUCTURED-LOCATION` the
    /// ``structuredLocation``.
    package init(component: Component) {
        self.base = component
        self.trigger = component.trigger.map(Self.decodedTrigger)
        let proximityText = (component.property(Self.proximityKind) ?? component.property(Self.standardProximityKind))?
            .rawValue.trimmingCharacters(in: .whitespaces).uppercased()
        switch proximityText {
        case "ARRIVE": self.proximity = .enter
        case "DEPART": self.proximity = .leave
        default: self.proximity = .none
        }
        switch component.action {
        case .email?:
            let mail = component.attendees.lazy.compactMap { $0.uri?.scheme == "mailto" ? $0.emailAddress : nil }.first
            self.storedEmailAddress = mail ?? ""
        case .audio?:
            self.storedSoundName = Self.uriAttachment(component) ?? ""
        case .procedure?:
            self.storedURL = Self.uriAttachment(component).flatMap { URL(string: $0) }
        default:
            break
        }
        super.init()
        if let property = component.property(EKStructuredLocation.structuredLocationKind) {
            self.structuredLocation = EKStructuredLocation(structuredLocation: property)
        }
        self.readState = state
    }

    /// The VALARM to write: the one read, with only the properties whose value changed
    /// rewritten; for a new alarm `ACTION:DISPLAY`, `DESCRIPTION:Reminder` and `TRIGGER`
    /// (plus whatever else was set).
    ///
    /// When the type changes, the new `ACTION` is written, the previous action's `ATTENDEE`
    /// (e-mail) or `ATTACH` (sound, procedure) is removed, and what RFC 5545 requires of the
    /// new action is added when missing: `DESCRIPTION` for a display alarm, `DESCRIPTION` and
    /// `SUMMARY` for an e-mail alarm.
    package var component: Component {
        var component = base
        let current = state
        let read = readState

        let action = current.action
        let actionChanged = read.map { $0.action != action } ?? true
        if actionChanged {
            component.action = action
            if read?.action == .email { component.removeProperties(.attendee) }
            if read?.action == .audio || read?.action == .procedure { component.removeProperties(.attachment) }
            if action == .display || action == .email, component.descriptionText == nil {
                component.descriptionText = Self.defaultDescription
            }
            if action == .email, component.summary == nil { component.summary = Self.defaultDescription }
        }

        if current.trigger != read?.trigger || read == nil {
            component.trigger = current.trigger.map(Self.alarmTrigger)
        }

        switch action {
        case .email where actionChanged || current.emailAddress != read?.emailAddress:
            let address = current.emailAddress ?? ""
            component.attendees = address.isEmpty ? [] : [CalendarUserAddress(address: "mailto:" + address)]
        case .audio where actionChanged || current.soundName != read?.soundName:
            let name = current.soundName ?? ""
            Self.setAttachment(&component, name.isEmpty ? nil : name)
        case .procedure where actionChanged || current.url != read?.url:
            Self.setAttachment(&component, current.url?.absoluteString)
        default:
            break
        }

        if current.proximity != (read?.proximity ?? EKAlarmProximity.none) {
            let text: String? = switch current.proximity {
            case .enter: "ARRIVE"
            case .leave: "DEPART"
            case .none: nil
            }
            component[Self.proximityKind] = text
            if component.property(Self.standardProximityKind) != nil { component[Self.standardProximityKind] = text }
        }

        if current.location != read?.location {
            let index = component.properties.firstIndex { $0.matches(EKStructuredLocation.structuredLocationKind) }
            if let location = storedLocation {
                let property = location.structuredLocationProperty(updating: index.map { component.properties[$0] })
                if let index { component.properties[index] = property } else { component.addProperty(property) }
            } else {
                component.removeProperties(EKStructuredLocation.structuredLocationKind)
            }
        }
        return component
    }

    /// Whether ``relativeOffset`` counts from the end of the event (the due date of a
    /// reminder): a trigger read with `RELATED=END` and not set since.
    package var isRelativeToEnd: Bool {
        if case .relative(_, .end)? = trigger { return true }
        return false
    }

    // MARK: Helpers

    private var state: State {
        State(trigger: trigger, proximity: proximity, emailAddress: storedEmailAddress, soundName: storedSoundName,
              url: storedURL, location: storedLocation.map(LocationValues.init))
    }

    private static func decodedTrigger(_ trigger: AlarmTrigger) -> Trigger {
        switch trigger {
        case .relative(let duration, let related):
            return .relative(TimeInterval(duration.nominalSeconds), related)
        case .absolute(let dateTime):
            let rules: any TimeZoneRules = dateTime.timeZoneIdentifier.flatMap { IANATimeZone(named: $0) } ?? FixedOffsetZone.utc
            let instant = dateTime.zone == .utc ? dateTime.local.secondsSinceEpoch : rules.instant(for: dateTime.local)
            return .absolute(Date(timeIntervalSince1970: TimeInterval(instant)))
        }
    }

    private static func alarmTrigger(_ trigger: Trigger) -> AlarmTrigger {
        switch trigger {
        case .relative(let offset, let related):
            return .relative(duration(offset), relatedTo: related)
        case .absolute(let date):
            let instant = Int64(date.timeIntervalSince1970.rounded(.down))
            return .absolute(DateTime(LocalDateTime(secondsSinceEpoch: instant), zone: .utc))
        }
    }

    /// An offset as a DURATION: whole days as days (`-P1D`), anything else as hours,
    /// minutes and seconds (`-PT15M`, `-PT26H`), rounded to the second.
    private static func duration(_ offset: TimeInterval) -> ICalKit.Duration {
        let seconds = Int(offset.rounded())
        let magnitude = abs(seconds)
        if magnitude != 0 && magnitude % 86_400 == 0 {
            return ICalKit.Duration(isNegative: seconds < 0, days: magnitude / 86_400)
        }
        return ICalKit.Duration(isNegative: seconds < 0, hours: magnitude / 3600, minutes: magnitude % 3600 / 60,
                                seconds: magnitude % 60)
    }

    /// The first `ATTACH` that is a URI (no `VALUE`, or `VALUE=URI`), as written.
    private static func uriAttachment(_ component: Component) -> String? {
        guard let attach = component.property(.attachment) else { return nil }
        guard attach.valueType == nil || attach.valueType == "URI", attach[parameter: .encoding] == nil else { return nil }
        let text = attach.rawValue.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// Sets the first `ATTACH` to a URI (`VALUE=URI`), or removes every `ATTACH` for nil.
    private static func setAttachment(_ component: inout Component, _ uri: String?) {
        guard let uri else { component.removeProperties(.attachment); return }
        var property = component.property(.attachment) ?? Property(.attachment, rawValue: "")
        property.rawValue = uri
        property.setParameter(.encoding, to: nil)
        property.setParameter(.valueType, to: "URI")
        component.setProperty(property)
    }
}
