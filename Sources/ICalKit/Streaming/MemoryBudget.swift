/// How much memory a streamed read may hold besides the component it is reading: what
/// `ical --memory` sets for query, convert, validate and import.
///
/// A file of any size is read one top-level component at a time; what has to outlive a
/// component (the places of a series' parts, a split's open outputs, the matches waiting to
/// be ordered, an import's batch) is kept in memory up to the budget and spilled to a
/// temporary file past it, as a database or a sort does. The budget is a target for what
/// those structures hold, not a hard cap on the process: the process also holds its code,
/// the component being read, and the libraries' own state (a few tens of megabytes).
///
/// ```swift
/// let budget = try MemoryBudget(parsing: "256M")   // 268,435,456 bytes
/// let records = budget.share(of: 4, each: 32)          // a quarter of it, in 32-byte records
/// ```
public struct MemoryBudget: Sendable, Hashable, CustomStringConvertible {
    /// The bytes the streamed structures may hold together.
    public var bytes: Int

    /// The smallest budget accepted: 16 MiB.
    public static let minimum = 16 << 20
    /// The default: 512 MiB.
    public static let `default` = MemoryBudget(bytes: 512 << 20)

    /// A budget of `bytes` (at least ``minimum``).
    public init(bytes: Int) {
        self.bytes = max(bytes, Self.minimum)
    }

    /// Reads a size: a number of bytes with an optional suffix K, M, G or T (powers of 1024,
    /// `B`, `iB` and lower case also accepted): `512M`, `2G`, `1.5G`, `300000000`.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/invalidValue`` for anything else, or a size
    ///   below ``minimum`` (the error says both).
    public init(parsing text: String) throws(ICalError) {
        var number = Substring(text.filter { $0 != " " })
        var unit = 1.0
        var suffix = ""
        while let last = number.last, last.isLetter {
            suffix.insert(last, at: suffix.startIndex)
            number.removeLast()
        }
        switch suffix.lowercased() {
        case "", "b": unit = 1
        case "k", "kb", "kib": unit = 1024
        case "m", "mb", "mib": unit = 1024 * 1024
        case "g", "gb", "gib": unit = 1024 * 1024 * 1024
        case "t", "tb", "tib": unit = 1024 * 1024 * 1024 * 1024
        default:
            throw ICalError(.invalidValue, "'\(text)' is not a size: give a number with K, M or G, such as 512M")
        }
        guard let value = Double(number), value.isFinite, value > 0,
              value * unit < Double(Int.max / 2) else {
            throw ICalError(.invalidValue, "'\(text)' is not a size: give a number with K, M or G, such as 512M")
        }
        let bytes = Int(value * unit)
        guard bytes >= Self.minimum else {
            throw ICalError(.invalidValue, "'\(text)' is less than the smallest memory budget, 16M")
        }
        self.bytes = bytes
    }

    /// The budget as a size with a suffix, as ``init(parsing:)`` reads it (`512M`).
    public var description: String {
        for (suffix, unit) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes % unit == 0 {
            return "\(bytes / unit)\(suffix)"
        }
        return String(bytes)
    }

    /// How many records of `each` bytes fit in one `parts`-th of the budget (at least 1,024).
    public func share(of parts: Int, each: Int) -> Int {
        max(1_024, bytes / max(parts, 1) / max(each, 1))
    }
}
