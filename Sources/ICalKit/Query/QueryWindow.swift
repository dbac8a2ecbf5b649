/// A time window `[start, end)` given the way people type it on a command line, read in a
/// time zone.
///
/// A moment is a year, a month, a day, an hour, a minute or a second
/// (`2026`, `2026-12`, `2026-12-01`, `2026-12-01T16`, `2026-12-01T16:30`,
/// `2026-12-01T16:30:00`; a space may stand for `T`; a time may end in `Z` or a UTC offset
/// such as `+01:00`, and then names that instant; the basic form `20261201T163000Z` and
/// week dates `2026-W49` and `2026-W49-2` are read too), or one of the words `now`, `today`,
/// `tomorrow`, `yesterday`. Its precision sets the length of the window for
/// ``at(_:in:now:)``: `2026-12` is the whole of December. An end may also be relative to the
/// start: `+7d`, `+1d12h`, `+30m`, `+2w`, `+45s`, `+1y` is not allowed (years vary).
///
/// Days and weeks are nominal (they move the wall clock, so a day across a DST change is
/// 23 or 25 hours); hours, minutes and seconds are exact, as in RFC 5545 §3.3.6.
public struct QueryWindow: Sendable, Hashable, CustomStringConvertible {
    /// The first instant in the window.
    public var start: Int64
    /// The first instant after the window.
    public var end: Int64
    /// The start as a wall-clock time in the window's zone.
    public var localStart: LocalDateTime
    /// The end as a wall-clock time in the window's zone.
    public var localEnd: LocalDateTime

    /// How precisely a moment was given.
    public enum Precision: Int, Sendable, Hashable, Comparable {
        case year, month, week, day, hour, minute, second
        public static func < (lhs: Precision, rhs: Precision) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A moment as typed: a wall-clock time and how precisely it was given.
    public struct Moment: Sendable, Hashable {
        /// The first wall-clock second the moment covers.
        public var local: LocalDateTime
        /// How precisely it was given.
        public var precision: Precision
        /// The UTC offset the moment was given with (`Z` is 0, `+01:00` is 3600), or nil
        /// for a wall-clock time in the window's zone. With an offset, ``local`` is the
        /// wall clock at that offset.
        public var utcOffset: Int?

        /// Creates a moment.
        public init(local: LocalDateTime, precision: Precision, utcOffset: Int? = nil) {
            self.local = local
            self.precision = precision
            self.utcOffset = utcOffset
        }

        /// The moment as a wall-clock time in `zone`: itself without an offset, else the
        /// instant it names seen in `zone`.
        func inZone(_ zone: any TimeZoneRules) -> (start: LocalDateTime, end: LocalDateTime, instants: Range<Int64>?) {
            guard let utcOffset else { return (local, localEnd, nil) }
            let start = local.secondsSinceEpoch - Int64(utcOffset)
            let end = start + (localEnd.secondsSinceEpoch - local.secondsSinceEpoch)
            return (zone.local(at: start), zone.local(at: end), start..<end)
        }

        /// The wall-clock time just after the moment (the next year, month, day, …).
        public var localEnd: LocalDateTime {
            switch precision {
            case .year:
                return LocalDateTime(date: CalendarDate(year: local.date.year + 1, month: 1, day: 1) ?? local.date.adding(days: 366))
            case .month:
                let (year, month) = local.date.month == 12 ? (local.date.year + 1, 1) : (local.date.year, local.date.month + 1)
                return LocalDateTime(date: CalendarDate(year: year, month: month, day: 1) ?? local.date.adding(days: 31))
            case .week: return LocalDateTime(date: local.date.adding(days: 7))
            case .day: return LocalDateTime(date: local.date.adding(days: 1))
            case .hour: return local.adding(seconds: 3600)
            case .minute: return local.adding(seconds: 60)
            case .second: return local.adding(seconds: 1)
            }
        }
    }

