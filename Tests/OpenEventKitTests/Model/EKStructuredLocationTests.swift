import Foundation
import ICalKit
import OpenEventKit
import Testing

@Suite struct EKStructuredLocationTests {
    /// Apple's way of writing a place picked on a map (see the iCloud fixture of ICalKit).
    static let appleEvent = """
        BEGIN:VEVENT
        UID:picnic@example.com
        DTSTART:20240913T170000Z
        LOCATION:Golden Gate Park\\nSan Francisco CA 94117\\nUnited States
        X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS="Golden Gate Park, San Francisco CA 94117";X-APPLE-MAPKIT-HANDLE=CAESvAEI;X-APPLE-RADIUS=1016.5218507385254;X-APPLE-REFERENCEFRAME=1;X-TITLE="Golden Gate Park":geo:37.769421,-122.486214
        SUMMARY:Picnic
        END:VEVENT
        """

    @Test func titleOnly() {
        let location = EKStructuredLocation(title: "Room 101")
        #expect(location.title == "Room 101")
        #expect(location.geoLocation == nil)
        #expect(location.radius == 0)
    }

    @Test func settersTellTheOwnerAndGeoLocationIsCopied() {
        let location = EKStructuredLocation(title: "A")
        let counter = ChangeCounter()
        location.ownerDidChange = { counter.count += 1 }
        location.title = "B"
        let geo = CLLocation(latitude: 52.52, longitude: 13.405)
        location.geoLocation = geo
        location.radius = 150
        #expect(counter.count == 3)
        #expect(location.title == "B" && location.radius == 150)
        #expect(location.geoLocation == geo && location.geoLocation !== geo)
        location.title = nil
        #expect(location.title == nil && counter.count == 4)
    }

    @Test func copyHasTheSameValuesAndNoOwner() throws {
        let location = EKStructuredLocation(title: "Park")
        location.geoLocation = CLLocation(latitude: 1, longitude: 2)
        location.radius = 30
        location.ownerDidChange = {}
        let copy = try #require(location.copy() as? EKStructuredLocation)
        #expect(copy !== location && copy.ownerDidChange == nil)
        #expect(copy.title == "Park" && copy.geoLocation == location.geoLocation && copy.radius == 30)
        #expect(copy.description.contains("title = Park; geo = <+1.00000000,+2.00000000>; radius = 30.0"))
    }

    // MARK: Reading

    @Test func readsApplesStructuredLocation() throws {
        let event = try component(.event, in: Self.appleEvent)
        let location = try #require(EKStructuredLocation(component: event))
        #expect(location.title == "Golden Gate Park")
        #expect(location.geoLocation?.coordinate.latitude == 37.769421)
        #expect(location.geoLocation?.coordinate.longitude == -122.486214)
        #expect(location.radius == 1016.5218507385254)
    }

    /// Table: the properties an event has, and the location read from them.
    @Test(arguments: [
        ("LOCATION:Room 101", "Room 101", nil, 0.0),
        ("GEO:37.386013;-122.082932", nil, [37.386013, -122.082932], 0.0),
        ("LOCATION:Office\nGEO:48.1;11.5", "Office", [48.1, 11.5], 0.0),
        ("LOCATION:Office\nX-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-TITLE=\"\":geo:1.5,2.5", "Office", [1.5, 2.5], 0.0),
        ("X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-APPLE-RADIUS=70;X-TITLE=Home:geo:10,20;u=35", "Home", [10, 20], 70.0),
        ("GEO:1;2\nX-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-TITLE=Home:geo:3,4", "Home", [3, 4], 0.0),
    ] as [(String, String?, [Double]?, Double)])
    func readsLocationProperties(_ properties: String, _ title: String?, _ geo: [Double]?, _ radius: Double) throws {
        let event = try component(.event, in: "BEGIN:VEVENT\nUID:x\n\(properties)\nEND:VEVENT")
        let location = try #require(EKStructuredLocation(component: event))
        #expect(location.title == title)
        #expect(location.geoLocation.map { [$0.coordinate.latitude, $0.coordinate.longitude] } == geo)
        #expect(location.radius == radius)
    }

    @Test func noLocationProperties() throws {
        let event = try component(.event, in: "BEGIN:VEVENT\nUID:x\nSUMMARY:Nowhere\nEND:VEVENT")
        #expect(EKStructuredLocation(component: event) == nil)
    }

    // MARK: Writing

    @Test func unchangedLocationChangesNothing() throws {
        let event = try component(.event, in: Self.appleEvent)
        let location = try #require(EKStructuredLocation(component: event))
        var written = event
        location.apply(to: &written)
        #expect(written == event)
    }

