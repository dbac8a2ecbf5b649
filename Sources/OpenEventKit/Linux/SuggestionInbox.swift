// Linux-only: the store's inbox of event suggestions (Siri Event Suggestions).
//
// An app with no calendar access donates a reservation (OpenEventKitIntents'
// `INInteraction.donate`); the system keeps it here, outside every calendar, where no app can
// read it; the user accepts it (an event in a calendar) or dismisses it with
// `ical suggestions`. The app learns nothing either way.

import Foundation

/// One pending suggestion: what the event would be, and where it came from. Linux-only.
package struct EventSuggestion: Codable, Sendable, Hashable {
    /// The donating app's bundle identifier.
    package var app: String
    /// The app's name as its manifest gives it.
    package var appName: String
    /// The reservation's reference (its `itemReference` vocabulary identifier, else its
    /// reservation number): a later donation with the same reference replaces this one.
    package var reference: String
    /// The kind of reservation (`restaurant`).
    package var kind: String
    package var title: String
    package var start: Date
    package var end: Date
    /// An IANA zone for the times, nil for the system's.
    package var timeZone: String?
    package var location: String?
    package var latitude: Double?
    package var longitude: Double?
    package var notes: String?
    package var url: String?
    /// When it was donated (the latest donation).
    package var donated: Date

    package init(app: String, appName: String, reference: String, kind: String, title: String, start: Date, end: Date,
                 timeZone: String?, location: String?, latitude: Double?, longitude: Double?, notes: String?, url: String?, donated: Date) {
        self.app = app
        self.appName = appName
        self.reference = reference
        self.kind = kind
        self.title = title
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.location = location
        self.latitude = latitude
        self.longitude = longitude
        self.notes = notes
        self.url = url
        self.donated = donated
    }
}

/// Why the inbox could not be read or written.
package struct SuggestionInboxError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// The store's `.openeventkit/suggestions.json`: pending suggestions, oldest first, at most
/// ``limit``; changes are serialised by `.openeventkit/suggestions.lock`.
package struct SuggestionInbox: Sendable {
    package static let limit = 500
    package let storeRoot: String
    var file: String { storeRoot + "/.openeventkit/suggestions.json" }
    var lockFile: String { storeRoot + "/.openeventkit/suggestions.lock" }

    package init(storeRoot: String) {
        self.storeRoot = storeRoot
    }

    /// The pending suggestions, oldest donation first.
    package func pending() throws(SuggestionInboxError) -> [EventSuggestion] {
        guard FileManager.default.fileExists(atPath: file) else { return [] }
        guard let data = FileManager.default.contents(atPath: file), data.count <= 8 << 20 else {
            throw SuggestionInboxError("\(file) cannot be read")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let all = try? decoder.decode([EventSuggestion].self, from: data) else {
            throw SuggestionInboxError("\(file) is not a list of suggestions; remove it to start an empty inbox")
        }
        return all
    }

    /// Changes the pending suggestions under the inbox's lock and writes them atomically.
    package func update<T>(_ change: (inout [EventSuggestion]) throws(SuggestionInboxError) -> T) throws(SuggestionInboxError) -> T {
        do { try FileManager.default.createDirectory(atPath: storeRoot + "/.openeventkit", withIntermediateDirectories: true) } catch {
            throw SuggestionInboxError("cannot make \(storeRoot)/.openeventkit: \(error.localizedDescription)")
        }
        let lock: Int32
        do { lock = try StoreSystem.lockExclusively(lockFile) } catch {
            throw SuggestionInboxError("cannot lock \(lockFile): \(error)")
        }
        defer { StoreSystem.unlock(lock) }
        var all = try pending()
        let result = try change(&all)
        if all.count > Self.limit { all.removeFirst(all.count - Self.limit) }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(all).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw SuggestionInboxError("cannot write \(file): \(error.localizedDescription)")
        }
        return result
    }

    /// Records a donation: replaces the app's pending suggestion with the same reference, or
    /// adds it.
    package func donate(_ suggestion: EventSuggestion) throws(SuggestionInboxError) {
        try update { (all: inout [EventSuggestion]) throws(SuggestionInboxError) in
            all.removeAll { $0.app == suggestion.app && $0.reference == suggestion.reference }
            all.append(suggestion)
        }
    }

    /// Withdraws the app's pending suggestion with this reference (a cancelled reservation).
    package func withdraw(app: String, reference: String) throws(SuggestionInboxError) {
        try update { (all: inout [EventSuggestion]) throws(SuggestionInboxError) in
            all.removeAll { $0.app == app && $0.reference == reference }
        }
    }
}
