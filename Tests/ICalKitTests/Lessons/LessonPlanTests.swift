import Testing
import ICalKit

/// The generated calendars, checked by expanding them again with ``OccurrenceQuery``.
@Suite struct LessonPlanTests {
    let berlin = IANATimeZone(named: "Europe/Berlin")!
    let stamp = DateTime(LocalDateTime(year: 2026, month: 8, day: 1, hour: 8)!, zone: .utc)

    func date(_ text: String) -> CalendarDate { try! LessonText.date(text) }

    func piano(_ end: LessonPlan.End = .until(try! LessonText.date("2026-12-18")), zone: String? = "Europe/Berlin",
               interval: Int = 1) -> LessonPlan {
        LessonPlan(from: date("2026-09-07"), end: end, timeZoneIdentifier: zone, slots: [
            LessonPlan.Slot(title: "Piano", location: "Room 12", weekdays: [.tuesday, .thursday],
                            time: TimeOfDay(hour: 16, minute: 0)!, length: Duration(minutes: 45), interval: interval),
        ])
    }

    /// Every occurrence of the calendar in 2026 and 2027, read in Berlin.
    func occurrences(_ calendar: Component) -> [OccurrenceQuery.Match] {
        let window = berlin.instant(for: LocalDateTime(year: 2026, month: 1, day: 1)!)
            ..< berlin.instant(for: LocalDateTime(year: 2028, month: 1, day: 1)!)
        let result = OccurrenceQuery(window: window, floatingZone: berlin).run([OccurrenceQuery.Source(calendar: calendar)])
        #expect(result.diagnostics.isEmpty)
        return result.matches
    }

    /// The days from `first` through `last` on the weekdays (ISO numbers), holidays left out.
    func expectedDays(_ first: String, _ last: String, weekdays: Set<Int>, except holidays: Set<CalendarDate> = []) -> [CalendarDate] {
        var days: [CalendarDate] = []
        var day = date(first)
        while day <= date(last) {
            if weekdays.contains(day.isoWeekday) && !holidays.contains(day) { days.append(day) }
            day = day.adding(days: 1)
        }
        return days
    }

    func localDays(_ matches: [OccurrenceQuery.Match]) -> [CalendarDate] {
        matches.map { berlin.local(at: $0.startInstant).date }
    }

    @Test func everyLessonIsOnItsWeekdayAtItsWallClockTimeAcrossTheDSTChange() throws {
        let generated = try piano().generate(stamp: stamp)
        let matches = occurrences(generated.calendar)
        #expect(localDays(matches) == expectedDays("2026-09-07", "2026-12-18", weekdays: [2, 4]))
        for match in matches {
            let local = berlin.local(at: match.startInstant)
            #expect(local.time == TimeOfDay(hour: 16, minute: 0)!)
            #expect(match.endInstant - match.startInstant == 45 * 60)
        }
        // Summer time before 25 October, winter time after: the UTC hour moves, the wall clock does not.
        let utcHours = Set(matches.map { LocalDateTime(secondsSinceEpoch: $0.startInstant).time.hour })
        #expect(utcHours == [14, 15])
    }

    @Test func untilIsTheLastLessonInUTCAndDTStartIsTheFirst() throws {
        let event = try #require(try piano().generate(stamp: stamp).calendar.components(.event).first)
        let rule = try #require(event.recurrenceRules.first)
        #expect(rule.until == DateTime(LocalDateTime(year: 2026, month: 12, day: 17, hour: 15)!, zone: .utc))
        #expect(rule.count == nil)
        #expect(rule.byDay.map(\.weekday) == [.tuesday, .thursday])
        #expect(event.dateTimeStart == DateTime(LocalDateTime(year: 2026, month: 9, day: 8, hour: 16)!, zone: .identifier("Europe/Berlin")))
        #expect(event.dateTimeEnd == DateTime(LocalDateTime(year: 2026, month: 9, day: 8, hour: 16, minute: 45)!, zone: .identifier("Europe/Berlin")))
        #expect(event.dateTimeStamp == stamp)
        #expect(event.location == "Room 12")
    }

