import ArgumentParser
import Foundation
import ICalKit

/// How leniently inputs are read; shared by every command that reads calendars.
struct ReadingOptions: ParsableArguments {
    @Flag(help: "Treat the first error in an input as fatal instead of reporting it and going on.")
    var strict = false

    /// The reader these options describe.
    var reader: ICalReader { ICalReader(mode: strict ? .strict : .lenient) }
}

/// Where output goes; shared by every command that writes a file.
struct OutputOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp(
        "Write to this file instead of standard output (written atomically).", valueName: "file"))
    var output: String = "-"
}

/// Prints to standard error.
func printError(_ text: String) {
    var standardError = StandardError()
    print(text, to: &standardError)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
