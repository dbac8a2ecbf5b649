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
}
