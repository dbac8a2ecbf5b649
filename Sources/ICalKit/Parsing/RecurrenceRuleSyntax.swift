/// The check of RECUR values (RFC 5545 §3.3.10) made while reading, so a rule that
/// cannot be expanded is reported at its line. It reads the rule with
/// ``RecurrenceRule/init(validating:)``, which also asks libical.
enum RecurrenceRuleSyntax {
    /// nil when the rule can be read; otherwise what is wrong.
    static func problem(_ raw: String) -> String? {
        do {
            _ = try RecurrenceRule(validating: raw)
            return nil
        } catch {
            return error.message
        }
    }

    /// The first RFC 5545 rule a readable rule breaks that libical tolerates, if any.
    static func warning(_ raw: String) -> String? {
        RecurrenceRule(iCalendar: raw)?.warnings.first
    }
}
