import Foundation

/// Writes a folder of valid .ics files full of alarms, for the differential test of
/// `ical alarms` (AlarmsInteropTests): events and to-dos in several zones, floating and
/// all-day; recurrence rules, RDATE, EXDATE and overrides with their own alarms, none, or
/// STATUS:CANCELLED; relative triggers from the start or the end, absolute ones, REPEAT,
/// DISPLAY, AUDIO and EMAIL; RFC 9074 acknowledgements and snoozes; series that start on and
/// around the DST changes of each zone.
///
/// Deterministic: the same seed writes the same bytes (SplitMix64; nothing reads the clock).
/// Every case is valid per RFC 5545 (a to-do without DTSTART only has alarms RELATED=END,
/// every event with an alarm RELATED=END has an end, REPEAT comes with DURATION), because
/// invalid input is tested elsewhere: here both tools should agree.
struct AlarmSeriesGenerator {
    /// SplitMix64 (Steele, Lea, Flood 2014): small, seeded, the same on every platform.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    }

    /// A wall-clock time, with the arithmetic of a proleptic Gregorian calendar in UTC.
    struct Wall {
        var date: Date
        init(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) {
            date = Wall.calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
        }
        init(date: Date) { self.date = date }
        static let calendar: Calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()
        func adding(days: Int = 0, minutes: Int = 0) -> Wall {
            Wall(date: date.addingTimeInterval(TimeInterval(days * 86_400 + minutes * 60)))
        }
        var dateTime: String { Wall.format("yyyyMMdd'T'HHmmss", date) }
        var day: String { Wall.format("yyyyMMdd", date) }
        static func format(_ pattern: String, _ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = pattern
            return formatter.string(from: date)
        }
        /// This wall-clock time read in `zone` (RFC 5545 3.3.5: a time in a gap moves on by
        /// the gap, a repeated time is its first instance), as UTC.
        func instant(in zone: String) -> Wall {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: zone)!
            let parts = Wall.calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
            return Wall(date: calendar.date(from: parts)!)
        }
    }

    enum Zone: CaseIterable {
        case berlin, newYork, lordHowe, utc, floating, allDay
        var tzid: String? {
            switch self {
            case .berlin: "Europe/Berlin"
            case .newYork: "America/New_York"
            case .lordHowe: "Australia/Lord_Howe"
            default: nil
            }
        }
        /// The DST changes of 2025 and 2026, local wall-clock days.
        var changes: [Wall] {
            switch self {
            case .berlin: [Wall(2025, 3, 30), Wall(2025, 10, 26), Wall(2026, 3, 29), Wall(2026, 10, 25)]
            case .newYork: [Wall(2025, 3, 9), Wall(2025, 11, 2), Wall(2026, 3, 8), Wall(2026, 11, 1)]
            case .lordHowe: [Wall(2025, 4, 6), Wall(2025, 10, 5), Wall(2026, 4, 5), Wall(2026, 10, 4)]
            default: []
            }
        }
    }

    let seed: UInt64
    let seriesCount: Int
    let seriesPerFile = 10

    init(seed: UInt64 = 5545, seriesCount: Int = 200) {
        self.seed = seed
        self.seriesCount = seriesCount
    }

    /// Writes `alarms-NN.ics` files into `folder`; returns their names.
    @discardableResult
    func write(to folder: URL) throws -> [String] {
        var random = Random(state: seed)
        var names: [String] = []
        for file in 0..<(seriesCount + seriesPerFile - 1) / seriesPerFile {
            var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//AlarmsInteropTests//EN"]
            lines += Self.timeZones
            for index in file * seriesPerFile..<min(seriesCount, (file + 1) * seriesPerFile) {
                lines += series(index, &random)
            }
            lines.append("END:VCALENDAR")
            let name = String(format: "alarms-%02d.ics", file)
            try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: folder.appendingPathComponent(name))
            names.append(name)
        }
        return names
    }

    // MARK: - One series

    private struct Shape {
        var zone: Zone
        var isTodo: Bool
        var hasStart: Bool        // false: a to-do with DUE only
        var start: Wall
        var minutes: Int          // length; days for all-day
    }

    private func series(_ index: Int, _ random: inout Random) -> [String] {
        let uid = String(format: "alarm-series-%03d@openeventkit.example", index)
        let zone = random.pick(Zone.allCases)
        let isTodo = random.chance(30)
        let hasStart = !isTodo || random.chance(70)
        let start: Wall
        if !zone.changes.isEmpty, random.chance(35) {
            // On a DST change or one to two days after it, early in the morning, so that
            // relative triggers in hours, and days, cross it.
            let change = random.pick(zone.changes)
            start = change.adding(days: random.pick([0, 0, 1, 2]), minutes: random.pick([60, 90, 180, 200, 240, 270, 600]))
        } else {
            let day = random.below(850)  // 2024-06-01 ... 2026-09-28
            start = Wall(2024, 6, 1).adding(days: day, minutes: zone == .allDay ? 0 : 15 * random.below(96))
        }
        let shape = Shape(zone: zone, isTodo: isTodo, hasStart: hasStart, start: start,
                          minutes: zone == .allDay ? 1 + random.below(3) : random.pick([15, 30, 45, 60, 90, 180]))
        let recurring = hasStart && random.chance(70)
        let kind = isTodo ? "VTODO" : "VEVENT"
        var lines = ["BEGIN:\(kind)", "UID:\(uid)", "DTSTAMP:20240101T000000Z", "SUMMARY:Series \(index)"]
        lines += times(shape, random.chance(25))
        var simpleStep: Int?       // days between the first two instances, when that is known
        if recurring {
            let (rule, step) = self.rule(shape, &random)
            lines.append("RRULE:" + rule)
            simpleStep = step
            if random.chance(20) {
                lines.append(property("RDATE", shape.zone, shape.start.adding(days: 3, minutes: 120)))
            }
            if let step = simpleStep, random.chance(25) {
                lines.append(property("EXDATE", shape.zone, shape.start.adding(days: step)))
            }
        }
        let single = !recurring
        lines += alarms(shape, single: single, &random)
        lines.append("END:\(kind)")
        if recurring, random.chance(35) {
            // Overrides: the first instance (RECURRENCE-ID = DTSTART) and, when the rule's
            // second instance is known, that one too.
            var targets = [shape.start]
            if let step = simpleStep, random.chance(50) { targets.append(shape.start.adding(days: step)) }
            for original in targets {
                var moved = shape
                moved.start = original.adding(minutes: shape.zone == .allDay ? 0 : random.pick([0, 60, -90]))
                if shape.zone == .allDay && random.chance(50) { moved.start = original.adding(days: 1) }
                lines += ["BEGIN:\(kind)", "UID:\(uid)", "DTSTAMP:20240101T000000Z", "SUMMARY:Series \(index) moved",
                          property("RECURRENCE-ID", shape.zone, original)]
                lines += times(moved, false)
                switch random.below(10) {
                case 0: lines.append("STATUS:CANCELLED"); lines += alarms(moved, single: false, &random)
                case 1, 2, 3: break  // no VALARM: the instance has no alarm
                default: lines += alarms(moved, single: false, &random)
                }
                lines.append("END:\(kind)")
            }
        }
        return lines
    }

    /// DTSTART and DTEND, DURATION or DUE.
    private func times(_ shape: Shape, _ useDuration: Bool) -> [String] {
        var lines: [String] = []
        if shape.hasStart { lines.append(property("DTSTART", shape.zone, shape.start)) }
        if shape.zone == .allDay {
            let end = shape.start.adding(days: shape.minutes)
            if useDuration && !shape.isTodo { lines.append("DURATION:P\(shape.minutes)D") } else {
                lines.append(property(shape.isTodo ? "DUE" : "DTEND", shape.zone, end))
            }
        } else if useDuration && shape.hasStart && !shape.isTodo {
            lines.append("DURATION:PT\(shape.minutes)M")
        } else {
            let end = shape.start.adding(minutes: max(shape.minutes, shape.isTodo ? 30 : 0))
            lines.append(property(shape.isTodo ? "DUE" : "DTEND", shape.zone, end))
        }
        return lines
    }

    /// A recurrence rule, and the days between its first two instances when that is simple.
    private func rule(_ shape: Shape, _ random: inout Random) -> (String, Int?) {
        let count = 2 + random.below(10)
        let until = shape.start.adding(days: 20 + random.below(200))
        let end = random.chance(50) ? "COUNT=\(count)" : "UNTIL=" + untilValue(shape.zone, until)
        let weekday = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"][Wall.calendar.component(.weekday, from: shape.start.date) - 1]
        switch random.below(7) {
        case 0: return ("FREQ=DAILY;\(end)", 1)
        case 1: return ("FREQ=DAILY;INTERVAL=3;\(end)", 3)
        case 2: return ("FREQ=WEEKLY;\(end)", 7)
        case 3: return ("FREQ=WEEKLY;BYDAY=\(weekday),\(weekday == "SA" ? "MO" : "SA");\(end)", nil)
        case 4:
            let day = Wall.calendar.component(.day, from: shape.start.date)
            return ("FREQ=MONTHLY;BYMONTHDAY=\(day)\(day < 28 ? ",28" : "");\(end)", nil)
        case 5: return ("FREQ=MONTHLY;BYDAY=1\(weekday),-1\(weekday);\(end)", nil)
        default: return ("FREQ=YEARLY;COUNT=\(2 + random.below(3))", nil)
        }
    }

    private func untilValue(_ zone: Zone, _ wall: Wall) -> String {
        switch zone {
        case .allDay: wall.day
        case .floating: wall.dateTime
        case .utc: wall.dateTime + "Z"
        default: wall.instant(in: zone.tzid!).dateTime + "Z"
        }
    }

    private func property(_ name: String, _ zone: Zone, _ wall: Wall) -> String {
        switch zone {
        case .allDay: "\(name);VALUE=DATE:\(wall.day)"
        case .floating: "\(name):\(wall.dateTime)"
        case .utc: "\(name):\(wall.dateTime)Z"
        default: "\(name);TZID=\(zone.tzid!):\(wall.dateTime)"
        }
    }

    // MARK: - Alarms

    private static let relativeTriggers = ["-PT15M", "-P1D", "-P1W", "PT0S", "PT1H", "-PT2H"]

    /// One to three VALARMs; on single items, also RFC 9074 acknowledgements and snoozes.
    private func alarms(_ shape: Shape, single: Bool, _ random: inout Random) -> [String] {
        var lines: [String] = []
        for number in 0..<(1 + random.below(3)) {
            let action = random.pick(["DISPLAY", "DISPLAY", "AUDIO", "EMAIL"])
            var alarm = ["BEGIN:VALARM", "ACTION:\(action)"]
            let alarmUID = "alarm-\(random.next() % 1_000_000)-\(number)@openeventkit.example"
            if random.chance(40) { alarm.append("UID:\(alarmUID)") }
            var absolute: Wall?
            if random.chance(15) {
                let when = shape.start.adding(days: -1, minutes: 60 * random.below(12))
                absolute = when
                alarm.append("TRIGGER;VALUE=DATE-TIME:\(when.dateTime)Z")
            } else if !shape.hasStart || random.chance(20) {
                alarm.append("TRIGGER;RELATED=END:" + random.pick(["-PT15M", "PT0S", "-P1D", "PT1H"]))
            } else {
                alarm.append("TRIGGER:" + random.pick(Self.relativeTriggers))
            }
            let repeats = random.chance(20)
            if repeats { alarm += ["REPEAT:\(1 + random.below(3))", "DURATION:" + random.pick(["PT5M", "PT10M", "PT1H"])] }
            switch action {
            case "DISPLAY": alarm.append("DESCRIPTION:Reminder \(number)")
            case "EMAIL":
                alarm += ["DESCRIPTION:Mail reminder \(number)", "SUMMARY:Alarm \(number)",
                          "ATTENDEE:mailto:someone@openeventkit.example"]
            default: if random.chance(50) { alarm.append("ATTACH;FMTTYPE=audio/basic:https://openeventkit.example/ding.au") }
            }
            var snooze: [String] = []
            if single, let absolute {
                // RFC 9074: acknowledged at, before or after the trigger (at: left out).
                switch random.below(5) {
                case 0: alarm.append("ACKNOWLEDGED:\(absolute.dateTime)Z")
                case 1: alarm.append("ACKNOWLEDGED:\(absolute.adding(minutes: -1).dateTime)Z")
                case 2: alarm.append("ACKNOWLEDGED:\(absolute.adding(minutes: repeats ? 5 : 1).dateTime)Z")
                case 3:
                    // Snoozed: acknowledged, and a new alarm RELATED-TO;RELTYPE=SNOOZE it (RFC 9074).
                    if !alarm.contains("UID:\(alarmUID)") { alarm.insert("UID:\(alarmUID)", at: 2) }
                    alarm.append("ACKNOWLEDGED:\(absolute.adding(minutes: 2).dateTime)Z")
                    snooze = ["BEGIN:VALARM", "ACTION:DISPLAY", "UID:snooze-\(alarmUID)",
                              "RELATED-TO;RELTYPE=SNOOZE:\(alarmUID)", "DESCRIPTION:Snoozed \(number)",
                              "TRIGGER;VALUE=DATE-TIME:\(absolute.adding(minutes: 12).dateTime)Z", "END:VALARM"]
                default: break
                }
            } else if single, random.chance(20) {
                alarm.append(random.chance(50) ? "ACKNOWLEDGED:20200101T000000Z" : "ACKNOWLEDGED:20300101T000000Z")
            }
            alarm.append("END:VALARM")
            lines += alarm + snooze
        }
        return lines
    }

    // MARK: - Time zones

    /// VTIMEZONEs for the zones used (RFC 5545 3.6.5 asks for one per TZID), with today's rules.
    static let timeZones = """
        BEGIN:VTIMEZONE
        TZID:Europe/Berlin
        BEGIN:DAYLIGHT
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0200
        TZNAME:CEST
        DTSTART:19700329T020000
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
        END:DAYLIGHT
        BEGIN:STANDARD
        TZOFFSETFROM:+0200
        TZOFFSETTO:+0100
        TZNAME:CET
        DTSTART:19701025T030000
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
        END:STANDARD
        END:VTIMEZONE
        BEGIN:VTIMEZONE
        TZID:America/New_York
        BEGIN:DAYLIGHT
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        TZNAME:EDT
        DTSTART:20070311T020000
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
        END:DAYLIGHT
        BEGIN:STANDARD
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        TZNAME:EST
        DTSTART:20071104T020000
        RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
        END:STANDARD
        END:VTIMEZONE
        BEGIN:VTIMEZONE
        TZID:Australia/Lord_Howe
        BEGIN:STANDARD
        TZOFFSETFROM:+1100
        TZOFFSETTO:+1030
        DTSTART:20080406T020000
        RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU
        END:STANDARD
        BEGIN:DAYLIGHT
        TZOFFSETFROM:+1030
        TZOFFSETTO:+1100
        DTSTART:20081005T020000
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU
        END:DAYLIGHT
        END:VTIMEZONE
        """.split(separator: "\n").map(String.init)
}
