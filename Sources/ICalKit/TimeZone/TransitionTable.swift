/// A local time type: an offset with its daylight flag and abbreviation (RFC 8536 §3.2).
struct LocalTimeType: Sendable, Hashable {
    var offset: Int
    var isDaylight: Bool
    var abbreviation: String
}

/// The offsets of a zone over time: a sorted table of changes, then optionally a POSIX
/// rule for every instant after the last one. Both IANA zones (TZif) and VTIMEZONE rules
/// are stored this way, so both convert local times with the same RFC 5545 code.
struct TransitionTable: Sendable {
    /// Transition instants, strictly increasing.
    var instants: [Int64]
    /// The local time type from each transition on.
    var types: [LocalTimeType]
    /// The local time type before the first transition.
    var initial: LocalTimeType
    /// The rule for instants after the last transition (the TZif footer), if any.
    var tail: PosixTimeZoneRule?

    /// Builds a table from transitions in any order: sorts them, keeps the last of equal
    /// instants, and drops changes that change nothing.
    init(initial: LocalTimeType, changes: [(instant: Int64, type: LocalTimeType)], tail: PosixTimeZoneRule? = nil) {
        let sorted = changes.enumerated().sorted { ($0.element.instant, $0.offset) < ($1.element.instant, $1.offset) }
        var instants: [Int64] = []
        var types: [LocalTimeType] = []
        instants.reserveCapacity(sorted.count)
        types.reserveCapacity(sorted.count)
        for (_, change) in sorted {
            if let last = instants.last, last == change.instant {
                types[types.count - 1] = change.type
                continue
            }
            instants.append(change.instant)
            types.append(change.type)
        }
        // Drop changes to what is already in force.
        var keptInstants: [Int64] = []
        var keptTypes: [LocalTimeType] = []
        var current = initial
        for index in instants.indices where types[index] != current {
            keptInstants.append(instants[index])
            keptTypes.append(types[index])
            current = types[index]
        }
        self.instants = keptInstants
        self.types = keptTypes
        self.initial = initial
        self.tail = tail
    }

    /// Keeps a TZif table as read (its transitions are already sorted and validated).
    init(validatedInstants: [Int64], types: [LocalTimeType], initial: LocalTimeType, tail: PosixTimeZoneRule?) {
        self.instants = validatedInstants
        self.types = types
        self.initial = initial
        self.tail = tail
    }

    /// Writes the tail rule's changes up to the end of `year` into the table, so lookups in
    /// the years calendars use are binary searches (slim TZif files stop around 2007, fat
    /// ones at 2037). The tail still covers the instants after that.
    mutating func extendWithTail(throughYear year: Int) {
        guard let tail, tail.daylight != nil, let last = instants.last else { return }
        let end = Int64(CalendarDate.daysSinceEpoch(year: year + 1, month: 1, day: 1)) * 86_400 - 1
        var current = types[types.count - 1]
        for change in tail.transitions(from: last + 1, through: end) where change.type != current {
            instants.append(change.instant)
            types.append(change.type)
            current = change.type
        }
    }

