/// Generates one VCALENDAR of `events` events (masters and single events; RECURRENCE-ID
/// overrides come on top), reproducibly from `seed`.
///
/// The mix follows the performance model in shared/ARCHITECTURE.md: 45% zoned, 20% UTC,
/// 10% floating, 25% all-day; 30% recurring (daily, weekly, monthly, yearly, with COUNT
/// or UNTIL, some with EXDATE and RECURRENCE-ID overrides); VALARMs, ATTENDEEs, long UTF-8
/// descriptions that fold, and X- properties.
struct Generator {
    enum Timing { case zoned(BenchZone), utc, floating, allDay }

    let events: Int
    let seed: UInt64
    /// The years of the DTSTARTs (2020 to 2027 by default).
    let years: ClosedRange<Int>
    private var rng: SplitMix64
    private var out: ContentWriter

    init(events: Int, seed: UInt64, years: ClosedRange<Int> = 2020...2027) {
        self.events = events
        self.seed = seed
        self.years = years
        rng = SplitMix64(seed: seed)
        out = ContentWriter(capacity: events * 640 + 8192)
    }

    mutating func generate() -> [UInt8] {
        out.line("BEGIN:VCALENDAR")
        out.line("VERSION:2.0")
        out.line("PRODID:-//OpenEventKit//ical-generate 1.0//EN")
        out.line("CALSCALE:GREGORIAN")
        out.line("METHOD:PUBLISH")
        out.line("X-WR-CALNAME:Benchmark \(events) events (seed \(seed))")
        out.line("X-WR-TIMEZONE:Europe/Berlin")
        for zone in BenchZone.all { for line in zone.lines { out.line(line) } }
        for index in 0..<events { event(index) }
        out.line("END:VCALENDAR")
        return out.bytes
    }

    // MARK: One event

    private struct Occurrence {
        var date: CivilDate
        var minutes: Int  // start of day in minutes; unused for all-day
    }

    private mutating func event(_ index: Int) {
        let roll = rng.int(0...99)
        let timing: Timing = roll < 45 ? .zoned(rng.pick(BenchZone.all)) : roll < 65 ? .utc : roll < 75 ? .floating : .allDay
        let recurring = rng.chance(30)
        let uid = "bench-\(index)-\(String(rng.next() & 0xFFFF_FFFF, radix: 16))@oek.example"
        let start = Occurrence(date: CivilDate(year: rng.int(years), month: rng.int(1...12), day: rng.int(1...28)),
                               minutes: rng.int(7 * 4...20 * 4) * 15)
        let durationMinutes = rng.int(2...12) * 15
        let stamp = utcStamp()

        out.line("BEGIN:VEVENT")
        out.line("UID:\(uid)")
        out.line("DTSTAMP:\(stamp)")
        if rng.chance(40) {
            out.line("CREATED:\(stamp)")
            out.line("LAST-MODIFIED:\(stamp)")
        }
        out.line(dateTime("DTSTART", start, timing))
        if case .allDay = timing {
            let end = Occurrence(date: start.date.adding(days: rng.int(1...3)), minutes: 0)
            out.line(dateTime("DTEND", end, timing))
        } else if rng.chance(15) {
            out.line("DURATION:PT\(durationMinutes / 60)H\(durationMinutes % 60)M")
        } else {
            out.line(dateTime("DTEND", Occurrence(date: start.date, minutes: start.minutes + durationMinutes), timing))
        }
        let summary = summaryText()
        out.line("SUMMARY:" + escapeText(summary))
        out.line("DESCRIPTION:" + escapeText(description()))
        if rng.chance(50) { out.line("LOCATION:" + escapeText(rng.pick(TextPool.locations))) }
        if rng.chance(40) { out.line("CATEGORIES:" + rng.pick(TextPool.categories)) }
        out.line("STATUS:" + rng.pick(["CONFIRMED", "CONFIRMED", "CONFIRMED", "TENTATIVE"]))
        out.line("TRANSP:" + (timingIsAllDay(timing) ? "TRANSPARENT" : "OPAQUE"))
        out.line("SEQUENCE:\(rng.int(0...3))")
        attendees()
        if rng.chance(60) { out.line("X-MICROSOFT-CDO-BUSYSTATUS:" + (timingIsAllDay(timing) ? "FREE" : "BUSY")) }
        if rng.chance(50) { out.line("X-MOZ-GENERATION:\(rng.int(1...9))") }
        if rng.chance(30) { out.line("X-OEK-BENCH-NOTE;X-SOURCE=generator:\(escapeText(rng.pick(TextPool.shortNotes)))") }

        var overrides: [Occurrence] = []
        if recurring {
            overrides = recurrence(start: start, timing: timing)
        }
        alarms()
        out.line("END:VEVENT")

        for occurrence in overrides {
            out.line("BEGIN:VEVENT")
            out.line("UID:\(uid)")
            out.line("DTSTAMP:\(stamp)")
            out.line(dateTime("RECURRENCE-ID", occurrence, timing))
            if timingIsAllDay(timing) {
                let moved = Occurrence(date: occurrence.date.adding(days: 1), minutes: 0)
                out.line(dateTime("DTSTART", moved, timing))
                out.line(dateTime("DTEND", Occurrence(date: moved.date.adding(days: 1), minutes: 0), timing))
            } else {
                let moved = Occurrence(date: occurrence.date, minutes: min(occurrence.minutes + 60, 21 * 60))
                out.line(dateTime("DTSTART", moved, timing))
                out.line(dateTime("DTEND", Occurrence(date: moved.date, minutes: moved.minutes + 60), timing))
            }
            out.line("SUMMARY:" + escapeText(summary + " (moved)"))
            out.line("SEQUENCE:1")
            if rng.chance(50) { alarms() }
            out.line("END:VEVENT")
        }
    }

