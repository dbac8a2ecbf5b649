import Foundation
import ICalKit
#if canImport(CoreLocation)
import CoreLocation
#endif

/// A place: a title, optionally with coordinates and a geofence radius.
///
/// Events and reminders have one (`EKCalendarItem.structuredLocation`); an alarm's
/// ``EKAlarm/structuredLocation`` is the geofence a proximity alarm watches.
///
/// In iCalendar a location is spread over three properties: `LOCATION` (the text), `GEO`
/// (RFC 5545 coordinates) and Apple's de-facto `X-APPLE-STRUCTURED-LOCATION`, whose value is
/// a `geo:` URI and whose `X-TITLE` and `X-APPLE-RADIUS` parameters hold the title and the
/// radius:
///
/// ```
/// LOCATION:Golden Gate Park\nSan Francisco CA 94117
/// X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-APPLE-RADIUS=1016.52;X-TITLE="Golden Gate Park":geo:37.769421,-122.486214
/// ```
///
/// `init(mapItem:)` is not available: MapKit does not exist on Linux.
open class EKStructuredLocation: EKObject, NSCopying {
    /// The name shown for the place. Setting it tells the owning item.
    open var title: String? {
        didSet { noteChange() }
    }

    /// The coordinates of the place, nil when unknown. Setting it tells the owning item.
    @NSCopying open var geoLocation: CLLocation? {
        didSet { noteChange() }
    }

    /// The geofence radius in metres; 0 means the system default. Setting it tells the
    /// owning item.
    open var radius: Double {
        didSet { noteChange() }
    }

    /// A location with only a title.
    public convenience init(title: String) {
        self.init(title: title, geoLocation: nil, radius: 0)
    }

    /// A location with a title, coordinates and radius.
    package init(title: String?, geoLocation: CLLocation?, radius: Double) {
        self.title = title
        self.geoLocation = geoLocation?.copy() as? CLLocation
        self.radius = radius
        super.init()
    }

    /// A new location with the same title, coordinates and radius. The copy belongs to no
    /// item.
    open func copy(with zone: NSZone? = nil) -> Any {
        EKStructuredLocation(title: title, geoLocation: geoLocation, radius: radius)
    }

    /// `EKStructuredLocation <0x…> {title = Park; geo = <+37.76942100,-122.48621400>; radius = 0.0}`.
    open override var description: String {
        let geo = geoLocation.map { String(describing: $0) } ?? "(null)"
        return "EKStructuredLocation <\(Unmanaged.passUnretained(self).toOpaque())> {title = \(title ?? "(null)"); geo = \(geo); radius = \(radius)}"
    }

    // MARK: iCalendar

    /// Apple's `X-APPLE-STRUCTURED-LOCATION` property.
    package static let structuredLocationKind: PropertyKind = "X-APPLE-STRUCTURED-LOCATION"
    /// The title parameter of `X-APPLE-STRUCTURED-LOCATION`.
    private static let titleParameter: ParameterKind = "X-TITLE"
    /// The radius parameter of `X-APPLE-STRUCTURED-LOCATION`, in metres.
    private static let radiusParameter: ParameterKind = "X-APPLE-RADIUS"

    /// Reads the location of an event or to-do, or nil when it has none of `LOCATION`, `GEO`
    /// and `X-APPLE-STRUCTURED-LOCATION`.
    ///
    /// The title is the `X-TITLE` parameter when present and not empty, else the `LOCATION`
    /// text; the coordinates are those of the `geo:` value, else those of `GEO`; the radius is
    /// `X-APPLE-RADIUS`, else 0.
    package convenience init?(component: Component) {
        guard let values = Values(component) else { return nil }
        self.init(values)
    }

    /// Reads the `X-APPLE-STRUCTURED-LOCATION` of an alarm (its geofence).
    package convenience init(structuredLocation property: Property) {
        self.init(Values(structured: property, text: nil, geographicPosition: nil))
    }

    private convenience init(_ values: Values) {
        self.init(title: values.title,
                  geoLocation: values.coordinate.map { CLLocation(latitude: $0.latitude, longitude: $0.longitude) },
                  radius: values.radius)
    }

    /// Writes this location onto an event or to-do, changing only what differs from the
    /// location the component already holds (as ``init(component:)`` reads it); all other
    /// properties are left alone.
    ///
    /// A new title sets `LOCATION` (removed for nil) and the `X-TITLE` of an existing
    /// `X-APPLE-STRUCTURED-LOCATION`. New coordinates set `GEO` and the `geo:` value of
    /// `X-APPLE-STRUCTURED-LOCATION` (creating it with `VALUE=URI`, `X-APPLE-RADIUS` and
    /// `X-TITLE` when absent); nil coordinates remove both, and with them the radius, which
    /// has nowhere else to live. A new radius sets `X-APPLE-RADIUS` (removed for 0). Other
    /// parameters of `X-APPLE-STRUCTURED-LOCATION` (`X-ADDRESS`, `X-APPLE-MAPKIT-HANDLE`) are
    /// kept.
    package func apply(to component: inout Component) {
        let current = Values(component)
        let desired = Values(self)
        guard !Self.same(current, desired) else { return }
        let titleChanged = current?.title != desired.title
        let coordinateChanged = current?.coordinate != desired.coordinate
        let radiusChanged = (current?.radius ?? 0) != desired.radius

        if titleChanged { component.location = desired.title }
        if coordinateChanged {
            component.geographicPosition = desired.coordinate.flatMap {
                GeographicPosition(latitude: $0.latitude, longitude: $0.longitude)
            }
        }
        let index = component.properties.firstIndex { $0.matches(Self.structuredLocationKind) }
        guard desired.coordinate != nil else {
            component.removeProperties(Self.structuredLocationKind)
            return
        }
        if let index {
            Self.update(&component.properties[index], to: desired,
                        title: titleChanged, coordinate: coordinateChanged, radius: radiusChanged)
        } else if coordinateChanged || radiusChanged {
            component.addProperty(structuredLocationProperty(updating: nil))
        }
    }

