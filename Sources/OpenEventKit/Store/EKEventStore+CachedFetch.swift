import Foundation
import ICalKit

/// What the cached path of ``EKEventStore/events(matching:)`` keeps between queries: the
/// items it has read, each with the events of the last window it was expanded over.
///
/// Every entry belongs to one generation of the query index (the `generation` setting a
/// refresh bumps when it changes any row): when the index's generation moves on, because
/// this store or another process refreshed it after a change, the whole memo is dropped.
/// Entries are bounded (``limit``), so a long-lived store over a large store keeps at most
/// that many items in memory.
///
/// The layout serves a warm query, which goes through tens of thousands of listings in an
/// order unrelated to where their items are in memory: items have numbers, in the order the
/// memo first met them, and are found by the bytes of their source (`collection/name`) as
/// the occurrence cache lists it (``SourceNumbers``), without a `String` or a `Hashable` key
/// per listing; the events of all items are numbered too, each item's back to back, and what
/// a listing is checked against (instants, UID) is kept apart from what makes its `EKEvent`
/// (a shared ``FetchedItem``), in arrays of their own.
struct OccurrenceMemo {
    /// The most items kept; past it the memo starts again empty.
    static let limit = 20_000

    /// One item file, read or not yet, and where its events in the last window asked for are.
    struct Item {
        var key: ItemKey
        /// The number of the item's collection in ``OccurrenceMemo/collections``.
        var collection: Int
        /// The file as read (nil: not read yet).
        var origin: ItemOrigin?
        /// The window and floating zone key it was last expanded over, and its events there:
        /// the event numbers `first..<first + count` (nil: not expanded yet).
        var expansion: (window: Range<Int64>, zoneKey: String, first: Int, count: Int)?
    }

    /// What a listing is checked against: one event's instants, and whether its UID is the
    /// one stored with its item's source (``SourceNumbers``), which a listing's UID is
    /// compared with where its source is.
    struct Check {
        var startInstant: Int64
        var endInstant: Int64
        var hasItemUID: Bool
    }

    /// The index generation the entries belong to.
    var generation: Int64?
    /// The items, by number.
    private(set) var items: [Item] = []
    /// The collections of the items, by number.
    private(set) var collections: [String] = []
    /// The items' numbers by source.
    private var numbers = SourceNumbers()
    /// By event number: what makes the event's `EKEvent`, what a listing is checked against,
    /// and the event's UID.
    private(set) var events: [FetchedItem] = []
    private(set) var checks: [Check] = []
    private(set) var uids: [String] = []
    /// How many event numbers belong to an item's current expansion (the others are left
    /// from earlier windows, until ``compact()``).
    private var liveEvents = 0
    /// The last answer a full pass made (see ``Answer``).
    var lastAnswer: Answer?

    /// A window's listings as a pass answered them in full, each listing's event number and
    /// the number of its item's collection: the same listings, byte for byte, in the same
    /// generation, are the same events, so a repeated query makes its `EKEvent`s from this
    /// without finding and checking each listing again (the event numbers hold until
    /// ``compact()``, which drops the answer).
    struct Answer {
        var window: Range<Int64>
        var zoneKey: String
        var listings: PackedListings
        var events: [(event: Int32, collection: Int32)]

        /// Whether these are the listings answered, byte for byte.
        func answers(_ other: PackedListings, window: Range<Int64>, zoneKey: String) -> Bool {
            guard window == self.window, zoneKey == self.zoneKey, other.offsets == listings.offsets,
                  other.bytes.count == listings.bytes.count else { return false }
            return other.bytes.withUnsafeBytes { new in
                listings.bytes.withUnsafeBytes { old in new.isEmpty || memcmp(new.baseAddress!, old.baseAddress!, new.count) == 0 }
            }
        }
    }

    init(generation: Int64? = nil) {
        self.generation = generation
    }

