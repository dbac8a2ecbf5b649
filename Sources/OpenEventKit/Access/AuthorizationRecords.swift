import Foundation
import ICalKit

/// Who made a recorded decision.
package enum DecisionSource: String, Sendable, Hashable, Codable {
    /// The user answered the system prompt of a request.
    case prompt
    /// The user answered the write-only to full access upgrade prompt (TN3153).
    case upgradePrompt
    /// `ical privacy grant` or `revoke`: the Settings screen.
    case settings
}

/// One recorded decision: an app's status for one entity type, and when it was decided.
package struct AuthorizationDecision: Sendable, Hashable, Codable {
    /// `denied`, `writeOnly` (events only) or `fullAccess`; never notDetermined or restricted.
    package var status: EKAuthorizationStatus
    /// When the decision was made.
    package var decided: Date
    /// Who made it.
    package var by: DecisionSource
    /// Write-only only: the upgrade prompt was shown and declined, so it is never shown again.
    package var upgradeDeclined: Bool

    package init(status: EKAuthorizationStatus, decided: Date, by: DecisionSource, upgradeDeclined: Bool = false) {
        self.status = status
        self.decided = decided
        self.by = by
        self.upgradeDeclined = upgradeDeclined
    }

    private enum CodingKeys: String, CodingKey { case status, decided, by, upgradeDeclined }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .status)
        switch name {
        case "denied": status = .denied
        case "writeOnly": status = .writeOnly
        case "fullAccess": status = .fullAccess
        default:
            throw DecodingError.dataCorruptedError(forKey: .status, in: container,
                                                   debugDescription: "status \"\(name)\" is not denied, writeOnly or fullAccess")
        }
        decided = try Self.decodeDate(in: container)
        by = try container.decode(DecisionSource.self, forKey: .by)
        upgradeDeclined = try container.decodeIfPresent(Bool.self, forKey: .upgradeDeclined) ?? false
    }

    /// `decided` as the `.iso8601` strategy writes it (`2026-11-26T03:51:17Z`), read without
    /// Foundation's ISO 8601 parser: setting that parser up was half the time of reading
    /// the decisions, which every store command does. Other forms go to that parser, as
    /// `JSONDecoder`'s `.iso8601` strategy would take them.
    private static func decodeDate(in container: KeyedDecodingContainer<CodingKeys>) throws -> Date {
        let text = try container.decode(String.self, forKey: .decided)
        if let date = plainDate(text) { return date }
        guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: .decided, in: container,
                                                   debugDescription: "Expected date string to be ISO8601-formatted.")
        }
        return date
    }

    /// A date in the form the `.iso8601` strategy writes (`2026-11-26T03:51:17Z`), or nil.
    private static func plainDate(_ text: String) -> Date? {
        let utf8 = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in utf8[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        if utf8.count == 20, utf8[4] == 0x2D, utf8[7] == 0x2D, utf8[10] == 0x54, utf8[13] == 0x3A, utf8[16] == 0x3A, utf8[19] == 0x5A,
           let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
           let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
           let time = LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second) {
            return Date(timeIntervalSince1970: TimeInterval(time.secondsSinceEpoch))
        }
        return nil
    }

    /// Reads a decision as ``AuthorizationRecords/init(plainJSON:)`` reads the file: nil
    /// for any form `init(from:)` would have to judge (another date form, unknown keys).
    init?(plainJSON reader: inout PlainJSONReader) {
        var status: EKAuthorizationStatus?, decided: Date?, by: DecisionSource?, upgradeDeclined: Bool?
        let read: Bool? = reader.object { key, reader in
            switch key {
            case "status" where status == nil:
                switch reader.string() {
                case "denied": status = .denied
                case "writeOnly": status = .writeOnly
                case "fullAccess": status = .fullAccess
                default: return false
                }
                return true
            case "decided" where decided == nil:
                decided = reader.string().flatMap(Self.plainDate)
                return decided != nil
            case "by" where by == nil:
                by = reader.string().flatMap(DecisionSource.init(rawValue:))
                return by != nil
            case "upgradeDeclined" where upgradeDeclined == nil:
                upgradeDeclined = reader.bool()
                return upgradeDeclined != nil
            default:
                return false
            }
        }
        guard read != nil, let status, let decided, let by else { return nil }
        self.init(status: status, decided: decided, by: by, upgradeDeclined: upgradeDeclined ?? false)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status.description, forKey: .status)
        try container.encode(decided, forKey: .decided)
        try container.encode(by, forKey: .by)
        if upgradeDeclined { try container.encode(true, forKey: .upgradeDeclined) }
    }
}

