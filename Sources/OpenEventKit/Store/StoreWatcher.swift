#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
import Foundation
import Synchronization

/// Watches a store folder for changes other processes make, and calls `onChange` (on its
/// own thread) shortly after a burst of changes settles.
///
/// It uses inotify on the store folder and every collection folder (new collections are
/// added as they appear). Where inotify is not available (a kernel or file system without
/// it, or the per-user watch limit reached) it falls back to calling `onChange` every two
/// seconds; the store's change scan (file identities, no file opened) then decides whether
/// anything changed, so a false alarm costs one folder listing and posts nothing.
package final class StoreWatcher: Sendable {
    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
        func load(ordering: AtomicLoadOrdering) -> Bool { value.load(ordering: .relaxed) }
        func store(_ newValue: Bool, ordering: AtomicStoreOrdering) { value.store(newValue, ordering: .relaxed) }
    }

    private let stopped = Flag()

    /// Starts watching. The inotify watches are in place when this returns; then, on the
    /// watcher's thread, `start` runs (the store takes its change-scan baseline there), and
    /// any change made since the watches were placed is reported with `onChange(true)`:
    /// certain, although the baseline may already include it. Later bursts call
    /// `onChange(false)`: the store's scan decides whether anything changed.
    package init(root: String, start: @escaping @Sendable () -> Void = {}, onChange: @escaping @Sendable (Bool) -> Void) {
        let stopped = self.stopped
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        var watched = Set<String>()
        let complete = descriptor >= 0 && Self.addWatches(descriptor: descriptor, root: root, watched: &watched)
        let initial = watched
        let thread = Thread {
            start()
            if descriptor >= 0 {
                StoreWatcher.watch(descriptor: descriptor, root: root, watched: initial, polling: !complete,
                                   stopped: stopped, onChange: onChange)
                close(descriptor)
            } else {
                while !stopped.load(ordering: .relaxed) {
                    Thread.sleep(forTimeInterval: 2)
                    if !stopped.load(ordering: .relaxed) { onChange(false) }
                }
            }
        }
        thread.name = "OpenEventKit store watcher"
        thread.start()
    }

    /// Stops watching; the thread ends within half a second.
    package func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF)

    /// Adds a watch for the store folder and each collection folder not watched yet; false
    /// when one could not be added (the per-user limit): the caller then also polls.
    private static func addWatches(descriptor: Int32, root: String, watched: inout Set<String>) -> Bool {
        var ok = true
        for path in [root] + collectionFolders(root) where !watched.contains(path) {
            if inotify_add_watch(descriptor, path, mask) >= 0 { watched.insert(path) } else { ok = false }
        }
        return ok
    }

    private static func watch(descriptor: Int32, root: String, watched initial: Set<String>, polling startPolling: Bool,
                              stopped: Flag, onChange: @Sendable (Bool) -> Void) {
        var watched = initial
        var polling = startPolling
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        func drain() -> Bool {
            var any = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { return any }
                any = true
            }
        }
        // Changes made between placing the watches and taking the baseline.
        if drain() {
            if !addWatches(descriptor: descriptor, root: root, watched: &watched) { polling = true }
            onChange(true)
        }
        var pending = false
        var lastPoll = Date()
        while !stopped.load(ordering: .relaxed) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, pending ? 150 : 500)
            if ready > 0 {
                if drain() { pending = true }
                continue      // wait for the burst to settle
            }
            if pending {
                pending = false
                if !addWatches(descriptor: descriptor, root: root, watched: &watched) { polling = true }
                onChange(false)
            } else if polling, Date().timeIntervalSince(lastPoll) >= 2 {
                lastPoll = Date()
                onChange(false)
            }
        }
    }

    /// The store's collection folders (not its hidden metadata folder), as paths.
    package static func collectionFolders(_ root: String) -> [String] {
        guard let entries = try? StoreSystem.list(root) else { return [] }
        return entries.filter { $0.isFolder && !$0.name.hasPrefix(".") }.map { root + "/" + $0.name }
    }
}
