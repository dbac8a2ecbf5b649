import Foundation
@testable import OpenEventKit
import Testing

/// The small pieces of the CalDAV client that the server tests reach only with one spelling:
/// the shape check of a server's item, href canonicalisation, trimming, multistatus parsing
/// one response at a time, and markup escaping.
@Suite struct RemotePiecesTests {
    @Test func anItemIsCheckedOnItsBytesInAnyCase() {
        let upper = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(RemoteSyncEngine.checkedItem(upper) == Array(upper.utf8))
        let lower = "\u{FEFF}begin:vcalendar\r\nbegin:vtodo\r\nuid:a\r\nend:vtodo\r\nend:vcalendar\r\n"
        #expect(RemoteSyncEngine.checkedItem(lower) != nil)
        #expect(RemoteSyncEngine.checkedItem("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n") == nil, "no END:VCALENDAR")
        #expect(RemoteSyncEngine.checkedItem("BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nEND:VTIMEZONE\r\nEND:VCALENDAR") == nil, "no item")
        #expect(RemoteSyncEngine.checkedItem("<html>BEGIN:VCALENDAR BEGIN:VEVENT END:VCALENDAR") == nil, "not at the start")
        #expect(RemoteSyncEngine.checkedItem("BEGIN:VCALENDAR\nBEGIN:VEVEN\nEND:VCALENDA") == nil, "cut words")
    }

    @Test func hrefsHaveOneSpelling() {
        #expect(DAVResponse.canonicalHref("/alice/lessons/a.ics") == "/alice/lessons/a.ics")
        #expect(DAVResponse.canonicalHref("/alice/lessons/a%40b.ics") == "/alice/lessons/a@b.ics")
        #expect(DAVResponse.canonicalHref("/alice/lessons/a b.ics") == "/alice/lessons/a%20b.ics")
        #expect(DAVResponse.canonicalHref("/alice/lessons/a%20b.ics") == "/alice/lessons/a%20b.ics")
        #expect(DAVResponse.canonicalHref("http://127.0.0.1:5232/alice/lessons/a.ics") == "/alice/lessons/a.ics")
        #expect(DAVResponse.canonicalHref("/alice/le%C3%A7ons/x.ics") == DAVResponse.canonicalHref("/alice/leçons/x.ics"))
    }

    @Test func multistatusResponsesComeOneAtATimeAndTextIsTrimmed() throws {
        let xml = """
            <?xml version="1.0"?>
            <d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
              <d:response><d:href> /cal/a.ics\n</d:href><d:propstat><d:prop><d:getetag>"1"</d:getetag>
                <c:calendar-data>BEGIN:VCALENDAR&#13;\nEND:VCALENDAR&#13;\n</c:calendar-data></d:prop>
                <d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
              <d:response><d:href>/cal/b.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>
              <d:sync-token>\u{3000}token-2 </d:sync-token>
            </d:multistatus>
            """
        var seen: [DAVResponse] = []
        let token = try DAVResponse.each(in: Data(xml.utf8), url: nil) { seen.append($0) }
        #expect(token == "token-2")
        #expect(seen.map(\.href) == ["/cal/a.ics", "/cal/b.ics"])
        #expect(seen[0].property("getetag")?.trimmedText == "\"1\"")
        #expect(seen[0].property("calendar-data", DAVXML.caldav)?.text == "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
        #expect(seen[1].status == 404)
        #expect(throws: RemoteError.self) { try DAVResponse.each(in: Data("<d:error xmlns:d=\"DAV:\"/>".utf8), url: nil) { _ in } }
        #expect(throws: RemoteError.self) { try DAVResponse.each(in: Data("<d:multistatus xmlns:d=\"DAV:\"><d:response>".utf8), url: nil) { _ in } }
    }

    @Test func responsesAreReadWithTheirAttributesCDATAAndEmptyElements() throws {
        let xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <!-- a comment -->
            <multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <response><href>/cal/</href><propstat><prop>
                <resourcetype><collection/><C:calendar/></resourcetype>
                <C:supported-calendar-component-set><C:comp name="VEVENT"/><C:comp name='VTODO' xmlns:x="urn:x" x:other="1"></C:comp></C:supported-calendar-component-set>
                <C:calendar-data><![CDATA[BEGIN:VCALENDAR<&>]]>&amp;&#x41;</C:calendar-data>
              </prop><status>HTTP/1.1 200 OK</status></propstat></response>
            </multistatus>
            """
        let (responses, token) = try DAVResponse.all(in: Data(xml.utf8), url: nil)
        #expect(token == nil)
        #expect(responses.count == 1)
        let properties = try #require(responses.first)
        let types = try #require(properties.property("resourcetype"))
        #expect(types.children.map { $0.namespace + " " + $0.name } == ["DAV: collection", DAVXML.caldav + " calendar"])
        let components = try #require(properties.property("supported-calendar-component-set", DAVXML.caldav)).children
        #expect(components.map { $0.attributes } == [["name": "VEVENT"], ["name": "VTODO", "x:other": "1"]])
        #expect(properties.property("calendar-data", DAVXML.caldav)?.text == "BEGIN:VCALENDAR<&>&A")
    }

    @Test func nothingOutsideTheDocumentIsRead() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("oek-xxe-\(UInt32.random(in: 0...UInt32.max)).txt")
        try "SECRET".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE m [ <!ENTITY leak SYSTEM "\(secret.absoluteString)"> ]>
            <d:multistatus xmlns:d="DAV:"><d:sync-token>&leak;</d:sync-token></d:multistatus>
            """
        #expect { try DAVResponse.each(in: Data(external.utf8), url: nil) { _ in } } throws: { error in
            let message = (error as? RemoteError)?.message ?? ""
            return (error as? RemoteError)?.code == .malformed && message.contains("&leak;") && !message.contains("SECRET")
        }
        let internalEntity = """
            <?xml version="1.0"?>
            <!DOCTYPE m [ <!ENTITY a "aaaaaaaaaa"> <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"> ]>
            <d:multistatus xmlns:d="DAV:"><d:sync-token>&b;</d:sync-token></d:multistatus>
            """
        #expect(throws: RemoteError.self) { try DAVResponse.each(in: Data(internalEntity.utf8), url: nil) { _ in } }
    }

    @Test func badXMLSaysWhatAndWhere() {
        let cases: [(xml: String, expected: String)] = [
            ("<d:multistatus xmlns:d=\"DAV:\">\n<d:response>\n</d:multistatus>", "tag mismatch: response line 2 and multistatus (line "),
            ("", "cannot be read"),
            ("not xml at all", "cannot be read"),
            (String(repeating: "<a>", count: DAVXML.maximumDepth + 1), "nested deeper than 64 elements"),
        ]
        for (xml, expected) in cases {
            #expect { try DAVXML.parse(Data(xml.utf8), url: "http://127.0.0.1/x") } throws: { error in
                guard let error = error as? RemoteError else { return false }
                return error.code == .malformed && error.message.contains(expected)
            }
        }
    }

    @Test func markupIsEscapedOnce() {
        #expect(DAVXML.escaped("a&b<c>\"d\"'e'") == "a&amp;b&lt;c&gt;&quot;d&quot;&#39;e&#39;")
        #expect(DAVXML.escaped("plain text") == "plain text")
    }
}
