import Foundation
import Testing
import OpenEventKit

/// Members of EKCalendarItem, EKEvent and EKEventStore not covered by the span and batch
/// tests: enumeration, external identifiers across calendars, moving calendars, alarms,
/// locations, availability, DURATION-based ends.
@Suite struct ItemSemanticsTests {
    private func window(_ store: EKEventStore) -> NSPredicate {
        store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2027-01-01T00:00"), calendars: nil)
    }

    @Test func enumerationStopsWhenAsked() throws {
        let test = try TestStore()
        for day in 1...5 { try test.store.save(newEvent(test.store, "Day \(day)", "2026-12-0\(day)T10:00"), span: .thisEvent) }
        var seen: [String] = []
        test.store.enumerateEvents(matching: window(test.store)) { event, stop in
            seen.append(event.title)
            if seen.count == 2 { stop.pointee = true }
        }
        #expect(seen == ["Day 1", "Day 2"])
        let sorted = test.store.events(matching: window(test.store)).sorted { $0.compareStartDate(with: $1) == .orderedAscending }
        #expect(sorted.map(\.title) == (1...5).map { "Day \($0)" })
        #expect(sorted[0].compareStartDate(with: sorted[1]) == .orderedAscending)
        #expect(sorted[1].compareStartDate(with: sorted[1]) == .orderedSame)
    }

