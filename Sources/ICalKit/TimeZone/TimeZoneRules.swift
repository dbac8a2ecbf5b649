/// The rules of one time zone: how wall-clock times and instants map onto each other.
///
/// Instants are seconds since 1970-01-01T00:00:00Z. Local times map to instants the way
/// RFC 5545 §3.3.5 says: a time that does not exist (in a gap, when clocks go forward) is
/// read with the offset in force before the gap, and a time that happens twice (in an
/// overlap, when clocks go back) is its first occurrence.
public protocol TimeZoneRules: Sendable {
    /// The zone's identifier (an IANA name, or the TZID it was resolved from).
    var identifier: String { get }
    /// The offset from UTC, in seconds, in force at an instant.
    func utcOffset(atInstant instant: Int64) -> Int
    /// The offset from UTC, in seconds, to read a wall-clock time with (RFC 5545 §3.3.5).
    func utcOffset(forLocal local: LocalDateTime) -> Int
    /// The instant a wall-clock time names in this zone (RFC 5545 §3.3.5 for gaps and
    /// overlaps). A requirement with a default, so that a call through `any TimeZoneRules`
    /// reaches the zone's own code.
    func instant(for local: LocalDateTime) -> Int64
    /// The wall-clock time at an instant in this zone. A requirement with a default, like
    /// ``instant(for:)``.
    func local(at instant: Int64) -> LocalDateTime
}

extension TimeZoneRules {
    /// The instant a wall-clock time names in this zone (RFC 5545 §3.3.5 for gaps and overlaps).
    public func instant(for local: LocalDateTime) -> Int64 {
        local.secondsSinceEpoch - Int64(utcOffset(forLocal: local))
    }

    /// The wall-clock time at an instant in this zone.
    public func local(at instant: Int64) -> LocalDateTime {
        LocalDateTime(secondsSinceEpoch: instant + Int64(utcOffset(atInstant: instant)))
    }
}

/// A zone with one offset for all time: UTC, or a fixed offset such as `+05:30`.
/// Zones that can say over which wall-clock times their reading stays the same
/// (``QuietSpanCache``).
protocol QuietSpans {
    /// An open range of wall-clock seconds around `local` over which `utcOffset(forLocal:)`
    /// is the returned offset and the time is not moved by a change; nil when the zone
    /// cannot say.
    func quietSpan(forLocalSeconds local: Int64) -> (lower: Int64, upper: Int64, offset: Int)?
}

/// The last quiet span of a zone (``QuietSpans``): reading a series' next wall-clock time in
/// the same span, or another value of an export, is then a subtraction instead of lookups in
/// the zone's table. The same offset as the zone's `utcOffset(forLocal:)`, by the span's
/// definition.
struct QuietSpanCache {
    private let zone: (any QuietSpans)?
    private var lower: Int64 = 0
    private var upper: Int64 = 0
    private var offset = 0

    init(_ zone: any TimeZoneRules) { self.zone = zone as? any QuietSpans }

    /// The zone's `utcOffset(forLocal:)` for a wall-clock time in seconds, when a quiet span
    /// holds it; nil when the caller must ask the zone.
    mutating func offset(forLocalSeconds local: Int64) -> Int? {
        if lower < local, local < upper { return offset }
        guard let span = zone?.quietSpan(forLocalSeconds: local) else { return nil }
        (lower, upper, offset) = span
        return offset
    }
}

extension FixedOffsetZone: QuietSpans {
    func quietSpan(forLocalSeconds local: Int64) -> (lower: Int64, upper: Int64, offset: Int)? {
        (Int64.min, Int64.max, offset)
    }
}

public struct FixedOffsetZone: TimeZoneRules, Hashable, Codable {
    /// The identifier (`UTC`, or the TZID this offset stands for).
    public let identifier: String
    /// The offset from UTC in seconds.
    public let offset: Int

    /// Creates a fixed-offset zone.
    public init(identifier: String, offset: Int) {
        self.identifier = identifier
        self.offset = offset
    }

    /// UTC.
    public static let utc = FixedOffsetZone(identifier: "UTC", offset: 0)

    public func utcOffset(atInstant instant: Int64) -> Int { offset }
    public func utcOffset(forLocal local: LocalDateTime) -> Int { offset }
}
