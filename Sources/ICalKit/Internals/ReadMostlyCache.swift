#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

/// A dictionary that many threads read at once and seldom write: lookups take a
/// reader-writer lock's shared side (one atomic update, no wait while no one writes),
/// stores its exclusive side.
///
/// For the process-wide caches that every item asks (the verdict of each RRULE text, the
/// tzdata zone of each name). A `Mutex` serialises even readers, and on Linux a contended
/// `Mutex` is a priority-inheritance futex that always sleeps in the kernel: with the query
/// index's readers on several threads, the one lock of the rule verdicts took a fifth of
/// a first build's samples, most of them waiting. The corresponding C functions are
/// `pthread_rwlock_rdlock`, `pthread_rwlock_wrlock` and `pthread_rwlock_unlock`.
final class ReadMostlyCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// The lock, allocated once and never moved (a `pthread_rwlock_t` must not be).
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    /// Guarded by ``lock``.
    private var entries: [Key: Value] = [:]

    /// An empty cache.
    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// The value stored for `key`, if any (shared lock).
    subscript(key: Key) -> Value? {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return entries[key]
    }

    /// Changes the entries under the exclusive lock.
    func update<Result>(_ body: (inout [Key: Value]) -> Result) -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body(&entries)
    }
}
