#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

/// Where `ical alarms watch` reads the time: the system clock, or for tests a file holding
/// an instant (the service wakes when the file changes, so no test waits for a real trigger).
enum AlarmClock {
    case system
    case file(String)

    /// Now, in seconds since 1970.
    func now() -> Int64 {
        switch self {
        case .system:
            return Int64(Date().timeIntervalSince1970)
        case .file(let path):
            let text = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard let moment = try? QueryWindow.moment(text, now: LocalDateTime(secondsSinceEpoch: 0)) else { return 0 }
            return moment.local.secondsSinceEpoch - Int64(moment.utcOffset ?? 0)
        }
    }

    var isSystem: Bool { if case .system = self { return true } else { return false } }
}

/// What the user did with a rung alarm.
enum RingerResponse {
    case dismiss
    case snooze
}

/// How an alarm rings: a desktop notification, a command, a line.
protocol AlarmRinger: AnyObject {
    /// Rings one alarm; returns an identifier when the user can respond to it later
    /// (``responses()``).
    func ring(_ instance: AlarmInstance, now: Int64) throws -> UInt32?
    /// Rings one summary for alarms held back by the rate limit.
    func ringSummary(count: Int, calendar: String) throws
    /// A descriptor that becomes readable when responses may be waiting; nil when there are never any.
    var fileDescriptor: Int32? { get }
    /// The responses since the last call (never blocks).
    func responses() -> [(UInt32, RingerResponse)]
}

/// The fired-alarm record: the keys of the alarms rung (``AlarmInstance/key``) with their
/// trigger instants, kept as JSON so that no alarm rings twice across restarts.
struct FiredLog {
    let path: String
    private(set) var fired: [String: Int64] = [:]

    /// Reads the record; a missing file is an empty record, an unreadable one is set aside
    /// (renamed `….corrupt`) with a warning.
    init(path: String) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else { return }
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let entries = object["fired"] as? [String: Any] {
            for (key, value) in entries {
                if let number = value as? NSNumber { fired[key] = number.int64Value }
            }
        } else {
            printError("ical: \(TerminalText.line(path)) is not a record of fired alarms; it is set aside as \(TerminalText.line(path)).corrupt")
            _ = rename(path, path + ".corrupt")
        }
    }

    func contains(_ key: String) -> Bool { fired[key] != nil }

    mutating func insert(_ key: String, trigger: Int64) { fired[key] = trigger }

    /// Forgets triggers before `instant` (they can no longer ring).
    mutating func prune(before instant: Int64) {
        fired = fired.filter { $0.value >= instant }
    }

    /// Writes the record atomically (a temporary file renamed over it).
    func save() throws {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            let data = try JSONSerialization.data(withJSONObject: ["version": 1, "fired": fired], options: [.sortedKeys])
            try FileIO.writeAtomically(Array(data), to: path)
        } catch {
            // Without the record an alarm could ring twice: stop rather than ring on.
            printError("ical: cannot write the record of fired alarms \(TerminalText.line(path)): \(error) (choose another with --state)")
            throw ExitCode(1)
        }
    }
}

/// `ical alarms watch`'s loop: query, ring what is due, sleep until the next trigger, a store
/// change, a clock change, a response or a signal.
final class AlarmService {
    let storeOptions: StoreAppOptions
    let zone: any TimeZoneRules
    let ringer: any AlarmRinger
    let catchUp: Int64
    let snooze: Int64
    let rateLimit: Int
    let clock: AlarmClock
    var log: FiredLog
    /// The alarms rung that the user can still respond to, by the ringer's identifier.
    var live: [UInt32: AlarmInstance] = [:]
    /// When each calendar's recent alarms rang (for the rate limit).
    var recent: [String: [Int64]] = [:]
    var reported: Set<String> = []
    var skippedActions: Set<String> = []
    let wake: WakeSources

    /// How far ahead a query looks; the service wakes at least this often to look again.
    static let horizon: Int64 = 86_400

    init(storeOptions: StoreAppOptions, zone: any TimeZoneRules, ringer: any AlarmRinger, catchUp: Int64, snooze: Int64,
         rateLimit: Int, statePath: String, clock: AlarmClock) throws {
        self.storeOptions = storeOptions
        self.zone = zone
        self.ringer = ringer
        self.catchUp = catchUp
        self.snooze = snooze
        self.rateLimit = rateLimit
        self.clock = clock
        self.log = FiredLog(path: statePath)
        let store = try storeOptions.openStore()
        try storeOptions.require(.full, to: .event, on: store, for: "ringing alarms (ical alarms watch)")
        try storeOptions.require(.full, to: .reminder, on: store, for: "ringing alarms (ical alarms watch)")
        let root = try storeOptions.storePath()
        var clockFile: String?
        if case .file(let path) = clock { clockFile = path }
        self.wake = try WakeSources(storeRoot: root, clockFile: clockFile)
    }

