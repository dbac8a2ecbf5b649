import Testing
import ICalKit

/// ``LessonText`` and reading plans from YAML specifications.
@Suite struct LessonSpecificationTests {
    let stamp = DateTime(LocalDateTime(year: 2026, month: 8, day: 1, hour: 8)!, zone: .utc)
    static let samples = String(#filePath.prefix(upTo: #filePath.range(of: "/Tests/")!.lowerBound)) + "/samples/calendars"

    @Test func weekdaysInAnySpelling() throws {
        #expect(try LessonText.weekdays("TU,TH") == [.tuesday, .thursday])
        #expect(try LessonText.weekdays("thursday, tue mo") == [.monday, .tuesday, .thursday])
        #expect(try LessonText.weekdays("Su,SU,sun") == [.sunday])
        #expect(throws: ICalError(.invalidArgument, "'XX' is not a weekday: use MO, TU, WE, TH, FR, SA, SU (or Monday, Mon, ...)")) {
            try LessonText.weekdays("TU,XX")
        }
        #expect(throws: ICalError.self) { try LessonText.weekdays(" , ") }
    }

    @Test func timesOfDay() throws {
        #expect(try LessonText.timeOfDay("16:00") == TimeOfDay(hour: 16, minute: 0))
        #expect(try LessonText.timeOfDay("9:05") == TimeOfDay(hour: 9, minute: 5))
        #expect(try LessonText.timeOfDay("07:30:15") == TimeOfDay(hour: 7, minute: 30, second: 15))
        for bad in ["25:00", "16", "16:0", "16:60", "4pm", "", "16:00:60"] {
            #expect(throws: ICalError.self, "\(bad)") { try LessonText.timeOfDay(bad) }
        }
    }

    @Test func lengths() throws {
        #expect(try LessonText.duration("45m") == Duration(minutes: 45))
        #expect(try LessonText.duration("1h30m") == Duration(hours: 1, minutes: 30))
        #expect(try LessonText.duration("2H") == Duration(hours: 2))
        #expect(try LessonText.duration("1d") == Duration(days: 1))
        #expect(try LessonText.duration("PT45M") == Duration(minutes: 45))
        for bad in ["45", "m", "30m1h", "0m", "45x", "-PT5M", "1h 30m", ""] {
            #expect(throws: ICalError.self, "\(bad)") { try LessonText.duration(bad) }
        }
    }

