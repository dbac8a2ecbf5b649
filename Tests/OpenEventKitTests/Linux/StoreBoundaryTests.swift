import Foundation
import Testing
@testable import OpenEventKit

/// ``StoreBoundary``: which paths lead into a store, however they are spelled.
@Suite struct StoreBoundaryTests {
    /// `base/configured` (a khal-style vdir without a marker, configured by path),
    /// `base/marked` (a store found by its `.openeventkit/` marker), and a plain folder.
    private struct Layout {
        let folder: StoreFolder
        var base: String { folder.path }
        init() throws {
            folder = try StoreFolder()
            try folder.write("configured/work/a.ics", "x")
            try folder.write("marked/.openeventkit/store.json", "{}")
            try folder.write("marked/calendar/b.ics", "x")
            try folder.write("plain/c.ics", "x")
            let manager = FileManager.default
            try manager.createSymbolicLink(atPath: base + "/plain/to-marked", withDestinationPath: base + "/marked")
            try manager.createSymbolicLink(atPath: base + "/plain/to-item.ics", withDestinationPath: "../marked/calendar/b.ics")
            try manager.createSymbolicLink(atPath: base + "/plain/dangling.ics", withDestinationPath: base + "/configured/work/new.ics")
            try manager.createSymbolicLink(atPath: base + "/plain/loop", withDestinationPath: base + "/plain/loop")
        }
        var boundary: StoreBoundary { StoreBoundary(configuredStores: [base + "/configured", base + "/does-not-exist"]) }
        func real(_ relative: String) -> String { (StoreSystem.realPath(base) ?? base) + "/" + relative }
    }

    @Test func findsConfiguredAndMarkedStoresByEverySpelling() throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let boundary = layout.boundary
        let cases: [(String, String?, StoreBoundary.Location.Part?)] = [
            ("configured", "configured", .root),
            ("configured/", "configured", .root),
            ("configured/work", "configured", .collection("work")),
            ("configured/work/a.ics", "configured", .collection("work")),
            ("configured/work/new.ics", "configured", .collection("work")),        // not there yet
            ("configured/new/deeper/x.ics", "configured", .collection("new")),
            ("plain/../configured/./work", "configured", .collection("work")),
            ("marked", "marked", .root),
            ("marked/.openeventkit/store.json", "marked", .metadata),
            ("marked/calendar/b.ics", "marked", .collection("calendar")),
            ("plain/to-marked", "marked", .root),
            ("plain/to-marked/calendar/b.ics", "marked", .collection("calendar")),
            ("plain/to-item.ics", "marked", .collection("calendar")),
            ("plain/dangling.ics", "configured", .collection("work")),             // a link to a file not there yet
            ("plain", nil, nil),
            ("plain/c.ics", nil, nil),
            ("plain/new.ics", nil, nil),
            ("plain/loop", nil, nil),
            ("", nil, nil),
        ]
        for (relative, store, part) in cases {
            let location = boundary.location(of: layout.base + "/" + relative)
            #expect(location?.storeRoot == store.map(layout.real), "\(relative)")
            #expect(location?.part == part, "\(relative)")
        }
    }

    @Test func comparesFoldersByDeviceAndInodeNotByName() throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        // The configured store named through a link is the same store.
        try FileManager.default.createSymbolicLink(atPath: layout.base + "/alias", withDestinationPath: layout.base + "/configured")
        let boundary = StoreBoundary(configuredStores: [layout.base + "/alias"])
        #expect(boundary.location(of: layout.base + "/configured/work/a.ics")?.part == .collection("work"))
        #expect(boundary.isStoreRoot(layout.base + "/configured"))
        #expect(!boundary.isStoreRoot(layout.base + "/plain"))
    }

    @Test func relativePathsResolveAgainstTheWorkingDirectory() throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let saved = FileManager.default.currentDirectoryPath
        defer { FileManager.default.changeCurrentDirectoryPath(saved) }
        #expect(FileManager.default.changeCurrentDirectoryPath(layout.base + "/plain"))
        let boundary = layout.boundary
        #expect(boundary.location(of: "../marked/calendar")?.part == .collection("calendar"))
        #expect(boundary.location(of: "to-marked/new.ics")?.part == .collection("new.ics"))
        #expect(boundary.location(of: "c.ics") == nil)
        #expect(boundary.location(of: "../configured")?.relativePath == "")
    }

    @Test func theLocationNamesItsPlaceInTheStore() throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let location = try #require(layout.boundary.location(of: layout.base + "/marked/calendar/b.ics"))
        #expect(location.relativePath == "calendar/b.ics")
        #expect(location.isItemLevel)
        #expect(location.resolvedPath == layout.real("marked/calendar/b.ics"))
        #expect(location.description == "calendar 'calendar' of the store at \(layout.real("marked"))")
    }
}
