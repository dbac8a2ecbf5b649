import ICalKit

/// One thing `ical-bench` can measure. Each case runs in a process of its own (run.sh
/// starts one per measurement), so `peak_rss_kib` belongs to that case alone.
///
/// To add a figure (expansion, the store), add a case here and a line for it in run.sh's
/// contender list; see Benchmarks/README.md.
struct BenchCase: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (_ path: String, _ bytes: [UInt8], _ arguments: [String]) throws -> Measurement
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

enum Cases {
    static let all: [BenchCase] = [read, write, expand, rules]

    /// ICalReader over the whole file: `parse_ms`.
    static let read = BenchCase(name: "read", summary: "ICalReader().read of the whole file (parse_ms)") { path, bytes, _ in
        let (result, milliseconds) = try timed { () throws(ICalError) -> ReadResult in
            try ICalReader().read(bytes, file: path)
        }
        var measurement = Measurement()
        measurement.set("parse_ms", milliseconds: milliseconds)
        measurement.recordPeakMemory()
        measurement.set("input_bytes", bytes.count)
        measurement.set("events", result.calendars.reduce(0) { $0 + events(in: $1) })
        measurement.set("errors", result.errors.count)
        return measurement
    }

    /// ICalWriter of the tree read (untimed) from the file: `write_ms`. The peak memory
    /// includes the input, the tree and the output, as libical-parse's does.
    static let write = BenchCase(name: "write", summary: "ICalWriter().bytes of the tree read from the file (write_ms)") { path, bytes, _ in
        let result = try ICalReader().read(bytes, file: path)
        let (output, milliseconds) = timed { ICalWriter().bytes(result.calendars) }
        var measurement = Measurement()
        measurement.set("write_ms", milliseconds: milliseconds)
        measurement.recordPeakMemory()
        measurement.set("input_bytes", bytes.count)
        measurement.set("output_bytes", output.count)
        measurement.set("events", result.calendars.reduce(0) { $0 + events(in: $1) })
        // Canonical input (what ical-generate writes) must come back byte for byte.
        measurement.set("round_trip", output == bytes ? "identical" : "differs")
        return measurement
    }

    /// OccurrenceQuery over the tree read from the file (`parse_ms`, timed on its own), for
    /// two windows given as Unix seconds (`expand FILE MONTH_START MONTH_END YEAR_START
    /// YEAR_END`): `month_ms` and `year_ms` time `OccurrenceQuery.run` (zone resolution,
    /// grouping by UID, expansion of every series, sorting), with UTC as the floating zone
    /// and VEVENTs only, as the C floor and the Python peer count them.
    static let expand = BenchCase(
        name: "expand",
        summary: "OccurrenceQuery.run over two windows (MONTH_START MONTH_END YEAR_START YEAR_END, Unix seconds): month_ms, year_ms"
    ) { path, bytes, arguments in
        let bounds = arguments.compactMap { Int64($0) }
        guard bounds.count == 4, bounds[0] < bounds[1], bounds[2] < bounds[3] else {
            throw BenchFailure(description: "expand needs MONTH_START MONTH_END YEAR_START YEAR_END (Unix seconds)")
        }
        let (result, parseMilliseconds) = try timed { () throws(ICalError) -> ReadResult in
            try ICalReader().read(bytes, file: path)
        }
        var measurement = Measurement()
        measurement.set("parse_ms", milliseconds: parseMilliseconds)
        let sources = result.calendars.map { OccurrenceQuery.Source(calendar: $0, name: path) }
        for (name, window) in [("month", bounds[0]..<bounds[1]), ("year", bounds[2]..<bounds[3])] {
            let query = OccurrenceQuery(window: window, floatingZone: FixedOffsetZone.utc, kinds: [.event])
            let (found, milliseconds) = timed { query.run(sources) }
            measurement.set("\(name)_ms", milliseconds: milliseconds)
            measurement.set("\(name)_occurrences", found.matches.count)
            measurement.set("\(name)_recurring", found.matches.filter(\.isRecurring).count)
            measurement.set("\(name)_overrides", found.matches.filter(\.occurrence.isOverride).count)
            measurement.set("\(name)_diagnostics", found.diagnostics.count)
        }
        measurement.recordPeakMemory()
        measurement.set("input_bytes", bytes.count)
        measurement.set("events", result.calendars.reduce(0) { $0 + events(in: $1) })
        measurement.set("errors", result.errors.count)
        return measurement
    }

    private static func events(in component: Component) -> Int {
        component.components.reduce(component.matches(.event) ? 1 : 0) { $0 + events(in: $1) }
    }
}