    /// A new title replaces LOCATION and X-TITLE and nothing else: the other parameters of
    /// X-APPLE-STRUCTURED-LOCATION stay, and no GEO appears, as the coordinates did not change.
    @Test func newTitle() throws {
        let event = try component(.event, in: Self.appleEvent)
        let location = try #require(EKStructuredLocation(component: event))
        location.title = "Stow Lake"
        var written = event
        location.apply(to: &written)
        #expect(written.location == "Stow Lake")
        #expect(written.property(.geographicPosition) == nil)
        let structured = try #require(written.property("X-APPLE-STRUCTURED-LOCATION"))
        #expect(structured[parameter: "X-TITLE"] == "Stow Lake")
        #expect(structured[parameter: "X-APPLE-MAPKIT-HANDLE"] == "CAESvAEI")
        #expect(structured[parameter: "X-APPLE-RADIUS"] == "1016.5218507385254")
        #expect(structured.rawValue == "geo:37.769421,-122.486214")
        #expect(written.properties.map(\.name) == event.properties.map(\.name))
    }

    @Test func newCoordinatesAndRadius() throws {
        let event = try component(.event, in: Self.appleEvent)
        let location = try #require(EKStructuredLocation(component: event))
        location.geoLocation = CLLocation(latitude: 37.7694, longitude: -122.4862)
        location.radius = 0
        var written = event
        location.apply(to: &written)
        #expect(written.geographicPosition == GeographicPosition(latitude: 37.7694, longitude: -122.4862))
        let structured = try #require(written.property("X-APPLE-STRUCTURED-LOCATION"))
        #expect(structured.rawValue == "geo:37.7694,-122.4862")
        #expect(structured[parameter: "X-APPLE-RADIUS"] == nil)
        #expect(structured[parameter: "X-TITLE"] == "Golden Gate Park")
        #expect(written.location == event.location)  // the title did not change
    }

    @Test func newLocationOnAnEmptyEvent() throws {
        var event = Component(kind: .event)
        event.uid = "new@example.com"
        let location = EKStructuredLocation(title: "Apple Park")
        location.geoLocation = CLLocation(latitude: 37.3349, longitude: -122.009)
        location.radius = 100
        location.apply(to: &event)
        #expect(lines(event) == [
            "UID:new@example.com",
            "LOCATION:Apple Park",
            "GEO:37.3349;-122.009",
            "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-APPLE-RADIUS=100.0;X-TITLE=Apple Park:geo:37.3349,-122.009",
        ])
        #expect(EKStructuredLocation(component: event).map { ($0.title, $0.radius) } ?? (nil, 0) == ("Apple Park", 100))
    }

    /// A title-only location leaves only LOCATION: GEO and X-APPLE-STRUCTURED-LOCATION go.
    @Test func removingTheCoordinates() throws {
        var event = try component(.event, in: Self.appleEvent)
        event.geographicPosition = GeographicPosition(latitude: 37.769421, longitude: -122.486214)
        EKStructuredLocation(title: "Somewhere").apply(to: &event)
        #expect(event.location == "Somewhere")
        #expect(event.property(.geographicPosition) == nil)
        #expect(event.property("X-APPLE-STRUCTURED-LOCATION") == nil)
        #expect(event.summary == "Picnic" && event.uid == "picnic@example.com")
    }

    @Test func removeFromComponent() throws {
        var event = try component(.event, in: Self.appleEvent + "\n")
        event.geographicPosition = GeographicPosition(latitude: 1, longitude: 2)
        EKStructuredLocation.remove(from: &event)
        #expect(event.location == nil && event.geographicPosition == nil)
        #expect(event.property("X-APPLE-STRUCTURED-LOCATION") == nil)
        #expect(lines(event) == ["UID:picnic@example.com", "DTSTART:20240913T170000Z", "SUMMARY:Picnic"])
    }

    /// The VALARM form: X-APPLE-STRUCTURED-LOCATION alone, other parameters kept.
    @Test func alarmProperty() throws {
        let property = Property(name: "X-APPLE-STRUCTURED-LOCATION",
                                parameters: [Parameter(name: "VALUE", value: "URI"), Parameter(name: "X-ADDRESS", value: "Main St 1"),
                                             Parameter(name: "X-APPLE-RADIUS", value: "70"), Parameter(name: "X-TITLE", value: "Home")],
                                rawValue: "geo:10,20")
        let location = EKStructuredLocation(structuredLocation: property)
        #expect(location.title == "Home" && location.radius == 70)
        #expect(location.structuredLocationProperty(updating: property) == property)
        location.radius = 120
        let updated = location.structuredLocationProperty(updating: property)
        #expect(updated.parameters.map(\.name) == ["VALUE", "X-ADDRESS", "X-APPLE-RADIUS", "X-TITLE"])
        #expect(updated[parameter: "X-APPLE-RADIUS"] == "120.0" && updated.rawValue == "geo:10,20")
        let titleOnly = EKStructuredLocation(title: "Work").structuredLocationProperty(updating: nil)
        #expect(titleOnly == Property(name: "X-APPLE-STRUCTURED-LOCATION",
                                      parameters: [Parameter(name: "VALUE", value: "URI"), Parameter(name: "X-TITLE", value: "Work")],
                                      rawValue: ""))
    }
}
