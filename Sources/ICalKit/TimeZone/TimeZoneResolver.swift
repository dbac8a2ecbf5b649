/// Resolves the TZIDs of one calendar to time zone rules, the way ICalKit documents it,
/// and reports what it could not resolve (RFC 5545 §3.2.19, §3.6.5, §3.3.5).
///
/// A TZID is looked up in this order:
/// 1. the calendar's own VTIMEZONE with that TZID (``Source/embedded``);
/// 2. the IANA database in system tzdata, legacy links such as `US/Eastern` included
///    (``Source/iana``, see ``IANATimeZone``);
/// 3. the name with surrounding quotes or a vendor prefix removed:
///    `/mozilla.org/20050126_1/America/New_York`,
///    `/freeassociation.sourceforge.net/Tzfile/Europe/Berlin`, `/citadel.org/…/Europe/Rome`
///    (``Source/vendorPrefix``);
/// 4. a Windows zone name through CLDR's windowsZones mapping, Outlook's numbered
///    variants (`W. Europe Standard Time 1`) and Windows display names
///    (`(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna`) included
///    (``Source/windows``).
///
/// Decisions (see also the ICalKit documentation):
/// - **Under an IANA name, tzdata wins over an embedded VTIMEZONE.** A VTIMEZONE whose TZID
///   is an IANA name (as written, or after removing quotes or a vendor prefix) is read as
///   that tzdata zone, as Google, Apple, Outlook and Python's icalendar do: generators such
///   as iCalcreator embed VTIMEZONEs that cover only a year or two (one STANDARD and one
///   DAYLIGHT onset), and exporters embed stale rules, so extrapolating them shows summer
///   offsets in winter. Where the two disagree at an instant the calendar's own times under
///   that TZID reach (from the earliest year of those values to the latest, or to the end
///   of ``comparisonYears`` for a recurring series), one warning names the VTIMEZONE's file
///   and line, the first instant of disagreement, both offsets, and whether that instant
///   lies outside the span the observances cover. A VTIMEZONE under any other name
///   (Windows names included: Outlook writes only the current rule, and the name maps to
///   tzdata only approximately) is used as written, as RFC 5545 §3.6.5 says.
/// - **An unresolvable TZID is a warning, never a silent UTC.** The warning gives the
///   file, the line of the first property that uses it, and the number of uses. Values
///   with that TZID are read as floating times in the caller's zone (the `floatingZone`
///   of ``resolution(for:floatingZone:)``), with ``Source/fallback``.
/// - **`X-WR-TIMEZONE` is a display default only.** ``defaultTimeZone`` exposes it, so an
///   application can show floating and UTC times in the calendar's zone; the resolver
///   never applies it to floating values by itself.
public struct TimeZoneResolver: Sendable {
    /// Where a zone's rules came from.
    public enum Source: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// A VTIMEZONE in the calendar itself.
        case embedded
        /// The IANA database, under the TZID as written.
        case iana
        /// The IANA database, after removing quotes or a vendor prefix from the TZID.
        case vendorPrefix = "vendor-prefix"
        /// The IANA database, through the CLDR mapping of a Windows zone or display name.
        case windows
        /// Nothing matched: the caller's zone for floating times stands in, with a warning.
        case fallback
        /// A UTC value (`Z`): no TZID to resolve.
        case utc
        /// A floating value or a DATE: read in the caller's zone, as RFC 5545 §3.3.5 says.
        case floating

