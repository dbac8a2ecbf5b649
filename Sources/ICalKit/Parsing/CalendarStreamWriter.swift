/// Writes VCALENDARs one component at a time, as ``ICalComponentStream`` reads them, with
/// the same bytes ``ICalWriter`` or ``JCalWriter`` give for the whole tree: what
/// `ical convert` uses to write a file of any size without holding it.
///
/// Call ``beginCalendar(_:to:)`` with a VCALENDAR's properties (its components are not
/// written), ``append(_:to:)`` for each of its components in order, and
/// ``endCalendar(_:to:)``; then ``finish(to:)`` once after the last calendar. Each call
/// appends to a buffer the caller writes out and empties as it likes.
///
/// jCal output of several VCALENDARs is a JSON array of them, of one a single component
/// array (as ``JCalWriter/bytes(_:pretty:)``): say which with `severalCalendars`.
///
/// ```swift
/// var writer = CalendarStreamWriter(format: .iCalendar)
/// var output: [UInt8] = []
/// writer.beginCalendar(header, to: &output)
/// for event in events { writer.append(event, to: &output) }
/// writer.endCalendar(header, to: &output)
/// writer.finish(to: &output)
/// ```
public struct CalendarStreamWriter: Sendable {
    /// The format written.
    public let format: CalendarFormat
    /// jCal: indented for people to read (as ``JCalWriter``'s `pretty`).
    public let pretty: Bool
    /// jCal: whether the output holds several VCALENDARs (a JSON array of them) rather
    /// than exactly one.
    public private(set) var severalCalendars: Bool
    private var calendarsWritten = 0
    private var componentsInCalendar = 0

    /// Creates a writer.
    public init(format: CalendarFormat, pretty: Bool = false, severalCalendars: Bool = false) {
        self.format = format
        self.pretty = pretty
        self.severalCalendars = severalCalendars
    }

    /// The indent of a calendar's opening bracket (pretty jCal).
    private var indent: Int { severalCalendars ? 1 : 0 }

    /// Opens a VCALENDAR: its `BEGIN` and properties (jCal: its name and properties).
    public mutating func beginCalendar(_ calendar: Component, to output: inout [UInt8]) {
        defer { calendarsWritten += 1; componentsInCalendar = 0 }
        switch format {
        case .iCalendar:
            let writer = ICalWriter()
            writer.appendLine(to: &output) { line in
                line.append(contentsOf: "BEGIN:".utf8)
                line.append(contentsOf: calendar.name.utf8)
            }
            for property in calendar.properties { writer.append(property, to: &output) }
        case .jCal:
            if severalCalendars {
                if calendarsWritten == 0 {
                    output.append(contentsOf: (pretty ? "[\n" : "[").utf8)
                } else {
                    output.append(contentsOf: (pretty ? ",\n" : ",").utf8)
                }
                if pretty { output.append(contentsOf: JCalWriter.spaces(1)) }
            }
            let name = JCalValueType.lowercasedName(calendar.name)
            guard pretty else {
                output.append(UInt8(ascii: "["))
                JCalJSON.writeString(name, to: &output)
                output.append(UInt8(ascii: ","))
                JCalJSON.array(calendar.properties.map(JCalWriter.json)).write(to: &output, pretty: false)
                output.append(contentsOf: ",[".utf8)
                return
            }
            JCalWriter.appendPrettyHead(name, calendar.properties, to: &output, indent: indent)
        }
    }

    /// Writes one component of the open VCALENDAR, with everything in it.
    public mutating func append(_ component: Component, to output: inout [UInt8]) {
        defer { componentsInCalendar += 1 }
        switch format {
        case .iCalendar:
            ICalWriter().append(component, to: &output)
        case .jCal:
            guard pretty else {
                if componentsInCalendar > 0 { output.append(UInt8(ascii: ",")) }
                JCalWriter.json(component).write(to: &output, pretty: false)
                return
            }
            output.append(contentsOf: (componentsInCalendar == 0 ? "[\n" : ",\n").utf8)
            output.append(contentsOf: JCalWriter.spaces(indent + 2))
            JCalWriter().append(component, to: &output, pretty: true, indent: indent + 2)
        }
    }

    /// Closes the open VCALENDAR (`calendar` is the one given to ``beginCalendar(_:to:)``).
    public mutating func endCalendar(_ calendar: Component, to output: inout [UInt8]) {
        switch format {
        case .iCalendar:
            ICalWriter().appendLine(to: &output) { line in
                line.append(contentsOf: "END:".utf8)
                line.append(contentsOf: calendar.name.utf8)
            }
        case .jCal:
            guard pretty else {
                output.append(contentsOf: "]]".utf8)
                return
            }
            if componentsInCalendar == 0 {
                output.append(contentsOf: "[]".utf8)
            } else {
                output.append(0x0A)
                output.append(contentsOf: JCalWriter.spaces(indent + 1))
                output.append(UInt8(ascii: "]"))
            }
            output.append(0x0A)
            output.append(contentsOf: JCalWriter.spaces(indent))
            output.append(UInt8(ascii: "]"))
        }
    }

    /// Goes on as if `severalCalendars` had been true, after the first VCALENDAR was
    /// written as the only one (when the caller learns of a second one only as it comes):
    /// the next VCALENDAR is written as a further element of a JSON array. The output
    /// already written then needs ``severalCalendarsOpening`` before it and, pretty, two
    /// spaces after each of its line feeds (the first calendar's deeper indent) to be what
    /// `severalCalendars: true` writes.
    public mutating func continueAsSeveral() {
        severalCalendars = true
    }

    /// What goes before a first VCALENDAR written as the only one, once
    /// ``continueAsSeveral()`` was called (jCal).
    public var severalCalendarsOpening: [UInt8] {
        Array((pretty ? "[\n  " : "[").utf8)
    }

    /// Ends the output after the last VCALENDAR.
    public func finish(to output: inout [UInt8]) {
        guard format == .jCal else { return }
        if severalCalendars {
            if calendarsWritten == 0 {
                output.append(contentsOf: "[]".utf8)
            } else {
                output.append(contentsOf: (pretty ? "\n]" : "]").utf8)
            }
        }
        if pretty { output.append(0x0A) }
    }
}
