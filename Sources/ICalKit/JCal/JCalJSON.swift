/// A small JSON model that keeps what jCal's round trips need and Foundation's
/// `JSONSerialization` loses on Linux: the order of object members, and numbers as their
/// literal text (`1.50` stays `1.50`, a 20-digit integer stays exact).
///
/// ``JCalJSON/parse(_:maxDepth:)`` reads RFC 8259 JSON; ``JCalJSON/serialized(pretty:)``
/// writes it back deterministically. Not public: ``JCalWriter`` and ``JCalReader`` are
/// the API.
enum JCalJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, as its JSON literal text (already valid RFC 8259 number syntax).
    case number(String)
    case string(String)
    case array([JCalJSON])
    /// Members in document order. Duplicate keys are kept; the jCal layer rejects them.
    case object([Member])

    /// One `"key": value` pair of an object.
    struct Member: Sendable, Hashable {
        var key: String
        var value: JCalJSON
    }

    /// What this value is, for error messages ("a string", "an array").
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    // MARK: Number syntax

    /// Whether `text` is an RFC 8259 number with no exponent: `-?(0|[1-9][0-9]*)(\.[0-9]+)?`.
    /// This is also the subset of RFC 5545 FLOAT (and, without the fraction, INTEGER) that
    /// jCal can carry as the same characters.
    static func isPlainNumber(_ text: String, allowFraction: Bool) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let integerDigits = bytes.prefix { isDigit($0) }
        guard let first = integerDigits.first else { return false }
        if first == UInt8(ascii: "0") && integerDigits.count > 1 { return false }
        bytes = bytes.dropFirst(integerDigits.count)
        if bytes.isEmpty { return true }
        guard allowFraction, bytes.first == UInt8(ascii: ".") else { return false }
        bytes = bytes.dropFirst()
        return !bytes.isEmpty && bytes.allSatisfy(isDigit)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    // MARK: Writing

    /// The JSON text: compact (no white space at all) or, with `pretty`, members and
    /// elements separated by `", "` and `": "` on one line. ``JCalWriter`` lays out
    /// components over several lines itself.
    func serialized(pretty: Bool = false) -> String {
        var output: [UInt8] = []
        write(to: &output, pretty: pretty)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the JSON text of this value to `output`.
    func write(to output: inout [UInt8], pretty: Bool) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let literal): output.append(contentsOf: literal.utf8)
        case .string(let text): JCalJSON.writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(contentsOf: pretty ? ", ".utf8 : ",".utf8) }
                element.write(to: &output, pretty: pretty)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(contentsOf: pretty ? ", ".utf8 : ",".utf8) }
                JCalJSON.writeString(member.key, to: &output)
                output.append(contentsOf: pretty ? ": ".utf8 : ":".utf8)
                member.value.write(to: &output, pretty: pretty)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Writes a string literal: `"` and `\` escaped, control characters as `\n`, `\r`,
    /// `\t`, `\b`, `\f` or `\u00XX`; DEL, the C1 controls, the bidirectional controls and
    /// U+2028/U+2029 (``TerminalText/isShownEscaped(_:)``) as `\u` escapes of four hexadecimal digits (`\u001B`), so the exact text is
    /// never a control sequence on a terminal; everything else (including non-ASCII) as UTF-8.
    static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Lead bytes of everything above 0x7E that is escaped: C1 (0xC2), U+061C (0xD8),
        // bidirectional controls and separators (0xE2).
        if text.utf8.contains(where: { $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }) {
            let hex = Array("0123456789abcdef".utf8)
            for scalar in text.unicodeScalars {
                if scalar.value >= 0x7F && TerminalText.isShownEscaped(scalar) {
                    output.append(contentsOf: "\\u".utf8)
                    for shift in [12, 8, 4, 0] { output.append(hex[Int(scalar.value >> UInt32(shift)) & 0x0F]) }
                } else {
                    UTF8.encode(scalar) { appendEscaped($0, to: &output) }
                }
            }
        } else {
            for byte in text.utf8 { appendEscaped(byte, to: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// One byte of a string literal's content, `"`, `\` and the C0 controls escaped.
    private static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
        case 0x0A: output.append(contentsOf: "\\n".utf8)
        case 0x0D: output.append(contentsOf: "\\r".utf8)
        case 0x09: output.append(contentsOf: "\\t".utf8)
        case 0x08: output.append(contentsOf: "\\b".utf8)
        case 0x0C: output.append(contentsOf: "\\f".utf8)
        case 0x00..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            output.append(contentsOf: "\\u00".utf8)
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0x0F)])
        default: output.append(byte)
        }
    }

    // MARK: Reading

    /// Parses one JSON text (RFC 8259): white space around the value is allowed, anything
    /// else after it is an error.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/json`` with the 1-based line and a message
    ///   naming the column and what was expected.
    static func parse(_ bytes: [UInt8], maxDepth: Int = 256) throws(ICalError) -> JCalJSON {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        return try parser.document()
    }
}

