import ArgumentParser
import Foundation
import ICalKit

/// How leniently inputs are read; shared by every command that reads calendars.
struct ReadingOptions: ParsableArguments {
    @Flag(help: "Stop at the first problem in an input, warnings included, instead of reporting it and going on; nothing is written.")
    var strict = false

    @Option(help: ArgumentHelp(
        "Memory for what a streamed read keeps besides the component it reads (K, M, G); past it, temporary files.",
        valueName: "size"))
    var memory: MemoryBudget = .default

    /// The reader these options describe.
    var reader: ICalReader { ICalReader(mode: strict ? .strict : .lenient) }

    /// Reads one input (iCalendar or jCal) and prints its diagnostics on standard error.
    /// Under --strict any diagnostic, a warning too, stops the command with exit status 1
    /// before anything is written; so does an input that cannot be read at all.
    func read(_ path: String) throws -> ReadResult {
        let result: ReadResult
        do { result = try reader.read(contentsOfFileInAnyFormat: path) } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
        try report(result.diagnostics, of: path)
        return result
    }

    /// Prints the diagnostics of one input on standard error; under --strict any of them
    /// stops the command with exit status 1 (as ``read(_:)``).
    func report(_ diagnostics: [Diagnostic], of path: String) throws {
        diagnostics.forEach { printError($0.description) }
        if strict, !diagnostics.isEmpty {
            printError("ical: --strict: \(path == "-" ? "<stdin>" : path) has \(diagnostics.count) problem\(diagnostics.count == 1 ? "" : "s"); nothing written")
            throw ExitCode(1)
        }
    }
}

extension MemoryBudget: ExpressibleByArgument {
    /// Reads `--memory`'s value (`512M`, `2G`); nil (ArgumentParser's error, exit status 2)
    /// for anything else.
    public init?(argument: String) {
        guard let budget = try? MemoryBudget(parsing: argument) else { return nil }
        self = budget
    }

    /// The default as help shows it (`512M`).
    public var defaultValueDescription: String { description }
}

/// Where output goes; shared by every command that writes a file.
struct OutputOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp(
        "Write to this file instead of standard output (written atomically).", valueName: "file"))
    var output: String = "-"
}

/// Prints to standard error, safe for a terminal: control characters other than line feeds
/// and tabs show as ``TerminalText`` escapes (`\u{1B}`). Values that could hold a line feed
/// of their own (a title, a usage string) are passed through `TerminalText.line` by the
/// caller, so they cannot start a line that looks like another message.
func printError(_ text: String) {
    var standardError = StandardError()
    print(TerminalText.lines(text), to: &standardError)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
