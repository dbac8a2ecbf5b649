import Foundation
import ICalKit

/// Test-only zone rules backed by Foundation's `TimeZone`, with RFC 5545 §3.3.5 semantics
/// for local times: a time in a gap is read with the offset before the gap, a repeated
/// time as its first occurrence. The real TZID resolver replaces it outside tests.
struct FoundationTimeZoneRules: TimeZoneRules {
    let identifier: String
    private let zone: TimeZone

    init?(_ identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.identifier = identifier
        self.zone = zone
    }

    func utcOffset(atInstant instant: Int64) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
    }

    func utcOffset(forLocal local: LocalDateTime) -> Int {
        let wall = local.secondsSinceEpoch
        // Offsets in force around this wall-clock time (transitions are more than a day apart).
        let before = utcOffset(atInstant: wall - 86_400 - 50_400)
        let after = utcOffset(atInstant: wall + 86_400 + 50_400)
        let candidates = Set([before, after, utcOffset(atInstant: wall - Int64(before)), utcOffset(atInstant: wall - Int64(after))])
        // Valid readings: the offset in force at the instant it names. The first occurrence
        // of a repeated time is the earliest instant, so the largest offset.
        let valid = candidates.filter { utcOffset(atInstant: wall - Int64($0)) == $0 }
        if let first = valid.max() { return first }
        // In a gap: the offset before the gap (RFC 5545 §3.3.5).
        return utcOffset(atInstant: wall - Int64(max(before, after)) - 3 * 3600)
    }

    /// A lookup for `RecurrenceSet` over Foundation's zone names.
    static let lookup: @Sendable (String) -> (any TimeZoneRules)? = { FoundationTimeZoneRules($0) }
}
