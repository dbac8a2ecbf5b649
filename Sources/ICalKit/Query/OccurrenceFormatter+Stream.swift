extension OccurrenceFormatter {
    /// The size of the pieces a streamed query is written in: 128 KiB.
    package static let streamChunkSize = 1 << 17

    /// Writes a query's matches as they come, as JSON, CSV or an agenda: the bytes
    /// ``bytes(_:as:)`` makes of the whole listing, handed to `sink` in pieces of about
    /// `chunkSize` bytes (the last one shorter), so no more than a piece is held.
    ///
    /// With a `limit`, only the first `limit` matches are written; the stream is drained all
    /// the same, so its diagnostics are complete. Returns the number of matches written.
    /// An error of `sink` stops the writing and is thrown; the stream is left where it was.
    @discardableResult
    package func write(_ stream: OccurrenceQuery.Stream, as format: ListingFormat, limit: Int? = nil,
                       chunkSize: Int = streamChunkSize,
                       to sink: ([UInt8]) throws(ICalError) -> Void) throws(ICalError) -> Int {
        var out: [UInt8] = []
        out.reserveCapacity(chunkSize + 4096)
        var writer = ListingWriter(formatter: self, format: format)
        writer.begin(to: &out)
        var written = 0
        while limit.map({ written < $0 }) ?? true, let match = stream.next() {
            writer.append(match, to: &out)
            written += 1
            if out.count >= chunkSize {
                try sink(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        writer.finish(to: &out)
        try sink(out)
        stream.drain()
        return written
    }

    /// Writes a query's matches as they come as the VCALENDAR ``calendar(_:)`` makes of
    /// them, in two parts, since its VTIMEZONEs come first but depend on every occurrence:
    /// the occurrences' components and the calendar's end go to `sink` in pieces of about
    /// `chunkSize` bytes, and the returned bytes (the calendar's start and its VTIMEZONEs)
    /// go before them. `ICalWriter().bytes(calendar(matches))` is the returned bytes
    /// followed by what `sink` received.
    ///
    /// With a `limit`, only the first `limit` matches are written; the stream is drained all
    /// the same, so its diagnostics are complete.
    package func writeCalendar(_ stream: OccurrenceQuery.Stream, limit: Int? = nil, chunkSize: Int = streamChunkSize,
                               to sink: ([UInt8]) throws(ICalError) -> Void) throws(ICalError) -> [UInt8] {
        let writer = ICalWriter()
        var needs = TimeZoneExport.Needs()
        var templates = ItemTemplates()
        var out: [UInt8] = []
        out.reserveCapacity(chunkSize + 4096)
        var written = 0
        while limit.map({ written < $0 }) ?? true, let match = stream.next() {
            if !templates.append(match, writer: writer, needs: &needs, to: &out) {
                let component = item(match)
                needs.add(component)
                writer.append(component, to: &out)
            }
            written += 1
            if out.count >= chunkSize {
                try sink(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        OccurrenceFormatter.append("END:VCALENDAR\r\n", to: &out)
        try sink(out)
        stream.drain()
        // The calendar's start: its lines up to its first component, then the VTIMEZONEs.
        var calendar = Component.calendar(productIdentifier: "-//OpenEventKit//ical query//EN")
        calendar.components = needs.timeZones()
        var opening = writer.bytes(calendar)
        let end = Array("END:VCALENDAR\r\n".utf8)
        opening.removeLast(end.count)
        return opening
    }
}

/// The items of one component's occurrences as ``OccurrenceFormatter/item(_:)`` writes them,
/// from a template made once per component: the lines of the properties an occurrence does
/// not change, written once, with slots for those it does (DTSTART, DTEND, DUE,
/// RECURRENCE-ID, see ``OccurrenceFormatter/timeKinds``).
///
/// For each match, the slot properties alone are set as ``OccurrenceFormatter/setTimes(of:in:)``
/// sets them in the whole item (it touches no other property, changes the ones it finds in
/// place and appends the ones it lacks), so the bytes are the item's: the constant lines,
/// the slots in their places, the appended ones after the last property. A match whose
/// slots do not come out in the template's places (a to-do losing its DTEND) is left to
/// the caller's general path.
struct ItemTemplates {
    final class Template {
        /// The component, held so that the address of its properties (the key) is not reused.
        let component: Component
        let isRecurring: Bool
        /// The item's slot properties as the component has them, in order, in a component of
        /// the item's name.
        let slots: Component
        /// The lines before each slot (the first also holds BEGIN).
        let before: [[UInt8]]
        /// The lines of the properties after the last slot.
        let after: [UInt8]
        /// The subcomponents' lines and END.
        let trailer: [UInt8]

        init(_ match: OccurrenceQuery.Match, writer: ICalWriter, needs: inout TimeZoneExport.Needs) {
            component = match.occurrence.component
            isRecurring = match.isRecurring
            var base = component
            for kind in OccurrenceFormatter.seriesKinds { base.removeProperties(kind) }
            var before: [[UInt8]] = []
            var lines: [UInt8] = []
            writer.appendLine(to: &lines) { line in
                line.append(contentsOf: "BEGIN:".utf8)
                line.append(contentsOf: base.name.utf8)
            }
            var slotProperties: [Property] = [], constant: [Property] = []
            for property in base.properties {
                if OccurrenceFormatter.timeKinds.contains(where: { property.matches($0) }) {
                    slotProperties.append(property)
                    before.append(lines)
                    lines.removeAll()
                } else {
                    constant.append(property)
                    writer.append(property, to: &lines)
                }
            }
            self.before = before
            after = lines
            var trailer: [UInt8] = []
            for child in base.components { writer.append(child, to: &trailer) }
            writer.appendLine(to: &trailer) { line in
                line.append(contentsOf: "END:".utf8)
                line.append(contentsOf: base.name.utf8)
            }
            self.trailer = trailer
            slots = Component(name: base.name, properties: slotProperties)
            // What the constant part needs of the calendar's VTIMEZONEs, once: the same for
            // every item of this component (an item has no RRULE, so no series' reach).
            needs.add(Component(name: base.name, properties: constant, components: base.components))
        }
    }

    private var templates = ComponentTemplates<Template>()

    /// Appends a match's item; false, with nothing appended, when it must take the general
    /// path (``OccurrenceFormatter/item(_:)``).
    mutating func append(_ match: OccurrenceQuery.Match, writer: ICalWriter, needs: inout TimeZoneExport.Needs,
                         to out: inout [UInt8]) -> Bool {
        let template = self.template(for: match, writer: writer, needs: &needs)
        var item = template.slots
        OccurrenceFormatter.setTimes(of: match, in: &item)
        let count = template.before.count
        guard item.properties.count >= count,
              zip(item.properties, template.slots.properties).allSatisfy({ $0.name == $1.name }) else { return false }
        needs.add(item)
        for index in 0..<count {
            out.append(contentsOf: template.before[index])
            writer.append(item.properties[index], to: &out)
        }
        out.append(contentsOf: template.after)
        for property in item.properties[count...] { writer.append(property, to: &out) }
        out.append(contentsOf: template.trailer)
        return true
    }

    /// The template of a match's component (see ``ComponentTemplates``).
    private mutating func template(for match: OccurrenceQuery.Match, writer: ICalWriter,
                                   needs: inout TimeZoneExport.Needs) -> Template {
        let component = match.occurrence.component
        return templates.template(for: component, fitting: {
            $0.component.name == component.name && $0.isRecurring == match.isRecurring
        }, make: { Template(match, writer: writer, needs: &needs) })
    }
}