    @Test func datesAndRanges() throws {
        #expect(try LessonText.date("2026-09-07") == CalendarDate(year: 2026, month: 9, day: 7))
        #expect(try LessonText.date("20260907") == CalendarDate(year: 2026, month: 9, day: 7))
        #expect(try LessonText.dateRange("2026-10-19..2026-10-30") == CalendarDate(year: 2026, month: 10, day: 19)!...CalendarDate(year: 2026, month: 10, day: 30)!)
        for bad in ["2026-02-30", "2026-9-7", "07.09.2026", "tomorrow"] {
            #expect(throws: ICalError.self, "\(bad)") { try LessonText.date(bad) }
        }
        #expect(throws: ICalError(.invalidArgument, "'2026-10-30..2026-10-19' ends before it starts")) {
            try LessonText.dateRange("2026-10-30..2026-10-19")
        }
    }

    @Test func theSampleTermSpecification() throws {
        let (plan, diagnostics) = try LessonPlan.read(contentsOfSpecificationFile: Self.samples + "/term.yaml",
                                                      defaultTimeZoneIdentifier: nil)
        #expect(diagnostics.isEmpty)
        #expect(plan.name == "Music school, autumn term 2026")
        #expect(plan.timeZoneIdentifier == "Europe/Berlin")
        #expect(plan.from == CalendarDate(year: 2026, month: 9, day: 7))
        #expect(plan.end == .until(CalendarDate(year: 2026, month: 12, day: 18)!))
        #expect(plan.alarms == [Duration(minutes: 15)])
        #expect(plan.slots.map(\.title) == ["Piano", "Music theory"])
        #expect(plan.slots[0].weekdays == [.tuesday, .thursday])
        #expect(plan.slots[0].teacher == "Ms Keys")
        #expect(plan.slots[0].location == "Room 12")
        #expect(plan.slots[0].sourceLine == 17)
        #expect(plan.slots[1].interval == 2)
        #expect(plan.slots[1].length == Duration(hours: 1, minutes: 30))
        #expect(plan.slots[1].alarms == [Duration(hours: 1), Duration(minutes: 10)])
        #expect(plan.holidays.calendars.count == 1)
        #expect(plan.holidays.ranges.count == 2)

        let generated = try plan.generate(stamp: stamp)
        let berlin = IANATimeZone(named: "Europe/Berlin")!
        let window = berlin.instant(for: LocalDateTime(year: 2026, month: 9, day: 1)!)..<berlin.instant(for: LocalDateTime(year: 2027, month: 1, day: 1)!)
        let matches = OccurrenceQuery(window: window, floatingZone: berlin).run([OccurrenceQuery.Source(calendar: generated.calendar)]).matches
        let theory = matches.filter { $0.occurrence.component.summary == "Music theory" }.map { berlin.local(at: $0.startInstant).date.description }
        // Every other Wednesday from 9 September; the autumn break, the training day and exams left out.
        #expect(theory == ["2026-09-09", "2026-09-23", "2026-10-07", "2026-11-04", "2026-12-02"])
        let piano = matches.filter { $0.occurrence.component.summary == "Piano" }
        #expect(piano.count == 30 - 6)
        let events = generated.calendar.components(.event)
        #expect(events[0].descriptionText == "Teacher: Ms Keys\nBring your exercise book.")
        #expect(events[1].components(.alarm).count == 2)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var yaml: String
        var error: String
        var testDescription: String { error }
    }

    static let slot = "lessons:\n  - {title: Piano, days: TU, time: \"16:00\", length: 45m}\n"

    @Test(arguments: [
        ErrorCase(yaml: "term:\n  from: 2026-09-07\n  until: 2026-12-18\nlessons:\n  - title: Piano\n    days: [TU, TH]\n    time: \"25:00\"\n    length: 45m\n",
                  error: "term.yaml:7: lessons[0].time: '25:00' is not a time of day: use HH:MM on a 24-hour clock, such as 16:00 or 9:30"),
        ErrorCase(yaml: "term:\n  from: 2026-09-07\n  untill: 2026-12-18\n" + slot,
                  error: "term.yaml:3: term: unknown key 'untill' (known: from, until, count)"),
        ErrorCase(yaml: "term:\n  from: 2026-09-07\n  until: 2026-12-18\n  count: 4\n" + slot,
                  error: "term.yaml:4: term.count: cannot be given together with term.until"),
        ErrorCase(yaml: "term:\n  from: 2026-09-07\n  until: 2026-09-01\n" + slot,
                  error: "term.yaml:3: term.until: 2026-09-01 is before term.from (2026-09-07)"),
        ErrorCase(yaml: "timezone: floating\nterm: {from: 2026-09-07, count: 3}\n" + slot,
                  error: "term.yaml:1: timezone: floating is not a zone: write floating: true instead"),
        ErrorCase(yaml: "term: {from: 2026-09-07, count: 3}\nholidays:\n  - {from: 2026-10-30, until: 2026-10-19}\n" + slot,
                  error: "term.yaml:3: holidays[0].until: 2026-10-19 is before holidays[0].from (2026-10-30)"),
        ErrorCase(yaml: "term: {from: 2026-09-07, count: 3}\nholidays:\n  - {when: 2026-10-30}\n" + slot,
                  error: "term.yaml:3: holidays[0]: unknown key 'when' (known: date, from, until, file, name)"),
        ErrorCase(yaml: "term: {from: 2026-09-07, count: 3}\ncolour: red\n" + slot,
                  error: "term.yaml:2: the specification: unknown key 'colour' (known: name, timezone, floating, term, alarms, holidays, lessons)"),
        ErrorCase(yaml: "timezone: Mars/Olympus\nterm: {from: 2026-09-07, count: 3}\n" + slot,
                  error: "term.yaml:1: timezone: unknown time zone 'Mars/Olympus': use an IANA name such as Europe/Berlin"),
        ErrorCase(yaml: "term: {from: 2026-09-07, count: 3}\nlessons:\n  - {title: Piano, time: \"16:00\", length: 45m}\n",
                  error: "term.yaml:3: lessons[0].days: is missing"),
        ErrorCase(yaml: "term: {from: 2026-09-07, count: 3}\nlessons:\n  - {title: Piano, days: [], time: \"16:00\", length: 45m}\n",
                  error: "term.yaml:3: lessons[0].days: no weekdays given: use codes such as MO,WE or TU,TH"),
        ErrorCase(yaml: "term: {from: 2026-09-07, count: 3}\nholidays:\n  - 2026-10-33\n" + slot,
                  error: "term.yaml:3: holidays[0]: '2026-10-33' is not a date that exists"),
        ErrorCase(yaml: "term: {from: 2026-09-07, count: 3}\nholidays:\n  - file: no-such-file.ics\n" + slot,
                  error: "term.yaml:3: holidays[0].file: 'no-such-file.ics' cannot be used: cannot open: No such file or directory"),
        ErrorCase(yaml: "term:\n  from: 2026-09-07\n   until: [\n",
                  error: "term.yaml:3: not valid YAML: mapping values are not allowed in this context"),
        ErrorCase(yaml: "lessons: []\n", error: "term.yaml:1: term: is missing: give term.from and term.until or term.count"),
        ErrorCase(yaml: "", error: "term.yaml:1: the specification is empty: it needs term and lessons"),
        ErrorCase(yaml: "term: {from: 2026-09-07, count: 3}\nlessons:\n  - {title: Piano, days: TU, time: \"16:00\", length: 45m, every: 0}\n",
                  error: "term.yaml:3: lessons[0].every: '0' is not a whole number from 1 to 5000"),
    ])
    func invalidSpecificationsNameFileLineAndKey(_ testCase: ErrorCase) {
        do {
            _ = try LessonPlan.read(specification: testCase.yaml, file: "term.yaml", directory: "/nonexistent",
                                    defaultTimeZoneIdentifier: "Europe/Berlin")
            Issue.record("no error for \(testCase.yaml)")
        } catch {
            #expect(error.description == testCase.error)
        }
    }

    @Test func withoutAZoneTheDefaultOrFloating() throws {
        let term = "term: {from: 2026-09-07, count: 3}\n" + Self.slot
        #expect(try LessonPlan.read(specification: term, defaultTimeZoneIdentifier: "Asia/Tokyo").plan.timeZoneIdentifier == "Asia/Tokyo")
        #expect(try LessonPlan.read(specification: "floating: true\n" + term, defaultTimeZoneIdentifier: "Asia/Tokyo").plan.timeZoneIdentifier == nil)
        #expect(throws: ICalError.self) { try LessonPlan.read(specification: term, defaultTimeZoneIdentifier: nil) }
    }
}
