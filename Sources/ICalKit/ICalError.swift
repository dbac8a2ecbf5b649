/// An error thrown by ICalKit: what went wrong, and where.
///
/// Reading in strict mode throws the first ``Diagnostic`` of severity
/// ``Diagnostic/Severity/error`` as an `ICalError`; lenient reading never throws for
/// content problems and reports them as diagnostics instead.
public struct ICalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, as an open set of codes (new codes never break a `switch`).
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A content line could not be read (no colon, bad name, bad parameter).
        public static let syntax = Code(rawValue: "syntax")
        /// A BEGIN without END, an END without BEGIN, or mismatched names.
        public static let structure = Code(rawValue: "structure")
        /// A property's value is not valid for its type (an impossible date, a bad RRULE).
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// The input is not valid UTF-8 or holds a NUL byte.
        public static let encoding = Code(rawValue: "encoding")
        /// A limit on size, line length, nesting depth or property count was hit.
        public static let limitExceeded = Code(rawValue: "limit-exceeded")
        /// The input holds no calendar data at all.
        public static let noCalendarData = Code(rawValue: "no-calendar-data")
        /// A component is not where RFC 5545 allows it, or was wrapped to make it so.
        public static let placement = Code(rawValue: "placement")
        /// A time zone could not be resolved.
        public static let timeZone = Code(rawValue: "time-zone")
        /// A recurrence expansion hit its budget.
        public static let budgetExceeded = Code(rawValue: "budget-exceeded")
        /// A file could not be read or written.
        public static let io = Code(rawValue: "io")
        /// libical reported a failure (the message names the C function).
        public static let libical = Code(rawValue: "libical")
        /// The caller may not read or write this file (a path that leads into a calendar
        /// store the app has no access to).
        public static let notPermitted = Code(rawValue: "not-permitted")
        /// A value given through the API is not valid.
        public static let invalidArgument = Code(rawValue: "invalid-argument")

        /// Matches an error against a code in `catch` and `switch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ICalError)?.code == code
        }
    }

    /// What kind of problem this is.
    public var code: Code
    /// A sentence for a person: what is wrong and, where it helps, what to do.
    public var message: String
    /// The file the problem is in, when there is one.
    public var file: String?
    /// The 1-based line the problem is on, when there is one.
    public var line: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, file: String? = nil, line: Int? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// Creates an error from a diagnostic, keeping its location.
    public init(_ diagnostic: Diagnostic) {
        self.init(diagnostic.code, diagnostic.message, file: diagnostic.file, line: diagnostic.line)
    }

    /// `file:line: message`, with the parts that are known, on one line and safe for a
    /// terminal (control characters show as ``TerminalText`` escapes).
    public var description: String {
        var location = ""
        if let file { location = file }
        if let line { location += location.isEmpty ? "line \(line)" : ":\(line)" }
        return TerminalText.line(location.isEmpty ? message : "\(location): \(message)")
    }
}
