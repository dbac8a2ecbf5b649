#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ical-bench CASE FILE [ARGUMENTS...]   measures one case on one file and prints one key=value line
/// ical-bench list        lists the cases
func usage() -> Never {
    warn("usage: ical-bench CASE FILE [ARGUMENTS...] | ical-bench list")
    warn("cases: " + Cases.all.map(\.name).joined(separator: ", "))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["list"] {
    for benchCase in Cases.all { print("\(benchCase.name)\t\(benchCase.summary)") }
    exit(0)
}
guard arguments.count >= 2, let benchCase = Cases.all.first(where: { $0.name == arguments[0] }) else { usage() }
let path = arguments[1]
guard let bytes = readFile(path) else {
    warn("ical-bench: cannot read \(path): \(String(cString: strerror(errno)))")
    exit(1)
}
do {
    print(try benchCase.run(path, bytes, Array(arguments.dropFirst(2))).line)
} catch {
    warn("ical-bench: \(benchCase.name) failed on \(path): \(error)")
    exit(1)
}
