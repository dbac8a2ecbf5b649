internal import CLibical
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Libical {
    /// nil when libical's `icalrecurrencetype_from_string` reads `text`; otherwise a message.
    ///
    /// libical signals failure only by returning `freq == ICAL_NO_RECURRENCE` (LIBICAL-NOTES
    /// §4); it `strdup`s RSCALE, which is freed here (§3). Checking this while reading means
    /// no rule ICalKit accepts fails later inside libical's iterator.
    static func recurrenceRuleProblem(_ text: String) -> String? {
        if text.utf8.contains(0) { return "the rule holds a NUL byte" }
        return withLock { ical -> String? in
            var rule = ical.recurrencetype_from_string(text)
            defer {
                if let scale = rule.rscale {
                    free(scale)
                    rule.rscale = nil
                }
            }
            guard rule.freq != ICAL_NO_RECURRENCE else {
                return "libical's icalrecurrencetype_from_string cannot read '\(text)'"
            }
            return nil
        }
    }

    /// The RSCALE names libical (through ICU) can expand, uppercased; empty when it was
    /// built without RSCALE support. The corresponding libical function is
    /// `icalrecurrencetype_rscale_supported_calendars`.
    static let supportedCalendarScales: Set<String> = withLock { ical in
        guard let array = ical.recurrencetype_rscale_supported_calendars() else { return [] }
        defer { ical.array_free(array) }
        var names = Set<String>()
        for index in 0..<array.pointee.num_elements {
            guard let element = ical.array_element_at(array, index) else { continue }
            let name = element.assumingMemoryBound(to: UnsafePointer<CChar>?.self).pointee
            if let name { names.insert(ASCII.uppercased(String(cString: name))) }
        }
        return names
    }
}
