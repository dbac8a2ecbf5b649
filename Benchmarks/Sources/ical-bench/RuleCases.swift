import ICalKit

extension Cases {
    /// The rule-expansion benchmark (`rules RULES.txt`, see Benchmarks/rules/rules.txt): for
    /// each rule, a floating VEVENT with its DTSTART and RRULE is read once (not timed), then
    /// its occurrences from DTSTART to the window end are counted through
    /// `RecurrenceSet.occurrences(in:)` (ICalKit's rule engine, or libical's iterator for
    /// RSCALE rules, with the set's merging and zone reading), in 5 rounds of at least 50 ms;
    /// the median round's time per expansion is printed as `rule=NAME us=… instances=…`, one
    /// line a rule, as libical-rules.c and dateutil_rules.py print theirs.
    static let rules = BenchCase(
        name: "rules",
        summary: "RecurrenceSet.occurrences of each rule of a rules file (rule=NAME us=… instances=…, one line a rule)"
    ) { path, bytes, _ in
        let text = String(decoding: bytes, as: UTF8.self)
        var measured = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.allSatisfy({ $0 == " " }) {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: " \r") }
            guard fields.count == 5, let start = DateTime(iCalendar: fields[2])?.local,
                  let end = DateTime(iCalendar: fields[4])?.local else {
                throw BenchFailure(description: "\(path): cannot read the line '\(line)'")
            }
            let calendarText = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//Bench//EN", "BEGIN:VEVENT",
                                "UID:\(fields[0])", "DTSTAMP:20240101T000000Z", "DTSTART:\(fields[2])",
                                "RRULE:\(fields[3])", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
            let calendar = try ICalReader().read(calendarText).calendars[0]
            guard let set = RecurrenceSet.sets(in: calendar, zoneLookup: { _ in nil }).first else {
                throw BenchFailure(description: "\(path): no series for '\(fields[0])'")
            }
            let window = start.secondsSinceEpoch..<end.secondsSinceEpoch
            let budget = ExpansionBudget(maximumOccurrences: 1_000_000, maximumIteratorSteps: 1_000_000)
            func expand() -> Int {
                var count = 0
                var iterator = set.occurrences(in: window, budget: budget).makeIterator()
                while iterator.next() != nil { count += 1 }
                return count
            }
            var rounds: [Double] = []
            var instances = 0
            for _ in 0..<5 {
                let roundStart = nowMilliseconds()
                var expansions = 0
                repeat {
                    instances = expand()
                    expansions += 1
                } while nowMilliseconds() - roundStart < 50
                rounds.append((nowMilliseconds() - roundStart) * 1000 / Double(expansions))
            }
            rounds.sort()
            print("rule=\(fields[0]) us=\(Double(Int((rounds[2] * 100).rounded())) / 100) instances=\(instances)")
            measured += 1
        }
        var measurement = Measurement()
        measurement.set("rules", measured)
        measurement.recordPeakMemory()
        return measurement
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        var slice = self[...]
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