/// A recursive-descent RFC 8259 parser over UTF-8 bytes, with a nesting limit so hostile
/// input cannot exhaust the stack.
private struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    var depth = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
    }

    mutating func document() throws(ICalError) -> JCalJSON {
        skipWhiteSpace()
        guard index < bytes.count else { throw error("the input is empty; expected a JSON value") }
        let value = try parseValue()
        skipWhiteSpace()
        guard index == bytes.count else { throw error("unexpected \(describe(bytes[index])) after the JSON value") }
        return value
    }

    private func error(_ message: String, at position: Int? = nil) -> ICalError {
        let position = min(position ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        for offset in 0..<position where bytes[offset] == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        let column = String(decoding: bytes[lineStart..<position], as: UTF8.self).unicodeScalars.count + 1
        return ICalError(.json, "invalid JSON at column \(column): \(message)", line: line)
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private mutating func skipWhiteSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(ICalError) -> JCalJSON {
        guard index < bytes.count else { throw error("the input ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describe(bytes[index])); expected a value")
        }
    }

    private mutating func literal(_ word: String) throws(ICalError) {
        let start = index
        for expected in word.utf8 {
            guard index < bytes.count, bytes[index] == expected else {
                throw error("expected '\(word)'", at: start)
            }
            index += 1
        }
    }

    private mutating func enter() throws(ICalError) {
        depth += 1
        if depth > maxDepth { throw error("arrays and objects are nested deeper than \(maxDepth) levels") }
    }

    private mutating func parseArray() throws(ICalError) -> JCalJSON {
        try enter()
        index += 1
        var elements: [JCalJSON] = []
        skipWhiteSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhiteSpace()
            elements.append(try parseValue())
            skipWhiteSpace()
            guard index < bytes.count else { throw error("the input ends inside an array; expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw error("unexpected \(describe(bytes[index])) in an array; expected ',' or ']'")
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func parseObject() throws(ICalError) -> JCalJSON {
        try enter()
        index += 1
        var members: [JCalJSON.Member] = []
        skipWhiteSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhiteSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(index < bytes.count
                    ? "unexpected \(describe(bytes[index])) in an object; expected a member name in double quotes"
                    : "the input ends inside an object")
            }
            let key = try parseString()
            skipWhiteSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after the member name \"\(key)\"")
            }
            index += 1
            skipWhiteSpace()
            members.append(JCalJSON.Member(key: key, value: try parseValue()))
            skipWhiteSpace()
            guard index < bytes.count else { throw error("the input ends inside an object; expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw error("unexpected \(describe(bytes[index])) in an object; expected ',' or '}'")
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseNumber() throws(ICalError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while index < bytes.count && JCalJSON.isDigit(bytes[index]) { index += 1 }
        let integerDigits = index - integerStart
        guard integerDigits > 0 else { throw error("a number needs a digit after '-'", at: start) }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") {
            throw error("a number must not start with 0 followed by more digits", at: start)
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count && JCalJSON.isDigit(bytes[index]) { index += 1 }
            guard index > fractionStart else { throw error("a number needs digits after '.'", at: start) }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            let exponentStart = index
            while index < bytes.count && JCalJSON.isDigit(bytes[index]) { index += 1 }
            guard index > exponentStart else { throw error("a number needs digits in its exponent", at: start) }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseString() throws(ICalError) -> String {
        let start = index
        index += 1
        var output: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("the input ends inside a string", at: start) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: output, as: UTF8.self) else {
                    throw error("the string is not valid UTF-8", at: start)
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("the input ends inside a string", at: start) }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("a \\u escape for a high surrogate must be followed by one for a low surrogate", at: index - 6)
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("a \\u escape for a high surrogate must be followed by one for a low surrogate", at: index - 6)
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("a \\u escape names a lone low surrogate", at: index - 6)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape", at: index - 6) }
                    output.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw error("unknown escape '\\\(Character(Unicode.Scalar(escape)))' in a string", at: index - 2)
                }
            case 0x00..<0x20:
                throw error("a control character (\(describe(byte))) must be escaped inside a string")
            default:
                output.append(byte)
                index += 1
            }
        }
    }

    private mutating func hex4() throws(ICalError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}

/// Appends a JSON string literal of `text`, escaped as jCal writes strings
/// (``JCalJSON/writeString(_:to:)``): for the package's other JSON files that are written
/// directly rather than through `JSONEncoder`.
package func appendJSONString(_ text: String, to output: inout [UInt8]) {
    JCalJSON.writeString(text, to: &output)
}
