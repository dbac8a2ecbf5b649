/// Converts property values between iCalendar text and jCal values, one type at a time
/// (RFC 7265 §3.6), at the string level: nothing here depends on the typed values in
/// `Value/`.
///
/// The forward direction (``values(_:type:property:)``) is partial on purpose: it returns
/// nil when the text does not follow its type's grammar, and the caller then writes the
/// property as `"unknown"` with the text as written, so no value is ever lost or changed.
/// The reverse (``text(_:type:property:path:)``) checks what it is given and throws with
/// the JSON path of the bad value.
enum JCalValueCoding {
    // MARK: iCalendar -> jCal

    /// The jCal values for `raw`, or nil when `raw` is not a value of `type`.
    static func values(_ raw: String, type: JCalValueType, property: PropertyKind) -> [JCalJSON]? {
        if type == .unknown { return [.string(raw)] }
        guard JCalValueType.registered.contains(type) else {
            return isTypeName(type.rawValue) ? [.string(raw)] : nil
        }
        let multiValued = JCalValueType.isMultiValued(property)
        switch type {
        case .text where property == .requestStatus:
            return [.array(splitUnescaped(raw, at: ASCII.semicolon).map { .string(TextCoding.unescape($0)) })]
        case .text:
            if multiValued { return TextCoding.splitList(raw).map { .string(TextCoding.unescape($0)) } }
            return [.string(TextCoding.unescape(raw))]
        case .float where property == .geographicPosition:
            let parts = raw.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, parts.allSatisfy({ JCalJSON.isPlainNumber($0, allowFraction: true) }) else { return nil }
            return [.array(parts.map { .number($0) })]
        default:
            let items = multiValued ? raw.split(separator: ",", omittingEmptySubsequences: false).map(String.init) : [raw]
            var result: [JCalJSON] = []
            result.reserveCapacity(items.count)
            for item in items {
                guard let value = single(item, type: type) else { return nil }
                result.append(value)
            }
            return result
        }
    }

    /// One value of a registered type other than TEXT's special cases.
    private static func single(_ item: String, type: JCalValueType) -> JCalJSON? {
        switch type {
        case .date: return date(item).map { .string($0) }
        case .dateTime: return dateTime(item).map { .string($0) }
        case .time: return time(item).map { .string($0) }
        case .utcOffset: return utcOffset(item).map { .string($0) }
        case .duration: return DurationSyntax.isValid(item) ? .string(item) : nil
        case .period: return period(item)
        case .integer: return JCalJSON.isPlainNumber(item, allowFraction: false) ? .number(item) : nil
        case .float: return JCalJSON.isPlainNumber(item, allowFraction: true) ? .number(item) : nil
        case .boolean:
            switch ASCII.uppercased(item) {
            case "TRUE": return .bool(true)
            case "FALSE": return .bool(false)
            default: return nil
            }
        case .recurrenceRule: return recurrenceRule(item)
        case .text: return .string(TextCoding.unescape(item))
        default: return .string(item)  // BINARY, URI, CAL-ADDRESS: the text as written
        }
    }

    /// `20240101` -> `2024-01-01`.
    static func date(_ raw: String) -> String? {
        guard raw.utf8.count == 8, DateSyntax.problem(raw) == nil else { return nil }
        return spliced(Array(raw.utf8), [(0..<4, 0x2D), (4..<6, 0x2D), (6..<8, nil)])
    }

    /// `20240101T100000Z` -> `2024-01-01T10:00:00Z`.
    static func dateTime(_ raw: String) -> String? {
        guard raw.utf8.count == 15 || raw.utf8.count == 16, DateSyntax.problem(raw) == nil else { return nil }
        let b = Array(raw.utf8)
        return spliced(b, [(0..<4, 0x2D), (4..<6, 0x2D), (6..<11, 0x3A), (11..<13, 0x3A), (13..<b.count, nil)])
    }

    /// `103000Z` -> `10:30:00Z` (RFC 5545 §3.3.12).
    static func time(_ raw: String) -> String? {
        let b = Array(raw.utf8)
        guard b.count == 6 || (b.count == 7 && b[6] == UInt8(ascii: "Z")),
              let hour = number(b[0..<2]), let minute = number(b[2..<4]), let second = number(b[4..<6]),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        return spliced(b, [(0..<2, 0x3A), (2..<4, 0x3A), (4..<b.count, nil)])
    }

    /// `+0530` -> `+05:30`, `-013045` -> `-01:30:45` (RFC 5545 §3.3.14).
    static func utcOffset(_ raw: String) -> String? {
        let b = Array(raw.utf8)
        guard b.count == 5 || b.count == 7, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"),
              let hour = number(b[1..<3]), let minute = number(b[3..<5]), hour <= 23, minute <= 59 else { return nil }
        if b.count == 7 {
            guard let second = number(b[5..<7]), second <= 60 else { return nil }
            return spliced(b, [(0..<3, 0x3A), (3..<5, 0x3A), (5..<7, nil)])
        }
        return spliced(b, [(0..<3, 0x3A), (3..<5, nil)])
    }

