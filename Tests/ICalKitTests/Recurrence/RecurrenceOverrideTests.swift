import Testing
import ICalKit

/// Overrides (RECURRENCE-ID): moved into and out of the window, RANGE=THISANDFUTURE,
/// STATUS:CANCELLED, SEQUENCE versions and orphans. RFC 5545 §3.8.4.4.
@Suite struct RecurrenceOverrideTests {
    typealias Support = RecurrenceTestSupport

    static let master = Support.event(lines: ["DTSTART:20240101T090000Z", "DTEND:20240101T100000Z",
                                              "RRULE:FREQ=DAILY;COUNT=10", "SUMMARY:Standup"])

    static func override(_ recurrenceID: String, _ lines: String...) -> [String] {
        Support.event(lines: ["RECURRENCE-ID\(recurrenceID)"] + lines)
    }

    @Test func overrideMovedIntoTheWindowAppears() {
        let set = Support.set(Self.master + Self.override(":20240102T090000Z", "DTSTART:20240105T150000Z",
                                                           "DTEND:20240105T160000Z", "SUMMARY:Moved"))
        let occurrences = set.expand(in: Support.window("20240105T000000Z", "20240106T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240105T090000", "20240105T150000"])
        #expect(occurrences[1].isOverride)
        #expect(occurrences[1].recurrenceIdentifier.iCalendarText == "20240102T090000Z")
        #expect(occurrences[1].component[text: .summary] == "Moved")
        #expect(occurrences[0].component[text: .summary] == "Standup")
    }

    @Test func overrideMovedOutOfTheWindowDisappears() {
        let set = Support.set(Self.master + Self.override(":20240105T090000Z", "DTSTART:20240120T090000Z",
                                                           "DTEND:20240120T100000Z"))
        let inWindow = set.expand(in: Support.window("20240105T000000Z", "20240106T000000Z")).occurrences
        #expect(inWindow.isEmpty)
        let later = set.expand(in: Support.window("20240120T000000Z", "20240121T000000Z")).occurrences
        #expect(Support.starts(later) == ["20240120T090000"])
        #expect(later[0].recurrenceIdentifier.iCalendarText == "20240105T090000Z")
    }

    @Test func movedOverridesAreMergedInStartOrder() {
        let set = Support.set(Self.master + Self.override(":20240108T090000Z", "DTSTART:20240104T120000Z",
                                                           "DTEND:20240104T130000Z"))
        let occurrences = set.expand(in: Support.window("20240103T000000Z", "20240106T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240103T090000", "20240104T090000", "20240104T120000", "20240105T090000"])
    }

    @Test func overrideWithoutDatesInheritsTheInstance() {
        let set = Support.set(Self.master + Self.override(":20240103T090000Z", "SUMMARY:Only the title"))
        let occurrences = set.expand(in: Support.window("20240103T000000Z", "20240104T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240103T090000"])
        #expect(Support.ends(occurrences) == ["20240103T100000"])
        #expect(occurrences[0].isOverride)
    }

    @Test func cancelledOverrideRemovesItsInstance() {
        let set = Support.set(Self.master + Self.override(":20240103T090000Z", "STATUS:CANCELLED"))
        let occurrences = set.expand(in: Support.window("20240102T000000Z", "20240105T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240102T090000", "20240104T090000"])
    }

