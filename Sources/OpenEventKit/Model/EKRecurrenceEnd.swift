import Foundation

/// When a recurrence ends: after a date (iCalendar `UNTIL`) or after a number of
/// occurrences (`COUNT`).
///
/// A rule without an end (``EKRecurrenceRule/recurrenceEnd`` nil) repeats forever. Ends are
/// immutable; two ends are equal when their date and count are.
open class EKRecurrenceEnd: NSObject, NSCopying {
    /// The last moment an occurrence may start; nil for a count-based end.
    public let endDate: Date?
    /// How many occurrences there are, the first included; 0 for a date-based end.
    public let occurrenceCount: Int

    /// An end after a date: no occurrence starts later (`UNTIL`).
    public convenience init(end endDate: Date) {
        self.init(endDate: endDate, occurrenceCount: 0)
    }

    /// An end after `occurrenceCount` occurrences, the first included (`COUNT`).
    ///
    /// - Precondition: `occurrenceCount` is greater than 0; EventKit raises an exception
    ///   for 0 or less, and so does this (a trap with an "API misuse" message).
    public convenience init(occurrenceCount: Int) {
        guard occurrenceCount > 0 else {
            preconditionFailure("API misuse: EKRecurrenceEnd(occurrenceCount:) needs a count greater than 0, not \(occurrenceCount)")
        }
        self.init(endDate: nil, occurrenceCount: occurrenceCount)
    }

    private init(endDate: Date?, occurrenceCount: Int) {
        self.endDate = endDate
        self.occurrenceCount = occurrenceCount
        super.init()
    }

    /// A new end with the same date or count.
    open func copy(with zone: NSZone? = nil) -> Any {
        EKRecurrenceEnd(endDate: endDate, occurrenceCount: occurrenceCount)
    }

    /// Equal when the other object is an end with the same date and count.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? EKRecurrenceEnd else { return false }
        return endDate == other.endDate && occurrenceCount == other.occurrenceCount
    }

    /// A hash consistent with ``isEqual(_:)``.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(endDate)
        hasher.combine(occurrenceCount)
        return hasher.finalize()
    }

    /// `EKRecurrenceEnd {endDate = 2024-12-31 23:59:59 +0000}` or
    /// `EKRecurrenceEnd {occurrenceCount = 10}`.
    open override var description: String {
        if let endDate { return "EKRecurrenceEnd {endDate = \(endDate)}" }
        return "EKRecurrenceEnd {occurrenceCount = \(occurrenceCount)}"
    }
}
