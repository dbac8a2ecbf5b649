import Foundation
import GRDB
import ICalKit
import Testing
@testable import OpenEventKit

/// The occurrence cache's promise: for every window, kind filter, collection subset and
/// floating zone, the listings and diagnostics it answers with are exactly those of a
/// query over the index's candidates (the path every store query took before the cache),
/// on the first query of a week, on repeated ones, and after items change.
@Suite struct OccurrenceCacheTests {
    /// The path the cache replaces: read the candidates, run the query, list the matches.
    static func expected(_ index: StoreIndex, window: Range<Int64>, collections: Set<String>,
                         kinds: Set<ComponentKind>, zone: any TimeZoneRules) throws -> (listings: [OccurrenceListing], diagnostics: [String]) {
        var read: [Diagnostic] = []
        var sources: [OccurrenceQuery.Source] = []
        for file in try index.candidates(window: window, collections: collections, kinds: kinds) {
            guard let result = try? index.store.readItem(in: file.collection, name: file.name) else { continue }
            read += result.diagnostics
            if let item = result.item { sources.append(OccurrenceQuery.Source(calendar: item.calendar, name: file.collection + "/" + file.name)) }
        }
        let result = OccurrenceQuery(window: window, floatingZone: zone, kinds: kinds).run(sources)
        return (result.matches.map(OccurrenceListing.init), (read + result.diagnostics).map(\.description))
    }

    /// A series that stops at the expansion budget in any window of a week or more.
    static func writeBudgetItem(_ folder: StoreFolder) throws {
        try folder.write("home/budget.ics", """
            BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//tests//EN\nBEGIN:VEVENT\nUID:budget\nDTSTAMP:20260101T000000Z
            DTSTART:20260301T000000Z\nDURATION:PT1S\nRRULE:FREQ=SECONDLY;UNTIL=20260401T000000Z\nSUMMARY:Every second
            END:VEVENT\nEND:VCALENDAR\n
            """)
    }

    /// 160 random items `item-N.ics`, alternately in `home` and `work`.
    static func writeRandomItems(_ folder: StoreFolder, seed: UInt64) throws {
        var generator = RandomItemGenerator(seed: seed)
        for index in 0..<160 {
            try folder.write("\(index % 2 == 0 ? "home" : "work")/item-\(index).ics", generator.item(index))
        }
    }

    /// Windows from an hour to 100 days between 2022 and 2029 (every third in March 2026),
    /// with kind filters and collection subsets.
    static func randomWindows(seed: UInt64, count: Int) -> [(Range<Int64>, Set<ComponentKind>, Set<String>)] {
        var random = SeededGenerator(state: seed)
        let earliest = LocalDateTime(year: 2022, month: 6, day: 1)!.secondsSinceEpoch / 3600
        let latest = LocalDateTime(year: 2029, month: 1, day: 1)!.secondsSinceEpoch / 3600
        let lengths: [Int64] = [1, 24, 24 * 7, 24 * 31, 24 * 100]
        var windows: [(Range<Int64>, Set<ComponentKind>, Set<String>)] = []
        for trial in 0..<count {
            let start = trial % 3 == 0
                ? LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch + Int64(trial) * 86_400
                : Int64.random(in: earliest...latest, using: &random) * 3600
            let window = start..<(start + lengths[trial % lengths.count] * 3600)
            let kinds: Set<ComponentKind> = trial % 5 == 1 ? [.todo] : (trial % 5 == 3 ? [.event] : [.event, .todo, .journal])
            let collections: Set<String> = trial % 4 == 2 ? ["work"] : ["home", "work"]
            windows.append((window, kinds, collections))
        }
        return windows
    }

    /// Changes the items `item-N.ics` of a random store (N below 160, alternately in `home`
    /// and `work`) as another program would: every ninth rewritten, `work/item-1.ics`
    /// removed, `home/added.ics` added.
    static func editItems(in folder: StoreFolder, seed: UInt64) throws {
        var editor = RandomItemGenerator(seed: seed ^ 0xED17)
        for index in stride(from: 0, to: 160, by: 9) {
            try folder.write("\(index % 2 == 0 ? "home" : "work")/item-\(index).ics", editor.item(index + 1000))
        }
        try FileManager.default.removeItem(atPath: folder.path + "/work/item-1.ics")
        try folder.write("home/added.ics", editor.item(5000))
    }