    @Test func thisAndFutureShiftsAndChangesLaterInstances() {
        let master = Support.event(lines: ["DTSTART;TZID=America/New_York:20240308T090000",
                                           "DTEND;TZID=America/New_York:20240308T100000",
                                           "RRULE:FREQ=DAILY;COUNT=6", "SUMMARY:Before"])
        let future = Self.override(";RANGE=THISANDFUTURE;TZID=America/New_York:20240309T090000",
                                   "DTSTART;TZID=America/New_York:20240309T110000", "DURATION:PT2H", "SUMMARY:After")
        let single = Self.override(";TZID=America/New_York:20240312T090000",
                                   "DTSTART;TZID=America/New_York:20240312T150000",
                                   "DTEND;TZID=America/New_York:20240312T153000", "SUMMARY:Single")
        let set = Support.set(master + future + single)
        let occurrences = set.expand(in: Support.window("20240301T000000Z", "20240401T000000Z")).occurrences
        // Later instances move by +2 h on the wall clock, across the DST change on 03-10.
        #expect(Support.starts(occurrences) == ["20240308T090000", "20240309T110000", "20240310T110000",
                                                "20240311T110000", "20240312T150000", "20240313T110000"])
        #expect(Support.ends(occurrences) == ["20240308T100000", "20240309T130000", "20240310T130000",
                                              "20240311T130000", "20240312T153000", "20240313T130000"])
        #expect(occurrences.map { $0.component[text: .summary] ?? "" } == ["Before", "After", "After", "After", "Single", "After"])
        #expect(occurrences.map(\.isOverride) == [false, true, true, true, true, true])
        #expect(occurrences[2].recurrenceIdentifier.local.iCalendarText == "20240310T090000")
    }

    @Test func thisAndFutureMovedEarlierPullsInstancesIntoTheWindow() {
        // Moving 2 days earlier: the instance of 01-07 starts 01-05 and is in the window,
        // while the original 01-05 instance now starts 01-03.
        let set = Support.set(Self.master + Self.override(";RANGE=THISANDFUTURE:20240104T090000Z",
                                                           "DTSTART:20240102T090000Z", "DTEND:20240102T100000Z"))
        let occurrences = set.expand(in: Support.window("20240105T000000Z", "20240106T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240105T090000"])
        #expect(occurrences.map(\.recurrenceIdentifier.iCalendarText) == ["20240107T090000Z"])
        let all = set.expand(in: Support.window("20240101T000000Z", "20240201T000000Z")).occurrences
        #expect(Support.starts(all) == ["20240101T090000", "20240102T090000", "20240102T090000", "20240103T090000",
                                        "20240103T090000", "20240104T090000", "20240105T090000", "20240106T090000",
                                        "20240107T090000", "20240108T090000"])
    }

    @Test func cancelledThisAndFutureEndsTheSeries() {
        let set = Support.set(Self.master + Self.override(";RANGE=THISANDFUTURE:20240104T090000Z", "STATUS:CANCELLED"))
        let occurrences = set.expand(in: Support.window("20240101T000000Z", "20240201T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240101T090000", "20240102T090000", "20240103T090000"])
    }

    @Test func highestSequenceWinsForMastersAndOverrides() {
        let uid = "versions@example.com"
        let newMaster = Support.event(lines: ["SEQUENCE:2", "DTSTART:20240101T090000Z", "RRULE:FREQ=DAILY;COUNT=2"], uid: uid)
        let oldMaster = Support.event(lines: ["SEQUENCE:1", "DTSTART:20240101T090000Z", "RRULE:FREQ=DAILY;COUNT=3"], uid: uid)
        let newOverride = Support.event(lines: ["RECURRENCE-ID:20240102T090000Z", "SEQUENCE:3",
                                                "DTSTART:20240102T120000Z", "SUMMARY:New"], uid: uid)
        let oldOverride = Support.event(lines: ["RECURRENCE-ID:20240102T090000Z", "SEQUENCE:0",
                                                "DTSTART:20240102T100000Z", "SUMMARY:Old"], uid: uid)
        for lines in [newMaster + oldMaster + newOverride + oldOverride, oldOverride + newOverride + oldMaster + newMaster] {
            let sets = Support.sets(lines)
            #expect(sets.count == 1)
            let occurrences = sets[0].expand(in: Support.window("20240101T000000Z", "20240201T000000Z")).occurrences
            #expect(Support.starts(occurrences) == ["20240101T090000", "20240102T120000"])
            #expect(occurrences[1].component[text: .summary] == "New")
            #expect(sets[0].overrides.count == 1)
        }
    }

    @Test func overrideTheMasterNoLongerGeneratesIsDropped() {
        // COUNT=10 ends on 01-10; an override of 01-20 (left from an older master) is dropped,
        // and so is an override of an instance the master excludes.
        let master = Support.event(lines: ["DTSTART:20240101T090000Z", "RRULE:FREQ=DAILY;COUNT=10", "EXDATE:20240104T090000Z"])
        let set = Support.set(master
            + Self.override(":20240120T090000Z", "DTSTART:20240105T150000Z")
            + Self.override(":20240104T090000Z", "DTSTART:20240105T160000Z"))
        let occurrences = set.expand(in: Support.window("20240105T000000Z", "20240106T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240105T090000"])
    }

    @Test func overridesWithoutMasterAreStandalone() {
        let set = Support.set(Self.override(":20240102T090000Z", "DTSTART:20240102T100000Z", "DTEND:20240102T110000Z")
            + Self.override(":20240103T090000Z", "DTSTART:20240103T090000Z", "STATUS:CANCELLED"))
        #expect(set.master == nil)
        let occurrences = set.expand(in: Support.window("20240101T000000Z", "20240201T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240102T100000"])
        #expect(occurrences[0].isOverride)
        #expect(occurrences[0].recurrenceIdentifier.iCalendarText == "20240102T090000Z")
    }

    @Test func allDaySeriesMatchesZonedRecurrenceIdentifierByDate() {
        // Outlook writes zoned RECURRENCE-IDs for all-day series.
        let master = Support.event(lines: ["DTSTART;VALUE=DATE:20240101", "RRULE:FREQ=DAILY;COUNT=5"])
        let set = Support.set(master + Self.override(";TZID=Europe/Berlin:20240103T000000",
                                                     "DTSTART;VALUE=DATE:20240110", "SUMMARY:Moved"))
        let occurrences = set.expand(in: Support.window("20240101T000000Z", "20240201T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240101", "20240102", "20240104", "20240105", "20240110"])
        #expect(Support.ends(occurrences) == ["20240102", "20240103", "20240105", "20240106", "20240111"])
        #expect(occurrences.allSatisfy { $0.isAllDay })
    }

    @Test func recurrenceIdentifierMatchesByInstantInAnyForm() {
        // A zoned series; overrides name their instances in UTC and in another zone.
        let master = Support.event(lines: ["DTSTART;TZID=Europe/Berlin:20240329T090000", "RRULE:FREQ=DAILY;COUNT=4"])
        let set = Support.set(master
            + Self.override(":20240330T080000Z", "DTSTART;TZID=Europe/Berlin:20240330T100000")
            + Self.override(";TZID=America/New_York:20240401T030000", "DTSTART;TZID=Europe/Berlin:20240401T110000"))
        let occurrences = set.expand(in: Support.window("20240301T000000Z", "20240501T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240329T090000", "20240330T100000", "20240331T090000", "20240401T110000"])
        #expect(occurrences.map(\.isOverride) == [false, true, false, true])
    }

    @Test func dateRecurrenceIdentifierInDateTimeSeriesMatchesThatDay() {
        let set = Support.set(Self.master + Self.override(";VALUE=DATE:20240103", "DTSTART:20240103T180000Z"))
        let occurrences = set.expand(in: Support.window("20240102T000000Z", "20240105T000000Z")).occurrences
        #expect(Support.starts(occurrences) == ["20240102T090000", "20240103T180000", "20240104T090000"])
    }
}