    private func timingIsAllDay(_ timing: Timing) -> Bool {
        if case .allDay = timing { return true }
        return false
    }

    private mutating func utcStamp() -> String {
        let date = CivilDate(year: rng.int(2019...2025), month: rng.int(1...12), day: rng.int(1...28))
        return dateString(date) + "T" + pad(rng.int(0...23), 2) + pad(rng.int(0...59), 2) + pad(rng.int(0...59), 2) + "Z"
    }

    /// `NAME;TZID=...:20240312T093000`, `NAME:...Z`, `NAME:...` (floating) or `NAME;VALUE=DATE:...`.
    private func dateTime(_ name: String, _ occurrence: Occurrence, _ timing: Timing) -> String {
        name + dateTimeSuffix(occurrence, timing)
    }

    private func dateTimeSuffix(_ occurrence: Occurrence, _ timing: Timing) -> String {
        let local = dateString(occurrence.date) + timeString(occurrence.minutes)
        switch timing {
        case .zoned(let zone): return ";TZID=\(zone.tzid):\(local)"
        case .utc: return ":\(local)Z"
        case .floating: return ":\(local)"
        case .allDay: return ";VALUE=DATE:\(dateString(occurrence.date))"
        }
    }

    // MARK: Recurrence

    /// Writes RRULE and EXDATE; returns the occurrences that get a RECURRENCE-ID override.
    private mutating func recurrence(start: Occurrence, timing: Timing) -> [Occurrence] {
        let freqRoll = rng.int(0...99)
        let freq = freqRoll < 30 ? "DAILY" : freqRoll < 65 ? "WEEKLY" : freqRoll < 85 ? "MONTHLY" : "YEARLY"
        let interval = (freq == "DAILY" || freq == "WEEKLY") && rng.chance(30) ? 2 : 1
        let count = freq == "YEARLY" ? rng.int(3...10) : rng.int(5...30)
        func occurrence(_ k: Int) -> Occurrence {
            let steps = k * interval
            let date: CivilDate
            switch freq {
            case "DAILY": date = start.date.adding(days: steps)
            case "WEEKLY": date = start.date.adding(days: 7 * steps)
            case "MONTHLY": date = start.date.adding(months: steps)
            default: date = start.date.adding(months: 12 * steps)
            }
            return Occurrence(date: date, minutes: start.minutes)
        }

        var rule = "RRULE:FREQ=\(freq)"
        if interval > 1 { rule += ";INTERVAL=\(interval)" }
        // Occurrence k is start + k periods; with two BYDAY days a COUNT covers half as
        // many periods, so only the first `periods` steps are sure to be occurrences.
        var periods = count
        if freq == "WEEKLY" && rng.chance(40) {
            let days = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
            let own = start.date.weekday
            let other = (own + rng.int(1...6)) % 7
            rule += ";BYDAY=" + [own, other].sorted().map { days[$0] }.joined(separator: ",")
            periods = count / 2
        }
        if freq == "MONTHLY" && rng.chance(30) { rule += ";BYMONTHDAY=\(start.date.day)" }
        if rng.chance(60) {
            rule += ";COUNT=\(count)"
        } else {
            periods = count
            let last = occurrence(count - 1).date
            switch timing {
            case .zoned, .utc: rule += ";UNTIL=\(dateString(last))T235959Z"
            case .floating: rule += ";UNTIL=\(dateString(last))T235959"
            case .allDay: rule += ";UNTIL=\(dateString(last))"
            }
        }
        out.line(rule)

        // Distinct occurrences after the first and before the last.
        var candidates = periods > 2 ? Array(1..<(periods - 1)) : []
        func take() -> Int? {
            guard !candidates.isEmpty else { return nil }
            return candidates.remove(at: rng.int(0...(candidates.count - 1)))
        }
        if rng.chance(40) && !candidates.isEmpty {
            let exdates = (0..<rng.int(1...2)).compactMap { _ in take() }.sorted()
            let values = exdates.map { occurrence($0) }
            var line = "EXDATE"
            switch timing {
            case .zoned(let zone): line += ";TZID=\(zone.tzid):"
            case .allDay: line += ";VALUE=DATE:"
            default: line += ":"
            }
            line += values.map { value -> String in
                switch timing {
                case .allDay: return dateString(value.date)
                case .utc: return dateString(value.date) + timeString(value.minutes) + "Z"
                default: return dateString(value.date) + timeString(value.minutes)
                }
            }.joined(separator: ",")
            out.line(line)
        }
        guard rng.chance(35) else { return [] }
        return (0..<rng.int(1...2)).compactMap { _ in take().map(occurrence) }.sorted { $0.date < $1.date }
    }

