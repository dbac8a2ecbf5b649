import Dispatch
import Foundation
import Synchronization

/// Runs the reading and parsing of many item files on more threads than cores.
///
/// `DispatchQueue.concurrentPerform` runs one thread per core, which suits work that only
/// computes. Reading an item file that is not in the page cache waits for the disk (an
/// inode table block, then a data block), and a core whose thread waits is idle: a first
/// index build of a store whose files were not read since they were written (a million
/// files: about 4 GB of page cache, one 4 KiB page each) spent most of its time so. With
/// a few threads per core, one thread's wait is another's parse.
enum FileReaders {
    /// Threads per core.
    static let threadsPerCore = 4

    /// How many threads ``perform(iterations:_:)`` runs: ``threadsPerCore`` per active core,
    /// at least 4 and at most 32.
    static var threads: Int {
        min(32, max(4, ProcessInfo.processInfo.activeProcessorCount * threadsPerCore))
    }

    /// Calls `body` once with each index of `0..<iterations`, on up to ``threads`` threads
    /// (each takes the next index when it is done with one), and returns when every call
    /// has returned. `body` must be safe to call from several threads at once.
    static func perform(iterations: Int, _ body: (Int) -> Void) {
        let count = min(threads, iterations)
        guard count > 1 else {
            for index in 0..<iterations { body(index) }
            return
        }
        withoutActuallyEscaping(body) { body in
            // The threads hold `body` only through `shared`, which lets it go once they
            // are done, before this returns: `body` does not outlive the call.
            let shared = Shared(body)
            let group = DispatchGroup()
            for _ in 0..<count {
                group.enter()
                Thread {
                    while case let index = shared.take(), index < iterations { shared.body!(index) }
                    group.leave()
                }.start()
            }
            group.wait()
            shared.body = nil
        }
    }

    /// The work and the next index to run, shared by the threads.
    private final class Shared: @unchecked Sendable {
        /// Set before the threads start, cleared after they are done.
        var body: ((Int) -> Void)?
        private let next = Mutex(0)
        init(_ body: @escaping (Int) -> Void) { self.body = body }
        func take() -> Int { next.withLock { value in defer { value += 1 }; return value } }
    }
}