/// One app's decisions.
package struct AppDecisions: Sendable, Hashable, Codable {
    /// The decision about events, nil while not determined.
    package var events: AuthorizationDecision?
    /// The decision about reminders, nil while not determined.
    package var reminders: AuthorizationDecision?

    package init(events: AuthorizationDecision? = nil, reminders: AuthorizationDecision? = nil) {
        self.events = events
        self.reminders = reminders
    }

    /// The decision for one entity type.
    package subscript(entityType: EKEntityType) -> AuthorizationDecision? {
        get { entityType == .event ? events : reminders }
        set { if entityType == .event { events = newValue } else { reminders = newValue } }
    }

    var isEmpty: Bool { events == nil && reminders == nil }
}

/// The user's decisions, per app bundle identifier: the contents of
/// `.openeventkit/authorizations.json`.
///
/// ```json
/// {
///   "apps" : {
///     "org.example.lessons" : {
///       "events" : { "by" : "prompt", "decided" : "2026-11-22T10:00:00Z", "status" : "writeOnly" }
///     }
///   },
///   "formatVersion" : 1
/// }
/// ```
package struct AuthorizationRecords: Sendable, Hashable, Codable {
    /// The format this version writes and the newest it reads.
    package static let currentFormatVersion = 1

    /// The file's format version.
    package var formatVersion: Int = currentFormatVersion
    /// The decisions, by bundle identifier.
    package var apps: [String: AppDecisions] = [:]

    package init() {}

    /// The decision for an app and entity type, nil while not determined.
    package func decision(for bundleIdentifier: String, _ entityType: EKEntityType) -> AuthorizationDecision? {
        apps[bundleIdentifier]?[entityType]
    }

    /// Records or clears (nil) a decision.
    package mutating func setDecision(_ decision: AuthorizationDecision?, for bundleIdentifier: String, _ entityType: EKEntityType) {
        var app = apps[bundleIdentifier] ?? AppDecisions()
        app[entityType] = decision
        apps[bundleIdentifier] = app.isEmpty ? nil : app
    }

    /// Reads `authorizations.json` as the store writes it, without `JSONDecoder` (whose first
    /// use costs over a million instructions, mostly type-metadata lookups, in every store
    /// command); nil for anything else, which `JSONDecoder` then reads with its errors: the
    /// two keys, each once, `formatVersion` a plain integer, and each app's `events` and
    /// `reminders` decisions with only their own keys, a known status and source, and the
    /// date in the form the store writes. The result is checked as a decoded one is.
    init?(plainJSON bytes: [UInt8]) {
        var reader = PlainJSONReader(bytes: bytes)
        var formatVersion: Int?, apps: [String: AppDecisions]?
        let read: Bool? = reader.object { key, reader in
            switch key {
            case "formatVersion" where formatVersion == nil:
                formatVersion = reader.integer()
                return formatVersion != nil
            case "apps" where apps == nil:
                var found: [String: AppDecisions] = [:]
                let read: Bool? = reader.object { identifier, reader in
                    guard found[identifier] == nil else { return false }
                    var app = AppDecisions()
                    let read: Bool? = reader.object { entity, reader in
                        switch entity {
                        case "events" where app.events == nil:
                            app.events = AuthorizationDecision(plainJSON: &reader)
                            return app.events != nil
                        case "reminders" where app.reminders == nil:
                            app.reminders = AuthorizationDecision(plainJSON: &reader)
                            return app.reminders != nil
                        default:
                            return false
                        }
                    }
                    found[identifier] = app
                    return read != nil
                }
                apps = found
                return read != nil
            default:
                return false
            }
        }
        guard read != nil, reader.atEnd, let formatVersion, let apps else { return nil }
        self.init()
        self.formatVersion = formatVersion
        self.apps = apps
    }

    fileprivate func validate(path: String) throws(AccessError) {
        for (identifier, app) in apps {
            if identifier.isEmpty {
                throw AccessError(.corruptRecords, "the authorizations file is corrupt: an app with an empty bundle identifier", path: path,
                                  remedy: "remove that entry or reset the decisions with `ical privacy reset`")
            }
            if app.reminders?.status == .writeOnly {
                throw AccessError(.corruptRecords, "the authorizations file is corrupt: \(identifier) has writeOnly for reminders, a level reminders do not have", path: path,
                                  remedy: "grant again with `ical privacy grant \(identifier) --reminders full` or `ical privacy reset \(identifier)`")
            }
        }
    }
}

