/// Where the properties an expansion reads stand in one VEVENT, VTODO or VJOURNAL, found in
/// one pass over its properties.
///
/// `Component.property(_:)` scans every property with a case-insensitive comparison, and a
/// series needs a dozen of them (UID, RECURRENCE-ID, DTSTART, DTEND, DURATION, RRULE,
/// RDATE, EXDATE...), so reading a 25-property event that way costs hundreds of name
/// comparisons. This reads each name once. The first property of a name wins, as it does
/// for `property(_:)`; RRULE, RDATE and EXDATE are counted (and read with
/// `properties(_:)` when there are any).
struct ComponentFields {
    // Positions in `properties` (-1: none), kept small so that a large calendar's worth of
    // fields stays compact.
    private var positions: (uid: Int32, recurrenceIdentifier: Int32, start: Int32, end: Int32, due: Int32,
                            duration: Int32, sequence: Int32, stamp: Int32, status: Int32) = (-1, -1, -1, -1, -1, -1, -1, -1, -1)
    private(set) var ruleCount: Int32 = 0
    private(set) var recurrenceDateCount: Int32 = 0
    private(set) var exceptionDateCount: Int32 = 0

    var uid: Int? { Self.index(positions.uid) }
    var recurrenceIdentifier: Int? { Self.index(positions.recurrenceIdentifier) }
    var start: Int? { Self.index(positions.start) }
    var end: Int? { Self.index(positions.end) }
    var due: Int? { Self.index(positions.due) }
    var duration: Int? { Self.index(positions.duration) }
    var sequence: Int? { Self.index(positions.sequence) }
    var stamp: Int? { Self.index(positions.stamp) }
    var status: Int? { Self.index(positions.status) }

    @inline(__always)
    private static func index(_ position: Int32) -> Int? { position < 0 ? nil : Int(position) }

    init(_ component: Component) {
        component.properties.withUnsafeBufferPointer { properties in
            for index in properties.indices {
                let name = properties[index].name
                let position = Int32(truncatingIfNeeded: index)
                switch name.utf8.count {
                case 3:
                    if positions.uid < 0, ASCII.equalsIgnoringCase(name, "UID") { positions.uid = position }
                    else if positions.due < 0, ASCII.equalsIgnoringCase(name, "DUE") { positions.due = position }
                case 5:
                    if ASCII.equalsIgnoringCase(name, "RRULE") { ruleCount += 1 }
                    else if ASCII.equalsIgnoringCase(name, "RDATE") { recurrenceDateCount += 1 }
                    else if positions.end < 0, ASCII.equalsIgnoringCase(name, "DTEND") { positions.end = position }
                case 6:
                    if ASCII.equalsIgnoringCase(name, "EXDATE") { exceptionDateCount += 1 }
                    else if positions.status < 0, ASCII.equalsIgnoringCase(name, "STATUS") { positions.status = position }
                case 7:
                    if positions.start < 0, ASCII.equalsIgnoringCase(name, "DTSTART") { positions.start = position }
                    else if positions.stamp < 0, ASCII.equalsIgnoringCase(name, "DTSTAMP") { positions.stamp = position }
                case 8:
                    if positions.duration < 0, ASCII.equalsIgnoringCase(name, "DURATION") { positions.duration = position }
                    else if positions.sequence < 0, ASCII.equalsIgnoringCase(name, "SEQUENCE") { positions.sequence = position }
                case 13:
                    if positions.recurrenceIdentifier < 0, ASCII.equalsIgnoringCase(name, "RECURRENCE-ID") {
                        positions.recurrenceIdentifier = position
                    }
                default:
                    continue
                }
            }
        }
    }

    /// Whether the component has RRULE or RDATE.
    var recurs: Bool { ruleCount > 0 || recurrenceDateCount > 0 }
}

extension Component {
    /// The property at an index found by ``ComponentFields``.
    @inline(__always)
    func property(at index: Int?) -> Property? {
        guard let index else { return nil }
        return properties[index]
    }
}
