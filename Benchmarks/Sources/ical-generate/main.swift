#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ical-generate --events N --seed S [--years FROM-TO] -o FILE
/// ical-generate --series N --seed S [--first-year Y] -o FILE
///
/// Writes a reproducible benchmark calendar: the same N and S give the same bytes on
/// every machine. See Benchmarks/README.md for the mix of events; `--series` writes the
/// expansion query's mix of recurring series instead (``SeriesMixGenerator``).
func warn(_ message: String) {
    var text = message + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func usage() -> Never {
    warn("usage: ical-generate --events N [--seed S] [--years FROM-TO] -o FILE   (FILE '-' is standard output;")
    warn("       --years: the years of the DTSTARTs, default 2020-2027; one year makes a dense calendar)")
    warn("       ical-generate --series N [--seed S] [--first-year Y] -o FILE   (N endless series, DTSTARTs in year Y,")
    warn("       default 2015: the expansion query's mix, see Benchmarks/README.md)")
    exit(2)
}

var events: Int?
var series: Int?
var firstYear = 2015
var seed: UInt64 = 42
var output: String?
var years = 2020...2027
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--events": events = arguments.popFirst().flatMap { Int($0) }
    case "--series": series = arguments.popFirst().flatMap { Int($0) } ?? { usage() }()
    case "--first-year": firstYear = arguments.popFirst().flatMap { Int($0) } ?? { usage() }()
    case "--seed": seed = arguments.popFirst().flatMap { UInt64($0) } ?? { usage() }()
    case "-o", "--output": output = arguments.popFirst()
    case "--years":
        let bounds = (arguments.popFirst() ?? "").split(separator: "-").compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { usage() }
        years = bounds[0]...bounds[1]
    case "-h", "--help": usage()
    default: warn("ical-generate: unknown argument '\(argument)'"); usage()
    }
}
guard let output, (events != nil) != (series != nil), (events ?? series ?? 0) >= 0, (1...9998).contains(firstYear) else { usage() }

let bytes: [UInt8]
if let series {
    var generator = SeriesMixGenerator(series: series, seed: seed, firstYear: firstYear)
    bytes = generator.generate()
} else {
    var generator = Generator(events: events ?? 0, seed: seed, years: years)
    bytes = generator.generate()
}

let descriptor: Int32 = output == "-" ? 1 : open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
guard descriptor >= 0 else {
    warn("ical-generate: cannot open \(output): \(String(cString: strerror(errno)))")
    exit(1)
}
var offset = 0
while offset < bytes.count {
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
    if written < 0 {
        if errno == EINTR { continue }
        warn("ical-generate: cannot write \(output): \(String(cString: strerror(errno)))")
        exit(1)
    }
    offset += written
}
if descriptor != 1 { close(descriptor) }