    /// Reads a moment. `now` is the wall-clock time the words are relative to.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/invalidArgument`` naming the accepted forms.
    public static func moment(_ text: String, now: LocalDateTime) throws(ICalError) -> Moment {
        let trimmed = String(text.trimmingSpaces)
        switch trimmed.lowercased() {
        case "now": return Moment(local: now, precision: .second)
        case "today": return Moment(local: LocalDateTime(date: now.date), precision: .day)
        case "tomorrow": return Moment(local: LocalDateTime(date: now.date.adding(days: 1)), precision: .day)
        case "yesterday": return Moment(local: LocalDateTime(date: now.date.adding(days: -1)), precision: .day)
        default: break
        }
        var bytes = Array(trimmed.utf8)
        // ISO 8601 as `ical` prints it and users paste it: a time with `Z` or an offset
        // (`2026-10-26T00:00:00Z`, `2026-11-10T17:00:00+01:00`, `+0100`, `+01`), fractional
        // seconds (dropped), the basic form (`20261026T000000Z`), and week dates
        // (`2026-W45`, a week from its Monday; `2026-W45-2`, a day).
        var utcOffset: Int?
        if bytes.count > 10, let time = bytes.firstIndex(where: { $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "t") || $0 == UInt8(ascii: " ") }) {
            if bytes.last == UInt8(ascii: "Z") || bytes.last == UInt8(ascii: "z") {
                utcOffset = 0
                bytes.removeLast()
            } else if let sign = bytes[time...].lastIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) {
                let text = bytes[(sign + 1)...].filter { $0 != UInt8(ascii: ":") }
                guard [2, 4].contains(text.count), text.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw Self.invalidMoment(text) }
                let hours = Int(text[0] - 0x30) * 10 + Int(text[1] - 0x30)
                let minutes = text.count == 4 ? Int(text[2] - 0x30) * 10 + Int(text[3] - 0x30) : 0
                guard hours <= 18, minutes <= 59 else { throw Self.invalidMoment(text) }
                utcOffset = (hours * 3600 + minutes * 60) * (bytes[sign] == UInt8(ascii: "-") ? -1 : 1)
                bytes.removeSubrange(sign...)
            }
            if let dot = bytes[time...].firstIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ",") }) {
                guard dot + 1 < bytes.count, bytes[(dot + 1)...].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw Self.invalidMoment(text) }
                bytes.removeSubrange(dot...)
            }
        }
        if bytes.count >= 15, bytes[8] == UInt8(ascii: "T"), !bytes.contains(UInt8(ascii: "-")), !bytes.contains(UInt8(ascii: ":")) {
            // The basic form: YYYYMMDDTHHMMSS.
            bytes = Array(bytes[0..<4]) + [UInt8(ascii: "-")] + Array(bytes[4..<6]) + [UInt8(ascii: "-")] + Array(bytes[6..<8])
                + [UInt8(ascii: "T")] + Array(bytes[9..<11]) + [UInt8(ascii: ":")] + Array(bytes[11..<13])
                + [UInt8(ascii: ":")] + Array(bytes[13...])
        }
        if bytes.count == 8 || bytes.count == 10, bytes.count > 5, bytes[4] == UInt8(ascii: "-"), bytes[5] == UInt8(ascii: "W") || bytes[5] == UInt8(ascii: "w") {
            return try weekDate(bytes, text: text)
        }
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                guard bytes[index] >= 0x30 && bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        func separator(_ index: Int, _ allowed: [UInt8]) -> Bool { index < bytes.count && allowed.contains(bytes[index]) }
        let invalid = invalidMoment(text)
        guard let year = digits(0..<4) else { throw invalid }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0
        var precision = Precision.year
        var length = 4
        if bytes.count > 4 {
            guard separator(4, [UInt8(ascii: "-")]), let value = digits(5..<7) else { throw invalid }
            month = value; precision = .month; length = 7
        }
        if bytes.count > 7 {
            guard separator(7, [UInt8(ascii: "-")]), let value = digits(8..<10) else { throw invalid }
            day = value; precision = .day; length = 10
        }
        if bytes.count > 10 {
            guard separator(10, [UInt8(ascii: "T"), UInt8(ascii: " "), UInt8(ascii: "t")]), let value = digits(11..<13) else { throw invalid }
            hour = value; precision = .hour; length = 13
        }
        if bytes.count > 13 {
            guard separator(13, [UInt8(ascii: ":")]), let value = digits(14..<16) else { throw invalid }
            minute = value; precision = .minute; length = 16
        }
        if bytes.count > 16 {
            guard separator(16, [UInt8(ascii: ":")]), let value = digits(17..<19) else { throw invalid }
            second = value; precision = .second; length = 19
        }
        guard length == bytes.count else { throw invalid }
        guard let local = LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second),
              second < 60 else {
            throw ICalError(.invalidArgument, "'\(text)' names a time that does not exist")
        }
        if utcOffset != nil && precision < .hour { throw invalid }
        return Moment(local: local, precision: precision, utcOffset: utcOffset)
    }

    static func invalidMoment(_ text: some Any) -> ICalError {
        ICalError(.invalidArgument,
            "'\(text)' is not a time: use 2026, 2026-12, 2026-12-01, 2026-12-01T16, 2026-12-01T16:30, 2026-12-01T16:30:00 "
            + "(optionally with Z or an offset such as +01:00), 2026-W49, 2026-W49-2, now, today or tomorrow")
    }

    /// `YYYY-Www` (the ISO week from its Monday) or `YYYY-Www-D` (one day, 1 = Monday).
    private static func weekDate(_ bytes: [UInt8], text: String) throws(ICalError) -> Moment {
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard bytes[index] >= 0x30 && bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let week = number(6..<8), (1...53).contains(week),
              let january4 = CalendarDate(year: year, month: 1, day: 4) else { throw invalidMoment(text) }
        var weekday = 1
        if bytes.count == 10 {
            guard bytes[8] == UInt8(ascii: "-"), let day = number(9..<10), (1...7).contains(day) else { throw invalidMoment(text) }
            weekday = day
        }
        let monday = january4.adding(days: 1 - january4.isoWeekday + (week - 1) * 7)
        // Week 53 exists only when its Thursday is still in the year.
        guard monday.adding(days: 3).year == year else {
            throw ICalError(.invalidArgument, "'\(text)' names a week that does not exist")
        }
        return Moment(local: LocalDateTime(date: monday.adding(days: weekday - 1)), precision: bytes.count == 10 ? .day : .week)
    }

    /// The window a moment covers: `2026-12` is all of December in `zone`.
    public static func at(_ text: String, in zone: any TimeZoneRules, now: LocalDateTime) throws(ICalError) -> QueryWindow {
        let moment = try moment(text, now: now)
        if let instants = moment.inZone(zone).instants { return QueryWindow(start: instants.lowerBound, end: instants.upperBound, in: zone) }
        return QueryWindow(localStart: moment.local, localEnd: moment.localEnd, in: zone)
    }

    /// The window from a start moment to an end that is a moment (its first second) or an
    /// offset from the start (`+7d`, `+1d12h`, `+30m`, `+2w`).
    ///
    /// - Throws: ``ICalError/Code-swift.struct/invalidArgument`` when either is unreadable or
    ///   the end is not after the start.
    public static func between(_ startText: String, _ endText: String, in zone: any TimeZoneRules, now: LocalDateTime) throws(ICalError) -> QueryWindow {
        var start = try moment(startText, now: now)
        let startInstant = start.inZone(zone).instants?.lowerBound
        if start.utcOffset != nil { start = Moment(local: start.inZone(zone).start, precision: start.precision) }
        var window: QueryWindow
        if endText.hasPrefix("+") {
            let (days, seconds) = try relative(endText)
            let localEnd = LocalDateTime(date: start.local.date.adding(days: days), time: start.local.time)
            var result = QueryWindow(localStart: start.local, localEnd: localEnd, in: zone)
            result.end += seconds
            result.localEnd = zone.local(at: result.end)
            window = result
        } else {
            let end = try moment(endText, now: now)
            window = QueryWindow(localStart: start.local, localEnd: end.inZone(zone).start, in: zone)
            if let instants = end.inZone(zone).instants { window.end = instants.lowerBound }
        }
        // A start given with an offset is that exact instant (even in a gap of the zone).
        if let startInstant, startInstant != window.start {
            if endText.hasPrefix("+") { window.end += startInstant - window.start }
            window.start = startInstant
            window.localStart = zone.local(at: window.start)
            window.localEnd = zone.local(at: window.end)
        }
        guard window.end > window.start else {
            throw ICalError(.invalidArgument, "the end '\(endText)' is not after the start '\(startText)'")
        }
        return window
    }

    /// Creates a window from two wall-clock times in a zone (RFC 5545 §3.3.5 for gaps).
    public init(localStart: LocalDateTime, localEnd: LocalDateTime, in zone: any TimeZoneRules) {
        self.localStart = localStart
        self.localEnd = localEnd
        self.start = zone.instant(for: localStart)
        self.end = zone.instant(for: localEnd)
    }

    /// Creates a window from two instants.
    public init(start: Int64, end: Int64, in zone: any TimeZoneRules) {
        self.start = start
        self.end = end
        self.localStart = zone.local(at: start)
        self.localEnd = zone.local(at: end)
    }

    /// Reads `+1d12h`: nominal days (weeks count 7) and exact seconds.
    package static func relative(_ text: String) throws(ICalError) -> (days: Int, seconds: Int64) {
        let invalid = ICalError(.invalidArgument,
            "'\(text)' is not a relative end: use a plus sign and amounts with w, d, h, m or s, such as +7d, +1d12h, +30m or +2w")
        var days = 0
        var seconds: Int64 = 0
        var number: Int? = nil
        var sawUnit = false
        for scalar in text.unicodeScalars.dropFirst() {
            switch scalar {
            case "0"..."9":
                let digit = Int(scalar.value - 48)
                let value = (number ?? 0) * 10 + digit
                guard value <= 1_000_000 else { throw invalid }
                number = value
            case "w", "d", "h", "m", "s":
                guard let amount = number else { throw invalid }
                switch scalar {
                case "w": days += amount * 7
                case "d": days += amount
                case "h": seconds += Int64(amount) * 3600
                case "m": seconds += Int64(amount) * 60
                default: seconds += Int64(amount)
                }
                number = nil
                sawUnit = true
            default: throw invalid
            }
        }
        guard sawUnit, number == nil, days > 0 || seconds > 0 else { throw invalid }
        return (days, seconds)
    }

    /// `[2026-12-01T00:00:00, 2027-01-01T00:00:00)`.
    public var description: String { "[\(localStart), \(localEnd))" }
}
