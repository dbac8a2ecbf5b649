import Foundation
import Testing

@Suite struct HelpAndCompletionTests {
    @Test(arguments: [["--help"], ["validate", "--help"], ["convert", "--help"]])
    func everyHelpHasExamples(arguments: [String]) throws {
        let output = try ICalRunner.run(arguments)
        #expect(output.status == 0)
        #expect(output.stdout.contains("Examples:"))
        #expect(output.stdout.contains("  ical "))
    }

    /// The whole help screens, compared with Tests/CLITests/Expected/ (regenerate with
    /// `COLUMNS=80 .build/debug/ical validate --help > Tests/CLITests/Expected/validate-help.txt`).
    @Test(arguments: ["validate", "convert"])
    func helpIsGolden(command: String) throws {
        let expected = ICalRunner.packageRoot.appendingPathComponent("Tests/CLITests/Expected/\(command)-help.txt")
        let output = try ICalRunner.run([command, "--help"])
        #expect(output.status == 0)
        #expect(output.stdout == (try String(contentsOf: expected, encoding: .utf8)))
    }

    @Test func convertHelpDocumentsTheNewOptions() throws {
        let output = try ICalRunner.run(["convert", "--help"])
        for text in ["--to <to>", "(values: ics, jcal, json, csv", "--repair", "--split <folder>", "--stamp <date-time>",
                     "RFC 4180", "X-WR-TIMEZONE"] {
            #expect(output.stdout.contains(text), "\(text)")
        }
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScripts(shell: String) throws {
        let output = try ICalRunner.run(["--generate-completion-script", shell])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("convert"))
        #expect(output.stdout.contains("validate"))
        #expect(output.stdout.contains("split"))
        #expect(output.stdout.contains("jcal"))
    }

    @Test func bashCompletionScriptIsValidBash() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let script = try ICalRunner.run(["--generate-completion-script", "bash"]).stdout
        let path = try folder.write("ical.bash", script)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-n", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
