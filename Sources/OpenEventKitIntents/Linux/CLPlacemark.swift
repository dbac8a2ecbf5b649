// Linux-only stand-ins for the CoreLocation, Contacts and Foundation names the Intents slice
// uses: `CLPlacemark` (a named place), `CNPostalAddress` and `NSUserActivity`, reduced to what
// an event suggestion needs. Where the real frameworks exist they are left out.

#if !canImport(Darwin)
import Foundation
import OpenEventKit

/// A postal address (Contacts' `CNPostalAddress`), reduced to its lines. Linux-only stand-in.
open class CNPostalAddress: NSObject, @unchecked Sendable {
    /// The street, with the house number.
    public let street: String
    /// The city.
    public let city: String
    /// The postal code.
    public let postalCode: String
    /// The country.
    public let country: String

    /// An address from its lines (each may be empty).
    public init(street: String = "", city: String = "", postalCode: String = "", country: String = "") {
        self.street = street
        self.city = city
        self.postalCode = postalCode
        self.country = country
        super.init()
    }

    /// The address on one line: `Infinite Loop 1, 95014 Cupertino, USA`.
    var singleLine: String {
        [street, [postalCode, city].filter { !$0.isEmpty }.joined(separator: " "), country].filter { !$0.isEmpty }.joined(separator: ", ")
    }
}

/// A named place (CoreLocation's `CLPlacemark`), reduced to a location, a name and an address.
/// Linux-only stand-in with Apple's initializer.
open class CLPlacemark: NSObject, @unchecked Sendable {
    /// Where the place is.
    public let location: CLLocation?
    /// The place's name, such as "Caffè Macs".
    public let name: String?
    /// Its postal address.
    public let postalAddress: CNPostalAddress?

    /// A place at a location, with a name and an address (CoreLocation's
    /// `init(location:name:postalAddress:)`).
    public init(location: CLLocation, name: String?, postalAddress: CNPostalAddress?) {
        self.location = location
        self.name = name
        self.postalAddress = postalAddress
        super.init()
    }
}

/// An activity to continue in the app (Foundation's `NSUserActivity`), reduced to its type.
/// Linux-only stand-in: event suggestions keep no user activity.
open class NSUserActivity: NSObject, @unchecked Sendable {
    /// The activity's type, a reverse-DNS string.
    public let activityType: String

    /// An activity of a type.
    public init(activityType: String) {
        self.activityType = activityType
        super.init()
    }
}
#endif