    @Test func oneUIDInTwoCalendarsAndMovingBetweenCalendars() throws {
        let test = try TestStore()
        let store = test.store
        let work = EKCalendar(for: .event, eventStore: store)
        work.title = "Work"
        work.source = store.defaultCalendarForNewEvents?.source
        try store.saveCalendar(work, commit: true)
        let lesson = newEvent(store, "Lesson", "2026-12-02T10:00")
        try store.save(lesson, span: .thisEvent)
        let uid = try #require(lesson.calendarItemExternalIdentifier)
        // The same UID imported into the other calendar too (an .ics imported twice).
        try test.folder.write(work.calendarIdentifier + "/copy.ics", try test.file(lesson.eventIdentifier))
        let items = store.calendarItems(withExternalIdentifier: uid)
        #expect(items.count == 2)
        #expect(Set(items.compactMap { $0.calendar?.calendarIdentifier }) == ["calendar", work.calendarIdentifier])
        // Moving an event moves its file; the event identifier changes with the calendar.
        let before = lesson.eventIdentifier!
        lesson.calendar = work
        #expect(lesson.hasChanges)
        try store.save(lesson, span: .thisEvent)
        #expect(lesson.eventIdentifier != before)
        #expect(lesson.eventIdentifier.hasPrefix(work.calendarIdentifier + "/"))
        #expect(!FileManager.default.fileExists(atPath: test.folder.path + "/" + before))
        // The calendars filter of a predicate.
        let onlyWork = store.events(matching: store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2027-01-01T00:00"), calendars: [work]))
        #expect(onlyWork.count == 2)
        let onlyDefault = store.events(matching: store.predicateForEvents(withStart: utc("2026-12-01T00:00"), end: utc("2027-01-01T00:00"),
                                                                         calendars: [store.defaultCalendarForNewEvents!]))
        #expect(onlyDefault.isEmpty)
    }

    @Test func alarmsLocationsAndAvailabilityRoundTrip() throws {
        let test = try TestStore()
        let store = test.store
        let concert = newEvent(store, "Concert", "2026-12-13T18:00", minutes: 120)
        concert.addAlarm(EKAlarm(relativeOffset: -30 * 60))
        concert.addAlarm(EKAlarm(absoluteDate: utc("2026-12-13T09:00")))
        let hall = EKStructuredLocation(title: "Stadthalle")
        hall.geoLocation = CLLocation(latitude: 52.52, longitude: 13.405)
        hall.radius = 150
        concert.structuredLocation = hall
        concert.availability = .free
        concert.url = URL(string: "https://example.com/concert")
        try store.save(concert, span: .thisEvent)

        let other = try test.another()
        let fetched = try #require(other.event(withIdentifier: concert.eventIdentifier))
        #expect(fetched.alarms?.map(\.relativeOffset) == [-1800, 0])
        #expect(fetched.alarms?.last?.absoluteDate == utc("2026-12-13T09:00"))
        #expect(fetched.location == "Stadthalle")
        #expect(fetched.structuredLocation?.geoLocation?.coordinate.latitude == 52.52)
        #expect(fetched.structuredLocation?.radius == 150)
        #expect(fetched.availability == .free)
        #expect(fetched.url?.absoluteString == "https://example.com/concert")
        #expect(fetched.status == .none)
        #expect(fetched.hasAlarms)

        // Editing an alarm object edits the event; removing one removes its VALARM.
        fetched.alarms?.first?.relativeOffset = -3600
        #expect(fetched.hasChanges)
        fetched.removeAlarm(try #require(fetched.alarms?.last))
        // Setting the location text drops the coordinates, as in EventKit.
        fetched.location = "Foyer"
        try other.save(fetched, span: .thisEvent)
        let again = try #require(store.event(withIdentifier: concert.eventIdentifier))
        #expect(again.alarms?.map(\.relativeOffset) == [-3600])
        #expect(again.location == "Foyer")
        #expect(again.structuredLocation?.geoLocation == nil)
        let text = try test.file(concert.eventIdentifier)
        #expect(!text.contains("GEO:"))
        #expect(text.contains("TRANSP:TRANSPARENT"))
    }

    @Test func durationEndsAndTheStartMovingKeepsTheEnd() throws {
        let test = try TestStore()
        try test.folder.write("calendar/rehearsal.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//x//EN\r
            BEGIN:VEVENT\r
            UID:rehearsal\r
            DTSTAMP:20260101T000000Z\r
            DTSTART;TZID=Europe/Berlin:20261204T190000\r
            DURATION:PT2H\r
            SUMMARY:Rehearsal\r
            STATUS:TENTATIVE\r
            ORGANIZER;CN=Conductor:mailto:conductor@example.com\r
            ATTENDEE;CN=Alto;PARTSTAT=ACCEPTED:mailto:alto@example.com\r
            X-MICROSOFT-CDO-BUSYSTATUS:TENTATIVE\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        let event = try #require(test.store.event(withIdentifier: "calendar/rehearsal.ics"))
        #expect(event.startDate == utc("2026-12-04T18:00"))
        #expect(event.endDate == utc("2026-12-04T20:00"))
        #expect(event.timeZone?.identifier == "Europe/Berlin")
        #expect(event.status == .tentative)
        #expect(event.availability == .tentative)
        #expect(event.organizer?.name == "Conductor")
        #expect(event.attendees?.map(\.participantStatus) == [.accepted])
        #expect(event.hasAttendees)
        event.startDate = utc("2026-12-04T17:00")
        #expect(event.endDate == utc("2026-12-04T20:00"), "EventKit's start and end are independent")
        try test.store.save(event, span: .thisEvent)
        let lines = unfolded(try test.file("calendar/rehearsal.ics"))
        #expect(lines.contains("DTSTART;TZID=Europe/Berlin:20261204T180000"))
        #expect(lines.contains("DTEND;TZID=Europe/Berlin:20261204T210000"))
        #expect(!lines.contains { $0.hasPrefix("DURATION") })
        #expect(lines.contains("ORGANIZER;CN=Conductor:mailto:conductor@example.com"))
        #expect(lines.contains("X-MICROSOFT-CDO-BUSYSTATUS:TENTATIVE"))
    }

    @Test func validationErrorsOnSave() throws {
        let test = try TestStore()
        let store = test.store
        func code(_ body: () throws -> Void) -> EKError.Code? {
            do { try body(); return nil } catch let error as EKError { return error.code } catch { return .last }
        }
        let noCalendar = EKEvent(eventStore: store)
        noCalendar.startDate = utc("2026-12-01T10:00")
        noCalendar.endDate = utc("2026-12-01T11:00")
        #expect(code { try store.save(noCalendar, span: .thisEvent) } == .noCalendar)
        let noStart = EKEvent(eventStore: store)
        noStart.calendar = store.defaultCalendarForNewEvents
        #expect(code { try store.save(noStart, span: .thisEvent) } == .noStartDate)
        let inverted = newEvent(store, "Backwards", "2026-12-01T10:00", minutes: -30)
        #expect(code { try store.save(inverted, span: .thisEvent) } == .datesInverted)
        let intoReminders = newEvent(store, "Wrong", "2026-12-01T10:00", calendar: store.defaultCalendarForNewReminders())
        #expect(code { try store.save(intoReminders, span: .thisEvent) } == .calendarDoesNotAllowEvents)
        let other = try test.another()
        let foreign = newEvent(other, "Foreign", "2026-12-01T10:00", calendar: other.defaultCalendarForNewEvents)
        #expect(code { try store.save(foreign, span: .thisEvent) } == .objectBelongsToDifferentStore)
        let immutable = store.calendars(for: .event).first!
        #expect(!immutable.isImmutable)
        #expect(test.files(in: "calendar").isEmpty)
    }

    @Test func aCalendarOutlivesTheStoreItCameFrom() throws {
        let test = try TestStore()
        let calendar = try #require(try test.another().calendars(for: .event).first)
        #expect(calendar.refresh())
        #expect(calendar.title == "Calendar")
        #expect(calendar.source.calendars(for: .event).count == 1)
    }

    @Test func requestsAreAnsweredFromTheStoresAuthority() async throws {
        let test = try TestStore(events: .fullAccess, reminders: .denied)
        #expect(try await test.store.requestFullAccessToEvents())
        #expect(try await test.store.requestFullAccessToReminders() == false)
    }
}
