/// Reads jCal (RFC 7265) into ``Component`` trees that ``ICalWriter`` writes as iCalendar.
///
/// The input is either one component array (`["vcalendar", [...], [...]]`, what RFC 7265
/// §3 calls a jCal object) or a JSON array of them. Names may be in any case; they are
/// uppercased, as iCalendar writes them. Each property becomes one content line:
///
/// - the type becomes a `VALUE` parameter, placed first, unless it is the property's
///   default (``JCalValueType/defaultType(for:)``) or `"unknown"` (RFC 7265 §5); properties
///   with no default, whose VALUE is required (RFC 7986's IMAGE, CONFERENCE, SOURCE and
///   REFRESH-INTERVAL, ``JCalValueType/requiresValueParameter(_:)``), always get it;
/// - parameters keep their order; each value is encoded with RFC 6868 caret escapes and
///   quoted only when it holds `:`, `;` or `,`; an array becomes a comma-separated list;
/// - values take their iCalendar form (the reverse of ``JCalWriter``): TEXT escaped
///   (RFC 5545 §3.3.11), dates and times without separators, several values joined by
///   commas, a recur object as `KEY=value;...`, an `"unknown"` value copied as it is.
///
/// Anything that is not jCal throws an ``ICalError`` with a clear message that starts with
/// the JSON path of the problem: malformed JSON (``ICalError/Code-swift.struct/json``,
/// with line and column), a wrong shape (``ICalError/Code-swift.struct/jcal``), or a value
/// that is not of its type (``ICalError/Code-swift.struct/invalidValue``), for example
/// `$[1][3][3]: "2024-13-01" is not a date such as "2024-01-31"`.
///
/// Reading what ``JCalWriter`` wrote and writing it again gives the same bytes, also
/// when the trip goes through iCalendar text (RFC 7265 §3 round trip). jCal from other
/// producers may come back in the writer's form instead: names lowercased, a
/// one-element parameter array as a string, several values of a single-valued property
/// joined into one, a FLOAT exponent (`1e-3`) written out (`0.001`), an `"unknown"` value
/// of a typed property given its type, a CR in TEXT dropped (iCalendar TEXT has none),
/// and a one-element array of components written as that component alone.
///
/// ```swift
/// let calendars = try JCalReader().read(json)
/// let text = ICalWriter().string(calendars)
/// ```
///
/// See RFC 7265 §3 and §5.
public struct JCalReader: Sendable {
    /// The largest input accepted, in bytes (default 256 MiB).
    public var maxInputSize: Int
    /// The deepest nesting of JSON arrays and objects accepted (default 128).
    public var maxDepth: Int

    /// Creates a reader; the limits bound the work any input can cause.
    public init(maxInputSize: Int = 256 << 20, maxDepth: Int = 128) {
        self.maxInputSize = maxInputSize
        self.maxDepth = maxDepth
    }

    /// Reads jCal bytes (UTF-8, an optional byte order mark is skipped).
    ///
    /// - Returns: the components, in document order.
    /// - Throws: ``ICalError`` when the input is not jCal; see the type's documentation.
    public func read(_ bytes: some Collection<UInt8>) throws(ICalError) -> [Component] {
        guard bytes.count <= maxInputSize else {
            throw ICalError(.limitExceeded, "input is \(bytes.count) bytes, more than the limit of \(maxInputSize)")
        }
        let json = try JCalJSON.parse(Array(bytes), maxDepth: maxDepth)
        return try JCalReader.components(from: json)
    }

    /// Reads jCal text.
    public func read(_ text: String) throws(ICalError) -> [Component] {
        try read(Array(text.utf8))
    }

    /// Reads a jCal file; `-` reads standard input. Errors name the file.
    public func read(contentsOfFile path: String) throws(ICalError) -> [Component] {
        let bytes = try FileIO.readAll(path: path, limit: maxInputSize)
        do {
            return try read(bytes)
        } catch {
            var located = error
            located.file = path == "-" ? "<stdin>" : path
            throw located
        }
    }

    // MARK: Conversion

