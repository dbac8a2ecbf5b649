import Testing
@testable import ICalKit

@Suite struct JCalRoundTripTests {
    static func calendars(_ text: String) throws -> [Component] {
        let result = try ICalReader().read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return result.calendars
    }

    static let fixtureNames = JCalFixtures.all.map(\.name)

    static func fixture(_ name: String) -> String {
        JCalFixtures.all.first { $0.name == name }?.text ?? ""
    }

    // (a) ics -> jCal -> ics gives the identical tree for canonical input.
    @Test(arguments: fixtureNames)
    func icsToJCalToIcsIsIdentityForCanonicalInput(_ name: String) throws {
        let original = try Self.calendars(Self.fixture(name))
        #expect(original.map { $0.normalizedForInterchange() } == original, "fixture \(name) is not canonical")
        for pretty in [false, true] {
            let json = JCalWriter().bytes(original, pretty: pretty)
            let back = try JCalReader().read(json)
            #expect(back == original)
            #expect(ICalWriter().string(back) == ICalWriter().string(original))
        }
    }

    // (b) jCal -> ics -> jCal gives the identical JSON document.
    @Test(arguments: fixtureNames)
    func jcalToIcsToJCalIsIdentity(_ name: String) throws {
        let original = try Self.calendars(Self.fixture(name))
        for pretty in [false, true] {
            let json = JCalWriter().string(original, pretty: pretty)
            let ics = ICalWriter().string(try JCalReader().read(json))
            let again = JCalWriter().string(try Self.calendars(ics), pretty: pretty)
            #expect(again == json)
        }
    }

    @Test(arguments: fixtureNames)
    func outputIsDeterministic(_ name: String) throws {
        let first = JCalWriter().bytes(try Self.calendars(Self.fixture(name)))
        let second = JCalWriter().bytes(try Self.calendars(Self.fixture(name)))
        #expect(first == second)
    }

    @Test func severalCalendarsTravelAsAnArray() throws {
        let calendars = try Self.calendars(JCalFixtures.google + JCalFixtures.apple)
        #expect(calendars.count == 2)
        for pretty in [false, true] {
            let text = JCalWriter().string(calendars, pretty: pretty)
            #expect(text.hasPrefix(pretty ? "[\n  [\n    \"vcalendar\"" : "[[\"vcalendar\""))
            #expect(try JCalReader().read(text) == calendars)
        }
        #expect(JCalWriter().string([Component]()) == "[]")
        #expect(try JCalReader().read("[]") == [])
    }

