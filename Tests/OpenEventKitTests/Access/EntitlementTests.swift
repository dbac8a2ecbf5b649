import Foundation
import Testing
@testable import OpenEventKit

/// The sandbox entitlement: "To access Calendar data, all sandboxed macOS apps must include
/// the com.apple.security.personal-information.calendars entitlement."
@Suite struct EntitlementTests {
    private static func plist(_ entries: [String: Bool]) -> String {
        let body = entries.sorted { $0.key < $1.key }.map { "<key>\($0.key)</key><\($0.value ? "true" : "false")/>" }.joined()
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>\(body)</dict></plist>
            """
    }

    private static let infoPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>org.example.lessons</string>
        <key>NSCalendarsFullAccessUsageDescription</key><string>Lessons shows your timetable.</string>
        <key>NSCalendarsWriteOnlyAccessUsageDescription</key><string>Lessons adds lessons.</string>
        <key>NSRemindersFullAccessUsageDescription</key><string>Lessons keeps homework.</string>
        </dict></plist>
        """

    private static let sandboxed = [AppEntitlements.appSandbox: true]
    private static let sandboxedWithCalendars = [AppEntitlements.appSandbox: true, AppEntitlements.calendars: true]

    @Test func theEntitlementsFileBesideTheManifestIsRead() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let info = try folder.write("Lessons/Info.plist", Self.infoPlist)
        #expect(try AppManifest(contentsOfFile: info).entitlements == AppEntitlements())
        let file = try folder.write("Lessons/Lessons.entitlements", Self.plist(Self.sandboxed))
        let manifest = try AppManifest(contentsOfFile: info)
        #expect(manifest.entitlements.isSandboxed)
        #expect(!manifest.entitlements.allowsCalendarData)
        #expect(manifest.entitlements.path == file)
        #expect(manifest.entitlements.denialReason?.contains(AppEntitlements.calendars) == true)
    }

    @Test func twoEntitlementsFilesOrAWrongTypeAreErrors() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let info = try folder.write("Lessons/Info.plist", Self.infoPlist)
        try folder.write("Lessons/A.entitlements", Self.plist(Self.sandboxed))
        try folder.write("Lessons/B.entitlements", Self.plist(Self.sandboxed))
        #expect(throws: AccessError.self) { try AppManifest(contentsOfFile: info) }
        try FileManager.default.removeItem(atPath: folder.path + "/Lessons/B.entitlements")
        try folder.write("Lessons/A.entitlements", """
            <plist version="1.0"><dict><key>\(AppEntitlements.appSandbox)</key><string>yes</string></dict></plist>
            """)
        let error = #expect(throws: AccessError.self) { try AppManifest(contentsOfFile: info) }
        #expect(error?.key == AppEntitlements.appSandbox)
        try folder.write("Lessons/A.entitlements", "not a property list")
        #expect(throws: AccessError.self) { try AppManifest(contentsOfFile: info) }
    }

    @Test(arguments: [EKAuthorizationStatus.notDetermined, .denied, .writeOnly, .fullAccess])
    func aSandboxedAppWithoutTheEntitlementHasNoAccessAndIsNeverAsked(prior: EKAuthorizationStatus) async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        for type in EKEntityType.allCases { try setPrior(prior, type, in: folder) }
        var manifest = lessonsManifest()
        manifest.entitlements = AppEntitlements(Self.sandboxed, path: "/apps/Lessons/Lessons.entitlements")
        let (access, prompt) = controller(folder, manifest: manifest, answers: [.allow, .allow, .allow])
        for type in EKEntityType.allCases {
            #expect(access.authorizationStatus(for: type) == .restricted)
            #expect(access.accessLevel(for: type) == .none)
        }
        for request in [AccessController.Request.fullAccessToEvents, .writeOnlyAccessToEvents, .fullAccessToReminders] {
            let (granted, error) = access.respond(to: request)
            #expect(!granted)
            #expect(error?.code == .missingEntitlement)
            #expect(error?.key == AppEntitlements.calendars)
            #expect(error?.path == "/apps/Lessons/Lessons.entitlements")
        }
        #expect(prompt.asked.isEmpty)
        // The implicit upgrade prompt of a write-only fetch is not shown either.
        #expect(access.fetchAttemptedUnderWriteOnly(.event) == .none)
        #expect(prompt.asked.isEmpty)
        // And a store opened as the app reads nothing.
        let store = EKEventStore(backend: try FolderStore.open(at: folder.path), authority: access)
        #expect(store.calendars(for: .event).isEmpty)
    }

    @Test(arguments: [[String: Bool](), [AppEntitlements.calendars: true],
                      [AppEntitlements.appSandbox: false], sandboxedWithCalendars])
    func appsThatMayUseCalendarsAreAskedAsUsual(entitlements: [String: Bool]) async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        var manifest = lessonsManifest()
        manifest.entitlements = AppEntitlements(entitlements)
        let (access, prompt) = controller(folder, manifest: manifest, answers: [.allow])
        #expect(access.authorizationStatus(for: .event) == .notDetermined)
        let (granted, error) = access.respond(to: .fullAccessToEvents)
        #expect(granted)
        #expect(error == nil)
        #expect(prompt.asked.count == 1)
        #expect(access.authorizationStatus(for: .event) == .fullAccess)
    }
}
