import Foundation
import Testing

/// The sandbox entitlement on the command line: an app that declares the App Sandbox
/// without the calendars entitlement is restricted whatever the user decided, is never
/// asked, and `ical privacy status --app Info.plist` says why.
@Suite struct EntitlementCommandTests {
    private static let info = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>org.example.boxed</string>
        <key>CFBundleDisplayName</key><string>Boxed</string>
        <key>NSCalendarsFullAccessUsageDescription</key><string>Boxed shows your lessons.</string>
        <key>NSCalendarsWriteOnlyAccessUsageDescription</key><string>Boxed adds lessons.</string>
        </dict></plist>
        """

    private static func entitlements(calendars: Bool) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>com.apple.security.app-sandbox</key><true/>
        \(calendars ? "<key>com.apple.security.personal-information.calendars</key><true/>" : "")
        </dict></plist>
        """
    }

    @Test func aSandboxedAppWithoutTheEntitlementIsRefusedAndToldWhy() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.url.path + "/Boxed", withIntermediateDirectories: true)
        let manifest = try folder.write("Boxed/Info.plist", Self.info)
        let entitlements = try folder.write("Boxed/Boxed.entitlements", Self.entitlements(calendars: false))
        let store = folder.url.path + "/store"
        let environment = ["OPENEVENTKIT_STORE": store]
        var output = try ICalRunner.run(["privacy", "grant", "org.example.boxed", "--events", "full"], environment: environment)
        #expect(output.status == 0, "\(output.stderr)")

        let lessons = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path
        output = try ICalRunner.run(["import", "--app", manifest, lessons], environment: environment)
        #expect(output.status == 77)
        #expect(output.stderr.contains("org.example.boxed has restricted."), "\(output.stderr)")
        #expect(output.stderr.contains("The app is sandboxed (com.apple.security.app-sandbox) without com.apple.security.personal-information.calendars in \(entitlements)"), "\(output.stderr)")

        output = try ICalRunner.run(["privacy", "request", "--app", manifest, "--events", "write-only"], environment: environment)
        #expect(output.status == 1)
        #expect(output.stderr.contains("com.apple.security.personal-information.calendars"), "\(output.stderr)")

        output = try ICalRunner.run(["privacy", "status", "--app", manifest], environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == """
            org.example.boxed
              events:    restricted: the app is sandboxed (com.apple.security.app-sandbox) without com.apple.security.personal-information.calendars in \(entitlements), so it gets no access to events or reminders and is never asked (fullAccess recorded)
              reminders: restricted: the app is sandboxed (com.apple.security.app-sandbox) without com.apple.security.personal-information.calendars in \(entitlements), so it gets no access to events or reminders and is never asked

            """)

        // With the entitlement, the recorded decision holds again.
        _ = try folder.write("Boxed/Boxed.entitlements", Self.entitlements(calendars: true))
        output = try ICalRunner.run(["import", "--app", manifest, lessons], environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
    }
}
