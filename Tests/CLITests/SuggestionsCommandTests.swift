import Foundation
import Testing

/// `ical suggestions list|accept|dismiss`: the user's side of the suggestion inbox (donations
/// come from OpenEventKitIntents, tested in SeedCodeTests; here the inbox file is written as
/// a donation leaves it).
@Suite struct SuggestionsCommandTests {
    static func inbox(_ entries: [(reference: String, title: String, start: String, end: String)]) -> String {
        "[" + entries.map { entry in
            """
            {"app": "org.example.tables", "appName": "Table Booker", "reference": "\(entry.reference)", "kind": "restaurant",
             "title": "\(entry.title)", "start": "\(entry.start)", "end": "\(entry.end)", "timeZone": "Europe/Berlin",
             "location": "Trattoria Roma, Hauptstr. 1", "latitude": 52.5, "longitude": 13.4,
             "notes": "Table for 4. Reservation number \(entry.reference). Suggested by Table Booker.",
             "url": "https://tables.example/\(entry.reference)", "donated": "2026-11-20T10:00:00Z"}
            """
        }.joined(separator: ",") + "]"
    }

    @Test func theUserListsAcceptsAndDismissesSuggestions() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let environment = ["OPENEVENTKIT_STORE": store, "TZ": "Europe/Berlin"]
        func ical(_ arguments: [String]) throws -> ICalRunner.Output { try ICalRunner.run(arguments, environment: environment) }

        #expect(try ical(["suggestions", "list"]).stdout == "No event suggestions.\n")
        _ = try ical(["privacy", "grant", "org.openeventkit.ical", "--events", "full"])
        _ = try ical(["calendars", "create", "Family"])
        try FileManager.default.createDirectory(atPath: store + "/.openeventkit", withIntermediateDirectories: true)
        try Data(Self.inbox([("t1", "Dinner at Trattoria Roma", "2026-12-04T18:30:00Z", "2026-12-04T20:30:00Z"),
                             ("t2", "Lunch with the choir", "2026-12-06T11:00:00Z", "2026-12-06T12:30:00Z")]).utf8)
            .write(to: URL(fileURLWithPath: store + "/.openeventkit/suggestions.json"))

        let listed = try ical(["suggestions", "list"])
        #expect(listed.stdout == """
              1  Fri 4 Dec 2026 19:30–21:30 (Europe/Berlin)  Dinner at Trattoria Roma @ Trattoria Roma, Hauptstr. 1  (from Table Booker, restaurant)
              2  Sun 6 Dec 2026 12:00–13:30 (Europe/Berlin)  Lunch with the choir @ Trattoria Roma, Hauptstr. 1  (from Table Booker, restaurant)

            """, "\(listed.stdout)\(listed.stderr)")

        let missing = try ical(["suggestions", "accept", "3"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "ical suggestions accept: there is no suggestion 3; the inbox has 2 (see ical suggestions list)\n")

        let accepted = try ical(["suggestions", "accept", "1", "--calendar", "Family"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.hasPrefix("Added “Dinner at Trattoria Roma” to Family ("))
        let agenda = try ical(["query", "--at", "2026-12-04"]).stdout
        #expect(agenda.contains("  19:30-21:30  Dinner at Trattoria Roma @ Trattoria Roma, Hauptstr. 1 (Europe/Berlin)\n"), "\(agenda)")
        let json = try ical(["query", "--at", "2026-12-04", "--format", "ics"]).stdout.replacingOccurrences(of: "\r\n ", with: "")
        #expect(json.contains("GEO:52.5;13.4\r\n"), "\(json)")
        #expect(json.contains("URL:https://tables.example/t1\r\n"))
        #expect(json.contains("DESCRIPTION:Table for 4. Reservation number t1. Suggested by Table Booker.\r\n"))

        #expect(try ical(["suggestions", "dismiss", "1"]).stdout == "Dismissed “Lunch with the choir”.\n")
        #expect(try ical(["suggestions", "list"]).stdout == "No event suggestions.\n")
        #expect(try ical(["query", "--at", "2026-12-06"]).stdout.isEmpty, "a dismissed suggestion adds nothing")
    }

    @Test func aDamagedInboxIsReported() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        try FileManager.default.createDirectory(atPath: store + "/.openeventkit", withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: store + "/.openeventkit/suggestions.json"))
        let output = try ICalRunner.run(["suggestions", "list", "--store", store])
        #expect(output.status == 1)
        #expect(output.stderr == "ical suggestions list: \(store)/.openeventkit/suggestions.json is not a list of suggestions; remove it to start an empty inbox\n")
    }
}
