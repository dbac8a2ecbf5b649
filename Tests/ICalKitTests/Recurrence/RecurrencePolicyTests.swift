import Testing
import ICalKit

/// The choices ICalKit makes where RFC 5545 is silent or the data is invalid, and the
/// libical errors it fixes. Each choice is described in the Recurrence article.
@Suite struct RecurrencePolicyTests {
    typealias Support = RecurrenceTestSupport

    static let window = Support.window("20240101T000000Z", "20280101T000000Z")

    static func starts(_ lines: String...) -> [String] {
        Support.starts(Support.set(Support.event(lines: lines)).expand(in: window).occurrences)
    }

    // MARK: DTSTART and COUNT

    @Test func offRuleStartIsAlwaysTheFirstInstance() {
        // 2024-06-12 is a Wednesday; libical drops it.
        #expect(Self.starts("DTSTART:20240612T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20240701T000000Z")
            == ["20240612T090000", "20240617T090000", "20240624T090000"])
    }

    @Test func offRuleStartCountsAsOneOfCount() {
        #expect(Self.starts("DTSTART:20240612T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3")
            == ["20240612T090000", "20240617T090000", "20240624T090000"])
        #expect(Self.starts("DTSTART:20240612T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=1") == ["20240612T090000"])
    }

    @Test func countCountsInstancesBeforeExceptionDates() {
        #expect(Self.starts("DTSTART:20240610T090000Z", "RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20240611T090000Z")
            == ["20240610T090000", "20240612T090000"])
    }

    // MARK: UNTIL

    @Test func utcUntilWithZonedStartComparesInstants() {
        // 2024-06-12 09:00 EDT is 13:00Z, after UNTIL.
        #expect(Self.starts("DTSTART;TZID=America/New_York:20240610T090000", "RRULE:FREQ=DAILY;UNTIL=20240612T125959Z")
            == ["20240610T090000", "20240611T090000"])
        #expect(Self.starts("DTSTART;TZID=America/New_York:20240610T090000", "RRULE:FREQ=DAILY;UNTIL=20240612T130000Z")
            == ["20240610T090000", "20240611T090000", "20240612T090000"])
    }

    @Test func localUntilWithZonedStartIsReadOnItsWallClock() {
        #expect(Self.starts("DTSTART;TZID=America/New_York:20240610T090000", "RRULE:FREQ=DAILY;UNTIL=20240612T090000")
            == ["20240610T090000", "20240611T090000", "20240612T090000"])
    }

    @Test func dateUntilIncludesTheWholeDay() {
        #expect(Self.starts("DTSTART;TZID=America/New_York:20240610T210000", "RRULE:FREQ=DAILY;UNTIL=20240612")
            == ["20240610T210000", "20240611T210000", "20240612T210000"])
        #expect(Self.starts("DTSTART;VALUE=DATE:20240610", "RRULE:FREQ=DAILY;UNTIL=20240612")
            == ["20240610", "20240611", "20240612"])
    }

    @Test func dateTimeUntilInAllDaySeriesComparesDates() {
        #expect(Self.starts("DTSTART;VALUE=DATE:20240610", "RRULE:FREQ=DAILY;UNTIL=20240612T000000") == ["20240610", "20240611", "20240612"])
        // A UTC UNTIL is dated in the floating zone: 2024-06-11T23:00Z is 06-12 in Berlin.
        let set = Support.set(Support.event(lines: ["DTSTART;VALUE=DATE:20240610", "RRULE:FREQ=DAILY;UNTIL=20240611T230000Z"]))
        #expect(Support.starts(set.expand(in: Self.window).occurrences) == ["20240610", "20240611"])
        #expect(Support.starts(set.expand(in: Self.window, floatingZone: Support.berlin).occurrences) == ["20240610", "20240611", "20240612"])
    }

    @Test func recurrenceDatePeriodEqualToStartKeepsTheSeriesLength() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240610T090000Z", "DTEND:20240610T100000Z",
                                                    "RDATE;VALUE=PERIOD:20240610T090000Z/PT5H,20240611T090000Z/PT5H"]))
        #expect(Support.ends(set.expand(in: Self.window).occurrences) == ["20240610T100000", "20240611T140000"])
    }

    @Test func overrideWithItsOwnStartButNoEndHasTheDefaultLength() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240610T090000Z", "DTEND:20240610T100000Z", "RRULE:FREQ=DAILY;COUNT=2"])
            + Support.event(lines: ["RECURRENCE-ID:20240611T090000Z", "DTSTART:20240611T120000Z"]))
        let occurrences = set.expand(in: Self.window).occurrences
        #expect(Support.ends(occurrences) == ["20240610T100000", "20240611T120000"])
        #expect(occurrences[1].isOverride && occurrences[1].end == occurrences[1].start)
    }

    @Test func thisAndPriorIsASingleInstanceOverride() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240610T090000Z", "RRULE:FREQ=DAILY;COUNT=3"])
            + Support.event(lines: ["RECURRENCE-ID;RANGE=THISANDPRIOR:20240611T090000Z", "DTSTART:20240611T120000Z"]))
        #expect(Support.starts(set.expand(in: Self.window).occurrences) == ["20240610T090000", "20240611T120000", "20240612T090000"])
    }

    @Test func startAfterUntilIsStillAnInstance() {
        #expect(Self.starts("DTSTART:20240610T090000Z", "RRULE:FREQ=DAILY;UNTIL=20240601T000000Z") == ["20240610T090000"])
    }

    // MARK: Ends

    @Test func endBeforeStartIsZeroLength() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240610T090000Z", "DTEND:20240610T080000Z", "RRULE:FREQ=DAILY;COUNT=2"]))
        let occurrences = set.expand(in: Self.window).occurrences
        #expect(occurrences.map(\.end) == occurrences.map(\.start))
        let negative = Support.set(Support.event(lines: ["DTSTART:20240610T090000Z", "DURATION:-PT1H"]))
        #expect(negative.expand(in: Self.window).occurrences.map(\.endInstant) == [Support.instant("20240610T090000Z")])
    }

    @Test func allDayEndOnOrBeforeStartLastsOneDay() {
        let set = Support.set(Support.event(lines: ["DTSTART;VALUE=DATE:20240610", "DTEND;VALUE=DATE:20240610"]))
        #expect(Support.ends(set.expand(in: Self.window).occurrences) == ["20240611"])
    }

    @Test func allDayWithoutEndLastsOneDayAndEndsExclusive() {
        let set = Support.set(Support.event(lines: ["DTSTART;VALUE=DATE:20240610", "RRULE:FREQ=DAILY;COUNT=2"]))
        let occurrences = set.expand(in: Self.window).occurrences
        #expect(Support.ends(occurrences) == ["20240611", "20240612"])
        // The day after is not touched: a window starting at the end excludes it.
        let next = set.expand(in: Support.window("20240612T000000Z", "20240613T000000Z")).occurrences
        #expect(next.isEmpty)
    }

    @Test func mixedDateAndDateTimeEndsAreCoercedToTheStartsType() {
        let dateStart = Support.set(Support.event(lines: ["DTSTART;VALUE=DATE:20240610", "DTEND:20240612T120000"]))
        #expect(Support.ends(dateStart.expand(in: Self.window).occurrences) == ["20240612"])
        let dateTimeStart = Support.set(Support.event(lines: ["DTSTART;TZID=America/New_York:20240610T090000",
                                                              "DTEND;VALUE=DATE:20240611"]))
        let occurrence = dateTimeStart.expand(in: Self.window).occurrences[0]
        #expect(occurrence.end == DateTime(iCalendar: "20240611T000000", timeZoneIdentifier: "America/New_York"))
    }

    @Test func todoEndsAtDue() {
        let todo = ["BEGIN:VTODO", "UID:todo@example.com", "DTSTART:20240610T090000Z", "DUE:20240610T110000Z",
                    "RRULE:FREQ=DAILY;COUNT=2", "END:VTODO"]
        let occurrences = Support.set(todo).expand(in: Self.window).occurrences
        #expect(occurrences.map { Support.utc($0.endInstant) } == ["20240610T110000Z", "20240611T110000Z"])
        let dueOnly = ["BEGIN:VTODO", "UID:due@example.com", "DUE:20240610T170000Z", "END:VTODO"]
        let single = Support.set(dueOnly).expand(in: Self.window).occurrences
        #expect(single.map { Support.utc($0.startInstant) } == ["20240610T170000Z"])
        #expect(single.map(\.end) == single.map(\.start))
    }

    // MARK: Window

    @Test func windowIntersection() {
        let zeroLength = Support.set(Support.event(lines: ["DTSTART:20240610T090000Z"]))
        #expect(zeroLength.expand(in: Support.window("20240610T090000Z", "20240610T100000Z")).occurrences.count == 1)
        #expect(zeroLength.expand(in: Support.window("20240610T080000Z", "20240610T090000Z")).occurrences.isEmpty)
        let hour = Support.set(Support.event(lines: ["DTSTART:20240610T090000Z", "DTEND:20240610T100000Z"]))
        #expect(hour.expand(in: Support.window("20240610T100000Z", "20240610T110000Z")).occurrences.isEmpty)
        #expect(hour.expand(in: Support.window("20240610T095959Z", "20240610T110000Z")).occurrences.count == 1)
        #expect(hour.expand(in: Support.window("20240610T080000Z", "20240610T090000Z")).occurrences.isEmpty)
        // A long occurrence that started before the window is in it.
        let long = Support.set(Support.event(lines: ["DTSTART:20240601T090000Z", "DURATION:P20D", "RRULE:FREQ=MONTHLY;COUNT=3"]))
        #expect(Support.starts(long.expand(in: Support.window("20240615T000000Z", "20240616T000000Z")).occurrences) == ["20240601T090000"])
    }

    @Test func floatingTimesStayFloatingAndAreReadInTheFloatingZone() {
        let set = Support.set(Support.event(lines: ["DTSTART:20240610T090000", "DTEND:20240610T100000", "RRULE:FREQ=DAILY;COUNT=2"]))
        let newYorkWindow = Support.window("20240610T130000Z", "20240610T130001Z")
        let inNewYork = set.expand(in: newYorkWindow, floatingZone: Support.newYork).occurrences
        #expect(Support.starts(inNewYork) == ["20240610T090000"])
        #expect(inNewYork[0].start.zone == .floating && inNewYork[0].startInstant == nil && inNewYork[0].endInstant == nil)
        #expect(set.expand(in: newYorkWindow).occurrences.isEmpty)  // read as UTC: 09:00Z
        #expect(set.expand(in: Support.window("20240610T090000Z", "20240610T090001Z")).occurrences.count == 1)
    }

    @Test func floatingSeriesAcrossAGapInTheFloatingZone() {
        // Read in New York, 02:30 on 2024-03-10 does not exist: it is ordered as 03:30 EDT but
        // stays floating 02:30, and 03:00 comes before it.
        let set = Support.set(Support.event(lines: ["DTSTART:20240310T013000", "RRULE:FREQ=MINUTELY;INTERVAL=45;COUNT=4"]))
        let occurrences = set.expand(in: Support.window("20240310T000000Z", "20240311T000000Z"), floatingZone: Support.newYork).occurrences
        #expect(Support.starts(occurrences) == ["20240310T013000", "20240310T030000", "20240310T021500", "20240310T034500"])
        #expect(occurrences.allSatisfy { $0.start.isFloating && $0.startInstant == nil })
    }

    @Test func unresolvedTimeZoneIsFloatingAndReported() {
        let set = Support.set(Support.event(lines: ["DTSTART;TZID=Mars/Olympus_Mons:20240610T090000", "RRULE:FREQ=DAILY;COUNT=2"]))
        #expect(set.unresolvedTimeZoneIdentifiers == ["Mars/Olympus_Mons"])
        let occurrences = set.expand(in: Self.window).occurrences
        #expect(occurrences.count == 2 && occurrences.allSatisfy { $0.startInstant == nil })
        #expect(occurrences[0].start.timeZoneIdentifier == "Mars/Olympus_Mons")
    }

    // MARK: libical errors fixed in Swift

    @Test func weeklySetPositionIsApplied() {
        #expect(Self.starts("DTSTART:20240607T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3")
            == ["20240607T090000", "20240614T090000", "20240621T090000"])
        #expect(Self.starts("DTSTART:20240603T090000Z", "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;BYSETPOS=1,-1;UNTIL=20240630T000000Z")
            == ["20240603T090000", "20240607T090000", "20240617T090000", "20240621T090000"])
    }

    @Test func weeklySetPositionWithoutCountJumpsToTheWindow() {
        let set = Support.set(Support.event(lines: ["DTSTART:20000103T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=2"]))
        let occurrences = set.expand(in: Support.window("20240601T000000Z", "20240620T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240604T090000", "20240611T090000", "20240618T090000"])
    }

    @Test func weekNumberWithSundayWeekStart() {
        // libical yields Tuesday 2024-12-31 here; week 1 of 2025 (weeks from Sunday) starts 2024-12-29.
        #expect(Self.starts("DTSTART:20241201T120000Z", "RRULE:FREQ=YEARLY;BYWEEKNO=1;BYDAY=SU;WKST=SU")
            == ["20241201T120000", "20241229T120000", "20260104T120000", "20270103T120000"])
    }

    @Test func duplicatesAreRemoved() {
        #expect(Self.starts("DTSTART:20240610T090000Z", "RRULE:FREQ=DAILY;COUNT=2", "RRULE:FREQ=DAILY;COUNT=2",
                            "RDATE:20240610T090000Z")
            == ["20240610T090000", "20240611T090000"])
    }

    @Test func severalRulesAreMerged() {
        // Each rule counts DTSTART (a Monday) as its first instance, so the Wednesday rule
        // adds one Wednesday.
        #expect(Self.starts("DTSTART:20240603T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2", "RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=2")
            == ["20240603T090000", "20240605T090000", "20240610T090000"])
        #expect(Self.starts("DTSTART:20240603T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20240611T000000Z",
                            "RRULE:FREQ=WEEKLY;BYDAY=WE;UNTIL=20240613T000000Z")
            == ["20240603T090000", "20240605T090000", "20240610T090000", "20240612T090000"])
    }

    @Test func unreadableRuleLeavesDTSTART() {
        #expect(Self.starts("DTSTART:20240610T090000Z", "RRULE:FREQ=FORTNIGHTLY") == ["20240610T090000"])
        #expect(Self.starts("DTSTART:20240610T090000Z", "EXRULE:FREQ=DAILY", "RRULE:FREQ=DAILY;COUNT=2")
            == ["20240610T090000", "20240611T090000"])
    }

    @Test func componentWithoutStartHasNoOccurrences() {
        #expect(Self.starts("SUMMARY:No start", "RRULE:FREQ=DAILY").isEmpty)
    }

    // MARK: Grouping

    @Test func groupingByKindAndUID() {
        let lines = Support.event(lines: ["DTSTART:20240610T090000Z"], uid: "a")
            + ["BEGIN:VTODO", "UID:a", "DUE:20240610T090000Z", "END:VTODO"]
            + Support.event(lines: ["DTSTART:20240611T090000Z"], uid: "b")
            + Support.event(lines: ["RECURRENCE-ID:20240610T090000Z", "DTSTART:20240610T100000Z"], uid: "a")
            + ["BEGIN:VJOURNAL", "DTSTART;VALUE=DATE:20240610", "END:VJOURNAL"]
        let sets = Support.sets(lines)
        #expect(sets.map(\.uid) == ["a", "a", "b", ""])
        #expect(sets[0].overrides.count == 1 && sets[0].master?.matches(.event) == true)
        #expect(sets[1].master?.matches(.todo) == true)
    }
}