    // Hand-written jCal (RFC 7265 Appendix B shapes), in the writer's compact form.
    static let handWrittenJCal: [String] = [
        #"["vcalendar",[["calscale",{},"text","GREGORIAN"],["prodid",{},"text","-//Example Inc.//Example Calendar//EN"],["version",{},"text","2.0"]],[["vevent",[["dtstamp",{},"date-time","2008-02-05T19:12:24Z"],["dtstart",{},"date","2008-10-06"],["summary",{},"text","Planning meeting"],["uid",{},"text","4088E990AD89CB3DBB484909"]],[]]]]"#,
        #"["vcalendar",[["prodid",{},"text","-//Example Corp.//Example Client//EN"],["version",{},"text","2.0"]],[["vtimezone",[["last-modified",{},"date-time","2004-01-10T03:28:45Z"],["tzid",{},"text","US/Eastern"]],[["daylight",[["dtstart",{},"date-time","2000-04-04T02:00:00"],["rrule",{},"recur",{"freq":"YEARLY","byday":"1SU","bymonth":4}],["tzname",{},"text","EDT"],["tzoffsetfrom",{},"utc-offset","-05:00"],["tzoffsetto",{},"utc-offset","-04:00"]],[]],["standard",[["dtstart",{},"date-time","2000-10-26T02:00:00"],["rrule",{},"recur",{"freq":"YEARLY","byday":"-1SU","bymonth":10}],["tzname",{},"text","EST"],["tzoffsetfrom",{},"utc-offset","-04:00"],["tzoffsetto",{},"utc-offset","-05:00"]],[]]]],["vevent",[["dtstamp",{},"date-time","2006-02-06T00:11:21Z"],["dtstart",{"tzid":"US/Eastern"},"date-time","2006-01-02T12:00:00"],["duration",{},"duration","PT1H"],["rrule",{},"recur",{"freq":"DAILY","count":5}],["rdate",{"tzid":"US/Eastern"},"period",["2006-01-02T15:00:00","PT2H"]],["summary",{},"text","Event #2"],["description",{},"text","We are having a meeting all this week at 12\npm for one hour, with an additional meeting\non the first day 2 hours long.\nPlease bring your own lunch for the 12 pm\nmeetings."],["uid",{},"text","00959BC664CA650E933C892C@example.com"]],[]],["vevent",[["dtstamp",{},"date-time","2006-02-06T00:11:21Z"],["dtstart",{"tzid":"US/Eastern"},"date-time","2006-01-04T14:00:00"],["duration",{},"duration","PT1H"],["recurrence-id",{"tzid":"US/Eastern"},"date-time","2006-01-04T12:00:00"],["summary",{},"text","Event #2 bis"],["uid",{},"text","00959BC664CA650E933C892C@example.com"]],[]]]]"#,
        #"["vcalendar",[["version",{},"text","2.0"],["x-wr-calname",{},"unknown","Ünïcödé \\ \"quoted\" \t tab"]],[["vevent",[["uid",{},"text","u"],["categories",{},"text","a","b, c","d;e"],["geo",{},"float",[37.386013,-122.082932]],["request-status",{},"text",["2.0","Success"]],["attendee",{"member":["mailto:a@x.example","mailto:b@x.example"],"cn":"Doe, Jane"},"cal-address","mailto:j@x.example"],["x-flag",{},"boolean",false],["x-n",{},"integer",-12],["x-f",{},"float",0.25],["x-t",{},"time","23:59:60Z"],["x-o",{},"utc-offset","+05:45"],["x-when",{"x-ok":""},"date-time","2024-02-29T23:59:59"],["rrule",{},"recur",{"freq":"MONTHLY","until":"2024-12-31T00:00:00Z","bymonthday":[1,-1],"byday":["MO","+2TU"],"x-name":"01"}],["trigger",{"related":"END"},"duration","-PT15M"],["x-date",{"value":"DATE"},"unknown","soon"]],[]]]]"#,
        #"[["vcalendar",[],[]],["vcalendar",[["version",{},"text","2.0"]],[["x-thing",[["x-a",{"x-p":["1","2"]},"unknown","raw\\,text"]],[]]]]]"#,
    ]

    @Test(arguments: handWrittenJCal.indices)
    func handWrittenJCalSurvivesIcs(_ index: Int) throws {
        let json = Self.handWrittenJCal[index]
        let components = try JCalReader().read(json)
        let ics = ICalWriter().string(components)
        let reread = try ICalReader().read(ics)
        #expect(reread.diagnostics.isEmpty, "\(reread.diagnostics)")
        #expect(JCalWriter().string(reread.calendars) == json)
    }

    // Any input: the round trip gives the normalized tree, and normalizing is idempotent.
    static let nonCanonical = """
        begin:vcalendar
        prodid:x
        version:2.0
        begin:vevent
        uid:n-1
        Summary:a,b\\Nc\\:d
        dtstart;value=date-time;tzid="Europe/Berlin":20240101T100000
        dtend;TzId=Europe/Berlin;VALUE=DATE-TIME:20240101T110000
        X-MULTI;X-A=1;x-a=2;X-B="q":text
        IMAGE;VALUE=URI;DISPLAY=BADGE:https://example.com/i.png
        RDATE;TZID=Europe/Berlin;VALUE=PERIOD:20240301T100000/PT1H
        categories:a,b\\,c,d\\Ne
        rrule:freq=DAILY;count=3;byday=mo,tu
        X-B;VALUE=boolean:true
        X-Q;VALUE=Date:20240101
        X-BAD;X-P=1;value=date;X-Q=2:not a date
        X-BAD2;VALUE="A B":text
        ATTENDEE;CN="plain";X-CARET=^x;X-NL=a^Nb:mailto:a@example.com
        REQUEST-STATUS:2.0;Success, all good
        X-DUP;X-P=a;X-P="b,c":v
        END:VEVENT
        END:VCALENDAR

        """