        public var description: String { rawValue }
    }

    /// A resolved TZID: its rules and where they came from.
    public struct Resolution: Sendable {
        /// The TZID as written in the calendar.
        public let timeZoneIdentifier: String
        /// The rules to convert local times with.
        public let rules: any TimeZoneRules
        /// Where the rules came from.
        public let source: Source

        /// Creates a resolution.
        public init(timeZoneIdentifier: String, rules: any TimeZoneRules, source: Source) {
            self.timeZoneIdentifier = timeZoneIdentifier
            self.rules = rules
            self.source = source
        }

        /// The name of the zone used: the IANA name, or the embedded TZID.
        public var identifier: String { rules.identifier }
    }

    /// The file name diagnostics carry.
    public let file: String?
    /// Problems found: unusable or disagreeing VTIMEZONEs, unresolvable TZIDs and an
    /// unresolvable `X-WR-TIMEZONE`, each with file and line.
    public let diagnostics: [Diagnostic]
    /// The calendar's `X-WR-TIMEZONE`, resolved: the zone to display floating and UTC
    /// times in, when the calendar names one.
    public let defaultTimeZone: Resolution?
    /// The rules of every usable VTIMEZONE in the calendar, by TZID.
    public let embeddedTimeZones: [String: VTimeZoneRules]
    /// The years over which embedded VTIMEZONEs are compared with tzdata.
    public let comparisonYears: ClosedRange<Int>
    private let references: [String: Resolution]

    /// Builds a resolver for one VCALENDAR, checking every VTIMEZONE and every TZID it uses.
    ///
    /// - Parameters:
    ///   - calendar: A `VCALENDAR` component (any component works: its VTIMEZONE children
    ///     and the TZIDs in its subtree are used).
    ///   - file: The file name to put in diagnostics.
    ///   - comparisonYears: The years over which an embedded VTIMEZONE with an IANA name
    ///     is compared with tzdata (default 1970...2037).
    public init(calendar: Component, file: String? = nil, comparisonYears: ClosedRange<Int> = 1970...2037) {
        self.init(calendar: calendar, file: file, comparisonYears: comparisonYears, childUses: nil)
    }

    /// As ``init(calendar:file:comparisonYears:)``, with the TZID uses of the calendar's
    /// children gathered by the caller (a streamed read, whose `calendar` holds only its
    /// properties and VTIMEZONEs) instead of walked here.
    init(calendar: Component, file: String?, comparisonYears: ClosedRange<Int>, childUses: TZIDUses?) {
        self.file = file
        self.comparisonYears = comparisonYears
        var diagnostics: [Diagnostic] = []
        var embedded: [String: VTimeZoneRules] = [:]
        var comparisons: [(rules: VTimeZoneRules, iana: IANATimeZone, line: Int)] = []
        for component in calendar.components(.timeZone) {
            let rules: VTimeZoneRules
            do {
                rules = try VTimeZoneRules(component, file: file)
            } catch {
                diagnostics.append(Diagnostic(
                    .error, .timeZone, line: error.line ?? component.line ?? 0, file: file, component: "VTIMEZONE",
                    message: error.message + "; TZIDs that name it are resolved without it"))
                continue
            }
            diagnostics += rules.diagnostics
            if embedded[rules.identifier] != nil {
                diagnostics.append(Diagnostic(
                    .warning, .timeZone, line: component.line ?? 0, file: file, component: "VTIMEZONE",
                    message: "a second VTIMEZONE with TZID '\(rules.identifier)' is ignored; the first one is used"))
                continue
            }
            embedded[rules.identifier] = rules
            if let standard = Self.resolveStandard(rules.identifier), standard.source != .windows,
               let iana = standard.rules as? IANATimeZone {
                comparisons.append((rules, iana, component.line ?? 0))
            }
        }
        self.embeddedTimeZones = embedded

        // Every TZID the calendar uses, with its first property and number of uses, and the
        // years its values span (the children of a large calendar in parts, one per core).
        var walk = TZIDUses()
        walk.visit(calendar, children: false)
        if let childUses {
            walk.add(childUses)
        } else if !calendar.matches(.timeZone) {
            let children = calendar.components
            let parts = Threads.parts(of: children.count)
            if parts > 1 {
                let found = Threads.map(parts) { part in
                    var uses = TZIDUses()
                    for index in Threads.range(part, of: parts, in: children.count) { uses.visit(children[index]) }
                    return uses
                }
                for part in found { walk.add(part) }
            } else {
                for child in children { walk.visit(child) }
            }
        }
        let order = walk.order
        var uses: [String: (line: Int, component: String, property: String, count: Int)] = [:]
        var years: [String: (lower: Int, upper: Int)] = [:]
        for (tzid, slot) in walk.slots {
            uses[tzid] = walk.slotUses[slot]
            years[tzid] = walk.slotYears[slot]
        }

        // An embedded VTIMEZONE under an IANA name is compared with tzdata over the years the
        // calendar's own times under that TZID span (to the end of comparisonYears for
        // recurring ones): tzdata is used, and a disagreement there is worth one warning.
        for comparison in comparisons {
            guard let span = years[comparison.rules.identifier] else { continue }
            let lower = max(span.lower, comparisonYears.lowerBound)
            let upper = min(span.upper == Int.max ? comparisonYears.upperBound : span.upper + 1, comparisonYears.upperBound)
            guard lower <= upper,
                  let difference = Self.firstDisagreement(comparison.rules, comparison.iana, years: lower...upper) else { continue }
            var outside = ""
            if let first = comparison.rules.firstOnset, let last = comparison.rules.lastOnset,
               difference.instant < first || difference.instant > last {
                outside = ", outside the span its observances cover ("
                    + "\(LocalDateTime(secondsSinceEpoch: first).date) to \(LocalDateTime(secondsSinceEpoch: last).date))"
            }
            diagnostics.append(Diagnostic(
                .warning, .timeZone, line: comparison.line, file: file, component: "VTIMEZONE",
                message: "VTIMEZONE '\(comparison.rules.identifier)' disagrees with tzdata's \(comparison.iana.identifier) at "
                    + "\(LocalDateTime(secondsSinceEpoch: difference.instant))Z (offset "
                    + "\(VTimeZoneRules.utcOffsetText(difference.embedded)) here, "
                    + "\(VTimeZoneRules.utcOffsetText(difference.iana)) in tzdata)\(outside); "
                    + "tzdata is used for this IANA name"))
        }
        var references: [String: Resolution] = [:]
        for tzid in order {
            if let resolution = Self.resolve(tzid, embedded: embedded) {
                references[tzid] = resolution
            } else if let use = uses[tzid] {
                diagnostics.append(Diagnostic(
                    .warning, .timeZone, line: use.line, file: file, component: use.component, property: use.property,
                    message: "TZID '\(tzid)' is not defined by a VTIMEZONE here and is not an IANA, vendor-prefixed "
                        + "or Windows zone name; its \(use.count) \(use.count == 1 ? "value is" : "values are") "
                        + "read as floating times in the reader's zone"))
            }
        }
        self.references = references

        if let property = calendar.property(.calendarTimeZone) {
            let name = property.textValue.trimmingASCIIWhitespace()
            if let resolution = Self.resolve(name, embedded: embedded) {
                self.defaultTimeZone = resolution
            } else {
                self.defaultTimeZone = nil
                diagnostics.append(Diagnostic(
                    .warning, .timeZone, line: property.line ?? calendar.line ?? 0, file: file,
                    component: calendar.name, property: property.name,
                    message: "X-WR-TIMEZONE '\(name)' is not a known zone and is ignored"))
            }
        } else {
            self.defaultTimeZone = nil
        }
        self.diagnostics = diagnostics
    }

    /// Calls `body` with `Int(item.prefix(4))` of every comma-separated item of a value
    /// that has one: the year each DATE or DATE-TIME of a list starts with. An ASCII value
    /// (where bytes and Characters agree) is read byte by byte.
    static func forEachLeadingYear(_ value: String, _ body: (Int) -> Void) {
        let utf8 = value.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else {
            for item in value.split(separator: ",") {
                if let year = Int(item.prefix(4)) { body(year) }
            }
            return
        }
        var itemStart = utf8.startIndex
        while itemStart < utf8.endIndex {
            let itemEnd = utf8[itemStart...].firstIndex(of: ASCII.comma) ?? utf8.endIndex
            if itemStart < itemEnd {  // split(separator:) omits empty items
                var year = 0, digits = 0
                for byte in utf8[itemStart..<itemEnd] {
                    guard digits < 4, byte >= 0x30 && byte <= 0x39 else { break }
                    year = year * 10 + Int(byte - 0x30)
                    digits += 1
                }
                if digits == 4 {
                    body(year)
                } else if let year = Int(value[itemStart..<itemEnd].prefix(4)) {
                    body(year)
                }
            }
            itemStart = itemEnd < utf8.endIndex ? utf8.index(after: itemEnd) : itemEnd
        }
    }

    /// Resolves a TZID as written, or returns nil when nothing matches.
    public func resolve(_ timeZoneIdentifier: String) -> Resolution? {
        if let known = references[timeZoneIdentifier] { return known }
        return Self.resolve(timeZoneIdentifier, embedded: embeddedTimeZones)
    }

    /// The zone to read a value in: its TZID's rules; UTC for a UTC value (``Source/utc``);
    /// `floatingZone` for a floating value or a DATE (``Source/floating``) and for a TZID
    /// that cannot be resolved (``Source/fallback``; the init reported it as a warning).
    public func resolution(for value: DateTime, floatingZone: any TimeZoneRules) -> Resolution {
        switch value.zone {
        case .utc:
            return Resolution(timeZoneIdentifier: "UTC", rules: FixedOffsetZone.utc, source: .utc)
        case .floating:
            return Resolution(timeZoneIdentifier: "", rules: floatingZone, source: .floating)
        case .identifier(let tzid):
            return resolve(tzid) ?? Resolution(timeZoneIdentifier: tzid, rules: floatingZone, source: .fallback)
        }
    }

    /// The instant a value names, reading floating values, DATEs and unresolvable TZIDs in
    /// `floatingZone`, and local times in gaps and overlaps as RFC 5545 §3.3.5 says.
    public func instant(for value: DateTime, floatingZone: any TimeZoneRules) -> Int64 {
        resolution(for: value, floatingZone: floatingZone).rules.instant(for: value.local)
    }

    // MARK: Resolution steps

    /// Resolves a TZID without a calendar: the IANA database, then the name without quotes
    /// or vendor prefix, then Windows zone and display names. Nil when nothing matches.
    public static func resolveStandard(_ timeZoneIdentifier: String) -> Resolution? {
        if let zone = IANATimeZone(named: timeZoneIdentifier) {
            return Resolution(timeZoneIdentifier: timeZoneIdentifier, rules: zone, source: .iana)
        }
        if let zone = ianaZoneWithoutPrefix(timeZoneIdentifier) {
            return Resolution(timeZoneIdentifier: timeZoneIdentifier, rules: zone, source: .vendorPrefix)
        }
        if let name = ianaNameForWindowsName(timeZoneIdentifier), let zone = IANATimeZone(named: name) {
            return Resolution(timeZoneIdentifier: timeZoneIdentifier, rules: zone, source: .windows)
        }
        return nil
    }

    static func resolve(_ tzid: String, embedded: [String: VTimeZoneRules]) -> Resolution? {
        if let rules = embedded[tzid] ?? embedded[unquoted(tzid)] {
            // tzdata wins under an IANA name (see the type's documentation).
            if let standard = resolveStandard(tzid), standard.source != .windows { return standard }
            return Resolution(timeZoneIdentifier: tzid, rules: rules, source: .embedded)
        }
        return resolveStandard(tzid)
    }

    /// The name without surrounding whitespace and quotes.
    static func unquoted(_ tzid: String) -> String {
        var text = tzid.trimmingASCIIWhitespace()
        while text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            text = String(text.dropFirst().dropLast()).trimmingASCIIWhitespace()
        }
        return text
    }

    /// The IANA zone a quoted or vendor-prefixed TZID names: the longest tail of its
    /// `/`-separated parts that is a zone, when the name starts with `/` or its first part
    /// is a domain (`mozilla.org/...`).
    static func ianaZoneWithoutPrefix(_ tzid: String) -> IANATimeZone? {
        let text = unquoted(tzid)
        if text != tzid, let zone = IANATimeZone(named: text) { return zone }
        let parts = text.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 2, text.hasPrefix("/") || parts[0].contains(".") else { return nil }
        for start in (text.hasPrefix("/") ? 0 : 1)..<parts.count {
            if let zone = IANATimeZone(named: parts[start...].joined(separator: "/")) { return zone }
        }
        return nil
    }

    /// CLDR's windowsZones mapping (territory 001): Windows zone name to IANA name, as
    /// generated into ICalKit by `scripts/generate-windows-zones.py`.
    public static var windowsZoneMapping: [String: String] { WindowsZones.ianaNames }

    private static let windowsNamesLowercased: [String: String] = {
        var table: [String: String] = [:]
        for (windows, iana) in WindowsZones.ianaNames { table[windows.lowercased()] = iana }
        return table
    }()

    /// The IANA name for a Windows zone name (`W. Europe Standard Time`), an Outlook
    /// numbered variant (`W. Europe Standard Time 1`) or a Windows display name
    /// (`(UTC+01:00) Amsterdam, Berlin, …`), matched without regard to case.
    static func ianaNameForWindowsName(_ tzid: String) -> String? {
        let text = unquoted(tzid).lowercased().split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        if let name = windowsNamesLowercased[text] { return name }
        // Outlook's variants: a numeric suffix.
        if let space = text.lastIndex(of: " "), text[text.index(after: space)...].allSatisfy({ $0.isASCIIDigit }) {
            if let name = windowsNamesLowercased[String(text[..<space])] { return name }
        }
        // Display names: "(UTC+01:00) Amsterdam, ..." or "(GMT+01:00) ...": match the cities.
        if text.hasPrefix("(utc") || text.hasPrefix("(gmt"), let close = text.firstIndex(of: ")") {
            let cities = text[text.index(after: close)...].trimmingPrefixSpaces()
            if let windows = WindowsDisplayNames.windowsNames[cities] {
                return windowsNamesLowercased[windows.lowercased()]
            }
        }
        return nil
    }

    /// The first instant within `years` where the embedded rules and tzdata give
    /// different offsets (before the VTIMEZONE's first onset, its earliest TZOFFSETFROM).
    static func firstDisagreement(_ embedded: VTimeZoneRules, _ iana: IANATimeZone, years: ClosedRange<Int>)
        -> (instant: Int64, embedded: Int, iana: Int)? {
        let yearStart = Int64(CalendarDate.daysSinceEpoch(year: years.lowerBound, month: 1, day: 1)) * 86_400
        let yearEnd = Int64(CalendarDate.daysSinceEpoch(year: years.upperBound + 1, month: 1, day: 1)) * 86_400 - 1
        // Before the first onset only when the values reach an earlier year (a truncated
        // VTIMEZONE); a generated one that starts shortly before its values is not flagged.
        let firstOnsetYear = embedded.firstOnset.map { LocalDateTime(secondsSinceEpoch: $0).date.year }
        let lower = firstOnsetYear.map { years.lowerBound < $0 } ?? true
            ? yearStart : max(embedded.firstOnset ?? yearStart, yearStart)
        guard lower <= yearEnd else { return nil }
        var points = [lower]
        points += embedded.transitions(from: lower, through: yearEnd).map(\.instant)
        points += iana.transitions(from: lower, through: yearEnd).map(\.instant)
        for point in points.sorted() {
            let mine = embedded.utcOffset(atInstant: point)
            let theirs = iana.utcOffset(atInstant: point)
            if mine != theirs { return (point, mine, theirs) }
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    fileprivate func trimmingPrefixSpaces() -> String {
        String(drop { $0 == " " })
    }
}

/// The TZIDs a calendar's properties use, in the order first used: for each, its first
/// property, the number of uses, and the years its values span (to the end of time for a
/// recurring component's). Parts visited apart and added in order give what one visit of
/// the whole gives.
struct TZIDUses {
    private(set) var slots: [String: Int] = [:]
    private(set) var slotUses: [(line: Int, component: String, property: String, count: Int)] = []
    private(set) var slotYears: [(lower: Int, upper: Int)?] = []
    private(set) var order: [String] = []
    private var last: (tzid: String, slot: Int)?

    /// Visits a component's properties and, with `children`, those of the components below
    /// it; a VTIMEZONE and what is below it are passed over. This reads every property of a
    /// calendar, so it reads in place (most properties have no parameters and are passed over
    /// without a copy) and finds a TZID's slot again by comparing with the last TZID seen.
    mutating func visit(_ component: Component, children: Bool = true) {
        guard !component.matches(.timeZone) else { return }
        var recurs: Bool?
        component.properties.withUnsafeBufferPointer { properties in
            for index in properties.indices where !properties[index].parameters.isEmpty {
                guard let tzid = properties[index][parameter: .timeZoneIdentifier] else { continue }
                let isRecurring = recurs ?? (component.property(.recurrenceRule) != nil)
                recurs = isRecurring
                let slot: Int
                if let last, last.tzid == tzid {
                    slot = last.slot
                    slotUses[slot].count += 1
                } else if let known = slots[tzid] {
                    slot = known
                    slotUses[slot].count += 1
                } else {
                    slot = slotUses.count
                    slots[tzid] = slot
                    slotUses.append((properties[index].line ?? component.line ?? 0, component.name, properties[index].name, 1))
                    slotYears.append(nil)
                    order.append(tzid)
                }
                last = (tzid, slot)
                TimeZoneResolver.forEachLeadingYear(properties[index].rawValue) { year in
                    slotYears[slot] = Self.spanning(slotYears[slot], (year, isRecurring ? Int.max : year))
                }
            }
        }
        guard children else { return }
        for child in component.components.indices { visit(component.components[child]) }
    }

    /// Adds the uses of what follows what this has visited.
    mutating func add(_ other: TZIDUses) {
        for tzid in other.order {
            guard let theirs = other.slots[tzid] else { continue }
            if let mine = slots[tzid] {
                slotUses[mine].count += other.slotUses[theirs].count
                if let span = other.slotYears[theirs] { slotYears[mine] = Self.spanning(slotYears[mine], span) }
            } else {
                slots[tzid] = slotUses.count
                slotUses.append(other.slotUses[theirs])
                slotYears.append(other.slotYears[theirs])
                order.append(tzid)
            }
        }
        last = nil
    }

    /// The years from the lower of two spans' first to the higher of their last.
    private static func spanning(_ known: (lower: Int, upper: Int)?, _ more: (lower: Int, upper: Int)) -> (lower: Int, upper: Int) {
        guard let known else { return more }
        return (min(known.lower, more.lower), max(known.upper, more.upper))
    }
}