    // MARK: People, alarms, text

    private mutating func attendees() {
        guard rng.chance(50) else { return }
        let organizer = rng.pick(TextPool.people)
        out.line("ORGANIZER;CN=\"\(organizer.name)\":mailto:\(organizer.mail)")
        for _ in 0..<rng.int(1...2) {
            let person = rng.pick(TextPool.people)
            let role = rng.pick(["REQ-PARTICIPANT", "REQ-PARTICIPANT", "OPT-PARTICIPANT", "CHAIR"])
            let partstat = rng.pick(["NEEDS-ACTION", "ACCEPTED", "ACCEPTED", "DECLINED", "TENTATIVE"])
            out.line("ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=\(role);PARTSTAT=\(partstat);RSVP=TRUE;CN=\"\(person.name)\":mailto:\(person.mail)")
        }
    }

    private mutating func alarms() {
        guard rng.chance(60) else { return }
        out.line("BEGIN:VALARM")
        out.line("ACTION:DISPLAY")
        out.line("TRIGGER:-PT\(rng.pick([5, 10, 15, 30, 60]))M")
        out.line("DESCRIPTION:" + escapeText(rng.pick(TextPool.reminders)))
        out.line("END:VALARM")
        if rng.chance(10) {
            out.line("BEGIN:VALARM")
            out.line("ACTION:AUDIO")
            out.line("TRIGGER;RELATED=START:-P1D")
            out.line("ATTACH;FMTTYPE=audio/basic:ftp://example.com/pub/sounds/bell-01.aud")
            out.line("X-WR-ALARMUID:\(String(rng.next(), radix: 16))")
            out.line("END:VALARM")
        }
    }

    private mutating func summaryText() -> String {
        rng.pick(TextPool.summaries) + " " + rng.pick(TextPool.summaryTails)
    }

    private mutating func description() -> String {
        var text = ""
        let target = rng.int(10...60)
        while text.utf8.count < target {
            if !text.isEmpty { text += rng.chance(25) ? "\n" : " " }
            text += rng.pick(TextPool.sentences)
        }
        return text
    }
}
