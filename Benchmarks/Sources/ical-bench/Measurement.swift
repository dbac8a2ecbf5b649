#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one benchmark case measured, printed as one line of `key=value` pairs: the format
/// every contender in Benchmarks/ prints (libical-parse.c and icalendar_parse.py too), so
/// run.sh reads them all the same way. Times are milliseconds of CLOCK_MONOTONIC wall
/// time; `peak_rss_kib` is getrusage's ru_maxrss for the whole process.
struct Measurement {
    private(set) var fields: [(key: String, value: String)] = []

    mutating func set(_ key: String, _ value: String) {
        if let index = fields.firstIndex(where: { $0.key == key }) {
            fields[index].value = value
        } else {
            fields.append((key, value))
        }
    }

    mutating func set(_ key: String, milliseconds: Double) {
        set(key, String(Double(Int((milliseconds * 1000).rounded())) / 1000))
    }

    mutating func set(_ key: String, _ value: Int) { set(key, String(value)) }

    /// Adds the process's peak resident set size so far.
    mutating func recordPeakMemory() {
        var usage = rusage()
        getrusage(RUSAGE_SELF_WHO, &usage)
        set("peak_rss_kib", Int(usage.ru_maxrss))
    }

    var line: String { fields.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}

#if canImport(Glibc)
private let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
private let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif

/// `BENCH_CLOCK=cpu` measures the process's CPU time instead of wall time: steadier on a
/// shared machine while developing (the committed tables use wall time).
private let clockID = getenv("BENCH_CLOCK").map { String(cString: $0) == "cpu" } == true
    ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC

/// Monotonic wall clock (or CPU time, see above), in milliseconds.
func nowMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(clockID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

/// Runs `body` and returns its result and how long it took.
@inline(never)
func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = nowMilliseconds()
    let result = try body()
    return (result, nowMilliseconds() - start)
}

/// Reads a whole file into memory (not timed by any case).
func readFile(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    let size = Int(info.st_size)
    var bytes = [UInt8](repeating: 0, count: size)
    var offset = 0
    while offset < size {
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + offset, size - offset) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return nil }
        offset += count
    }
    return bytes
}

func warn(_ message: String) {
    var text = message + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
