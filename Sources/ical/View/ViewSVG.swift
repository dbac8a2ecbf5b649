import ICalKit

/// The printable views as one SVG picture (no scripts, no fonts or images from the network),
/// the size of a landscape page: the month grid, or the week as a timetable. SVG does not
/// cut text itself: titles are cut to the room with an ellipsis, by an average character
/// width.
struct ViewSVG {
    var paper: ViewHTML.Paper
    var zoneName: String
    var heading: String?

    /// The page in CSS pixels (96 per inch), landscape: A4, or Letter (auto: A4).
    private var size: (width: Double, height: Double) {
        paper == .letter ? (1056, 816) : (1123, 794)
    }

    private static let margin = 30.0
    private static let font = "font-family=\"DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif\""

    /// Calendar text for XML: control characters shown as escapes, markup characters escaped.
    private static func escape(_ text: String) -> String { ViewHTML.escape(text) }

    /// `text` cut to about `width` pixels at `size` pixels a character's em.
    private static func cut(_ text: String, width: Double, size: Double) -> String {
        let room = Int(width / (size * 0.58))
        guard room > 1 else { return "" }
        return ViewCells.fit(text, room).trimmingTrailingSpaces()
    }

    private static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private func document(title: String, body: String, notes: [String]) -> String {
        let (width, height) = size
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" "
        out += "viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" \(Self.font) font-size=\"11\">\n"
        out += "<title>\(Self.escape(title))</title>\n"
        out += "<defs><pattern id=\"holiday\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
        out += "<rect width=\"8\" height=\"8\" fill=\"#f3f3f3\"/><rect width=\"4\" height=\"8\" fill=\"#e2e2e2\"/></pattern></defs>\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
        out += "<text x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(Self.margin + 14))\" font-size=\"20\" font-weight=\"bold\">\(Self.escape(title))</text>\n"
        out += "<text x=\"\(Self.number(width - Self.margin))\" y=\"\(Self.number(Self.margin + 14))\" text-anchor=\"end\" fill=\"#555\">\(Self.escape(zoneName))</text>\n"
        if let heading {
            out += "<text x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(Self.margin + 32))\" fill=\"#333\">\(Self.escape(heading))</text>\n"
        }
        out += body
        for (index, note) in notes.enumerated() {
            out += "<text x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(height - Self.margin + 14 + Double(index) * 12))\" font-size=\"9\" fill=\"#555\">\(Self.escape(note))</text>\n"
        }
        return out + "</svg>\n"
    }

