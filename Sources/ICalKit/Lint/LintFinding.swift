/// One problem ``Linter`` found: its rule, severity, place and message.
public struct LintFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious the problem is.
    public var severity: Diagnostic.Severity
    /// The check that found it.
    public var rule: LintRule
    /// The file (`<stdin>` for standard input).
    public var file: String
    /// The 1-based line (0 when unknown).
    public var line: Int
    /// The component involved (`VEVENT`), when known.
    public var component: String?
    /// The property involved (`DTSTART`), when known.
    public var property: String?
    /// What is wrong.
    public var message: String

    /// Creates a finding.
    public init(_ severity: Diagnostic.Severity, _ rule: LintRule, file: String, line: Int,
                component: String? = nil, property: String? = nil, message: String) {
        self.severity = severity
        self.rule = rule
        self.file = file
        self.line = line
        self.component = component
        self.property = property
        self.message = message
    }

    /// A reader diagnostic as a finding; its code is the rule.
    public init(_ diagnostic: Diagnostic, file: String) {
        self.init(diagnostic.severity, LintRule(rawValue: diagnostic.code.rawValue), file: diagnostic.file ?? file,
                  line: diagnostic.line, component: diagnostic.component, property: diagnostic.property,
                  message: diagnostic.message)
    }

    /// `FILE:LINE: SEVERITY: [rule] message`, on one line and safe for a terminal (control
    /// characters in the file name or the message show as ``TerminalText`` escapes).
    public var description: String { TerminalText.line("\(file):\(line): \(severity.rawValue): [\(rule)] \(message)") }
}

/// What ``Linter`` found in one file.
public struct LintReport: Sendable, Hashable {
    /// The findings, sorted by line, then in the order the checks ran.
    public var findings: [LintFinding]
    /// The number of components directly inside the file's calendars.
    public var componentCount: Int
    /// Where each UID (with its RECURRENCE-ID and SEQUENCE) is, for finding duplicates
    /// across files (``LintSummary/add(_:)``).
    var identities: [Identity] = []

    /// A component's identity and place.
    struct Identity: Sendable, Hashable {
        var uid: String
        var recurrenceIdentifier: String
        var sequence: Int?
        var file: String
        var line: Int
        var component: String
    }

    /// Creates a report.
    public init(findings: [LintFinding], componentCount: Int) {
        self.findings = findings
        self.componentCount = componentCount
    }

    /// The number of errors.
    public var errorCount: Int { findings.filter { $0.severity == .error }.count }
    /// The number of warnings.
    public var warningCount: Int { findings.filter { $0.severity == .warning }.count }
}
