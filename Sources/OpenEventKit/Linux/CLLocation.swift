// Linux-only stand-in for the few CoreLocation names EventKit's API uses.
//
// EventKit's `EKStructuredLocation.geoLocation` is a `CLLocation`, and CoreLocation does not
// exist on Linux. These declarations keep Apple's spellings (type names, initializer labels,
// property names) so code written against EventKit compiles unchanged, but they carry only
// what a calendar needs: a latitude and a longitude. Where CoreLocation exists, they are left
// out and CoreLocation's own types are used.

#if !canImport(CoreLocation)
import Foundation

/// A latitude or longitude in degrees (CoreLocation's `CLLocationDegrees`).
///
/// Linux-only stand-in with Apple's spelling; see `CLLocation`.
public typealias CLLocationDegrees = Double

/// A latitude and longitude in degrees, WGS 84 (CoreLocation's `CLLocationCoordinate2D`).
///
/// Linux-only stand-in with Apple's spellings; see `CLLocation`.
public struct CLLocationCoordinate2D: Sendable {
    /// Degrees north of the equator (negative south), -90...90.
    public var latitude: CLLocationDegrees
    /// Degrees east of the prime meridian (negative west), -180...180.
    public var longitude: CLLocationDegrees

    /// A coordinate at latitude and longitude 0.
    public init() {
        self.latitude = 0
        self.longitude = 0
    }

    /// A coordinate with the given latitude and longitude.
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A geographic position (CoreLocation's `CLLocation`), reduced to its coordinate.
///
/// This is a Linux-only stand-in: CoreLocation does not exist on Linux, and EventKit's
/// ``EKStructuredLocation/geoLocation`` needs the type. It keeps Apple's names for what it has
/// (``init(latitude:longitude:)`` and ``coordinate``) and has none of the rest (altitude,
/// accuracy, speed, course, timestamp, distance). Like Apple's, it is immutable.
open class CLLocation: NSObject, NSCopying {
    /// The latitude and longitude.
    public let coordinate: CLLocationCoordinate2D

    /// A location at the given latitude and longitude, in degrees.
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        super.init()
    }

    /// A new location with the same coordinate.
    open func copy(with zone: NSZone? = nil) -> Any {
        CLLocation(latitude: coordinate.latitude, longitude: coordinate.longitude)
    }

    /// Two locations are equal when their coordinates are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLLocation else { return false }
        return coordinate.latitude == other.coordinate.latitude && coordinate.longitude == other.coordinate.longitude
    }

    /// A hash consistent with ``isEqual(_:)``.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(coordinate.latitude)
        hasher.combine(coordinate.longitude)
        return hasher.finalize()
    }

    /// `<+37.33174100,-122.03033300>`, CoreLocation's way of writing the coordinate.
    open override var description: String {
        func signed(_ value: Double) -> String {
            (value >= 0 ? "+" : "") + String(format: "%.8f", value)
        }
        return "<\(signed(coordinate.latitude)),\(signed(coordinate.longitude))>"
    }
}
#endif
