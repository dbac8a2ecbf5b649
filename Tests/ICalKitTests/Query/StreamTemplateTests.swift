import Testing
@testable import ICalKit

/// A streamed query writes each component's constant fields from a template made once
/// (`ListingTemplates` for JSON, CSV and the agenda; `ItemTemplates` for iCalendar). These
/// tests hold the templates to the general path, byte for byte, on the cases where a
/// template could go wrong: one calendar given as two sources, occurrences of one component
/// in different zones, to-dos that lose their DTEND, journals, conference links, escaped
/// text, THISANDFUTURE, unknown zones, and random calendars.
@Suite struct StreamTemplateTests {
    /// January to April 2026, in instants.
    static let window: Range<Int64> = 1_767_225_600..<1_777_593_600

    static func calendar(_ lines: [String]) throws -> Component {
        try ICalReader().read((["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//Tests//EN"] + lines
            + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n").calendars[0]
    }

    /// Components that take the templates' edge cases.
    static func edgeCases() throws -> Component {
        try calendar([
            // RDATEs in other zones than DTSTART's: the occurrences of one component differ by zone.
            "BEGIN:VEVENT", "UID:zones@example.com", "DTSTAMP:20260101T000000Z",
            "SUMMARY:Zones\\, commas\\; and \"quotes\" \u{1F389}", "DTSTART;TZID=Europe/Berlin:20260105T090000",
            "DTEND;TZID=America/New_York:20260105T060000", "RRULE:FREQ=WEEKLY;COUNT=6",
            "RDATE;TZID=America/New_York:20260110T080000,20260117T080000", "RDATE:20260120T120000Z",
            "CONFERENCE;VALUE=URI;LABEL=Room 1:https://example.com/1", "CONFERENCE;VALUE=URI:tel:+1-555-0100",
            "X-CUSTOM;X-PARAM=a:keeps its place", "LOCATION:Room \\n 2", "STATUS:CONFIRMED",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-PT15M", "END:VALARM",
            "END:VEVENT",
            // A to-do with DTEND (the item drops it and writes DUE instead) and one without DUE.
            "BEGIN:VTODO", "UID:todo-end@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:To-do with DTEND",
            "DTSTART:20260106T100000", "DTEND:20260106T110000", "RRULE:FREQ=WEEKLY;COUNT=4", "END:VTODO",
            "BEGIN:VTODO", "UID:todo-plain@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:To-do",
            "DTSTART;VALUE=DATE:20260107", "RRULE:FREQ=WEEKLY;COUNT=4", "END:VTODO",
            // A journal (no end property).
            "BEGIN:VJOURNAL", "UID:journal@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Journal",
            "DTSTART;VALUE=DATE:20260108", "RRULE:FREQ=MONTHLY;COUNT=3", "END:VJOURNAL",
            // A series with a THISANDFUTURE override and a single one, in a zone no one knows.
            "BEGIN:VEVENT", "UID:future@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Series",
            "DTSTART;TZID=Nowhere/Special:20260102T140000", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=20", "END:VEVENT",
            "BEGIN:VEVENT", "UID:future@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Moved on",
            "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Nowhere/Special:20260110T140000",
            "DTSTART;TZID=Nowhere/Special:20260110T160000", "DTEND;TZID=Nowhere/Special:20260110T170000", "END:VEVENT",
            "BEGIN:VEVENT", "UID:future@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Once",
            "RECURRENCE-ID;TZID=Nowhere/Special:20260104T140000", "DTSTART;TZID=Europe/Berlin:20260104T120000",
            "DTEND;TZID=Europe/Berlin:20260104T130000", "END:VEVENT",
            // A lone event with a lower-case property name, and an all-day series.
            "BEGIN:VEVENT", "UID:lone@example.com", "DTSTAMP:20260101T000000Z", "summary:lower case",
            "dtstart:20260212T080000Z", "dtend:20260212T090000Z", "END:VEVENT",
            "BEGIN:VEVENT", "UID:allday@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:All day",
            "DTSTART;VALUE=DATE:20260301", "DTEND;VALUE=DATE:20260303", "RRULE:FREQ=WEEKLY;COUNT=5", "END:VEVENT",
        ])
    }

    /// Writes the stream in every format and as iCalendar, and compares each with the
    /// general path over the collected matches.
    static func expectTemplatesAgree(_ sources: [OccurrenceQuery.Source], window: Range<Int64>,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let query = OccurrenceQuery(window: window, floatingZone: RecurrenceTestSupport.berlin)
        let matches = query.run(sources).matches
        #expect(!matches.isEmpty, sourceLocation: sourceLocation)
        for zone in [nil, RecurrenceTestSupport.berlin] as [(any TimeZoneRules)?] {
            let formatter = OccurrenceFormatter(displayZone: zone)
            let formats: [OccurrenceFormatter.ListingFormat] = [.json, .csv, .agenda(color: false), .agenda(color: true)]
            for format in formats {
                var streamed: [UInt8] = []
                try formatter.write(query.stream(sources), as: format) { (chunk: [UInt8]) throws(ICalError) in streamed += chunk }
                let general = formatter.bytes(PackedListings(matches.map(OccurrenceListing.init)), as: format)
                #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: general, as: UTF8.self),
                        "\(format)", sourceLocation: sourceLocation)
            }
            var body: [UInt8] = []
            let opening = try formatter.writeCalendar(query.stream(sources)) { (chunk: [UInt8]) throws(ICalError) in body += chunk }
            let general = ICalWriter().bytes(formatter.calendar(matches))
            #expect(String(decoding: opening + body, as: UTF8.self) == String(decoding: general, as: UTF8.self),
                    sourceLocation: sourceLocation)
        }
    }

