#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

/// Threads for work split in parts, without Dispatch (ICalKit needs neither Foundation nor
/// Dispatch).
enum Threads {
    /// The cores work is split over: those online, or ``cores`` when set.
    static var processorCount: Int { cores ?? online }

    /// The cores online, asked once: glibc's `sysconf` opens and reads
    /// `/sys/devices/system/cpu/online` at every call, which a caller per item (the query
    /// index summarises a million item files) paid a million times.
    private static let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The number of cores to assume instead of those online (1: no work is split). A
    /// task-local value, for tests (`Threads.$cores.withValue(1) { … }`).
    @TaskLocal static var cores: Int?

    /// One part's work, handed to its thread.
    private final class Job: @unchecked Sendable {
        let body: (Int) -> Void
        let index: Int
        init(body: @escaping (Int) -> Void, index: Int) {
            self.body = body
            self.index = index
        }
    }

    /// The most parts any work is split into (at most one per core).
    static let maxParts = 8

    /// The fewest items (components, groups) in a part of their own: below twice as many,
    /// the work is not split.
    static let itemsPerPart = 4_096

    /// How many parts `count` items are split into, each of at least `minimum` (below twice
    /// as many, one part): at most one per core, and at most ``maxParts``.
    static func parts(of count: Int, minimum: Int = itemsPerPart) -> Int {
        let most = count / max(minimum, 1)
        // Too few items to split: the cores need not be counted.
        guard most > 1 else { return most }
        return min(processorCount, maxParts, most)
    }

    /// The items of part `part` when `count` items are split into `parts` about equal parts.
    static func range(_ part: Int, of parts: Int, in count: Int) -> Range<Int> {
        (count * part / parts)..<(count * (part + 1) / parts)
    }

    /// `body` of every index of `0..<count`, run as ``run(_:_:)`` runs them, in index order.
    static func map<Result>(_ count: Int, _ body: (Int) -> Result) -> [Result] {
        let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        run(count) { index in results[index] = body(index) }
        return results.map { $0! }
    }

    /// Runs the job a thread was started with.
    private static func perform(_ context: UnsafeMutableRawPointer) {
        let job = Unmanaged<Job>.fromOpaque(context).takeRetainedValue()
        job.body(job.index)
    }

    /// Runs `body` for every index of `0..<count`, index 0 on the calling thread and each
    /// other on a thread of its own (or on the calling thread, when a thread cannot be
    /// started), and returns when all have.
    static func run(_ count: Int, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            #if canImport(Darwin)
            var threads: [pthread_t?] = []
            #else
            var threads: [pthread_t] = []
            #endif
            // Each thread's stack as large as a main thread's usually is (musl's default
            // is 128 KiB).
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setstacksize(&attributes, 8 << 20)
            for index in 1..<max(count, 1) {
                let job = Unmanaged.passRetained(Job(body: body, index: index))
                #if canImport(Darwin)
                var thread: pthread_t?
                #else
                var thread = pthread_t()
                #endif
                #if canImport(Darwin)
                let started = pthread_create(&thread, &attributes, { context in Threads.perform(context); return nil }, job.toOpaque())
                #else
                let started = pthread_create(&thread, &attributes, { context in Threads.perform(context!); return nil }, job.toOpaque())
                #endif
                if started == 0 {
                    threads.append(thread)
                } else {
                    job.release()
                    body(index)
                }
            }
            if count > 0 { body(0) }
            for thread in threads {
                #if canImport(Darwin)
                if let thread { pthread_join(thread, nil) }
                #else
                pthread_join(thread, nil)
                #endif
            }
        }
    }
}