    /// The number of the item whose source (`collection/name`) these bytes are, the item
    /// added (not read) when the memo does not have it yet, and whether `uid` is the UID
    /// stored with it (the first UID it was listed with); nil when the bytes are not a source.
    mutating func number(of source: UnsafeRawBufferPointer, uid: UnsafeRawBufferPointer) -> (number: Int, hasItemUID: Bool)? {
        let hash = SourceNumbers.hash(source)
        if let found = numbers.find(source, uid: uid, hash: hash) { return found }
        guard let slash = source.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let collection = PackedListing.string(UnsafeRawBufferPointer(rebasing: source[..<slash]))
        let key = ItemKey(collection: collection,
                          name: PackedListing.string(UnsafeRawBufferPointer(rebasing: source[(slash + 1)...])))
        let collectionNumber = collections.firstIndex(of: collection) ?? {
            collections.append(collection)
            return collections.count - 1
        }()
        guard numbers.insert(source, uid: uid, hash: hash, number: items.count) else { return nil }
        items.append(Item(key: key, collection: collectionNumber))
        return (items.count - 1, true)
    }

    /// Sets a read item's file.
    mutating func setOrigin(_ origin: ItemOrigin, of number: Int) {
        items[number].origin = origin
    }

    /// The event numbers of an item's events in a window and floating zone, when it is read
    /// and expanded over them already.
    func events(of number: Int, window: Range<Int64>, zoneKey: String) -> Range<Int>? {
        guard items[number].origin != nil, let expansion = items[number].expansion, expansion.window == window,
              expansion.zoneKey == zoneKey else { return nil }
        return expansion.first..<(expansion.first + expansion.count)
    }

    /// Expands a read item over a window by itself, as the cache and the general path expand
    /// it, and keeps its events; false when the item is not read.
    mutating func expand(_ number: Int, over window: Range<Int64>, zone: any TimeZoneRules, zoneKey: String) -> Bool {
        guard let origin = items[number].origin else { return false }
        let result = OccurrenceQuery(window: window, floatingZone: zone, kinds: [.event])
            .run([OccurrenceQuery.Source(calendar: origin.calendar, name: items[number].key.description)])
        let first = events.count
        for match in result.matches {
            let occurrence = match.occurrence
            let slot = match.isRecurring
                ? OccurrenceSlot(recurrenceIdentifier: occurrence.recurrenceIdentifier,
                                 isOverride: occurrence.isOverride && occurrence.component.recurrenceIdentifier != nil)
                : nil
            events.append(FetchedItem(component: match.isRecurring ? EKEventStore.workingComponent(occurrence) : occurrence.component,
                                      origin: origin, slot: slot))
            checks.append(Check(startInstant: match.startInstant, endInstant: match.endInstant,
                                hasItemUID: numbers.hasUID(occurrence.uid, number: number)))
            uids.append(occurrence.uid)
        }
        liveEvents += result.matches.count - (items[number].expansion?.count ?? 0)
        items[number].expansion = (window, zoneKey, first, result.matches.count)
        return true
    }

    /// Drops the event numbers no item's expansion has any more, when there are more of them
    /// than of the others and `slack` besides (tests compact with 0).
    mutating func compact(slack: Int = 4096) {
        guard events.count > 2 * liveEvents + slack else { return }
        var keptEvents: [FetchedItem] = [], keptChecks: [Check] = [], keptUIDs: [String] = []
        keptEvents.reserveCapacity(liveEvents)
        keptChecks.reserveCapacity(liveEvents)
        keptUIDs.reserveCapacity(liveEvents)
        for number in items.indices {
            guard let expansion = items[number].expansion else { continue }
            let range = expansion.first..<(expansion.first + expansion.count)
            items[number].expansion?.first = keptEvents.count
            keptEvents += events[range]
            keptChecks += checks[range]
            keptUIDs += uids[range]
        }
        events = keptEvents
        checks = keptChecks
        uids = keptUIDs
        lastAnswer = nil
    }
}

/// Numbers by byte strings, each stored with a second string (an item's source and the UID
/// it was first listed with): an open-addressing table, so that a key is found from a view
/// of its bytes, without making a `String` or an array, and the second string compared where
/// the key is.
struct SourceNumbers {
    /// The strings, back to back: each key followed by its second string.
    private var bytes: [UInt8] = []
    /// The table, at most half full; its size is a power of two.
    private var slots: [Slot] = []
    /// Where each number's strings are in ``bytes``: the start, the key's count and the
    /// second string's.
    private var entries: [(start: Int, keyCount: Int, secondCount: Int)] = []

