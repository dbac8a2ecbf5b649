/// Writes ``Component`` trees as jCal, the JSON form of iCalendar (RFC 7265).
///
/// A component becomes `[name, [properties], [components]]` and a property
/// `[name, {parameters}, type, value, ...]`, names lowercased (RFC 7265 §3.3-§3.4). What
/// the conversion keeps, and how:
///
/// - **Order.** Properties, subcomponents and parameters keep their order. Parameters
///   that share a name (`X-A=1;X-A=2`) merge into one member at the first one's place,
///   their values in order (JSON objects have no duplicate keys).
/// - **Parameters.** Values are decoded (quotes and RFC 6868 caret escapes removed); a
///   parameter with several values becomes an array (`"member": ["mailto:a", "mailto:b"]`).
/// - **Types.** The type is the property's `VALUE` parameter or its default
///   (``JCalValueType/type(of:)``). `VALUE` itself is not written as a parameter: the type
///   carries it.
/// - **Values** take their jCal form (RFC 7265 §3.6): DATE `"2024-01-31"`, DATE-TIME
///   `"2024-01-31T10:00:00"` (`Z` kept), TIME `"10:00:00"`, UTC-OFFSET `"+01:00"` or
///   `"+01:30:45"`, PERIOD `[start, end or duration]`, RECUR an object, INTEGER and FLOAT
///   numbers (their digits unchanged), BOOLEAN `true`/`false`, TEXT unescaped, GEO
///   `[latitude, longitude]`, REQUEST-STATUS `[code, description, data]`, and one element
///   per value for CATEGORIES, RESOURCES, RDATE, EXDATE, FREEBUSY and LOCATION-TYPE.
/// - **Unknown properties** (X- and unregistered IANA names without `VALUE`) get the type
///   `"unknown"` and their text exactly as written (RFC 7265 §5).
/// - **Values that do not follow their type's grammar** (an X- property with
///   `VALUE=DATE:soon`, a PRIORITY of `+1`, an RRULE with an empty part) are also written
///   as `"unknown"` with their exact text, and keep their `VALUE` parameter as
///   `"value"` when they had one, so reading the jCal back gives the same property. So
///   does an explicit `VALUE=UNKNOWN` on a property that has a default type.
///
/// ``JCalReader`` reverses all of this; see ``Component/normalizedForInterchange()`` for
/// exactly what a round trip through jCal gives back.
///
/// Output is deterministic: the same components always give the same bytes. Compact
/// output has no white space; pretty output puts each component element and each
/// property on its own line, indented by two spaces, and ends with a newline.
///
/// ```swift
/// let calendars = try ICalReader().read(text).calendars
/// print(JCalWriter().string(calendars, pretty: true))
/// ```
///
/// See RFC 7265 §3.
public struct JCalWriter: Sendable {
    /// Creates a writer.
    public init() {}

