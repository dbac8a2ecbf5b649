import Testing
@testable import ICalKit

/// Seeded random trees mixing canonical and non-canonical names, parameters and values
/// (good and bad for their types), to check the round-trip guarantees beyond the
/// hand-written calendars. The seed is fixed, so every run checks the same trees.
@Suite struct JCalRandomRoundTripTests {
    static let propertyNames = [
        "DTSTART", "dtend", "SUMMARY", "Description", "CATEGORIES", "RESOURCES", "RDATE", "EXDATE",
        "FREEBUSY", "RRULE", "GEO", "REQUEST-STATUS", "PRIORITY", "TRIGGER", "TZOFFSETFROM",
        "ATTENDEE", "URL", "X-FOO", "x-bar", "IANA-THING", "DURATION", "ATTACH", "COLOR",
    ]
    static let values = [
        "", "20240101", "20240101T100000", "20240101T100000Z", "20240231", "2024-01-01",
        "20240101,20240102", "20240101T100000Z,20240102T100000Z", "20240101T100000Z/PT1H",
        "20240101T100000Z/20240101T110000Z,20240101T120000Z/P1D", "-PT15M", "+P1W", "P", "PT1H30M",
        "FREQ=DAILY", "freq=weekly;byday=MO,-1fr;COUNT=05", "FREQ=YEARLY;UNTIL=20241231T000000Z;BYMONTH=1,2",
        "FREQ=DAILY;;", "FREQ=DAILY;FREQ=WEEKLY", "1.5;-2.25", "1;2;3", "3.7;Bad\\; really;data,x",
        "5", "+5", "-0", "007", "1.50", "TRUE", "false", "maybe", "+0100", "-013045", "+01",
        "103000", "103000Z", "a,b\\,c", "a\\;b\\nc\\Nd\\\\e", "plain text: with colon", "mailto:a@example.com",
        "Grüße ☕ 😀", "back\\slash", "trailing\\", "tab\there",
    ]
    static let parameters = [
        Parameter(name: "TZID", rawValue: "Europe/Berlin"),
        Parameter(name: "tzid", rawValue: "\"Europe/Berlin\""),
        Parameter(name: "VALUE", rawValue: "DATE"),
        Parameter(name: "value", rawValue: "date-time"),
        Parameter(name: "VALUE", rawValue: "PERIOD"),
        Parameter(name: "VALUE", rawValue: "TEXT"),
        Parameter(name: "VALUE", rawValue: "BOOLEAN"),
        Parameter(name: "VALUE", rawValue: "INTEGER"),
        Parameter(name: "VALUE", rawValue: "FLOAT"),
        Parameter(name: "VALUE", rawValue: "TIME"),
        Parameter(name: "VALUE", rawValue: "UTC-OFFSET"),
        Parameter(name: "VALUE", rawValue: "RECUR"),
        Parameter(name: "VALUE", rawValue: "X-TYPE"),
        Parameter(name: "VALUE", rawValue: "UNKNOWN"),
        Parameter(name: "VALUE", rawValue: "\"A,B\""),
        Parameter(name: "CN", rawValue: "\"Doe, Jane\""),
        Parameter(name: "CN", rawValue: "Plain"),
        Parameter(name: "X-P", rawValue: "1,2,\"3;4\""),
        Parameter(name: "x-p", rawValue: "5"),
        Parameter(name: "X-C", rawValue: "^^^n^'^x"),
        Parameter(name: "X-E", rawValue: ""),
        Parameter(name: "MEMBER", rawValue: "\"mailto:a@x\",\"mailto:b@x\""),
    ]

    static func randomTree(_ rng: inout SplitMix64, depth: Int = 0) -> Component {
        let names = ["VEVENT", "vtodo", "X-THING", "VALARM"]
        var component = Component(name: depth == 0 ? "VCALENDAR" : names.randomElement(using: &rng) ?? "VEVENT")
        for _ in 0..<Int.random(in: 0...8, using: &rng) {
            var property = Property(
                name: propertyNames.randomElement(using: &rng) ?? "X-FOO",
                rawValue: values.randomElement(using: &rng) ?? "")
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                if let parameter = parameters.randomElement(using: &rng) { property.parameters.append(parameter) }
            }
            component.properties.append(property)
        }
        if depth < 2 {
            for _ in 0..<Int.random(in: 0...2, using: &rng) {
                component.components.append(randomTree(&rng, depth: depth + 1))
            }
        }
        return component
    }

    @Test func randomTreesKeepTheGuarantees() throws {
        var rng = SplitMix64(seed: 7265)
        var checkedThroughText = 0
        for _ in 0..<400 {
            let tree = Self.randomTree(&rng)
            let normalized = tree.normalizedForInterchange()
            let json = JCalWriter().bytes(tree)
            let back = try JCalReader().read(json)
            #expect(back == [normalized], "\(ICalWriter().string(tree))")
            #expect(normalized.normalizedForInterchange() == normalized)
            // (b) on the writer's output, compact and pretty
            #expect(JCalWriter().bytes(back) == json)
            let pretty = JCalWriter().bytes(tree, pretty: true)
            #expect(JCalWriter().bytes(try JCalReader().read(pretty), pretty: true) == pretty)
            // (b) through iCalendar text as well, when ICalReader keeps every line (it
            // leaves out a DTSTART or PRIORITY whose value is invalid)
            let reread = try ICalReader().read(ICalWriter().string(back))
            if reread.errors.isEmpty {
                #expect(JCalWriter().bytes(reread.calendars) == json, "\(ICalWriter().string(back))")
                checkedThroughText += 1
            }
        }
        // Value validation leaves out random values that are invalid for their type (an
        // RRULE, a UTC offset), so only part of the trees read back without errors.
        #expect(checkedThroughText > 25)
    }

    /// Mutated jCal either reads or throws an ICalError, never traps; what reads is
    /// stable once written.
    @Test func mutatedJCalNeverTraps() throws {
        var rng = SplitMix64(seed: 5545)
        let sources = try JCalFixtures.all.map { try Array(JCalWriter().bytes(ICalReader().read($0.text).calendars)) }
        let alphabet = Array("[]{}\",:0123456789-.eEtfnu\\ aZ".utf8) + [0x0A, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = sources.randomElement(using: &rng) ?? []
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes.remove(at: index)
                case 1: bytes.insert(alphabet.randomElement(using: &rng) ?? 0x20, at: index)
                default: bytes[index] = alphabet.randomElement(using: &rng) ?? 0x20
                }
            }
            guard let components = try? JCalReader().read(bytes) else { continue }
            accepted += 1
            let written = JCalWriter().bytes(components)
            #expect(JCalWriter().bytes(try JCalReader().read(written)) == written)
        }
        #expect(accepted > 100)
    }
}
