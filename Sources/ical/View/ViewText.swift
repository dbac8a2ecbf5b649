import ICalKit

/// Terminal text of a fixed display width: calendar text made safe (``TerminalText``),
/// cut with an ellipsis and padded, colour added around the cut text only.
struct ViewCells {
    /// Whether ANSI colour is written.
    var color: Bool

    /// `text` (ours or untrusted) as exactly `width` columns: control characters shown as
    /// escapes, cut with `…` when too long, padded with spaces.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        let safe = TerminalText.line(text)
        var out = ""
        var used = 0
        let total = safe.reduce(0) { $0 + columns($1) }
        if total <= width { return safe + String(repeating: " ", count: width - total) }
        // Too narrow for an ellipsis to help (overlapping lessons side by side): the initials.
        let room = width <= 2 ? width : width - 1
        for character in safe {
            let needed = columns(character)
            if used + needed > room { break }
            out.append(character)
            used += needed
        }
        if width > 2 {
            while out.last == " " {
                out.removeLast()
                used -= 1
            }
            out.append("…")
            used += 1
        }
        return out + String(repeating: " ", count: max(0, width - used))
    }

    /// The columns a character takes on a terminal: 2 for East Asian wide and most emoji,
    /// 0 for a lone combining mark or zero-width character, else 1.
    static func columns(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let value = scalar.value
        if value == 0x200B || value == 0x200D || value == 0xFEFF { return 0 }
        if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark { return 0 }
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` in the calendar's colour.
    func colored(_ text: String, _ value: ViewColor) -> String {
        color ? "\u{1B}[38;2;\(value.red);\(value.green);\(value.blue)m" + text + "\u{1B}[0m" : text
    }

    /// `text` in reverse video (today).
    func reversed(_ text: String) -> String { color ? "\u{1B}[7m" + text + "\u{1B}[0m" : text }

    /// `text` in bold (headings).
    func bold(_ text: String) -> String { color ? "\u{1B}[1m" + text + "\u{1B}[0m" : text }

    /// `text` faint (holidays).
    func faint(_ text: String) -> String { color ? "\u{1B}[2;3m" + text + "\u{1B}[0m" : text }

    /// A horizontal border: `left`, `cells` runs of `─` of `width`, joined by `middle`, then `right`.
    static func border(_ left: String, _ middle: String, _ right: String, cells: Int, width: Int) -> String {
        left + Array(repeating: String(repeating: "─", count: width), count: cells).joined(separator: middle) + right
    }
}

/// Names used by the views (English, as the rest of `ical`'s output).
enum ViewNames {
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]

    static func shortMonth(_ month: Int) -> String { String(months[month - 1].prefix(3)) }

    /// `30 Nov – 6 Dec 2026` (the year twice when the week spans two).
    static func weekTitle(_ first: CalendarDate, _ last: CalendarDate) -> String {
        "\(first.day) \(shortMonth(first.month))" + (first.year != last.year ? " \(first.year)" : "")
            + " – \(last.day) \(shortMonth(last.month)) \(last.year)"
    }

    /// A note cut into lines of at most `width` columns at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// `+3 more`, or `+3` where that does not fit.
    static func more(_ count: Int, width: Int) -> String {
        let text = "+\(count) more"
        return text.count <= width ? text : "+\(count)"
    }

    /// `+02:00`, `-03:30`.
    static func offsetText(_ seconds: Int) -> String {
        let magnitude = abs(seconds)
        return (seconds < 0 ? "-" : "+") + String(magnitude / 3600).leftPadded(to: 2, with: "0") + ":"
            + String(magnitude % 3600 / 60).leftPadded(to: 2, with: "0")
    }

    /// `Sun 25 Oct: clocks change, UTC+02:00 to UTC+01:00` for each day with a DST change.
    static func offsetNotes(_ days: [ViewDay], zoneName: String) -> [String] {
        days.compactMap { day in
            guard let change = day.offsetChange else { return nil }
            let direction = change.to < change.from ? "back" : "forward"
            return "\(weekdays[day.date.isoWeekday - 1]) \(day.date.day) \(shortMonth(day.date.month)): clocks go \(direction) "
                + "in \(zoneName), UTC\(offsetText(change.from)) to UTC\(offsetText(change.to))"
        }
    }
}

/// The month grid on a terminal: one column per weekday, one block of lines per week, each
/// day's all-day entries then its timed ones (`16:00 Piano`), cut to the cell; a day with
/// more entries than lines ends in `+N more`.
struct MonthGridText {
    /// The total width to fit ($COLUMNS); at least 7 columns of 4 characters.
    var width: Int
    var cells: ViewCells
    /// ISO weekday the weeks start on (1 Monday, 7 Sunday).
    var firstWeekday: Int
    /// The most entry lines per week.
    var maximumLines = 4
    /// Today, highlighted in colour and marked with `*` without.
    var today: CalendarDate?
    /// The zone's name, shown beside the title.
    var zoneName: String

    func render(year: Int, month: Int, days: [ViewDay]) -> String {
        let cellWidth = max(4, (width - 1) / 7 - 1)
        let gridWidth = 7 * (cellWidth + 1) + 1
        var lines: [String] = []
        let title = "\(ViewNames.months[month - 1]) \(year)"
        let gap = gridWidth - title.count - zoneName.count
        lines.append(cells.bold(title) + (gap >= 2 ? String(repeating: " ", count: gap) + TerminalText.line(zoneName) : ""))
        lines.append(ViewCells.border("┌", "┬", "┐", cells: 7, width: cellWidth))
        let order = (0..<7).map { (firstWeekday - 1 + $0) % 7 }
        lines.append("│" + order.map { ViewCells.fit(ViewNames.weekdays[$0], cellWidth) }.joined(separator: "│") + "│")
        // Weeks: the month's days in slots, blank before the 1st and after the last.
        guard let firstDay = days.first else { return lines.joined(separator: "\n") + "\n" }
        let lead = (firstDay.date.isoWeekday - firstWeekday + 7) % 7
        var slots: [ViewDay?] = Array(repeating: nil, count: lead) + days.map { Optional($0) }
        while slots.count % 7 != 0 { slots.append(nil) }
        for week in stride(from: 0, to: slots.count, by: 7) {
            lines.append(ViewCells.border("├", "┼", "┤", cells: 7, width: cellWidth))
            let weekDays = Array(slots[week..<week + 7])
            let busiest = weekDays.map { $0?.entries.count ?? 0 }.max() ?? 0
            let entryLines = max(1, min(busiest, maximumLines))
            var rows = Array(repeating: "│", count: entryLines + 1)
            for slot in weekDays {
                let column = self.column(slot, width: cellWidth, lines: entryLines)
                for index in rows.indices { rows[index] += column[index] + "│" }
            }
            lines += rows
        }
        lines.append(ViewCells.border("└", "┴", "┘", cells: 7, width: cellWidth))
        lines += ViewNames.offsetNotes(days, zoneName: TerminalText.line(zoneName)).flatMap { ViewNames.wrap($0, width: gridWidth) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A day's cell: the date line, then `lines` entry lines.
    private func column(_ day: ViewDay?, width: Int, lines: Int) -> [String] {
        guard let day else { return Array(repeating: String(repeating: " ", count: width), count: lines + 1) }
        let isToday = day.date == today
        let number = String(day.date.day) + (isToday && !cells.color ? "*" : "")
        var head = isToday ? cells.reversed(number) : cells.bold(number)
        let rest = width - number.count
        if let holiday = day.holiday, rest > 2 {
            head += " " + cells.faint(ViewCells.fit(holiday, rest - 1))
        } else {
            head += String(repeating: " ", count: max(0, rest))
        }
        var out = [head]
        let entries = day.entries
        let shown = entries.count > lines ? lines - 1 : entries.count
        for entry in entries.prefix(shown) {
            let text = entry.isAllDay ? entry.title : entry.clock(on: day.date, range: false) + " " + entry.title
            out.append(cells.colored(ViewCells.fit(text, width), entry.color))
        }
        if entries.count > shown { out.append(ViewCells.fit(ViewNames.more(entries.count - shown, width: width), width)) }
        while out.count < lines + 1 { out.append(String(repeating: " ", count: width)) }
        return out
    }
}

/// The week grid on a terminal: a column per day, a row per hour (from 08:00 to 18:00 at
/// least, widened to the week's entries), all-day entries and holidays on top. An entry
/// shows its start and title in its first hour, its location in the next, and `┊` in the
/// rest; overlapping entries share the day's column side by side.
struct WeekGridText {
    var width: Int
    var cells: ViewCells
    var maximumAllDayLines = 3
    var today: CalendarDate?
    var zoneName: String

    func render(days: [ViewDay]) -> String {
        let gutter = 5
        let cellWidth = max(4, (width - gutter - 1) / 7 - 1)
        let gridWidth = gutter + 1 + 7 * (cellWidth + 1)
        var lines: [String] = []
        guard let first = days.first, let last = days.last else { return "" }
        let title = ViewNames.weekTitle(first.date, last.date)
        let gap = gridWidth - title.count - zoneName.count
        lines.append(cells.bold(title) + (gap >= 2 ? String(repeating: " ", count: gap) + TerminalText.line(zoneName) : ""))
        let pad = String(repeating: " ", count: gutter)
        lines.append(pad + ViewCells.border("┌", "┬", "┐", cells: 7, width: cellWidth))
        lines.append(pad + "│" + days.map { day in
            let text = ViewCells.fit("\(ViewNames.weekdays[day.date.isoWeekday - 1]) \(day.date.day)" + (day.date == today && !cells.color ? "*" : ""),
                                     cellWidth)
            return day.date == today ? cells.reversed(text) : cells.bold(text)
        }.joined(separator: "│") + "│")
        // All-day rows: holidays first, then all-day entries.
        let allDayTexts: [[(String, ViewColor?)]] = days.map { day in
            (day.holiday.map { [($0, nil)] } ?? []) + day.allDay.map { ($0.title, $0.color) }
        }
        let busiest = allDayTexts.map(\.count).max() ?? 0
        if busiest > 0 {
            let count = min(busiest, maximumAllDayLines)
            lines.append(pad + ViewCells.border("├", "┼", "┤", cells: 7, width: cellWidth))
            for row in 0..<count {
                var line = pad + "│"
                for texts in allDayTexts {
                    let shown = texts.count > count ? count - 1 : texts.count
                    if row < shown {
                        let (text, color) = texts[row]
                        let fitted = ViewCells.fit(text, cellWidth)
                        line += (color.map { cells.colored(fitted, $0) } ?? cells.faint(fitted)) + "│"
                    } else if row == shown && texts.count > shown {
                        line += ViewCells.fit(ViewNames.more(texts.count - shown, width: cellWidth), cellWidth) + "│"
                    } else {
                        line += String(repeating: " ", count: cellWidth) + "│"
                    }
                }
                lines.append(line)
            }
        }
        lines.append(pad + ViewCells.border("├", "┼", "┤", cells: 7, width: cellWidth))
        // Hours: 08:00 to 18:00, widened to the entries.
        let segments = days.flatMap(\.timed)
        let firstHour = min(8, segments.map { $0.startMinute / 60 }.min() ?? 8)
        let lastHour = max(18, segments.map { min(24, ($0.endMinute + 59) / 60) }.max() ?? 18,
                           segments.map { $0.startMinute / 60 + 1 }.max() ?? 18)
        let columns = days.map { hourColumn($0.timed, width: cellWidth, hours: firstHour..<lastHour) }
        for (row, hour) in (firstHour..<lastHour).enumerated() {
            lines.append(String(hour).leftPadded(to: 2, with: "0") + ":00│" + columns.map { $0[row] }.joined(separator: "│") + "│")
        }
        lines.append(pad + ViewCells.border("└", "┴", "┘", cells: 7, width: cellWidth))
        lines += ViewNames.offsetNotes(days, zoneName: TerminalText.line(zoneName)).flatMap { ViewNames.wrap($0, width: gridWidth) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One day's hour rows: its lanes side by side, separated by a space.
    private func hourColumn(_ segments: [DaySegment], width: Int, hours: Range<Int>) -> [String] {
        let laneCount = max(1, min(segments.map(\.lanes).max() ?? 1, (width + 1) / 2))
        let laneWidth = (width - (laneCount - 1)) / laneCount
        var rows = Array(repeating: "", count: hours.count)
        for lane in 0..<laneCount {
            let inLane = segments.filter { $0.lane == lane || (lane == laneCount - 1 && $0.lane >= laneCount) }
            let texts = laneRows(inLane, width: laneWidth, hours: hours)
            for index in rows.indices { rows[index] += (lane > 0 ? " " : "") + texts[index] }
        }
        let used = laneCount * laneWidth + laneCount - 1
        return rows.map { $0 + String(repeating: " ", count: width - used) }
    }

    /// One lane's rows: each row belongs to the latest-starting entry that covers it; an
    /// entry writes its start and title, then its location, then `┊` in the rows it owns.
    private func laneRows(_ segments: [DaySegment], width: Int, hours: Range<Int>) -> [String] {
        var rows: [String] = []
        var written: [Int: Int] = [:]
        for hour in hours {
            let rowStart = hour * 60, rowEnd = hour * 60 + 60
            let covering = segments.enumerated().filter { _, segment in
                segment.startMinute < rowEnd && (max(segment.endMinute, segment.startMinute + 1) > rowStart)
            }
            guard let (index, owner) = covering.max(by: { ($0.1.startMinute, $0.1.entry.order) < ($1.1.startMinute, $1.1.entry.order) }) else {
                rows.append(String(repeating: " ", count: width))
                continue
            }
            let line = written[index, default: 0]
            written[index] = line + 1
            let entry = owner.entry
            var text: String
            switch line {
            case 0:
                // Narrow lanes (overlaps) show the title alone.
                text = (width < 8 ? "" : ViewEntry.clock(TimeOfDay(hour: owner.startMinute / 60, minute: owner.startMinute % 60) ?? .midnight) + " ")
                    + entry.title
                let startingHere = covering.filter { $0.1.startMinute >= rowStart }.count
                if startingHere > 1 { text = ViewCells.fit(text, max(1, width - 3)).trimmingTrailingSpaces() + " +\(startingHere - 1)" }
            case 1 where entry.location.map { !$0.isEmpty } ?? false:
                text = entry.location ?? ""
            default:
                text = "┊"
            }
            rows.append(cells.colored(ViewCells.fit(text, width), entry.color))
        }
        return rows
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
