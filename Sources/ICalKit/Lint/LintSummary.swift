/// The findings of a whole `ical validate` run: every file's findings and the counts, as
/// the summary line or as JSON for tools.
public struct LintSummary: Sendable, Hashable {
    /// The number of files checked.
    public var fileCount: Int = 0
    /// The number of components directly inside their calendars.
    public var componentCount: Int = 0
    /// Every finding, file by file.
    public var findings: [LintFinding] = []
    /// Errors that are not findings: inputs that could not be read at all (reported
    /// by the caller). They count in ``errorCount``.
    public var unreadableCount: Int = 0

    /// Creates an empty summary.
    public init() {}

    /// Adds a file's report.
    public mutating func add(_ report: LintReport) {
        fileCount += 1
        componentCount += report.componentCount
        findings += report.findings
    }

    /// The number of errors.
    public var errorCount: Int { findings.filter { $0.severity == .error }.count + unreadableCount }
    /// The number of warnings.
    public var warningCount: Int { findings.filter { $0.severity == .warning }.count }

    /// `3 files, 10 components: 0 errors, 1 warning`.
    public var line: String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        return "\(count(fileCount, "file")), \(count(componentCount, "component")): "
            + "\(count(errorCount, "error")), \(count(warningCount, "warning"))"
    }

    /// The summary as one JSON object, members in this order:
    ///
    /// ```json
    /// {"files":1,"components":2,"errors":1,"warnings":0,
    ///  "findings":[{"file":"a.ics","line":5,"severity":"error","rule":"missing-uid",
    ///               "component":"VEVENT","property":null,"message":"VEVENT has no UID"}]}
    /// ```
    ///
    /// With `pretty`, each finding is on its own line. The text ends with a newline.
    public func json(pretty: Bool = false) -> String {
        let findingTexts = findings.map { finding in
            JCalJSON.object([
                .init(key: "file", value: .string(finding.file)),
                .init(key: "line", value: .number(String(finding.line))),
                .init(key: "severity", value: .string(finding.severity.rawValue)),
                .init(key: "rule", value: .string(finding.rule.rawValue)),
                .init(key: "component", value: finding.component.map(JCalJSON.string) ?? .null),
                .init(key: "property", value: finding.property.map(JCalJSON.string) ?? .null),
                .init(key: "message", value: .string(finding.message)),
            ]).serialized(pretty: pretty)
        }
        let head = "{\"files\":\(fileCount),\"components\":\(componentCount),\"errors\":\(errorCount),"
            + "\"warnings\":\(warningCount),\"findings\":"
        if pretty && !findingTexts.isEmpty {
            return head + "[\n  " + findingTexts.joined(separator: ",\n  ") + "\n]}\n"
        }
        return head + "[" + findingTexts.joined(separator: ",") + "]}\n"
    }
}
