import Foundation
import ICalKit
import Testing

/// The instant of a UTC wall-clock time.
func utcDate(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    let local = LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)!
    return Date(timeIntervalSince1970: TimeInterval(local.secondsSinceEpoch))
}

/// A fixed zone one hour ahead of UTC, so tests never depend on the time-zone database or
/// the process zone.
let plusOneHour = FixedOffsetZone(identifier: "Test/PlusOne", offset: 3600)

/// The first component named `name` (at any depth) of iCalendar text; the text may be a
/// bare component, which the reader wraps in a VCALENDAR.
func component(_ name: ComponentKind, in text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Component {
    let result = try ICalReader().read(text.replacingOccurrences(of: "\n", with: "\r\n"))
    func find(_ components: [Component]) -> Component? {
        for component in components {
            if component.matches(name) { return component }
            if let found = find(component.components) { return found }
        }
        return nil
    }
    return try #require(find(result.calendars), "no \(name.rawValue) in the text", sourceLocation: sourceLocation)
}

/// A component's content lines as the writer writes them (unfolded), without BEGIN/END.
func lines(_ component: Component) -> [String] {
    ICalWriter(lineLength: 10_000).string(component)
        .split(separator: "\r\n").map(String.init)
        .filter { !$0.hasPrefix("BEGIN:") && !$0.hasPrefix("END:") }
}

/// Counts how often an owner was told of a change.
final class ChangeCounter {
    var count = 0
}
