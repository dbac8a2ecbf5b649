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
/// The slot properties come out as ``OccurrenceFormatter/setTimes(of:in:)`` makes them in
/// the whole item (it touches no other property, changes the first of each kind in place and
/// appends the ones the item lacks), so the bytes are the item's: the constant lines, the
/// slots in their places, the appended ones after the last property.
///
/// - For a component that is not a to-do, setTimes only sets values, so each slot's line is
///   its property's line as the component has it, when the occurrence's value is the one it
///   holds (setDateTime then keeps the text), or else the line's head (name, parameters,
///   colon) followed by the value's text. A head depends only on the property, the value's
///   TZID and whether it is a DATE; each is made once, by the general setters themselves,
///   with the TZID's entry in the VTIMEZONE needs.
/// - For a to-do, whose DTEND is removed and whose DUE depends on the occurrence, each match
///   runs setTimes on a copy of the slots; a match whose slots do not come out in the
///   template's places (a to-do losing its DTEND) is left to the caller's general path.
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
        /// What becomes of each slot (in order) and of the time properties the item lacks
        /// (appended in setTimes' order); nil for a to-do.
        let plan: (slots: [Slot], appended: [Slot])?

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
            plan = Self.plan(slots, isRecurring: isRecurring, writer: writer, needs: &needs)
        }

        /// The slots' roles, as setTimes gives them: the first DTSTART takes the start, the
        /// first DTEND the end (but in a journal), the first RECURRENCE-ID the occurrence's
        /// (in a series); the rest keep their lines. Nil for a to-do.
        private static func plan(_ slots: Component, isRecurring: Bool, writer: ICalWriter,
                                 needs: inout TimeZoneExport.Needs) -> (slots: [Slot], appended: [Slot])? {
            guard !slots.matches(.todo) else { return nil }
            var roles: [(kind: PropertyKind, role: Slot.Role)] = [(.dateTimeStart, .start)]
            if !slots.matches(.journal) { roles.append((.dateTimeEnd, .end)) }
            if isRecurring { roles.append((.recurrenceIdentifier, .recurrenceIdentifier)) }
            var found = Array(repeating: false, count: roles.count)
            var planned: [Slot] = []
            for property in slots.properties {
                if let index = roles.indices.first(where: { !found[$0] && property.matches(roles[$0].kind) }) {
                    found[index] = true
                    planned.append(Slot(roles[index].role, kind: roles[index].kind, property: property, in: slots.name))
                } else {
                    // Not the first of its kind, or a kind this item does not set: kept, and
                    // needed as it is.
                    var line: [UInt8] = []
                    writer.append(property, to: &line)
                    needs.add(Component(name: slots.name, properties: [property]))
                    planned.append(Slot(constant: line))
                }
            }
            let appended = roles.indices.filter { !found[$0] }.map {
                Slot(roles[$0].role, kind: roles[$0].kind, property: nil, in: slots.name)
            }
            return (planned, appended)
        }
    }

    /// One time property of an item that is not a to-do: how its line is written for an
    /// occurrence's value.
    final class Slot {
        enum Role { case start, end, recurrenceIdentifier, constant }

        /// The line's head for values with one TZID and kind (DATE or DATE-TIME), and the
        /// TZID's entry in the VTIMEZONE needs.
        struct Head {
            let timeZoneIdentifier: String?
            let isDate: Bool
            let bytes: [UInt8]
            let needs: Int?
        }

        let role: Role
        let kind: PropertyKind
        /// The component's name, for running the setters on this property alone.
        let componentName: String
        /// The property as the component has it; nil for one the item lacks.
        let property: Property?
        /// The property's value, which setDateTime compares before it changes anything.
        let value: DateTime?
        /// The property's line when the occurrence's value is `value` (made on first use).
        private var unchangedLine: [UInt8]?
        private var heads: [Head] = []

        init(_ role: Role, kind: PropertyKind, property: Property?, in componentName: String) {
            self.role = role
            self.kind = kind
            self.componentName = componentName
            self.property = property
            value = property?.dateTimeValue
        }

        /// A slot whose line never changes.
        init(constant line: [UInt8]) {
            role = .constant
            kind = .dateTimeStart
            componentName = ""
            property = nil
            value = nil
            unchangedLine = line
        }

        /// Appends the slot's line for an occurrence's start, end and RECURRENCE-ID, and adds
        /// what it needs to `needs`.
        func append(start: DateTime, end: DateTime, recurrenceIdentifier: DateTime, writer: ICalWriter,
                    needs: inout TimeZoneExport.Needs, to out: inout [UInt8]) {
            let new: DateTime
            switch role {
            case .constant: return out.append(contentsOf: unchangedLine!)
            case .start: new = start
            case .end: new = end
            case .recurrenceIdentifier: new = recurrenceIdentifier
            }
            if let value, value == new {
                if unchangedLine == nil {
                    let property = set(new)
                    var line: [UInt8] = []
                    writer.append(property, to: &line)
                    unchangedLine = line
                    // The same line every time: what it needs, once.
                    needs.add(Component(name: componentName, properties: [property]))
                }
                return out.append(contentsOf: unchangedLine!)
            }
            let zone = new.timeZoneIdentifier
            let head: Head
            if let known = heads.first(where: { $0.timeZoneIdentifier == zone && $0.isDate == new.isDate }) {
                head = known
            } else {
                let property = set(new)
                var bytes: [UInt8] = []
                writer.appendHead(of: property, to: &bytes)
                head = Head(timeZoneIdentifier: zone, isDate: new.isDate, bytes: bytes,
                            needs: property[parameter: .timeZoneIdentifier].flatMap { needs.entry(for: $0) })
                heads.append(head)
            }
            writer.appendLine(to: &out) { line in
                line.append(contentsOf: head.bytes)
                new.appendICalendarText(to: &line)
            }
            if let entry = head.needs { needs.add(new.local, entry: entry, recurring: false) }
        }

        /// The property as setTimes leaves it for the value `new`: the component's setters
        /// run on it alone (they find it first, as in the whole item).
        private func set(_ new: DateTime) -> Property {
            var item = Component(name: componentName, properties: property.map { [$0] } ?? [])
            switch role {
            case .start: item.dateTimeStart = new
            case .end: item.dateTimeEnd = new
            case .recurrenceIdentifier:
                item.recurrenceIdentifier = new
                item.recurrenceIdentifierRange = nil
            case .constant: break
            }
            return item.property(kind)!
        }
    }

    private var templates = ComponentTemplates<Template>()

    /// Appends a match's item; false, with nothing appended, when it must take the general
    /// path (``OccurrenceFormatter/item(_:)``).
    mutating func append(_ match: OccurrenceQuery.Match, writer: ICalWriter, needs: inout TimeZoneExport.Needs,
                         to out: inout [UInt8]) -> Bool {
        let template = self.template(for: match, writer: writer, needs: &needs)
        let occurrence = match.occurrence
        if let plan = template.plan {
            // A year outside 0...9999 is not written in four digits, and the needs read
            // values back from their text: the general path keeps both as they are.
            guard Self.isPlain(occurrence.start), Self.isPlain(occurrence.end),
                  Self.isPlain(occurrence.recurrenceIdentifier) else { return false }
            for (index, slot) in plan.slots.enumerated() {
                out.append(contentsOf: template.before[index])
                slot.append(start: occurrence.start, end: occurrence.end,
                            recurrenceIdentifier: occurrence.recurrenceIdentifier,
                            writer: writer, needs: &needs, to: &out)
            }
            out.append(contentsOf: template.after)
            for slot in plan.appended {
                slot.append(start: occurrence.start, end: occurrence.end,
                            recurrenceIdentifier: occurrence.recurrenceIdentifier,
                            writer: writer, needs: &needs, to: &out)
            }
            out.append(contentsOf: template.trailer)
            return true
        }
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

    /// Whether a value's year has four digits (what the text of DATE and DATE-TIME holds).
    private static func isPlain(_ value: DateTime) -> Bool { (0...9999).contains(value.local.date.year) }

    /// The template of a match's component (see ``ComponentTemplates``).
    private mutating func template(for match: OccurrenceQuery.Match, writer: ICalWriter,
                                   needs: inout TimeZoneExport.Needs) -> Template {
        let component = match.occurrence.component
        return templates.template(for: component, fitting: {
            $0.component.name == component.name && $0.isRecurring == match.isRecurring
        }, make: { Template(match, writer: writer, needs: &needs) })
    }
}
