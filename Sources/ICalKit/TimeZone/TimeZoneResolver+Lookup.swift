import Synchronization

extension TimeZoneResolver {
    /// The rules ``resolve(_:)`` of a resolver of `calendar` gives for each TZID, without
    /// the rest of the resolver's work: no walk over every property for the TZIDs in use,
    /// no comparison with tzdata, no diagnostics, and the embedded VTIMEZONEs read only
    /// when a TZID that one of them names is not answered by tzdata (under an IANA name
    /// tzdata wins anyway). For callers that only convert times, many calendars at a time
    /// (a store's index).
    ///
    /// - Parameters:
    ///   - calendar: a VCALENDAR (its VTIMEZONE children are used).
    ///   - file: the file name the VTIMEZONEs' rules carry.
    package static func rulesLookup(calendar: Component, file: String? = nil) -> @Sendable (String) -> (any TimeZoneRules)? {
        let timeZones = calendar.components(.timeZone)
        guard !timeZones.isEmpty else { return { resolveStandard($0)?.rules } }
        // The TZIDs the VTIMEZONEs name, as their rules carry them: no other TZID can find
        // an embedded zone.
        let names = Set(timeZones.compactMap { $0[.timeZoneIdentifier]?.trimmingASCIIWhitespace() })
        let embedded = LazyEmbeddedZones(timeZones, file: file)
        return { tzid in
            guard names.contains(tzid) || names.contains(unquoted(tzid)) else { return resolveStandard(tzid)?.rules }
            if let standard = resolveStandard(tzid), standard.source != .windows { return standard.rules }
            return resolve(tzid, embedded: embedded.rules)?.rules
        }
    }
}

/// The usable VTIMEZONEs of a calendar by TZID (the first of a TZID wins, as in
/// ``TimeZoneResolver``), read on first use.
private final class LazyEmbeddedZones: Sendable {
    private let state: Mutex<(components: [Component], file: String?, rules: [String: VTimeZoneRules]?)>

    init(_ components: [Component], file: String?) {
        state = Mutex((components, file, nil))
    }

    var rules: [String: VTimeZoneRules] {
        state.withLock { state in
            if let rules = state.rules { return rules }
            var rules: [String: VTimeZoneRules] = [:]
            for component in state.components {
                guard let zone = try? VTimeZoneRules(component, file: state.file), rules[zone.identifier] == nil else { continue }
                rules[zone.identifier] = zone
            }
            state.rules = rules
            state.components = []
            return rules
        }
    }
}