/// What the administrator has ruled: the contents of `.openeventkit/policy.json`.
///
/// ```json
/// { "formatVersion" : 1, "restricted" : [ "org.example.game" ] }
/// ```
///
/// A restricted app has status `restricted` for events and reminders whatever the user
/// decided; its requests return false without a prompt.
package struct AccessPolicy: Sendable, Hashable, Codable {
    /// The format this version writes and the newest it reads.
    package static let currentFormatVersion = 1

    /// The file's format version.
    package var formatVersion: Int = currentFormatVersion
    /// The restricted apps' bundle identifiers, sorted.
    package var restricted: [String] = []

    package init(restricted: [String] = []) { self.restricted = Array(Set(restricted)).sorted() }

    /// Whether the app is restricted.
    package func isRestricted(_ bundleIdentifier: String) -> Bool { restricted.contains(bundleIdentifier) }

    /// Restricts or lifts the restriction of an app.
    package mutating func setRestricted(_ bundleIdentifier: String, _ restricted: Bool) {
        var set = Set(self.restricted)
        if restricted { set.insert(bundleIdentifier) } else { set.remove(bundleIdentifier) }
        self.restricted = set.sorted()
    }
}

/// The two access files of one store, `.openeventkit/authorizations.json` and
/// `.openeventkit/policy.json`: read without a lock (they are only ever replaced whole), and
/// changed under the store's lock by a read, a change and an atomic replacement (a temporary
/// file written with mode 0600 and flushed, renamed over the old one, the folder flushed).
package struct AccessRecordsFile: Sendable {
    /// The store folder.
    package let storeRoot: String

    package init(storeRoot: String) {
        var root = storeRoot
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.storeRoot = root
    }

    /// `.openeventkit` in the store.
    package var metadataFolder: String { storeRoot + "/.openeventkit" }
    /// The decisions file.
    package var authorizationsPath: String { metadataFolder + "/authorizations.json" }
    /// The policy file.
    package var policyPath: String { metadataFolder + "/policy.json" }
    var lockPath: String { metadataFolder + "/lock" }

    /// The largest access file read, in bytes.
    static let sizeLimit = 16 << 20

    /// The identities of both files (nil when absent), to see whether they changed.
    package func identities() throws(AccessError) -> [FileIdentity?] {
        do { return [try StoreSystem.identity(authorizationsPath), try StoreSystem.identity(policyPath)] } catch {
            throw AccessError(.io, error.message, path: error.path)
        }
    }

    /// The recorded decisions; none when the file is not there.
    package func readAuthorizations() throws(AccessError) -> AuthorizationRecords {
        guard let records: AuthorizationRecords = try read(authorizationsPath, what: "authorizations",
                                                           plain: AuthorizationRecords.init(plainJSON:)) else { return AuthorizationRecords() }
        guard records.formatVersion <= AuthorizationRecords.currentFormatVersion else {
            throw AccessError(.unsupportedRecordsFormat,
                              "the decisions have format version \(records.formatVersion); this version reads up to \(AuthorizationRecords.currentFormatVersion)",
                              path: authorizationsPath, remedy: "use a newer OpenEventKit")
        }
        try records.validate(path: authorizationsPath)
        return records
    }

    /// The policy; nothing restricted when the file is not there.
    package func readPolicy() throws(AccessError) -> AccessPolicy {
        guard let policy: AccessPolicy = try read(policyPath, what: "policy") else { return AccessPolicy() }
        guard policy.formatVersion <= AccessPolicy.currentFormatVersion else {
            throw AccessError(.unsupportedRecordsFormat,
                              "the policy has format version \(policy.formatVersion); this version reads up to \(AccessPolicy.currentFormatVersion)",
                              path: policyPath, remedy: "use a newer OpenEventKit")
        }
        return policy
    }

    /// Changes the decisions under the store's lock; returns what `change` returns.
    /// A store folder that does not exist yet is created.
    @discardableResult
    package func updateAuthorizations<T>(_ change: (inout AuthorizationRecords) throws(AccessError) -> T) throws(AccessError) -> T {
        try locked { () throws(AccessError) -> T in
            var records = try readAuthorizations()
            let result = try change(&records)
            try write(records, to: authorizationsPath)
            return result
        }
    }

    /// Changes the policy under the store's lock.
    package func updatePolicy(_ change: (inout AccessPolicy) throws(AccessError) -> Void) throws(AccessError) {
        try locked { () throws(AccessError) -> Void in
            var policy = try readPolicy()
            try change(&policy)
            try write(policy, to: policyPath)
        }
    }

    // MARK: Files

    /// Reads and decodes an access file; `plain` reads the store's own form of it first.
    private func read<T: Decodable>(_ path: String, what: String, plain: ([UInt8]) -> T? = { _ in nil }) throws(AccessError) -> T? {
        let bytes: [UInt8]
        do {
            guard try StoreSystem.identity(path) != nil else { return nil }
            bytes = try StoreSystem.readFile(path, limit: Self.sizeLimit).bytes
        } catch {
            if error.code == .notFound { return nil }
            throw AccessError(.io, "cannot read the \(what) file: \(error.message)", path: path)
        }
        if let value = plain(bytes) { return value }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(T.self, from: Data(bytes))
        } catch {
            throw AccessError(.corruptRecords, "the \(what) file is corrupt (\(Self.explain(error))); no access is given while it is",
                              path: path, remedy: "repair or remove the file, then decide again with `ical privacy`")
        }
    }

    private static func explain(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let where_ = context.codingPath.map(\.stringValue).joined(separator: ".")
            if case .keyNotFound(let key, _) = error as? DecodingError {
                return "missing \(where_.isEmpty ? "" : where_ + ".")\(key.stringValue)"
            }
            return where_.isEmpty ? context.debugDescription : "\(where_): \(context.debugDescription)"
        default:
            return "not JSON"
        }
    }

    private func write<T: Encodable>(_ value: T, to path: String) throws(AccessError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do { data = try encoder.encode(value) } catch {
            throw AccessError(.io, "cannot encode the access file: \(error)", path: path)
        }
        do {
            try StoreSystem.replaceFile(Array(data) + [0x0A], at: path, in: metadataFolder, mode: 0o600)
        } catch {
            throw AccessError(.io, "cannot write the access file: \(error.message)", path: error.path ?? path)
        }
    }

    private func locked<T>(_ body: () throws(AccessError) -> T) throws(AccessError) -> T {
        let lock: Int32
        do {
            if !StoreSystem.isFolder(metadataFolder) {
                _ = try FolderStore.open(at: storeRoot, create: true)
                try StoreSystem.makeFolder(metadataFolder)
            }
            lock = try StoreSystem.lockExclusively(lockPath)
        } catch {
            throw AccessError(.io, "cannot open the store to record the decision: \(error.message)", path: error.path ?? storeRoot)
        }
        defer { StoreSystem.unlock(lock) }
        return try body()
    }
}
