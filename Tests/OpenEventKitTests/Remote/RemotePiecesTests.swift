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

    @Test func markupIsEscapedOnce() {
        #expect(DAVXML.escaped("a&b<c>\"d\"'e'") == "a&amp;b&lt;c&gt;&quot;d&quot;&#39;e&#39;")
        #expect(DAVXML.escaped("plain text") == "plain text")
    }
}