    /// The components of a jCal document: one component array or an array of them.
    static func components(from json: JCalJSON) throws(ICalError) -> [Component] {
        guard case .array(let elements) = json else {
            throw shape("$", "a jCal document must be a component array such as [\"vcalendar\", [], []], found \(json.kindDescription)")
        }
        if case .string = elements.first { return [try component(json, path: "$")] }
        var components: [Component] = []
        components.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            components.append(try component(element, path: "$[\(index)]"))
        }
        return components
    }

    /// A component array `[name, [properties], [components]]` (RFC 7265 §3.3).
    static func component(_ json: JCalJSON, path: String) throws(ICalError) -> Component {
        guard case .array(let elements) = json, elements.count == 3 else {
            throw shape(path, "a component must be an array of three elements, [name, [properties], [components]], found \(describe(json))")
        }
        let name = try self.name(elements[0], path: "\(path)[0]", what: "component")
        guard case .array(let propertyArrays) = elements[1] else {
            throw shape("\(path)[1]", "a component's properties must be an array, found \(elements[1].kindDescription)")
        }
        guard case .array(let componentArrays) = elements[2] else {
            throw shape("\(path)[2]", "a component's subcomponents must be an array, found \(elements[2].kindDescription)")
        }
        var result = Component(name: name)
        result.properties.reserveCapacity(propertyArrays.count)
        for (index, element) in propertyArrays.enumerated() {
            result.properties.append(try property(element, path: "\(path)[1][\(index)]"))
        }
        for (index, element) in componentArrays.enumerated() {
            result.components.append(try component(element, path: "\(path)[2][\(index)]"))
        }
        return result
    }

    /// A property array `[name, {parameters}, type, value, ...]` (RFC 7265 §3.4).
    static func property(_ json: JCalJSON, path: String) throws(ICalError) -> Property {
        guard case .array(let elements) = json, elements.count >= 4 else {
            throw shape(path, "a property must be an array [name, {parameters}, type, value, ...] with at least one value, found \(describe(json))")
        }
        let name = try self.name(elements[0], path: "\(path)[0]", what: "property")
        if name == "BEGIN" || name == "END" {
            throw shape("\(path)[0]", "\(name.lowercased()) is not a property name; components are arrays of their own")
        }
        guard case .object(let members) = elements[1] else {
            throw shape("\(path)[1]", "a property's parameters must be an object, found \(elements[1].kindDescription)")
        }
        guard case .string(let typeName) = elements[2], JCalValueCoding.isTypeName(typeName) else {
            throw shape("\(path)[2]", "a property's type must be a name such as \"text\" or \"date-time\", found \(describe(elements[2]))")
        }
        let kind = PropertyKind(rawValue: name)
        let type = JCalValueType(rawValue: typeName)

        var parameters: [Parameter] = []
        if type != .unknown && (type != JCalValueType.defaultType(for: kind) || JCalValueType.requiresValueParameter(kind)) {
            parameters.append(Parameter(name: ParameterKind.valueType.rawValue, rawValue: type.parameterValue))
        }
        var seen = Set<String>()
        for member in members {
            let memberPath = "\(path)[1].\(member.key)"
            let parameterName = ASCII.uppercased(member.key)
            guard JCalValueCoding.isTypeName(parameterName) else {
                throw shape(memberPath, "a parameter name must be letters, digits and '-', found \"\(member.key)\"")
            }
            guard seen.insert(parameterName).inserted else {
                throw shape(memberPath, "the parameter \(member.key) appears twice; give several values as an array")
            }
            if parameterName == ParameterKind.valueType.rawValue && type != .unknown {
                throw shape(memberPath, "the value parameter is only allowed with the type \"unknown\"; the type \"\(type)\" already names the value type")
            }
            switch member.value {
            case .string(let value):
                parameters.append(Parameter(name: parameterName, value: value))
            case .array(let items) where !items.isEmpty:
                var values: [String] = []
                for (index, item) in items.enumerated() {
                    guard case .string(let value) = item else {
                        throw shape("\(memberPath)[\(index)]", "a parameter value must be a string, found \(item.kindDescription)")
                    }
                    values.append(value)
                }
                parameters.append(Parameter(name: parameterName, values: values))
            default:
                throw shape(memberPath, "a parameter value must be a string or a non-empty array of strings, found \(describe(member.value))")
            }
        }
        let rawValue = try JCalValueCoding.text(Array(elements[3...]), type: type, property: kind, path: path)
        return Property(name: name, parameters: parameters, rawValue: rawValue)
    }

    private static func name(_ json: JCalJSON, path: String, what: String) throws(ICalError) -> String {
        guard case .string(let text) = json, JCalValueCoding.isTypeName(text) else {
            throw shape(path, "a \(what) name must be a string of letters, digits and '-', found \(describe(json))")
        }
        return ASCII.uppercased(text)
    }

    private static func shape(_ path: String, _ message: String) -> ICalError {
        ICalError(.jcal, "\(path): \(message)")
    }

    private static func describe(_ json: JCalJSON) -> String {
        switch json {
        case .string(let text): return "\"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case .array(let elements): return "an array of \(elements.count) element\(elements.count == 1 ? "" : "s")"
        default: return json.kindDescription
        }
    }
}
