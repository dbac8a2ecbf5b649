/// Occurrence listings packed one after another into one byte buffer, so that a long listing
/// (a store's month is tens of thousands of occurrences) can be sorted and written as JSON,
/// CSV or an agenda without a `String` for every field of every occurrence.
///
/// Each record is: `Int64` start and end instants, the component name and the source as
/// strings, then the listing's payload, the layout the query index stores for an occurrence
/// (see ``appendPayload(_:recurrenceLocal:to:)``). Integers are little-endian; a string is a
/// `UInt32` byte count (`0xFFFFFFFF` for none) and its UTF-8 bytes. The order of ``offsets``
/// is the order of the listing: sorting or dropping records touches only the offsets.
package struct PackedListings: Sendable {
    /// The records, back to back.
    package private(set) var bytes: [UInt8] = []
    /// Where each listing's record starts in ``bytes``, in the listing's order.
    package var offsets: [Int] = []

    /// An empty listing.
    package init() {}

    /// Packs listings in their order.
    package init(_ listings: [OccurrenceListing]) {
        bytes.reserveCapacity(listings.count * 200)
        offsets.reserveCapacity(listings.count)
        for listing in listings { append(listing) }
    }

    /// The number of listings.
    package var count: Int { offsets.count }

    /// Reserves room for `bytes` bytes of records and `records` offsets.
    package mutating func reserveCapacity(bytes: Int, records: Int) {
        self.bytes.reserveCapacity(bytes)
        offsets.reserveCapacity(records)
    }

    /// Empties the listing, keeping its storage for the next records.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
    }

    /// Appends a listing (its RECURRENCE-ID's local time is not shown by any format: 0).
    package mutating func append(_ listing: OccurrenceListing, recurrenceLocal: Int64 = 0) {
        offsets.append(bytes.count)
        Self.integer(listing.startInstant, to: &bytes)
        Self.integer(listing.endInstant, to: &bytes)
        Self.text(listing.componentName, to: &bytes)
        Self.text(listing.source, to: &bytes)
        Self.appendPayload(listing, recurrenceLocal: recurrenceLocal, to: &bytes)
    }

    /// Appends a record from a stored payload and the columns stored beside it (the source is
    /// `folder/name`), and returns what `body` makes of the record's sort keys
    /// (``PackedListing/keys(_:at:)``); nil (and nothing appended) when the payload is not
    /// exactly one that ``appendPayload(_:recurrenceLocal:to:)`` wrote. `body`'s views are
    /// valid only inside it.
    package mutating func append<Result>(payload: UnsafeRawBufferPointer, startInstant: Int64, endInstant: Int64,
                                         componentName: StaticString, folder: UnsafeRawBufferPointer,
                                         name: UnsafeRawBufferPointer,
                                         _ body: (PackedListingKeys, _ base: UnsafeRawPointer) -> Result) -> Result? {
        let record = bytes.count
        // Two appends: the record's head, written in place on the stack, then the payload
        // (an append of a few bytes costs more than the bytes).
        let sourceCount = folder.count + 1 + name.count
        componentName.withUTF8Buffer { component in
            withUnsafeTemporaryAllocation(byteCount: 8 + 8 + 4 + component.count + 4 + sourceCount, alignment: 8) { head in
                var at = head.baseAddress!
                at.storeBytes(of: startInstant.littleEndian, as: Int64.self)
                at.storeBytes(of: endInstant.littleEndian, toByteOffset: 8, as: Int64.self)
                at.storeBytes(of: UInt32(component.count).littleEndian, toByteOffset: 16, as: UInt32.self)
                at += 20
                if let base = component.baseAddress { at.copyMemory(from: base, byteCount: component.count) }
                at += component.count
                at.storeBytes(of: UInt32(sourceCount).littleEndian, as: UInt32.self)
                at += 4
                if let base = folder.baseAddress { at.copyMemory(from: base, byteCount: folder.count) }
                at += folder.count
                at.storeBytes(of: UInt8(ascii: "/"), as: UInt8.self)
                at += 1
                if let base = name.baseAddress { at.copyMemory(from: base, byteCount: name.count) }
                bytes.append(contentsOf: UnsafeRawBufferPointer(head))
            }
        }
        bytes.append(contentsOf: payload)
        let result: Result? = bytes.withUnsafeBytes { buffer in
            guard let keys = PackedListing.keys(buffer, at: record) else { return nil }
            return body(keys, buffer.baseAddress!)
        }
        if result != nil {
            offsets.append(record)
        } else {
            bytes.removeSubrange(record...)
        }
        return result
    }

    /// Calls `body` with a view of every listing, in order.
    package func forEach<Failure: Error>(_ body: (PackedListing) throws(Failure) -> Void) throws(Failure) {
        var failure: Failure?
        bytes.withUnsafeBytes { buffer in
            for offset in offsets {
                // Records were validated when appended.
                do throws(Failure) { try body(PackedListing(buffer, at: offset)!) } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
    }

    /// The listings, decoded.
    package func listings() -> [OccurrenceListing] {
        var result: [OccurrenceListing] = []
        result.reserveCapacity(count)
        forEach { result.append($0.listing()) }
        return result
    }

    // MARK: The payload

    /// The payload's layout version (the query index stores it; version 1 had no links).
    package static let payloadVersion: UInt8 = 2

    /// Appends a listing's payload: what it holds besides its instants, component name and
    /// source. Layout: the version byte; `Int64` RECURRENCE-ID local time, start local time,
    /// end local time; `UInt8` start form, end form (0 floating, 1 UTC, 2 with a TZID; plus 4
    /// for a date) and flags (1 all-day, 2 start offset present, 4 end offset present); `Int32`
    /// start and end offsets when present; eight strings: UID, RECURRENCE-ID text, summary,
    /// location, status, start TZID, end TZID, zone name; then a `UInt8` count of conference
    /// links (RFC 7986 `CONFERENCE`) and, for each, two strings: its label and its URI.
    package static func appendPayload(_ listing: OccurrenceListing, recurrenceLocal: Int64, to out: inout [UInt8]) {
        out.append(payloadVersion)
        let start = form(listing.start), end = form(listing.end)
        integer(recurrenceLocal, to: &out)
        integer(listing.start.local.secondsSinceEpoch, to: &out)
        integer(listing.end.local.secondsSinceEpoch, to: &out)
        out.append(start.form)
        out.append(end.form)
        out.append((listing.isAllDay ? 1 : 0) | (listing.startOffset != nil ? 2 : 0) | (listing.endOffset != nil ? 4 : 0))
        if let offset = listing.startOffset { integer(Int32(clamping: offset), to: &out) }
        if let offset = listing.endOffset { integer(Int32(clamping: offset), to: &out) }
        for value in [listing.uid, listing.recurrenceIdentifier, listing.summary, listing.location, listing.status,
                      start.zone, end.zone, listing.zoneName] {
            text(value, to: &out)
        }
        let links = listing.conferences.prefix(Int(UInt8.max))
        out.append(UInt8(links.count))
        for link in links {
            text(link.label, to: &out)
            text(link.uri, to: &out)
        }
    }

    /// A date-time's form (0 floating, 1 UTC, 2 with a TZID; plus 4 for a date) and TZID.
    package static func form(_ value: DateTime) -> (form: UInt8, zone: String?) {
        let date: UInt8 = value.isDate ? 4 : 0
        switch value.zone {
        case .floating: return (date, nil)
        case .utc: return (date + 1, nil)
        case .identifier(let tzid): return (date + 2, tzid)
        }
    }

    /// The date-time of a stored form.
    package static func dateTime(local: Int64, form: UInt8, zone: String?) -> DateTime {
        var value = DateTime(LocalDateTime(secondsSinceEpoch: local))
        value.isDate = form & 4 != 0
        switch form & 3 {
        case 1: value.zone = .utc
        case 2: value.zone = .identifier(zone ?? "")
        default: value.zone = .floating
        }
        return value
    }

    private static func integer<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func text(_ value: String?, to out: inout [UInt8]) {
        guard var value else { return integer(UInt32.max, to: &out) }
        value.withUTF8 { bytes in
            integer(UInt32(bytes.count), to: &out)
            out.append(contentsOf: bytes)
        }
    }
}

/// One listing of ``PackedListings``, read in place: its strings are views into the buffer,
/// valid only inside the closure that handed the listing out.
package struct PackedListing {
    package var startInstant: Int64
    package var endInstant: Int64
    package var componentName: UnsafeRawBufferPointer
    package var source: UnsafeRawBufferPointer?
    package var recurrenceLocal: Int64
    package var startLocal: Int64
    package var endLocal: Int64
    package var startForm: UInt8
    package var endForm: UInt8
    package var isAllDay: Bool
    package var startOffset: Int?
    package var endOffset: Int?
    package var uid: UnsafeRawBufferPointer
    package var recurrenceIdentifier: UnsafeRawBufferPointer?
    package var summary: UnsafeRawBufferPointer?
    package var location: UnsafeRawBufferPointer?
    package var status: UnsafeRawBufferPointer?
    package var startZone: UnsafeRawBufferPointer?
    package var endZone: UnsafeRawBufferPointer?
    package var zoneName: UnsafeRawBufferPointer?
    /// The conference links' bytes: `linkCount` pairs of strings (label, URI).
    package var links: UnsafeRawBufferPointer
    package var linkCount: Int

    /// An empty view, filled by ``read(_:)``.
    private init() {
        startInstant = 0; endInstant = 0
        componentName = UnsafeRawBufferPointer(start: nil, count: 0)
        recurrenceLocal = 0; startLocal = 0; endLocal = 0
        startForm = 0; endForm = 0; isAllDay = false
        uid = UnsafeRawBufferPointer(start: nil, count: 0)
        links = UnsafeRawBufferPointer(start: nil, count: 0)
        linkCount = 0
    }

    /// Reads the record at `offset`, or nil when it is not whole (or, with `end`, does not end
    /// exactly there).
    package init?(_ buffer: UnsafeRawBufferPointer, at offset: Int, end: Int? = nil) {
        self.init()
        guard let base = buffer.baseAddress, offset >= 0 else { return nil }
        var walker = Walker(base: base, end: buffer.count, position: offset)
        startInstant = walker.integer(Int64.self)
        endInstant = walker.integer(Int64.self)
        let component = walker.text(), source = walker.text()
        guard readPayload(&walker), component.count >= 0, end.map({ $0 == walker.position }) ?? true else { return nil }
        componentName = walker.view(component)!
        self.source = walker.view(source)
    }

    /// Reads the payload's fields at the walker; false when they are not whole.
    private mutating func readPayload(_ walker: inout Walker) -> Bool {
        guard walker.integer(UInt8.self) == PackedListings.payloadVersion else { return false }
        recurrenceLocal = walker.integer(Int64.self)
        startLocal = walker.integer(Int64.self)
        endLocal = walker.integer(Int64.self)
        startForm = walker.integer(UInt8.self)
        endForm = walker.integer(UInt8.self)
        let flags = walker.integer(UInt8.self)
        isAllDay = flags & 1 != 0
        if flags & 2 != 0 { startOffset = Int(walker.integer(Int32.self)) }
        if flags & 4 != 0 { endOffset = Int(walker.integer(Int32.self)) }
        let uid = walker.text(), recurrenceIdentifier = walker.text(), summary = walker.text(), location = walker.text(),
            status = walker.text(), startZone = walker.text(), endZone = walker.text(), zoneName = walker.text()
        let linkCount = walker.integer(UInt8.self)
        let linksStart = walker.position
        for _ in 0..<linkCount {
            // A link's URI is never missing.
            _ = walker.text()
            if walker.text().count < 0 { return false }
        }
        guard !walker.failed, uid.count >= 0 else { return false }
        self.uid = walker.view(uid)!
        self.recurrenceIdentifier = walker.view(recurrenceIdentifier)
        self.summary = walker.view(summary)
        self.location = walker.view(location)
        self.status = walker.view(status)
        self.startZone = walker.view(startZone)
        self.endZone = walker.view(endZone)
        self.zoneName = walker.view(zoneName)
        links = UnsafeRawBufferPointer(start: walker.base + linksStart, count: walker.position - linksStart)
        self.linkCount = Int(linkCount)
        return true
    }

    /// The conference links: label (nil when none) and URI.
    package func forEachLink(_ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer) -> Void) {
        guard let base = links.baseAddress else { return }
        var walker = Walker(base: base, end: links.count, position: 0)
        for _ in 0..<linkCount {
            let label = walker.text(), uri = walker.text()
            guard !walker.failed, let uri = walker.view(uri) else { return }
            body(walker.view(label), uri)
        }
    }

    /// The start as a date-time (its TZID included).
    package var start: DateTime {
        PackedListings.dateTime(local: startLocal, form: startForm, zone: startZone.map(Self.string))
    }

    /// The end as a date-time (its TZID included).
    package var end: DateTime {
        PackedListings.dateTime(local: endLocal, form: endForm, zone: endZone.map(Self.string))
    }

    /// The listing, decoded.
    package func listing() -> OccurrenceListing {
        var conferences: [OccurrenceListing.ConferenceLink] = []
        forEachLink { label, uri in
            conferences.append(OccurrenceListing.ConferenceLink(label: label.map(Self.string), uri: Self.string(uri)))
        }
        return OccurrenceListing(
            uid: Self.string(uid), recurrenceIdentifier: recurrenceIdentifier.map(Self.string), summary: summary.map(Self.string),
            location: location.map(Self.string), status: status.map(Self.string), componentName: Self.string(componentName),
            start: start, end: end, startInstant: startInstant, endInstant: endInstant, startOffset: startOffset,
            endOffset: endOffset, zoneName: zoneName.map(Self.string), isAllDay: isAllDay, source: source.map(Self.string),
            conferences: conferences)
    }

    /// Whether the component is a to-do.
    package var isToDo: Bool { componentName.elementsEqual("VTODO".utf8) }

    package static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Whether bytes are all ASCII (looked at eight at a time).
    package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        while index + 8 <= bytes.count {
            if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

}

/// What sorting a packed record needs (see ``PackedListing/keys(_:at:)``): its instants, its
/// RECURRENCE-ID's local time, its UID and its source, views into the buffer.
package struct PackedListingKeys {
    package var startInstant: Int64
    package var endInstant: Int64
    package var recurrenceLocal: Int64
    package var uid: UnsafeRawBufferPointer
    package var source: UnsafeRawBufferPointer?
}

extension PackedListing {
    /// The sort keys of the record from `offset` to the end of `buffer`, or nil when those
    /// bytes are not exactly one record: the checks of ``init(_:at:end:)`` with the end at the
    /// buffer's end, without a view of every field. (A store's month is tens of thousands of
    /// records, each checked once when read and read whole once when written.)
    package static func keys(_ buffer: UnsafeRawBufferPointer, at offset: Int) -> PackedListingKeys? {
        guard let base = buffer.baseAddress, offset >= 0 else { return nil }
        var walker = Walker(base: base, end: buffer.count, position: offset)
        let startInstant = walker.integer(Int64.self), endInstant = walker.integer(Int64.self)
        let component = walker.text(), source = walker.text()
        guard walker.integer(UInt8.self) == PackedListings.payloadVersion else { return nil }
        let recurrenceLocal = walker.integer(Int64.self)
        walker.skip(8 + 8 + 1 + 1)
        let flags = walker.integer(UInt8.self)
        if flags & 2 != 0 { walker.skip(4) }
        if flags & 4 != 0 { walker.skip(4) }
        let uid = walker.text()
        for _ in 0..<7 { _ = walker.text() }   // RECURRENCE-ID, summary, location, status, zones, zone name
        let links = walker.integer(UInt8.self)
        for _ in 0..<links {
            _ = walker.text()
            if walker.text().count < 0 { return nil }   // a link's URI is never missing
        }
        guard !walker.failed, walker.position == buffer.count, component.count >= 0, uid.count >= 0 else { return nil }
        return PackedListingKeys(
            startInstant: startInstant, endInstant: endInstant, recurrenceLocal: recurrenceLocal,
            uid: walker.view(uid)!, source: walker.view(source))
    }

    /// Reads a record's integers and string bounds with plain arithmetic (the full reader and
    /// ``keys(_:at:)`` both walk with it); `failed` once the record ends first (then every
    /// read gives zeros).
    fileprivate struct Walker {
        let base: UnsafeRawPointer
        let end: Int
        var position: Int
        var failed = false

        @inline(__always)
        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
            guard !failed, end - position >= MemoryLayout<T>.size else {
                failed = true
                return 0
            }
            defer { position += MemoryLayout<T>.size }
            return T(littleEndian: base.loadUnaligned(fromByteOffset: position, as: T.self))
        }

        @inline(__always)
        mutating func skip(_ count: Int) {
            guard !failed, end - position >= count else {
                failed = true
                return
            }
            position += count
        }

        /// A string's start and byte count (count -1: none).
        @inline(__always)
        mutating func text() -> (start: Int, count: Int) {
            let count = integer(UInt32.self)
            if failed { return (0, 0) }
            if count == UInt32.max { return (0, -1) }
            let start = position
            skip(Int(count))
            return (start, Int(count))
        }

        /// The bytes of a string ``text()`` found (nil: none).
        func view(_ text: (start: Int, count: Int)) -> UnsafeRawBufferPointer? {
            text.count < 0 ? nil : UnsafeRawBufferPointer(start: base + text.start, count: text.count)
        }
    }
}
