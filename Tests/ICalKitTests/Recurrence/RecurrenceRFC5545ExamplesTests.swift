import Testing
import ICalKit

/// Every example of RFC 5545 §3.8.5.3, in America/New_York as the RFC gives them.
///
/// The expected lists restate the RFC's (cross-checked with python-dateutil). One RFC list
/// is wrong (a known erratum): "every 3 hours from 9:00 AM to 5:00 PM on a specific day"
/// has `UNTIL=19970902T170000Z`, which is 13:00 EDT, so 15:00 is not an instance; the
/// expected list here has 09:00 and 12:00 only.
@Suite struct RecurrenceRFC5545ExamplesTests {
    typealias Support = RecurrenceTestSupport

    @Test(arguments: rfc5545Examples)
    func example(_ example: RFCExample) {
        var lines = ["DTSTART;TZID=America/New_York:\(example.start)", "RRULE:\(example.rule)"]
        if example.name == "fridayThirteenth" {
            lines.append("EXDATE;TZID=America/New_York:19970902T090000")
        }
        let set = Support.set(Support.event(lines: lines))
        let start = Support.instant(example.start, Support.newYork)
        let end = example.windowEnd.map { Support.instant($0, Support.newYork) } ?? Support.instant("21000101T000000Z")
        let expansion = set.expand(in: start..<end)
        #expect(expansion.truncation == nil, "\(example.name)")
        #expect(Support.starts(expansion.occurrences) == example.expected, "\(example.name)")
        for occurrence in expansion.occurrences {
            #expect(occurrence.start.zone == .identifier("America/New_York"))
            #expect(occurrence.startInstant == Support.newYork.instant(for: occurrence.start.local))
            #expect(occurrence.recurrenceIdentifier == occurrence.start)
            #expect(!occurrence.isOverride && !occurrence.isAllDay)
        }
    }

    @Test func everyThreeHoursErratum() {
        let set = Support.set(Support.event(lines: ["DTSTART;TZID=America/New_York:19970902T090000",
                                                    "RRULE:FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z"]))
        let occurrences = set.expand(in: Support.window("19970901T000000Z", "19970910T000000Z")).occurrences
        // The RFC lists 15:00 EDT too, but UNTIL (17:00Z) is 13:00 EDT.
        #expect(Support.starts(occurrences) == ["19970902T090000", "19970902T120000"])
    }
}

extension RecurrenceTestSupport {
    static func event(lines: [String], uid: String = "series@example.com") -> [String] {
        ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20240101T000000Z"] + lines + ["END:VEVENT"]
    }
}

extension RFCExample: CustomTestStringConvertible {
    var testDescription: String { name }
}
