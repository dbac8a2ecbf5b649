// Linux-only: Foundation's asynchronous sequence of notifications.
//
// On Apple's systems `NotificationCenter.notifications(named:object:)` returns an
// `AsyncSequence` of the notifications posted with a name, and EventKit's samples wait for
// `EKEventStoreChanged` with `for await _ in center.notifications(named: .EKEventStoreChanged)`.
// Foundation on Linux (swift-corelibs-foundation) lacks it. These declarations add it with
// Apple's spelling and semantics, so such code compiles unchanged; where Foundation has its
// own (Apple's systems), they are left out.

#if !canImport(Darwin)
import Foundation

extension NotificationCenter {
    /// Returns an asynchronous sequence of the notifications this center posts with `name`
    /// (and, when `object` is given, from that object).
    ///
    /// Linux addition with Apple's signature: Foundation on Linux does not have it. As on
    /// Apple's systems, the sequence observes from the moment it is created: notifications
    /// posted before the first iteration are buffered, in posting order, and delivered one per
    /// call to `next()`. The observer is removed when the sequence and its iterators are
    /// released, for instance when a `for await` loop over it ends.
    ///
    /// ```swift
    /// for await _ in NotificationCenter.default.notifications(named: .EKEventStoreChanged) {
    ///     // fetch again
    /// }
    /// ```
    ///
    /// With ``EKEventStore``, the changes of other processes reach the sequence as they reach
    /// any observer: an event store of this process must exist (it watches the folder).
    ///
    /// - Parameters:
    ///   - name: the notifications' name.
    ///   - object: only notifications whose sender is this object (compared by identity);
    ///     `nil` for every sender.
    public func notifications(named name: Notification.Name, object: AnyObject? = nil) -> Notifications {
        Notifications(center: self, name: name, object: object)
    }

    /// An asynchronous sequence of notifications (Foundation's `NotificationCenter.Notifications`).
    ///
    /// Linux addition with Apple's shape; created by
    /// `NotificationCenter.notifications(named:object:)`. Every iterator of one
    /// sequence draws from the same buffer, as on Apple's systems. The buffer keeps at most
    /// ``bufferLimit`` notifications that no one has taken yet; beyond that the oldest are
    /// dropped (Apple's buffer is unbounded), so a loop that stopped taking them cannot
    /// exhaust memory.
    ///
    /// A task waiting in `next()` that is cancelled gets `nil`, and so does every later call
    /// from a cancelled task: the loop ends.
    public final class Notifications: AsyncSequence, @unchecked Sendable {
        /// The element: one notification.
        public typealias Element = Notification
        /// The sequence never fails.
        public typealias Failure = Never

        /// The most notifications kept for iterators that have not taken them yet.
        public static let bufferLimit = 4096

        private let buffer: NotificationBuffer
        private let center: NotificationCenter
        private let observer: any NSObjectProtocol

        init(center: NotificationCenter, name: Notification.Name, object: AnyObject?) {
            let buffer = NotificationBuffer(limit: Self.bufferLimit)
            self.buffer = buffer
            self.center = center
            observer = center.addObserver(forName: name, object: object, queue: nil) { notification in
                buffer.deliver(notification)
            }
        }

        deinit {
            center.removeObserver(observer)
            buffer.finish()
        }

        /// An iterator over the sequence's notifications (Foundation's
        /// `NotificationCenter.Notifications.Iterator`).
        ///
        /// It keeps its sequence, and so the observer, alive while it exists.
        public struct Iterator: AsyncIteratorProtocol, @unchecked Sendable {
            // The sequence is kept for its lifetime: its deinit removes the observer.
            let sequence: Notifications

            /// The next notification, waiting for one to be posted; `nil` when the waiting
            /// task is cancelled.
            public func next() async -> Notification? {
                await sequence.buffer.next()
            }

            /// The next notification, in the caller's isolation (what `for await` calls).
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Notification? {
                await sequence.buffer.next()
            }
        }

        /// An iterator drawing from this sequence's buffer.
        public func makeAsyncIterator() -> Iterator {
            Iterator(sequence: self)
        }
    }
}

/// The notifications posted and not taken yet, and the tasks waiting for one. Its state is
/// guarded by a lock; notifications cross from the posting thread to the waiting task in a
/// box, as Apple's sequence hands them over (`Notification` is not `Sendable` on Linux).
final class NotificationBuffer: @unchecked Sendable {
    private struct Delivered: @unchecked Sendable {
        let notification: Notification
    }

    private let lock = NSLock()
    private var pending: [Delivered] = []
    private var head = 0
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Delivered?, Never>)] = []
    private var nextID: UInt64 = 0
    private var finished = false
    private var dropped = 0
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// How many notifications were dropped because the buffer was full.
    var droppedCount: Int { lock.withLock { dropped } }

    /// The oldest kept notification; the lock is held.
    private func takeFirst() -> Delivered? {
        guard head < pending.count else { return nil }
        let first = pending[head]
        head += 1
        if head >= 64 && head * 2 >= pending.count {
            pending.removeFirst(head)
            head = 0
        }
        return first
    }

    /// Hands the notification to the longest-waiting task, or keeps it.
    func deliver(_ notification: Notification) {
        let delivered = Delivered(notification: notification)
        let waiter: CheckedContinuation<Delivered?, Never>? = lock.withLock {
            guard !finished else { return nil }
            if !waiters.isEmpty { return waiters.removeFirst().continuation }
            if pending.count - head >= limit {
                _ = takeFirst()
                dropped += 1
            }
            pending.append(delivered)
            return nil
        }
        waiter?.resume(returning: delivered)
    }

    /// Ends the buffer: waiting tasks get nil.
    func finish() {
        let ended: [CheckedContinuation<Delivered?, Never>] = lock.withLock {
            finished = true
            defer { waiters = [] }
            return waiters.map(\.continuation)
        }
        for continuation in ended { continuation.resume(returning: nil) }
    }

    /// The first notification kept, or the next one posted; nil when the task is cancelled.
    func next() async -> Notification? {
        if Task.isCancelled { return nil }
        let id: UInt64 = lock.withLock {
            defer { nextID += 1 }
            return nextID
        }
        let delivered: Delivered? = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivered?, Never>) in
                let ready: Delivered?? = lock.withLock {
                    if let first = takeFirst() { return .some(first) }
                    if finished || Task.isCancelled { return .some(nil) }
                    waiters.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Delivered?, Never>? = lock.withLock {
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: nil)
        }
        return delivered?.notification
    }
}
#endif