    /// `start/end` or `start/duration` -> `["start", "end"]` (RFC 7265 §3.6.9).
    private static func period(_ raw: String) -> JCalJSON? {
        let parts = raw.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let start = dateTime(parts[0]) else { return nil }
        if let end = dateTime(parts[1]) { return .array([.string(start), .string(end)]) }
        guard DurationSyntax.isValid(parts[1]) else { return nil }
        return .array([.string(start), .string(parts[1])])
    }

    /// The RECUR parts whose values are integers (RFC 7265 §3.6.10).
    static let integerParts: Set<String> = [
        "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYMONTHDAY", "BYYEARDAY",
        "BYWEEKNO", "BYMONTH", "BYSETPOS",
    ]

    /// `FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20240601` ->
    /// `{"freq": "WEEKLY", "byday": ["MO", "WE"], "until": "2024-06-01"}`.
    ///
    /// Keys are lowercased and kept in order; a list becomes an array; an integer part
    /// written canonically (`5`, `-1`) becomes a number and anything else (`05`, `+1`,
    /// `5L`) stays a string, so the text comes back exactly. nil when a part has no `=`,
    /// a key repeats, or UNTIL is not a date or date-time.
    private static func recurrenceRule(_ raw: String) -> JCalJSON? {
        guard !raw.isEmpty else { return nil }
        var members: [JCalJSON.Member] = []
        var seen = Set<String>()
        for part in raw.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = part.firstIndex(of: "="), equals != part.startIndex else { return nil }
            let key = String(part[..<equals])
            let upper = ASCII.uppercased(key)
            guard key.utf8.allSatisfy(ASCII.isNameByte), seen.insert(upper).inserted else { return nil }
            let value = String(part[part.index(after: equals)...])
            let name = JCalValueType.lowercasedName(key)
            if upper == "UNTIL" {
                guard let until = date(value) ?? dateTime(value) else { return nil }
                members.append(JCalJSON.Member(key: name, value: .string(until)))
                continue
            }
            let items: [JCalJSON] = value.split(separator: ",", omittingEmptySubsequences: false).map { item in
                let text = String(item)
                return integerParts.contains(upper) && JCalJSON.isPlainNumber(text, allowFraction: false)
                    ? .number(text) : .string(text)
            }
            members.append(JCalJSON.Member(key: name, value: items.count == 1 ? items[0] : .array(items)))
        }
        return .object(members)
    }

    // MARK: jCal -> iCalendar

    /// The iCalendar text of a property's jCal values (the elements after the type).
    ///
    /// - Parameter path: the JSON path of the property array; values are at index 3 on.
    /// - Throws: ``ICalError/Code-swift.struct/invalidValue`` naming the path of the value.
    static func text(_ values: [JCalJSON], type: JCalValueType, property: PropertyKind, path: String) throws(ICalError) -> String {
        var parts: [String] = []
        parts.reserveCapacity(values.count)
        for (offset, value) in values.enumerated() {
            parts.append(try text(value, type: type, property: property, path: "\(path)[\(offset + 3)]"))
        }
        return parts.joined(separator: ",")
    }

    private static func text(_ value: JCalJSON, type: JCalValueType, property: PropertyKind, path: String) throws(ICalError) -> String {
        func fail(_ message: String) -> ICalError {
            ICalError(.invalidValue, "\(path): \(message)")
        }
        func string() throws(ICalError) -> String {
            guard case .string(let text) = value else { throw fail("a \(type) value must be a string, found \(value.kindDescription)") }
            return text
        }
        func raw() throws(ICalError) -> String {
            let text = try string()
            if text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                throw fail("a \(type) value must not contain control characters such as line breaks (iCalendar cannot hold them outside TEXT)")
            }
            return text
        }

        guard JCalValueType.registered.contains(type) else { return try raw() }  // "unknown" and X- types
        switch type {
        case .text where property == .requestStatus:
            if case .array(let elements) = value {
                var parts: [String] = []
                for (index, element) in elements.enumerated() {
                    guard case .string(let part) = element else {
                        throw ICalError(.invalidValue, "\(path)[\(index)]: a REQUEST-STATUS part must be a string, found \(element.kindDescription)")
                    }
                    parts.append(TextCoding.escape(part))
                }
                guard !parts.isEmpty else { throw fail("a REQUEST-STATUS value needs at least a status code, such as [\"2.0\", \"Success\"]") }
                return parts.joined(separator: ";")
            }
            return TextCoding.escape(try string())
        case .text:
            return TextCoding.escape(try string())
        case .float where property == .geographicPosition:
            guard case .array(let elements) = value, elements.count == 2 else {
                throw fail("a GEO value must be an array of two numbers, [latitude, longitude]")
            }
            var parts: [String] = []
            for (index, element) in elements.enumerated() {
                guard case .number(let literal) = element, let decimal = plainDecimal(literal) else {
                    throw ICalError(.invalidValue, "\(path)[\(index)]: a GEO coordinate must be a number, found \(describe(element))")
                }
                parts.append(decimal)
            }
            return parts.joined(separator: ";")
        case .integer:
            guard case .number(let literal) = value, JCalJSON.isPlainNumber(literal, allowFraction: false) else {
                throw fail("an integer value must be a whole number without fraction or exponent, found \(describe(value))")
            }
            return literal
        case .float:
            guard case .number(let literal) = value, let decimal = plainDecimal(literal) else {
                throw fail("a float value must be a number, found \(describe(value))")
            }
            return decimal
        case .boolean:
            guard case .bool(let flag) = value else { throw fail("a boolean value must be true or false, found \(value.kindDescription)") }
            return flag ? "TRUE" : "FALSE"
        case .date:
            guard let text = icsDate(try string()) else { throw fail("\(describe(value)) is not a date such as \"2024-01-31\"") }
            return text
        case .dateTime:
            guard let text = icsDateTime(try string()) else {
                throw fail("\(describe(value)) is not a date-time such as \"2024-01-31T10:00:00\" or \"2024-01-31T09:00:00Z\"")
            }
            return text
        case .time:
            guard let text = icsTime(try string()) else { throw fail("\(describe(value)) is not a time such as \"10:30:00\"") }
            return text
        case .utcOffset:
            guard let text = icsUTCOffset(try string()) else { throw fail("\(describe(value)) is not a UTC offset such as \"+01:00\" or \"-05:30:15\"") }
            return text
        case .duration:
            let text = try string()
            guard DurationSyntax.isValid(text) else { throw fail("\(describe(value)) is not a duration such as \"PT1H30M\" or \"-P1D\"") }
            return text
        case .period:
            guard case .array(let elements) = value, elements.count == 2,
                  case .string(let start) = elements[0], case .string(let end) = elements[1] else {
                throw fail("a period must be an array of two strings, [start, end or duration]")
            }
            guard let icsStart = icsDateTime(start) else {
                throw ICalError(.invalidValue, "\(path)[0]: \"\(start)\" is not a date-time such as \"2024-01-31T10:00:00Z\"")
            }
            if let icsEnd = icsDateTime(end) { return "\(icsStart)/\(icsEnd)" }
            guard DurationSyntax.isValid(end) else {
                throw ICalError(.invalidValue, "\(path)[1]: \"\(end)\" is neither a date-time nor a duration")
            }
            return "\(icsStart)/\(end)"
        case .recurrenceRule:
            return try recurrenceRuleText(value, path: path)
        default:
            return try raw()  // BINARY, URI, CAL-ADDRESS
        }
    }

    private static func recurrenceRuleText(_ value: JCalJSON, path: String) throws(ICalError) -> String {
        guard case .object(let members) = value, !members.isEmpty else {
            throw ICalError(.invalidValue, "\(path): a recur value must be a non-empty object such as {\"freq\": \"DAILY\"}")
        }
        var seen = Set<String>()
        var parts: [String] = []
        for member in members {
            let memberPath = "\(path).\(member.key)"
            let key = ASCII.uppercased(member.key)
            guard !key.isEmpty, key.utf8.allSatisfy(ASCII.isNameByte) else {
                throw ICalError(.invalidValue, "\(memberPath): a recur part name must be letters, digits and '-'")
            }
            guard seen.insert(key).inserted else {
                throw ICalError(.invalidValue, "\(memberPath): the recur part \(member.key) appears twice")
            }
            if key == "UNTIL" {
                guard case .string(let until) = member.value, let text = icsDate(until) ?? icsDateTime(until) else {
                    throw ICalError(.invalidValue, "\(memberPath): until must be a date or date-time string such as \"2024-06-30\"")
                }
                parts.append("UNTIL=\(text)")
                continue
            }
            let items: [JCalJSON]
            if case .array(let elements) = member.value {
                guard !elements.isEmpty else { throw ICalError(.invalidValue, "\(memberPath): a recur part list must not be empty") }
                items = elements
            } else {
                items = [member.value]
            }
            var texts: [String] = []
            for (index, item) in items.enumerated() {
                let itemPath = items.count == 1 && !(member.value.isArray) ? memberPath : "\(memberPath)[\(index)]"
                switch item {
                case .number(let literal) where JCalJSON.isPlainNumber(literal, allowFraction: false):
                    texts.append(literal)
                case .string(let text)
                    where !text.unicodeScalars.contains { $0 == ";" || $0 == "," || $0.value < 0x20 || $0.value == 0x7F }:
                    texts.append(text)
                default:
                    throw ICalError(.invalidValue, "\(itemPath): a recur part value must be an integer or a string without ';', ',' or control characters")
                }
            }
            parts.append("\(key)=\(texts.joined(separator: ","))")
        }
        return parts.joined(separator: ";")
    }

    /// A JSON number as an RFC 5545 FLOAT: unchanged when it has no exponent, else
    /// written out in plain decimal digits (`1.5e-3` -> `0.0015`, `2E3` -> `2000`).
    /// nil for a literal that is not a JSON number.
    static func plainDecimal(_ literal: String) -> String? {
        if JCalJSON.isPlainNumber(literal, allowFraction: true) { return literal }
        var text = Substring(literal)
        let negative = text.hasPrefix("-")
        if negative { text = text.dropFirst() }
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }),
              let exponent = Int(text[text.index(after: e)...]), abs(exponent) <= 400 else { return nil }
        let mantissa = text[..<e]
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let integer = parts.first, !integer.isEmpty,
              (integer + (parts.count == 2 ? parts[1] : "")).allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var digits = Array(integer + (parts.count == 2 ? parts[1] : ""))
        var point = integer.count + exponent  // digits before the decimal point
        if point <= 0 {
            digits.insert(contentsOf: Array(repeating: "0", count: 1 - point), at: 0)
            point = 1
        } else if point > digits.count {
            digits.append(contentsOf: Array(repeating: "0", count: point - digits.count))
        }
        var whole = String(digits[..<point]).drop { $0 == "0" }
        if whole.isEmpty { whole = "0" }
        var fraction = Substring(String(digits[point...]))
        while fraction.last == "0" { fraction = fraction.dropLast() }
        let result = (negative ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
        return result
    }

    /// `2024-01-01` -> `20240101`, or nil.
    static func icsDate(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return nil }
        let converted = spliced(b, [(0..<4, nil), (5..<7, nil), (8..<10, nil)])
        return DateSyntax.problem(converted) == nil ? converted : nil
    }

    /// `2024-01-01T10:00:00Z` -> `20240101T100000Z`, or nil.
    static func icsDateTime(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 19 || b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == UInt8(ascii: "T"),
              b[13] == 0x3A, b[16] == 0x3A else { return nil }
        let converted = spliced(b, [(0..<4, nil), (5..<7, nil), (8..<13, nil), (14..<16, nil), (17..<b.count, nil)])
        return DateSyntax.problem(converted) == nil ? converted : nil
    }

    /// `10:30:00Z` -> `103000Z`, or nil.
    static func icsTime(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 8 || b.count == 9, b[2] == 0x3A, b[5] == 0x3A else { return nil }
        let converted = spliced(b, [(0..<2, nil), (3..<5, nil), (6..<b.count, nil)])
        return time(converted) == nil ? nil : converted
    }

    /// `+01:00` -> `+0100`, `-01:30:45` -> `-013045`, or nil.
    static func icsUTCOffset(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 6 || b.count == 9, b[3] == 0x3A, b.count == 6 || b[6] == 0x3A else { return nil }
        let result = b.count == 9
            ? spliced(b, [(0..<3, nil), (4..<6, nil), (7..<9, nil)])
            : spliced(b, [(0..<3, nil), (4..<6, nil)])
        return utcOffset(result) == nil ? nil : result
    }

    // MARK: Helpers

    /// The bytes of `ranges` in order, each followed by its separator when it has one.
    private static func spliced(_ bytes: [UInt8], _ ranges: [(Range<Int>, UInt8?)]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + ranges.count)
        for (range, separator) in ranges {
            output.append(contentsOf: bytes[range])
            if let separator { output.append(separator) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Two ASCII digits as a number, or nil.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard JCalJSON.isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// Whether a type name is an iana-token or x-name (letters, digits, `-`).
    static func isTypeName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(ASCII.isNameByte)
    }

    /// Splits at a separator that is not preceded by a backslash escape; escapes stay.
    static func splitUnescaped(_ raw: String, at separator: UInt8) -> [String] {
        TextCoding.splitUnescaped(raw, at: separator)
    }

    private static func describe(_ value: JCalJSON) -> String {
        switch value {
        case .string(let text): return "\"\(text)\""
        case .number(let literal): return literal
        default: return value.kindDescription
        }
    }
}

extension JCalJSON {
    var isArray: Bool {
        if case .array = self { return true }
        return false
    }
}
