/// A property parameter (`TZID=Europe/Berlin`, `CN="Doe, Jane"`), kept exactly as written.
///
/// ``rawValue`` holds the text after `=` as it stood in the file, quotes and RFC 6868
/// caret escapes included, so writing it back gives the same bytes. ``values`` and
/// ``value`` decode it; the initializers and setters encode, quoting only where RFC 5545
/// §3.2 requires it (a value containing `:`, `;` or `,`).
///
/// See RFC 5545 §3.2 and RFC 6868.
public struct Parameter: Sendable, Hashable, Codable {
    /// The parameter name as written (`TZID`, `X-ALT`). Compare with ``matches(_:)``.
    public var name: String
    /// The parameter value list exactly as written, quotes and escapes included.
    public var rawValue: String

    /// Creates a parameter from its exact written text (no encoding is applied).
    public init(name: String, rawValue: String) {
        self.name = name
        self.rawValue = rawValue
    }

    /// Creates a parameter with one value, quoting and escaping it as needed.
    public init(name: String, value: String) {
        self.init(name: name, rawValue: Parameter.encode(value))
    }

    /// Creates a parameter with several values (`MEMBER="a","b"`, `DELEGATED-TO=...`).
    public init(name: String, values: [String]) {
        self.init(name: name, rawValue: values.map(Parameter.encode).joined(separator: ","))
    }

    /// The kind of this parameter (case-insensitive name).
    public var kind: ParameterKind { ParameterKind(rawValue: name) }

    /// Whether this parameter has the given name, ignoring case.
    public func matches(_ kind: ParameterKind) -> Bool {
        ASCII.equalsIgnoringCase(name, kind.rawValue)
    }

    /// The decoded values: split at commas outside quotes, unquoted, carets decoded.
    public var values: [String] {
        get { Parameter.decode(rawValue) }
        set { rawValue = newValue.map(Parameter.encode).joined(separator: ",") }
    }

    /// The decoded values joined by commas: the whole value for single-valued parameters.
    public var value: String {
        get {
            // Without quotes or carets, decoding and joining gives the text back as written.
            // Every TZID and VALUE lookup comes here: read the bytes in place.
            let plain = rawValue.utf8.withContiguousStorageIfAvailable { bytes in
                !bytes.contains { $0 == ASCII.quote || $0 == ASCII.caret }
            } ?? !rawValue.utf8.contains(where: { $0 == ASCII.quote || $0 == ASCII.caret })
            if plain { return rawValue }
            return values.joined(separator: ",")
        }
        set { rawValue = Parameter.encode(newValue) }
    }

    static func decode(_ raw: String) -> [String] {
        var result: [String] = []
        var current: [UInt8] = []
        var inQuotes = false
        for byte in raw.utf8 {
            if byte == ASCII.quote { inQuotes.toggle(); continue }
            if byte == ASCII.comma && !inQuotes {
                result.append(caretDecode(current))
                current.removeAll(keepingCapacity: true)
                continue
            }
            current.append(byte)
        }
        result.append(caretDecode(current))
        return result
    }

    /// RFC 6868: ^n is a newline, ^^ a caret, ^' a double quote; other carets stay.
    private static func caretDecode(_ bytes: [UInt8]) -> String {
        guard bytes.contains(ASCII.caret) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.caret, index + 1 < bytes.count {
                switch bytes[index + 1] {
                case UInt8(ascii: "n"), UInt8(ascii: "N"): out.append(ASCII.lf); index += 2; continue
                case ASCII.caret: out.append(ASCII.caret); index += 2; continue
                case UInt8(ascii: "'"): out.append(ASCII.quote); index += 2; continue
                default: break
                }
            }
            out.append(byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes one value: RFC 6868 escapes for newline, caret and quote; quotes if needed.
    static func encode(_ value: String) -> String {
        var needsQuotes = false
        var needsCarets = false
        for byte in value.utf8 {
            switch byte {
            case ASCII.colon, ASCII.semicolon, ASCII.comma: needsQuotes = true
            case ASCII.quote, ASCII.caret, ASCII.lf, ASCII.cr: needsCarets = true
            default: break
            }
        }
        var text = value
        if needsCarets {
            var out = ""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "^": out += "^^"
                case "\"": out += "^'"
                case "\n": out += "^n"
                case "\r": break
                default: out.unicodeScalars.append(scalar)
                }
            }
            text = out
        }
        return needsQuotes ? "\"\(text)\"" : text
    }
}