/// libical 3.0.16 ignores WKST for WEEKLY;INTERVAL>1 rules whose DTSTART is not a BYDAY day
/// (found by `make conformance` against python-dateutil through recurring-ical-events).
@Suite struct RecurrenceWeeklyOffRuleStartTests {
    @Test(arguments: [
        // (rule, expected starts after DTSTART, a Wednesday)
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=SU;COUNT=4", ["20220504T144500", "20220508T144500", "20220522T144500", "20220605T144500"]),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=SU;COUNT=4;WKST=SU", ["20220504T144500", "20220515T144500", "20220529T144500", "20220612T144500"]),
        ("FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,TU;COUNT=3", ["20220504T144500", "20220523T144500", "20220524T144500"]),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=TH,SA;COUNT=3", ["20220504T144500", "20220505T144500", "20220507T144500"]),
    ])
    func offRuleStartFollowsWKST(_ rule: String, _ expected: [String]) {
        let set = RecurrenceTestSupport.set(RecurrenceTestSupport.event("DTSTART:20220504T144500Z", "RRULE:\(rule)"))
        let expansion = set.expand(in: RecurrenceTestSupport.window("20220101T000000Z", "20230101T000000Z"))
        #expect(RecurrenceTestSupport.starts(expansion.occurrences) == expected)
    }
}