    private struct Slot {
        var hash: UInt64 = 0
        /// Where the key starts in ``bytes``.
        var start: UInt32 = 0
        /// The number plus one (0: an empty slot).
        var numberPlusOne: UInt32 = 0
        var keyCount: UInt32 = 0
        var secondCount: UInt32 = 0
    }

    /// A 64-bit hash of bytes, eight at a time.
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(key.count)
        var offset = 0
        while offset + 8 <= key.count {
            hash = (hash ^ key.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
            offset += 8
        }
        if offset < key.count {
            // The last eight bytes (overlapping those hashed) or, for a short key, each byte.
            var tail: UInt64 = 0
            if key.count >= 8 {
                tail = key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self)
            } else {
                for index in offset..<key.count { tail = tail << 8 | UInt64(key[index]) }
            }
            hash = (hash ^ tail) &* 0x9E37_79B9_7F4A_7C15
        }
        hash ^= hash >> 32
        return hash &* 0xD6E8_FEB8_6659_FD93 ^ (hash >> 28)
    }

    /// The number of a key, and whether `second` is the string stored with it; nil when the
    /// table does not hold the key. `hash` is ``hash(_:)`` of the key.
    func find(_ key: UnsafeRawBufferPointer, uid second: UnsafeRawBufferPointer, hash: UInt64) -> (number: Int, hasItemUID: Bool)? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        return bytes.withUnsafeBytes { stored in
            while true {
                let slot = slots[index]
                if slot.numberPlusOne == 0 { return nil }
                if slot.hash == hash, Int(slot.keyCount) == key.count,
                   Self.equal(stored, at: Int(slot.start), key) {
                    let same = Int(slot.secondCount) == second.count
                        && Self.equal(stored, at: Int(slot.start) + key.count, second)
                    return (Int(slot.numberPlusOne) - 1, same)
                }
                index = (index + 1) & mask
            }
        }
    }

    /// Whether a string is the one stored with a number.
    func hasUID(_ string: String, number: Int) -> Bool {
        let entry = entries[number]
        let start = entry.start + entry.keyCount
        return string.utf8.elementsEqual(bytes[start..<(start + entry.secondCount)])
    }

    /// Adds a key that the table does not hold, its second string, and its number (the next
    /// one); false when they are too long to be stored.
    mutating func insert(_ key: UnsafeRawBufferPointer, uid second: UnsafeRawBufferPointer, hash: UInt64, number: Int) -> Bool {
        precondition(number == entries.count, "numbers are given in order")
        guard bytes.count + key.count + second.count < Int(UInt32.max) else { return false }
        if (entries.count + 1) * 2 > slots.count {
            let old = slots
            slots = [Slot](repeating: Slot(), count: max(64, slots.count * 2))
            for slot in old where slot.numberPlusOne != 0 { place(slot) }
        }
        place(Slot(hash: hash, start: UInt32(bytes.count), numberPlusOne: UInt32(number + 1), keyCount: UInt32(key.count),
                   secondCount: UInt32(second.count)))
        entries.append((bytes.count, key.count, second.count))
        bytes.append(contentsOf: key)
        bytes.append(contentsOf: second)
        return true
    }

    private mutating func place(_ slot: Slot) {
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: slot.hash) & mask
        while slots[index].numberPlusOne != 0 { index = (index + 1) & mask }
        slots[index] = slot
    }

    private static func equal(_ stored: UnsafeRawBufferPointer, at start: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.isEmpty || memcmp(stored.baseAddress! + start, bytes.baseAddress!, bytes.count) == 0
    }
}

