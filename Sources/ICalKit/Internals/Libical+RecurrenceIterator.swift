internal import CLibical

/// The one owner of a libical `icalrecur_iterator`, stepping a recurrence rule on a
/// floating wall clock.
///
/// The iterator is a single-pass C cursor. It is owned by a `final class` rather than a
/// `~Copyable` struct because the lazy occurrence sequence that drives it must have a
/// copyable iterator; the class is not `Sendable`, so it never crosses threads.
///
/// Every call takes ``Libical/withLock(_:)`` for one short chunk of steps and copies the
/// results into Swift values before leaving it, so no lock is held while a caller consumes
/// the lazy sequence. `deinit` frees the iterator (and the `rscale` string libical
/// `strdup`ed for the rule) under the lock. That is safe because no instance is ever
/// created or released inside a `withLock` body: ``make(rule:start:isDate:until:jumpTo:)``
/// builds the C objects under the lock and wraps them after leaving it.
///
/// The corresponding libical functions are `icalrecurrencetype_from_string`,
/// `icalrecur_iterator_new`, `icalrecur_iterator_set_start`, `icalrecur_iterator_next` and
/// `icalrecur_iterator_free`. See RFC 5545 §3.3.10.
final class LibicalRecurrenceIterator {
    private let raw: OpaquePointer  // icalrecur_iterator *, owned
    private let rscale: UnsafeMutablePointer<CChar>?  // strdup'ed by icalrecurrencetype_from_string, owned
    private(set) var isFinished = false

    private init(raw: OpaquePointer, rscale: UnsafeMutablePointer<CChar>?) {
        self.raw = raw
        self.rscale = rscale
    }

    deinit {
        let raw = raw
        let rscale = rscale
        Libical.withLock { ical in
            ical.recur_iterator_free(raw)
            if let rscale { ical.memory_free_buffer(rscale) }
        }
    }

    /// Creates an iterator for `rule` (RECUR text without COUNT) from the floating wall-clock
    /// `start`, stopping after `until` (floating, inclusive), optionally jumping ahead to
    /// `jumpTo` with `icalrecur_iterator_set_start`. Returns nil when libical cannot read
    /// the rule or refuses to build an iterator.
    static func make(rule: String, start: LocalDateTime, isDate: Bool, until: LocalDateTime,
                     jumpTo: LocalDateTime?) -> LibicalRecurrenceIterator? {
        guard !rule.utf8.contains(0) else { return nil }
        let made: (OpaquePointer, UnsafeMutablePointer<CChar>?)? = Libical.withLock { ical in
            var recurrence = ical.recurrencetype_from_string(rule)
            guard recurrence.freq != ICAL_NO_RECURRENCE else {
                if let rscale = recurrence.rscale { ical.memory_free_buffer(rscale) }
                return nil
            }
            recurrence.count = 0
            recurrence.until = icalTime(until, isDate: isDate)
            guard let iterator = ical.recur_iterator_new(recurrence, icalTime(start, isDate: isDate)) else {
                if let rscale = recurrence.rscale { ical.memory_free_buffer(rscale) }
                return nil
            }
            if let jumpTo, jumpTo > start {
                // Refused (returns 0) only for rules with COUNT, which never get here.
                _ = ical.recur_iterator_set_start(iterator, icalTime(jumpTo, isDate: isDate))
            }
            return (iterator, recurrence.rscale)
        }
        guard let made else { return nil }
        return LibicalRecurrenceIterator(raw: made.0, rscale: made.1)
    }

    /// Steps the iterator up to `limit` times under the lock and returns the wall-clock
    /// times it produced, in libical's order. Sets ``isFinished`` when libical has no more.
    func next(limit: Int) -> [LocalDateTime] {
        guard !isFinished, limit > 0 else { return [] }
        let raw = raw
        let (times, finished): ([LocalDateTime], Bool) = Libical.withLock { ical in
            var times: [LocalDateTime] = []
            times.reserveCapacity(limit)
            while times.count < limit {
                let next = ical.recur_iterator_next(raw)
                if ical.time_is_null_time(next) != 0 { return (times, true) }
                // libical only produces real dates; anything else is skipped, not trusted.
                if let local = LocalDateTime(year: Int(next.year), month: Int(next.month), day: Int(next.day),
                                             hour: next.is_date != 0 ? 0 : Int(next.hour),
                                             minute: next.is_date != 0 ? 0 : Int(next.minute),
                                             second: next.is_date != 0 ? 0 : min(59, Int(next.second))) {
                    times.append(local)
                } else {
                    return (times, true)
                }
            }
            return (times, false)
        }
        if finished { isFinished = true }
        return times
    }

    /// A floating `icaltimetype` for a wall-clock time (a DATE when `isDate`).
    private static func icalTime(_ local: LocalDateTime, isDate: Bool) -> icaltimetype {
        var time = icaltimetype()  // all zero: libical's icaltime_null_time()
        time.year = Int32(local.date.year)
        time.month = Int32(local.date.month)
        time.day = Int32(local.date.day)
        if isDate {
            time.is_date = 1
        } else {
            time.hour = Int32(local.time.hour)
            time.minute = Int32(local.time.minute)
            time.second = Int32(min(59, local.time.second))
        }
        time.zone = nil
        return time
    }
}
