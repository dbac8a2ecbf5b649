// The round-trip property that fuzzing checks, over ICalKit's public API:
//
//   read the input leniently; if it holds calendars, write them, read the output again,
//   and require the same tree with no error diagnostic from the second read, and the same
//   bytes when that tree is written again. Reading strictly must throw exactly lenient
//   mode's first error, or give the same result when there is none.
//
// Built with `-DFUZZING` (scripts/fuzz.sh) the entry point is libFuzzer's
// `LLVMFuzzerTestOneInput`; otherwise a `main` replays the files (or folders of files)
// given as arguments through the same check, so `swift build` keeps this target compiling
// and a finding can be replayed without the sanitizers.
import ICalKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum RoundTripCheck {
    /// A violation of the round-trip property, described for a person.
    struct Violation: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs the check on one input; returns the violation instead of trapping.
    static func run(_ bytes: UnsafeRawBufferPointer) -> Violation? {
        let reader = ICalReader(mode: .lenient)
        let first: ReadResult
        do { first = try reader.read(bytes) } catch {
            return Violation(description: "lenient read threw: \(error)")
        }
        // Strict mode throws exactly the first error lenient mode reports, or reads the same.
        do {
            let strict = try ICalReader(mode: .strict).read(bytes)
            if let error = first.errors.first {
                return Violation(description: "strict mode did not throw the first error: \(error)")
            }
            if strict != first { return Violation(description: "strict mode read differently without an error") }
        } catch {
            guard let expected = first.errors.first, ICalError(expected) == error else {
                return Violation(description: "strict mode threw \(error), lenient mode's first error is \(String(describing: first.errors.first))")
            }
        }
        guard !first.calendars.isEmpty else { return nil }
        let written = ICalWriter().bytes(first.calendars)
        let second: ReadResult
        do { second = try reader.read(written) } catch {
            return Violation(description: "lenient read of the written output threw: \(error)")
        }
        if let error = second.errors.first {
            return Violation(description: "reading the written output gave an error: \(error)\n"
                + "output:\n\(String(decoding: written, as: UTF8.self))")
        }
        guard second.calendars == first.calendars else {
            return Violation(description: "the tree changed in a write and read round trip\n"
                + "first: \(first.calendars)\nsecond: \(second.calendars)\n"
                + "output:\n\(String(decoding: written, as: UTF8.self))")
        }
        // String equality is canonical equivalence; the bytes must not change either.
        let rewritten = ICalWriter().bytes(second.calendars)
        guard rewritten == written else {
            return Violation(description: "writing the re-read tree gave different bytes\n"
                + "first output:\n\(String(decoding: written, as: UTF8.self))\n"
                + "second output:\n\(String(decoding: rewritten, as: UTF8.self))")
        }
        return nil
    }

    /// Runs the check and traps on a violation: a trap is what a fuzzer reports.
    static func enforce(_ bytes: UnsafeRawBufferPointer) {
        if let violation = run(bytes) {
            printToStandardError("ICalFuzz: round-trip violation: \(violation)\n")
            abort()
        }
    }
}

/// Writes a message to standard error (fd 2; the C `stderr` variable is not Sendable).
func printToStandardError(_ message: String) {
    let bytes = Array(message.utf8)
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}

#if FUZZING

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    RoundTripCheck.enforce(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// libFuzzer's driver: `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*)(const uint8_t *, size_t))`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The process entry point. SwiftPM links executables with `main` defined as
/// `<Target>_main` (so tests can link them), which keeps libFuzzer's own `main` out;
/// this hands control to libFuzzer's driver instead.
@_cdecl("ICalFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzTestOneInput(data, size) }
}

#else

@main
enum ICalFuzz {
    static func main() {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            printToStandardError("usage: ICalFuzz FILE-OR-FOLDER...  (replays inputs through the round-trip check)\n")
            exit(2)
        }
        var checked = 0
        var failed = 0
        for path in paths {
            for file in files(at: path) {
                guard let bytes = contents(of: file) else {
                    printToStandardError("ICalFuzz: cannot read \(file)\n")
                    failed += 1
                    continue
                }
                checked += 1
                if let violation = bytes.withUnsafeBytes({ RoundTripCheck.run($0) }) {
                    failed += 1
                    printToStandardError("\(file): \(violation)\n")
                }
            }
        }
        print("ICalFuzz: \(checked) inputs checked, \(failed) failed")
        exit(failed == 0 ? 0 : 1)
    }

    /// The regular files at `path`: the file itself, or a folder's files (recursively).
    static func files(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var result: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            result += files(at: path + "/" + name)
        }
        return result.sorted()
    }

    static func contents(of path: String) -> [UInt8]? {
        guard let handle = fopen(path, "rb") else { return nil }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
            if count > 0 { bytes += chunk[0..<count] }
            if count < chunk.count { return ferror(handle) == 0 ? bytes : nil }
        }
    }
}

#endif
