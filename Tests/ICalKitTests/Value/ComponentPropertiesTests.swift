import Testing
@testable import ICalKit

@Suite struct ComponentPropertiesValueTests {
    static let source = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Example//Test//EN\r
        BEGIN:VEVENT\r
        UID:19970901T130000Z-123401@example.com\r
        DTSTAMP:19970901T130000Z\r
        DTSTART;X-FOO=bar;TZID="America/New_York":19970902T090000\r
        DTEND;TZID=America/New_York;X-KEEP=1:19970902T100000\r
        SUMMARY;LANGUAGE=en:Annual review\\, Q3\r
        X-CUSTOM;X-P=1:keep me\r
        CATEGORIES;LANGUAGE=en:BUSINESS,HUMAN RESOURCES\r
        CATEGORIES:REVIEW\r
        RRULE:COUNT=10;FREQ=DAILY\r
        RDATE;TZID=America/New_York:19970904T090000,19970905T090000\r
        RDATE;VALUE=PERIOD:19970308T160000Z/PT8H30M,19970308T230000Z/19970309T00000\r
         0Z\r
        RDATE;VALUE=DATE:19970101,19970120\r
        EXDATE;TZID=America/New_York:19970903T090000,19970906T090000\r
        EXDATE:19970910T130000Z\r
        STATUS:confirmed\r
        TRANSP:TRANSPARENT\r
        SEQUENCE:2\r
        URL:https://example.com/review\r
        GEO:37.386013;-122.082932\r
        ORGANIZER;CN=John Smith;X-ORG=1:mailto:jsmith@example.com\r
        ATTENDEE;ROLE=REQ-PARTICIPANT;X-NUM-GUESTS=2;PARTSTAT=TENTATIVE;CN=Henry Ca\r
         bot:mailto:hcabot@example.com\r
        ATTENDEE;CN="Doe, Jane";RSVP=TRUE:mailto:jdoe@example.com\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER;X-T=1;RELATED=END:-PT15M\r
        DESCRIPTION:Reminder\r
        END:VALARM\r
        BEGIN:VALARM\r
        ACTION:AUDIO\r
        TRIGGER;VALUE=DATE-TIME:19970317T133000Z\r
        END:VALARM\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:19970901T130000Z-123401@example.com\r
        RECURRENCE-ID;RANGE=THISANDFUTURE;VALUE=DATE:19970904\r
        DTSTART;VALUE=DATE:19970904\r
        DURATION:P1D\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    static func read() throws -> (calendar: Component, event: Component, override: Component) {
        let result = try ICalReader().read(source)
        #expect(result.diagnostics.isEmpty)
        let calendar = try #require(result.calendars.first)
        let events = calendar.components(.event)
        return (calendar, events[0], events[1])
    }

    static func newYork(_ day: Int, _ hour: Int) -> DateTime {
        DateTime(LocalDateTime(year: 1997, month: 9, day: day, hour: hour)!, zone: .identifier("America/New_York"))
    }