    /// RFC 7986 gives IMAGE, CONFERENCE, SOURCE and REFRESH-INTERVAL no default type, so
    /// VALUE is required: jCal -> iCalendar keeps it (issue 14: files came back invalid).
    @Test func valueIsKeptWhereThePropertyHasNoDefault() throws {
        let jcal = #"["vcalendar",[["version",{},"text","2.0"],["prodid",{},"text","x"],"#
            + #"["refresh-interval",{},"duration","P1W"],["source",{},"uri","https://example.com/c.ics"],"#
            + #"["image",{"display":"BADGE"},"uri","https://example.com/i.png"]],"#
            + #"[["vevent",[["uid",{},"text","c"],["dtstamp",{},"date-time","2024-01-01T00:00:00Z"],"#
            + #"["conference",{"feature":"AUDIO"},"uri","https://meet.example.com/x"],"#
            + #"["url",{},"uri","https://example.com/e"]],[]]]]"#
        let text = ICalWriter().string(try JCalReader().read(Array(jcal.utf8)))
        #expect(text.contains("REFRESH-INTERVAL;VALUE=DURATION:P1W\r\n"))
        #expect(text.contains("SOURCE;VALUE=URI:https://example.com/c.ics\r\n"))
        #expect(text.contains("IMAGE;VALUE=URI;DISPLAY=BADGE:https://example.com/i.png\r\n"))
        #expect(text.contains("CONFERENCE;VALUE=URI;FEATURE=AUDIO:https://meet.example.com/x\r\n"))
        // A property whose default is the value's type stays without VALUE.
        #expect(text.contains("URL:https://example.com/e\r\n"))
    }

    @Test func nonCanonicalInputComesBackNormalized() throws {
        let original = try ICalReader().read(Self.nonCanonical).calendars
        let normalized = original.map { $0.normalizedForInterchange() }
        #expect(normalized != original)
        let back = try JCalReader().read(JCalWriter().bytes(original))
        #expect(back == normalized)
        #expect(normalized.map { $0.normalizedForInterchange() } == normalized)
        let expected = """
            BEGIN:VCALENDAR\r
            PRODID:x\r
            VERSION:2.0\r
            BEGIN:VEVENT\r
            UID:n-1\r
            SUMMARY:a\\,b\\nc:d\r
            DTSTART;TZID=Europe/Berlin:20240101T100000\r
            DTEND;TZID=Europe/Berlin:20240101T110000\r
            X-MULTI;X-A=1,2;X-B=q:text\r
            IMAGE;VALUE=URI;DISPLAY=BADGE:https://example.com/i.png\r
            RDATE;VALUE=PERIOD;TZID=Europe/Berlin:20240301T100000/PT1H\r
            CATEGORIES:a,b\\,c,d\\ne\r
            RRULE:FREQ=DAILY;COUNT=3;BYDAY=mo,tu\r
            X-B;VALUE=BOOLEAN:TRUE\r
            X-Q;VALUE=DATE:20240101\r
            X-BAD;X-P=1;VALUE=date;X-Q=2:not a date\r
            X-BAD2;VALUE=A B:text\r
            ATTENDEE;CN=plain;X-CARET=^^x;X-NL=a^nb:mailto:a@example.com\r
            REQUEST-STATUS:2.0;Success\\, all good\r
            X-DUP;X-P=a,"b,c":v\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        #expect(ICalWriter().string(normalized) == expected)
    }

    @Test(arguments: fixtureNames)
    func normalizingIsIdempotentOnFixtures(_ name: String) throws {
        let calendars = try Self.calendars(Self.fixture(name))
        let once = calendars.map { $0.normalizedForInterchange() }
        #expect(once.map { $0.normalizedForInterchange() } == once)
    }

    // Trees built through the API, with values that do not follow their type.
    @Test func valuesThatDoNotFollowTheirTypeSurviveAsUnknown() throws {
        let event = Component(kind: .event, properties: [
            Property(.priority, rawValue: "+1"),
            Property(.geographicPosition, rawValue: "north;south"),
            Property(.recurrenceRule, rawValue: "FREQ=DAILY;"),
            Property(.dateTimeStart, parameters: [Parameter(name: "VALUE", rawValue: "DATE")], rawValue: "2024-01-01"),
            Property(.dateTimeStamp, rawValue: "20240230T000000Z"),
            Property(.timeZoneOffsetFrom, rawValue: "+1"),
            Property(.freeBusy, rawValue: "20240101T000000Z/soon"),
            Property(name: "X-F", parameters: [Parameter(name: "VALUE", rawValue: "FLOAT")], rawValue: "1e5"),
        ])
        let calendar = Component(kind: .calendar, components: [event])
        #expect(calendar.normalizedForInterchange() == calendar)
        let json = JCalWriter().string(calendar)
        #expect(json.contains(#"["priority",{},"unknown","+1"]"#))
        #expect(json.contains(#"["dtstart",{"value":"DATE"},"unknown","2024-01-01"]"#))
        #expect(try JCalReader().read(json) == [calendar])
    }
}
