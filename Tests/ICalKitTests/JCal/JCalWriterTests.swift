import Testing
@testable import ICalKit

@Suite struct JCalWriterTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var line: String
        var json: String
        var testDescription: String { line }
    }

    /// One content line and the compact jCal property array it becomes.
    static let cases: [Case] = [
        Case(line: "DTSTART:20240131T100000", json: #"["dtstart",{},"date-time","2024-01-31T10:00:00"]"#),
        Case(line: "DTSTART;TZID=Europe/Berlin:20240131T100000", json: #"["dtstart",{"tzid":"Europe/Berlin"},"date-time","2024-01-31T10:00:00"]"#),
        Case(line: "DTSTAMP:20240131T100000Z", json: #"["dtstamp",{},"date-time","2024-01-31T10:00:00Z"]"#),
        Case(line: "DTSTART;VALUE=DATE:20240131", json: #"["dtstart",{},"date","2024-01-31"]"#),
        Case(line: "X-T;VALUE=TIME:083000", json: #"["x-t",{},"time","08:30:00"]"#),
        Case(line: "TZOFFSETFROM:+0100", json: #"["tzoffsetfrom",{},"utc-offset","+01:00"]"#),
        Case(line: "TZOFFSETTO:-045512", json: #"["tzoffsetto",{},"utc-offset","-04:55:12"]"#),
        Case(line: "DURATION:P1W", json: #"["duration",{},"duration","P1W"]"#),
        Case(line: "TRIGGER:-PT15M", json: #"["trigger",{},"duration","-PT15M"]"#),
        Case(line: "TRIGGER;VALUE=DATE-TIME:20240101T000000Z", json: #"["trigger",{},"date-time","2024-01-01T00:00:00Z"]"#),
        Case(line: "RDATE;VALUE=PERIOD:20240101T090000Z/20240101T100000Z,20240102T090000Z/PT1H",
             json: #"["rdate",{},"period",["2024-01-01T09:00:00Z","2024-01-01T10:00:00Z"],["2024-01-02T09:00:00Z","PT1H"]]"#),
        Case(line: "EXDATE:20240101T090000Z,20240108T090000Z", json: #"["exdate",{},"date-time","2024-01-01T09:00:00Z","2024-01-08T09:00:00Z"]"#),
        Case(line: "FREEBUSY;FBTYPE=BUSY:20240101T090000Z/PT1H", json: #"["freebusy",{"fbtype":"BUSY"},"period",["2024-01-01T09:00:00Z","PT1H"]]"#),
        Case(line: "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;UNTIL=20240601",
             json: #"["rrule",{},"recur",{"freq":"WEEKLY","interval":2,"byday":["MO","WE"],"until":"2024-06-01"}]"#),
        Case(line: "RRULE:RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=01,-1",
             json: #"["rrule",{},"recur",{"rscale":"CHINESE","freq":"YEARLY","bymonth":"5L","bymonthday":["01",-1]}]"#),
        Case(line: "PRIORITY:5", json: #"["priority",{},"integer",5]"#),
        Case(line: "X-F;VALUE=FLOAT:-0.50", json: #"["x-f",{},"float",-0.50]"#),
        Case(line: "X-B;VALUE=BOOLEAN:false", json: #"["x-b",{},"boolean",false]"#),
        Case(line: "GEO:37.386013;-122.082932", json: #"["geo",{},"float",[37.386013,-122.082932]]"#),
        Case(line: "REQUEST-STATUS:3.7;Invalid user\\; see data;ATTENDEE:mailto:a@example.com",
             json: #"["request-status",{},"text",["3.7","Invalid user; see data","ATTENDEE:mailto:a@example.com"]]"#),
        Case(line: "SUMMARY:Hi\\, there\\nsecond \\\\ line", json: #"["summary",{},"text","Hi, there\nsecond \\ line"]"#),
        Case(line: "CATEGORIES:a,b\\,c", json: #"["categories",{},"text","a","b,c"]"#),
        Case(line: "ATTENDEE;MEMBER=\"mailto:a@x\",\"mailto:b@x\";CN=\"Doe, Jane\":mailto:j@x",
             json: #"["attendee",{"member":["mailto:a@x","mailto:b@x"],"cn":"Doe, Jane"},"cal-address","mailto:j@x"]"#),
        Case(line: "X-WR-CALNAME:raw \\, kept", json: #"["x-wr-calname",{},"unknown","raw \\, kept"]"#),
        Case(line: "X-FOO;VALUE=X-BAR:as written", json: #"["x-foo",{},"x-bar","as written"]"#),
        Case(line: "X-D;X-P=1;VALUE=DATE:soon", json: #"["x-d",{"x-p":"1","value":"DATE"},"unknown","soon"]"#),
        Case(line: "X-A;X-P=1;X-P=2:v", json: #"["x-a",{"x-p":["1","2"]},"unknown","v"]"#),
        Case(line: "ATTACH;ENCODING=BASE64;VALUE=BINARY:SGk=", json: #"["attach",{"encoding":"BASE64"},"binary","SGk="]"#),
        Case(line: "URL:https://example.com/?a=1&b=2", json: #"["url",{},"uri","https://example.com/?a=1&b=2"]"#),
        Case(line: "CN-NOTE;LANGUAGE=de:Grüße ☕", json: #"["cn-note",{"language":"de"},"unknown","Grüße ☕"]"#),
    ]

    @Test(arguments: cases)
    func propertyBecomesItsJCalArray(_ testCase: Case) throws {
        let text = "BEGIN:VCALENDAR\nBEGIN:VEVENT\n\(testCase.line)\nEND:VEVENT\nEND:VCALENDAR\n"
        let read = try ICalReader().read(text)
        #expect(read.errors.isEmpty, "\(read.errors)")
        let property = try #require(read.calendars.first?.components.first?.properties.first)
        #expect(JCalWriter.json(property).serialized() == testCase.json)
        // and back: the property as written
        let back = try JCalReader.property(try JCalJSON.parse(Array(testCase.json.utf8)), path: "$")
        #expect(back == property.normalizedForInterchange())
    }

    @Test func prettyLayoutIsStable() throws {
        let calendar = Component(kind: .calendar, properties: [
            Property(.version, rawValue: "2.0"),
        ], components: [
            Component(kind: .event, properties: [
                Property(.uniqueIdentifier, rawValue: "1"),
                Property(.recurrenceRule, rawValue: "FREQ=DAILY;BYHOUR=9,17"),
            ], components: [
                Component(kind: .alarm, properties: [Property(.trigger, rawValue: "-PT5M")]),
            ]),
            Component(name: "X-EMPTY"),
        ])
        let expected = """
            [
              "vcalendar",
              [
                ["version", {}, "text", "2.0"]
              ],
              [
                [
                  "vevent",
                  [
                    ["uid", {}, "text", "1"],
                    ["rrule", {}, "recur", {"freq": "DAILY", "byhour": [9, 17]}]
                  ],
                  [
                    [
                      "valarm",
                      [
                        ["trigger", {}, "duration", "-PT5M"]
                      ],
                      []
                    ]
                  ]
                ],
                [
                  "x-empty",
                  [],
                  []
                ]
              ]
            ]

            """
        #expect(JCalWriter().string(calendar, pretty: true) == expected)
        #expect(JCalWriter().string(calendar) == #"["vcalendar",[["version",{},"text","2.0"]],[["vevent",[["uid",{},"text","1"],["rrule",{},"recur",{"freq":"DAILY","byhour":[9,17]}]],[["valarm",[["trigger",{},"duration","-PT5M"]],[]]]],["x-empty",[],[]]]]"#)
        #expect(try JCalReader().read(expected) == [calendar])
    }

    @Test func stringsEscapeOnlyWhatJSONRequires() {
        var output: [UInt8] = []
        JCalJSON.writeString("a\"b\\c\n\r\t\u{08}\u{0C}\u{01}/é☕😀", to: &output)
        #expect(String(decoding: output, as: UTF8.self) == #""a\"b\\c\n\r\t\b\f\u0001/é☕😀""#)
    }

    @Test func defaultTypesFollowTheRFCs() {
        #expect(JCalValueType.defaultType(for: .dateTimeStart) == .dateTime)
        #expect(JCalValueType.defaultType(for: .attendee) == .calendarAddress)
        #expect(JCalValueType.defaultType(for: .geographicPosition) == .float)
        #expect(JCalValueType.defaultType(for: "refresh-interval") == .duration)
        #expect(JCalValueType.defaultType(for: "CONFERENCE") == .uri)
        #expect(JCalValueType.defaultType(for: "LOCATION-TYPE") == .text)
        #expect(JCalValueType.defaultType(for: "X-WR-CALNAME") == .unknown)
        #expect(JCalValueType.type(of: Property(.recurrenceDates, parameters: [Parameter(name: "value", rawValue: "period")], rawValue: "")) == .period)
        #expect(JCalValueType.isMultiValued(.categories) && !JCalValueType.isMultiValued(.summary))
    }
}
