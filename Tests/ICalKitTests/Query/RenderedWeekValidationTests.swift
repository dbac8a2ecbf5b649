import Testing
@testable import ICalKit

/// A rendered week comes from the query index file, which anyone who can write the store can
/// change: every byte layout that is not a whole, known week must be refused before a query
/// reads an entry from it.
@Suite struct RenderedWeekValidationTests {
    /// A week of two calendars and three entries, as the rendering cache stores it: the
    /// heads, then the entries' bytes.
    private static func week(kinds: [UInt8] = [1, 2, 4], collections: [UInt16] = [0, 1, 1],
                             lengths: [UInt32]? = nil, bytes: [[UInt8]] = [Array("{\"a\"}".utf8), [], Array("x,y".utf8)]) -> [UInt8] {
        RenderedWeekBytes.week(heads: kinds.indices.map { index in
            RenderedWeekBytes.Head(start: Int64(1_000 + index), end: Int64(2_000 + index), day: index == 1 ? Int32.min : 20_500,
                                   kind: kinds[index], collection: collections[index],
                                   length: lengths?[index] ?? UInt32(bytes[index].count))
        }, bytes: bytes)
    }

    /// A block holding `bytes` from its start, as the query index reads a week into one.
    private static func storage(holding bytes: [UInt8]) -> RenderedStorage {
        let storage = RenderedStorage(capacity: bytes.count)
        bytes.withUnsafeBytes { if let source = $0.baseAddress { storage.base.copyMemory(from: source, byteCount: $0.count) } }
        return storage
    }

    @Test func aWholeWeekIsReadAsWritten() throws {
        let week = try #require(RenderedWeek(validating: Self.week()))
        #expect(week.collections == ["home", "work"])
        var seen: [(Int64, Int64, Int?, UInt8, Int, String)] = []
        var heads = week.makeHeads()
        while let head = heads.next() {
            seen.append((head.startInstant, head.endInstant, head.day == Int32.min ? nil : Int(head.day), head.kind,
                         head.collection, String(decoding: head.bytes, as: UTF8.self)))
        }
        #expect(seen.map(\.0) == [1_000, 1_001, 1_002])
        #expect(seen.map(\.1) == [2_000, 2_001, 2_002])
        #expect(seen.map(\.2) == [20_500, nil, 20_500])
        #expect(seen.map(\.3) == [1, 2, 4])
        #expect(seen.map(\.4) == [0, 1, 1])
        #expect(seen.map(\.5) == ["{\"a\"}", "", "x,y"])
    }

    @Test func everyCutIsRefused() {
        let whole = Self.week()
        for length in 0..<whole.count {
            #expect(RenderedWeek(validating: Array(whole.prefix(length))) == nil, "cut to \(length) of \(whole.count) bytes")
        }
        #expect(RenderedWeek(validating: whole + [0]) == nil, "a byte after the last entry")
    }

