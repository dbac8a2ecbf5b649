import Foundation
import Testing
import OpenEventKit

/// EKEventStore's behaviour through the public API: calendars, saving, fetching, spans on
/// recurring series, batches. Times are UTC (make test pins TZ=UTC).
@Suite struct EventStoreSemanticsTests {
    // MARK: A new store

    @Test func newStoreHasDefaultCalendarAndReminderList() throws {
        let test = try TestStore()
        let store = test.store
        #expect(store.sources.count == 1)
        #expect(store.sources.first?.sourceType == .local)
        #expect(store.delegateSources.isEmpty)
        let events = store.calendars(for: .event)
        let reminders = store.calendars(for: .reminder)
        #expect(events.map(\.title) == ["Calendar"])
        #expect(reminders.map(\.title) == ["Reminders"])
        #expect(store.defaultCalendarForNewEvents?.calendarIdentifier == "calendar")
        #expect(store.defaultCalendarForNewReminders()?.calendarIdentifier == "reminders")
        #expect(events.first?.allowedEntityTypes == .event)
        #expect(reminders.first?.allowedEntityTypes == .reminder)
        #expect(events.first?.type == .local)
        #expect(events.first?.allowsContentModifications == true)
        #expect(store.calendar(withIdentifier: "calendar")?.title == "Calendar")
        #expect(store.source(withIdentifier: "local")?.calendars(for: .event).count == 1)
    }

