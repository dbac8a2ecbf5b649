import Foundation
import Testing
@testable import OpenEventKit

@Suite struct AppManifestTests {
    @Test func readsAnXMLInfoPlist() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let path = try folder.write("Info.plist", infoPlist([
            "CFBundleIdentifier": "org.example.lessons", "CFBundleDisplayName": "Lessons", "CFBundleName": "LessonsApp",
            "NSCalendarsFullAccessUsageDescription": "See your timetable.",
            "NSCalendarsWriteOnlyAccessUsageDescription": "Add lessons.",
            "NSRemindersFullAccessUsageDescription": "Homework reminders.",
            "NSCalendarsUsageDescription": "Old calendars.", "NSRemindersUsageDescription": "Old reminders.",
            "NSContactsUsageDescription": "Attendees.",
        ]))
        let manifest = try AppManifest(contentsOfFile: path)
        #expect(manifest.bundleIdentifier == "org.example.lessons")
        #expect(manifest.displayName == "Lessons")
        #expect(manifest.sdkGeneration == .current)
        #expect(manifest.path == path)
        #expect(manifest.usageDescription(.calendarsFullAccess) == "See your timetable.")
        #expect(manifest.usageDescription(.calendarsWriteOnlyAccess) == "Add lessons.")
        #expect(manifest.usageDescription(.remindersFullAccess) == "Homework reminders.")
        #expect(manifest.usageDescription(.calendars) == "Old calendars.")
        #expect(manifest.usageDescription(.reminders) == "Old reminders.")
        #expect(manifest.usageDescription(.contacts) == "Attendees.")
    }

    @Test func readsABinaryInfoPlistWithTheLegacyGeneration() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let data = try encoder.encode(["CFBundleIdentifier": "org.example.old", "CFBundleName": "Old App",
                                       "NSCalendarsUsageDescription": "Legacy.", "OEKBuiltForSDK": "legacy"])
        #expect(data.starts(with: Array("bplist".utf8)))
        let path = folder.path + "/Info.plist"
        try data.write(to: URL(fileURLWithPath: path))
        let manifest = try AppManifest(contentsOfFile: path)
        #expect(manifest.bundleIdentifier == "org.example.old")
        #expect(manifest.displayName == "Old App")
        #expect(manifest.sdkGeneration == .legacy)
        #expect(manifest.usageDescription(.calendars) == "Legacy.")
        #expect(manifest.usageDescription(.calendarsFullAccess) == nil)
    }

    @Test func displayNameFallsBackToTheBundleIdentifier() throws {
        let manifest = try AppManifest(propertyList: Data(infoPlist(["CFBundleIdentifier": "org.example.bare", "CFBundleName": "  "]).utf8))
        #expect(manifest.displayName == "org.example.bare")
        #expect(manifest.usageDescriptions.isEmpty)
    }

    @Test func aMissingFileIsAnErrorNamingIt() throws {
        let error = #expect(throws: AccessError.self) { try AppManifest(contentsOfFile: "/nonexistent/Lessons/Info.plist") }
        #expect(error?.code == .manifestNotFound)
        #expect(error?.path == "/nonexistent/Lessons/Info.plist")
        #expect(error?.description.hasPrefix("/nonexistent/Lessons/Info.plist: no app manifest here") == true)
    }

    @Test func aFileThatIsNotAPropertyListIsAnErrorNamingIt() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let path = try folder.write("Info.plist", "this is not a property list {")
        let error = #expect(throws: AccessError.self) { try AppManifest(contentsOfFile: path) }
        #expect(error?.code == .manifestInvalid)
        #expect(error?.path == path)
        let folderError = #expect(throws: AccessError.self) { try AppManifest(contentsOfFile: folder.path) }
        #expect(folderError?.code == .manifestInvalid)
    }

    @Test func aManifestWithoutABundleIdentifierIsAnErrorNamingTheFileAndKey() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let path = try folder.write("Info.plist", infoPlist(["CFBundleName": "Nameless"]))
        let error = #expect(throws: AccessError.self) { try AppManifest(contentsOfFile: path) }
        #expect(error?.code == .missingBundleIdentifier)
        #expect(error?.path == path)
        #expect(error?.key == "CFBundleIdentifier")
        #expect(error?.description.contains("CFBundleIdentifier") == true)
    }

    @Test func aKeyOfTheWrongTypeIsNamed() throws {
        let text = infoPlist(["CFBundleIdentifier": "org.example.x"])
            .replacingOccurrences(of: "</dict>", with: "    <key>NSCalendarsFullAccessUsageDescription</key>\n    <integer>3</integer>\n</dict>")
        let error = #expect(throws: AccessError.self) { try AppManifest(propertyList: Data(text.utf8), path: "/x/Info.plist") }
        #expect(error?.code == .manifestInvalid)
        #expect(error?.key == "NSCalendarsFullAccessUsageDescription")
    }

    @Test func anUnknownSDKGenerationIsAnError() throws {
        let error = #expect(throws: AccessError.self) {
            try AppManifest(propertyList: Data(infoPlist(["CFBundleIdentifier": "org.example.x", "OEKBuiltForSDK": "ios16"]).utf8))
        }
        #expect(error?.key == "OEKBuiltForSDK")
    }

    @Test func discoveryOrderIsExplicitThenEnvironmentThenBesideTheExecutable() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let fromEnvironment = try folder.write("env/Info.plist", infoPlist(["CFBundleIdentifier": "org.example.env"]))
        try folder.write("bin/Info.plist", infoPlist(["CFBundleIdentifier": "org.example.beside"]))
        let executable = folder.path + "/bin/tool"
        let explicit = AppManifest(bundleIdentifier: "org.example.explicit")

        #expect(try AppManifest.discover(explicit: explicit, environment: ["OPENEVENTKIT_MANIFEST": fromEnvironment],
                                         executablePath: executable).bundleIdentifier == "org.example.explicit")
        #expect(try AppManifest.discover(explicit: nil, environment: ["OPENEVENTKIT_MANIFEST": fromEnvironment],
                                         executablePath: executable).bundleIdentifier == "org.example.env")
        #expect(try AppManifest.discover(explicit: nil, environment: [:], executablePath: executable).bundleIdentifier == "org.example.beside")

        // A named manifest that is missing is an error, not a reason to look elsewhere.
        let missing = #expect(throws: AccessError.self) {
            try AppManifest.discover(explicit: nil, environment: ["OPENEVENTKIT_MANIFEST": folder.path + "/gone.plist"], executablePath: executable)
        }
        #expect(missing?.path == folder.path + "/gone.plist")
        let none = #expect(throws: AccessError.self) {
            try AppManifest.discover(explicit: nil, environment: [:], executablePath: folder.path + "/elsewhere/tool")
        }
        #expect(none?.code == .manifestNotFound)
        #expect(none?.path == folder.path + "/elsewhere/Info.plist")
        #expect(none?.description.contains("OPENEVENTKIT_MANIFEST") == true)
    }

    @Test func theRunningExecutableIsFound() {
        let path = AppManifest.currentExecutablePath()
        #expect(path?.hasPrefix("/") == true)
        #expect(path.map { FileManager.default.isExecutableFile(atPath: $0) } == true)
    }
}
