internal import CLandlock
import Foundation
import OpenEventKit

/// The broker: one trusted process per store and user that owns the store, its index and the
/// authorization records, and serves the apps `ical run` started (`ical broker`).
///
/// It listens on an abstract Unix socket named after the user and the store folder's device
/// and inode (``address(for:)``). An app in the sandbox cannot connect to it: Landlock (ABI 6)
/// scopes abstract sockets to the sandbox that made them. Of the processes that can, only
/// `ical` itself may launch apps: the broker takes a connection only from a process of its own
/// user (`SO_PEERCRED`) whose executable is the broker's own file (`/proc/PID/exe`, by device
/// and inode). That process passes the broker's end of the app's socket pair and the path of
/// the app's manifest; the broker reads the manifest itself and binds the session to it.
/// Nothing the app sends later can change whom the session serves.
///
/// When no app has been connected for `idleTimeout` seconds, the broker exits.
package final class BrokerDaemon: @unchecked Sendable {
    package let store: FolderStore
    let idleTimeout: Double
    let log: @Sendable (String) -> Void
    private let lock = NSLock()
    /// Connections being served (launches on their way and apps).
    private var sessions = 0
    /// The store's query index, shared by every session.
    private lazy var index = BrokerIndex(store: store)
    private var idleSince = Deadline.now()
    /// The most apps served at once (more are refused until one ends).
    static let maximumSessions = 64

    package init(store: FolderStore, idleTimeout: Double, log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.idleTimeout = idleTimeout
        self.log = log
    }

    /// What went wrong starting the broker.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        /// Another broker serves this store already.
        package var alreadyRunning = false
    }

    /// The abstract socket name of the broker of `storeRoot` for this user: the user, the
    /// folder's device and inode, and a hash of its resolved path (a folder made where another
    /// was removed can get its inode number; it does not get its broker).
    package static func address(for storeRoot: String) throws(Failure) -> String {
        guard let identity = folderIdentity(storeRoot) else {
            throw Failure(description: "cannot find the store folder \(storeRoot): \(String(cString: strerror(errno)))")
        }
        let resolved = URL(fileURLWithPath: storeRoot).resolvingSymlinksInPath().path
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a
        for byte in resolved.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return "org.openeventkit.broker/\(getuid())/\(identity.device)-\(identity.inode)-\(String(hash, radix: 16))"
    }

    /// The device and inode of a folder, nil when it cannot be reached.
    static func folderIdentity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Whether the store folder is still the one this broker was started for.
    private func storeIsTheSame(_ identity: (device: UInt64, inode: UInt64)) -> Bool {
        guard let now = Self.folderIdentity(store.root) else { return false }
        return now == identity
    }

    /// Serves until idle. Throws when the socket cannot be made (``Failure/alreadyRunning``
    /// when another broker has it).
    package func run() throws(Failure) {
        let name = try Self.address(for: store.root)
        let listener = cbroker_listen_abstract(name)
        guard listener >= 0 else {
            if errno == EADDRINUSE { throw Failure(description: "a broker already serves \(store.root)", alreadyRunning: true) }
            throw Failure(description: "cannot listen on the broker's socket: \(String(cString: strerror(errno)))")
        }
        defer {
            close(listener)
            lock.withLock { index }.close()
        }
        guard let identity = Self.folderIdentity(store.root) else {
            throw Failure(description: "the store folder \(store.root) is gone")
        }
        log("broker: serving \(store.root)")
        while true {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 500)
            if ready > 0 {
                let connection = accept(listener, nil, nil)
                if connection >= 0 {
                    _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                    // Counted from the accept, so that the broker cannot go idle while a
                    // launch is on its way.
                    lock.withLock { sessions += 1 }
                    Thread.detachNewThread { [self] in
                        take(connection)
                        lock.withLock {
                            sessions -= 1
                            if sessions == 0 { idleSince = Deadline.now() }
                        }
                    }
                }
                continue
            }
            guard storeIsTheSame(identity) else {
                log("broker: the store folder \(store.root) was removed or replaced; exiting")
                return
            }
            let idle = lock.withLock { sessions == 0 && Deadline.now() - idleSince >= idleTimeout }
            if idle {
                log("broker: idle for \(Deadline.describe(idleTimeout)); exiting")
                return
            }
        }
    }

    /// Whether `pid` runs the same executable file as this process.
    static func runsThisExecutable(_ pid: pid_t) -> Bool {
        var mine = stat(), theirs = stat()
        guard stat("/proc/self/exe", &mine) == 0, stat("/proc/\(pid)/exe", &theirs) == 0 else { return false }
        return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    /// One connection to the listening socket: a launcher, or refused.
    private func take(_ descriptor: Int32) {
        let channel = FrameChannel(descriptor: descriptor)
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        guard cbroker_peer(descriptor, &pid, &uid, &gid) == 0, uid == getuid(), Self.runsThisExecutable(pid) else {
            log("broker: refused a connection from process \(pid) (user \(uid)): only ical run may launch apps")
            channel.close()
            return
        }
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 10_000) > 0 else { channel.close(); return }
        let appSocket = cbroker_receive_descriptor(descriptor)
        guard appSocket >= 0 else {
            try? channel.send(.refused("no app socket came with the launch"))
            channel.close()
            return
        }
        let appChannel = FrameChannel(descriptor: appSocket)
        guard case .launch(let version, let manifestPath)? = try? channel.receiveLauncherMessage(idle: 10) else {
            try? channel.send(.refused("the launch message did not come"))
            channel.close()
            appChannel.close()
            return
        }
        guard version == BrokerWire.version else {
            try? channel.send(.refused("ical run speaks broker protocol \(version); this broker speaks \(BrokerWire.version): stop the old broker (it exits when idle) and run again"))
            channel.close()
            appChannel.close()
            return
        }
        let manifest: AppManifest
        do {
            manifest = try AppManifest(contentsOfFile: manifestPath)
        } catch {
            try? channel.send(.refused("\(error)"))
            channel.close()
            appChannel.close()
            return
        }
        guard lock.withLock({ sessions <= Self.maximumSessions }) else {
            try? channel.send(.refused("the broker serves \(Self.maximumSessions) apps already"))
            channel.close()
            appChannel.close()
            return
        }
        let link = LauncherLink(channel: channel)
        let session = BrokerSession(store: store, manifest: manifest, channel: appChannel, prompt: link, helpers: link,
                                    index: lock.withLock { index })
        do { try channel.send(.launched) } catch { appChannel.close(); return }
        log("broker: serving \(manifest.bundleIdentifier) (launcher process \(pid))")
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            session.serve()
            done.signal()
        }
        link.readAnswers()   // until the launcher is gone
        appChannel.close()   // then the app's session ends too
        done.wait()
        log("broker: \(manifest.bundleIdentifier) ended")
    }
}
