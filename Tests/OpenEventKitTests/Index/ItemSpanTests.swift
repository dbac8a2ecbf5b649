import Foundation
import ICalKit
import Testing
@testable import OpenEventKit

/// The span rules one by one, on items built to sit on their edges.
@Suite struct ItemSpanTests {
    static func calendar(_ body: String) throws -> Component {
        let text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//OpenEventKit//span tests//EN\n" + body + "END:VCALENDAR\n"
        return try #require(try ICalReader().read(Array(text.utf8), file: "span.ics").calendars.first)
    }

    static func summary(_ body: String) throws -> ItemSummary {
        ItemSummary(calendar: try calendar(body), file: "span.ics")
    }

    static func instant(_ text: String) -> Int64 {
        DateTime(iCalendar: text)!.local.secondsSinceEpoch
    }

    /// The matches of a query over one item.
    static func matches(_ body: String, window: Range<Int64>, zone: String) throws -> [OccurrenceQuery.Match] {
        OccurrenceQuery(window: window, floatingZone: IANATimeZone(named: zone)!).run([.init(calendar: try calendar(body))]).matches
    }

    /// Whether a span admits a window, as the index's query does.
    static func admits(_ span: ItemSpan, _ window: Range<Int64>) -> Bool {
        switch span {
        case .undated: return true
        case .bounded(let first, let last): return first < window.upperBound && (last.map { $0 >= window.lowerBound } ?? true)
        }
    }

    @Test func boundedSeriesEndsAtItsLastOccurrence() throws {
        let summary = try Self.summary("""
            BEGIN:VEVENT\nUID:a\nDTSTART:20260301T090000Z\nDURATION:PT1H\nRRULE:FREQ=DAILY;COUNT=3\nEND:VEVENT

            """)
        #expect(summary.span == .bounded(firstStart: Self.instant("20260301T090000Z"), lastEnd: Self.instant("20260303T100000Z")))
        #expect(summary.kinds == .event)
        #expect(summary.uid == "a")
    }

    @Test func seriesWithoutEndIsUnbounded() throws {
        let summary = try Self.summary("""
            BEGIN:VEVENT\nUID:a\nDTSTART;TZID=Europe/Berlin:20260301T090000\nRRULE:FREQ=WEEKLY\nEND:VEVENT

            """)
        #expect(summary.span == .bounded(firstStart: Self.instant("20260301T080000Z"), lastEnd: nil))
    }

    @Test func seriesBeyondTheBudgetIsUnbounded() throws {
        let summary = try Self.summary("""
            BEGIN:VEVENT\nUID:a\nDTSTART:20260301T090000Z\nRRULE:FREQ=MINUTELY;COUNT=50000\nEND:VEVENT

            """)
        #expect(summary.span == .bounded(firstStart: Self.instant("20260301T090000Z"), lastEnd: nil))
    }

    @Test func todoWithoutDatesIsUndated() throws {
        let summary = try Self.summary("BEGIN:VTODO\nUID:t\nSUMMARY:Someday\nEND:VTODO\n")
        #expect(summary.span == .undated)
        #expect(summary.kinds == .todo)
        let due = try Self.summary("BEGIN:VTODO\nUID:t\nDUE:20260301T090000Z\nEND:VTODO\n")
        #expect(due.span == .bounded(firstStart: Self.instant("20260301T090000Z"), lastEnd: Self.instant("20260301T090000Z")))
    }

    @Test func rdateAndOverrideMovedFarAwayWiden() throws {
        let summary = try Self.summary("""
            BEGIN:VEVENT\nUID:a\nDTSTART:20260301T090000Z\nDTEND:20260301T100000Z\nRRULE:FREQ=WEEKLY;COUNT=2
            RDATE;VALUE=PERIOD:20200101T000000Z/PT2H\nEND:VEVENT
            BEGIN:VEVENT\nUID:a\nRECURRENCE-ID:20260308T090000Z\nDTSTART:20300101T120000Z\nDURATION:PT3H\nEND:VEVENT

            """)
        guard case .bounded(let first, let last?) = summary.span else { Issue.record("not bounded: \(summary.span)"); return }
        #expect(first == Self.instant("20200101T000000Z"))
        #expect(last >= Self.instant("20300101T150000Z"))
    }

