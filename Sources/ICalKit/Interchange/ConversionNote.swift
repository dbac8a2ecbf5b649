/// Something a conversion changed or found, with its file and line: what
/// ``CalendarRepair`` and ``CalendarSplit`` report, and `ical convert` prints on standard
/// error.
public struct ConversionNote: Sendable, Hashable, CustomStringConvertible {
    /// Whether something was changed, only reported, or stops the conversion.
    public enum Kind: String, Sendable, Hashable {
        /// The data was changed.
        case repaired
        /// A problem that was left as it is.
        case warning
        /// A problem that stops the conversion: nothing is written.
        case error
    }

    /// What happened.
    public var kind: Kind
    /// The file, when known.
    public var file: String?
    /// The 1-based line of the property or component involved (0 when unknown).
    public var line: Int
    /// What was changed, or what is wrong.
    public var message: String

    /// Creates a note.
    public init(_ kind: Kind, file: String?, line: Int, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.message = message
    }

    /// `in.ics:12: repaired: TZID "W. Europe Standard Time" -> "Europe/Berlin"`, on one line
    /// and safe for a terminal (control characters show as ``TerminalText`` escapes).
    public var description: String { TerminalText.line("\(file ?? "<input>"):\(line): \(kind.rawValue): \(message)") }
}
