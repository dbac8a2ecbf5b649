import Testing
import ICalKit

/// RDATE and EXDATE in every form. RFC 5545 §3.8.5.1, §3.8.5.2.
@Suite struct RecurrenceDateTests {
    typealias Support = RecurrenceTestSupport

    static let window = Support.window("20240601T000000Z", "20240701T000000Z")

    @Test func recurrenceDatesInEveryForm() {
        let set = Support.set(Support.event(lines: [
            "DTSTART;TZID=America/New_York:20240610T090000", "DTEND;TZID=America/New_York:20240610T100000",
            "RRULE:FREQ=DAILY;COUNT=2",
            "RDATE:20240620T130000Z,20240618T130000Z",  // unsorted
            "RDATE;TZID=America/New_York:20240612T080000",  // libical reads this as 08:00Z
            "RDATE:20240613T150000Z",
            "RDATE:20240614T070000",  // floating: read in DTSTART's zone
            "RDATE;VALUE=DATE:20240615",  // gets DTSTART's time of day
            "RDATE;VALUE=PERIOD:20240616T130000Z/20240616T170000Z",
            "RDATE;VALUE=PERIOD;TZID=America/New_York:20240617T090000/PT30M",
            "RDATE;TZID=America/New_York:20240610T090000,20240611T090000",  // duplicates of DTSTART and the rule
        ]))
        let occurrences = set.expand(in: Self.window).occurrences
        #expect(occurrences.map { Support.utc($0.startInstant) } == [
            "20240610T130000Z", "20240611T130000Z", "20240612T120000Z", "20240613T150000Z", "20240614T110000Z",
            "20240615T130000Z", "20240616T130000Z", "20240617T130000Z", "20240618T130000Z", "20240620T130000Z",
        ])
        #expect(occurrences.map { Support.utc($0.endInstant) } == [
            "20240610T140000Z", "20240611T140000Z", "20240612T130000Z", "20240613T160000Z", "20240614T120000Z",
            "20240615T140000Z", "20240616T170000Z", "20240617T133000Z", "20240618T140000Z", "20240620T140000Z",
        ])
        #expect(occurrences[2].start == DateTime(iCalendar: "20240612T080000", timeZoneIdentifier: "America/New_York"))
        #expect(occurrences[3].start.zone == .utc)
        // The RECURRENCE-ID of an RDATE instance is in DTSTART's zone.
        #expect(occurrences[3].recurrenceIdentifier == DateTime(iCalendar: "20240613T110000", timeZoneIdentifier: "America/New_York"))
    }

    @Test func allDayRecurrenceDates() {
        let set = Support.set(Support.event(lines: [
            "DTSTART;VALUE=DATE:20240610", "RDATE;VALUE=DATE:20240615,20240612", "RDATE:20240620T150000",
            "RDATE;VALUE=PERIOD:20240625T000000/P3D",
        ]))
        let occurrences = set.expand(in: Self.window).occurrences
        #expect(Support.starts(occurrences) == ["20240610", "20240612", "20240615", "20240620", "20240625"])
        #expect(Support.ends(occurrences) == ["20240611", "20240613", "20240616", "20240621", "20240628"])
        #expect(occurrences.allSatisfy { $0.isAllDay && $0.startInstant == nil })
    }

    @Test func exceptionDatesInEveryForm() {
        let set = Support.set(Support.event(lines: [
            "DTSTART;TZID=America/New_York:20240610T090000", "RRULE:FREQ=DAILY;COUNT=7",
            "EXDATE;TZID=America/New_York:20240611T090000",
            "EXDATE:20240612T130000Z",  // the same instant as 09:00 EDT
            "EXDATE:20240613T090000",  // floating: read in DTSTART's zone
            "EXDATE;VALUE=DATE:20240614",  // the whole day
            "EXDATE:20240615T090000Z",  // 05:00 EDT: matches nothing
        ]))
        let occurrences = set.expand(in: Self.window).occurrences
        #expect(Support.starts(occurrences) == ["20240610T090000", "20240615T090000", "20240616T090000"])
    }

    @Test func exceptionDatesInAllDaySeriesMatchByDate() {
        let set = Support.set(Support.event(lines: [
            "DTSTART;VALUE=DATE:20240610", "RRULE:FREQ=DAILY;COUNT=6",
            "EXDATE;VALUE=DATE:20240611", "EXDATE;TZID=Europe/Berlin:20240612T000000", "EXDATE:20240613T090000",
        ]))
        let occurrences = set.expand(in: Self.window).occurrences
        #expect(Support.starts(occurrences) == ["20240610", "20240614", "20240615"])
    }

    @Test func exceptionDateRemovesDTSTARTAndRecurrenceDates() {
        let set = Support.set(Support.event(lines: [
            "DTSTART:20240610T090000Z", "RDATE:20240612T090000Z,20240613T090000Z",
            "EXDATE:20240610T090000Z,20240613T090000Z",
        ]))
        #expect(Support.starts(set.expand(in: Self.window).occurrences) == ["20240612T090000"])
    }
}
