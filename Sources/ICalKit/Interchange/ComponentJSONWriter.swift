/// Writes events, to-dos and journals as a flat JSON array for scripts: the output of
/// `ical convert --to json`.
///
/// The shape is one object per VEVENT, VTODO and VJOURNAL, in input order, with its members
/// always present and always in this order (absent values are `null`, lists are empty):
///
/// ```json
/// [{"component":"VEVENT","uid":"a@example.com","summary":"Stand-up",
///   "start":"2024-03-11T09:00:00+01:00","end":"2024-03-11T09:15:00+01:00","allDay":false,
///   "timeZone":"Europe/Berlin","location":null,"description":null,
///   "rrule":"FREQ=WEEKLY;BYDAY=MO","status":"CONFIRMED","categories":["Work"],
///   "recurrenceId":null,"sequence":0,
///   "properties":[{"name":"UID","parameters":{},"value":"a@example.com"}, …]}]
/// ```
///
/// Times follow ``ComponentSummary``: a date for all-day values, a local time without an
/// offset for floating ones, a local time with its offset for zoned and UTC ones.
/// `properties` holds every property as written (name, decoded parameters as an object in
/// their order, raw value with its escapes), so nothing in the component is hidden.
/// The output is deterministic and valid RFC 8259 JSON; non-ASCII text is written as UTF-8.
public struct ComponentJSONWriter: Sendable {
    /// Whether to put each component on its own line (otherwise the array is one line).
    public var pretty: Bool

    /// Creates a writer.
    public init(pretty: Bool = false) {
        self.pretty = pretty
    }

    /// The JSON text for the components of the calendars, ending with a newline.
    public func string(_ calendars: [Component]) -> String {
        string(ComponentSummary.summaries(of: calendars))
    }

    /// The JSON text for summaries, ending with a newline.
    public func string(_ summaries: [ComponentSummary]) -> String {
        var text = ""
        for (index, summary) in summaries.enumerated() { text += element(summary, index: index) }
        return text + end(count: summaries.count)
    }

    /// The text of one summary in the array, with what goes before it: the opening bracket
    /// for the first (`index` 0), a comma for the others. With ``end(count:)`` after the
    /// last, the elements make the text ``string(_:)`` gives, one summary at a time (what
    /// `ical convert --to json` writes a file of any size with).
    public func element(_ summary: ComponentSummary, index: Int) -> String {
        let object = Self.json(summary).serialized(pretty: pretty)
        if pretty { return (index == 0 ? "[\n  " : ",\n  ") + object }
        return (index == 0 ? "[" : ",") + object
    }

    /// What ends the array after `count` elements (``element(_:index:)``), newline included.
    public func end(count: Int) -> String {
        if pretty { return count == 0 ? "[]\n" : "\n]\n" }
        return count == 0 ? "[]\n" : "]\n"
    }

    /// Writes the JSON atomically to a file, or to standard output for `-`.
    public func write(_ calendars: [Component], toFile path: String) throws(ICalError) {
        try FileIO.writeAtomically(Array(string(calendars).utf8), to: path)
    }

    static func json(_ summary: ComponentSummary) -> JCalJSON {
        func text(_ value: String?) -> JCalJSON { value.map(JCalJSON.string) ?? .null }
        let properties = summary.properties.map { property in
            JCalJSON.object([
                .init(key: "name", value: .string(property.name)),
                .init(key: "parameters", value: .object(property.parameters.map { .init(key: $0.name, value: .string($0.value)) })),
                .init(key: "value", value: .string(property.value)),
            ])
        }
        return .object([
            .init(key: "component", value: .string(summary.component)),
            .init(key: "uid", value: text(summary.uid)),
            .init(key: "summary", value: text(summary.summary)),
            .init(key: "start", value: text(summary.start)),
            .init(key: "end", value: text(summary.end)),
            .init(key: "allDay", value: .bool(summary.allDay)),
            .init(key: "timeZone", value: text(summary.timeZone)),
            .init(key: "location", value: text(summary.location)),
            .init(key: "description", value: text(summary.description)),
            .init(key: "rrule", value: text(summary.recurrenceRule)),
            .init(key: "status", value: text(summary.status)),
            .init(key: "categories", value: .array(summary.categories.map(JCalJSON.string))),
            .init(key: "recurrenceId", value: text(summary.recurrenceIdentifier)),
            .init(key: "sequence", value: summary.sequence.map { .number(String($0)) } ?? .null),
            .init(key: "properties", value: .array(properties)),
        ])
    }
}