    /// The jCal bytes (UTF-8) of several components: a single component array when there
    /// is exactly one, else a JSON array of component arrays (`[]` for none).
    public func bytes(_ components: [Component], pretty: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        if components.count == 1 {
            append(components[0], to: &output, pretty: pretty, indent: 0)
        } else if !pretty || components.isEmpty {
            output.append(UInt8(ascii: "["))
            for (index, component) in components.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                append(component, to: &output, pretty: pretty, indent: 1)
            }
            output.append(UInt8(ascii: "]"))
        } else {
            output.append(contentsOf: "[\n".utf8)
            for (index, component) in components.enumerated() {
                output.append(contentsOf: JCalWriter.spaces(1))
                append(component, to: &output, pretty: true, indent: 1)
                output.append(contentsOf: (index + 1 < components.count ? ",\n" : "\n").utf8)
            }
            output.append(UInt8(ascii: "]"))
        }
        if pretty { output.append(0x0A) }
        return output
    }

    /// The jCal bytes of one component (`["vcalendar", [...], [...]]`).
    public func bytes(_ component: Component, pretty: Bool = false) -> [UInt8] {
        bytes([component], pretty: pretty)
    }

    /// The jCal text of several components: one component array when there is exactly
    /// one, else a JSON array of them.
    public func string(_ components: [Component], pretty: Bool = false) -> String {
        String(decoding: bytes(components, pretty: pretty), as: UTF8.self)
    }

    /// The jCal text of one component.
    public func string(_ component: Component, pretty: Bool = false) -> String {
        string([component], pretty: pretty)
    }

    /// Writes jCal to a file atomically (temporary file, fsync, rename); `-` is standard
    /// output.
    public func write(_ components: [Component], toFile path: String, pretty: Bool = false) throws(ICalError) {
        try FileIO.writeAtomically(bytes(components, pretty: pretty), to: path)
    }

    // MARK: Layout

    static func spaces(_ level: Int) -> [UInt8] { Array(repeating: 0x20, count: level * 2) }

    /// The pretty form's start of a component at `indent`: `[`, its name, its properties, and
    /// the indentation of the subcomponents' array that follows.
    static func appendPrettyHead(_ name: String, _ properties: [Property], to output: inout [UInt8], indent: Int) {
        let inner = spaces(indent + 1)
        output.append(contentsOf: "[\n".utf8)
        output.append(contentsOf: inner)
        JCalJSON.writeString(name, to: &output)
        output.append(contentsOf: ",\n".utf8)
        output.append(contentsOf: inner)
        if properties.isEmpty {
            output.append(contentsOf: "[]".utf8)
        } else {
            output.append(contentsOf: "[\n".utf8)
            for (index, property) in properties.enumerated() {
                output.append(contentsOf: spaces(indent + 2))
                json(property).write(to: &output, pretty: true)
                output.append(contentsOf: (index + 1 < properties.count ? ",\n" : "\n").utf8)
            }
            output.append(contentsOf: inner)
            output.append(UInt8(ascii: "]"))
        }
        output.append(contentsOf: ",\n".utf8)
        output.append(contentsOf: inner)
    }

    func append(_ component: Component, to output: inout [UInt8], pretty: Bool, indent: Int) {
        guard pretty else {
            JCalWriter.json(component).write(to: &output, pretty: false)
            return
        }
        let inner = JCalWriter.spaces(indent + 1)
        Self.appendPrettyHead(JCalValueType.lowercasedName(component.name), component.properties, to: &output, indent: indent)
        if component.components.isEmpty {
            output.append(contentsOf: "[]".utf8)
        } else {
            output.append(contentsOf: "[\n".utf8)
            for (index, child) in component.components.enumerated() {
                output.append(contentsOf: JCalWriter.spaces(indent + 2))
                append(child, to: &output, pretty: true, indent: indent + 2)
                output.append(contentsOf: (index + 1 < component.components.count ? ",\n" : "\n").utf8)
            }
            output.append(contentsOf: inner)
            output.append(UInt8(ascii: "]"))
        }
        output.append(0x0A)
        output.append(contentsOf: JCalWriter.spaces(indent))
        output.append(UInt8(ascii: "]"))
    }

    // MARK: Conversion

    /// A component as a jCal component array (RFC 7265 §3.3).
    static func json(_ component: Component) -> JCalJSON {
        .array([
            .string(JCalValueType.lowercasedName(component.name)),
            .array(component.properties.map(json)),
            .array(component.components.map(json)),
        ])
    }

    /// A property as a jCal property array (RFC 7265 §3.4).
    static func json(_ property: Property) -> JCalJSON {
        let typed = JCalPropertyShape(property)
        var elements: [JCalJSON] = [
            .string(JCalValueType.lowercasedName(property.name)),
            .object(typed.parameters.map { group in
                JCalJSON.Member(
                    key: JCalValueType.lowercasedName(group.name),
                    value: group.values.count == 1 ? .string(group.values[0]) : .array(group.values.map { .string($0) }))
            }),
            .string(typed.type.rawValue),
        ]
        elements.append(contentsOf: typed.values)
        return .array(elements)
    }
}