    static let holidayCalendar = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Test//EN\r
        BEGIN:VEVENT\r
        UID:yearly\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;VALUE=DATE:20201006\r
        RRULE:FREQ=YEARLY\r
        SUMMARY:A yearly holiday, a Tuesday in 2026\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:break\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;VALUE=DATE:20261019\r
        DTEND;VALUE=DATE:20261031\r
        SUMMARY:Autumn break (through Friday the 30th)\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:overnight\r
        DTSTAMP:20260101T000000Z\r
        DTSTART:20261112T210000Z\r
        DTEND:20261113T010000Z\r
        SUMMARY:22:00 to 02:00 in Berlin, Thursday and Friday\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:to-midnight\r
        DTSTAMP:20260101T000000Z\r
        DTSTART:20261116T190000Z\r
        DTEND:20261116T230000Z\r
        SUMMARY:Monday until midnight in Berlin: Tuesday is free\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    func holidays() throws -> LessonHolidays {
        var holidays = LessonHolidays()
        let calendar = try #require(try ICalReader().read(Self.holidayCalendar).calendars.first)
        holidays.add(calendar: calendar, name: "holidays.ics")
        holidays.insert(date("2026-11-26"))
        holidays.insert(date("2026-12-08")...date("2026-12-10"))
        return holidays
    }

    /// The days the holidays above take from Tuesday and Thursday lessons.
    var holidayLessonDays: Set<CalendarDate> {
        Set(["2026-10-06", "2026-10-20", "2026-10-22", "2026-10-27", "2026-10-29", "2026-11-12", "2026-11-26",
             "2026-12-08", "2026-12-10"].map(date))
    }

    @Test func holidaysAreLeftOutAsExceptionDates() throws {
        var plan = piano()
        plan.holidays = try holidays()
        let generated = try plan.generate(stamp: stamp)
        let matches = occurrences(generated.calendar)
        #expect(localDays(matches) == expectedDays("2026-09-07", "2026-12-18", weekdays: [2, 4], except: holidayLessonDays))
        #expect(localDays(matches).contains(date("2026-11-17")))
        let event = try #require(generated.calendar.components(.event).first)
        #expect(Set(event.exceptionDates.map(\.date)) == holidayLessonDays)
        #expect(event.exceptionDates.allSatisfy { $0.zone == .identifier("Europe/Berlin") && $0.local.time == TimeOfDay(hour: 16, minute: 0)! })
    }

