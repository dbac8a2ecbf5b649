import ICalKit

/// The printable views: one self-contained HTML page (inline CSS, no scripts, no fonts or
/// images from the network) with the month grid or the weekly timetable (weekday columns by
/// time rows), holidays shaded and named, sized to print on one landscape page of A4 or
/// Letter.
struct ViewHTML {
    /// The paper the page is laid out for (`@page size`).
    enum Paper: String, CaseIterable, Sendable {
        /// The printer's paper, landscape.
        case auto
        case a4
        case letter

        var pageSize: String {
            switch self {
            case .auto: return "landscape"
            case .a4: return "A4 landscape"
            case .letter: return "letter landscape"
            }
        }
    }

    var paper: Paper
    var zoneName: String
    /// A heading above the view (the calendars' names), or nil.
    var heading: String?
    /// Entries listed per day in the month grid before `+N more`.
    var maximumMonthEntries = 5

    /// Calendar text for HTML: control characters shown as escapes, markup characters escaped.
    static func escape(_ text: String) -> String {
        MarkupText.escaped(TerminalText.line(text))
    }

    /// A light tint of a colour (mixed with white), for entry backgrounds.
    static func tint(_ color: ViewColor) -> String {
        func mix(_ value: Int) -> Int { value + (255 - value) * 4 / 5 }
        return ViewColor(red: mix(color.red), green: mix(color.green), blue: mix(color.blue)).hex
    }

