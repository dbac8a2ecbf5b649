/// One content line of a component: a name, its parameters in order, and a value kept
/// exactly as written.
///
/// ``rawValue`` is the text after the first unquoted colon, escapes included, so an
/// unknown or X- property is written back byte for byte. Typed accessors (``textValue``,
/// ``dateTimeValue`` and the ones in `Property+Values.swift`) decode it; their setters
/// encode. ``line`` records where the property was read and takes no part in equality.
///
/// See RFC 5545 §3.1 and §3.8.
public struct Property: Sendable, Hashable, Codable {
    /// The property name as written (`DTSTART`, `X-WR-CALNAME`). Compare with ``matches(_:)``.
    public var name: String
    /// The parameters in the order they were written.
    public var parameters: [Parameter]
    /// The value exactly as written (after unfolding), escapes included.
    public var rawValue: String
    /// The 1-based line the property started on in its source, when it was read from one.
    public var line: Int?

    /// Creates a property from its written value (no escaping is applied).
    public init(name: String, parameters: [Parameter] = [], rawValue: String, line: Int? = nil) {
        self.name = name
        self.parameters = parameters
        self.rawValue = rawValue
        self.line = line
    }

    /// Creates a property of a kind from its written value (no escaping is applied).
    public init(_ kind: PropertyKind, parameters: [Parameter] = [], rawValue: String) {
        self.init(name: kind.rawValue, parameters: parameters, rawValue: rawValue)
    }

    /// The kind of this property (case-insensitive name).
    public var kind: PropertyKind { PropertyKind(rawValue: name) }

    /// Whether this property has the given name, ignoring case.
    public func matches(_ kind: PropertyKind) -> Bool {
        ASCII.equalsIgnoringCase(name, kind.rawValue)
    }

    /// The first parameter of a kind.
    public func parameter(_ kind: ParameterKind) -> Parameter? {
        parameters.first { $0.matches(kind) }
    }

    /// The decoded value of the first parameter of a kind.
    public subscript(parameter kind: ParameterKind) -> String? {
        get { parameter(kind)?.value }
        set { setParameter(kind, to: newValue) }
    }

    /// Sets the first parameter of a kind in place (keeping its position), appends it when
    /// absent, or removes every parameter of that kind when `value` is nil.
    public mutating func setParameter(_ kind: ParameterKind, to value: String?) {
        guard let value else {
            parameters.removeAll { $0.matches(kind) }
            return
        }
        if let index = parameters.firstIndex(where: { $0.matches(kind) }) {
            parameters[index].value = value
        } else {
            parameters.append(Parameter(name: kind.rawValue, value: value))
        }
    }

    /// The value read as TEXT (RFC 5545 §3.3.11): escapes decoded. The setter escapes.
    public var textValue: String {
        get { TextCoding.unescape(rawValue) }
        set { rawValue = TextCoding.escape(newValue) }
    }

    /// A multi-valued TEXT value (CATEGORIES, RESOURCES): split at unescaped commas.
    public var textValues: [String] {
        get { TextCoding.splitList(rawValue).map(TextCoding.unescape) }
        set { rawValue = newValue.map(TextCoding.escape).joined(separator: ",") }
    }

    public static func == (lhs: Property, rhs: Property) -> Bool {
        lhs.name == rhs.name && lhs.rawValue == rhs.rawValue && lhs.parameters == rhs.parameters
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(parameters)
        hasher.combine(rawValue)
    }

    private enum CodingKeys: String, CodingKey { case name, parameters, rawValue }
}

/// TEXT escaping per RFC 5545 §3.3.11.
enum TextCoding {
    /// `\\` `\;` `\,` `\n`/`\N` decode; an unknown escape keeps its character.
    static func unescape(_ raw: String) -> String {
        guard raw.utf8.contains(ASCII.backslash) else { return raw }
        var out: [UInt8] = []
        out.reserveCapacity(raw.utf8.count)
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == ASCII.backslash else { out.append(byte); continue }
            guard let next = iterator.next() else { out.append(byte); break }
            switch next {
            case UInt8(ascii: "n"), UInt8(ascii: "N"): out.append(ASCII.lf)
            default: out.append(next)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Escapes backslash, semicolon, comma and newline; CR before LF is dropped.
    static func escape(_ text: String) -> String {
        var needs = false
        for byte in text.utf8 {
            if byte == ASCII.backslash || byte == ASCII.semicolon || byte == ASCII.comma
                || byte == ASCII.lf || byte == ASCII.cr { needs = true; break }
        }
        guard needs else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        var previousWasCR = false
        for byte in text.utf8 {
            switch byte {
            case ASCII.backslash: out += [ASCII.backslash, ASCII.backslash]
            case ASCII.semicolon: out += [ASCII.backslash, ASCII.semicolon]
            case ASCII.comma: out += [ASCII.backslash, ASCII.comma]
            case ASCII.lf:
                if !previousWasCR { out += [ASCII.backslash, UInt8(ascii: "n")] }
            case ASCII.cr: out += [ASCII.backslash, UInt8(ascii: "n")]
            default: out.append(byte)
            }
            previousWasCR = byte == ASCII.cr
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Splits a list value at commas that are not escaped; escapes stay in the parts.
    static func splitList(_ raw: String) -> [String] {
        splitUnescaped(raw, at: ASCII.comma)
    }

    /// Splits at a separator that is not preceded by a backslash escape; escapes stay.
    static func splitUnescaped(_ raw: String, at separator: UInt8) -> [String] {
        var parts: [String] = []
        var current: [UInt8] = []
        var escaped = false
        for byte in raw.utf8 {
            if escaped { current.append(byte); escaped = false; continue }
            if byte == ASCII.backslash { current.append(byte); escaped = true; continue }
            if byte == separator {
                parts.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
                continue
            }
            current.append(byte)
        }
        parts.append(String(decoding: current, as: UTF8.self))
        return parts
    }
}
