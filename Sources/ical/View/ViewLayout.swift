import Foundation
import ICalKit

/// A colour as red, green and blue from 0 to 255: a calendar's colour in a view.
struct ViewColor: Hashable, Sendable {
    var red: Int
    var green: Int
    var blue: Int

    /// `#RRGGBB` or `#RRGGBBAA` (the vdir `color` file, Apple's calendar-color), else nil.
    init?(hex text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("#"), trimmed.count == 7 || trimmed.count == 9,
              let value = UInt32(trimmed.dropFirst().prefix(6), radix: 16) else { return nil }
        red = Int(value >> 16 & 0xFF)
        green = Int(value >> 8 & 0xFF)
        blue = Int(value & 0xFF)
    }

    init(red: Int, green: Int, blue: Int) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb`.
    var hex: String {
        "#" + [red, green, blue].map { String($0, radix: 16).leftPadded(to: 2, with: "0") }.joined()
    }

    /// Calendars without a colour of their own take these, in the order they are met.
    static let palette: [ViewColor] = [
        ViewColor(red: 0x1B, green: 0x6F, blue: 0xC8), ViewColor(red: 0xD9, green: 0x5F, blue: 0x0E),
        ViewColor(red: 0x2E, green: 0x8B, blue: 0x57), ViewColor(red: 0x8E, green: 0x44, blue: 0xAD),
        ViewColor(red: 0xC0, green: 0x39, blue: 0x2B), ViewColor(red: 0x16, green: 0x8A, blue: 0x8A),
    ]
}

/// One occurrence as the views place it: its text, its calendar's colour, and its start and
/// end as wall-clock times in the view's zone.
struct ViewEntry: Hashable, Sendable {
    /// SUMMARY as written (untrusted: every renderer makes it safe for its output).
    var title: String
    /// LOCATION as written, untrusted.
    var location: String?
    /// All-day (DATE values): shown in the all-day rows, on every date it covers.
    var isAllDay: Bool
    /// Cancelled instance (listed only with --include-cancelled).
    var isCancelled: Bool
    /// Start and end in the view's zone (all-day: the dates at midnight, end exclusive).
    var start: LocalDateTime
    var end: LocalDateTime
    /// The calendar's colour.
    var color: ViewColor
    /// The order of the listings (start order), to keep it stable.
    var order: Int

    /// The text of an entry's times for a day: `16:00`, or `16:00-16:45` with `range`.
    func clock(on date: CalendarDate, range: Bool) -> String {
        let from = start.date == date ? ViewEntry.clock(start.time) : "00:00"
        guard range else { return from }
        let to = end.date == date ? ViewEntry.clock(end.time) : "24:00"
        return from + "-" + to
    }

    static func clock(_ time: TimeOfDay) -> String {
        String(time.hour).leftPadded(to: 2, with: "0") + ":" + String(time.minute).leftPadded(to: 2, with: "0")
    }
}

/// A timed entry's part on one day: the minutes from midnight it covers (wall clock).
struct DaySegment: Hashable, Sendable {
    var entry: ViewEntry
    /// First minute, 0..<1440.
    var startMinute: Int
    /// End minute (exclusive), startMinute...1440; equal for an entry without length.
    var endMinute: Int
    /// Lane among the day's overlapping entries, from 0, and the day's lane count.
    var lane = 0
    var lanes = 1
}

/// What one day of a view shows.
struct ViewDay: Sendable {
    var date: CalendarDate
    /// The holiday's name when the date is a holiday (`--holidays`).
    var holiday: String?
    /// All-day entries covering the date, in start order.
    var allDay: [ViewEntry] = []
    /// Timed entries touching the date, in start order, with lanes for overlaps.
    var timed: [DaySegment] = []
    /// The UTC offsets at the start and the end of the day, when they differ (a DST change).
    var offsetChange: (from: Int, to: Int)?

    /// All-day first, then timed ones, as the month grid lists them.
    var entries: [ViewEntry] { allDay + timed.map(\.entry) }
}

/// Places listings on the days of a view.
enum ViewLayout {
    /// The most entries a view places (a month of a very busy store is cut there, with a
    /// warning), so rendering stays bounded.
    static let maximumEntries = 20_000

    /// The days `first...last` with the listings' occurrences placed on them.
    ///
    /// - Parameters:
    ///   - listings: the occurrences, in start order.
    ///   - zone: the view's zone: timed occurrences are shown at their wall-clock time in it
    ///     (floating ones were read in it); all-day ones keep their dates.
    ///   - color: the colour of a listing's calendar.
    ///   - holidays: the names of the holiday dates.
    static func days(_ listings: [OccurrenceListing], from first: CalendarDate, through last: CalendarDate,
                     zone: any TimeZoneRules, color: (OccurrenceListing) -> ViewColor,
                     holidays: [CalendarDate: String]) -> [ViewDay] {
        var days: [ViewDay] = []
        var date = first
        while date <= last {
            var day = ViewDay(date: date, holiday: holidays[date])
            let startOffset = zone.utcOffset(atInstant: zone.instant(for: LocalDateTime(date: date)))
            let endOffset = zone.utcOffset(atInstant: zone.instant(for: LocalDateTime(date: date.adding(days: 1))) - 1)
            if startOffset != endOffset { day.offsetChange = (startOffset, endOffset) }
            days.append(day)
            date = date.adding(days: 1)
        }
        guard !days.isEmpty else { return days }
        let firstDay = first.daysSinceEpoch
        for (order, listing) in listings.prefix(maximumEntries).enumerated() {
            let entry = self.entry(listing, order: order, zone: zone, color: color(listing))
            if entry.isAllDay {
                let lastDate = max(entry.start.date, entry.end.date.adding(days: -1))
                let from = max(0, entry.start.date.daysSinceEpoch - firstDay)
                let to = min(days.count - 1, lastDate.daysSinceEpoch - firstDay)
                if from <= to { for index in from...to { days[index].allDay.append(entry) } }
                continue
            }
            // Timed: one segment on every date from the start to the end (exclusive).
            let lastDate = entry.end > entry.start && entry.end.time == .midnight ? entry.end.date.adding(days: -1) : entry.end.date
            let from = max(0, entry.start.date.daysSinceEpoch - firstDay)
            let to = min(days.count - 1, max(entry.start.date, lastDate).daysSinceEpoch - firstDay)
            guard from <= to else { continue }
            for index in from...to {
                let date = days[index].date
                let startMinute = entry.start.date == date ? entry.start.time.hour * 60 + entry.start.time.minute : 0
                var endMinute = entry.end.date == date ? entry.end.time.hour * 60 + entry.end.time.minute : 1440
                // A wall clock that goes back (an event inside a DST overlap) still ends after it starts.
                if endMinute < startMinute { endMinute = startMinute }
                days[index].timed.append(DaySegment(entry: entry, startMinute: startMinute, endMinute: endMinute))
            }
        }
        for index in days.indices { assignLanes(&days[index].timed) }
        return days
    }

    /// The entry of a listing, in the view's zone.
    static func entry(_ listing: OccurrenceListing, order: Int, zone: any TimeZoneRules, color: ViewColor) -> ViewEntry {
        let cancelled = listing.status?.uppercased() == "CANCELLED"
        if listing.isAllDay || listing.start.isDate {
            let start = LocalDateTime(date: listing.start.local.date)
            let end = LocalDateTime(date: max(listing.end.local.date, listing.start.local.date.adding(days: 1)))
            return ViewEntry(title: listing.summary ?? "(no title)", location: listing.location, isAllDay: true,
                             isCancelled: cancelled, start: start, end: end, color: color, order: order)
        }
        let start = zone.local(at: listing.startInstant)
        let end = max(start, zone.local(at: max(listing.startInstant, listing.endInstant)))
        return ViewEntry(title: listing.summary ?? "(no title)", location: listing.location, isAllDay: false,
                         isCancelled: cancelled, start: start, end: end, color: color, order: order)
    }

    /// Gives overlapping segments separate lanes: each takes the first lane free at its
    /// start; every segment of a group of overlapping ones gets the group's lane count.
    static func assignLanes(_ segments: inout [DaySegment]) {
        segments.sort { ($0.startMinute, $0.entry.order) < ($1.startMinute, $1.entry.order) }
        var groupStart = 0
        var laneEnds: [Int] = []
        var groupEnd = -1
        func closeGroup(_ end: Int) {
            for index in groupStart..<end { segments[index].lanes = max(1, laneEnds.count) }
        }
        for index in segments.indices {
            let segment = segments[index]
            let end = max(segment.endMinute, segment.startMinute + 1)
            if segment.startMinute >= groupEnd {
                closeGroup(index)
                groupStart = index
                laneEnds = []
                groupEnd = -1
            }
            if let free = laneEnds.firstIndex(where: { $0 <= segment.startMinute }) {
                laneEnds[free] = end
                segments[index].lane = free
            } else {
                laneEnds.append(end)
                segments[index].lane = laneEnds.count - 1
            }
            groupEnd = max(groupEnd, end)
        }
        closeGroup(segments.count)
    }
}

/// The first day of the week: from `--first-weekday`, else the locale.
enum FirstWeekday {
    /// ISO weekday (1 Monday ... 7 Sunday) of a name or number: monday, mon, mo, 1 (Monday) ... 7 (Sunday).
    static func parse(_ text: String) -> Int? {
        let lower = text.lowercased()
        if let number = Int(lower), (1...7).contains(number) { return number }
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        guard lower.count >= 2, let index = names.firstIndex(where: { $0.hasPrefix(lower) }) else { return nil }
        return index + 1
    }

    /// The locale's first weekday (ISO numbering) from LC_ALL, LC_TIME or LANG: Sunday where
    /// the locale says so (en_US, ja_JP, ...), Monday for C, POSIX and no locale.
    static func fromLocale(_ environment: [String: String]) -> Int {
        let name = [environment["LC_ALL"], environment["LC_TIME"], environment["LANG"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? "C"
        let identifier = String(name.prefix { $0 != "." && $0 != "@" })
        guard identifier != "C", identifier != "POSIX", identifier.contains("_") else { return 1 }
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = Locale(identifier: identifier)
        // Foundation counts 1 = Sunday ... 7 = Saturday.
        let foundation = calendar.firstWeekday
        return foundation == 1 ? 7 : foundation - 1
    }
}

extension String {
    func leftPadded(to length: Int, with character: Character) -> String {
        count >= length ? self : String(repeating: character, count: length - count) + self
    }
}
