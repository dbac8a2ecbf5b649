extension OccurrenceFormatter {
    /// The size of the pieces a streamed query is written in: 128 KiB.
    package static let streamChunkSize = 1 << 17

    /// Writes a query's matches as they come, as JSON, CSV or an agenda: the bytes
    /// ``bytes(_:as:)`` makes of the whole listing, handed to `sink` in pieces of about
    /// `chunkSize` bytes (the last one shorter), so no more than a piece is held.
    ///
    /// With a `limit`, only the first `limit` matches are written; the stream is drained all
    /// the same, so its diagnostics are complete. Returns the number of matches written.
    /// An error of `sink` stops the writing and is thrown; the stream is left where it was.
    @discardableResult
    package func write(_ stream: OccurrenceQuery.Stream, as format: ListingFormat, limit: Int? = nil,
                       chunkSize: Int = streamChunkSize,
                       to sink: ([UInt8]) throws(ICalError) -> Void) throws(ICalError) -> Int {
        var out: [UInt8] = []
        out.reserveCapacity(chunkSize + 4096)
        var writer = ListingWriter(formatter: self, format: format)
        writer.begin(to: &out)
        var written = 0
        while limit.map({ written < $0 }) ?? true, let match = stream.next() {
            writer.append(match, to: &out)
            written += 1
            if out.count >= chunkSize {
                try sink(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        writer.finish(to: &out)
        try sink(out)
        stream.drain()
        return written
    }

    /// Writes a query's matches as they come as the VCALENDAR ``calendar(_:)`` makes of
    /// them, in two parts, since its VTIMEZONEs come first but depend on every occurrence:
    /// the occurrences' components and the calendar's end go to `sink` in pieces of about
    /// `chunkSize` bytes, and the returned bytes (the calendar's start and its VTIMEZONEs)
    /// go before them. `ICalWriter().bytes(calendar(matches))` is the returned bytes
    /// followed by what `sink` received.
    ///
    /// With a `limit`, only the first `limit` matches are written; the stream is drained all
    /// the same, so its diagnostics are complete.
    package func writeCalendar(_ stream: OccurrenceQuery.Stream, limit: Int? = nil, chunkSize: Int = streamChunkSize,
                               to sink: ([UInt8]) throws(ICalError) -> Void) throws(ICalError) -> [UInt8] {
        let writer = ICalWriter()
        var needs = TimeZoneExport.Needs()
        var out: [UInt8] = []
        out.reserveCapacity(chunkSize + 4096)
        var written = 0
        while limit.map({ written < $0 }) ?? true, let match = stream.next() {
            let component = item(match)
            needs.add(component)
            writer.append(component, to: &out)
            written += 1
            if out.count >= chunkSize {
                try sink(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        OccurrenceFormatter.append("END:VCALENDAR\r\n", to: &out)
        try sink(out)
        stream.drain()
        // The calendar's start: its lines up to its first component, then the VTIMEZONEs.
        var calendar = Component.calendar(productIdentifier: "-//OpenEventKit//ical query//EN")
        calendar.components = needs.timeZones()
        var opening = writer.bytes(calendar)
        let end = Array("END:VCALENDAR\r\n".utf8)
        opening.removeLast(end.count)
        return opening
    }
}
