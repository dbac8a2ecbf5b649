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

    /// Where each UID was first seen in an earlier file, by UID and RECURRENCE-ID.
    private var seen: [String: [LintReport.Identity]] = [:]

    /// Adds a file's report, and a ``LintRule/duplicateUID`` warning for each UID (with
    /// its RECURRENCE-ID) that an earlier file of this run already has with the same
    /// SEQUENCE (or none): a vdir collection must hold each item once.
    public mutating func add(_ report: LintReport) {
        fileCount += 1
        componentCount += report.componentCount
        findings += report.findings
        var added: [String: [LintReport.Identity]] = [:]
        for identity in report.identities {
            let key = identity.uid + "\u{0}" + identity.recurrenceIdentifier
            if let earlier = seen[key]?.first(where: { $0.sequence == identity.sequence }) {
                let recurrence = identity.recurrenceIdentifier.isEmpty ? "" : " and RECURRENCE-ID \(identity.recurrenceIdentifier)"
                let sequence = identity.sequence.map { "the same SEQUENCE \($0)" } ?? "no SEQUENCE"
                findings.append(LintFinding(.warning, .duplicateUID, file: identity.file, line: identity.line,
                    component: identity.component, property: "UID",
                    message: "UID \"\(identity.uid)\"\(recurrence) is also in \(earlier.file):\(earlier.line) with "
                        + "\(sequence); programs keep either one"))
            }
            added[key, default: []].append(identity)
        }
        for (key, identities) in added { seen[key, default: []] += identities }
    }

    /// The number of errors.
    public var errorCount: Int { findings.filter { $0.severity == .error }.count + unreadableCount }
    /// The number of warnings.
    public var warningCount: Int { findings.filter { $0.severity == .warning }.count }

    /// `3 files, 10 components: 0 errors, 1 warning`.
    public var line: String {
        Self.line(files: fileCount, components: componentCount, errors: errorCount, warnings: warningCount)
    }

    /// The summary line for these counts.
    static func line(files: Int, components: Int, errors: Int, warnings: Int) -> String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        return "\(count(files, "file")), \(count(components, "component")): "
            + "\(count(errors, "error")), \(count(warnings, "warning"))"
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
        let findingTexts = findings.map { Self.json($0, pretty: pretty) }
        let head = Self.jsonHead(files: fileCount, components: componentCount, errors: errorCount, warnings: warningCount)
        if pretty && !findingTexts.isEmpty {
            return head + "[\n  " + findingTexts.joined(separator: ",\n  ") + "\n]}\n"
        }
        return head + "[" + findingTexts.joined(separator: ",") + "]}\n"
    }

    /// What ``json(pretty:)`` writes before the findings' array.
    public static func jsonHead(files: Int, components: Int, errors: Int, warnings: Int) -> String {
        "{\"files\":\(files),\"components\":\(components),\"errors\":\(errors),"
            + "\"warnings\":\(warnings),\"findings\":"
    }

    /// One finding as ``json(pretty:)`` writes it.
    public static func json(_ finding: LintFinding, pretty: Bool = false) -> String {
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
}
