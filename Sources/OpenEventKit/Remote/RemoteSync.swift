import Foundation
import ICalKit
import Synchronization

/// What to do when an item changed both here and on the server since the last sync.
public enum SyncConflictPolicy: String, Sendable, CaseIterable {
    /// The server's copy wins the item; the local version is kept as a new item (another
    /// UID) marked `X-OPENEVENTKIT-CONFLICT`, and reported. The default: nothing is lost.
    case keepBoth = "keep-both"
    /// The server's copy wins; the local change is dropped.
    case server
    /// The local copy wins: it replaces the server's (with the server's current ETag).
    case local
}

/// What one calendar's sync did.
public struct CalendarSyncReport: Sendable, Hashable, CustomStringConvertible {
    /// The calendar's title.
    public var title: String
    /// Items written or removed here because of the server.
    public var down = 0
    /// Items sent to or removed from the server.
    public var up = 0
    /// Conflicts, each as a sentence.
    public var conflicts: [String] = []
    /// What could not be synced (the rest was).
    public var problems: [String] = []
    /// What the sync did differently without losing anything (a forgotten sync token).
    public var notes: [String] = []
    /// Whether the feed was unchanged (a subscription's 304).
    public var unchanged = false

    public var description: String {
        var text = "\(title): \(down) down, \(up) up"
        if !conflicts.isEmpty { text += ", \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")" }
        if unchanged { text += " (feed unchanged)" }
        if !problems.isEmpty { text += ", \(problems.count) problem\(problems.count == 1 ? "" : "s")" }
        return text
    }
}