    /// Removes `LOCATION`, `GEO` and `X-APPLE-STRUCTURED-LOCATION`: the item has no location.
    package static func remove(from component: inout Component) {
        component.removeProperties(.location)
        component.removeProperties(.geographicPosition)
        component.removeProperties(structuredLocationKind)
    }

    /// The `X-APPLE-STRUCTURED-LOCATION` property for this location: `existing` with only
    /// the value and the parameters that differ rewritten (its other parameters kept), or a
    /// new property with `VALUE=URI`, `X-APPLE-RADIUS` (when not 0) and `X-TITLE` (when set).
    /// Without coordinates the value is empty (an alarm's geofence with only a title).
    package func structuredLocationProperty(updating existing: Property?) -> Property {
        let desired = Values(self)
        guard var property = existing else {
            var property = Property(Self.structuredLocationKind, rawValue: desired.coordinate.flatMap(Self.geoURI) ?? "")
            property.setParameter(.valueType, to: "URI")
            if desired.radius != 0 { property.setParameter(Self.radiusParameter, to: Self.radiusText(desired.radius)) }
            if let title = desired.title { property.setParameter(Self.titleParameter, to: title) }
            return property
        }
        let current = Self.decode(property)
        Self.update(&property, to: desired, title: current.title != desired.title,
                    coordinate: current.coordinate != desired.coordinate, radius: (current.radius ?? 0) != desired.radius)
        return property
    }

    // MARK: Helpers

    /// What the three properties say, decoded.
    fileprivate struct Values {
        var title: String?
        var coordinate: Coordinate?
        var radius: Double
        }

    fileprivate struct Coordinate: Equatable {
        var latitude: Double
        var longitude: Double
    }

    /// The decoded parts of one `X-APPLE-STRUCTURED-LOCATION`.
    fileprivate struct Structured {
        var title: String?
        var coordinate: Coordinate?
        var radius: Double?
    }

    /// Whether two readings say the same thing (no location reads as no title, no
    /// coordinates and radius 0).
    private static func same(_ lhs: Values?, _ rhs: Values?) -> Bool {
        lhs?.title == rhs?.title && lhs?.coordinate == rhs?.coordinate && (lhs?.radius ?? 0) == (rhs?.radius ?? 0)
    }

    /// Rewrites the parts of an `X-APPLE-STRUCTURED-LOCATION` that changed: the `geo:` value,
    /// `X-APPLE-RADIUS` (removed for 0) and `X-TITLE` (removed for nil).
    private static func update(_ property: inout Property, to desired: Values, title: Bool, coordinate: Bool, radius: Bool) {
        if coordinate { property.rawValue = desired.coordinate.flatMap(geoURI) ?? "" }
        if radius { property.setParameter(radiusParameter, to: desired.radius == 0 ? nil : radiusText(desired.radius)) }
        if title { property.setParameter(titleParameter, to: desired.title) }
    }

    /// `geo:37.769421,-122.486214` (RFC 5870), or nil for coordinates out of range.
    private static func geoURI(_ coordinate: Coordinate) -> String? {
        guard let position = GeographicPosition(latitude: coordinate.latitude, longitude: coordinate.longitude) else {
            return nil
        }
        return "geo:" + position.iCalendarText.replacingOccurrences(of: ";", with: ",")
    }

    /// Reads the latitude and longitude of a `geo:` URI (`geo:lat,lon[,alt][;params]`).
    private static func coordinate(geoURI text: String) -> Coordinate? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("geo:") else { return nil }
        let body = trimmed.dropFirst(4).prefix { $0 != ";" }
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count >= 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
              latitude.isFinite, longitude.isFinite else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// A radius as written: `1016.5218507385254`, `100.0`.
    private static func radiusText(_ radius: Double) -> String {
        radius.description
    }

    fileprivate static func decode(_ property: Property) -> Structured {
        let title = property[parameter: titleParameter].flatMap { $0.isEmpty ? nil : $0 }
        let radius = property[parameter: radiusParameter].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return Structured(title: title, coordinate: coordinate(geoURI: property.rawValue),
                          radius: radius.flatMap { $0.isFinite ? $0 : nil })
    }
}

extension EKStructuredLocation.Values {
    /// What a component's `LOCATION`, `GEO` and `X-APPLE-STRUCTURED-LOCATION` say; nil when
    /// it has none of them.
    init?(_ component: Component) {
        let structured = component.property(EKStructuredLocation.structuredLocationKind)
        let text = component.location
        let position = component.geographicPosition
        guard structured != nil || text != nil || position != nil else { return nil }
        self.init(structured: structured, text: text, geographicPosition: position)
    }

    init(structured property: Property?, text: String?, geographicPosition: GeographicPosition?) {
        let structured = property.map(EKStructuredLocation.decode)
        self.title = structured?.title ?? text
        self.coordinate = structured?.coordinate
            ?? geographicPosition.map { EKStructuredLocation.Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        self.radius = structured?.radius ?? 0
    }

    /// What a location object says.
    init(_ location: EKStructuredLocation) {
        self.title = location.title
        self.coordinate = location.geoLocation.map {
            EKStructuredLocation.Coordinate(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude)
        }
        self.radius = location.radius
    }
}
