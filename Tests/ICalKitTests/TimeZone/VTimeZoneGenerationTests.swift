import Testing
import ICalKit

/// VTIMEZONEs generated from tzdata read back (with ``VTimeZoneRules``) to the same
/// offsets as tzdata at every instant in the range.
@Suite struct VTimeZoneGenerationTests {
    static func utc(_ year: Int, _ month: Int = 1, _ day: Int = 1) -> Int64 {
        LocalDateTime(year: year, month: month, day: day)!.secondsSinceEpoch
    }

    /// Checks the offsets at every change of either zone (and one second before), and
    /// every day, between `lower` and `upper`.
    static func expectSameOffsets(_ zone: IANATimeZone, _ rules: VTimeZoneRules, _ lower: Int64, _ upper: Int64) {
        var points = Array(stride(from: lower, through: upper, by: 86_400)) + [lower, upper]
        for change in zone.transitions(from: lower, through: upper) + rules.transitions(from: lower, through: upper) {
            points += [change.instant - 1, change.instant, change.instant + 1]
        }
        var mismatches: [String] = []
        for point in points where point >= lower && point <= upper {
            let expected = zone.utcOffset(atInstant: point)
            let actual = rules.utcOffset(atInstant: point)
            if expected != actual { mismatches.append("\(LocalDateTime(secondsSinceEpoch: point))Z: \(actual) vs \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(zone.identifier): \(mismatches.prefix(5))")
    }

    @Test(arguments: ["America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata", "America/Sao_Paulo",
                      "Pacific/Chatham", "Europe/Dublin", "Australia/Lord_Howe", "America/Godthab", "Africa/Casablanca",
                      "Asia/Tehran", "America/Santiago", "Pacific/Apia", "Europe/London", "UTC"])
    func roundTripGivesTzdataOffsets(name: String) throws {
        let zone = try #require(IANATimeZone(named: name))
        for (lower, upper) in [(Self.utc(1970), Self.utc(2040)), (Self.utc(2024, 3, 1), Self.utc(2024, 12, 1)),
                               (Self.utc(2010, 6, 15), Self.utc(2011, 6, 15))] {
            let component = zone.vTimeZone(from: lower, through: upper)
            #expect(component[.timeZoneIdentifier] == name)
            // Through text, as an export would write and a reader would read it.
            let text = ICalWriter().string([Component(kind: .calendar, components: [component])])
            let read = try ICalReader(mode: .strict).read(text)
            let readBack = try #require(read.calendars.first?.components(.timeZone).first)
            let rules = try VTimeZoneRules(readBack)
            #expect(rules.diagnostics.isEmpty)
            #expect(rules.identifier == name)
            Self.expectSameOffsets(zone, rules, lower, upper)
        }
    }

    /// Every zone in tzdata.zi, 1970 to 2040, checked at every change of either definition.
    @Test func everyZoneRoundTrips() throws {
        let index = try String(contentsOfFile: IANATimeZone.databaseDirectory + "/tzdata.zi", encoding: .utf8)
        let names = index.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            return fields.first == "Z" && fields.count > 1 ? String(fields[1]) : nil
        }
        #expect(names.count > 300)
        let lower = Self.utc(1970), upper = Self.utc(2040)
        var failures: [String] = []
        for name in names {
            let zone = try #require(IANATimeZone(named: name))
            let rules = try VTimeZoneRules(zone.vTimeZone(from: lower, through: upper))
            var points = [lower, upper]
            for change in zone.transitions(from: lower, through: upper) + rules.transitions(from: lower, through: upper) {
                points += [change.instant - 1, change.instant]
            }
            if let bad = points.first(where: { $0 >= lower && $0 <= upper && zone.utcOffset(atInstant: $0) != rules.utcOffset(atInstant: $0) }) {
                failures.append("\(name) at \(LocalDateTime(secondsSinceEpoch: bad))Z")
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(8))")
    }

    @Test func regularRulesBecomeOpenEndedRRULEs() throws {
        let zone = try #require(IANATimeZone(named: "America/New_York"))
        let component = zone.vTimeZone(from: Self.utc(2020), through: Self.utc(2030))
        let observances = component.components
        #expect(observances.count == 2)
        let daylight = try #require(component.components(.daylight).first)
        #expect(daylight[.recurrenceRule] == "FREQ=YEARLY;BYMONTH=3;BYDAY=2SU")
        #expect(daylight[.dateTimeStart] == "20200308T020000")
        #expect(daylight[.timeZoneOffsetFrom] == "-0500")
        #expect(daylight[.timeZoneOffsetTo] == "-0400")
        #expect(daylight[.timeZoneName] == "EDT")
        let standard = try #require(component.components(.standard).first)
        #expect(standard[.recurrenceRule] == "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU")
        // Open-ended: still right long after the range.
        let rules = try VTimeZoneRules(component)
        Self.expectSameOffsets(zone, rules, Self.utc(2030), Self.utc(2060))
    }

    @Test func historicalChangesUseUntilAndRDATE() throws {
        let zone = try #require(IANATimeZone(named: "America/New_York"))
        let component = zone.vTimeZone(from: Self.utc(1990), through: Self.utc(2030))
        let rules = component.components(.daylight).compactMap { $0[.recurrenceRule] }
        #expect(rules.contains("FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=20060402T070000Z"))
        #expect(rules.contains("FREQ=YEARLY;BYMONTH=3;BYDAY=2SU"))
        // Sao Paulo: no DST since 2019, irregular before.
        let saoPaulo = try #require(IANATimeZone(named: "America/Sao_Paulo"))
        let brazil = saoPaulo.vTimeZone(from: Self.utc(2015), through: Self.utc(2030))
        #expect(brazil.components.allSatisfy { $0[.recurrenceRule]?.contains("UNTIL=") ?? true })
        let brazilRules = try VTimeZoneRules(brazil)
        #expect(brazilRules.utcOffset(atInstant: Self.utc(2035, 1, 1)) == -3 * 3600)
        #expect(brazilRules.utcOffset(atInstant: Self.utc(2018, 1, 1)) == -2 * 3600)
    }

    @Test func negativeDaylightSavingTimeIsWrittenAsDaylightForTheHigherOffset() throws {
        let dublin = try #require(IANATimeZone(named: "Europe/Dublin"))
        // tzdata: winter GMT is "daylight" time (negative DST).
        #expect(dublin.isDaylightSavingTime(atInstant: Self.utc(2024, 1, 15)))
        let component = dublin.vTimeZone(from: Self.utc(2020), through: Self.utc(2030))
        let daylight = try #require(component.components(.daylight).first)
        let standard = try #require(component.components(.standard).first)
        #expect(daylight[.timeZoneOffsetTo] == "+0100")
        #expect(daylight[.timeZoneName] == "IST")
        #expect(standard[.timeZoneOffsetTo] == "+0000")
        #expect(standard[.timeZoneName] == "GMT")
    }

    @Test func fixedOffsetZoneHasOneObservance() throws {
        let zone = try #require(IANATimeZone(named: "Asia/Kolkata"))
        let component = zone.vTimeZone(from: Self.utc(2000), through: Self.utc(2030))
        #expect(component.components.count == 1)
        #expect(component.components[0][.timeZoneOffsetTo] == "+0530")
        #expect(component.components[0][.timeZoneOffsetFrom] == "+0530")
    }

    @Test func exportHelperGeneratesMissingZonesOnly() throws {
        let text = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//test//EN
        BEGIN:VTIMEZONE
        TZID:Custom
        BEGIN:STANDARD
        DTSTART:19700101T000000
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0100
        END:STANDARD
        END:VTIMEZONE
        BEGIN:VEVENT
        UID:1
        DTSTART;TZID=Europe/Berlin:20240331T023000
        DTEND;TZID=America/New_York:20240331T100000
        RRULE:FREQ=WEEKLY
        EXDATE;TZID=W. Europe Standard Time:20240407T023000,20240414T023000
        END:VEVENT
        BEGIN:VEVENT
        UID:2
        DTSTART;TZID=Custom:20240101T100000
        DTEND;TZID=Nowhere/Land:20240101T110000
        END:VEVENT
        END:VCALENDAR
        """
        let calendar = try #require(try ICalReader().read(text).calendars.first)
        let zones = TimeZoneExport.timeZones(neededBy: [calendar])
        #expect(zones.map { $0[.timeZoneIdentifier] } == ["America/New_York", "Europe/Berlin", "W. Europe Standard Time"])
        var exported = calendar
        for zone in zones { exported.addComponent(zone) }
        let resolver = TimeZoneResolver(calendar: exported)
        // Under an IANA name tzdata wins (issue 14); the generated VTIMEZONE agrees with it.
        #expect(resolver.resolve("Europe/Berlin")?.source == .iana)
        #expect(resolver.resolve("W. Europe Standard Time")?.source == .embedded)
        let berlin = try #require(IANATimeZone(named: "Europe/Berlin"))
        let embedded = try #require(resolver.embeddedTimeZones["Europe/Berlin"])
        Self.expectSameOffsets(berlin, embedded, Self.utc(2024, 3, 30), Self.utc(2044))
        // Only the unresolvable TZID is reported; the generated zones agree with tzdata.
        #expect(resolver.diagnostics.count == 1)
        #expect(resolver.diagnostics.first?.message.contains("Nowhere/Land") == true)
    }
}
