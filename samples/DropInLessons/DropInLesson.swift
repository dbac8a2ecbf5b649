import Foundation
import ICalKit

/// A drop-in lesson of the school's catalogue: the app's own data, read from an iCalendar
/// file with ICalKit (not from the user's calendar, which this app cannot read).
struct DropInLesson {
    var title: String
    var start: Date
    var end: Date
    var timeZone: TimeZone?
    var location: String?

    /// Every lesson of the file, in start order.
    static func catalogue(at path: String) throws -> [DropInLesson] {
        let result = try ICalReader().read(contentsOfFile: path)
        let sources = result.calendars.map { OccurrenceQuery.Source(calendar: $0, name: path) }
        // The lessons as the school published them: every occurrence, whenever it is.
        let everything = Int64(-2_208_988_800)..<Int64(4_102_444_800)
        let query = OccurrenceQuery(window: everything, floatingZone: IANATimeZone.system() ?? FixedOffsetZone.utc, kinds: [.event])
        return query.run(sources).matches.map { match in
            DropInLesson(title: match.occurrence.component.summary ?? "Lesson",
                         start: Date(timeIntervalSince1970: TimeInterval(match.startInstant)),
                         end: Date(timeIntervalSince1970: TimeInterval(match.endInstant)),
                         timeZone: match.timeZone.flatMap { TimeZone(identifier: $0.identifier) },
                         location: match.occurrence.component.location)
        }
    }

    /// `Thu 3 Dec 2026 18:00–19:30 Europe/Berlin`, in the lesson's own time zone.
    var when: String {
        let zone = timeZone ?? TimeZone.current
        let day = DateFormatter(), time = DateFormatter()
        for formatter in [day, time] {
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = zone
        }
        day.dateFormat = "EEE d MMM yyyy HH:mm"
        time.dateFormat = "HH:mm"
        return "\(day.string(from: start))–\(time.string(from: end)) \(zone.identifier)"
    }
}