/// Two-way sync of one mirrored CalDAV calendar with its store collection, and the refresh of
/// a subscribed feed. The store's own batches do every local write (all or nothing, under
/// its lock, never while waiting on the network); the network goes through
/// ``CalDAVClient``'s one funnel.
///
/// A CalDAV sync:
/// 1. lists the collection's files and compares each with the identity recorded at the last
///    sync: created, changed or removed here;
/// 2. asks the server what changed: `sync-collection` from the last token when the calendar
///    offers it (a forgotten token falls back to a listing), else a `PROPFIND` of every
///    ETag, compared with the recorded ones;
/// 3. sends local creations with `If-None-Match: *`, changes and removals with `If-Match`;
///    a `412`, or a change on both sides, is a conflict, settled by the policy;
/// 4. fetches what changed on the server with `calendar-multiget` (and what it rewrote:
///    an upload answered without an ETag), and writes it in one batch, which expects every
///    file it replaces or removes to be as it was listed, so an edit made meanwhile is never
///    overwritten (the next sync sees it);
/// 5. records the new ETags, identities and token.
package struct RemoteSyncEngine {
    package let store: FolderStore
    package let files: RemoteSourceFiles

    package init(store: FolderStore) {
        self.store = store
        files = RemoteSourceFiles(storeRoot: store.root)
    }

    /// The marker property of a local version kept beside the server's.
    package static let conflictProperty = "X-OPENEVENTKIT-CONFLICT"

    // MARK: CalDAV

    package func sync(_ calendar: MirroredCalendar, title: String, client: CalDAVClient,
                      policy: SyncConflictPolicy) throws -> CalendarSyncReport {
        var report = CalendarSyncReport(title: title)
        let collection = calendar.collection
        var state = try files.state(of: collection)
        // The server's changes since the token do not depend on the folder: they are asked
        // for while the folder is listed.
        let pendingDelta = calendar.supportsSync ? state.syncToken.map { token in
            InBackground { () throws(RemoteError) in try client.changes(in: calendar.href, since: token) }
        } : nil

        // 1. Local changes.
        var local: [String: FileIdentity] = [:]
        for file in try store.items(in: collection) { local[file.name] = file.identity }
        let created = Set(local.keys.filter { state.items[$0] == nil })
        let changed = Set(local.keys.filter { name in state.items[name].map { $0.identity != local[name]! } ?? false })
        let removed = Set(state.items.keys.filter { local[$0] == nil })

        // 2. Remote changes.
        var remoteChanged: [String: String?] = [:]   // href -> etag
        var remoteRemoved: Set<String> = []
        var newToken = state.syncToken
        let nameByHref = Dictionary(state.items.map { ($0.value.href, $0.key) }, uniquingKeysWith: { first, _ in first })
        var listed = false
        if let pendingDelta, let token = state.syncToken {
            switch pendingDelta.result() {
            case .success(let delta):
                for item in delta.changed where state.items[nameByHref[item.href] ?? ""]?.etag != item.etag || nameByHref[item.href] == nil {
                    remoteChanged[item.href] = item.etag
                }
                for href in delta.removed where nameByHref[href] != nil { remoteRemoved.insert(href) }
                newToken = delta.token ?? token
                listed = true
            case .failure(let error) where error.code == .invalidSyncToken:
                report.notes.append("the server no longer knew the sync token; every item was listed instead")
            case .failure(let error):
                throw error
            }
        }
        var prefetched: [String: (etag: String?, data: String)] = [:]
        if !listed && state.items.isEmpty && state.syncToken == nil {
            // A first sync takes everything in one calendar-query (the token first: changes
            // made meanwhile are reported again next time); a calendar too large for one
            // response is listed and fetched in batches instead.
            newToken = calendar.supportsSync ? state.baselineToken ?? (try? client.syncToken(of: calendar.href)) ?? nil : nil
            switch Self.attempt({ () throws(RemoteError) in try client.fetchAll(from: calendar.href) }) {
            case .success(let all):
                prefetched = all
                for (href, item) in all { remoteChanged[href] = item.etag }
                listed = true
            case .failure(let error) where error.code == .tooLarge || error.code == .httpStatus:
                break
            case .failure(let error):
                throw error
            }
        }
        if !listed {
            // The token first: changes made while listing are reported again next time.
            newToken = calendar.supportsSync ? (try? client.syncToken(of: calendar.href)) ?? nil : nil
            let listing = try client.listItems(in: calendar.href)
            var present: Set<String> = []
            for item in listing {
                present.insert(item.href)
                let known = nameByHref[item.href].flatMap { state.items[$0] }
                if known == nil || known?.etag != item.etag || item.etag == nil { remoteChanged[item.href] = item.etag }
            }
            for (href, _) in nameByHref where !present.contains(href) { remoteRemoved.insert(href) }
        }

        // 3. Decide.
        var downloads: Set<String> = []                 // hrefs to fetch and write
        var conflictedNames: [String: String] = [:]      // file name -> href on the server
        var takenNames = Set(local.keys).union(state.items.keys)
        var nameForHref: [String: String] = [:]
        for (href, _) in remoteChanged {
            if let name = nameByHref[href] {
                nameForHref[href] = name
                if changed.contains(name) || removed.contains(name) { conflictedNames[name] = href } else { downloads.insert(href) }
            } else {
                // A new item on the server; a local file of the same name (created here) is a conflict.
                let name = Self.fileName(forHref: href, avoiding: takenNames)
                takenNames.insert(name)
                nameForHref[href] = name
                downloads.insert(href)
            }
        }

        var batch = Batch()
        var newItems = state.items
        var refetch: [String: String] = [:]              // href -> name, after an upload without an ETag

        // 4. Up.
        var wentUp = Set<String>()
        let base = calendar.href.hasSuffix("/") ? calendar.href : calendar.href + "/"
        for name in created.sorted() {
            let href = DAVResponse.canonicalHref(base + name)
            let bytes = try StoreSystem.readFile(store.root + "/" + collection + "/" + name, limit: FolderStore.maximumItemSize).bytes
            guard calendar.writable else {
                report.problems.append("\(name) was added here, but the server's calendar is read-only; it stays local")
                continue
            }
            switch Self.attempt({ () throws(RemoteError) in try client.put(bytes, at: href, replacing: nil) }) {
            case .success(let etag):
                newItems[name] = CollectionSyncState.Item(href: href, etag: etag, identity: local[name]!)
                if etag == nil { refetch[href] = name }
                report.up += 1
                wentUp.insert(name)
            case .failure(let error) where error.code == .preconditionFailed:
                // Something is there already: the same item (an upload whose record a crash
                // lost) is adopted; anything else is a conflict.
                let server = try client.fetch([href], from: calendar.href)[href]
                if let server, Self.sameItem(Array(server.data.utf8), bytes) {
                    newItems[name] = CollectionSyncState.Item(href: href, etag: server.etag, identity: local[name]!)
                    wentUp.insert(name)
                } else {
                    conflictedNames[name] = href
                }
            case .failure(let error):
                report.problems.append("\(name): \(error)")
            }
        }
        for name in changed.sorted() where conflictedNames[name] == nil {
            guard let known = state.items[name] else { continue }
            if remoteRemoved.contains(known.href) {
                conflictedNames[name] = known.href
                continue
            }
            guard calendar.writable else {
                report.problems.append("\(name) was changed here, but the server's calendar is read-only; the change stays local")
                continue
            }
            let bytes = try StoreSystem.readFile(store.root + "/" + collection + "/" + name, limit: FolderStore.maximumItemSize).bytes
            switch Self.attempt({ () throws(RemoteError) in try client.put(bytes, at: known.href, replacing: known.etag) }) {
            case .success(let etag):
                newItems[name] = CollectionSyncState.Item(href: known.href, etag: etag, identity: local[name]!)
                if etag == nil { refetch[known.href] = name }
                report.up += 1
                wentUp.insert(name)
            case .failure(let error) where error.code == .preconditionFailed:
                conflictedNames[name] = known.href
            case .failure(let error):
                report.problems.append("\(name): \(error)")
            }
        }
        for name in removed.sorted() where conflictedNames[name] == nil {
            guard let known = state.items[name] else { continue }
            if remoteRemoved.contains(known.href) {
                newItems[name] = nil
                continue
            }
            guard calendar.writable else {
                // A read-only calendar: the server's copy comes back.
                downloads.insert(known.href)
                nameForHref[known.href] = name
                continue
            }
            switch Self.attempt({ () throws(RemoteError) in try client.delete(known.href, etag: known.etag) }) {
            case .success:
                newItems[name] = nil
                report.up += 1
                wentUp.insert(name)
            case .failure(let error) where error.code == .preconditionFailed:
                // Changed on the server, removed here: the change wins (a removal loses nothing).
                downloads.insert(known.href)
                nameForHref[known.href] = name
                report.conflicts.append("\(name) was removed here but changed on the server; the server's version is back")
            case .failure(let error):
                report.problems.append("\(name): \(error)")
            }
        }

        // Removed on the server, unchanged here.
        for href in remoteRemoved {
            guard let name = nameByHref[href], conflictedNames[name] == nil else { continue }
            if let identity = local[name], !changed.contains(name) {
                try batch.delete(name, from: collection, expecting: .identity(identity))
                report.down += 1
            }
            newItems[name] = nil
        }

        // What went up is recorded before anything comes down, so a sync cut short here
        // does not send it again as a conflict.
        var interim = state
        for name in wentUp { interim.items[name] = newItems[name] }
        if !wentUp.isEmpty { try files.setState(interim, of: collection) }

        // 5. Down: changes and rewritten uploads, in batches (memory is bounded by a batch,
        // not by the calendar), each committed on its own.
        let conflictHrefs = Set(conflictedNames.values)
        let incoming = Array(downloads.union(refetch.keys).subtracting(conflictHrefs)).sorted()
        var start = 0
        // Data already in memory (a first sync's one report) is written in larger batches:
        // each commit flushes the file system once.
        let chunkSize = prefetched.isEmpty ? CalDAVClient.multigetBatch : 2_000
        while start < incoming.count {
            let chunk = Array(incoming[start..<min(start + chunkSize, incoming.count)])
            start += chunkSize
            let fetched = prefetched.isEmpty ? try client.fetch(chunk, from: calendar.href)
                : chunk.reduce(into: [String: (etag: String?, data: String)]()) { $0[$1] = prefetched[$1] }
            var downBatch = Batch()
            for href in chunk {
                guard let name = nameForHref[href] ?? refetch[href] else { continue }
                guard let item = fetched[href] else {
                    if refetch[href] == nil { report.problems.append("\(href): listed but not fetched") }
                    continue
                }
                guard let bytes = Self.checkedItem(item.data) else {
                    report.problems.append("\(href): the server's data is not an iCalendar item; skipped")
                    continue
                }
                try downBatch.putBytes(bytes, into: collection, name: name, expecting: local[name].map { .identity($0) } ?? .absent)
                newItems[name] = CollectionSyncState.Item(href: href, etag: item.etag, identity: Self.unknownIdentity)
                if refetch[href] == nil { report.down += 1 }
            }
            if !downBatch.isEmpty {
                let result = try store.commit(downBatch)
                for (key, identity) in result.identities where key.collection == collection { newItems[key.name]?.identity = identity }
            }
        }
        let fetched = conflictHrefs.isEmpty ? [:] : try client.fetch(Array(conflictHrefs).sorted(), from: calendar.href)

        // 6. Conflicts.
        for (name, href) in conflictedNames.sorted(by: { $0.key < $1.key }) {
            let localBytes = local[name].flatMap { _ in try? StoreSystem.readFile(store.root + "/" + collection + "/" + name, limit: FolderStore.maximumItemSize).bytes }
            let server = fetched[href]
            let serverBytes = server.flatMap { Self.checkedItem($0.data) }
            if let localBytes, let serverBytes, Self.sameItem(localBytes, serverBytes), let identity = local[name] {
                // The same on both sides (an upload whose record a cut-short sync lost).
                newItems[name] = CollectionSyncState.Item(href: href, etag: server?.etag, identity: identity)
                continue
            }
            if serverBytes == nil, localBytes != nil, policy != .server {
                // Removed on the server, changed here: the local version is kept, and goes
                // up again as a new item at the next sync.
                newItems[name] = nil
                report.conflicts.append("\(name): removed on the server but changed here; the local version was kept and goes up at the next sync")
                continue
            }
            switch policy {
            case .local where localBytes != nil && calendar.writable:
                do {
                    let etag = try client.put(localBytes!, at: href, replacing: server?.etag)
                    newItems[name] = CollectionSyncState.Item(href: href, etag: etag, identity: local[name]!)
                    report.up += 1
                    report.conflicts.append("\(name): changed on both sides; the local version replaced the server's")
                } catch {
                    report.problems.append("\(name): \(error)")
                }
                continue
            default:
                break
            }
            // The server's copy wins the item.
            if let serverBytes {
                try batch.putBytes(serverBytes, into: collection, name: name, expecting: local[name].map { .identity($0) } ?? .absent)
                newItems[name] = CollectionSyncState.Item(href: href, etag: server?.etag, identity: Self.unknownIdentity)
                report.down += 1
            } else if let identity = local[name] {
                // Removed on the server.
                if policy == .server { try batch.delete(name, from: collection, expecting: .identity(identity)) }
                newItems[name] = nil
            }
            if policy == .server || localBytes == nil {
                report.conflicts.append("\(name): changed on both sides; the server's version was kept\(policy == .server ? ", the local change dropped" : "")")
                continue
            }
            // Keep both: the local version as a new item of its own.
            if let localBytes, let copy = Self.conflictCopy(localBytes, name: name) {
                let copyName = Self.fileName(forHref: copy.uid + ".ics", avoiding: takenNames)
                takenNames.insert(copyName)
                try batch.putBytes(copy.bytes, into: collection, name: copyName, expecting: .absent)
                report.conflicts.append("\(name): changed on both sides; the server's version was kept, the local one kept as \(copyName) (uploaded at the next sync)")
            } else {
                report.problems.append("\(name): changed on both sides and the local version cannot be read; the server's version was kept")
            }
        }

        // 7. Write, then record.
        let result = batch.isEmpty ? CommitResult(identities: [:]) : try store.commit(batch)
        for (key, identity) in result.identities where key.collection == collection {
            if newItems[key.name] != nil { newItems[key.name]!.identity = identity }
        }
        // Items whose file is untouched keep their identity; new conflict copies are local-only.
        for (name, item) in newItems where item.identity.inode == 0 && item.identity.device == 0 {
            if let identity = try StoreSystem.identity(store.root + "/" + collection + "/" + name) { newItems[name]!.identity = identity }
            else { newItems[name] = nil }
        }
        let token = report.problems.isEmpty ? newToken : state.syncToken
        let baseline = token == nil ? state.baselineToken : nil
        if newItems != state.items || token != state.syncToken || baseline != state.baselineToken {
            state.items = newItems
            state.syncToken = token
            state.baselineToken = baseline
            try files.setState(state, of: collection)
        }
        return report
    }

    // MARK: Subscriptions

    /// Refreshes a subscribed feed: a conditional GET, then the feed's items replace the
    /// collection's in one batch. A feed that fails or is not iCalendar keeps the last good
    /// copy and says why.
    package func refresh(_ calendar: MirroredCalendar, title: String, http: HTTPFunnel, url: URL,
                         interval: Int?, force: Bool, now: Double) throws -> CalendarSyncReport {
        var report = CalendarSyncReport(title: title)
        var state = try files.state(of: calendar.collection)
        if !force, let last = state.lastRefresh, now - last < Double(interval ?? 3600) {
            report.unchanged = true
            return report
        }
        var headers: [String: String] = ["Accept": "text/calendar"]
        if let etag = state.feedETag { headers["If-None-Match"] = etag }
        if let modified = state.feedLastModified { headers["If-Modified-Since"] = modified }
        let response = try http.send(HTTPRequest("GET", url, headers: headers))
        if response.status == 304 {
            state.lastRefresh = now
            try files.setState(state, of: calendar.collection)
            report.unchanged = true
            return report
        }
        guard response.status == 200 else {
            throw RemoteError(.httpStatus, "the feed could not be fetched; the last good copy is kept", url: HTTPFunnel.redacted(url), status: response.status)
        }
        guard let read = try? ICalReader().read(Array(response.body), file: HTTPFunnel.redacted(url)), !read.calendars.isEmpty else {
            throw RemoteError(.malformed, "the feed is not iCalendar data; the last good copy is kept", url: HTTPFunnel.redacted(url))
        }
        // As an import does: floating times of a feed with X-WR-TIMEZONE are that zone's.
        let calendars = read.calendars.map(CalendarRepair.applyingCalendarTimeZone)
        let split = CalendarSplit().split([CalendarSplit.Input(file: HTTPFunnel.redacted(url), calendars: calendars)])
        var local: [String: FileIdentity] = [:]
        for file in try store.items(in: calendar.collection) { local[file.name] = file.identity }
        var batch = Batch()
        var keep: Set<String> = []
        for item in split.items {
            let bytes = ICalWriter().bytes(item.calendar)
            keep.insert(item.fileName)
            if let identity = local[item.fileName] {
                let existing = try StoreSystem.readFile(store.root + "/" + calendar.collection + "/" + item.fileName, limit: FolderStore.maximumItemSize).bytes
                if existing == bytes { continue }
                try batch.putBytes(bytes, into: calendar.collection, name: item.fileName, expecting: .identity(identity))
            } else {
                try batch.putBytes(bytes, into: calendar.collection, name: item.fileName, expecting: .absent)
            }
            report.down += 1
        }
        for (name, identity) in local where !keep.contains(name) {
            try batch.delete(name, from: calendar.collection, expecting: .identity(identity))
            report.down += 1
        }
        if !batch.isEmpty { _ = try store.commit(batch) }
        state.feedETag = response.header("etag")
        state.feedLastModified = response.header("last-modified")
        state.lastRefresh = now
        try files.setState(state, of: calendar.collection)
        return report
    }

    /// The feed's REFRESH-INTERVAL (RFC 7986) in seconds, from the last copy, if any.
    package static func refreshInterval(_ calendar: Component) -> Int? {
        guard let text = calendar.property("REFRESH-INTERVAL")?.rawValue,
              let duration = Duration(iCalendar: text) else { return nil }
        let seconds = duration.nominalSeconds
        return seconds > 0 ? Int(seconds) : nil
    }

    // MARK: Helpers

    /// The identity of a file the pending batch writes: filled in after its commit.
    static let unknownIdentity = FileIdentity(device: 0, inode: 0, size: 0, modificationSeconds: 0, modificationNanoseconds: 0)

    /// A network call's outcome as a value.
    static func attempt<T>(_ body: () throws(RemoteError) -> T) -> Result<T, RemoteError> {
        do { return .success(try body()) } catch { return .failure(error) }
    }

    /// A file name for an item at `href`: its last segment when that is already a safe item
    /// name, else one derived from it; never one in `taken`.
    static func fileName(forHref href: String, avoiding taken: Set<String>) -> String {
        let segment = href.split(separator: "/").last.map { String($0).removingPercentEncoding ?? String($0) } ?? "item"
        var name = ItemFileName.isItemName(segment) && segment.lowercased().hasSuffix(".ics") ? segment
            : ItemFileName.forUID(segment.lowercased().hasSuffix(".ics") ? String(segment.dropLast(4)) : segment)
        if taken.contains(name) {
            name = String(name.dropLast(4)) + "-" + StableHash.hex(StableHash(Array(href.utf8)).high) + ".ics"
        }
        return name
    }

    /// The server's calendar data as item bytes, when it has the shape of an iCalendar item:
    /// within the store's item size, a VCALENDAR that ends, holding a VEVENT, VTODO or
    /// VJOURNAL. A shape check, not a parse: the store's readers read every item leniently
    /// and report what is wrong in it, with its file and line, when it is used (parsing
    /// each of a first sync's items here as well cost a third of its time).
    static func checkedItem(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count <= FolderStore.maximumItemSize else { return nil }
        let upper = String(decoding: bytes.prefix(64), as: UTF8.self).uppercased()
        guard upper.drop(while: { $0 == "\u{FEFF}" || $0.isWhitespace }).hasPrefix("BEGIN:VCALENDAR") else { return nil }
        guard contains(bytes, "END:VCALENDAR"),
              contains(bytes, "BEGIN:VEVENT") || contains(bytes, "BEGIN:VTODO") || contains(bytes, "BEGIN:VJOURNAL") else { return nil }
        return bytes
    }

    /// Whether `bytes` hold `word` (upper-case ASCII), in any case.
    private static func contains(_ bytes: [UInt8], _ word: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard let head = pattern.first, bytes.count >= pattern.count else { return false }
        var index = 0
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] & 0xDF == head {
                var matched = 1
                while matched < pattern.count, bytes[index + matched] == pattern[matched]
                        || (pattern[matched] >= UInt8(ascii: "A") && pattern[matched] <= UInt8(ascii: "Z") && bytes[index + matched] == pattern[matched] | 0x20) {
                    matched += 1
                }
                if matched == pattern.count { return true }
            }
            index += 1
        }
        return false
    }

    /// Whether two items hold the same components (the server may have reordered or
    /// refolded them).
    static func sameItem(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        func canonical(_ bytes: [UInt8]) -> [[UInt8]] {
            guard let read = try? ICalReader().read(bytes, file: nil) else { return [] }
            return read.calendars.flatMap(\.components).filter { !$0.matches(.timeZone) }.map { ICalWriter().bytes($0) }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        return canonical(a) == canonical(b)
    }

    /// The local version of a conflicting item as a new item: another UID, marked with
    /// ``conflictProperty`` (whose value is the original UID).
    static func conflictCopy(_ bytes: [UInt8], name: String) -> (uid: String, bytes: [UInt8])? {
        guard let read = try? ICalReader().read(bytes, file: name), var calendar = read.calendars.first else { return nil }
        guard let uid = calendar.components.first(where: { $0.uid != nil })?.uid else { return nil }
        let newUID = uid + "-conflict-" + String(StableHash.hex(StableHash(bytes).high).prefix(8))
        for index in calendar.components.indices where calendar.components[index].uid == uid {
            calendar.components[index].uid = newUID
            calendar.components[index].setProperty(Property(name: conflictProperty, rawValue: uid))
        }
        return (newUID, ICalWriter().bytes(calendar))
    }
}

/// Work on a thread of its own, whose result is waited for later: the one request a sync
/// overlaps with reading the store.
final class InBackground<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, RemoteError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws(RemoteError) -> Value) {
        Thread { self.finish(Result(catching: body)) }.start()
    }

    private func finish(_ result: Result<Value, RemoteError>) {
        outcome.withLock { $0 = result }
        done.signal()
    }

    /// Waits for the work to end and gives its result.
    func result() -> Result<Value, RemoteError> {
        done.wait()
        done.signal()
        return outcome.withLock { $0! }
    }
}
