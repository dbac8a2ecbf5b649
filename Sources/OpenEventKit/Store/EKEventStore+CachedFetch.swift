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
struct OccurrenceMemo {
    /// The most items kept; past it the memo starts again empty.
    static let limit = 20_000

    /// One item file as read, and its events in the last window asked for.
    struct Item {
        var origin: ItemOrigin
        /// The window, floating zone key and the events found in it (nil: not expanded yet).
        var expansion: (window: Range<Int64>, zoneKey: String, events: [Event])?
    }

    /// What makes one `EKEvent`, and what identifies its occurrence.
    struct Event {
        var component: Component
        var slot: OccurrenceSlot?
        var uid: String
        var startInstant: Int64
        var endInstant: Int64
    }

    /// The index generation the entries belong to.
    var generation: Int64?
    var items: [ItemKey: Item] = [:]
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
        if occurrenceMemo.generation != generation || occurrenceMemo.items.count > OccurrenceMemo.limit {
            occurrenceMemo = OccurrenceMemo(generation: generation)
        }

        // The items in the window, in the order of their first occurrence, and each
        // listing's item, instants and UID, read in place from the packed listings (only
        // these fields are needed: decoding every field of every listing was most of a
        // warm call).
        var keys: [ItemKey] = []
        var numbers: [String: Int] = [:]
        numbers.reserveCapacity(cached.listings.count)   // no rehashing as items are found
        var listed: [(item: Int, startInstant: Int64, endInstant: Int64, uid: String)] = []
        listed.reserveCapacity(cached.listings.count)
        var unusable = false
        cached.listings.forEach { listing in
            guard !unusable, let sourceBytes = listing.source else {
                unusable = true
                return
            }
            let source = PackedListing.string(sourceBytes)
            let number: Int
            if let known = numbers[source] {
                number = known
            } else {
                guard let slash = sourceBytes.firstIndex(of: UInt8(ascii: "/")) else {
                    unusable = true
                    return
                }
                let key = ItemKey(collection: PackedListing.string(UnsafeRawBufferPointer(rebasing: sourceBytes[..<slash])),
                                  name: PackedListing.string(UnsafeRawBufferPointer(rebasing: sourceBytes[(slash + 1)...])))
                guard byIdentifier[key.collection] != nil else {
                    unusable = true
                    return
                }
                number = keys.count
                numbers[source] = number
                keys.append(key)
            }
            listed.append((number, listing.startInstant, listing.endInstant, PackedListing.string(listing.uid)))
        }
        guard !unusable else { return nil }
        guard readMissingItems(keys, index: index, generation: generation) else { return nil }

        // Each item's events in the window.
        var origins: [ItemOrigin] = [], owners: [EKCalendar] = [], eventLists: [[OccurrenceMemo.Event]] = []
        origins.reserveCapacity(keys.count)
        owners.reserveCapacity(keys.count)
        eventLists.reserveCapacity(keys.count)
        for key in keys {
            guard var item = occurrenceMemo.items[key], let calendar = byIdentifier[key.collection] else { return nil }
            origins.append(item.origin)
            owners.append(calendar)
            if let expansion = item.expansion, expansion.window == window, expansion.zoneKey == zoneKey {
                eventLists.append(expansion.events)
                continue
            }
            let result = OccurrenceQuery(window: window, floatingZone: zone, kinds: [.event])
                .run([OccurrenceQuery.Source(calendar: item.origin.calendar, name: key.description)])
            let events = result.matches.map { match in
                let occurrence = match.occurrence
                let slot = match.isRecurring
                    ? OccurrenceSlot(recurrenceIdentifier: occurrence.recurrenceIdentifier,
                                     isOverride: occurrence.isOverride && occurrence.component.recurrenceIdentifier != nil)
                    : nil
                return OccurrenceMemo.Event(component: match.isRecurring ? Self.workingComponent(occurrence) : occurrence.component,
                                            slot: slot, uid: occurrence.uid, startInstant: match.startInstant, endInstant: match.endInstant)
            }
            item.expansion = (window, zoneKey, events)
            occurrenceMemo.items[key] = item
            eventLists.append(events)
        }

        // The listings' order, each listing checked against its item's next event.
        var positions = [Int](repeating: 0, count: keys.count)
        var result: [EKEvent] = []
        result.reserveCapacity(listed.count)
        for listing in listed {
            let number = listing.item
            let next = positions[number]
            guard next < eventLists[number].count,
                  eventLists[number][next].startInstant == listing.startInstant,
                  eventLists[number][next].endInstant == listing.endInstant,
                  eventLists[number][next].uid == listing.uid else { return nil }
            positions[number] = next + 1
            result.append(EKEvent(eventStore: self, component: eventLists[number][next].component, origin: origins[number],
                                  calendar: owners[number], slot: eventLists[number][next].slot))
        }
        // Every event of every item is listed, none left over.
        for number in keys.indices where positions[number] != eventLists[number].count { return nil }
        state.diagnostics += cached.diagnostics
        return result
    }

    /// Reads the items the memo does not hold yet, each checked against its index row: a
    /// file whose identity is not the row's changed since the index was refreshed (in place,
    /// which folder times do not show), so the index must compare every file before the
    /// next query, and this one takes the general path (false).
    private func readMissingItems(_ keys: [ItemKey], index: StoreIndex, generation: Int64) -> Bool {
        let missing = keys.filter { occurrenceMemo.items[$0] == nil }
        guard !missing.isEmpty, let backend else { return true }
        let rows: [ItemKey: FileIdentity]
        do {
            rows = try index.identities(of: missing)
            guard try index.generation() == generation else { return false }
        } catch {
            return false
        }
        for key in missing {
            guard let read = try? backend.readItem(in: key.collection, name: key.name), let item = read.item,
                  let row = rows[key], row == item.file.identity else {
                indexIsStale = true
                indexNeedsFullScan = true
                return false
            }
            occurrenceMemo.items[key] = OccurrenceMemo.Item(origin: ItemOrigin(key: key, identity: item.file.identity, calendar: item.calendar))
        }
        return true
    }
}