    /// `$XDG_STATE_HOME/openeventkit/alarms-fired.json` (`~/.local/state/…` without it).
    static func defaultStatePath() -> String {
        let environment = StoreAppOptions.environment(["XDG_STATE_HOME", "HOME"])
        let base = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
        return base + "/openeventkit/alarms-fired.json"
    }

    func run(once: Bool) throws {
        while true {
            let now = clock.now()
            let next = try ringDue(now: now)
            if once { return }
            if clock.isSystem { wake.arm(at: next) }
            // Answers read off the connection while notifying are waiting already.
            if respond() { continue }
            let events = wake.wait(extra: ringer.fileDescriptor)
            if events.contains(.signal) { return }
            if events.contains(.responses) { respond() }
        }
    }

    /// Rings what is due at `now` and returns the next trigger (or the end of the horizon).
    func ringDue(now: Int64) throws -> Int64 {
        let store = try storeOptions.openStore()
        let result = store.alarms(in: now.subtractingClamped(catchUp)..<now.addingClamped(Self.horizon), floatingZone: zone)
        for diagnostic in result.diagnostics where reported.insert(diagnostic.description).inserted {
            printError(diagnostic.description)
        }
        let due = result.instances.filter { $0.triggerInstant <= now && !log.contains($0.key) }

        // Record first: an alarm is rung at most once, even if this process dies while ringing.
        log.prune(before: now.subtractingClamped(catchUp + 86_400))
        for instance in due { log.insert(instance.key, trigger: instance.triggerInstant) }
        if !due.isEmpty { try log.save() }

        var held: [String: Int] = [:]
        var calendarOrder: [String] = []
        for instance in due {
            let calendar = Self.calendarName(instance, store: store)
            guard instance.action == .display || instance.action == .audio else {
                if skippedActions.insert(instance.action.rawValue).inserted {
                    printError("ical: \(instance.action.rawValue) alarms are not carried out by ical alarms watch (only DISPLAY and AUDIO alarms ring)")
                }
                continue
            }
            var times = recent[calendar, default: []].filter { $0 > now - 60 }
            if times.count >= rateLimit {
                if held[calendar] == nil { calendarOrder.append(calendar) }
                held[calendar, default: 0] += 1
                recent[calendar] = times
                continue
            }
            times.append(now)
            recent[calendar] = times
            do {
                if let id = try ringer.ring(instance, now: now) { live[id] = instance }
            } catch {
                printError("ical: could not ring an alarm of \(TerminalText.line(instance.uid)): \(error)")
            }
        }
        for calendar in calendarOrder {
            do { try ringer.ringSummary(count: held[calendar]!, calendar: calendar) } catch {
                printError("ical: could not ring: \(error)")
            }
        }
        return result.instances.first { $0.triggerInstant > now && !log.contains($0.key) }?.triggerInstant
            ?? now.addingClamped(Self.horizon)
    }

    /// Dismisses or snoozes the alarms the user responded to; false when there were none.
    @discardableResult
    func respond() -> Bool {
        let responses = ringer.responses()
        guard !responses.isEmpty else { return false }
        let store: EKEventStore
        do { store = try storeOptions.openStore() } catch {
            printError("ical: \(error)")
            return true
        }
        let now = clock.now()
        for (id, response) in responses {
            guard let instance = live.removeValue(forKey: id) else { continue }
            let action: AlarmAcknowledgement.Action = response == .dismiss ? .dismiss : .snooze(until: now + snooze)
            do {
                try store.acknowledgeAlarm(instance, action, at: Date(timeIntervalSince1970: TimeInterval(now)))
            } catch {
                printError("ical: could not \(response == .dismiss ? "dismiss" : "snooze") the alarm of \(TerminalText.line(instance.uid)): \(error)")
            }
        }
        return true
    }

    /// The calendar an alarm's item is in: its title in the store, else the source.
    static func calendarName(_ instance: AlarmInstance, store: EKEventStore) -> String {
        guard let source = instance.source else { return "" }
        let identifier = source.split(separator: "/").first.map(String.init) ?? source
        return store.calendar(withIdentifier: identifier)?.title ?? identifier
    }
}

/// What wakes the service: store changes (inotify on the store folder and its collections),
/// the clock file, a wall-clock timer (timerfd, `CLOCK_REALTIME`, so it fires after a
/// suspend and when the clock is set), SIGINT, SIGTERM and SIGHUP, and the ringer's
/// responses. No polling: the service sleeps in one `poll(2)` with no timeout.
final class WakeSources {
    enum Event { case store, timer, signal, responses }

