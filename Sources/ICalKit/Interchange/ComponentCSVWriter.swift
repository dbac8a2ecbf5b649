/// Writes events, to-dos and journals as CSV for spreadsheets: the output of
/// `ical convert --to csv`.
///
/// A header row, then one row per VEVENT, VTODO and VJOURNAL in input order, with the
/// columns in ``columns``. Times are ISO 8601 as ``ComponentSummary`` describes; all-day is
/// `true` or `false`; categories are joined with `,`. Quoting follows RFC 4180: rows end
/// with CRLF, a field containing a comma, a double quote, CR or LF is enclosed in double
/// quotes, and double quotes inside it are doubled. Text is UTF-8 without a byte order mark.
///
/// Every cell is the calendar's text exactly, control characters included, and cells that
/// start with `=`, `+`, `-` or `@` are not guarded against spreadsheet formulas (OWASP's
/// `'` prefix): the CSV is data for programs, a prefix would change values such as `-5` or
/// `@home`, and it does not protect every spreadsheet. Open CSV made from untrusted calendars
/// in a spreadsheet with care, or import it as text. See <doc:TerminalText>.
public struct ComponentCSVWriter: Sendable {
    /// The header row.
    public static let columns = ["uid", "summary", "start", "end", "all-day", "time zone", "location",
                                 "description", "rrule", "status", "categories"]

    /// Creates a writer.
    public init() {}

    /// The CSV text for the components of the calendars.
    public func string(_ calendars: [Component]) -> String {
        string(ComponentSummary.summaries(of: calendars))
    }

    /// The CSV text for summaries.
    public func string(_ summaries: [ComponentSummary]) -> String {
        ([Self.headerRow] + summaries.map(row)).joined()
    }

    /// The header row, with its CRLF.
    public static var headerRow: String { row(columns) }

    /// One summary's row, with its CRLF: ``headerRow`` and then each summary's row make
    /// the text ``string(_:)`` gives, one summary at a time (what `ical convert --to csv`
    /// writes a file of any size with).
    public func row(_ summary: ComponentSummary) -> String {
        Self.row([
            summary.uid ?? "", summary.summary ?? "", summary.start ?? "", summary.end ?? "",
            summary.allDay ? "true" : "false", summary.timeZone ?? "", summary.location ?? "",
            summary.description ?? "", summary.recurrenceRule ?? "", summary.status ?? "",
            summary.categories.joined(separator: ","),
        ])
    }

    /// Writes the CSV atomically to a file, or to standard output for `-`.
    public func write(_ calendars: [Component], toFile path: String) throws(ICalError) {
        try FileIO.writeAtomically(Array(string(calendars).utf8), to: path)
    }

    /// One RFC 4180 record with its CRLF.
    static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// One RFC 4180 field, quoted when it holds a comma, a quote, CR or LF.
    static func field(_ text: String) -> String {
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
