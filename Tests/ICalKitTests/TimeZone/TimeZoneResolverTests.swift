import Testing
import ICalKit

/// TZID resolution order, sources, and the documented decisions: tzdata wins over an
/// embedded VTIMEZONE under an IANA name (with a warning when they disagree), an embedded
/// VTIMEZONE under another name is used as written, and an unresolvable TZID is a
/// warning with its line and a floating fallback, never a silent UTC.
@Suite struct TimeZoneResolverTests {
    static func calendar(_ body: String, file: String = "test.ics") throws -> Component {
        let text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n" + body + "END:VCALENDAR\n"
        return try #require(try ICalReader().read(text, file: file).calendars.first)
    }

    static let utc = FixedOffsetZone.utc

    @Test(arguments: [
        ("Europe/Berlin", TimeZoneResolver.Source.iana, "Europe/Berlin"),
        ("US/Eastern", .iana, "US/Eastern"),
        ("/mozilla.org/20050126_1/America/New_York", .vendorPrefix, "America/New_York"),
        ("/freeassociation.sourceforge.net/Tzfile/Europe/Berlin", .vendorPrefix, "Europe/Berlin"),
        ("/freeassociation.sourceforge.net/Europe/Berlin", .vendorPrefix, "Europe/Berlin"),
        ("/citadel.org/20190914_1/Europe/Rome", .vendorPrefix, "Europe/Rome"),
        ("/softwarestudio.org/Olson_20011030_5/America/Argentina/Buenos_Aires", .vendorPrefix, "America/Argentina/Buenos_Aires"),
        ("\"Europe/Paris\"", .vendorPrefix, "Europe/Paris"),
        (" 'Asia/Tokyo' ", .vendorPrefix, "Asia/Tokyo"),
        ("W. Europe Standard Time", .windows, "Europe/Berlin"),
        ("w. europe standard time", .windows, "Europe/Berlin"),
        ("W. Europe Standard Time 1", .windows, "Europe/Berlin"),
        ("Eastern Standard Time 2", .windows, "America/New_York"),
        ("Pacific Standard Time", .windows, "America/Los_Angeles"),
        ("India Standard Time", .windows, "Asia/Calcutta"),
        ("(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna", .windows, "Europe/Berlin"),
        ("(GMT+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna", .windows, "Europe/Berlin"),
        ("(UTC-05:00) Eastern Time (US & Canada)", .windows, "America/New_York"),
        ("(UTC+10:00) Canberra, Melbourne, Sydney", .windows, "Australia/Sydney"),
        ("(UTC) Dublin, Edinburgh, Lisbon, London", .windows, "Europe/London"),
    ])
    func resolvesNamesOutsideTheCalendar(tzid: String, source: TimeZoneResolver.Source, identifier: String) throws {
        let resolution = try #require(TimeZoneResolver.resolveStandard(tzid))
        #expect(resolution.source == source)
        #expect(resolution.identifier == identifier)
        #expect(resolution.timeZoneIdentifier == tzid)
    }

    @Test func everyGeneratedWindowsNameMapsToAnInstalledZone() {
        #expect(TimeZoneResolver.windowsZoneMapping.count > 130)
        for (windows, iana) in TimeZoneResolver.windowsZoneMapping {
            #expect(IANATimeZone(named: iana) != nil, "\(windows) -> \(iana)")
        }
        for name in ["AUS Central Standard Time", "Dateline Standard Time", "UTC+12", "Tonga Standard Time",
                     "Central Standard Time (Mexico)", "Chatham Islands Standard Time", "Lord Howe Standard Time"] {
            #expect(TimeZoneResolver.resolveStandard(name)?.source == .windows, "\(name)")
        }
        #expect(TimeZoneResolver.resolveStandard("Customized Time Zone") == nil)
        #expect(TimeZoneResolver.resolveStandard("../../etc/passwd") == nil)
        #expect(TimeZoneResolver.resolveStandard("/etc/../../etc/passwd") == nil)
    }

