import Foundation
import OpenEventKit
import Testing

/// The Linux stand-in for CoreLocation's CLLocation keeps Apple's spellings.
@Suite struct CLLocationTests {
    @Test func coordinate() {
        let location = CLLocation(latitude: 37.769421, longitude: -122.486214)
        #expect(location.coordinate.latitude == 37.769421)
        #expect(location.coordinate.longitude == -122.486214)
        let coordinate = CLLocationCoordinate2D(latitude: 1.5, longitude: 2.5)
        #expect(coordinate.latitude == 1.5 && coordinate.longitude == 2.5)
        let origin = CLLocationCoordinate2D()
        #expect(origin.latitude == 0 && origin.longitude == 0)
        let degrees: CLLocationDegrees = 12.25
        #expect(CLLocation(latitude: degrees, longitude: degrees).coordinate.longitude == 12.25)
    }

    @Test func equalityCopyAndDescription() throws {
        let location = CLLocation(latitude: 37.769421, longitude: -122.486214)
        let copy = try #require(location.copy() as? CLLocation)
        #expect(copy !== location && copy == location && copy.hash == location.hash)
        #expect(location != CLLocation(latitude: 37.769421, longitude: -122.0))
        #expect(location.description == "<+37.76942100,-122.48621400>")
    }
}
