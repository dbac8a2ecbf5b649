import Testing
@testable import ICalKit

/// A series' wall-clock times and an export's values are read with a subtraction while they
/// stay in a zone's quiet span (``QuietSpanCache``). These tests hold the spans to the zone's
/// own reading (`utcOffset(forLocal:)`, RFC 5545 §3.3.5 gaps and overlaps included) on random
/// times from 1900 to 2040, in zones with unusual changes: half-hour DST (Lord Howe), a
/// skipped day (Apia), negative DST (Dublin), DST suspended for Ramadan (Casablanca), none
/// (Kolkata), and a fixed offset.
@Suite struct QuietSpanTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia",
                        "Europe/Dublin", "Africa/Casablanca", "Asia/Kolkata"]
    /// 1900-01-01 and 2040-01-01, as wall-clock seconds.
    static let first: Int64 = -2_208_988_800, last: Int64 = 2_208_988_800

    @Test(arguments: zones)
    func spansReadTimesAsTheZoneDoes(_ name: String) throws {
        let zone = try #require(IANATimeZone(named: name))
        var cache = QuietSpanCache(zone)
        // The same times on every run.
        var random = OccurrenceStreamTests.Random(state: UInt64(name.utf8.count) &* 7919)
        func next(_ bound: Int64) -> Int64 { Int64(random.int(0...Int(bound - 1))) }
        var local = Self.first
        var fromSpans = 0
        while local < Self.last {
            // Mostly a series' steps (hours to weeks), sometimes a jump back or ahead.
            local += next(3) == 0 ? next(40 * 86_400) - 10 * 86_400 : next(8 * 86_400)
            let time = LocalDateTime(secondsSinceEpoch: local)
            let expected = zone.utcOffset(forLocal: time)
            if let offset = cache.offset(forLocalSeconds: local) {
                fromSpans += 1
                #expect(offset == expected, "\(name) \(time)")
                // Not moved by a change: the instant reads back as the same wall-clock time.
                #expect(zone.local(at: local - Int64(offset)) == time, "\(name) \(time)")
            }
            if let span = zone.quietSpan(forLocalSeconds: local) {
                for edge in [span.lower + 1, span.upper - 1] {
                    #expect(zone.utcOffset(forLocal: LocalDateTime(secondsSinceEpoch: edge)) == span.offset, "\(name) \(edge)")
                }
            }
        }
        // The spans answer most readings (the test would pass vacuously otherwise).
        #expect(fromSpans > 1_000)
    }

    @Test func aFixedOffsetIsOneSpan() {
        let zone = FixedOffsetZone(identifier: "X", offset: -5 * 3600)
        var cache = QuietSpanCache(zone)
        for local in stride(from: Self.first, to: Self.last, by: 9_999_937) {
            #expect(cache.offset(forLocalSeconds: local) == -5 * 3600)
        }
    }

    /// A change near a time: no span, so the zone itself reads it (a gap time moves).
    @Test func noSpanNearAChange() throws {
        let berlin = try #require(IANATimeZone(named: "Europe/Berlin"))
        let gap = LocalDateTime(year: 2024, month: 3, day: 31, hour: 2, minute: 30)!.secondsSinceEpoch
        #expect(berlin.quietSpan(forLocalSeconds: gap) == nil)
        #expect(berlin.quietSpan(forLocalSeconds: gap + 3 * 86_400) != nil)
    }
}
