import Testing
import ICalKit

/// Series across daylight-saving gaps and overlaps in America/New_York, Europe/Berlin and
/// Australia/Sydney (2024), for daily, weekly and monthly rules, with DTEND-based (exact)
/// and DURATION-based (nominal days, exact hours) ends. RFC 5545 §3.3.5, §3.3.6, §3.8.5.3.
@Suite struct RecurrenceDaylightSavingTests {
    typealias Support = RecurrenceTestSupport

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var zone: String
        var lines: [String]
        /// "start wall clock, start UTC, end wall clock, end UTC" per occurrence.
        var expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // Gaps: 02:30 does not exist; it is read with the offset before the gap (03:30 after
        // it), and the series returns to 02:30 the next day (no drift).
        Case(name: "New York daily gap", zone: "America/New_York",
             lines: ["DTSTART;TZID=America/New_York:20240308T023000", "RRULE:FREQ=DAILY;COUNT=5"],
             expected: ["20240308T023000 20240308T073000Z 20240308T023000 20240308T073000Z",
                        "20240309T023000 20240309T073000Z 20240309T023000 20240309T073000Z",
                        "20240310T033000 20240310T073000Z 20240310T033000 20240310T073000Z",
                        "20240311T023000 20240311T063000Z 20240311T023000 20240311T063000Z",
                        "20240312T023000 20240312T063000Z 20240312T023000 20240312T063000Z"]),
        Case(name: "Berlin daily gap", zone: "Europe/Berlin",
             lines: ["DTSTART;TZID=Europe/Berlin:20240330T023000", "DTEND;TZID=Europe/Berlin:20240330T033000",
                     "RRULE:FREQ=DAILY;COUNT=3"],
             expected: ["20240330T023000 20240330T013000Z 20240330T033000 20240330T023000Z",
                        "20240331T033000 20240331T013000Z 20240331T043000 20240331T023000Z",
                        "20240401T023000 20240401T003000Z 20240401T033000 20240401T013000Z"]),
        Case(name: "Sydney daily gap", zone: "Australia/Sydney",
             lines: ["DTSTART;TZID=Australia/Sydney:20241005T023000", "DURATION:PT30M", "RRULE:FREQ=DAILY;COUNT=3"],
             expected: ["20241005T023000 20241004T163000Z 20241005T030000 20241004T170000Z",
                        "20241006T033000 20241005T163000Z 20241006T040000 20241005T170000Z",
                        "20241007T023000 20241006T153000Z 20241007T030000 20241006T160000Z"]),
        // Overlaps: a repeated time is its first occurrence.
        Case(name: "New York daily overlap", zone: "America/New_York",
             lines: ["DTSTART;TZID=America/New_York:20241102T013000", "RRULE:FREQ=DAILY;COUNT=3"],
             expected: ["20241102T013000 20241102T053000Z 20241102T013000 20241102T053000Z",
                        "20241103T013000 20241103T053000Z 20241103T013000 20241103T053000Z",
                        "20241104T013000 20241104T063000Z 20241104T013000 20241104T063000Z"]),
        Case(name: "Berlin daily overlap", zone: "Europe/Berlin",
             lines: ["DTSTART;TZID=Europe/Berlin:20241026T023000", "RRULE:FREQ=DAILY;COUNT=3"],
             expected: ["20241026T023000 20241026T003000Z 20241026T023000 20241026T003000Z",
                        "20241027T023000 20241027T003000Z 20241027T023000 20241027T003000Z",
                        "20241028T023000 20241028T013000Z 20241028T023000 20241028T013000Z"]),
        Case(name: "Sydney daily overlap", zone: "Australia/Sydney",
             lines: ["DTSTART;TZID=Australia/Sydney:20240406T023000", "RRULE:FREQ=DAILY;COUNT=3"],
             expected: ["20240406T023000 20240405T153000Z 20240406T023000 20240405T153000Z",
                        "20240407T023000 20240406T153000Z 20240407T023000 20240406T153000Z",
                        "20240408T023000 20240407T163000Z 20240408T023000 20240407T163000Z"]),
        // Weekly on the transition Sunday.
        Case(name: "New York weekly gap", zone: "America/New_York",
             lines: ["DTSTART;TZID=America/New_York:20240303T023000", "RRULE:FREQ=WEEKLY;BYDAY=SU;COUNT=3"],
             expected: ["20240303T023000 20240303T073000Z 20240303T023000 20240303T073000Z",
                        "20240310T033000 20240310T073000Z 20240310T033000 20240310T073000Z",
                        "20240317T023000 20240317T063000Z 20240317T023000 20240317T063000Z"]),
        Case(name: "Berlin weekly gap", zone: "Europe/Berlin",
             lines: ["DTSTART;TZID=Europe/Berlin:20240324T023000", "DTEND;TZID=Europe/Berlin:20240324T040000",
                     "RRULE:FREQ=WEEKLY;COUNT=3"],
             expected: ["20240324T023000 20240324T013000Z 20240324T040000 20240324T030000Z",
                        "20240331T033000 20240331T013000Z 20240331T050000 20240331T030000Z",
                        "20240407T023000 20240407T003000Z 20240407T040000 20240407T020000Z"]),
        Case(name: "Sydney weekly gap", zone: "Australia/Sydney",
             lines: ["DTSTART;TZID=Australia/Sydney:20240929T023000", "DURATION:P1D", "RRULE:FREQ=WEEKLY;COUNT=3"],
             expected: ["20240929T023000 20240928T163000Z 20240930T023000 20240929T163000Z",
                        "20241006T033000 20241005T163000Z 20241007T033000 20241006T163000Z",
                        "20241013T023000 20241012T153000Z 20241014T023000 20241013T153000Z"]),
        // Monthly.
        Case(name: "New York monthly gap", zone: "America/New_York",
             lines: ["DTSTART;TZID=America/New_York:20240210T023000", "RRULE:FREQ=MONTHLY;BYMONTHDAY=10;COUNT=3"],
             expected: ["20240210T023000 20240210T073000Z 20240210T023000 20240210T073000Z",
                        "20240310T033000 20240310T073000Z 20240310T033000 20240310T073000Z",
                        "20240410T023000 20240410T063000Z 20240410T023000 20240410T063000Z"]),
        Case(name: "Berlin monthly gap", zone: "Europe/Berlin",
             lines: ["DTSTART;TZID=Europe/Berlin:20240229T023000", "DURATION:PT1H", "RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3"],
             expected: ["20240229T023000 20240229T013000Z 20240229T033000 20240229T023000Z",
                        "20240331T033000 20240331T013000Z 20240331T043000 20240331T023000Z",
                        "20240430T023000 20240430T003000Z 20240430T033000 20240430T013000Z"]),
        Case(name: "Sydney monthly overlap", zone: "Australia/Sydney",
             lines: ["DTSTART;TZID=Australia/Sydney:20240303T023000", "DTEND;TZID=Australia/Sydney:20240303T033000",
                     "RRULE:FREQ=MONTHLY;BYDAY=1SU;COUNT=3"],
             expected: ["20240303T023000 20240302T153000Z 20240303T033000 20240302T163000Z",
                        "20240407T023000 20240406T153000Z 20240407T023000 20240406T163000Z",
                        "20240505T023000 20240504T163000Z 20240505T033000 20240504T173000Z"]),
        // Ends: DTEND gives an exact length (RFC 5545 §3.8.5.3): 10 h overnight stays 10 h.
        Case(name: "New York overnight DTEND exact", zone: "America/New_York",
             lines: ["DTSTART;TZID=America/New_York:20240308T220000", "DTEND;TZID=America/New_York:20240309T080000",
                     "RRULE:FREQ=DAILY;COUNT=3"],
             expected: ["20240308T220000 20240309T030000Z 20240309T080000 20240309T130000Z",
                        "20240309T220000 20240310T030000Z 20240310T090000 20240310T130000Z",
                        "20240310T220000 20240311T020000Z 20240311T080000 20240311T120000Z"]),
        // DURATION: P1D is a wall-clock day (23 h or 25 h), PT24H is 24 h.
        Case(name: "New York P1D", zone: "America/New_York",
             lines: ["DTSTART;TZID=America/New_York:20240309T090000", "DURATION:P1D", "RRULE:FREQ=DAILY;COUNT=2"],
             expected: ["20240309T090000 20240309T140000Z 20240310T090000 20240310T130000Z",
                        "20240310T090000 20240310T130000Z 20240311T090000 20240311T130000Z"]),
        Case(name: "New York PT24H", zone: "America/New_York",
             lines: ["DTSTART;TZID=America/New_York:20240309T090000", "DURATION:PT24H", "RRULE:FREQ=DAILY;COUNT=2"],
             expected: ["20240309T090000 20240309T140000Z 20240310T100000 20240310T140000Z",
                        "20240310T090000 20240310T130000Z 20240311T090000 20240311T130000Z"]),
        Case(name: "An impossible DTSTART (February 30) has no occurrences", zone: "Europe/Berlin",
             lines: ["DTSTART;TZID=Europe/Berlin:20240230T120000", "DURATION:P1D", "RRULE:FREQ=MONTHLY;COUNT=1"],
             expected: []),
        Case(name: "Berlin P1D monthly", zone: "Europe/Berlin",
             lines: ["DTSTART;TZID=Europe/Berlin:20240130T120000", "DURATION:P1D", "RRULE:FREQ=MONTHLY;BYMONTHDAY=30;COUNT=3"],
             expected: ["20240130T120000 20240130T110000Z 20240131T120000 20240131T110000Z",
                        "20240330T120000 20240330T110000Z 20240331T120000 20240331T100000Z",
                        "20240430T120000 20240430T100000Z 20240501T120000 20240501T100000Z"]),
        Case(name: "Berlin PT24H monthly", zone: "Europe/Berlin",
             lines: ["DTSTART;TZID=Europe/Berlin:20240130T120000", "DURATION:PT24H", "RRULE:FREQ=MONTHLY;BYMONTHDAY=30;COUNT=3"],
             expected: ["20240130T120000 20240130T110000Z 20240131T120000 20240131T110000Z",
                        "20240330T120000 20240330T110000Z 20240331T130000 20240331T110000Z",
                        "20240430T120000 20240430T100000Z 20240501T120000 20240501T100000Z"]),
        Case(name: "Sydney P1D over the overlap lasts 25 h", zone: "Australia/Sydney",
             lines: ["DTSTART;TZID=Australia/Sydney:20240406T120000", "DURATION:P1D", "RRULE:FREQ=WEEKLY;COUNT=1"],
             expected: ["20240406T120000 20240406T010000Z 20240407T120000 20240407T020000Z"]),
        Case(name: "Sydney PT24H over the overlap", zone: "Australia/Sydney",
             lines: ["DTSTART;TZID=Australia/Sydney:20240406T120000", "DURATION:PT24H", "RRULE:FREQ=WEEKLY;COUNT=1"],
             expected: ["20240406T120000 20240406T010000Z 20240407T110000 20240407T010000Z"]),
    ]

    @Test(arguments: cases)
    func series(_ testCase: Case) {
        let set = Support.set(Support.event(lines: testCase.lines))
        let expansion = set.expand(in: Support.window("20230101T000000Z", "20260101T000000Z"))
        #expect(expansion.truncation == nil)
        let actual = expansion.occurrences.map {
            "\($0.start.local.iCalendarText) \(Support.utc($0.startInstant)) \($0.end.local.iCalendarText) \(Support.utc($0.endInstant))"
        }
        #expect(actual == testCase.expected)
        for occurrence in expansion.occurrences {
            #expect(occurrence.start.zone == .identifier(testCase.zone))
            #expect(occurrence.end.zone == .identifier(testCase.zone))
        }
    }

    @Test func gapInstanceKeepsItsRecurrenceIdentifier() {
        let set = Support.set(Support.event(lines: ["DTSTART;TZID=America/New_York:20240308T023000", "RRULE:FREQ=DAILY;COUNT=3"]))
        let occurrences = set.expand(in: Support.window("20240301T000000Z", "20240401T000000Z")).occurrences
        #expect(occurrences.map(\.recurrenceIdentifier.local.iCalendarText) == ["20240308T023000", "20240309T023000", "20240310T023000"])
        #expect(occurrences[2].start.local.iCalendarText == "20240310T033000")
    }

    @Test func minutelyAcrossTheGapStaysInInstantOrder() {
        // 01:30 (06:30Z), 02:15 (in the gap: 07:15Z), 03:00 EDT (07:00Z), 03:45 EDT (07:45Z):
        // the moved 02:15 comes after 03:00.
        let set = Support.set(Support.event(lines: ["DTSTART;TZID=America/New_York:20240310T013000",
                                                    "RRULE:FREQ=MINUTELY;INTERVAL=45;COUNT=4"]))
        let occurrences = set.expand(in: Support.window("20240301T000000Z", "20240401T000000Z")).occurrences
        #expect(occurrences.map { Support.utc($0.startInstant) } == [
            "20240310T063000Z", "20240310T070000Z", "20240310T071500Z", "20240310T074500Z",
        ])
        #expect(occurrences.map(\.recurrenceIdentifier.local.iCalendarText) == [
            "20240310T013000", "20240310T030000", "20240310T021500", "20240310T034500",
        ])
    }

    @Test func gapTimesThatLandOnRealTimesAreOneInstance() {
        // 02:00 and 02:30 do not exist; read per RFC 5545 §3.3.5 they are 03:00 and 03:30 EDT,
        // the same instants as the rule's own 03:00 and 03:30: the set keeps one of each.
        let set = Support.set(Support.event(lines: ["DTSTART;TZID=America/New_York:20240310T013000",
                                                    "RRULE:FREQ=MINUTELY;INTERVAL=30;COUNT=6"]))
        let occurrences = set.expand(in: Support.window("20240301T000000Z", "20240401T000000Z")).occurrences
        #expect(occurrences.map { Support.utc($0.startInstant) } == [
            "20240310T063000Z", "20240310T070000Z", "20240310T073000Z", "20240310T080000Z",
        ])
    }
}