    private func page(title: String, body: String, notes: [String]) -> String {
        let headingText = heading.map { "<p class=\"cal\">\(Self.escape($0))</p>" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escape(title))</title>
            <style>
            @page { size: \(paper.pageSize); margin: 10mm; }
            * { box-sizing: border-box; }
            html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
            body { font-family: "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; font-size: 9pt;
                   color: #111; background: #fff; margin: 0; padding: 6mm; }
            @media print { body { padding: 0; } }
            header { display: flex; justify-content: space-between; align-items: baseline; margin-bottom: 2mm; }
            h1 { font-size: 15pt; margin: 0; }
            .cal { margin: 0; color: #333; }
            .zone { color: #555; }
            footer { margin-top: 2mm; color: #555; font-size: 7.5pt; }
            .ev { border-left: 1.2mm solid var(--c); background: var(--t); padding: 0.2mm 0.8mm; margin-top: 0.5mm;
                  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-size: 8pt; border-radius: 0.6mm; }
            .hol { color: #444; font-style: italic; }
            .holiday { background: repeating-linear-gradient(135deg, #f3f3f3 0 1.5mm, #e2e2e2 1.5mm 3mm); }
            .more { color: #555; font-size: 7.5pt; }
            table.month { width: 100%; border-collapse: collapse; table-layout: fixed; page-break-inside: avoid; }
            table.month th { font-weight: 600; padding: 1mm; border: 0.3mm solid #999; background: #eee; }
            table.month td { vertical-align: top; height: 25mm; border: 0.3mm solid #999; padding: 0.8mm; overflow: hidden; }
            table.month td.outside { background: #f7f7f7; }
            .num { font-weight: 700; margin-right: 1mm; }
            .today .num { background: #111; color: #fff; border-radius: 0.8mm; padding: 0 0.8mm; }
            .week { display: grid; grid-template-columns: 13mm repeat(7, 1fr); border: 0.3mm solid #999; page-break-inside: avoid; }
            .week > div { border-left: 0.3mm solid #bbb; }
            .week .head { background: #eee; font-weight: 600; padding: 1mm; border-bottom: 0.3mm solid #999; min-height: 9mm; }
            .week .allday { padding: 0.5mm; border-bottom: 0.3mm solid #999; min-height: 5mm; overflow: hidden; }
            .week .gutter { border-left: none; }
            .week .hours, .week .day { position: relative; height: 132mm; }
            .week .line { position: absolute; left: 0; right: 0; border-top: 0.2mm solid #ddd; }
            .week .label { position: absolute; right: 1mm; margin-top: 0.4mm; color: #555; font-size: 7.5pt; }
            .week .slot { position: absolute; overflow: hidden; border-left: 1.2mm solid var(--c); background: var(--t);
                          padding: 0.3mm 0.8mm; font-size: 8pt; line-height: 1.15; border-radius: 0.6mm;
                          border-top: 0.2mm solid #fff; }
            .slot b { font-weight: 600; }
            .slot .where { color: #333; }
            </style>
            </head>
            <body>
            <header><div><h1>\(Self.escape(title))</h1>\(headingText)</div><span class="zone">\(Self.escape(zoneName))</span></header>
            \(body)
            <footer>\(notes.map(Self.escape).joined(separator: "<br>"))</footer>
            </body>
            </html>

            """
    }

    private static func style(_ color: ViewColor) -> String { "--c: \(color.hex); --t: \(tint(color))" }

    /// The month grid.
    func month(year: Int, month: Int, days: [ViewDay], firstWeekday: Int, today: CalendarDate?) -> String {
        let order = (0..<7).map { (firstWeekday - 1 + $0) % 7 }
        var body = "<table class=\"month\">\n<thead><tr>"
            + order.map { "<th>\(ViewNames.weekdays[$0])</th>" }.joined() + "</tr></thead>\n<tbody>\n"
        let lead = days.first.map { ($0.date.isoWeekday - firstWeekday + 7) % 7 } ?? 0
        var slots: [ViewDay?] = Array(repeating: nil, count: lead) + days.map { Optional($0) }
        while slots.count % 7 != 0 { slots.append(nil) }
        for week in stride(from: 0, to: slots.count, by: 7) {
            body += "<tr>"
            for slot in slots[week..<week + 7] {
                guard let day = slot else { body += "<td class=\"outside\"></td>"; continue }
                var classes: [String] = []
                if day.holiday != nil { classes.append("holiday") }
                if day.date == today { classes.append("today") }
                body += "<td" + (classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"") + ">"
                body += "<span class=\"num\">\(day.date.day)</span>"
                if let holiday = day.holiday { body += "<span class=\"hol\">\(Self.escape(holiday))</span>" }
                let entries = day.entries
                let shown = entries.count > maximumMonthEntries ? maximumMonthEntries - 1 : entries.count
                for entry in entries.prefix(shown) {
                    let time = entry.isAllDay ? "" : "<b>\(entry.clock(on: day.date, range: false))</b> "
                    body += "<div class=\"ev\" style=\"\(Self.style(entry.color))\">\(time)\(Self.escape(entry.title))</div>"
                }
                if entries.count > shown { body += "<div class=\"more\">+\(entries.count - shown) more</div>" }
                body += "</td>"
            }
            body += "</tr>\n"
        }
        body += "</tbody>\n</table>"
        return page(title: "\(ViewNames.months[month - 1]) \(year)", body: body,
                    notes: ViewNames.offsetNotes(days, zoneName: zoneName))
    }

    /// The weekly timetable: weekday columns, time rows from 08:00 to 18:00 at least
    /// (widened to the entries), overlapping entries side by side.
    func week(days: [ViewDay], today: CalendarDate?) -> String {
        guard let first = days.first, let last = days.last else { return "" }
        let segments = days.flatMap(\.timed)
        let firstHour = min(8, segments.map { $0.startMinute / 60 }.min() ?? 8)
        let lastHour = max(18, segments.map { min(24, ($0.endMinute + 59) / 60) }.max() ?? 18)
        let span = Double((lastHour - firstHour) * 60)
        func percent(_ minute: Int) -> String {
            let value = (Double(minute - firstHour * 60) / span * 100 * 100).rounded() / 100
            return String(value) + "%"
        }
        var body = "<div class=\"week\">\n<div class=\"head gutter\"></div>"
        for day in days {
            var classes = ["head"]
            if day.holiday != nil { classes.append("holiday") }
            body += "<div class=\"\(classes.joined(separator: " "))\">"
                + (day.date == today ? "<span class=\"today\"><span class=\"num\">" : "")
                + "\(ViewNames.weekdays[day.date.isoWeekday - 1]) \(day.date.day) \(ViewNames.shortMonth(day.date.month))"
                + (day.date == today ? "</span></span>" : "") + "</div>"
        }
        body += "\n<div class=\"allday gutter more\">all day</div>"
        for day in days {
            body += "<div class=\"allday\(day.holiday != nil ? " holiday" : "")\">"
            if let holiday = day.holiday { body += "<div class=\"hol\">\(Self.escape(holiday))</div>" }
            for entry in day.allDay {
                body += "<div class=\"ev\" style=\"\(Self.style(entry.color))\">\(Self.escape(entry.title))</div>"
            }
            body += "</div>"
        }
        body += "\n<div class=\"hours gutter\">"
        for hour in firstHour..<lastHour {
            body += "<div class=\"label\" style=\"top: \(percent(hour * 60))\">\(String(hour).leftPadded(to: 2, with: "0")):00</div>"
        }
        body += "</div>\n"
        for day in days {
            body += "<div class=\"day\(day.holiday != nil ? " holiday" : "")\">"
            for hour in firstHour..<lastHour where hour > firstHour {
                body += "<div class=\"line\" style=\"top: \(percent(hour * 60))\"></div>"
            }
            for segment in day.timed {
                let entry = segment.entry
                let end = max(segment.endMinute, segment.startMinute + 15)
                let width = 100.0 / Double(segment.lanes)
                let left = width * Double(segment.lane)
                let from = ViewEntry.clock(TimeOfDay(hour: segment.startMinute / 60, minute: segment.startMinute % 60) ?? .midnight)
                let to = segment.endMinute >= 1440 ? "24:00"
                    : ViewEntry.clock(TimeOfDay(hour: segment.endMinute / 60, minute: segment.endMinute % 60) ?? .midnight)
                body += "<div class=\"slot\" style=\"\(Self.style(entry.color)); top: \(percent(segment.startMinute)); "
                    + "height: calc(\(percent(end)) - \(percent(segment.startMinute))); "
                    + "left: \((left * 100).rounded() / 100)%; width: \((width * 100).rounded() / 100)%\">"
                    + "<b>\(from)–\(to)</b> \(Self.escape(entry.title))"
                    + (entry.location.map { $0.isEmpty ? "" : "<br><span class=\"where\">\(Self.escape($0))</span>" } ?? "")
                    + "</div>"
            }
            body += "</div>"
        }
        body += "\n</div>"
        return page(title: ViewNames.weekTitle(first.date, last.date), body: body, notes: ViewNames.offsetNotes(days, zoneName: zoneName))
    }
}
