import Foundation
import ICalKit

/// The remote sources of a store and what was last synced, in `.openeventkit/`:
/// `sources.json` (the accounts and feeds, never a password) and `sync/COLLECTION.json` (each
/// mirrored calendar's sync token and, per item file, its href, ETag and the identity of the
/// file as last synced). Item files hold only calendar data.
package struct RemoteSourceRecord: Codable, Sendable, Hashable {
    /// A CalDAV account or a subscribed feed.
    package enum Kind: String, Codable, Sendable {
        case caldav
        case subscription
    }

    /// The name the user gave it (unique in the store).
    package var name: String
    package var kind: Kind
    /// The account's or the feed's URL, without credentials.
    package var url: String
    /// The account's user name (CalDAV).
    package var user: String?
    /// The command whose first line of output is the password, run at sync time; the
    /// password itself is never stored.
    package var passwordCommand: String?
    /// Whether plain `http://` to another machine was allowed explicitly.
    package var allowInsecureHTTP: Bool?
    /// A feed's refresh interval in seconds (nil: the feed's REFRESH-INTERVAL, else 1 hour).
    package var refreshSeconds: Int?
    /// The calendars mirrored from it.
    package var calendars: [MirroredCalendar]
    /// Who a CalDAV account is (RFC 6638): learnt at `sources add`, refreshed at each sync;
    /// nil for a feed, or a server without principals.
    package var identity: AccountIdentity?

    package init(name: String, kind: Kind, url: String, user: String? = nil, passwordCommand: String? = nil,
                 allowInsecureHTTP: Bool? = nil, refreshSeconds: Int? = nil, calendars: [MirroredCalendar] = []) {
        self.name = name
        self.kind = kind
        self.url = url
        self.user = user
        self.passwordCommand = passwordCommand
        self.allowInsecureHTTP = allowInsecureHTTP
        self.refreshSeconds = refreshSeconds
        self.calendars = calendars
    }
}

/// A remote calendar and the store collection that mirrors it.
package struct MirroredCalendar: Codable, Sendable, Hashable {
    /// The store collection (folder) that mirrors it.
    package var collection: String
    /// Its path on the server (the feed's URL for a subscription).
    package var href: String
    /// Whether the account may write to it.
    package var writable: Bool
    /// Whether the server offers sync-collection on it.
    package var supportsSync: Bool
}

/// A mirrored calendar's sync state.
package struct CollectionSyncState: Codable, Sendable, Hashable {
    /// An item as last synced.
    package struct Item: Codable, Sendable, Hashable {
        package var href: String
        package var etag: String?
        /// The local file's identity right after the sync wrote or read it: a different
        /// identity now means a local change.
        package var identity: FileIdentity
    }

    package var syncToken: String?
    /// A token the server gave when the calendar was discovered (`ical sources add`), before
    /// any of its items was fetched: the first sync starts from it instead of asking for a
    /// new one, which costs some servers (Radicale) as much as listing every item. Any token
    /// older than the data is safe: what changed since is reported again, and an item whose
    /// ETag is already known is not fetched twice. Cleared by the first sync.
    package var baselineToken: String?
    /// By item file name.
    package var items: [String: Item] = [:]
    /// A feed's validators and the time of its last refresh.
    package var feedETag: String?
    package var feedLastModified: String?
    package var lastRefresh: Double?

    package init() {}
}

/// Reading and writing the sources' files (under the store's lock for writes).
package struct RemoteSourceFiles: Sendable {
    package let storeRoot: String
    private var metadataFolder: String { storeRoot + "/.openeventkit" }
    private var sourcesPath: String { metadataFolder + "/sources.json" }
    private var syncFolder: String { metadataFolder + "/sync" }
    static let sizeLimit = 64 << 20

    package init(storeRoot: String) { self.storeRoot = storeRoot }

    private struct SourcesFile: Codable {
        var formatVersion = 1
        var sources: [RemoteSourceRecord]
    }

    /// The identity of `sources.json` (nil when there is none), to tell whether a list read
    /// earlier is still current.
    package func sourcesIdentity() throws(StoreError) -> FileIdentity? {
        try StoreSystem.identity(sourcesPath)
    }

    /// The sources, or none when the store has no `sources.json`.
    package func sources() throws(StoreError) -> [RemoteSourceRecord] {
        guard let bytes = try read(sourcesPath) else { return [] }
        do { return try JSONDecoder().decode(SourcesFile.self, from: Data(bytes)).sources } catch {
            throw StoreError(.corruptMetadata, "the sources file cannot be read: \(error)", path: sourcesPath)
        }
    }

    /// Replaces the list of sources.
    package func setSources(_ sources: [RemoteSourceRecord]) throws(StoreError) {
        try write(SourcesFile(sources: sources), to: sourcesPath)
    }

    /// The addresses that are the user in the store's local calendars
    /// (`.openeventkit/me.json`, set with `ical calendars me`): what an invitation imported
    /// into a local calendar is compared with (``EKParticipant/isCurrentUser``). A CalDAV
    /// calendar uses its account's addresses instead (``AccountIdentity``).
    package func localAddresses() throws(StoreError) -> [String] {
        guard let bytes = try read(mePath) else { return [] }
        do { return try JSONDecoder().decode(MeFile.self, from: Data(bytes)).addresses } catch {
            throw StoreError(.corruptMetadata, "the user's addresses cannot be read: \(error)", path: mePath)
        }
    }

    /// Replaces the local calendars' user addresses (none removes the file).
    package func setLocalAddresses(_ addresses: [String]) throws(StoreError) {
        if addresses.isEmpty {
            if try StoreSystem.identity(mePath) != nil { try StoreSystem.remove(mePath) }
            return
        }
        try write(MeFile(addresses: addresses), to: mePath)
    }

    /// The identity of `me.json`, nil when there is none.
    package func localAddressesIdentity() throws(StoreError) -> FileIdentity? {
        try StoreSystem.identity(mePath)
    }

    private var mePath: String { metadataFolder + "/me.json" }

    private struct MeFile: Codable {
        var formatVersion = 1
        var addresses: [String]
    }

    /// A mirrored calendar's sync state (empty before its first sync).
    package func state(of collection: String) throws(StoreError) -> CollectionSyncState {
        let path = syncFolder + "/" + collection + ".json"
        guard let bytes = try read(path) else { return CollectionSyncState() }
        do { return try JSONDecoder().decode(CollectionSyncState.self, from: Data(bytes)) } catch {
            throw StoreError(.corruptMetadata, "the sync state cannot be read: \(error)", path: path)
        }
    }

    /// Records a mirrored calendar's sync state.
    package func setState(_ state: CollectionSyncState, of collection: String) throws(StoreError) {
        _ = try StoreSystem.makeFolder(syncFolder)
        // Compact: a large calendar's state is written after every sync.
        try write(state, to: syncFolder + "/" + collection + ".json", pretty: false)
    }

    /// Forgets a mirrored calendar's sync state.
    package func removeState(of collection: String) throws(StoreError) {
        try StoreSystem.remove(syncFolder + "/" + collection + ".json")
    }

    private func read(_ path: String) throws(StoreError) -> [UInt8]? {
        guard try StoreSystem.identity(path) != nil else { return nil }
        return try StoreSystem.readFile(path, limit: Self.sizeLimit).bytes
    }

    private func write(_ value: some Encodable, to path: String, pretty: Bool = true) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(value) } catch { throw StoreError(.io, "cannot encode: \(error)", path: path) }
        try StoreSystem.replaceFile(Array(data), at: path, in: String(path[..<path.lastIndex(of: "/")!]), mode: 0o600)
    }
}
