import Foundation
import ICalKit
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of a WebDAV response: its namespace and local name, its children and text.
package final class XMLElementNode: @unchecked Sendable {
    package let namespace: String
    package let name: String
    package var children: [XMLElementNode] = []
    package var text = ""
    /// The element's attributes, by name.
    package var attributes: [String: String] = [:]

    init(namespace: String, name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// The first child with this name (and namespace).
    package func child(_ name: String, _ namespace: String = DAVXML.dav) -> XMLElementNode? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    /// Every child with this name (and namespace).
    package func all(_ name: String, _ namespace: String = DAVXML.dav) -> [XMLElementNode] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// The text of this element, without white space (Unicode's, newlines included) at
    /// either end.
    package var trimmedText: String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last,
              first.properties.isWhitespace || last.properties.isWhitespace else { return text }
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }
}

/// WebDAV and CalDAV XML: request bodies, and responses parsed by FoundationXML's
/// `XMLParser` (libxml2) into a small tree, bounded in depth and size, with external
/// entities never resolved.
package enum DAVXML {
    package static let dav = "DAV:"
    package static let caldav = "urn:ietf:params:xml:ns:caldav"
    package static let calendarServer = "http://calendarserver.org/ns/"
    package static let apple = "http://apple.com/ns/ical/"

    /// The deepest element nesting accepted.
    package static let maximumDepth = 64
    /// The most elements accepted in one response.
    package static let maximumElements = 4_000_000

    /// Parses an XML document.
    ///
    /// With `eachResponse`, every `<response>` child of the document element is handed over
    /// as soon as it ends and then dropped from the tree, so a multistatus of any length
    /// never holds more than one response's tree (see ``DAVResponse/each(in:url:_:)``).
    package static func parse(_ data: Data, url: String?,
                              eachResponse: ((XMLElementNode) -> Void)? = nil) throws(RemoteError) -> XMLElementNode {
        let builder = TreeBuilder()
        builder.eachResponse = eachResponse
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let ok = parser.parse()
        if let problem = builder.problem { throw RemoteError(.malformed, problem, url: url) }
        guard ok, builder.stack.isEmpty, let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" }
                ?? (builder.stack.isEmpty ? "no document element" : "the document ends inside <\(builder.stack.last!.name)>")
            throw RemoteError(.malformed, "the server's XML cannot be read: \(reason) (line \(parser.lineNumber))", url: url)
        }
        return root
    }

    /// Escapes text for an XML element or attribute.
    package static func escaped(_ text: String) -> String { MarkupText.escaped(text) }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: XMLElementNode?
        var stack: [XMLElementNode] = []
        var count = 0
        var problem: String?
        var eachResponse: ((XMLElementNode) -> Void)?

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            count += 1
            guard stack.count < DAVXML.maximumDepth, count <= DAVXML.maximumElements else {
                problem = stack.count >= DAVXML.maximumDepth ? "the server's XML is nested deeper than \(DAVXML.maximumDepth) elements"
                    : "the server's XML has more than \(DAVXML.maximumElements) elements"
                parser.abortParsing()
                return
            }
            let node = XMLElementNode(namespace: namespaceURI ?? "", name: elementName)
            node.attributes = attributes
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            let node = stack.popLast()
            if let eachResponse, stack.count == 1, let node, node.name == "response", node.namespace == DAVXML.dav,
               stack[0].name == "multistatus", stack[0].namespace == DAVXML.dav {
                eachResponse(node)
                stack[0].children.removeLast()
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            stack.last?.text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? { nil }
    }
}

/// One `<response>` of a `207 Multi-Status`: its href, the properties found (status 200), and
/// its own status when it has one (a deleted member in a sync report).
package struct DAVResponse: Sendable {
    package var href: String
    package var status: Int?
    package var properties: [String: XMLElementNode]

    /// A found property by name (and namespace).
    package func property(_ name: String, _ namespace: String = DAVXML.dav) -> XMLElementNode? {
        properties[namespace + name]
    }

    /// Reads a multistatus document, handing over each response as the parser reaches its
    /// end (the document's tree is never built whole), and returns its sync token.
    package static func each(in data: Data, url: String?, _ body: (DAVResponse) -> Void) throws(RemoteError) -> String? {
        let root = try withoutActuallyEscaping(body) { body throws(RemoteError) in
            try DAVXML.parse(data, url: url) { node in if let response = response(node) { body(response) } }
        }
        guard root.name == "multistatus", root.namespace == DAVXML.dav else {
            throw RemoteError(.malformed, "the server answered with <\(root.name)>, not a multistatus", url: url)
        }
        return root.child("sync-token")?.trimmedText
    }

    /// Reads every response of a multistatus document.
    package static func all(in data: Data, url: String?) throws(RemoteError) -> (responses: [DAVResponse], syncToken: String?) {
        var responses: [DAVResponse] = []
        let token = try each(in: data, url: url) { responses.append($0) }
        return (responses, token)
    }

    /// One `<response>` element, or nil when it has no href.
    private static func response(_ node: XMLElementNode) -> DAVResponse? {
        guard let href = node.child("href")?.trimmedText, !href.isEmpty else { return nil }
        var properties: [String: XMLElementNode] = [:]
        for propstat in node.all("propstat") {
            guard let status = propstat.child("status").map({ statusCode($0.trimmedText) }), status == 200 else { continue }
            for property in propstat.child("prop")?.children ?? [] { properties[property.namespace + property.name] = property }
        }
        let status = node.child("status").map { statusCode($0.trimmedText) }
        return DAVResponse(href: canonicalHref(href), status: status, properties: properties)
    }

    /// One spelling of a server path, so that hrefs compare equal however the server (or
    /// this client) escaped them: the path of an absolute URL, percent-decoded, then
    /// encoded again with RFC 3986's path characters.
    package static func canonicalHref(_ href: String) -> String {
        // Most hrefs are already in this spelling: a path of characters that need no escape.
        if href.utf8.first == UInt8(ascii: "/"), href.utf8.allSatisfy(isPathCharacter) { return href }
        var path = href
        if let url = URL(string: href), url.scheme != nil {
            path = url.path.isEmpty ? "/" : (URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path)
        }
        let decoded = path.removingPercentEncoding ?? path
        return decoded.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
    }

    /// RFC 3986's characters of a path that stand for themselves (no `%`).
    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$&'()*+,;=:@/".utf8.contains(byte)
        }
    }

    /// The code of an `HTTP/1.1 200 OK` status line.
    static func statusCode(_ line: String) -> Int {
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
    }
}