    /// The index of the last transition at or before `instant`, or nil.
    private func lastIndex(atOrBefore instant: Int64) -> Int? {
        var low = 0
        var high = instants.count
        while low < high {
            let middle = (low + high) / 2
            if instants[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    /// The local time type in force at an instant.
    func type(atInstant instant: Int64) -> LocalTimeType {
        // `tail?.` calls the tail in place; `if let tail` copied it (and its names) each time.
        if instants.isEmpty || instant >= instants[instants.count - 1], let type = tail?.type(atInstant: instant) {
            return type
        }
        guard let index = lastIndex(atOrBefore: instant) else { return initial }
        return types[index]
    }

    /// The offset of ``type(atInstant:)``, without copying the type's abbreviation.
    func offset(atInstant instant: Int64) -> Int {
        if instants.isEmpty || instant >= instants[instants.count - 1], let type = tail?.type(atInstant: instant) {
            return type.offset
        }
        guard let index = lastIndex(atOrBefore: instant) else { return initial.offset }
        return types[index].offset
    }

    /// Every change with an instant in `lower...upper`, in order.
    /// Instants are clamped to years 1...9999, so any range is bounded work.
    func transitions(from lower: Int64, through upper: Int64) -> [TimeZoneTransition] {
        let lower = Self.clamped(lower), upper = Self.clamped(upper)
        guard lower <= upper else { return [] }
        var result: [TimeZoneTransition] = []
        var index = (lastIndex(atOrBefore: lower - 1) ?? -1) + 1
        var previous = index == 0 ? initial : types[index - 1]
        while index < instants.count, instants[index] <= upper {
            let type = types[index]
            result.append(TimeZoneTransition(
                instant: instants[index], offsetBefore: previous.offset, offsetAfter: type.offset,
                isDaylightSavingTime: type.isDaylight, abbreviation: type.abbreviation))
            previous = type
            index += 1
        }
        guard let tail, tail.daylight != nil else { return result }
        let tailStart = instants.last.map { max(lower, $0 + 1) } ?? lower
        guard tailStart <= upper else { return result }
        for change in tail.transitions(from: tailStart, through: upper) {
            let before = result.last.map { LocalTimeType(offset: $0.offsetAfter, isDaylight: $0.isDaylightSavingTime, abbreviation: $0.abbreviation) }
                ?? type(atInstant: change.instant - 1)
            guard before != change.type else { continue }
            result.append(TimeZoneTransition(
                instant: change.instant, offsetBefore: before.offset, offsetAfter: change.type.offset,
                isDaylightSavingTime: change.type.isDaylight, abbreviation: change.type.abbreviation))
        }
        return result
    }

    /// Whether ``transitions(from:through:)`` is surely empty for `lower...upper`, found
    /// without building it: no table change in the range, and the range before the tail
    /// rule's changes begin (or a tail without them). False when unsure.
    private func isQuiet(from lower: Int64, through upper: Int64) -> Bool {
        let lower = Self.clamped(lower), upper = Self.clamped(upper)
        guard lower <= upper else { return true }
        let index = (lastIndex(atOrBefore: lower - 1) ?? -1) + 1
        if index < instants.count, instants[index] <= upper { return false }
        guard let tail, tail.daylight != nil else { return true }
        return (instants.last.map { max(lower, $0 + 1) } ?? lower) > upper
    }

    /// The open range of wall-clock seconds around `local` over which
    /// ``utcOffset(forLocalSeconds:)`` gives one offset because no change is near: between
    /// two changes of the table, farther than the nearby window from both (there it reads
    /// the time with the type in force, as ``isQuiet(from:through:)`` finds). Nil for a time
    /// outside such a range, before the first change or after the last (the tail rule's).
    func quietSpan(forLocalSeconds local: Int64) -> (lower: Int64, upper: Int64, offset: Int)? {
        let margin: Int64 = 2 * 30 * 3600
        guard let index = lastIndex(atOrBefore: local), index + 1 < instants.count else { return nil }
        let lower = instants[index] + margin, upper = instants[index + 1] - margin
        guard lower < local, local < upper else { return nil }
        return (lower, upper, types[index].offset)
    }

    /// The first and last instants ICalKit's dates can name (0001-01-01 to 9999-12-31).
    static let earliestInstant: Int64 = -62_135_596_800
    static let latestInstant: Int64 = 253_402_300_799

    static func clamped(_ instant: Int64) -> Int64 {
        min(max(instant, earliestInstant), latestInstant)
    }

    /// The offset to read a wall-clock time with, as RFC 5545 §3.3.5 says: a time in a gap
    /// takes the offset in force before the gap; a time that occurs twice takes the
    /// offset of its first occurrence.
    func utcOffset(forLocalSeconds local: Int64) -> Int {
        // No UTC offset exceeds 26 hours, so only changes within this window can matter.
        let window: Int64 = 30 * 3600
        if isQuiet(from: local - 2 * window, through: local + 2 * window) { return offset(atInstant: local) }
        let nearby = transitions(from: local - 2 * window, through: local + 2 * window)
        if nearby.isEmpty { return type(atInstant: local).offset }
        var candidates: Set<Int> = [type(atInstant: local - 2 * window).offset]
        for change in nearby { candidates.insert(change.offsetAfter) }
        // The offsets under which this wall-clock time really occurs; the largest one is
        // the earliest instant, the first occurrence.
        let valid = candidates.filter { type(atInstant: local - Int64($0)).offset == $0 }
        if let first = valid.max() { return first }
        // A gap: take the offset from before the change that skipped this time.
        for change in nearby.reversed() where change.offsetAfter > change.offsetBefore {
            let gapStart = change.instant + Int64(change.offsetBefore)
            let gapEnd = change.instant + Int64(change.offsetAfter)
            if gapStart <= local && local < gapEnd { return change.offsetBefore }
        }
        return type(atInstant: local - Int64(type(atInstant: local).offset)).offset
    }
}
