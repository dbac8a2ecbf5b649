/// The RFC 5545 INTEGER (§3.3.8) and BOOLEAN (§3.3.2) value grammars.
///
/// libical reads them with `icalvalue_get_integer` and `icalvalue_get_boolean`.
public enum ScalarValue {
    /// Reads an INTEGER: `["+" / "-"] 1*DIGIT` within -2147483648...2147483647.
    public static func integer(iCalendar text: some StringProtocol) -> Int? {
        guard let value = RecurrenceRule.integer(Substring(text), signed: true), (Int(Int32.min)...Int(Int32.max)).contains(value)
        else { return nil }
        return value
    }

    /// Writes an INTEGER: `42`, `-7`.
    public static func integerText(_ value: Int) -> String { String(value) }

    /// Reads a BOOLEAN: `TRUE` or `FALSE`, in any case.
    public static func boolean(iCalendar text: some StringProtocol) -> Bool? {
        switch ASCII.uppercased(String(text)) {
        case "TRUE": return true
        case "FALSE": return false
        default: return nil
        }
    }

    /// Writes a BOOLEAN: `TRUE` or `FALSE`.
    public static func booleanText(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
}