    @Test func thisAndFutureMovesTheLaterInstances() throws {
        let body = """
            BEGIN:VEVENT\nUID:a\nDTSTART:20260301T090000Z\nDURATION:PT1H\nRRULE:FREQ=DAILY;COUNT=10\nEND:VEVENT
            BEGIN:VEVENT\nUID:a\nRECURRENCE-ID;RANGE=THISANDFUTURE:20260305T090000Z\nDTSTART:20260405T090000Z\nEND:VEVENT

            """
        let summary = try Self.summary(body)
        let window = Self.instant("20260410T000000Z")..<Self.instant("20260411T000000Z")
        #expect(try !Self.matches(body, window: window, zone: "UTC").isEmpty, "the shifted series reaches April 10")
        #expect(Self.admits(summary.span, window))
    }

    /// A UTC UNTIL on a floating series admits more instances in zones east of UTC: in
    /// UTC+14 the instance on the Monday after is before UNTIL.
    @Test func floatingSeriesWithUTCUntilKeepsItsEasternInstances() throws {
        let body = """
            BEGIN:VEVENT\nUID:a\nDTSTART:20260302T090000\nRRULE:FREQ=WEEKLY;UNTIL=20260309T050000Z\nEND:VEVENT

            """
        let summary = try Self.summary(body)
        let window = Self.instant("20260308T180000Z")..<Self.instant("20260308T200000Z")
        #expect(try Self.matches(body, window: window, zone: "Pacific/Kiritimati").count == 1)
        #expect(try Self.matches(body, window: window, zone: "UTC").isEmpty)
        #expect(Self.admits(summary.span, window))
    }

    /// A UTC EXDATE on a floating series removes a different instance in each zone; the
    /// span ignores EXDATEs so that none is lost.
    @Test func floatingSeriesWithUTCExdateKeepsEveryInstance() throws {
        let body = """
            BEGIN:VEVENT\nUID:a\nDTSTART:20260301T090000\nRRULE:FREQ=DAILY;COUNT=2\nEXDATE:20260301T190000Z\nEND:VEVENT

            """
        let summary = try Self.summary(body)
        let window = Self.instant("20260302T080000Z")..<Self.instant("20260302T100000Z")
        #expect(try Self.matches(body, window: window, zone: "UTC").count == 1)
        #expect(Self.admits(summary.span, window))
    }