    @Test func edgeCasesMatchTheGeneralPath() throws {
        let calendar = try Self.edgeCases()
        try Self.expectTemplatesAgree([OccurrenceQuery.Source(calendar: calendar, name: "edge.ics")], window: Self.window)
    }

    /// The time properties of items written from their heads: lines long enough to fold, a
    /// quoted TZID, an explicit VALUE=DATE-TIME, a second DTSTART (kept as it is), a DUE in an
    /// event and a DTEND in a journal (kept), DTEND appended for DURATION, RECURRENCE-IDs with
    /// RANGE, and one series' DATE and DATE-TIME occurrences in several zones.
    @Test func itemTimePropertiesMatchTheGeneralPath() throws {
        let long = "/freeassociation.sourceforge.net/Tzfile/America/Argentina/Buenos_Aires"
        let calendar = try Self.calendar([
            "BEGIN:VEVENT", "UID:long@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Long heads",
            "DTSTART;X-LONG-PARAMETER=some-long-value;TZID=\(long):20260105T090000",
            "DTEND;TZID=\"Europe/Berlin\";VALUE=DATE-TIME:20260105T150000",
            "DUE:20260105T120000Z", "RRULE:FREQ=WEEKLY;COUNT=5", "END:VEVENT",
            "BEGIN:VEVENT", "UID:twice@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Two starts",
            "DTSTART:20260105T100000Z", "DTSTART:20260105T110000Z", "DTEND:20260105T120000Z", "END:VEVENT",
            "BEGIN:VEVENT", "UID:moved@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Series",
            "DTSTART;TZID=Europe/Berlin:20260106T090000", "DURATION:PT90M", "RRULE:FREQ=DAILY;COUNT=4", "END:VEVENT",
            "BEGIN:VEVENT", "UID:moved@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Moved",
            "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20260108T090000",
            "DTSTART;TZID=America/New_York:20260108T090000", "DURATION:PT1H", "END:VEVENT",
            "BEGIN:VJOURNAL", "UID:journal-end@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Journal",
            "DTSTART;TZID=Europe/Berlin:20260109T080000", "DTEND:20260109T090000Z", "RRULE:FREQ=WEEKLY;COUNT=3",
            "END:VJOURNAL",
            "BEGIN:VEVENT", "UID:dates@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Dates and times",
            "DTSTART;VALUE=DATE:20260110", "RRULE:FREQ=WEEKLY;COUNT=3",
            "RDATE;TZID=Europe/Berlin:20260111T100000", "RDATE:20260112T100000", "END:VEVENT",
        ])
        try Self.expectTemplatesAgree([OccurrenceQuery.Source(calendar: calendar, name: "items.ics")], window: Self.window)
    }

    /// The same parsed calendar as two sources: the components (and so the templates' keys)
    /// are shared, the source names are not.
    @Test func oneCalendarAsTwoSources() throws {
        let calendar = try Self.edgeCases()
        try Self.expectTemplatesAgree([OccurrenceQuery.Source(calendar: calendar, name: "a.ics"),
                                       OccurrenceQuery.Source(calendar: calendar, name: "b.ics"),
                                       OccurrenceQuery.Source(calendar: calendar, name: nil)], window: Self.window)
    }

    /// The stream test's random calendars: ties, overrides, RDATE periods, to-dos, zones.
    @Test(arguments: 1...8)
    func randomCalendars(_ seed: Int) throws {
        var random = OccurrenceStreamTests.Random(state: UInt64(seed) &* 7919)
        let sources = (0..<3).map { number in
            OccurrenceQuery.Source(calendar: OccurrenceStreamTests.calendar(&random, events: 25), name: "r\(number).ics")
        }
        try Self.expectTemplatesAgree(sources, window: OccurrenceStreamTests.windows[0])
    }

    /// A template holds its component, so the address it is found by cannot be taken by
    /// another component while it lives, even when the calendar that had it is gone.
    @Test func templatesOutliveTheirCalendars() throws {
        var streamed = OccurrenceFormatter.ListingWriter(formatter: OccurrenceFormatter(), format: .json)
        var out: [UInt8] = []
        var expected: [UInt8] = []
        var general = OccurrenceFormatter.ListingWriter(formatter: OccurrenceFormatter(), format: .json)
        for index in 0..<50 {
            let calendar = try Self.calendar([
                "BEGIN:VEVENT", "UID:u\(index)@example.com", "DTSTAMP:20260101T000000Z", "SUMMARY:Event \(index)",
                "DTSTART:20260105T0900\(index % 10)0Z", "DURATION:PT1H", "END:VEVENT"])
            let query = OccurrenceQuery(window: Self.window, floatingZone: FixedOffsetZone.utc)
            for match in query.run([OccurrenceQuery.Source(calendar: calendar, name: "n\(index).ics")]).matches {
                streamed.append(match, to: &out)
                PackedListings([OccurrenceListing(match)]).forEach { general.append($0, to: &expected) }
            }
        }
        #expect(String(decoding: out, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }
}