    @Test func readsTypedValues() throws {
        let (_, event, override) = try Self.read()
        #expect(event.uid == "19970901T130000Z-123401@example.com")
        #expect(event.summary == "Annual review, Q3")
        #expect(event.dateTimeStamp == DateTime(LocalDateTime(year: 1997, month: 9, day: 1, hour: 13)!, zone: .utc))
        #expect(event.dateTimeStart == Self.newYork(2, 9))
        #expect(event.dateTimeEnd == Self.newYork(2, 10))
        #expect(event.categories == ["BUSINESS", "HUMAN RESOURCES", "REVIEW"])
        #expect(event.recurrenceRules == [RecurrenceRule(frequency: .daily, count: 10)])
        #expect(event.recurrenceDates == [
            .dateTime(Self.newYork(4, 9)), .dateTime(Self.newYork(5, 9)),
            .period(Period(iCalendar: "19970308T160000Z/PT8H30M")!),
            .period(Period(iCalendar: "19970308T230000Z/19970309T000000Z")!),
            .dateTime(DateTime(date: CalendarDate(year: 1997, month: 1, day: 1)!)),
            .dateTime(DateTime(date: CalendarDate(year: 1997, month: 1, day: 20)!)),
        ])
        #expect(event.exceptionDates == [
            Self.newYork(3, 9), Self.newYork(6, 9), DateTime(LocalDateTime(year: 1997, month: 9, day: 10, hour: 13)!, zone: .utc),
        ])
        #expect(event.status == .confirmed)
        #expect(event.transparency == .transparent)
        #expect(event.sequence == 2)
        #expect(event.url?.rawValue == "https://example.com/review")
        #expect(event.geographicPosition == GeographicPosition(latitude: 37.386013, longitude: -122.082932))
        #expect(event.organizer?.commonName == "John Smith")
        #expect(event.attendees.map(\.commonName) == ["Henry Cabot", "Doe, Jane"])
        #expect(event.attendees.map(\.participationStatus) == [.tentative, nil])
        #expect(event.attendees[1].rsvp == true)
        #expect(event.descriptionText == nil)
        #expect(event.location == nil)
        #expect(event.due == nil)
        #expect(event.duration == nil)

        let alarms = event.components(.alarm)
        #expect(alarms[0].action == .display)
        #expect(alarms[0].trigger == .relative(Duration(isNegative: true, minutes: 15), relatedTo: .end))
        #expect(alarms[0].descriptionText == "Reminder")
        #expect(alarms[1].action == .audio)
        #expect(alarms[1].trigger == .absolute(DateTime(LocalDateTime(year: 1997, month: 3, day: 17, hour: 13, minute: 30)!, zone: .utc)))

        #expect(override.recurrenceIdentifier == DateTime(date: CalendarDate(year: 1997, month: 9, day: 4)!))
        #expect(override.recurrenceIdentifierRange == .thisAndFuture)
        #expect(override.dateTimeStart?.isDate == true)
        #expect(override.duration == Duration(days: 1))
    }

    @Test func assigningWhatWasReadChangesNothing() throws {
        let (calendar, original, override) = try Self.read()
        var event = original
        event.uid = event.uid
        event.summary = event.summary
        event.dateTimeStamp = event.dateTimeStamp
        event.dateTimeStart = event.dateTimeStart
        event.dateTimeEnd = event.dateTimeEnd
        event.categories = event.categories
        event.recurrenceRules = event.recurrenceRules
        event.recurrenceDates = event.recurrenceDates
        event.exceptionDates = event.exceptionDates
        event.status = event.status
        event.transparency = event.transparency
        event.sequence = event.sequence
        event.url = event.url
        event.geographicPosition = event.geographicPosition
        event.organizer = event.organizer
        event.attendees = event.attendees
        #expect(event == original)
        var alarm = original.components(.alarm)[0]
        alarm.trigger = alarm.trigger
        alarm.action = alarm.action
        #expect(alarm == original.components(.alarm)[0])
        var copy = override
        copy.recurrenceIdentifier = copy.recurrenceIdentifier
        copy.recurrenceIdentifierRange = copy.recurrenceIdentifierRange
        copy.duration = copy.duration
        #expect(copy == override)
        #expect(ICalWriter().string(calendar) == Self.source)
    }

    @Test func dateTimeSettersKeepPositionAndOtherParameters() throws {
        var (_, event, _) = try Self.read()
        let position = event.properties.firstIndex { $0.matches(.dateTimeStart) }

        event.dateTimeStart = DateTime(LocalDateTime(year: 2024, month: 3, day: 10, hour: 7)!, zone: .utc)
        var property = try #require(event.property(.dateTimeStart))
        #expect(event.properties.firstIndex { $0.matches(.dateTimeStart) } == position)
        #expect(property.parameters == [Parameter(name: "X-FOO", rawValue: "bar")])
        #expect(property.rawValue == "20240310T070000Z")

        event.dateTimeStart = DateTime(date: CalendarDate(year: 2024, month: 3, day: 10)!)
        property = try #require(event.property(.dateTimeStart))
        #expect(property.parameters == [Parameter(name: "X-FOO", rawValue: "bar"), Parameter(name: "VALUE", rawValue: "DATE")])
        #expect(property.rawValue == "20240310")

        event.dateTimeStart = DateTime(LocalDateTime(year: 2024, month: 3, day: 10, hour: 2, minute: 30)!, zone: .identifier("Europe/Berlin"))
        property = try #require(event.property(.dateTimeStart))
        #expect(property.parameters == [Parameter(name: "X-FOO", rawValue: "bar"), Parameter(name: "TZID", rawValue: "Europe/Berlin")])
        #expect(property.rawValue == "20240310T023000")
        #expect(event.properties.firstIndex { $0.matches(.dateTimeStart) } == position)

        event.dateTimeEnd = Self.newYork(2, 11)
        let end = try #require(event.property(.dateTimeEnd))
        #expect(end.parameters.map(\.name) == ["TZID", "X-KEEP"])
        #expect(end.rawValue == "19970902T110000")

        event.dateTimeStart = nil
        #expect(event.property(.dateTimeStart) == nil)
        #expect(event.due == nil)
        event.due = Self.newYork(9, 17)
        #expect(event.properties.last?.name == "DUE")
        #expect(event.properties.last?.rawValue == "19970909T170000")
    }

    @Test func textSettersEscapeAndKeepParameters() throws {
        var (_, event, _) = try Self.read()
        event.summary = "Review; new, improved"
        let summary = try #require(event.property(.summary))
        #expect(summary.rawValue == #"Review\; new\, improved"#)
        #expect(summary.parameters == [Parameter(name: "LANGUAGE", rawValue: "en")])
        event.location = "Room 1"
        #expect(event.properties.last?.rawValue == "Room 1")
        event.summary = nil
        #expect(event.property(.summary) == nil)
        // An X- property is never touched by typed setters.
        #expect(event.property("X-CUSTOM") == Property(name: "X-CUSTOM", parameters: [Parameter(name: "X-P", rawValue: "1")], rawValue: "keep me"))
    }

    @Test func multiValuedSetters() throws {
        var (_, event, _) = try Self.read()

        event.exceptionDates = Array(event.exceptionDates.dropFirst())
        #expect(event.properties(.exceptionDates).map(\.rawValue) == ["19970906T090000", "19970910T130000Z"])
        #expect(event.properties(.exceptionDates)[0].timeZoneIdentifier == "America/New_York")
        event.exceptionDates.append(DateTime(date: CalendarDate(year: 1997, month: 12, day: 25)!))
        let exdates = event.properties(.exceptionDates)
        #expect(exdates.map(\.rawValue) == ["19970906T090000", "19970910T130000Z", "19971225"])
        #expect(exdates[2].valueType == "DATE")
        // New lines go right after the last one of their kind.
        let indices = event.properties.indices.filter { event.properties[$0].matches(.exceptionDates) }
        #expect(indices == [indices[0], indices[0] + 1, indices[0] + 2])
        event.exceptionDates = []
        #expect(event.properties(.exceptionDates).isEmpty)

        var dates = event.recurrenceDates
        dates.removeLast()
        event.recurrenceDates = dates
        let rdates = event.properties(.recurrenceDates)
        #expect(rdates.map(\.rawValue) == [
            "19970904T090000,19970905T090000", "19970308T160000Z/PT8H30M,19970308T230000Z/19970309T000000Z", "19970101",
        ])
        #expect(rdates.map(\.valueType) == [nil, "PERIOD", "DATE"])
        #expect(event.recurrenceDates == dates)

        event.categories = ["REVIEW", "Q3, planning"]
        #expect(event.properties(.categories) == [
            Property(.categories, parameters: [Parameter(name: "LANGUAGE", rawValue: "en")], rawValue: #"REVIEW,Q3\, planning"#),
        ])
        event.categories = []
        #expect(event.property(.categories) == nil)

        event.recurrenceRules = [RecurrenceRule(frequency: .daily, count: 10), RecurrenceRule(frequency: .weekly, count: 2)]
        #expect(event.properties(.recurrenceRule).map(\.rawValue) == ["COUNT=10;FREQ=DAILY", "FREQ=WEEKLY;COUNT=2"])
        event.recurrenceRules = []
        #expect(event.property(.recurrenceRule) == nil)
    }

    @Test func attendeesAndOrganizer() throws {
        var (_, event, _) = try Self.read()
        var attendees = event.attendees
        attendees[0].participationStatus = .accepted
        attendees.append(CalendarUserAddress(address: "mailto:new@example.com", role: .optionalParticipant))
        event.attendees = attendees
        let properties = event.properties(.attendee)
        #expect(properties.count == 3)
        #expect(properties[0].parameters.map(\.rawValue) == ["REQ-PARTICIPANT", "2", "ACCEPTED", "Henry Cabot"])
        #expect(properties[2] == Property(.attendee, parameters: [Parameter(name: "ROLE", rawValue: "OPT-PARTICIPANT")], rawValue: "mailto:new@example.com"))
        event.attendees = Array(attendees.prefix(1))
        #expect(event.properties(.attendee).count == 1)

        var organizer = try #require(event.organizer)
        organizer.commonName = "J. Smith"
        event.organizer = organizer
        #expect(event.property(.organizer)?.parameters == [Parameter(name: "CN", rawValue: "J. Smith"), Parameter(name: "X-ORG", rawValue: "1")])
    }

    @Test func alarmTriggerSetters() throws {
        let (_, event, _) = try Self.read()
        var alarm = event.components(.alarm)[0]
        alarm.trigger = .relative(Duration(isNegative: true, minutes: 30), relatedTo: .start)
        #expect(alarm.property(.trigger) == Property(.trigger, parameters: [Parameter(name: "X-T", rawValue: "1")], rawValue: "-PT30M"))
        alarm.trigger = .absolute(DateTime(LocalDateTime(year: 2024, month: 1, day: 1, hour: 8)!, zone: .utc))
        #expect(alarm.property(.trigger) == Property(.trigger, parameters: [
            Parameter(name: "X-T", rawValue: "1"), Parameter(name: "VALUE", rawValue: "DATE-TIME"),
        ], rawValue: "20240101T080000Z"))
        alarm.trigger = .relative(Duration(minutes: 5), relatedTo: .end)
        #expect(alarm.property(.trigger) == Property(.trigger, parameters: [
            Parameter(name: "X-T", rawValue: "1"), Parameter(name: "RELATED", rawValue: "END"),
        ], rawValue: "PT5M"))
        alarm.trigger = nil
        #expect(alarm.property(.trigger) == nil)
    }

    @Test func keywordAndScalarSetters() throws {
        var (_, event, override) = try Self.read()
        event.status = .cancelled
        #expect(event.property(.status)?.rawValue == "CANCELLED")
        event.status = Status(rawValue: "x-postponed")
        #expect(event.status?.rawValue == "X-POSTPONED")
        event.sequence = 3
        #expect(event.property(.sequence)?.rawValue == "3")
        event.url = URI(rawValue: "https://example.com/other")
        #expect(event.property(.url)?.rawValue == "https://example.com/other")
        event.geographicPosition = nil
        #expect(event.property(.geographicPosition) == nil)
        event.transparency = .opaque
        #expect(event.property(.timeTransparency)?.rawValue == "OPAQUE")

        override.recurrenceIdentifierRange = nil
        #expect(override.property(.recurrenceIdentifier)?.parameters == [Parameter(name: "VALUE", rawValue: "DATE")])
        override.recurrenceIdentifier = Self.newYork(4, 9)
        #expect(override.property(.recurrenceIdentifier)?.parameters == [Parameter(name: "TZID", rawValue: "America/New_York")])
        override.duration = Duration(hours: 1)
        #expect(override.property(.duration)?.rawValue == "PT1H")
    }

    @Test func getterEdgeCases() {
        var event = Component(kind: .event)
        event.addProperty(Property(.dateTimeStart, parameters: [Parameter(name: "VALUE", rawValue: "DATE")], rawValue: "20240101T100000"))
        #expect(event.dateTimeStart == nil)  // VALUE=DATE with a time does not fit
        event.addProperty(Property(.sequence, rawValue: " 4 "))
        #expect(event.sequence == 4)
        event.addProperty(Property(.exceptionDates, rawValue: "20240101T100000Z,bogus,20240103T100000Z"))
        #expect(event.exceptionDates.count == 2)
        event.addProperty(Property(.trigger, parameters: [Parameter(name: "VALUE", rawValue: "BINARY")], rawValue: "-PT5M"))
        #expect(event.trigger == nil)
    }

    @Test func buildsEventsFromSwift() throws {
        var calendar = Component.calendar(productIdentifier: "-//Example Corp.//Planner 1.0//EN")
        var event = Component.event(
            uid: "19970610T172345Z-AF23B2@example.com",
            start: DateTime(LocalDateTime(year: 1997, month: 7, day: 14, hour: 17)!, zone: .utc),
            end: DateTime(LocalDateTime(year: 1997, month: 7, day: 15, hour: 4)!, zone: .utc),
            summary: "Bastille Day Party",
            stamp: DateTime(LocalDateTime(year: 1997, month: 6, day: 10, hour: 17, minute: 23, second: 45)!, zone: .utc))
        event.addComponent(.alarm(action: .display, trigger: .relative(Duration(isNegative: true, minutes: 15), relatedTo: .start),
                                  description: "Party"))
        calendar.addComponent(event)
        calendar.addComponent(.todo(uid: "todo-1", due: DateTime(date: CalendarDate(year: 1997, month: 7, day: 13)!),
                                    summary: "Buy wine", stamp: event.dateTimeStamp))
        #expect(ICalWriter().string(calendar) == """
            BEGIN:VCALENDAR\r
            PRODID:-//Example Corp.//Planner 1.0//EN\r
            VERSION:2.0\r
            BEGIN:VEVENT\r
            UID:19970610T172345Z-AF23B2@example.com\r
            DTSTAMP:19970610T172345Z\r
            DTSTART:19970714T170000Z\r
            DTEND:19970715T040000Z\r
            SUMMARY:Bastille Day Party\r
            BEGIN:VALARM\r
            ACTION:DISPLAY\r
            TRIGGER:-PT15M\r
            DESCRIPTION:Party\r
            END:VALARM\r
            END:VEVENT\r
            BEGIN:VTODO\r
            UID:todo-1\r
            DTSTAMP:19970610T172345Z\r
            DUE;VALUE=DATE:19970713\r
            SUMMARY:Buy wine\r
            END:VTODO\r
            END:VCALENDAR\r

            """)
        let stamped = Component.event(uid: "x", start: DateTime(date: CalendarDate(year: 2024, month: 1, day: 1)!))
        #expect(stamped.dateTimeStamp?.zone == .utc)
        #expect(try ICalReader().read(ICalWriter().string(calendar)).diagnostics.isEmpty)
    }
}
