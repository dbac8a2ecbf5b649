/// Generates one VCALENDAR of `series` recurring series without an end, the mix of the
/// expansion query benchmark (issue 19, Benchmarks/expansion-query.sh), reproducibly from
/// `seed`: a query over ten years is almost all expansion.
///
/// The rules, one seventh each, in turn: weekly, biweekly, the last weekday of the month
/// (`BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1`), the second Tuesday, yearly, every third day, and
/// twice monthly (the 1st and the 15th). The zones, by chance: Europe/Berlin (with its
/// VTIMEZONE in the file), America/New_York (no VTIMEZONE: tzdata) and floating, a third
/// each. DTSTARTs are spread over `firstYear`, a year before the window the benchmark
/// queries, so every series covers all of it.
struct SeriesMixGenerator {
    let series: Int
    let seed: UInt64
    let firstYear: Int
    private var rng: SplitMix64
    private var out: ContentWriter

    static let rules = [
        "FREQ=WEEKLY", "FREQ=WEEKLY;INTERVAL=2", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
        "FREQ=MONTHLY;BYDAY=2TU", "FREQ=YEARLY", "FREQ=DAILY;INTERVAL=3", "FREQ=MONTHLY;BYMONTHDAY=1,15",
    ]

    init(series: Int, seed: UInt64, firstYear: Int) {
        self.series = series
        self.seed = seed
        self.firstYear = firstYear
        rng = SplitMix64(seed: seed)
        out = ContentWriter(capacity: series * 400 + 4096)
    }

    mutating func generate() -> [UInt8] {
        out.line("BEGIN:VCALENDAR")
        out.line("VERSION:2.0")
        out.line("PRODID:-//OpenEventKit//ical-generate 1.0//EN")
        out.line("CALSCALE:GREGORIAN")
        for zone in BenchZone.all where zone.tzid == "Europe/Berlin" { for line in zone.lines { out.line(line) } }
        for index in 0..<series { event(index) }
        out.line("END:VCALENDAR")
        return out.bytes
    }

    private mutating func event(_ index: Int) {
        let kind = index % Self.rules.count
        let zone = rng.int(0...2)
        let date = CivilDate(year: firstYear, month: 1, day: 1).adding(days: rng.int(0...364))
        let minutes = rng.int(7 * 4...20 * 4) * 15
        let duration = rng.int(2...8) * 15
        let suffix: (String, String)
        switch zone {
        case 0: suffix = (";TZID=Europe/Berlin", "")
        case 1: suffix = (";TZID=America/New_York", "")
        default: suffix = ("", "")
        }
        out.line("BEGIN:VEVENT")
        out.line("UID:series-\(index)-\(String(rng.next() & 0xFFFF_FFFF, radix: 16))@oek.example")
        out.line("DTSTAMP:20150101T000000Z")
        out.line("DTSTART\(suffix.0):\(dateString(date))\(timeString(minutes))\(suffix.1)")
        out.line("DTEND\(suffix.0):\(dateString(date))\(timeString(minutes + duration))\(suffix.1)")
        out.line("RRULE:\(Self.rules[kind])")
        out.line("SUMMARY:" + escapeText(rng.pick(TextPool.summaries)) + " \(index)")
        if rng.chance(50) { out.line("LOCATION:" + escapeText(rng.pick(TextPool.locations))) }
        out.line("END:VEVENT")
    }
}
