/// A problem found while reading iCalendar data, with its location.
///
/// Diagnostics name the file, the 1-based line where the content line starts (after
/// unfolding, the first physical line), the component and property involved, and a message
/// that says what is wrong and what was done about it.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a problem is.
    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        /// The data was read, perhaps repaired; nothing was lost.
        case warning
        /// A line or a component was lost or could not be read as written.
        case error

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs == .warning && rhs == .error
        }
    }

    /// How serious the problem is.
    public var severity: Severity
    /// What kind of problem it is.
    public var code: ICalError.Code
    /// The file, when the reader was given its name.
    public var file: String?
    /// The 1-based line the problem starts on.
    public var line: Int
    /// The component the problem is in (`VEVENT`), when known.
    public var component: String?
    /// The property the problem is in (`DTSTART`), when known.
    public var property: String?
    /// What is wrong and what was done about it.
    public var message: String

    /// Creates a diagnostic.
    public init(
        _ severity: Severity, _ code: ICalError.Code, line: Int, file: String? = nil,
        component: String? = nil, property: String? = nil, message: String
    ) {
        self.severity = severity
        self.code = code
        self.file = file
        self.line = line
        self.component = component
        self.property = property
        self.message = message
    }

    /// `file:line: error: message [VEVENT DTSTART]`, in the shape compilers use, on one line
    /// and safe for a terminal: the file name and the message may quote untrusted text, so
    /// control characters show as ``TerminalText`` escapes (`\u{1B}`), line feeds included.
    /// The fields themselves keep the exact text.
    public var description: String {
        var text = "\(file ?? "<input>"):\(line): \(severity.rawValue): \(message)"
        switch (component, property) {
        case let (component?, property?): text += " [\(component) \(property)]"
        case let (component?, nil): text += " [\(component)]"
        case let (nil, property?): text += " [\(property)]"
        case (nil, nil): break
        }
        return TerminalText.line(text)
    }
}