    @Test func tzdataWinsOverAnEmbeddedIANANamedVTimeZoneAndDisagreementIsAWarning() throws {
        // A stale or wrong definition under an IANA name: fixed +05:00 for "Europe/Berlin".
        // Deliberate change (issue 14): tzdata's CEST is used, not the embedded +05:00.
        let calendar = try Self.calendar("""
            BEGIN:VTIMEZONE
            TZID:Europe/Berlin
            BEGIN:STANDARD
            DTSTART:19700101T000000
            TZOFFSETFROM:+0500
            TZOFFSETTO:+0500
            END:STANDARD
            END:VTIMEZONE
            BEGIN:VEVENT
            UID:1
            DTSTART;TZID=Europe/Berlin:20240701T120000
            END:VEVENT

            """, file: "stale.ics")
        let resolver = TimeZoneResolver(calendar: calendar, file: "stale.ics")
        let resolution = try #require(resolver.resolve("Europe/Berlin"))
        #expect(resolution.source == .iana)
        let value = try #require(DateTime(iCalendar: "20240701T120000", timeZoneIdentifier: "Europe/Berlin"))
        #expect(resolver.instant(for: value, floatingZone: Self.utc) == LocalDateTime(year: 2024, month: 7, day: 1, hour: 10)!.secondsSinceEpoch)
        let warning = try #require(resolver.diagnostics.first)
        #expect(resolver.diagnostics.count == 1)
        #expect(warning.severity == .warning)
        #expect(warning.code == .timeZone)
        #expect(warning.file == "stale.ics")
        #expect(warning.line == 4)  // BEGIN:VTIMEZONE
        #expect(warning.message.contains("disagrees with tzdata"))
        #expect(warning.message.contains("+0500"))
        #expect(warning.message.contains("tzdata is used"))
    }

    @Test func embeddedVTimeZoneUnderAnotherNameIsUsedAsWritten() throws {
        let calendar = try Self.calendar("""
            BEGIN:VTIMEZONE
            TZID:My Office
            BEGIN:STANDARD
            DTSTART:19700101T000000
            TZOFFSETFROM:+0500
            TZOFFSETTO:+0500
            END:STANDARD
            END:VTIMEZONE
            BEGIN:VEVENT
            UID:1
            DTSTART;TZID=My Office:20240701T120000
            END:VEVENT

            """)
        let resolver = TimeZoneResolver(calendar: calendar)
        #expect(resolver.resolve("My Office")?.source == .embedded)
        let value = try #require(DateTime(iCalendar: "20240701T120000", timeZoneIdentifier: "My Office"))
        #expect(resolver.instant(for: value, floatingZone: Self.utc) == LocalDateTime(year: 2024, month: 7, day: 1, hour: 7)!.secondsSinceEpoch)
        #expect(resolver.diagnostics.isEmpty)
    }