    @Test func khalFolderOpensAsItIs() throws {
        let folder = try StoreFolder()
        try folder.write("work/displayname", "Work")
        try folder.write("work/color", "#ff0000")
        try folder.write("work/standup.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//khal//EN\r
            BEGIN:VEVENT\r
            UID:standup\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20261201T090000Z\r
            DTEND:20261201T091500Z\r
            SUMMARY:Stand-up\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let test = try TestStore(folder: folder)
        let calendars = test.store.calendars(for: .event)
        #expect(calendars.map(\.title) == ["Work"])
        #expect(calendars.first?.cgColor.hexString == "#FF0000")
        let predicate = test.store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2026-12-02T00:00"), calendars: nil)
        let events = test.store.events(matching: predicate)
        #expect(events.map(\.title) == ["Stand-up"])
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/.openeventkit/store.json"))
    }

    // MARK: Saving and fetching

    @Test func savedEventIsFoundByIdentifierAndByRange() throws {
        let test = try TestStore()
        let store = test.store
        let event = EKEvent(eventStore: store)
        #expect(event.isNew)
        #expect(event.eventIdentifier == nil)
        #expect(event.title == "")
        event.title = "Piano lesson"
        event.startDate = utc("2026-12-01T16:00")
        event.endDate = utc("2026-12-01T16:45")
        event.calendar = store.defaultCalendarForNewEvents
        event.notes = "Bring the scales book"
        event.location = "Room 4"
        try store.save(event, span: .thisEvent)
        #expect(!event.isNew)
        #expect(!event.hasChanges)
        let identifier = try #require(event.eventIdentifier)
        #expect(identifier.hasPrefix("calendar/"))

        let other = try test.another()
        let fetched = try #require(other.event(withIdentifier: identifier))
        #expect(fetched.title == "Piano lesson")
        #expect(fetched.startDate == utc("2026-12-01T16:00"))
        #expect(fetched.endDate == utc("2026-12-01T16:45"))
        #expect(fetched.notes == "Bring the scales book")
        #expect(fetched.location == "Room 4")
        #expect(fetched.calendar.calendarIdentifier == "calendar")
        #expect(fetched.calendarItemExternalIdentifier == event.calendarItemExternalIdentifier)
        #expect(other.calendarItems(withExternalIdentifier: event.calendarItemExternalIdentifier).count == 1)

        let inside = other.events(matching: other.predicateForEvents(withStart: utc("2026-12-01T16:30"), end: utc("2026-12-01T17:00"), calendars: nil))
        #expect(inside.map(\.title) == ["Piano lesson"])
        let after = other.events(matching: other.predicateForEvents(withStart: utc("2026-12-01T16:45"), end: utc("2026-12-01T18:00"), calendars: nil))
        #expect(after.isEmpty, "the window is [start, end): an event ending at its start does not overlap")
        let text = try test.file(identifier)
        #expect(text.contains("DTSTAMP:"))
        #expect(text.contains("BEGIN:VCALENDAR\r\n"))
    }

    @Test func editingOnePropertyKeepsWhatEventKitCannotExpress() throws {
        let test = try TestStore()
        try test.folder.write("calendar/imported.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//Example//EN\r
            X-WR-CALNAME:Imported\r
            BEGIN:VEVENT\r
            UID:imported-1\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20261201T100000Z\r
            DTEND:20261201T110000Z\r
            RRULE:FREQ=WEEKLY;COUNT=3\r
            RRULE:FREQ=MONTHLY;BYMONTHDAY=15;COUNT=2\r
            RDATE:20261224T100000Z\r
            SUMMARY:Choir\r
            X-CUSTOM;X-PARAM=keep:custom value\r
            ATTACH:https://example.com/score.pdf\r
            BEGIN:VALARM\r
            ACTION:DISPLAY\r
            DESCRIPTION:Choir soon\r
            TRIGGER:-PT10M\r
            X-ALARM-EXTRA:yes\r
            END:VALARM\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let event = try #require(test.store.event(withIdentifier: "calendar/imported.ics"))
        #expect(event.title == "Choir")
        #expect(event.hasRecurrenceRules)
        event.title = "Choir rehearsal"
        try test.store.save(event, span: .futureEvents)
        let lines = unfolded(try test.file("calendar/imported.ics"))
        #expect(lines.contains("SUMMARY:Choir rehearsal"))
        #expect(lines.contains("RRULE:FREQ=WEEKLY;COUNT=3"))
        #expect(lines.contains("RRULE:FREQ=MONTHLY;BYMONTHDAY=15;COUNT=2"))
        #expect(lines.contains("RDATE:20261224T100000Z"))
        #expect(lines.contains("X-CUSTOM;X-PARAM=keep:custom value"))
        #expect(lines.contains("ATTACH:https://example.com/score.pdf"))
        #expect(lines.contains("X-ALARM-EXTRA:yes"))
        #expect(lines.contains("X-WR-CALNAME:Imported"))
        #expect(lines.contains("DTSTART:20261201T100000Z"))
    }

    // MARK: Recurring series and spans

    private func weeklySeries(_ test: TestStore, count: Int = 5) throws -> String {
        let store = test.store
        let event = newEvent(store, "Violin", "2026-12-01T16:00")
        event.addRecurrenceRule(EKRecurrenceRule(recurrenceWith: .weekly, interval: 1, end: EKRecurrenceEnd(occurrenceCount: count)))
        try store.save(event, span: .futureEvents)
        return try #require(event.eventIdentifier)
    }

    private func december(_ store: EKEventStore) -> [EKEvent] {
        store.events(matching: store.predicateForEvents(withStart: utc("2026-11-01T00:00"), end: utc("2027-02-01T00:00"), calendars: nil))
    }

    @Test func seriesExpandsIntoOccurrences() throws {
        let test = try TestStore()
        let identifier = try weeklySeries(test)
        #expect(try test.file(identifier).contains("RRULE:FREQ=WEEKLY;COUNT=5"))
        let occurrences = december(test.store)
        #expect(occurrences.map(\.startDate) == (0..<5).map { utc("2026-12-01T16:00").addingTimeInterval(Double($0) * 7 * 86_400) })
        #expect(occurrences.allSatisfy { $0.eventIdentifier == identifier })
        #expect(occurrences.allSatisfy { !$0.isDetached })
        #expect(occurrences.map(\.occurrenceDate) == occurrences.map(\.startDate))
    }

    @Test func thisEventWritesAnOverride() throws {
        let test = try TestStore()
        let identifier = try weeklySeries(test)
        let third = december(test.store)[2]
        third.title = "Violin (moved)"
        third.startDate = utc("2026-12-15T18:00")
        third.endDate = utc("2026-12-15T19:00")
        try test.store.save(third, span: .thisEvent)
        #expect(third.isDetached)
        let lines = unfolded(try test.file(identifier))
        #expect(lines.contains("RECURRENCE-ID:20261215T160000Z"))
        let after = december(try test.another())
        #expect(after.count == 5)
        #expect(after.map(\.title) == ["Violin", "Violin", "Violin (moved)", "Violin", "Violin"])
        #expect(after[2].isDetached)
        #expect(after[2].startDate == utc("2026-12-15T18:00"))
        #expect(after[2].occurrenceDate == utc("2026-12-15T16:00"))
        #expect(!after[1].isDetached)
    }

    @Test func removingOneOccurrenceAddsAnExceptionDate() throws {
        let test = try TestStore()
        let identifier = try weeklySeries(test)
        let second = december(test.store)[1]
        try test.store.remove(second, span: .thisEvent)
        #expect(unfolded(try test.file(identifier)).contains("EXDATE:20261208T160000Z"))
        #expect(december(try test.another()).map(\.startDate) == [
            utc("2026-12-01T16:00"), utc("2026-12-15T16:00"), utc("2026-12-22T16:00"), utc("2026-12-29T16:00"),
        ])
    }

