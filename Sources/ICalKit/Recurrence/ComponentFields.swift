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
    var uid: Int?
    var recurrenceIdentifier: Int?
    var start: Int?
    var end: Int?
    var due: Int?
    var duration: Int?
    var sequence: Int?
    var stamp: Int?
    var status: Int?
    var ruleCount = 0
    var recurrenceDateCount = 0
    var exceptionDateCount = 0

    init(_ component: Component) {
        for (index, property) in component.properties.enumerated() {
            let name = property.name
            switch name.utf8.count {
            case 3:
                if uid == nil, ASCII.equalsIgnoringCase(name, "UID") { uid = index }
                else if due == nil, ASCII.equalsIgnoringCase(name, "DUE") { due = index }
            case 5:
                if ASCII.equalsIgnoringCase(name, "RRULE") { ruleCount += 1 }
                else if ASCII.equalsIgnoringCase(name, "RDATE") { recurrenceDateCount += 1 }
                else if end == nil, ASCII.equalsIgnoringCase(name, "DTEND") { end = index }
            case 6:
                if ASCII.equalsIgnoringCase(name, "EXDATE") { exceptionDateCount += 1 }
                else if status == nil, ASCII.equalsIgnoringCase(name, "STATUS") { status = index }
            case 7:
                if start == nil, ASCII.equalsIgnoringCase(name, "DTSTART") { start = index }
                else if stamp == nil, ASCII.equalsIgnoringCase(name, "DTSTAMP") { stamp = index }
            case 8:
                if duration == nil, ASCII.equalsIgnoringCase(name, "DURATION") { duration = index }
                else if sequence == nil, ASCII.equalsIgnoringCase(name, "SEQUENCE") { sequence = index }
            case 13:
                if recurrenceIdentifier == nil, ASCII.equalsIgnoringCase(name, "RECURRENCE-ID") { recurrenceIdentifier = index }
            default:
                continue
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
