/// The text formats a calendar file can be in.
public enum CalendarFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// iCalendar, RFC 5545 (`.ics`).
    case iCalendar = "ics"
    /// jCal, the JSON form of iCalendar, RFC 7265.
    case jCal = "jcal"

    /// The format of some bytes: jCal when the first character that is not white space
    /// (after a byte order mark) is `[`, iCalendar otherwise.
    public static func detect(_ bytes: some Collection<UInt8>) -> CalendarFormat {
        var index = bytes.startIndex
        var skipped = 0
        while index != bytes.endIndex && skipped < 4096 {
            let byte = bytes[index]
            if byte == 0xEF || byte == 0xBB || byte == 0xBF || byte == 0x20 || byte == 0x09
                || byte == 0x0A || byte == 0x0D {
                index = bytes.index(after: index)
                skipped += 1
                continue
            }
            return byte == UInt8(ascii: "[") ? .jCal : .iCalendar
        }
        return .iCalendar
    }
}

extension ICalReader {
    /// Reads a file in either format, detected from its content (see
    /// ``CalendarFormat/detect(_:)``). `-` reads standard input.
    ///
    /// jCal is read whole or not at all: a problem in it throws, in either mode.
    public func read(contentsOfFileInAnyFormat path: String) throws(ICalError) -> ReadResult {
        let bytes = try FileIO.readAll(path: path, limit: limits.maxInputSize)
        let name = path == "-" ? "<stdin>" : path
        switch CalendarFormat.detect(bytes) {
        case .iCalendar:
            return try read(bytes, file: name)
        case .jCal:
            do {
                let calendars = try JCalReader(maxInputSize: limits.maxInputSize).read(bytes)
                return ReadResult(calendars: calendars, diagnostics: [])
            } catch {
                var located = error
                if located.file == nil { located.file = name }
                throw located
            }
        }
    }
}