    private static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, fill: String, stroke: String? = nil) -> String {
        "<rect x=\"\(number(x))\" y=\"\(number(y))\" width=\"\(number(max(0, width)))\" height=\"\(number(max(0, height)))\" fill=\"\(fill)\""
            + (stroke.map { " stroke=\"\($0)\" stroke-width=\"0.8\"" } ?? "") + "/>\n"
    }

    private static func text(_ x: Double, _ y: Double, _ content: String, size: Double = 11, attributes: String = "") -> String {
        "<text x=\"\(number(x))\" y=\"\(number(y))\" font-size=\"\(number(size))\"\(attributes.isEmpty ? "" : " " + attributes)>\(content)</text>\n"
    }

    /// An entry as a coloured bar and its text.
    private static func entry(_ entry: ViewEntry, _ label: String, x: Double, y: Double, width: Double, height: Double) -> String {
        rect(x, y, width, height, fill: ViewHTML.tint(entry.color)) + rect(x, y, 3, height, fill: entry.color.hex)
            + text(x + 5, y + min(height - 3, 10), escape(cut(label, width: width - 7, size: 9)), size: 9)
    }

    /// The month grid.
    func month(year: Int, month: Int, days: [ViewDay], firstWeekday: Int, today: CalendarDate?) -> String {
        let (width, height) = size
        let top = Self.margin + 44, bottom = height - Self.margin - 6
        let order = (0..<7).map { (firstWeekday - 1 + $0) % 7 }
        let lead = days.first.map { ($0.date.isoWeekday - firstWeekday + 7) % 7 } ?? 0
        var slots: [ViewDay?] = Array(repeating: nil, count: lead) + days.map { Optional($0) }
        while slots.count % 7 != 0 { slots.append(nil) }
        let columnWidth = (width - 2 * Self.margin) / 7
        let headerHeight = 20.0
        let rowHeight = (bottom - top - headerHeight) / Double(max(1, slots.count / 7))
        var body = ""
        for (index, weekday) in order.enumerated() {
            let x = Self.margin + Double(index) * columnWidth
            body += Self.rect(x, top, columnWidth, headerHeight, fill: "#eee", stroke: "#999")
            body += Self.text(x + columnWidth / 2, top + 14, ViewNames.weekdays[weekday], attributes: "text-anchor=\"middle\" font-weight=\"bold\"")
        }
        let lines = max(1, Int((rowHeight - 20) / 14))
        for (index, slot) in slots.enumerated() {
            let x = Self.margin + Double(index % 7) * columnWidth
            let y = top + headerHeight + Double(index / 7) * rowHeight
            guard let day = slot else {
                body += Self.rect(x, y, columnWidth, rowHeight, fill: "#f7f7f7", stroke: "#999")
                continue
            }
            body += Self.rect(x, y, columnWidth, rowHeight, fill: day.holiday != nil ? "url(#holiday)" : "#fff", stroke: "#999")
            let isToday = day.date == today
            if isToday { body += Self.rect(x + 2, y + 3, 18, 14, fill: "#111") }
            body += Self.text(x + 4, y + 14, String(day.date.day), attributes: "font-weight=\"bold\"" + (isToday ? " fill=\"#fff\"" : ""))
            if let holiday = day.holiday {
                body += Self.text(x + 24, y + 14, Self.escape(Self.cut(holiday, width: columnWidth - 28, size: 11)),
                                  attributes: "font-style=\"italic\" fill=\"#444\"")
            }
            let entries = day.entries
            let shown = entries.count > lines ? lines - 1 : entries.count
            for (line, entry) in entries.prefix(shown).enumerated() {
                let label = entry.isAllDay ? entry.title : entry.clock(on: day.date, range: false) + " " + entry.title
                body += Self.entry(entry, label, x: x + 3, y: y + 19 + Double(line) * 14, width: columnWidth - 6, height: 12.5)
            }
            if entries.count > shown {
                body += Self.text(x + 4, y + 29 + Double(shown) * 14, "+\(entries.count - shown) more", size: 9, attributes: "fill=\"#555\"")
            }
        }
        return document(title: "\(ViewNames.months[month - 1]) \(year)", body: body, notes: ViewNames.offsetNotes(days, zoneName: zoneName))
    }

    /// The weekly timetable: weekday columns, time rows from 08:00 to 18:00 at least.
    func week(days: [ViewDay], today: CalendarDate?) -> String {
        guard let first = days.first, let last = days.last else { return "" }
        let (width, height) = size
        let gutter = 44.0
        let top = Self.margin + 44, bottom = height - Self.margin - 6
        let columnWidth = (width - 2 * Self.margin - gutter) / 7
        let headerHeight = 22.0
        let allDayLines = max(1, days.map { $0.allDay.count + ($0.holiday == nil ? 0 : 1) }.max() ?? 1)
        let allDayHeight = Double(min(allDayLines, 4)) * 14 + 4
        let segments = days.flatMap(\.timed)
        let firstHour = min(8, segments.map { $0.startMinute / 60 }.min() ?? 8)
        let lastHour = max(18, segments.map { min(24, ($0.endMinute + 59) / 60) }.max() ?? 18)
        let hoursTop = top + headerHeight + allDayHeight
        let minuteHeight = (bottom - hoursTop) / Double((lastHour - firstHour) * 60)
        func y(_ minute: Int) -> Double { hoursTop + Double(minute - firstHour * 60) * minuteHeight }
        var body = Self.rect(Self.margin, top, width - 2 * Self.margin, bottom - top, fill: "#fff", stroke: "#999")
        for hour in firstHour..<lastHour {
            body += "<line x1=\"\(Self.number(Self.margin))\" y1=\"\(Self.number(y(hour * 60)))\" x2=\"\(Self.number(width - Self.margin))\" "
                + "y2=\"\(Self.number(y(hour * 60)))\" stroke=\"#ddd\" stroke-width=\"0.6\"/>\n"
            body += Self.text(Self.margin + gutter - 4, y(hour * 60) + 10, String(hour).leftPadded(to: 2, with: "0") + ":00",
                              size: 9, attributes: "text-anchor=\"end\" fill=\"#555\"")
        }
        body += Self.text(Self.margin + 3, top + headerHeight + 12, "all day", size: 8, attributes: "fill=\"#555\"")
        for (index, day) in days.enumerated() {
            let x = Self.margin + gutter + Double(index) * columnWidth
            if day.holiday != nil { body += Self.rect(x, top + headerHeight, columnWidth, bottom - top - headerHeight, fill: "url(#holiday)") }
            body += Self.rect(x, top, columnWidth, headerHeight, fill: "#eee", stroke: "#999")
            let label = "\(ViewNames.weekdays[day.date.isoWeekday - 1]) \(day.date.day) \(ViewNames.shortMonth(day.date.month))"
            body += Self.text(x + 4, top + 15, label, attributes: "font-weight=\"bold\"" + (day.date == today ? " text-decoration=\"underline\"" : ""))
            body += "<line x1=\"\(Self.number(x))\" y1=\"\(Self.number(top))\" x2=\"\(Self.number(x))\" y2=\"\(Self.number(bottom))\" stroke=\"#bbb\" stroke-width=\"0.6\"/>\n"
            var line = 0
            if let holiday = day.holiday {
                body += Self.text(x + 4, top + headerHeight + 12, Self.escape(Self.cut(holiday, width: columnWidth - 8, size: 10)),
                                  size: 10, attributes: "font-style=\"italic\" fill=\"#444\"")
                line = 1
            }
            for entry in day.allDay.prefix(max(0, 4 - line)) {
                body += Self.entry(entry, entry.title, x: x + 2, y: top + headerHeight + 3 + Double(line) * 14, width: columnWidth - 4, height: 12.5)
                line += 1
            }
            for segment in day.timed {
                let laneWidth = (columnWidth - 4) / Double(segment.lanes)
                let top = y(segment.startMinute), end = y(max(segment.endMinute, segment.startMinute + 15))
                let from = ViewEntry.clock(TimeOfDay(hour: segment.startMinute / 60, minute: segment.startMinute % 60) ?? .midnight)
                let laneX = x + 2 + Double(segment.lane) * laneWidth
                body += Self.entry(segment.entry, from + " " + segment.entry.title, x: laneX, y: top + 0.5, width: laneWidth - 1, height: end - top - 1)
                if let location = segment.entry.location, !location.isEmpty, end - top > 26 {
                    body += Self.text(laneX + 5, top + 22, Self.escape(Self.cut(location, width: laneWidth - 8, size: 9)), size: 9,
                                      attributes: "fill=\"#333\"")
                }
            }
        }
        body += "<line x1=\"\(Self.number(Self.margin))\" y1=\"\(Self.number(hoursTop))\" x2=\"\(Self.number(width - Self.margin))\" "
            + "y2=\"\(Self.number(hoursTop))\" stroke=\"#999\" stroke-width=\"0.8\"/>\n"
        return document(title: ViewNames.weekTitle(first.date, last.date), body: body, notes: ViewNames.offsetNotes(days, zoneName: zoneName))
    }
}