    /// Floating and all-day values have no fixed instant: the span holds them in every
    /// zone from UTC+14 to UTC−12.
    @Test func floatingAndAllDayCoverEveryZone() throws {
        for body in ["BEGIN:VEVENT\nUID:a\nDTSTART:20260301T090000\nDTEND:20260301T100000\nEND:VEVENT\n",
                     "BEGIN:VEVENT\nUID:a\nDTSTART;VALUE=DATE:20260301\nEND:VEVENT\n"] {
            let summary = try Self.summary(body)
            for zone in ["Pacific/Kiritimati", "UTC", "Pacific/Pago_Pago", "Etc/GMT+12"] {
                let match = try #require(try Self.matches(body, window: Self.instant("20260201T000000Z")..<Self.instant("20260401T000000Z"),
                                                          zone: zone).first)
                let instants = match.startInstant..<max(match.endInstant, match.startInstant + 1)
                #expect(Self.admits(summary.span, instants), "\(zone): \(match.startInstant)...\(match.endInstant)")
                #expect(Self.admits(summary.span, match.endInstant..<(match.endInstant + 1)))
            }
        }
    }

    @Test func zeroLengthOccurrenceAtTheWindowStartIsAdmitted() throws {
        let summary = try Self.summary("BEGIN:VEVENT\nUID:a\nDTSTART:20260301T090000Z\nEND:VEVENT\n")
        let start = Self.instant("20260301T090000Z")
        #expect(Self.admits(summary.span, start..<(start + 60)))
        #expect(!Self.admits(summary.span, (start + 1)..<(start + 60)))
        #expect(!Self.admits(summary.span, (start - 60)..<start))
    }

    /// The direct spans (lone non-recurring components, masters walked as keys) agree with
    /// the expansion, on
    /// random items and on edge cases (unresolvable TZID, DATE with TZID, ends before starts,
    /// negative and all-day DURATIONs, to-dos with DUE only, starts near year 1 and 9999).
    @Test(arguments: [UInt64(0x5B4A), 0xD1EC7_5B4A])
    func directSpansAgreeWithTheExpansion(seed: UInt64) throws {
        var generator = RandomItemGenerator(seed: seed)
        var bodies: [String] = (0..<500).map { generator.item($0) }
        let edges = [
            "DTSTART;TZID=Nowhere/Atlantis:20260301T090000\nDTEND;TZID=Nowhere/Atlantis:20260301T100000",
            "DTSTART;TZID=Europe/Berlin;VALUE=DATE:20260301",
            "DTSTART;TZID=Europe/Berlin:20260329T023000\nDURATION:PT1H",
            "DTSTART;TZID=America/New_York:20261101T013000\nDTEND;TZID=Asia/Tokyo:20261101T013000",
            "DTSTART:20260301T090000Z\nDTEND:20260301T080000Z",
            "DTSTART:20260301T090000\nDURATION:-PT2H",
            "DTSTART;VALUE=DATE:20260301\nDURATION:PT36H",
            "DTSTART;VALUE=DATE:20260301\nDTEND;VALUE=DATE:20260301",
            "DTSTART;VALUE=DATE:20260301\nDTEND:20260303T120000Z",
            "DTSTART:20260301T090000\nDTEND;VALUE=DATE:20260302",
            "DTSTART:20260301T090000\nDURATION:P1W",
            "DTSTART:00010101T000000Z",
            "DTSTART:00010105T000000",
            "DTSTART;VALUE=DATE:99991231",
            "DTSTART:99991230T000000Z\nDURATION:P3D",
            "DTSTART:not a date",
            "SUMMARY:no start",
            "DTSTART:20260301T090000Z\nEXDATE:20260301T090000Z",
            "DTSTART:20260301T090000Z\nRRULE:FREQ=MINUTELY;COUNT=50000",
            "DTSTART;TZID=Europe/Berlin:20260301T023000\nRRULE:FREQ=DAILY;COUNT=60\nDURATION:PT2H",
            "DTSTART;TZID=Europe/Berlin:20260301T090000\nRRULE:FREQ=DAILY;COUNT=5\nEXDATE;TZID=Europe/Berlin:20260301T090000,20260302T090000",
            "DTSTART:20260301T090000\nRRULE:FREQ=WEEKLY;UNTIL=20260401T000000Z\nRDATE;VALUE=PERIOD:20250101T000000/PT50H",
            "DTSTART;VALUE=DATE:20260301\nRRULE:FREQ=YEARLY\nRDATE;VALUE=DATE:20200101",
            "DTSTART;TZID=Nowhere/Atlantis:20260301T090000\nRRULE:FREQ=DAILY;COUNT=3",
            "DTSTART:20260301T090000Z\nRRULE:FREQ=DAILY;COUNT=3;BYMONTH=13",
            "DTSTART:20260301T090000Z\nRDATE:20260301T090000Z,20240101T000000Z",
        ]
        for (index, lines) in edges.enumerated() {
            bodies.append(generator.wrap(generator.component("VEVENT", uid: "edge-\(index)", lines: lines.components(separatedBy: "\n"))))
            bodies.append(generator.wrap(generator.component("VTODO", uid: "edge-todo-\(index)",
                                                             lines: lines.replacingOccurrences(of: "DTEND", with: "DUE")
                                                                 .components(separatedBy: "\n"))))
        }
        bodies.append(generator.wrap(generator.component("VTODO", uid: "due", lines: ["DUE;TZID=Asia/Tokyo:20260301T090000"])))
        bodies.append(generator.wrap(generator.component("VEVENT", uid: "two", lines: ["DTSTART:20260301T090000Z"]),
                                     generator.component("VEVENT", uid: "two", lines: ["DTSTART:20270301T090000Z"])))
        for (index, tzid) in Self.embeddedZoneNames.enumerated() {
            bodies.append(generator.wrap(Self.embeddedZones, generator.component(
                "VEVENT", uid: "zone-\(index)", lines: ["DTSTART;TZID=\(tzid):20260301T090000", "DTEND;TZID=\(tzid):20260301T100000",
                                                        "RRULE:FREQ=WEEKLY;COUNT=3"])))
        }
        for body in bodies {
            guard let calendar = try ICalReader().read(Array(body.utf8), file: "span.ics").calendars.first else { continue }
            for budget in [ExpansionBudget.standard, ExpansionBudget(maximumOccurrences: 2),
                           ExpansionBudget(maximumOccurrences: 0), ExpansionBudget(maximumIteratorSteps: 3)] {
                let direct = ItemSummary(calendar: calendar, file: "span.ics", budget: budget)
                let expanded = ItemSummary(calendar: calendar, file: "span.ics", budget: budget, direct: false)
                #expect(direct == expanded, "\(budget): \(body)")
            }
        }
    }

    /// VTIMEZONEs under a custom name, an IANA name, a Windows name, a quoted name, one that
    /// cannot be read and a second one of a TZID.
    static let embeddedZones = """
        BEGIN:VTIMEZONE\nTZID:My Zone\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0300\nTZOFFSETTO:+0300\nEND:STANDARD\nEND:VTIMEZONE
        BEGIN:VTIMEZONE\nTZID:My Zone\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0500\nTZOFFSETTO:+0500\nEND:STANDARD\nEND:VTIMEZONE
        BEGIN:VTIMEZONE\nTZID:Europe/Berlin\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0700\nTZOFFSETTO:+0700\nEND:STANDARD\nEND:VTIMEZONE
        BEGIN:VTIMEZONE\nTZID:W. Europe Standard Time\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:-0200\nTZOFFSETTO:-0200\nEND:STANDARD\nEND:VTIMEZONE
        BEGIN:VTIMEZONE\nTZID:Broken Zone\nEND:VTIMEZONE
        BEGIN:VTIMEZONE\nTZID:Broken Zone\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0100\nEND:STANDARD\nEND:VTIMEZONE
        BEGIN:VTIMEZONE\nTZID:Only Broken\nEND:VTIMEZONE
        BEGIN:VTIMEZONE\nTZID:  Spaced Zone \nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0930\nTZOFFSETTO:+0930\nEND:STANDARD\nEND:VTIMEZONE

        """
    static let embeddedZoneNames = ["My Zone", "\"My Zone\"", "Europe/Berlin", "W. Europe Standard Time", "Broken Zone", "Only Broken",
                                    "Spaced Zone", "America/New_York", "/mozilla.org/20050126_1/Asia/Tokyo", "Nowhere/Atlantis",
                                    "Central Standard Time"]

    /// The index's TZID lookup agrees with the resolver's, embedded zones and all.
    @Test func rulesLookupAgreesWithTheResolver() throws {
        let calendar = try Self.calendar(Self.embeddedZones + "BEGIN:VEVENT\nUID:a\nDTSTART:20260301T090000Z\nEND:VEVENT\n")
        let resolver = TimeZoneResolver(calendar: calendar, file: "span.ics")
        let lookup = TimeZoneResolver.rulesLookup(calendar: calendar, file: "span.ics")
        let local = DateTime(iCalendar: "20260715T120000")!.local
        for tzid in Self.embeddedZoneNames {
            let expected = resolver.resolve(tzid)?.rules
            let found = lookup(tzid)
            #expect(found?.identifier == expected?.identifier, "\(tzid)")
            #expect(found?.instant(for: local) == expected?.instant(for: local), "\(tzid)")
        }
    }
}
