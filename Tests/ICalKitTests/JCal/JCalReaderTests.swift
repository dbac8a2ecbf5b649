import Testing
@testable import ICalKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct JCalReaderTests {
    struct Bad: CustomTestStringConvertible, Sendable {
        var json: String
        var code: ICalError.Code
        var message: String
        var line: Int? = nil
        var testDescription: String { message }
    }

    static let bad: [Bad] = [
        // Not JSON
        Bad(json: "", code: .json, message: "invalid JSON at column 1: the input is empty"),
        Bad(json: "[\"vcalendar\",\n [], ]", code: .json, message: "column 6: unexpected ']'; expected a value", line: 2),
        Bad(json: "[\"vcalendar\" []]", code: .json, message: "expected ',' or ']'"),
        Bad(json: "{\"a\" 1}", code: .json, message: "expected ':' after the member name \"a\""),
        Bad(json: "[\"a\\x\"]", code: .json, message: "unknown escape '\\x'"),
        Bad(json: "[\"\\ud800\"]", code: .json, message: "low surrogate"),
        Bad(json: "[01]", code: .json, message: "must not start with 0"),
        Bad(json: "[1.]", code: .json, message: "digits after '.'"),
        Bad(json: "[\"tab\there\"]", code: .json, message: "control character"),
        Bad(json: "[tru]", code: .json, message: "expected 'true'"),
        Bad(json: "[] []", code: .json, message: "after the JSON value"),
        Bad(json: String(repeating: "[", count: 200), code: .json, message: "nested deeper than 128"),
        // Not jCal
        Bad(json: "{}", code: .jcal, message: "$: a jCal document must be a component array"),
        Bad(json: #"["vcalendar",[]]"#, code: .jcal, message: "$: a component must be an array of three elements"),
        Bad(json: #"[["vcalendar",[],[]],"x"]"#, code: .jcal, message: "$[1]: a component must be an array"),
        Bad(json: #"["v calendar",[],[]]"#, code: .jcal, message: "$[0]: a component name must be"),
        Bad(json: #"["vcalendar",{},[]]"#, code: .jcal, message: "$[1]: a component's properties must be an array"),
        Bad(json: #"["vcalendar",[],[["vevent",[["uid",{},"text"]],[]]]]"#, code: .jcal, message: "$[2][0][1][0]: a property must be an array"),
        Bad(json: #"["vcalendar",[],[["vevent",[["uid",[],"text","1"]],[]]]]"#, code: .jcal, message: "$[2][0][1][0][1]: a property's parameters must be an object"),
        Bad(json: #"["vcalendar",[["version",{},7,"2.0"]],[]]"#, code: .jcal, message: "$[1][0][2]: a property's type must be a name"),
        Bad(json: #"["vcalendar",[["begin",{},"text","x"]],[]]"#, code: .jcal, message: "$[1][0][0]: begin is not a property name"),
        Bad(json: #"["vcalendar",[["x",{"a":"1","A":"2"},"text","x"]],[]]"#, code: .jcal, message: "$[1][0][1].A: the parameter A appears twice"),
        Bad(json: #"["vcalendar",[["x",{"a":1},"text","x"]],[]]"#, code: .jcal, message: "$[1][0][1].a: a parameter value must be a string or a non-empty array"),
        Bad(json: #"["vcalendar",[["x",{"a":["1",2]},"text","x"]],[]]"#, code: .jcal, message: "$[1][0][1].a[1]: a parameter value must be a string"),
        Bad(json: #"["vcalendar",[["x",{"value":"DATE"},"date","2024-01-01"]],[]]"#, code: .jcal, message: "$[1][0][1].value: the value parameter is only allowed with the type \"unknown\""),
        // Values that are not of their type
        Bad(json: #"["vcalendar",[["dtstart",{},"date","2024-13-01"]],[]]"#, code: .invalidValue, message: "$[1][0][3]: \"2024-13-01\" is not a date"),
        Bad(json: #"["vcalendar",[["dtstart",{},"date-time","2024-01-01 10:00:00"]],[]]"#, code: .invalidValue, message: "$[1][0][3]: \"2024-01-01 10:00:00\" is not a date-time"),
        Bad(json: #"["vcalendar",[["dtstart",{},"date-time","2024-01-01T10:00:00+01:00"]],[]]"#, code: .invalidValue, message: "is not a date-time"),
        Bad(json: #"["vcalendar",[["exdate",{},"date-time","2024-01-01T10:00:00Z",5]],[]]"#, code: .invalidValue, message: "$[1][0][4]: a date-time value must be a string, found a number"),
        Bad(json: #"["vcalendar",[["x",{},"time","25:00:00"]],[]]"#, code: .invalidValue, message: "is not a time"),
        Bad(json: #"["vcalendar",[["tzoffsetto",{},"utc-offset","+0100"]],[]]"#, code: .invalidValue, message: "is not a UTC offset"),
        Bad(json: #"["vcalendar",[["duration",{},"duration","1 hour"]],[]]"#, code: .invalidValue, message: "is not a duration"),
        Bad(json: #"["vcalendar",[["rdate",{},"period","2024-01-01T10:00:00Z/PT1H"]],[]]"#, code: .invalidValue, message: "$[1][0][3]: a period must be an array of two strings"),
        Bad(json: #"["vcalendar",[["rdate",{},"period",["2024-01-01T10:00:00Z","soon"]]],[]]"#, code: .invalidValue, message: "$[1][0][3][1]: \"soon\" is neither a date-time nor a duration"),
        Bad(json: #"["vcalendar",[["priority",{},"integer",1.5]],[]]"#, code: .invalidValue, message: "an integer value must be a whole number"),
        Bad(json: #"["vcalendar",[["priority",{},"integer","1"]],[]]"#, code: .invalidValue, message: "an integer value must be a whole number"),
        Bad(json: #"["vcalendar",[["x",{},"float","1.5"]],[]]"#, code: .invalidValue, message: "a float value must be a number, found \"1.5\""),
        Bad(json: #"["vcalendar",[["x",{},"boolean","TRUE"]],[]]"#, code: .invalidValue, message: "a boolean value must be true or false"),
        Bad(json: #"["vcalendar",[["geo",{},"float",[1.5]]],[]]"#, code: .invalidValue, message: "a GEO value must be an array of two numbers"),
        Bad(json: #"["vcalendar",[["summary",{},"text",["a"]]],[]]"#, code: .invalidValue, message: "a text value must be a string, found an array"),
        Bad(json: #"["vcalendar",[["x-a",{},"unknown","line\nbreak"]],[]]"#, code: .invalidValue, message: "must not contain control characters"),
        Bad(json: #"["vcalendar",[["rrule",{},"recur","FREQ=DAILY"]],[]]"#, code: .invalidValue, message: "$[1][0][3]: a recur value must be a non-empty object"),
        Bad(json: #"["vcalendar",[["rrule",{},"recur",{"freq":"DAILY","FREQ":"WEEKLY"}]],[]]"#, code: .invalidValue, message: "$[1][0][3].FREQ: the recur part FREQ appears twice"),
        Bad(json: #"["vcalendar",[["rrule",{},"recur",{"freq":"DAILY","until":"tomorrow"}]],[]]"#, code: .invalidValue, message: "$[1][0][3].until: until must be a date or date-time"),
        Bad(json: #"["vcalendar",[["rrule",{},"recur",{"freq":"DAILY","byday":["MO;X=1"]}]],[]]"#, code: .invalidValue, message: "$[1][0][3].byday[0]: a recur part value must be an integer or a string without ';'"),
        Bad(json: #"["vcalendar",[["rrule",{},"recur",{"freq":"DAILY","count":true}]],[]]"#, code: .invalidValue, message: "$[1][0][3].count: a recur part value"),
    ]

    @Test(arguments: bad)
    func malformedJCalThrowsWithPath(_ bad: Bad) {
        do {
            let components = try JCalReader().read(bad.json)
            Issue.record("expected an error, read \(components)")
        } catch {
            #expect(error.code == bad.code, "\(error)")
            #expect(error.message.contains(bad.message), "\(error.message)")
            if let line = bad.line { #expect(error.line == line) }
        }
    }

    @Test func acceptsAnyNameCaseWhiteSpaceAndABOM() throws {
        let json = "\u{FEFF} [ \"VCALENDAR\" , [ [ \"Version\" , { } , \"TEXT\" , \"2.0\" ] ] ,\r\n [ ] ] \n"
        let components = try JCalReader().read(json)
        #expect(components == [Component(kind: .calendar, properties: [Property(.version, rawValue: "2.0")])])
    }

    @Test func typesBecomeValueParametersOnlyWhenNeeded() throws {
        let json = #"["vcalendar",[],[["vevent",[["dtstart",{"tzid":"Europe/Berlin"},"date","2024-01-01"],["dtend",{},"date-time","2024-01-01T10:00:00"],["x-a",{},"text","a,b"],["x-b",{},"unknown","a,b"],["x-c",{"x-y":"z"},"x-mine","v"],["attach",{"fmttype":"text/plain"},"binary","SGk="]],[]]]]"#
        let ics = ICalWriter().string(try JCalReader().read(json))
        #expect(ics == """
            BEGIN:VCALENDAR\r
            BEGIN:VEVENT\r
            DTSTART;VALUE=DATE;TZID=Europe/Berlin:20240101\r
            DTEND:20240101T100000\r
            X-A;VALUE=TEXT:a\\,b\r
            X-B:a,b\r
            X-C;VALUE=X-MINE;X-Y=z:v\r
            ATTACH;VALUE=BINARY;FMTTYPE=text/plain:SGk=\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
    }

    @Test func jsonEscapesAndSurrogatesDecode() throws {
        let json = #"["vcalendar",[["summary",{"x-p":"caret ^ \"q\"\nline"},"text","\u00e9\ud83d\ude00 \/ \b\f"]],[]]"#
        let property = try #require(try JCalReader().read(json).first?.properties.first)
        #expect(property.textValue == "é😀 / \u{08}\u{0C}")
        #expect(property.parameters == [Parameter(name: "X-P", rawValue: "caret ^^ ^'q^'^nline")])
        #expect(property.parameters[0].value == "caret ^ \"q\"\nline")
    }

    @Test func numbersKeepTheirDigits() throws {
        let json = #"["vcalendar",[["x",{},"float",123456789012345678901234567890.000100],["geo",{},"float",[-0.0,10]]],[]]"#
        let properties = try #require(try JCalReader().read(json).first?.properties)
        #expect(properties.map(\.rawValue) == ["123456789012345678901234567890.000100", "-0.0;10"])
        #expect(JCalWriter().string(try JCalReader().read(json)) == json)
    }

    @Test(arguments: [
        ("1e5", "100000"), ("1.5e-3", "0.0015"), ("-2.50E+2", "-250"), ("0e0", "0"), ("12.34e1", "123.4"),
        ("-1e-1", "-0.1"), ("1.25", "1.25"), ("7E-0", "7"),
    ])
    func floatsWithExponentsBecomePlainDecimals(_ literal: String, _ expected: String) throws {
        let json = #"["vcalendar",[["geo",{},"float",["# + literal + "," + literal + #"]]],[]]"#
        let property = try #require(try JCalReader().read(json).first?.properties.first)
        #expect(property.rawValue == "\(expected);\(expected)")
    }

    @Test func filesAreReadAndWritten() throws {
        let path = "/tmp/jcal-test-\(UInt32.random(in: 0...UInt32.max)).json"
        let calendars = try ICalReader().read(JCalFixtures.apple).calendars
        defer { unlink(path) }
        try JCalWriter().write(calendars, toFile: path, pretty: true)
        #expect(try JCalReader().read(contentsOfFile: path) == calendars)
        do {
            _ = try JCalReader().read(contentsOfFile: path + ".missing")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .io)
        }
    }

    @Test func inputLimitIsEnforced() {
        #expect(throws: ICalError.self) { try JCalReader(maxInputSize: 10).read(#"["vcalendar",[],[]]"#) }
    }
}
