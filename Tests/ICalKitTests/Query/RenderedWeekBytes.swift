@testable import ICalKit

/// A rendered week's bytes in the layout the query index stores (``RenderedWeek``): the
/// header with the calendars' names, the heads, then the entries' bytes.
enum RenderedWeekBytes {
    /// One head: instants, agenda day, kind, calendar number, and the length it claims.
    struct Head {
        var start: Int64
        var end: Int64
        var day: Int32 = Int32.min
        var kind: UInt8
        var collection: UInt16
        var length: UInt32
    }

    static func week(collections: [String] = ["home", "work"], heads: [Head], bytes: [[UInt8]]) -> [UInt8] {
        func put<T: FixedWidthInteger>(_ value: T, _ out: inout [UInt8]) {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }
        var out: [UInt8] = [RenderedWeek.version]
        put(UInt16(collections.count), &out)
        for name in collections {
            put(UInt16(name.utf8.count), &out)
            out.append(contentsOf: name.utf8)
        }
        put(UInt32(heads.count), &out)
        for head in heads {
            put(head.start, &out)
            put(head.end, &out)
            put(head.day, &out)
            out.append(head.kind)
            put(head.collection, &out)
            put(head.length, &out)
        }
        for entry in bytes { out.append(contentsOf: entry) }
        return out
    }
}