    @Test func unknownKindsCalendarsAndLengthsAreRefused() {
        #expect(RenderedWeek(validating: Self.week(kinds: [1, 3, 4])) == nil, "kind 3")
        #expect(RenderedWeek(validating: Self.week(kinds: [0, 2, 4])) == nil, "kind 0")
        #expect(RenderedWeek(validating: Self.week(kinds: [1, 2, 8])) == nil, "kind 8")
        #expect(RenderedWeek(validating: Self.week(collections: [0, 2, 1])) == nil, "a third calendar of two")
        #expect(RenderedWeek(validating: Self.week(lengths: [5, 0, 4])) == nil, "the last entry longer than its bytes")
        #expect(RenderedWeek(validating: Self.week(lengths: [5, 0, UInt32.max])) == nil, "a length past any buffer")
        #expect(RenderedWeek(validating: Self.week(lengths: [4, 0, 3])) == nil, "a short length leaves bytes over")
        var version = Self.week()
        version[0] = RenderedWeek.version &+ 1
        #expect(RenderedWeek(validating: version) == nil, "another layout")
        var heads = Self.week()
        heads.replaceSubrange(15..<19, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(RenderedWeek(validating: heads) == nil, "more heads than the week holds")
        heads.replaceSubrange(15..<19, with: [2, 0, 0, 0])
        #expect(RenderedWeek(validating: heads) == nil, "a head read as bytes")
    }

    /// A week read in pieces (as the query index reads a stored one) is checked piece by
    /// piece: for every piece size, the same weeks pass and fail as when checked whole, and
    /// a check that failed stays failed.
    /// A week read in part (the query index reads the heads, then only the chosen entries'
    /// bytes) is checked as the whole is: every head, and the lengths against the week's size.
    @Test func aWeekCheckedWithoutItsEntriesBytesIsCheckedAsTheWhole() {
        let whole = Self.week()
        let cases: [[UInt8]] = [whole, Array(whole.dropLast()), whole + [0], Self.week(kinds: [1, 3, 4]),
                                Self.week(collections: [0, 2, 1]), Self.week(lengths: [5, 0, 4]), Self.week(lengths: [4, 0, 3]),
                                Self.week(lengths: [5, 0, UInt32.max])]
        for bytes in cases {
            let expected = RenderedWeek(validating: bytes) != nil
            let storage = Self.storage(holding: bytes)
            var validation = RenderedWeek.Validation(byteCount: bytes.count)
            #expect(validation.headsEnd == nil, "nothing seen yet")
            var passing = validation.advance(storage.base, available: 1)
            #expect(validation.headsEnd == nil, "the header is not whole")
            let end = min(whole.count - 8, bytes.count)   // the heads and no entry's bytes
            passing = passing && validation.advance(storage.base, available: end)
            if passing, let headsEnd = validation.headsEnd {
                #expect(headsEnd == whole.count - 8, "three heads after the header")
                passing = validation.acceptUnreadEntries(storage.base)
            }
            #expect((passing && RenderedWeek(validated: validation, storage: storage) != nil) == expected, "\(bytes)")
        }
        // Heads not all seen: refused, and stays refused.
        let storage = Self.storage(holding: whole)
        var early = RenderedWeek.Validation(byteCount: whole.count)
        let seen = early.advance(storage.base, available: whole.count - 20)
        let accepted = early.acceptUnreadEntries(storage.base)
        let later = early.advance(storage.base, available: whole.count)
        #expect(seen)
        #expect(!accepted, "the last head was not seen")
        #expect(!later, "a refused week stays refused")
    }

    @Test func piecesOfEverySizeAreCheckedAsTheWhole() {
        let whole = Self.week()
        let cases: [[UInt8]] = [whole, Array(whole.dropLast()), whole + [0], Self.week(kinds: [1, 3, 4]),
                                Self.week(collections: [0, 2, 1]), Self.week(lengths: [5, 0, 4]), Self.week(lengths: [4, 0, 3]),
                                Self.week(lengths: [5, 0, UInt32.max]), Array(whole.prefix(4)), []]
        for bytes in cases {
            let expected = RenderedWeek(validating: bytes) != nil
            let storage = Self.storage(holding: bytes)
            for size in 1...max(bytes.count, 1) {
                var validation = RenderedWeek.Validation(byteCount: bytes.count)
                var passing = true, done = 0
                repeat {
                    done = min(bytes.count, done + size)
                    passing = validation.advance(storage.base, available: done)
                } while passing && done < bytes.count
                let week = RenderedWeek(validated: validation, storage: storage)
                #expect((passing && week != nil) == expected, "\(bytes.count) bytes in pieces of \(size)")
                if !passing {
                    let again = validation.advance(storage.base, available: bytes.count)
                    #expect(!again, "a failed check stays failed")
                }
            }
        }
        let storage = Self.storage(holding: whole)
        var backwards = RenderedWeek.Validation(byteCount: whole.count)
        let all = backwards.advance(storage.base, available: whole.count)
        let more = backwards.advance(storage.base, available: whole.count + 1)
        #expect(all)
        #expect(!more, "more bytes than the week has")
    }
}