    /// Items the random generator does not write: a file mixing VEVENT and VTODO, an
    /// unknown TZID, a broken file.
    static func writeSpecialItems(_ folder: StoreFolder) throws {
        try folder.write("work/mixed.ics", """
            BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//tests//EN\nBEGIN:VEVENT\nUID:mixed\nDTSTAMP:20260101T000000Z
            DTSTART:20260310T090000Z\nDTEND:20260310T100000Z\nRRULE:FREQ=WEEKLY\nSUMMARY:Mixed event\nEND:VEVENT
            BEGIN:VTODO\nUID:mixed\nDTSTAMP:20260101T000000Z\nDTSTART:20260311T090000Z\nDUE:20260311T100000Z
            SUMMARY:Mixed to-do\nEND:VTODO\nEND:VCALENDAR\n
            """)
        try folder.write("work/unknown-zone.ics", """
            BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//tests//EN\nBEGIN:VEVENT\nUID:unknown-zone\nDTSTAMP:20260101T000000Z
            DTSTART;TZID=Mars/Olympus_Mons:20260305T090000\nDURATION:PT2H\nRRULE:FREQ=DAILY;COUNT=400\nSUMMARY:Somewhere
            END:VEVENT\nEND:VCALENDAR\n
            """)
        try folder.write("home/broken.ics", "BEGIN:VCALENDAR\nthis is not iCalendar\n")
    }

    @Test(arguments: [UInt64(0xCAC4E), 0x5EED_0F_CAC4E])
    func cacheAnswersAsTheCandidatesDo(seed: UInt64) throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try Self.writeRandomItems(folder, seed: seed)
        try Self.writeSpecialItems(folder)
        let store = try FolderStore.open(at: folder.path)
        let (index, _, _) = try StoreIndex.open(store: store)
        let windows = Self.randomWindows(seed: seed ^ 0xBEEF, count: 16)
        var compared = 0, listed = 0, uncachedSeen = false, notesSeen = false
        for zoneName in ["UTC", "Pacific/Kiritimati", "America/New_York"] {
            let zone = try #require(IANATimeZone(named: zoneName))
            for (window, kinds, collections) in windows {
                let expected = try Self.expected(index, window: window, collections: collections, kinds: kinds, zone: zone)
                for round in 0..<2 {
                    let cached = try #require(try index.cachedListings(window: window, collections: collections, kinds: kinds, floatingZone: zone))
                    #expect(cached.listings == expected.listings, "window \(window) in \(zoneName), kinds \(kinds), round \(round)")
                    #expect(cached.diagnostics.map(\.description) == expected.diagnostics, "window \(window) in \(zoneName), round \(round)")
                    if round == 1 { #expect(cached.filledWeeks == 0, "a repeated window is answered from the cache") }
                    compared += 1
                }
                listed += expected.listings.count
                uncachedSeen = uncachedSeen || expected.listings.contains { $0.uid == "mixed" }
                notesSeen = notesSeen || expected.diagnostics.contains { $0.contains("Mars/Olympus_Mons") }
            }
        }
        #expect(listed > 100)
        #expect(uncachedSeen, "the mixed item is among the results")
        #expect(notesSeen, "the unknown zone's diagnostic is among the results")
        print("occurrence cache seed \(seed): \(compared) comparisons, \(listed) listings")

        // Items change: the cache is recomputed for them, never answered stale.
        try Self.editItems(in: folder, seed: seed)
        let refresh = try index.refresh()
        #expect(refresh.changed > 0 && refresh.removed == 1 && refresh.added == 1)
        let zone = try #require(IANATimeZone(named: "America/New_York"))
        for (window, kinds, collections) in windows {
            let expected = try Self.expected(index, window: window, collections: collections, kinds: kinds, zone: zone)
            let cached = try #require(try index.cachedListings(window: window, collections: collections, kinds: kinds, floatingZone: zone))
            #expect(cached.filledWeeks == 0, "the changed items were recomputed, the weeks stay cached")
            #expect(cached.listings == expected.listings, "after edits: window \(window)")
            #expect(cached.diagnostics.map(\.description) == expected.diagnostics, "after edits: window \(window)")
        }
    }