extension EKEventStore {
    /// The occurrences of a window from the query index's occurrence cache (caller holds the
    /// lock), or nil when that path does not apply and the general one must run: pending
    /// changes, no index, a window or floating zone the cache does not answer, or an item
    /// whose file no longer matches its index row.
    ///
    /// The cache lists the window's occurrences in the order the general path sorts them,
    /// with the diagnostics it reports; only the items that have an occurrence in the window
    /// are read (once per index generation), each expanded over the window by itself, as the
    /// cache and the general path expand it, and its events must be the ones the cache lists
    /// (UID, start and end instants, in order). Before the query the index is refreshed by
    /// folder times (a `stat` per collection), so files that other programs created, removed
    /// or renamed are seen without listing every item (see the QueryIndex article).
    ///
    /// A warm query (every item read and expanded over this window already) is one pass over
    /// the listings (``CachedPass``); when the pass meets items that are not ready, they are
    /// read and expanded and the pass runs again.
    func cachedOccurrences(window: Range<Int64>, calendars: [EKCalendar]) -> [EKEvent]? {
        guard usesIndex, usesOccurrenceCache, state.isEmpty, backend != nil else { return nil }
        let zone = ItemTime.defaultZone()
        guard let zoneKey = OccurrenceCache.key(for: zone) else { return nil }
        let wasStale = indexIsStale
        guard let index = currentIndex() else { return nil }
        let byIdentifier = Dictionary(uniqueKeysWithValues: calendars.map { ($0.identifier, $0) })
        let cached: CachedPackedListings
        let generation: Int64
        do {
            if !wasStale {
                let refresh = try index.refresh(scan: .changedFolders)
                for notice in refresh.notices {
                    state.diagnostics.append(Diagnostic(.warning, .io, line: 0, file: StoreIndex.path(for: index.store), message: notice))
                }
            }
            // The listings must come from one generation of the index: the one the memo's
            // items are checked against.
            generation = try index.generation()
            guard let listings = try index.cachedPackedListings(window: window, collections: Set(byIdentifier.keys), kinds: [.event],
                                                                floatingZone: zone),
                  try index.generation() == generation else { return nil }
            cached = listings
        } catch {
            return nil   // the general path reports what is wrong with the index
        }
        // The pass works on the memo as its own (no copy, no exclusivity checks per
        // listing) and gives it back whatever the outcome: the items it read stay read.
        var pass = CachedPass(store: self, window: window, zoneKey: zoneKey, calendars: byIdentifier)
        swap(&pass.memo, &occurrenceMemo)
        defer { swap(&pass.memo, &occurrenceMemo) }
        if pass.memo.generation != generation || pass.memo.items.count > OccurrenceMemo.limit {
            pass.memo = OccurrenceMemo(generation: generation)
        }
        pass.memo.compact()

        if let answer = pass.memo.lastAnswer, answer.answers(cached.listings, window: window, zoneKey: zoneKey),
           pass.replay(answer) {
            state.diagnostics += cached.diagnostics
            return pass.events
        }
        guard pass.run(cached.listings) else { return nil }
        if !pass.unready.isEmpty {
            guard readMissingItems(pass.unready, in: &pass.memo, index: index, generation: generation) else { return nil }
            for number in pass.unready {
                guard pass.memo.expand(number, over: window, zone: zone, zoneKey: zoneKey) else { return nil }
            }
            guard pass.run(cached.listings), pass.unready.isEmpty else { return nil }
        }
        guard pass.isComplete else { return nil }
        pass.memo.lastAnswer = OccurrenceMemo.Answer(window: window, zoneKey: zoneKey, listings: cached.listings,
                                                     events: pass.answered)
        state.diagnostics += cached.diagnostics
        return pass.events
    }

    /// Reads the items of the memo that are not read yet, each checked against its index row:
    /// a file whose identity is not the row's changed since the index was refreshed (in
    /// place, which folder times do not show), so the index must compare every file before
    /// the next query, and this one takes the general path (false).
    private func readMissingItems(_ numbers: [Int], in memo: inout OccurrenceMemo, index: StoreIndex, generation: Int64) -> Bool {
        let missing = numbers.filter { memo.items[$0].origin == nil }
        guard !missing.isEmpty, let backend else { return true }
        let rows: [ItemKey: FileIdentity]
        do {
            rows = try index.identities(of: missing.map { memo.items[$0].key })
            guard try index.generation() == generation else { return false }
        } catch {
            return false
        }
        for number in missing {
            let key = memo.items[number].key
            guard let read = try? backend.readItem(in: key.collection, name: key.name), let item = read.item,
                  let row = rows[key], row == item.file.identity else {
                indexIsStale = true
                indexNeedsFullScan = true
                return false
            }
            memo.setOrigin(ItemOrigin(key: key, identity: item.file.identity, calendar: item.calendar), of: number)
        }
        return true
    }
}

