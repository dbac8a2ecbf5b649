import Testing
@testable import ICalKit

/// The steps of a query over a large calendar that are split over the cores (applying
/// X-WR-TIMEZONE, counting each TZID's uses, classifying and grouping the components, and
/// choosing and starting the series in the window) give exactly what one core gives.
@Suite struct ParallelQueryTests {
    /// A calendar of `series` UIDs (enough for several parts of groups and components):
    /// single events and series from 2024 to 2027, overrides (some cancelled, some moved far),
    /// floating times given a zone by X-WR-TIMEZONE, zoned, UTC and all-day values, an
    /// embedded VTIMEZONE, a TZID nobody defines, and to-dos.
    static func calendar(series: Int, seed: UInt64) -> Component {
        var random = OccurrenceStreamTests.Random(state: seed)
        let two = OccurrenceStreamTests.two
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//Tests//EN", "X-WR-TIMEZONE:Europe/Berlin",
                     "BEGIN:VTIMEZONE", "TZID:Custom/Zone", "BEGIN:STANDARD", "DTSTART:19700101T000000",
                     "TZOFFSETFROM:+0300", "TZOFFSETTO:+0300", "END:STANDARD", "END:VTIMEZONE"]
        let zones = ["", "", ";TZID=Europe/Berlin", ";TZID=America/New_York", ";TZID=Custom/Zone", ";TZID=Nowhere/Land",
                     "Z", ";VALUE=DATE"]
        let rules = ["FREQ=WEEKLY;COUNT=10", "FREQ=DAILY;INTERVAL=3;COUNT=40", "FREQ=MONTHLY;BYMONTHDAY=2,20",
                     "FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20270101T000000Z", "FREQ=YEARLY"]
        for index in 0..<series {
            let zone = random.pick(zones)
            let year = 2024 + random.int(0...3), month = random.int(1...12), day = random.int(1...27), hour = random.int(7...18)
            func value(_ day: Int, _ hour: Int) -> String {
                let date = "\(year)\(two(month))\(two(day))"
                if zone == ";VALUE=DATE" { return "\(zone):\(date)" }
                if zone == "Z" { return ":\(date)T\(two(hour))0000Z" }
                return "\(zone):\(date)T\(two(hour))0000"
            }
            let todo = random.chance(5) && zone != ";VALUE=DATE"
            let uid = "series-\(index)@parallel"
            lines += [todo ? "BEGIN:VTODO" : "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20240101T000000Z",
                      "SUMMARY:item \(index)", "DTSTART" + value(day, hour)]
            if zone == ";VALUE=DATE" {
                lines.append("DURATION:P1D")
            } else if todo {
                lines.append("DUE" + value(day, hour + 1))
            } else {
                lines.append(random.chance(50) ? "DTEND" + value(day, hour + 1) : "DURATION:PT\(random.int(0...3) * 30)M")
            }
            if random.chance(20) { lines.append("STATUS:CANCELLED") }
            let recurs = random.chance(30)
            if recurs { lines.append("RRULE:" + random.pick(rules)) }
            if random.chance(10) { lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT10M", "DESCRIPTION:x", "END:VALARM"] }
            lines.append(todo ? "END:VTODO" : "END:VEVENT")
            if recurs, !todo, zone != ";VALUE=DATE", random.chance(40) {
                // An override of an instance, moved (sometimes into another year) or cancelled.
                lines += ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20240101T000000Z", "RECURRENCE-ID" + value(day, hour),
                          "DTSTART" + (random.chance(30) ? ";TZID=Europe/Berlin:20260304T120000" : value(day, hour + 1)),
                          "DURATION:PT1H", random.chance(25) ? "STATUS:CANCELLED" : "SUMMARY:moved \(index)", "END:VEVENT"]
            }
        }
        lines.append("END:VCALENDAR")
        return try! ICalReader().read(lines.joined(separator: "\r\n") + "\r\n").calendars[0]
    }

    static let windows: [Range<Int64>] = [
        RecurrenceTestSupport.window("20260302T000000Z", "20260309T000000Z"),
        RecurrenceTestSupport.window("20260101T000000Z", "20270101T000000Z"),
    ]

    @Test(arguments: [1 as UInt64, 2])
    func queriesOnSeveralCoresAreTheQueryOnOne(seed: UInt64) {
        let calendar = Self.calendar(series: 9_000, seed: seed)
        let sources = [OccurrenceQuery.Source(calendar: calendar, name: "large.ics")]
        var matched = 0
        for window in Self.windows {
            for floating in [FixedOffsetZone.utc, RecurrenceTestSupport.berlin] as [any TimeZoneRules] {
                var query = OccurrenceQuery(window: window, floatingZone: floating)
                query.includesCancelled = seed == 2
                let one = Threads.$cores.withValue(1) { query.stream(sources).collect() }
                for cores in [2, 3] {
                    let several = Threads.$cores.withValue(cores) { query.stream(sources).collect() }
                    #expect(several.matches.map(OccurrenceStreamTests.describe) == one.matches.map(OccurrenceStreamTests.describe),
                            "\(cores) cores, \(window)")
                    #expect(several.diagnostics == one.diagnostics, "\(cores) cores, \(window)")
                }
                // And both are the query that collects every match and sorts them.
                let oracle = Threads.$cores.withValue(1) { OccurrenceStreamTests.collectedAndSorted(query, sources) }
                #expect(one.matches.map(OccurrenceStreamTests.describe) == oracle.matches.map(OccurrenceStreamTests.describe))
                #expect(one.diagnostics == oracle.diagnostics)
                matched += one.matches.count
            }
        }
        #expect(matched > 1_000)
    }

    @Test func stepsOnSeveralCoresAreTheStepsOnOne() {
        let calendar = Self.calendar(series: 9_000, seed: 3)
        let repaired = Threads.$cores.withValue(1) { CalendarRepair.applyingCalendarTimeZone(calendar) }
        #expect(repaired != calendar)
        let resolver = Threads.$cores.withValue(1) { TimeZoneResolver(calendar: repaired, file: "large.ics") }
        // The warnings count a TZID's uses and name its first.
        #expect(resolver.diagnostics.contains { $0.message.contains("Nowhere/Land") })
        let grouping = Threads.$cores.withValue(1) { RecurrenceSet.Grouping(repaired.components) }
        #expect(grouping.groups.count == 9_000)
        for cores in [2, 4, 8] {
            Threads.$cores.withValue(cores) {
                #expect(CalendarRepair.applyingCalendarTimeZone(calendar) == repaired, "\(cores) cores")
                #expect(TimeZoneResolver(calendar: repaired, file: "large.ics").diagnostics == resolver.diagnostics)
                let split = RecurrenceSet.Grouping(repaired.components)
                #expect(split.groups.elementsEqual(grouping.groups) { $0 == $1 }, "\(cores) cores")
                for group in stride(from: 0, to: grouping.groups.count, by: 97) {
                    #expect(split.entries(of: group).map(\.component) == grouping.entries(of: group).map(\.component))
                }
            }
        }
    }

    @Test func uidsAreComparedAsStrings() {
        // Canonically equivalent UIDs ("é" composed and decomposed) are one series, as a
        // Dictionary of Strings groups them; other UIDs whose hashes meet are not.
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0"]
        for index in 0..<9_000 {
            lines += ["BEGIN:VEVENT", "UID:u\(index)", "DTSTART:20260301T100000Z", "END:VEVENT"]
        }
        lines += ["BEGIN:VEVENT", "UID:caf\u{E9}", "DTSTART:20260301T100000Z", "RRULE:FREQ=DAILY;COUNT=3", "END:VEVENT",
                  "BEGIN:VEVENT", "UID:cafe\u{301}", "RECURRENCE-ID:20260302T100000Z", "DTSTART:20260302T120000Z", "END:VEVENT",
                  "END:VCALENDAR"]
        let calendar = try! ICalReader().read(lines.joined(separator: "\r\n")).calendars[0]
        for cores in [1, 2] {
            let grouping = Threads.$cores.withValue(cores) { RecurrenceSet.Grouping(calendar.components) }
            #expect(grouping.groups.count == 9_001)
            #expect(!grouping.isLone(9_000))
        }
    }
}