    /// Everything an `EKEvent` from a range query shows, and what it keeps to save itself.
    static func eventKey(_ event: EKEvent) -> String {
        let slot = event.slot.map { "\($0.recurrenceIdentifier.iCalendarText) \($0.recurrenceIdentifier.timeZoneIdentifier ?? "-") \($0.isOverride)" }
        let component = ICalWriter().string(event.component)
        return [event.eventIdentifier ?? "-", event.calendarItemIdentifier, event.calendar?.calendarIdentifier ?? "-",
                "\(event.occurrenceDate?.timeIntervalSince1970 ?? -1)", "\(event.startDate?.timeIntervalSince1970 ?? -1)",
                "\(event.endDate?.timeIntervalSince1970 ?? -1)", "\(event.isAllDay)", "\(event.isDetached)", event.title ?? "-",
                event.location ?? "-", slot ?? "no slot", "\(event.origin?.identity.map { "\($0)" } ?? "-")",
                event.origin.map { ICalWriter().string($0.calendar) } ?? "-", component].joined(separator: " | ")
    }

    /// `EKEventStore.events(matching:)` answered from the occurrence cache (the items with
    /// an occurrence in the window, read once per index generation) gives the events of the
    /// general path, without the index (every item read and expanded) and with it (its
    /// candidates): the same occurrences, in the same order, with the same properties,
    /// components, items, identifiers and occurrence dates, and the diagnostics of the
    /// candidates, on repeated queries and after other programs change the files. Each
    /// window is asked three times: a pass over the listings that reads and expands what
    /// the memo lacks, the same listings again (made from the memo's last answer), and a
    /// pass over them with every item ready (the last answer dropped first).
    @Test(arguments: [UInt64(0xFA57), 0x5EED_FA57])
    func eventStoreAnswersFromTheCacheAsTheGeneralPathDoes(seed: UInt64) throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        var generator = RandomItemGenerator(seed: seed)
        for index in 0..<150 {
            try folder.write("\(index % 3 == 0 ? "work" : "calendar")/item-\(index).ics", generator.item(index))
        }
        try Self.writeSpecialItems(folder)
        try Self.writeBudgetItem(folder)
        try Self.writeTwoUIDItem(folder)
        let authority = FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess)
        let cached = EKEventStore(backend: try FolderStore.open(at: folder.path), authority: authority)
        let general = EKEventStore(backend: try FolderStore.open(at: folder.path), authority: authority)
        general.usesIndex = false
        let candidates = EKEventStore(backend: try FolderStore.open(at: folder.path), authority: authority)
        candidates.usesOccurrenceCache = false

        var random = SeededGenerator(state: seed ^ 0xD00D)
        let earliest = LocalDateTime(year: 2023, month: 6, day: 1)!.secondsSinceEpoch / 3600
        let latest = LocalDateTime(year: 2028, month: 6, day: 1)!.secondsSinceEpoch / 3600
        let lengths: [Int64] = [1, 24, 24 * 7, 24 * 31, 24 * 100, 24 * 200]
        var windows: [(Date, Date, Bool)] = []
        for trial in 0..<10 {
            let start = trial % 4 == 0 ? LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch + Int64(trial) * 3600
                : Int64.random(in: earliest...latest, using: &random) * 3600
            windows.append((Date(timeIntervalSince1970: Double(start)), Date(timeIntervalSince1970: Double(start + lengths[trial % lengths.count] * 3600)),
                            trial % 5 == 2))
        }
        var compared = 0, recurring = 0, detached = 0, replayed = 0
        func compare(_ label: String) {
            for (start, end, workOnly) in windows {
                func events(_ store: EKEventStore) -> (keys: [String], diagnostics: [String], events: [EKEvent]) {
                    let calendars = workOnly ? store.calendars(for: .event).filter { $0.calendarIdentifier == "work" } : nil
                    let found = store.events(matching: store.predicateForEvents(withStart: start, end: end, calendars: calendars))
                    return (found.map(Self.eventKey), store.readDiagnostics.map(\.description), found)
                }
                let expected = events(general), fromCandidates = events(candidates)
                #expect(fromCandidates.keys == expected.keys, "\(label): \(start) to \(end), the general paths")
                var earlier: Set<ObjectIdentifier> = [], kept: [EKEvent] = []   // kept alive: no address is reused
                for round in 0..<3 {
                    if round == 1, cached.occurrenceMemo.lastAnswer != nil { replayed += 1 }
                    if round == 2 { cached.occurrenceMemo.lastAnswer = nil }
                    let answer = events(cached)
                    #expect(answer.keys == expected.keys, "\(label): \(start) to \(end), round \(round)")
                    #expect(answer.diagnostics == fromCandidates.diagnostics, "\(label): \(start) to \(end), round \(round)")
                    let made = Set(answer.events.map(ObjectIdentifier.init))
                    #expect(made.count == answer.events.count && made.isDisjoint(with: earlier), "each call makes new objects")
                    earlier.formUnion(made)
                    kept += answer.events
                }
                compared += expected.keys.count
                recurring += expected.events.filter { $0.occurrenceDate != nil && $0.hasRecurrenceRules }.count
                detached += expected.events.filter(\.isDetached).count
            }
        }
        compare("first queries")
        #expect(compared > 200)
        #expect(recurring > 20 && detached > 0, "series and overrides are among the results")
        #expect(cached.occurrenceMemo.items.count > 10, "the cached path answered")
        #expect(replayed >= 5, "repeated queries were made from the last answer")

        // Another program changes files: new files and removals (seen by folder times), and
        // files rewritten in place (seen once the store looks again, as EventKit's
        // notification tells an app to fetch again).
        var editor = RandomItemGenerator(seed: seed ^ 0xED17)
        for index in stride(from: 0, to: 150, by: 11) {
            let text = editor.item(index + 1000)
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder.path + "/\(index % 3 == 0 ? "work" : "calendar")/item-\(index).ics"),
                                      options: .atomic)
        }
        try FileManager.default.removeItem(atPath: folder.path + "/work/item-3.ics")
        try folder.write("calendar/added.ics", editor.item(5000))
        compare("after renames and removals")
        for index in stride(from: 1, to: 150, by: 13) {
            try rewriteInPlace(folder.path + "/\(index % 3 == 0 ? "work" : "calendar")/item-\(index).ics", editor.item(index + 2000),
                               modified: Date(timeIntervalSinceNow: 5))
        }
        cached.refreshSourcesIfNecessary()
        candidates.refreshSourcesIfNecessary()
        compare("after rewrites in place")
        print("event store cache seed \(seed): \(compared) events compared")
    }

    /// A file with two UIDs whose events start and end at the same instants (a series and
    /// a single event), so that only their UIDs tell the cache's listings apart.
    static func writeTwoUIDItem(_ folder: StoreFolder) throws {
        try folder.write("work/two-uids.ics", calendarText([
            ["UID:two-b", "DTSTART:20260302T120000Z", "DTEND:20260302T130000Z", "RRULE:FREQ=DAILY;COUNT=60", "SUMMARY:Second UID"],
            ["UID:two-a", "DTSTART:20260305T120000Z", "DTEND:20260305T130000Z", "SUMMARY:First UID"],
        ]))
    }

    /// A VCALENDAR of VEVENTs, each given by its lines (a DTSTAMP is added).
    static func calendarText(_ events: [[String]]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tests//EN"]
            + events.flatMap { ["BEGIN:VEVENT", "DTSTAMP:20260101T000000Z"] + $0 + ["END:VEVENT"] }
            + ["END:VCALENDAR", ""]).joined(separator: "\n")
    }

    /// Every call of `events(matching:)` makes new `EKEvent` objects, whether from a pass over
    /// the cache's listings or from the memo's last answer, and the events of one item share
    /// what they were fetched as (their component, file and slot) by reference: editing one
    /// event, rolling it back, saving it, removing another, changes neither any other event
    /// fetched (of the same call or another) nor a later fetch before the change is saved.
    @Test func eventsFromTheCacheAreIndependentObjects() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try folder.write("home/series.ics", Self.calendarText([
            ["UID:weekly", "DTSTART:20260302T090000Z", "DTEND:20260302T100000Z", "RRULE:FREQ=WEEKLY;COUNT=5", "SUMMARY:Weekly"],
            ["UID:weekly", "RECURRENCE-ID:20260309T090000Z", "DTSTART:20260309T110000Z", "DTEND:20260309T120000Z",
             "SUMMARY:Weekly moved"],
        ]))
        try folder.write("home/single.ics", Self.calendarText([
            ["UID:single", "DTSTART:20260310T140000Z", "DTEND:20260310T150000Z", "SUMMARY:Single", "LOCATION:Here"],
        ]))
        try folder.write("work/other.ics", Self.calendarText([
            ["UID:other", "DTSTART:20260304T080000Z", "DTEND:20260304T083000Z", "SUMMARY:Other"],
        ]))
        let store = EKEventStore(backend: try FolderStore.open(at: folder.path),
                                 authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess))
        let march = LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch
        let predicate = store.predicateForEvents(withStart: Date(timeIntervalSince1970: Double(march)),
                                                 end: Date(timeIntervalSince1970: Double(march + 31 * 86_400)), calendars: nil)
        let first = store.events(matching: predicate)   // reads and expands the items
        #expect(store.occurrenceMemo.lastAnswer != nil, "the cached path answered")
        let second = store.events(matching: predicate)  // the last answer again
        store.occurrenceMemo.lastAnswer = nil
        let third = store.events(matching: predicate)   // a pass with every item ready
        let keys = first.map(Self.eventKey)
        #expect(first.map(\.title) == ["Weekly", "Other", "Weekly moved", "Single", "Weekly", "Weekly", "Weekly"])
        #expect(second.map(Self.eventKey) == keys && third.map(Self.eventKey) == keys)
        for (a, (b, c)) in zip(first, zip(second, third)) { #expect(a !== b && a !== c && b !== c) }
        let identity = try #require(first[0].origin?.identity)

        // Edits stay in the edited object.
        let edited = first[0]
        edited.title = "Changed"
        edited.location = "Elsewhere"
        edited.startDate = edited.startDate.addingTimeInterval(1800)
        edited.addAlarm(EKAlarm(relativeOffset: -600))
        edited.calendar = store.calendar(withIdentifier: "work")
        #expect(edited.hasChanges)
        #expect(Array(first.dropFirst()).map(Self.eventKey) == Array(keys.dropFirst()), "the same item's other occurrences")
        #expect(second.map(Self.eventKey) == keys && third.map(Self.eventKey) == keys, "the same occurrence fetched again")
        #expect(!second[0].hasChanges && second[0].alarms == nil && second[0].calendar.calendarIdentifier == "home")
        #expect(store.events(matching: predicate).map(Self.eventKey) == keys, "a fetch before the save")
        edited.rollback()
        #expect(Self.eventKey(edited) == keys[0] && !edited.hasChanges)

        // Saving one occurrence: the others keep what they were fetched as until refreshed.
        edited.title = "Changed"
        try store.save(edited, span: .thisEvent, commit: true)
        #expect(edited.origin?.identity != identity)
        #expect(second[0].title == "Weekly" && second[0].origin?.identity == identity)
        #expect(Array(first.dropFirst()).map(Self.eventKey) == Array(keys.dropFirst()))
        let saved = store.events(matching: predicate)
        #expect(saved.map(\.title) == ["Changed", "Other", "Weekly moved", "Single", "Weekly", "Weekly", "Weekly"])
        #expect(second[0].refresh() && second[0].title == "Changed")
        #expect(third[4].title == "Weekly")
        third[4].title = "Local"
        third[4].reset()
        #expect(third[4].title == "Weekly" && !third[4].hasChanges)

        // Removing an occurrence leaves the file its siblings were fetched from as it was.
        let sibling = saved[5]
        let siblingKey = Self.eventKey(sibling)
        try store.remove(saved[4], span: .thisEvent, commit: false)
        #expect(Self.eventKey(sibling) == siblingKey)
        #expect(store.events(matching: predicate).map(\.title) == ["Changed", "Other", "Weekly moved", "Single", "Weekly", "Weekly"])
        try store.commit()
        #expect(store.events(matching: predicate).map(\.title) == ["Changed", "Other", "Weekly moved", "Single", "Weekly", "Weekly"])
        #expect(Self.eventKey(sibling) == siblingKey)
    }

    /// The memo finds every item by its source's bytes, whatever the keys have in common
    /// (long shared prefixes, shared suffixes, lengths around the hash's eight bytes), and
    /// tells whether a listing's UID is the one stored with its item.
    @Test func memoFindsItemsBySourceBytes() {
        var memo = OccurrenceMemo(generation: 1)
        var random = SeededGenerator(state: 0x50_07CE)
        var sources: [String] = []
        for index in 0..<3000 {
            let name: String
            switch index % 4 {
            case 0: name = "\(index).ics"
            case 1: name = "event-\(UInt64.random(in: 0...UInt64.max, using: &random))-shared-suffix-of-some-length.ics"
            case 2: name = String(repeating: "x", count: index % 17) + "\(index)"
            default: name = "\(UUID(uuidString: "00000000-0000-0000-0000-\(String(format: "%012d", index))")!.uuidString).ics"
            }
            sources.append((index % 3 == 0 ? "work" : "a-calendar-with-a-long-identifier") + "/" + name)
        }
        func number(_ source: String, _ uid: String) -> (number: Int, hasItemUID: Bool)? {
            Array(source.utf8).withUnsafeBytes { source in Array(uid.utf8).withUnsafeBytes { memo.number(of: source, uid: $0) } }
        }
        for (index, source) in sources.enumerated() {
            let found = number(source, "uid-\(index)")
            #expect(found?.number == index && found?.hasItemUID == true, "\(source) added")
        }
        for (index, source) in sources.enumerated().reversed() {
            let found = number(source, "uid-\(index)"), other = number(source, "uid-\(index)x")
            #expect(found?.number == index && found?.hasItemUID == true, "\(source) found")
            #expect(other?.number == index && other?.hasItemUID == false, "\(source), another UID")
        }
        #expect(memo.items.count == sources.count)
        #expect(memo.collections == ["work", "a-calendar-with-a-long-identifier"])
        #expect(memo.items[5].key == ItemKey(collection: "a-calendar-with-a-long-identifier", name: String(sources[5].split(separator: "/")[1])))
        let notASource = number("no-slash", "uid")
        #expect(notASource == nil)
    }

    /// The memo keeps each item's events of the last window it was expanded over; compacting
    /// drops the events of earlier windows (and the last answer, whose event numbers change)
    /// and leaves each item's events as they were.
    @Test func memoCompactsEventsOfEarlierWindows() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try folder.write("home/weekly.ics", Self.calendarText([
            ["UID:weekly", "DTSTART:20260302T090000Z", "DTEND:20260302T100000Z", "RRULE:FREQ=WEEKLY;COUNT=20", "SUMMARY:Weekly"],
        ]))
        try folder.write("work/daily.ics", Self.calendarText([
            ["UID:daily", "DTSTART:20260301T070000Z", "DURATION:PT30M", "RRULE:FREQ=DAILY;COUNT=90", "SUMMARY:Daily"],
        ]))
        let store = try FolderStore.open(at: folder.path)
        var memo = OccurrenceMemo(generation: 1)
        let zoneKey = try #require(OccurrenceCache.key(for: FixedOffsetZone.utc))
        for (source, uid) in [("home/weekly.ics", "weekly"), ("work/daily.ics", "daily")] {
            let number = try #require(Array(source.utf8).withUnsafeBytes { source in
                Array(uid.utf8).withUnsafeBytes { memo.number(of: source, uid: $0)?.number }
            })
            let key = memo.items[number].key
            let item = try #require(try store.readItem(in: key.collection, name: key.name).item)
            memo.setOrigin(ItemOrigin(key: key, identity: item.file.identity, calendar: item.calendar), of: number)
        }
        func events(_ number: Int, _ window: Range<Int64>) throws -> [String] {
            let range = try #require(memo.events(of: number, window: window, zoneKey: zoneKey))
            return range.map { event in
                "\(memo.checks[event].startInstant) \(memo.checks[event].endInstant) \(memo.checks[event].hasItemUID) \(memo.uids[event]) "
                    + ICalWriter().string(memo.events[event].component)
            }
        }
        let march = LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch
        let windows = [march..<(march + 31 * 86_400), (march + 31 * 86_400)..<(march + 61 * 86_400), march..<(march + 10 * 86_400)]
        var last: [[String]] = []
        for window in windows {
            last = []
            for number in 0..<2 {
                #expect(memo.events(of: number, window: window, zoneKey: zoneKey) == nil)
                let expanded = memo.expand(number, over: window, zone: FixedOffsetZone.utc, zoneKey: zoneKey)
                #expect(expanded)
                last.append(try events(number, window))
            }
        }
        #expect(last[0].count == 2 && last[1].count == 10 && last.joined().allSatisfy { $0.contains(" true ") })
        #expect(memo.events.count == 5 + 31 + 4 + 30 + 2 + 10)
        memo.lastAnswer = OccurrenceMemo.Answer(window: windows[2], zoneKey: zoneKey, listings: PackedListings(), events: [])
        memo.compact()
        #expect(memo.events.count == 5 + 31 + 4 + 30 + 2 + 10 && memo.lastAnswer != nil, "too little to compact")
        memo.compact(slack: 0)
        #expect(memo.events.count == 12 && memo.checks.count == 12 && memo.uids.count == 12 && memo.lastAnswer == nil)
        #expect(try (0..<2).map { try events($0, windows[2]) } == last)
        #expect(memo.events(of: 0, window: windows[0], zoneKey: zoneKey) == nil)
    }

    /// A series whose expansion stops at the budget is expanded by each query for its own
    /// window, so its warning and its occurrences are those of that window.
    @Test func seriesStoppedByTheBudgetAreExpandedPerQuery() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try Self.writeBudgetItem(folder)
        try Self.writeSpecialItems(folder)
        let (index, _, _) = try StoreIndex.open(store: try FolderStore.open(at: folder.path))
        let march = LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch
        for window in [march..<(march + 60), march..<(march + 7 * 86_400)] {
            let expected = try Self.expected(index, window: window, collections: ["home", "work"], kinds: [.event, .todo], zone: FixedOffsetZone.utc)
            let cached = try #require(try index.cachedListings(window: window, collections: ["home", "work"], kinds: [.event, .todo],
                                                               floatingZone: FixedOffsetZone.utc))
            #expect(cached.listings == expected.listings)
            #expect(cached.diagnostics.map(\.description) == expected.diagnostics)
            #expect(cached.listings.contains { $0.uid == "budget" })
        }
        let week = try Self.expected(index, window: march..<(march + 7 * 86_400), collections: ["home"], kinds: [.event], zone: FixedOffsetZone.utc)
        #expect(week.diagnostics.contains { $0.contains("budget") }, "the week's expansion stops at the budget")
    }

    @Test func cacheOfAnotherEngineOrTzdataIsDropped() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try Self.writeSpecialItems(folder)
        let (index, _, _) = try StoreIndex.open(store: try FolderStore.open(at: folder.path))
        let march = LocalDateTime(year: 2026, month: 3, day: 1)!.secondsSinceEpoch
        let window = march..<(march + 31 * 86_400)
        let zone = FixedOffsetZone.utc
        let first = try #require(try index.cachedListings(window: window, collections: ["home", "work"], kinds: [.event], floatingZone: zone))
        #expect(first.filledWeeks > 0)
        #expect(try #require(try index.cachedListings(window: window, collections: ["home", "work"], kinds: [.event], floatingZone: zone)).filledWeeks == 0)
        // What the rows were made with changes (another engine version, another tzdata).
        let database = try DatabaseQueue(path: index.path)
        try database.write { try $0.execute(sql: "UPDATE setting SET value = 'engine 0' WHERE key = 'cache'") }
        try database.close()
        let again = try #require(try index.cachedListings(window: window, collections: ["home", "work"], kinds: [.event], floatingZone: zone))
        #expect(again.filledWeeks == first.filledWeeks)
        #expect(again.listings == first.listings)
    }

    @Test func windowsTheCacheDoesNotAnswer() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        try Self.writeSpecialItems(folder)
        let (index, _, _) = try StoreIndex.open(store: try FolderStore.open(at: folder.path))
        let year = LocalDateTime(year: 2026, month: 1, day: 1)!.secondsSinceEpoch
        #expect(try index.cachedListings(window: year..<(year + 366 * 86_400), collections: ["home"], kinds: [.event],
                                         floatingZone: FixedOffsetZone.utc) == nil, "longer than 100 days")
        #expect(try index.cachedListings(window: year..<year, collections: ["home"], kinds: [.event],
                                         floatingZone: FixedOffsetZone.utc) == nil, "empty")
    }
}
