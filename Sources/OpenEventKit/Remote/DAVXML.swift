internal import CLibxml2
import Foundation
import ICalKit

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

/// WebDAV and CalDAV XML: request bodies, and responses read by libxml2's reader
/// (`xmlTextReader`, loaded on first use) into a small tree, bounded in depth and size.
///
/// Nothing outside the document is ever read: no external entity or document type is
/// loaded (neither `XML_PARSE_NOENT` nor `XML_PARSE_DTDLOAD` is set) and the network is
/// off (`XML_PARSE_NONET`). A reference to an entity a document type declares is refused
/// rather than dropped; the five predefined entities and character references are read.
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
        let xml: UnsafePointer<CLibxml2_library>
        switch xmlLibrary {
        case .success(let loaded): xml = loaded
        case .failure(let error): throw RemoteError(.network, error.message, url: url)
        }
        guard data.count < Int(Int32.max) else {
            throw RemoteError(.tooLarge, "the server's XML is larger than 2 GB", url: url)
        }
        let options = Int32(CLibxml2_parse_nonet | CLibxml2_parse_noerror | CLibxml2_parse_nowarning)
        var builder = TreeBuilder(eachResponse: eachResponse)
        var errors = CLibxml2_no_errors(xml)
        let status: Int32 = data.withUnsafeBytes { bytes in
            // No bytes (no buffer) is no document: libxml2 makes no reader for it.
            guard let buffer = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                  let reader = xml.pointee.reader_for_memory(buffer, Int32(bytes.count), nil, nil, options) else { return -1 }
            defer { xml.pointee.free_reader(reader) }
            CLibxml2_capture_errors(reader, &errors)
            var status: Int32
            repeat {
                status = xml.pointee.read(reader)
                if status == 1, !builder.take(reader, xml.pointee) { return 1 }
            } while status == 1
            if status != 0 { builder.line = Int(xml.pointee.parser_line_number(reader)) }
            return status
        }
        if let problem = builder.problem { throw RemoteError(.malformed, problem, url: url) }
        guard status == 0, builder.stack.isEmpty, let root = builder.root else {
            let message = withUnsafeBytes(of: errors.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let reason = message.isEmpty
                ? (builder.stack.isEmpty ? "no document element" : "the document ends inside <\(builder.stack.last!.name)>")
                : message.trimmingWhitespaceAndNewlines()
            let line = errors.line > 0 ? Int(errors.line) : builder.line
            throw RemoteError(.malformed, "the server's XML cannot be read: \(reason)\(line > 0 ? " (line \(line))" : "")", url: url)
        }
        return root
    }

    /// Escapes text for an XML element or attribute.
    package static func escaped(_ text: String) -> String { MarkupText.escaped(text) }

    /// Builds the tree from the reader's nodes, one at a time.
    private struct TreeBuilder {
        var root: XMLElementNode?
        var stack: [XMLElementNode] = []
        var count = 0
        var problem: String?
        var line = 0
        let eachResponse: ((XMLElementNode) -> Void)?

        init(eachResponse: ((XMLElementNode) -> Void)?) {
            self.eachResponse = eachResponse
        }

        /// Takes the reader's current node; false (with ``problem`` set) to stop reading.
        mutating func take(_ reader: OpaquePointer, _ xml: CLibxml2_library) -> Bool {
            switch xml.node_type(reader) {
            case Int32(CLibxml2_type_element):
                count += 1
                guard stack.count < DAVXML.maximumDepth, count <= DAVXML.maximumElements else {
                    problem = stack.count >= DAVXML.maximumDepth ? "the server's XML is nested deeper than \(DAVXML.maximumDepth) elements"
                        : "the server's XML has more than \(DAVXML.maximumElements) elements"
                    return false
                }
                let node = XMLElementNode(namespace: Self.string(xml.const_namespace_uri(reader)),
                                          name: Self.string(xml.const_local_name(reader)))
                let isEmpty = xml.is_empty_element(reader) == 1
                while xml.move_to_next_attribute(reader) == 1 {
                    // Namespace declarations are not attributes of the element.
                    guard Self.string(xml.const_namespace_uri(reader)) != "http://www.w3.org/2000/xmlns/" else { continue }
                    node.attributes[Self.string(xml.const_name(reader))] = Self.string(xml.const_value(reader))
                }
                _ = xml.move_to_element(reader)
                if let parent = stack.last { parent.children.append(node) } else { root = node }
                stack.append(node)
                if isEmpty { end() }
            case Int32(CLibxml2_type_end_element):
                end()
            case Int32(CLibxml2_type_text), Int32(CLibxml2_type_cdata), Int32(CLibxml2_type_whitespace),
                 Int32(CLibxml2_type_significant_whitespace):
                stack.last?.text += Self.string(xml.const_value(reader))
            case Int32(CLibxml2_type_entity_reference):
                problem = "the server's XML refers to the entity &\(Self.string(xml.const_name(reader)));, "
                    + "which only a document type declares (not read)"
                return false
            default:
                break  // comments, processing instructions, the document type
            }
            return true
        }

        /// Ends the innermost element, handing over a finished response.
        private mutating func end() {
            let node = stack.popLast()
            if let eachResponse, stack.count == 1, let node, node.name == "response", node.namespace == DAVXML.dav,
               stack[0].name == "multistatus", stack[0].namespace == DAVXML.dav {
                eachResponse(node)
                stack[0].children.removeLast()
            }
        }

        private static func string(_ text: UnsafePointer<UInt8>?) -> String {
            text.map { String(cString: $0) } ?? ""
        }
    }
}

/// libxml2, loaded by the first response read, or why it cannot be. Loading and
/// `xmlInitParser` are done once (a global's initialiser runs exactly once).
private nonisolated(unsafe) let xmlLibrary: Result<UnsafePointer<CLibxml2_library>, XMLUnavailable> =
    DynamicLibrary.load({ CLibxml2_load($0, $1, $2) }).mapError {
        XMLUnavailable(message: "libxml2 could not be loaded (\($0.reason)); install it: apt-get install libxml2")
    }

/// Why libxml2 cannot be used.
private struct XMLUnavailable: Error {
    var message: String
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