    @Test func embeddedVTimeZoneThatAgreesWithTzdataIsQuiet() throws {
        let calendar = try Self.calendar("""
            BEGIN:VTIMEZONE
            TZID:Europe/Berlin
            BEGIN:DAYLIGHT
            DTSTART:19810329T020000
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0200
            TZNAME:CEST
            RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
            END:DAYLIGHT
            BEGIN:STANDARD
            DTSTART:19961027T030000
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0100
            TZNAME:CET
            RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
            END:STANDARD
            END:VTIMEZONE

            """)
        let resolver = TimeZoneResolver(calendar: calendar, comparisonYears: 1997...2037)
        #expect(resolver.diagnostics.isEmpty, "\(resolver.diagnostics)")
        let rules = try #require(resolver.embeddedTimeZones["Europe/Berlin"])
        // RFC 5545 §3.3.5 through the embedded rules too.
        #expect(rules.instant(for: LocalDateTime(year: 2024, month: 3, day: 31, hour: 2, minute: 30)!)
                == LocalDateTime(year: 2024, month: 3, day: 31, hour: 1, minute: 30)!.secondsSinceEpoch)
        #expect(rules.instant(for: LocalDateTime(year: 2024, month: 10, day: 27, hour: 2, minute: 30)!)
                == LocalDateTime(year: 2024, month: 10, day: 27, hour: 0, minute: 30)!.secondsSinceEpoch)
    }

    @Test func unresolvableTZIDIsAWarningWithLineAndFloatingFallback() throws {
        let calendar = try Self.calendar("""
            BEGIN:VEVENT
            UID:1
            DTSTART;TZID=Customized Time Zone:20240701T120000
            DTEND;TZID=Customized Time Zone:20240701T130000
            END:VEVENT

            """, file: "outlook.ics")
        let resolver = TimeZoneResolver(calendar: calendar, file: "outlook.ics")
        let warning = try #require(resolver.diagnostics.first)
        #expect(resolver.diagnostics.count == 1)
        #expect(warning.severity == .warning)
        #expect(warning.file == "outlook.ics")
        #expect(warning.line == 6)
        #expect(warning.component == "VEVENT")
        #expect(warning.property == "DTSTART")
        #expect(warning.message.contains("Customized Time Zone"))
        #expect(warning.message.contains("2 values"))
        #expect(resolver.resolve("Customized Time Zone") == nil)
        // Fallback: floating in the caller's zone, not UTC.
        let value = try #require(DateTime(iCalendar: "20240701T120000", timeZoneIdentifier: "Customized Time Zone"))
        let tokyo = try #require(IANATimeZone(named: "Asia/Tokyo"))
        let resolution = resolver.resolution(for: value, floatingZone: tokyo)
        #expect(resolution.source == .fallback)
        #expect(resolver.instant(for: value, floatingZone: tokyo) == LocalDateTime(year: 2024, month: 7, day: 1, hour: 3)!.secondsSinceEpoch)
    }

    @Test func resolutionOrderAndSources() throws {
        let calendar = try Self.calendar("""
            X-WR-TIMEZONE:America/Chicago
            BEGIN:VTIMEZONE
            TZID:W. Europe Standard Time
            BEGIN:STANDARD
            DTSTART:16010101T030000
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0100
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:16010101T020000
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0200
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
            END:DAYLIGHT
            END:VTIMEZONE
            BEGIN:VEVENT
            UID:1
            DTSTART;TZID=W. Europe Standard Time:20240331T023000
            DTEND;TZID="/mozilla.org/20050126_1/America/New_York":20240331T100000
            EXDATE;TZID=Tokyo Standard Time:20240401T100000
            RECURRENCE-ID;TZID=Asia/Kolkata:20240402T100000
            END:VEVENT

            """)
        let resolver = TimeZoneResolver(calendar: calendar)
        #expect(resolver.diagnostics.isEmpty, "\(resolver.diagnostics)")
        #expect(resolver.resolve("W. Europe Standard Time")?.source == .embedded)
        #expect(resolver.resolve("/mozilla.org/20050126_1/America/New_York")?.source == .vendorPrefix)
        #expect(resolver.resolve("Tokyo Standard Time")?.source == .windows)
        #expect(resolver.resolve("Tokyo Standard Time")?.identifier == "Asia/Tokyo")
        #expect(resolver.resolve("Asia/Kolkata")?.source == .iana)
        #expect(resolver.defaultTimeZone?.identifier == "America/Chicago")
        #expect(resolver.defaultTimeZone?.source == .iana)
        // Outlook's 1601 rules: the gap time reads with the offset before the gap.
        let start = try #require(DateTime(iCalendar: "20240331T023000", timeZoneIdentifier: "W. Europe Standard Time"))
        #expect(resolver.instant(for: start, floatingZone: Self.utc) == LocalDateTime(year: 2024, month: 3, day: 31, hour: 1, minute: 30)!.secondsSinceEpoch)
        // UTC and floating values.
        let utcValue = try #require(DateTime(iCalendar: "20240331T023000Z"))
        #expect(resolver.instant(for: utcValue, floatingZone: try #require(IANATimeZone(named: "Asia/Tokyo"))) == LocalDateTime(year: 2024, month: 3, day: 31, hour: 2, minute: 30)!.secondsSinceEpoch)
        let floating = try #require(DateTime(iCalendar: "20240331T023000"))
        #expect(resolver.resolution(for: floating, floatingZone: Self.utc).source == .floating)
        #expect(resolver.resolution(for: utcValue, floatingZone: Self.utc).source == .utc)
        let date = try #require(DateTime(iCalendar: "20240331"))
        let tokyo = try #require(IANATimeZone(named: "Asia/Tokyo"))
        #expect(resolver.instant(for: date, floatingZone: tokyo) == LocalDateTime(year: 2024, month: 3, day: 30, hour: 15)!.secondsSinceEpoch)
    }

    @Test func unknownXWRTimezoneIsReported() throws {
        let calendar = try Self.calendar("X-WR-TIMEZONE:Atlantis/Capital\n")
        let resolver = TimeZoneResolver(calendar: calendar, file: "a.ics")
        #expect(resolver.defaultTimeZone == nil)
        #expect(resolver.diagnostics.first?.line == 4)
        #expect(resolver.diagnostics.first?.property == "X-WR-TIMEZONE")
    }

    @Test func brokenVTimeZonesAreReportedNotFatal() throws {
        let calendar = try Self.calendar("""
            BEGIN:VTIMEZONE
            TZID:Broken
            BEGIN:STANDARD
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0100
            END:STANDARD
            END:VTIMEZONE
            BEGIN:VTIMEZONE
            TZID:Europe/Berlin
            BEGIN:STANDARD
            DTSTART:19700101T000000
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0100
            RRULE:FREQ=DAILY
            END:STANDARD
            END:VTIMEZONE
            BEGIN:VEVENT
            UID:1
            DTSTART;TZID=Broken:20240101T100000
            END:VEVENT

            """)
        let resolver = TimeZoneResolver(calendar: calendar, comparisonYears: 2030...2030)
        #expect(resolver.embeddedTimeZones["Broken"] == nil)
        #expect(resolver.diagnostics.contains { $0.severity == .error && $0.line == 4 })
        #expect(resolver.diagnostics.contains { $0.message.contains("FREQ=DAILY") && $0.line == 17 })
        #expect(resolver.diagnostics.contains { $0.message.contains("'Broken'") && $0.line == 22 })
    }
}

