import ICalKit

/// One thing `ical-bench` can measure. Each case runs in a process of its own (run.sh
/// starts one per measurement), so `peak_rss_kib` belongs to that case alone.
///
/// To add a figure (expansion, the store), add a case here and a line for it in run.sh's
/// contender list; see Benchmarks/README.md.
struct BenchCase: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (_ path: String, _ bytes: [UInt8]) throws -> Measurement
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

enum Cases {
    static let all: [BenchCase] = [read, write]

    /// ICalReader over the whole file: `parse_ms`.
    static let read = BenchCase(name: "read", summary: "ICalReader().read of the whole file (parse_ms)") { path, bytes in
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
    static let write = BenchCase(name: "write", summary: "ICalWriter().bytes of the tree read from the file (write_ms)") { path, bytes in
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

    private static func events(in component: Component) -> Int {
        component.components.reduce(component.matches(.event) ? 1 : 0) { $0 + events(in: $1) }
    }
}