    @Test func countCountsLessonsHeld() throws {
        var plan = piano(.count(12))
        plan.holidays = try holidays()
        plan.from = date("2026-10-01")
        let generated = try plan.generate(stamp: stamp)
        let matches = occurrences(generated.calendar)
        #expect(matches.count == 12)
        // From Thursday 1 October: 1, 8, 13, 15 (6 is a holiday), the break, then 3, 5, 10, 17, 19, 24 November.
        #expect(localDays(matches) == ["2026-10-01", "2026-10-08", "2026-10-13", "2026-10-15", "2026-11-03", "2026-11-05",
                                       "2026-11-10", "2026-11-17", "2026-11-19", "2026-11-24", "2026-12-01", "2026-12-03"].map(date))
        let rule = try #require(generated.calendar.components(.event).first?.recurrenceRules.first)
        #expect(rule.count == 12 + 7)
        #expect(rule.until == nil)
    }

    @Test func dtStartIsTheFirstLessonHeld() throws {
        var plan = piano(.count(3))
        plan.holidays.insert(date("2026-09-08")...date("2026-09-10"))
        let event = try #require(try plan.generate(stamp: stamp).calendar.components(.event).first)
        #expect(event.dateTimeStart?.date == date("2026-09-15"))
        #expect(event.exceptionDates.isEmpty)
        #expect(event.recurrenceRules.first?.count == 3)
    }

    @Test func everyOtherWeekStaysInPhase() throws {
        var plan = piano(interval: 2)
        plan.holidays.insert(date("2026-09-08"))
        let generated = try plan.generate(stamp: stamp)
        let days = localDays(occurrences(generated.calendar))
        // Week 0 is the week of Tuesday 8 September; Thursday 10 is the first lesson held.
        #expect(days.first == date("2026-09-10"))
        #expect(Array(days.prefix(5)) == ["2026-09-10", "2026-09-22", "2026-09-24", "2026-10-06", "2026-10-08"].map(date))
        #expect(days.allSatisfy { ($0.daysSinceEpoch - date("2026-09-07").daysSinceEpoch) / 7 % 2 == 0 })
        let rule = try #require(generated.calendar.components(.event).first?.recurrenceRules.first)
        #expect(rule.interval == 2)
        #expect(rule.weekStart == .monday)
    }

    @Test func floatingLessonsHaveNoZone() throws {
        let generated = try piano(zone: nil).generate(stamp: stamp)
        #expect(generated.calendar.components(.timeZone).isEmpty)
        let event = try #require(generated.calendar.components(.event).first)
        #expect(event.dateTimeStart?.zone == .floating)
        #expect(event.recurrenceRules.first?.until == DateTime(LocalDateTime(year: 2026, month: 12, day: 17, hour: 16)!, zone: .floating))
        #expect(localDays(occurrences(generated.calendar)).count == 30)
    }

    @Test func alarmsGoOffBeforeTheLesson() throws {
        var plan = piano()
        plan.alarms = [Duration(minutes: 15), Duration(days: 1), Duration(minutes: 15)]
        let event = try #require(try plan.generate(stamp: stamp).calendar.components(.event).first)
        let alarms = event.components(.alarm)
        #expect(alarms.map(\.trigger) == [.relative(Duration(isNegative: true, minutes: 15), relatedTo: .start),
                                          .relative(Duration(isNegative: true, days: 1), relatedTo: .start)])
        #expect(alarms.allSatisfy { $0.action == .display && $0.descriptionText == "Piano" })
    }

    @Test func theCalendarIsStrictlyValidWithItsTimeZone() throws {
        var plan = piano()
        plan.holidays = try holidays()
        plan.alarms = [Duration(minutes: 15)]
        let text = ICalWriter().string(try plan.generate(stamp: stamp).calendar)
        let reread = try ICalReader(mode: .strict).read(text)
        #expect(reread.diagnostics.isEmpty)
        #expect(reread.calendars.first?.components(.timeZone).count == 1)
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"))
        #expect(text.contains("RRULE:FREQ=WEEKLY;UNTIL=20261217T150000Z;BYDAY=TU,TH\r\n"))
    }

    @Test func uidsAreStableAndFollowTheSlot() throws {
        func uid(_ plan: LessonPlan, stamp: DateTime? = nil) throws -> String {
            try #require(try plan.generate(stamp: stamp ?? self.stamp).calendar.components(.event).first?.uid)
        }
        let first = try uid(piano())
        #expect(first.hasPrefix("lesson-") && first.hasSuffix("@openeventkit"))
        #expect(try uid(piano()) == first)
        #expect(try uid(piano(), stamp: DateTime(LocalDateTime(year: 2027, month: 1, day: 1)!, zone: .utc)) == first)
        var moved = piano(.count(4))
        moved.slots[0].location = "Hall"
        moved.slots[0].length = Duration(hours: 1)
        #expect(try uid(moved) == first)
        var reordered = piano()
        reordered.slots[0].weekdays = [.thursday, .tuesday, .thursday]
        #expect(try uid(reordered) == first)
        var later = piano()
        later.slots[0].time = TimeOfDay(hour: 17, minute: 0)!
        #expect(try uid(later) != first)
        #expect(try uid(piano(zone: "Europe/London")) != first)
        let text = ICalWriter().string(try piano().generate(stamp: stamp).calendar)
        #expect(ICalWriter().string(try piano().generate(stamp: stamp).calendar) == text)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var name: String
        var change: @Sendable (inout LessonPlan) -> Void
        var message: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        ErrorCase(name: "unknown zone", change: { $0.timeZoneIdentifier = "Mars/Olympus" },
                  message: "unknown time zone 'Mars/Olympus': use an IANA name such as Europe/Berlin"),
        ErrorCase(name: "until before from", change: { $0.end = .until(CalendarDate(year: 2026, month: 9, day: 1)!) },
                  message: "until (2026-09-01) is before from (2026-09-07)"),
        ErrorCase(name: "no weekdays", change: { $0.slots[0].weekdays = [] }, message: "'Piano' has no weekdays"),
        ErrorCase(name: "no slots", change: { $0.slots = [] }, message: "no lessons are described"),
        ErrorCase(name: "only holidays", change: { $0.holidays.insert(CalendarDate(year: 2026, month: 9, day: 1)!...CalendarDate(year: 2027, month: 1, day: 1)!) },
                  message: "'Piano' has no lessons between 2026-09-07 and 2026-12-18: every lesson day is a holiday"),
        ErrorCase(name: "no weekday in the term", change: { $0.end = .until(CalendarDate(year: 2026, month: 9, day: 7)!) },
                  message: "'Piano' has no lessons: none of its weekdays falls between 2026-09-07 and 2026-09-07"),
        ErrorCase(name: "every day a holiday, counted", change: {
                      $0.end = .count(2)
                      var holidays = LessonHolidays()
                      holidays.insert(CalendarDate(year: 2026, month: 1, day: 1)!...CalendarDate(year: 2400, month: 1, day: 1)!)
                      $0.holidays = holidays
                  },
                  message: "'Piano' has no lessons from 2026-09-07 on: every lesson day is a holiday"),
        ErrorCase(name: "same slot twice", change: { $0.slots.append($0.slots[0]) },
                  message: "'Piano' repeats the lessons of an earlier slot: same title, days, time and zone"),
    ])
    func invalidPlansThrow(_ testCase: ErrorCase) {
        var plan = piano()
        testCase.change(&plan)
        #expect(throws: ICalError(.invalidArgument, testCase.message)) { try plan.generate(stamp: stamp) }
    }
}