@Suite struct ExporterVTimeZoneTests {
    /// Thunderbird, Google and others write a VTIMEZONE starting in 1970 with today's rules;
    /// tzdata's Berlin had no DST before 1980. Values in 2026 never reach that history.
    @Test func exporterStyleVTimeZoneIsNotFlaggedForHistoryTheValuesNeverReach() throws {
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//x//y//EN\r
            BEGIN:VTIMEZONE\r
            TZID:Europe/Berlin\r
            BEGIN:DAYLIGHT\r
            TZOFFSETFROM:+0100\r
            TZOFFSETTO:+0200\r
            DTSTART:19700329T020000\r
            RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
            END:DAYLIGHT\r
            BEGIN:STANDARD\r
            TZOFFSETFROM:+0200\r
            TZOFFSETTO:+0100\r
            DTSTART:19701025T030000\r
            RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
            END:STANDARD\r
            END:VTIMEZONE\r
            BEGIN:VEVENT\r
            UID:a\r
            DTSTAMP:20260101T000000Z\r
            DTSTART;TZID=Europe/Berlin:20260907T163000\r
            RRULE:FREQ=WEEKLY\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let calendar = try ICalReader().read(text).calendars[0]
        #expect(TimeZoneResolver(calendar: calendar, file: "x.ics").diagnostics.isEmpty)
        // The same VTIMEZONE under a value from 1975 reaches the disagreement and is flagged.
        var old = calendar
        old.components[1].properties[2].rawValue = "19750907T163000"
        old.components[1].removeProperties(.recurrenceRule)
        let diagnostics = TimeZoneResolver(calendar: old, file: "x.ics").diagnostics
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message.contains("disagrees with tzdata") == true)
        #expect(diagnostics.first?.line == 4)
    }
}
