import Foundation
import ICalKit
import Testing
@testable import OpenEventKit

/// ``FolderStore/commit(_:streaming:)``: items handed over one at a time, written at once as
/// temporaries, are one batch all or nothing, as ``FolderStore/commit(_:)``.
@Suite struct StreamedCommitTests {
    private struct Stop: Error {}

    private static func bytes(_ uid: String) -> [UInt8] { ICalWriter().bytes(eventCalendar(uid: uid)) }

    @Test func streamedPutsCommitWithTheBatch() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var batch = Batch()
        try batch.createCollection("lessons", title: "Lessons")
        let result = try store.commit(batch) { put in
            for index in 0..<5 { try put("calendar", "item-\(index).ics", Self.bytes("item-\(index)"), .absent) }
            try put("lessons", "lesson.ics", Self.bytes("lesson"), .absent)
        }
        #expect(result.identities.count == 6)
        #expect(try store.items(in: "calendar").map(\.name).sorted() == (0..<5).map { "item-\($0).ics" })
        #expect(try store.items(in: "lessons").map(\.name) == ["lesson.ics"])
        #expect(try store.readItem(in: "calendar", name: "item-3.ics").item?.uid == "item-3")
    }

    @Test func aFailureHalfwayWritesNothing() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let store = try FolderStore.open(at: folder.path)
        var first = Batch()
        try first.put(eventCalendar(uid: "taken"), into: "calendar", expecting: .absent)
        try store.commit(first)
        let before = try storeTree(folder.path)

        // The producer fails after three items were written as temporaries.
        #expect(throws: Stop.self) {
            try store.commit(Batch()) { put in
                for index in 0..<3 { try put("calendar", "new-\(index).ics", Self.bytes("new-\(index)"), .absent) }
                throw Stop()
            }
        }
        #expect(try storeTree(folder.path) == before)
        // A put that conflicts with the disk fails the batch the same way.
        #expect(throws: StoreError.self) {
            try store.commit(Batch()) { put in
                try put("calendar", "new.ics", Self.bytes("new"), .absent)
                try put("calendar", "taken.ics", Self.bytes("taken"), .absent)
            }
        }
        #expect(throws: StoreError.self) {
            try store.commit(Batch()) { put in
                try put("calendar", "twice.ics", Self.bytes("twice"), .absent)
                try put("calendar", "twice.ics", Self.bytes("twice"), .absent)
            }
        }
        #expect(throws: StoreError.self) {
            try store.commit(Batch()) { put in try put("nowhere", "x.ics", Self.bytes("x"), .absent) }
        }
        #expect(try storeTree(folder.path) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/calendar").filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
        // The store works on: the next commit goes through.
        try store.commit(Batch()) { put in try put("calendar", "after.ics", Self.bytes("after"), .absent) }
        #expect(try store.items(in: "calendar").map(\.name).sorted() == ["after.ics", "taken.ics"])
    }

    @Test func theStoreImportsASourceAsItImportsTheTrees() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            X-WR-TIMEZONE:Europe/Berlin\r
            BEGIN:VEVENT\r
            UID:s\r
            DTSTAMP:20260101T000000Z\r
            RECURRENCE-ID:20260303T100000\r
            DTSTART:20260303T120000\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20260305T120000\r
            SUMMARY:no uid\r
            END:VEVENT\r
            BEGIN:VTODO\r
            UID:t\r
            DTSTAMP:20260101T000000Z\r
            END:VTODO\r
            END:VCALENDAR\r
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:s\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20260302T100000\r
            RRULE:FREQ=DAILY;COUNT=3\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let file = try folder.write("input/in.ics", text)
        let calendars = try ICalReader().read(contentsOfFile: file).calendars
        let streamedRoot = folder.path + "/streamed", treeRoot = folder.path + "/tree"
        var reports: [EKImportReport] = []
        for (root, streamed) in [(streamedRoot, true), (treeRoot, false)] {
            let eventStore = EKEventStore(backend: try FolderStore.open(at: root),
                                          authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), watchingChanges: false)
            if streamed {
                let source = EKImportSource()
                let stream = try #require(try ICalComponentStream.open(file))
                #expect(try source.add(stream).isFaithful)
                reports.append(try eventStore.importCalendars(from: source))
            } else {
                reports.append(try eventStore.importCalendars(calendars))
            }
        }
        #expect(reports[0] == reports[1])
        #expect(reports[0].added == 3 && reports[0].uidsAdded == 1)
        #expect(try storeTree(streamedRoot) == storeTree(treeRoot))
    }

    /// A stream that is not faithful (VCALENDAR properties after the components: an
    /// X-WR-TIMEZONE, a METHOD that makes the second calendar non-defining) is read again
    /// with the complete properties when it is too large to read whole; the store then holds
    /// what a whole read imports.
    @Test func anUnfaithfulStreamImportsAsTheWholeRead() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:s\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20260302T100000\r
            RRULE:FREQ=DAILY;COUNT=3\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20260305T120000\r
            SUMMARY:no uid\r
            END:VEVENT\r
            X-WR-TIMEZONE:Europe/Berlin\r
            END:VCALENDAR\r
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:s\r
            DTSTAMP:20260101T000000Z\r
            RECURRENCE-ID:20260303T100000\r
            DTSTART:20260303T120000\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:r\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20260306T120000\r
            END:VEVENT\r
            METHOD:REQUEST\r
            END:VCALENDAR\r

            """
        let file = try folder.write("input/in.ics", text)
        let calendars = try ICalReader().read(contentsOfFile: file).calendars
        let streamedRoot = folder.path + "/streamed", treeRoot = folder.path + "/tree"
        var reports: [EKImportReport] = []
        for (root, streamed) in [(streamedRoot, true), (treeRoot, false)] {
            let eventStore = EKEventStore(backend: try FolderStore.open(at: root),
                                          authority: FixedAccessAuthority(events: .fullAccess, reminders: .fullAccess), watchingChanges: false)
            let source = EKImportSource(memory: MemoryBudget(bytes: 16 << 20))
            if streamed {
                let stream = try #require(try ICalComponentStream.open(file))
                #expect(try !source.add(stream, evenIfUnfaithful: true).isFaithful)
            } else {
                // What `ical import` does with a small unfaithful file: a whole read.
                let stream = try #require(try ICalComponentStream.open(file))
                #expect(try !source.add(stream).isFaithful)
                source.add(calendars: calendars)
            }
            reports.append(try eventStore.importCalendars(from: source))
        }
        #expect(reports[0] == reports[1])
        #expect(reports[0].added == 3 && reports[0].uidsAdded == 1)
        #expect(try storeTree(streamedRoot) == storeTree(treeRoot))
        // The late X-WR-TIMEZONE applies to the first calendar's floating times.
        let series = try #require(try storeTree(streamedRoot).first { $0.key.hasSuffix("/s.ics") })
        #expect(String(decoding: series.value, as: UTF8.self).contains("TZID=Europe/Berlin"))
    }
}