    @Test func removingFutureEventsEndsTheSeries() throws {
        let test = try TestStore()
        let identifier = try weeklySeries(test)
        let third = december(test.store)[2]
        try test.store.remove(third, span: .futureEvents)
        let lines = unfolded(try test.file(identifier))
        #expect(lines.contains("RRULE:FREQ=WEEKLY;UNTIL=20261215T155959Z"))
        #expect(december(try test.another()).count == 2)
        let first = december(test.store)[0]
        try test.store.remove(first, span: .futureEvents)
        #expect(test.files(in: "calendar").isEmpty)
        #expect(december(try test.another()).isEmpty)
    }

    @Test func futureEventsSplitsTheSeries() throws {
        let test = try TestStore()
        let identifier = try weeklySeries(test)
        let fourth = december(test.store)[3]
        let uid = fourth.calendarItemExternalIdentifier
        fourth.title = "Violin with orchestra"
        try test.store.save(fourth, span: .futureEvents)
        #expect(fourth.calendarItemExternalIdentifier != uid, "the future part is a new series with a new UID")
        #expect(fourth.eventIdentifier != identifier)
        let old = unfolded(try test.file(identifier))
        #expect(old.contains("RRULE:FREQ=WEEKLY;UNTIL=20261222T155959Z"))
        let new = unfolded(try test.file(try #require(fourth.eventIdentifier)))
        #expect(new.contains("RRULE:FREQ=WEEKLY;COUNT=2"))
        #expect(new.contains("DTSTART:20261222T160000Z"))
        let after = december(try test.another())
        #expect(after.map(\.title) == ["Violin", "Violin", "Violin", "Violin with orchestra", "Violin with orchestra"])
        #expect(after.map(\.startDate) == (0..<5).map { utc("2026-12-01T16:00").addingTimeInterval(Double($0) * 7 * 86_400) })
    }

    @Test func futureEventsFromTheFirstOccurrenceChangesTheWholeSeries() throws {
        let test = try TestStore()
        let identifier = try weeklySeries(test)
        let first = december(test.store)[0]
        first.title = "Viola"
        try test.store.save(first, span: .futureEvents)
        #expect(first.eventIdentifier == identifier)
        #expect(december(try test.another()).map(\.title) == Array(repeating: "Viola", count: 5))
        #expect(test.files(in: "calendar").count == 1)
    }

    // MARK: Batches

    @Test func batchIsWrittenAllOrNothingByCommit() throws {
        let test = try TestStore()
        let store = test.store
        for index in 0..<3 {
            let event = EKEvent(eventStore: store)
            event.title = "Lesson \(index)"
            event.startDate = utc("2026-12-0\(index + 1)T10:00")
            event.endDate = utc("2026-12-0\(index + 1)T11:00")
            event.calendar = store.defaultCalendarForNewEvents
            try store.save(event, span: .thisEvent, commit: false)
        }
        #expect(test.files(in: "calendar").isEmpty, "nothing is written before commit()")
        #expect(december(store).count == 3, "pending saves are visible to this store's fetches")
        #expect(december(try test.another()).isEmpty)
        try store.commit()
        #expect(test.files(in: "calendar").count == 3)
        try store.commit()   // nothing pending: succeeds
    }

    @Test func failedCommitBlocksLaterCommitsUntilReset() throws {
        let test = try TestStore()
        let identifier = try weeklySeries(test)
        let store = test.store
        let event = try #require(store.event(withIdentifier: identifier))
        event.title = "Changed here"
        try store.save(event, span: .futureEvents, commit: false)
        // Another program rewrites the file meanwhile.
        Thread.sleep(forTimeInterval: 0.01)
        try test.folder.write(identifier, try test.file(identifier).replacingOccurrences(of: "SUMMARY:Violin", with: "SUMMARY:Changed there"))
        #expect(throws: EKError.self) { try store.commit() }
        #expect(try test.file(identifier).contains("SUMMARY:Changed there"), "nothing was overwritten")
        let another = newEvent(store, "Later", "2026-12-05T10:00")
        #expect(throws: EKError.self) { try store.save(another, span: .thisEvent, commit: true) }
        #expect(throws: EKError.self) { try store.commit() }
        store.reset()
        try store.commit()
        try store.save(another, span: .thisEvent, commit: true)
        #expect(test.files(in: "calendar").count == 2)
    }

    @Test func failedCommitTrueRollsBackPendingChanges() throws {
        let test = try TestStore()
        let identifier = try weeklySeries(test)
        let store = test.store
        let pending = newEvent(store, "Pending", "2026-12-03T10:00")
        try store.save(pending, span: .thisEvent, commit: false)
        let event = try #require(store.event(withIdentifier: identifier))
        Thread.sleep(forTimeInterval: 0.01)
        try test.folder.write(identifier, try test.file(identifier) + "")
        try test.folder.write(identifier, try test.file(identifier).replacingOccurrences(of: "SUMMARY:Violin", with: "SUMMARY:Other"))
        event.title = "Mine"
        #expect(throws: EKError.self) { try store.save(event, span: .futureEvents, commit: true) }
        #expect(event.hasChanges, "the failed save left the object with its unsaved edit")
        #expect(event.title == "Mine")
        try store.commit()   // the failed commit: true rolled everything back, and does not block
        #expect(test.files(in: "calendar").count == 1)
    }

    // MARK: All-day, floating and zones

    @Test func allDayEventsUseExclusiveDatesAndReportTheLastSecond() throws {
        let test = try TestStore()
        let store = test.store
        let event = EKEvent(eventStore: store)
        event.title = "Half term"
        event.isAllDay = true
        event.startDate = utc("2027-02-15T00:00")
        event.endDate = utc("2027-02-19T00:00")
        event.calendar = store.defaultCalendarForNewEvents
        try store.save(event, span: .thisEvent)
        let lines = unfolded(try test.file(try #require(event.eventIdentifier)))
        #expect(lines.contains("DTSTART;VALUE=DATE:20270215"))
        #expect(lines.contains("DTEND;VALUE=DATE:20270220"))
        let fetched = try #require(store.event(withIdentifier: event.eventIdentifier))
        #expect(fetched.isAllDay)
        #expect(fetched.timeZone == nil)
        #expect(fetched.endDate == utc("2027-02-19T23:59").addingTimeInterval(59))
        let friday = store.events(matching: store.predicateForEvents(withStart: utc("2027-02-19T12:00"), end: utc("2027-02-19T13:00"), calendars: nil))
        #expect(friday.count == 1)
        let saturday = store.events(matching: store.predicateForEvents(withStart: utc("2027-02-20T00:00"), end: utc("2027-02-21T00:00"), calendars: nil))
        #expect(saturday.isEmpty)
    }

    @Test func changingTheTimeZoneKeepsTheInstant() throws {
        let test = try TestStore()
        let store = test.store
        let event = EKEvent(eventStore: store)
        event.title = "Call"
        event.timeZone = TimeZone(identifier: "Europe/Berlin")
        event.startDate = utc("2026-12-01T15:00")
        event.endDate = utc("2026-12-01T16:00")
        event.calendar = store.defaultCalendarForNewEvents
        try store.save(event, span: .thisEvent)
        var lines = unfolded(try test.file(try #require(event.eventIdentifier)))
        #expect(lines.contains("DTSTART;TZID=Europe/Berlin:20261201T160000"))
        #expect(lines.contains("BEGIN:VTIMEZONE"))
        #expect(lines.contains("TZID:Europe/Berlin"))
        event.timeZone = TimeZone(identifier: "America/New_York")
        #expect(event.startDate == utc("2026-12-01T15:00"))
        try store.save(event, span: .thisEvent)
        lines = unfolded(try test.file(try #require(event.eventIdentifier)))
        #expect(lines.contains("DTSTART;TZID=America/New_York:20261201T100000"))
        event.timeZone = nil
        #expect(event.startDate == utc("2026-12-01T15:00"))
        try store.save(event, span: .thisEvent)
        #expect(unfolded(try test.file(try #require(event.eventIdentifier))).contains("DTSTART:20261201T150000"))
    }

    @Test func fourYearLimitCutsLongWindows() throws {
        let test = try TestStore()
        let store = test.store
        let event = newEvent(store, "Far", "2031-06-01T10:00")
        try store.save(event, span: .thisEvent)
        let all = store.events(matching: store.predicateForEvents(withStart: utc("2026-01-01T00:00"), end: utc("2040-01-01T00:00"), calendars: nil))
        #expect(all.isEmpty, "2031 is more than four years after 2026-01-01")
        let later = store.events(matching: store.predicateForEvents(withStart: utc("2030-01-01T00:00"), end: utc("2040-01-01T00:00"), calendars: nil))
        #expect(later.count == 1)
    }

    @Test func corruptItemIsSkippedWithADiagnostic() throws {
        let test = try TestStore()
        try test.folder.write("calendar/broken.ics", "this is not iCalendar\n")
        try test.folder.write("calendar/good.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//x//EN\r
            BEGIN:VEVENT\r
            UID:good\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20261202T100000Z\r
            SUMMARY:Good\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let events = december(test.store)
        #expect(events.map(\.title) == ["Good"])
        #expect(test.store.readDiagnostics.contains { $0.file?.hasSuffix("calendar/broken.ics") == true })
    }

    // MARK: Calendars

    @Test func savingAndRemovingCalendars() throws {
        let test = try TestStore()
        let store = test.store
        let calendar = EKCalendar(for: .event, eventStore: store)
        calendar.title = "Orchestra"
        #expect(throws: EKError.self) { try store.saveCalendar(calendar, commit: true) }   // no source
        calendar.source = store.sources.first
        calendar.cgColor = CGColor(red: 1, green: 0.5, blue: 0, alpha: 1)
        try store.saveCalendar(calendar, commit: true)
        #expect(try test.file(calendar.calendarIdentifier + "/displayname") == "Orchestra")
        #expect(try test.file(calendar.calendarIdentifier + "/color") == "#FF8000")
        #expect(store.calendars(for: .event).map(\.title).sorted() == ["Calendar", "Orchestra"])
        let list = EKCalendar(for: .reminder, eventStore: store)
        list.title = "Practice"
        list.source = store.sources.first
        try store.saveCalendar(list, commit: true)
        #expect(try test.another().calendars(for: .reminder).map(\.title).sorted() == ["Practice", "Reminders"])
        calendar.title = "Orchestra 2027"
        try store.saveCalendar(calendar, commit: true)
        #expect(try test.file(calendar.calendarIdentifier + "/displayname") == "Orchestra 2027")
        try store.removeCalendar(calendar, commit: true)
        #expect(store.calendars(for: .event).map(\.title) == ["Calendar"])
        #expect(!FileManager.default.fileExists(atPath: test.folder.path + "/" + calendar.calendarIdentifier))
    }

    // MARK: Reminders

    @Test func remindersSaveFetchAndComplete() async throws {
        let test = try TestStore()
        let store = test.store
        let reminder = EKReminder(eventStore: store)
        reminder.title = "Practise scales"
        reminder.calendar = store.defaultCalendarForNewReminders()
        var due = DateComponents()
        due.year = 2026; due.month = 12; due.day = 3
        reminder.dueDateComponents = due
        reminder.priority = Int(EKReminderPriority.high.rawValue)
        try store.save(reminder, commit: true)
        let done = EKReminder(eventStore: store)
        done.title = "Buy rosin"
        done.calendar = store.defaultCalendarForNewReminders()
        done.isCompleted = true
        #expect(done.completionDate != nil)
        try store.save(done, commit: true)
        let bad = EKReminder(eventStore: store)
        bad.title = "Bad"
        bad.calendar = store.defaultCalendarForNewReminders()
        bad.priority = 12
        #expect(throws: EKError.self) { try store.save(bad, commit: true) }

        let titles = Collected<String>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = store.fetchReminders(matching: store.predicateForReminders(in: nil)) { reminders in
                for reminder in reminders ?? [] { titles.append(reminder.title) }
                continuation.resume()
            }
        }
        #expect(titles.values.sorted() == ["Buy rosin", "Practise scales"])
        let incomplete = Collected<String>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = store.fetchReminders(matching: store.predicateForIncompleteReminders(withDueDateStarting: utc("2026-12-01T00:00"),
                                                                                    ending: utc("2026-12-05T00:00"), calendars: nil)) { reminders in
                for reminder in reminders ?? [] {
                    incomplete.append("\(reminder.title!) \(reminder.priority) \(reminder.dueDateComponents?.day ?? 0) \(reminder.dueDateComponents?.hour == nil)")
                }
                continuation.resume()
            }
        }
        #expect(incomplete.values == ["Practise scales 1 3 true"])
        let completed = Collected<String>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = store.fetchReminders(matching: store.predicateForCompletedReminders(withCompletionDateStarting: nil, ending: nil, calendars: nil)) { reminders in
                for reminder in reminders ?? [] { completed.append(reminder.title) }
                continuation.resume()
            }
        }
        #expect(completed.values == ["Buy rosin"])
        let text = try test.file(try #require(test.files(in: "reminders").map { "reminders/" + $0 }.first { try! test.file($0).contains("rosin") }))
        #expect(text.contains("STATUS:COMPLETED"))
        #expect(text.contains("PERCENT-COMPLETE:100"))
    }

    @Test func cancelledReminderFetchNeverCompletes() throws {
        let test = try TestStore()
        let store = test.store
        let called = Collected<Bool>()
        for _ in 0..<20 {
            let token = store.fetchReminders(matching: store.predicateForReminders(in: nil)) { _ in called.append(true) }
            store.cancelFetchRequest(token)
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(called.values.count < 20)
    }
}