    private let inotify: Int32
    private let timer: Int32
    private let root: String
    private var watched: Set<String> = []
    private var clockWatch: Int32 = -1
    private let clockName: String?

    private typealias TimerCreate = @convention(c) (Int32, Int32) -> Int32
    private typealias TimerSet = @convention(c) (Int32, Int32, UnsafePointer<itimerspec>, UnsafeMutablePointer<itimerspec>?) -> Int32
    private static let timerSet: TimerSet? = dlsym(nil, "timerfd_settime").map { unsafeBitCast($0, to: TimerSet.self) }

    init(storeRoot: String, clockFile: String?) throws {
        root = storeRoot
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            printError("ical: inotify is not available (\(String(cString: strerror(errno)))); ical alarms watch needs it")
            throw ExitCode(1)
        }
        let create = dlsym(nil, "timerfd_create").map { unsafeBitCast($0, to: TimerCreate.self) }
        timer = create?(CLOCK_REALTIME, Int32(O_NONBLOCK | O_CLOEXEC)) ?? -1
        guard timer >= 0 else {
            printError("ical: timerfd is not available; ical alarms watch needs it")
            throw ExitCode(1)
        }
        clockName = clockFile.map { ($0 as NSString).lastPathComponent }
        if let clockFile {
            let folder = (clockFile as NSString).deletingLastPathComponent
            clockWatch = inotify_add_watch(inotify, folder.isEmpty ? "." : folder, Self.mask)
        }
        addWatches()
        SignalPipe.install()
    }

    deinit {
        close(inotify)
        close(timer)
    }

    /// Creations, removals, renames and finished writes: what a commit, a sync or an editor
    /// does. Not IN_ATTRIB (reading an item may set its access time).
    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF)

    private func addWatches() {
        for path in [root] + StoreWatcher.collectionFolders(root) where !watched.contains(path) {
            if inotify_add_watch(inotify, path, Self.mask) >= 0 { watched.insert(path) }
        }
    }

    /// Sets the timer to an instant (seconds since 1970).
    func arm(at instant: Int64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = time_t(max(1, instant))
        // TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET: wake also when the clock is set.
        _ = Self.timerSet?(timer, 1 | 2, &spec, nil)
    }

    /// Sleeps until something happens; returns what did.
    func wait(extra: Int32?) -> Set<Event> {
        var descriptors = [pollfd(fd: SignalPipe.readEnd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: timer, events: Int16(POLLIN), revents: 0)]
        if let extra { descriptors.append(pollfd(fd: extra, events: Int16(POLLIN), revents: 0)) }
        var events = Set<Event>()
        while events.isEmpty {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return [.signal]
            }
            if descriptors[0].revents != 0 { events.insert(.signal) }
            if descriptors[1].revents != 0 {
                // Let the rest of a burst (a commit's several renames, a sync) arrive.
                var relevant = readChanges()
                var settle = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
                while poll(&settle, 1, 100) > 0 { relevant = readChanges() || relevant }
                if relevant {
                    addWatches()
                    events.insert(.store)
                }
            }
            if descriptors[2].revents != 0 {
                drain(timer)
                events.insert(.timer)
            }
            if descriptors.count > 3, descriptors[3].revents != 0 { events.insert(.responses) }
        }
        return events
    }

    /// Reads the pending inotify events; true when one is a change of the store or of the
    /// clock file (not of another file beside the clock file).
    private func readChanges() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            var offset = 0
            let headerSize = MemoryLayout<inotify_event>.size
            while offset + headerSize <= count {
                let (watch, length) = buffer.withUnsafeBytes { bytes in
                    (bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                if watch != clockWatch {
                    relevant = true
                } else if length > 0 {
                    let name = buffer[(offset + headerSize)..<min(count, offset + headerSize + length)]
                    let text = String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
                    if text == clockName { relevant = true }
                }
                offset += headerSize + length
            }
        }
    }

    private func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}

/// SIGINT, SIGTERM and SIGHUP write a byte to a pipe the service polls (the self-pipe
/// trick): the service ends between two steps, never in the middle of writing the store.
enum SignalPipe {
    nonisolated(unsafe) static var readEnd: Int32 = -1
    nonisolated(unsafe) static var writeEnd: Int32 = -1

    static func install() {
        guard readEnd < 0 else { return }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        readEnd = ends[0]
        writeEnd = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(SignalPipe.writeEnd, &byte, 1)
        }
        // A parent may have started the service with these signals blocked (a thread of a
        // test runner, a supervisor): the mask is inherited, and a blocked SIGTERM never ends it.
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            sigaction(signal, &action, nil)
            sigaddset(&set, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