/// One pass of the cached path of ``EKEventStore/events(matching:)`` over a window's
/// listings, in their order: each listing's item found by its source's bytes, checked
/// against the item's next event in the window (start and end instants, UID), and made into
/// an `EKEvent` that shares the event's ``FetchedItem`` with the memo. Events are made while
/// every item met so far is ready (read, and expanded over this window); the items that are
/// not are gathered in ``unready``.
struct CachedPass {
    let store: EKEventStore
    let window: Range<Int64>
    let zoneKey: String
    let calendars: [String: EKCalendar]
    /// The store's memo, swapped in for the pass.
    var memo = OccurrenceMemo()
    /// The events made, in the listings' order.
    private(set) var events: [EKEvent] = []
    /// The items met that are not ready, in the order met.
    private(set) var unready: [Int] = []
    /// Per event made, its event number and the number of its item's collection.
    private(set) var answered: [(event: Int32, collection: Int32)] = []
    /// The calendars of the memo's collections in this query (nil: not asked for).
    private var owners: [EKCalendar?] = []
    /// Per item, the event number of its next event in the window: -1 not met yet, -2 not
    /// ready.
    private var next: [Int32] = []
    /// Per item met and ready, the end of its event numbers in the window.
    private var end: [Int32] = []
    private var usable = true

    init(store: EKEventStore, window: Range<Int64>, zoneKey: String, calendars: [String: EKCalendar]) {
        self.store = store
        self.window = window
        self.zoneKey = zoneKey
        self.calendars = calendars
    }

    /// Runs the pass; false when a listing cannot be used (no source, or not in the calendars
    /// asked for) or is not its item's next event.
    mutating func run(_ listings: PackedListings) -> Bool {
        guard memo.events.count < Int32.max else { return false }
        events.removeAll(keepingCapacity: true)
        events.reserveCapacity(listings.count)
        answered.removeAll(keepingCapacity: true)
        answered.reserveCapacity(listings.count)
        unready.removeAll()
        next = [Int32](repeating: -1, count: memo.items.count)
        end = [Int32](repeating: 0, count: memo.items.count)
        usable = true
        listings.forEach { take($0) }
        return usable
    }

    /// Whether every event of every item met was listed, none left over.
    var isComplete: Bool {
        next.indices.allSatisfy { next[$0] < 0 || next[$0] == end[$0] }
    }

    private mutating func take(_ listing: PackedListing) {
        guard usable else { return }
        guard let source = listing.source, let (number, hasItemUID) = memo.number(of: source, uid: listing.uid) else {
            usable = false
            return
        }
        if number == next.count {
            next.append(-1)
            end.append(0)
        }
        var event = Int(next[number])
        if event == -1 {
            if let range = memo.events(of: number, window: window, zoneKey: zoneKey) {
                event = range.lowerBound
                end[number] = Int32(range.upperBound)
            } else {
                event = -2
                unready.append(number)
            }
            next[number] = Int32(event)
        }
        // Events are made while every item met so far is ready.
        guard event >= 0, unready.isEmpty else { return }
        let collection = memo.items[number].collection
        while owners.count <= collection { owners.append(calendars[memo.collections[owners.count]]) }
        guard let calendar = owners[collection], event < Int(end[number]),
              memo.checks[event].startInstant == listing.startInstant, memo.checks[event].endInstant == listing.endInstant,
              memo.checks[event].hasItemUID == hasItemUID, hasItemUID || Self.equal(memo.uids[event], listing.uid) else {
            usable = false
            return
        }
        next[number] = Int32(event + 1)
        events.append(EKEvent(eventStore: store, fetched: memo.events[event], calendar: calendar))
        answered.append((Int32(event), Int32(collection)))
    }

    /// Makes the events of an answer again; false when one of its collections is not among
    /// the calendars asked for.
    mutating func replay(_ answer: OccurrenceMemo.Answer) -> Bool {
        while owners.count < memo.collections.count { owners.append(calendars[memo.collections[owners.count]]) }
        let owned = owners
        guard answer.events.allSatisfy({ Int($0.collection) < owned.count && owned[Int($0.collection)] != nil }) else {
            return false
        }
        events.reserveCapacity(answer.events.count)
        for (event, collection) in answer.events {
            events.append(EKEvent(eventStore: store, fetched: memo.events[Int(event)], calendar: owned[Int(collection)]))
        }
        return true
    }

    /// Whether a string's UTF-8 is these bytes.
    private static func equal(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { utf8 in
            utf8.count == bytes.count && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        } ?? string.utf8.elementsEqual(bytes)
    }
}
