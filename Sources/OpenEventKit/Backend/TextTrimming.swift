import Foundation

extension String {
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, with the same result, for text read
    /// from the store and from manifests.
    ///
    /// Text whose first and last characters after the trimmed ASCII white space (tab, line
    /// feed, vertical tab, form feed, carriage return, space: all in the set) are printable
    /// ASCII (none in the set) is trimmed here, without Foundation: its first
    /// `trimmingCharacters` goes through NSString and costs about a million instructions of
    /// type-metadata lookups, a sixth of a warm query of a 1,000-event store. Any other text
    /// (a non-ASCII or control character at either end) is left to Foundation.
    package func trimmingWhitespaceAndNewlines() -> String {
        let utf8 = self.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        func isPrintable(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
        var start = utf8.startIndex
        while start < utf8.endIndex, isSpace(utf8[start]) { start = utf8.index(after: start) }
        if start == utf8.endIndex { return "" }
        var last = utf8.index(before: utf8.endIndex)
        while isSpace(utf8[last]) { last = utf8.index(before: last) }   // stops at `start` at the latest
        guard isPrintable(utf8[start]), isPrintable(utf8[last]) else {
            return trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let end = utf8.index(after: last)
        if start == utf8.startIndex && end == utf8.endIndex { return self }
        return String(self[start..<end])
    }
}
