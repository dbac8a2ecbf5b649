import Foundation
import ICalKit
import Synchronization

/// Adds, lists, removes and syncs a store's remote sources (CalDAV accounts and subscribed
/// feeds). Each remote calendar is mirrored as a collection of the store, so every reader
/// (the index, `ical query`, khal) works on it offline; the mirror changes only through the
/// store's batches.
package struct RemoteSourceManager {
    package let store: FolderStore
    package let files: RemoteSourceFiles

    package init(store: FolderStore) {
        self.store = store
        files = RemoteSourceFiles(storeRoot: store.root)
    }

    /// What one source's sync did.
    package struct SourceReport {
        package var source: String
        package var calendars: [CalendarSyncReport] = []
        /// Why the source (or a calendar of it) could not be synced at all.
        package var failures: [String] = []
    }

    // MARK: Adding and removing

    /// The HTTP funnel of a source, with its password and the limits of the operation.
    package static func funnel(_ record: RemoteSourceRecord, password: String?,
                               limits: HTTPFunnel.Limits = HTTPFunnel.Limits()) throws(RemoteError) -> (HTTPFunnel, URL) {
        guard let url = Self.url(record.url) else {
            throw RemoteError(.invalidArgument, "not a URL: \(record.url)")
        }
        return (try HTTPFunnel(baseURL: url, user: record.user, password: password,
                               allowInsecureHTTP: record.allowInsecureHTTP ?? false, limits: limits), url)
    }

    /// A URL as given: `webcal://` means `https://`.
    package static func url(_ text: String) -> URL? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.lowercased().hasPrefix("webcal://") { text = "https://" + text.dropFirst("webcal://".count) }
        guard let url = URL(string: text), url.scheme != nil, url.host != nil, url.user == nil, url.password == nil else { return nil }
        return url
    }

    /// Adds a source: discovers its calendars (a CalDAV account) or checks the feed (a
    /// subscription), creates one collection per calendar in one batch, and records it.
    /// `limits` bound each request and, with a deadline, the whole discovery; nothing is
    /// written to the store before discovery has finished.
    package func add(_ record: RemoteSourceRecord, password: String?,
                     limits: HTTPFunnel.Limits = HTTPFunnel.Limits()) throws -> RemoteSourceRecord {
        var sources = try files.sources()
        guard !sources.contains(where: { $0.name.lowercased() == record.name.lowercased() }) else {
            throw RemoteError(.invalidArgument, "the store already has a source named '\(record.name)'")
        }
        var record = record
        let (http, url) = try Self.funnel(record, password: password, limits: limits)
        var batch = Batch()
        var taken = Set(try store.collections().map(\.identifier))
        var discovered: [RemoteCalendar] = []
        switch record.kind {
        case .caldav:
            let client = CalDAVClient(http: http, baseURL: url)
            let (calendars, identity) = try client.discover()
            record.identity = identity
            guard !calendars.isEmpty else {
                throw RemoteError(.invalidArgument, "the account has no calendars", url: HTTPFunnel.redacted(url))
            }
            discovered = calendars
            for calendar in calendars {
                let identifier = Self.collectionIdentifier(record.name, calendar.href, taken: taken)
                taken.insert(identifier)
                try batch.createCollection(identifier, title: calendar.title, color: calendar.color)
                var types: Set<CollectionEntityType> = []
                if calendar.holdsEvents { types.insert(.event) }
                if calendar.holdsReminders { types.insert(.reminder) }
                try batch.setEntityTypes(types.isEmpty ? [.event] : types, of: identifier)
                record.calendars.append(MirroredCalendar(collection: identifier, href: calendar.href,
                                                         writable: calendar.writable, supportsSync: calendar.supportsSync))
            }
        case .subscription:
            let response = try http.send(HTTPRequest("GET", url, headers: ["Accept": "text/calendar"]))
            guard response.status == 200 else {
                throw RemoteError(.httpStatus, "the feed could not be fetched", url: HTTPFunnel.redacted(url), status: response.status)
            }
            guard let read = try? ICalReader().read(Array(response.body), file: HTTPFunnel.redacted(url)), let calendar = read.calendars.first else {
                throw RemoteError(.malformed, "the feed is not iCalendar data", url: HTTPFunnel.redacted(url))
            }
            let identifier = Self.collectionIdentifier(record.name, "", taken: taken)
            let title = calendar[text: .calendarName] ?? record.name
            try batch.createCollection(identifier, title: title, color: nil)
            try batch.setEntityTypes([.event], of: identifier)
            if record.refreshSeconds == nil { record.refreshSeconds = RemoteSyncEngine.refreshInterval(calendar) }
            record.calendars = [MirroredCalendar(collection: identifier, href: HTTPFunnel.redacted(url), writable: false, supportsSync: false)]
        }
        _ = try store.commit(batch)
        if record.kind == .caldav {
            // The tokens that came with the listing start each calendar's first sync.
            for (mirror, calendar) in zip(record.calendars, discovered) where mirror.supportsSync && calendar.syncToken != nil {
                var state = CollectionSyncState()
                state.baselineToken = calendar.syncToken
                try files.setState(state, of: mirror.collection)
            }
        }
        sources.append(record)
        try files.setSources(sources)
        return record
    }

    /// Removes a source and its calendars' collections (items included) and sync state.
    package func remove(_ name: String) throws {
        var sources = try files.sources()
        guard let index = sources.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw RemoteError(.invalidArgument, "the store has no source named '\(name)'")
        }
        let record = sources[index]
        var batch = Batch()
        let existing = Set(try store.collections().map(\.identifier))
        for calendar in record.calendars where existing.contains(calendar.collection) {
            try batch.deleteCollection(calendar.collection)
        }
        if !batch.isEmpty { _ = try store.commit(batch) }
        for calendar in record.calendars { try files.removeState(of: calendar.collection) }
        sources.remove(at: index)
        try files.setSources(sources)
    }

    /// The collection identifier for a remote calendar: readable, safe, unique in the store.
    static func collectionIdentifier(_ source: String, _ href: String, taken: Set<String>) -> String {
        let segment = href.split(separator: "/").last.map(String.init) ?? ""
        var text = ""
        for character in (source + (segment.isEmpty ? "" : "-" + (segment.removingPercentEncoding ?? segment))).lowercased() {
            text.append(character.isASCII && (character.isLetter || character.isNumber) ? character : "-")
        }
        while text.contains("--") { text = text.replacingOccurrences(of: "--", with: "-") }
        text = String(text.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(60))
        if text.isEmpty { text = "remote" }
        var candidate = text
        var number = 2
        while taken.contains(candidate) {
            candidate = text + "-\(number)"
            number += 1
        }
        return candidate
    }

    // MARK: Syncing

    /// Syncs the named sources (all when empty), one at a time, under the store's sync lock
    /// (so two syncs of one store never interleave); the store's own lock is taken only by
    /// each batch. `password` is asked for each CalDAV source that needs one.
    ///
    /// `limits` bound every request (``HTTPFunnel/Limits``); their deadline, when set, bounds
    /// the whole sync, the wait for another sync's lock included: a request it cuts short
    /// fails like any failed request (nothing half-written, the sync state left at the last
    /// good token), and the sources and calendars not reached by then are reported as
    /// failures, so the next sync picks up where this one stopped.
    package func sync(_ names: [String], policy: SyncConflictPolicy, force: Bool = false,
                      limits: HTTPFunnel.Limits = HTTPFunnel.Limits(),
                      progress: ((_ source: String, _ calendar: String) -> Void)? = nil,
                      password: (RemoteSourceRecord) throws -> String?) throws -> [SourceReport] {
        let sources = try files.sources()
        let wanted = names.isEmpty ? sources : try names.map { name in
            guard let source = sources.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw RemoteError(.invalidArgument, "the store has no source named '\(name)'")
            }
            return source
        }
        let lock = try Self.syncLock(store.root + "/.openeventkit/sync.lock", deadline: limits.deadline)
        defer { StoreSystem.unlock(lock) }
        let engine = RemoteSyncEngine(store: store)
        var reports: [SourceReport] = []
        var identities: [String: AccountIdentity] = [:]
        defer {
            // The accounts' identities as the servers give them now (an address added or removed).
            if !identities.isEmpty, var current = try? files.sources() {
                for index in current.indices { current[index].identity = identities[current[index].name] ?? current[index].identity }
                try? files.setSources(current)
            }
        }
        let titles = Dictionary(try store.collections().map { ($0.identifier, $0.title) }, uniquingKeysWith: { first, _ in first })
        for source in wanted {
            var report = SourceReport(source: source.name)
            do {
                if let deadline = limits.deadline, deadline.hasPassed { throw Self.outOfTime(deadline) }
                let secret = source.kind == .caldav ? try password(source) : nil
                let (http, url) = try Self.funnel(source, password: secret, limits: limits)
                for calendar in source.calendars {
                    if let deadline = limits.deadline, deadline.hasPassed {
                        report.failures.append("\(titles[calendar.collection] ?? calendar.collection): \(Self.outOfTime(deadline))")
                        continue
                    }
                    guard let title = titles[calendar.collection] else {
                        report.failures.append("\(calendar.collection): the calendar's folder is gone from the store; remove and add the source again")
                        continue
                    }
                    progress?(source.name, title)
                    do {
                        switch source.kind {
                        case .caldav:
                            report.calendars.append(try engine.sync(calendar, title: title, client: CalDAVClient(http: http, baseURL: url), policy: policy))
                        case .subscription:
                            report.calendars.append(try engine.refresh(calendar, title: title, http: http, url: url,
                                                                       interval: source.refreshSeconds, force: force,
                                                                       now: Date().timeIntervalSince1970))
                        }
                    } catch {
                        report.failures.append("\(title): \(error)")
                    }
                }
                // Who the account is, after its calendars (their data comes first when time is short):
                // asked of the principal known, or for a source added before identities were kept,
                // found once by discovery (an empty principal records that there is none).
                if source.kind == .caldav, !(limits.deadline?.hasPassed ?? false) {
                    let client = CalDAVClient(http: http, baseURL: url)
                    if let known = source.identity {
                        if !known.principal.isEmpty, let current = try? client.identity(of: known.principal), current != known {
                            identities[source.name] = current
                        }
                    } else if let found = try? client.discover() {
                        identities[source.name] = found.identity ?? AccountIdentity(principal: "")
                    }
                }
                if source.kind == .caldav, !(limits.deadline?.hasPassed ?? false),
                   let inbox = (identities[source.name] ?? source.identity)?.inbox {
                    try processInbox(inbox, of: source, client: CalDAVClient(http: http, baseURL: url), engine: engine,
                                     titles: titles, policy: policy, report: &report)
                }
            } catch {
                report.failures.append("\(error)")
            }
            reports.append(report)
        }
        return reports
    }

    /// Files the account's scheduling Inbox (``ScheduleInbox``) after its calendars were
    /// synced, then syncs again the calendars that changed, so that an invitation found only
    /// in the Inbox, or a cancellation, goes up in the same sync. Says what it did as a note
    /// of the first calendar.
    private func processInbox(_ inbox: String, of source: RemoteSourceRecord, client: CalDAVClient, engine: RemoteSyncEngine,
                              titles: [String: String], policy: SyncConflictPolicy, report: inout SourceReport) throws {
        let filed = try ScheduleInbox(store: store, client: client).process(inbox: inbox, calendars: source.calendars)
        for calendar in source.calendars where filed.changed.contains(calendar.collection) {
            guard let title = titles[calendar.collection] else { continue }
            let again = try engine.sync(calendar, title: title, client: client, policy: policy)
            if let index = report.calendars.firstIndex(where: { $0.title == title }) {
                report.calendars[index].down += again.down
                report.calendars[index].up += again.up
                report.calendars[index].conflicts += again.conflicts
                report.calendars[index].problems += again.problems
            } else {
                report.calendars.append(again)
            }
        }
        guard filed.added + filed.cancelled > 0, !report.calendars.isEmpty else { return }
        var parts: [String] = []
        if filed.added > 0 { parts.append("\(filed.added) invitation\(filed.added == 1 ? "" : "s") from the scheduling Inbox added") }
        if filed.cancelled > 0 { parts.append("\(filed.cancelled) event\(filed.cancelled == 1 ? "" : "s") cancelled by the organizer") }
        report.calendars[0].notes.append(parts.joined(separator: "; "))
    }

    /// The error for a sync whose time ran out before it reached a source or calendar.
    private static func outOfTime(_ deadline: Deadline) -> RemoteError {
        RemoteError(.timedOut, "not synced: the time limit of \(Deadline.describe(deadline.budget)) for the whole sync ran out first")
    }

    /// Takes the store's sync lock, waiting for another sync to finish, but not past the
    /// deadline.
    private static func syncLock(_ path: String, deadline: Deadline?) throws -> Int32 {
        guard let deadline else { return try StoreSystem.lockExclusively(path) }
        while true {
            if let lock = try StoreSystem.tryLockExclusively(path) { return lock }
            guard !deadline.hasPassed else {
                throw RemoteError(.timedOut, "another sync of this store is still running after \(Deadline.describe(deadline.budget)), the time limit of this one")
            }
            Thread.sleep(forTimeInterval: min(0.2, max(deadline.remaining, 0.01)))
        }
    }

    /// Runs a password command (`sh -c`) and returns the first line of its output. The
    /// command's text is not secret (`pass show calendar`); its output is, and is kept in
    /// memory only. A command still running at `deadline` is sent SIGTERM, and SIGKILL a
    /// second later (the shell, or the command the shell replaced itself with), and is an
    /// error: a stuck password helper must not hold a sync any more than a stuck server.
    package static func runPasswordCommand(_ command: String, deadline: Deadline? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let reader = output.fileHandleForReading
        let read = Mutex<Data?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = reader.readDataToEndOfFile()
            read.withLock { $0 = data }
            finished.signal()
        }
        if let deadline {
            if finished.wait(timeout: .now() + max(0, deadline.remaining)) == .timedOut {
                // SIGTERM, then SIGKILL a second later: SIGTERM may be ignored (an ignored
                // signal stays ignored across exec, so a parent that ignores it passes that on).
                process.terminate()
                if finished.wait(timeout: .now() + 1) == .timedOut && process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                }
                throw RemoteError(.timedOut, "the password command did not finish within the time limit of \(Deadline.describe(deadline.budget))")
            }
        } else {
            finished.wait()
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RemoteError(.invalidArgument, "the password command failed with status \(process.terminationStatus)")
        }
        let data = read.withLock { $0 } ?? Data()
        let text = String(decoding: data.prefix(4096), as: UTF8.self)
        return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }
}
