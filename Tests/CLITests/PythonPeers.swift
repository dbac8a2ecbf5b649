import Foundation
import Testing

/// Python's icalendar and recurring-ical-events, the independent peers the interop tests
/// compare with. They are installed from PyPI into `.build/interop-venv` by the first test
/// that needs them (test-only; never a runtime dependency), retried once.
enum PythonPeers {
    static let venv = ICalRunner.packageRoot.appendingPathComponent(".build/interop-venv")

    /// The venv's python, or why it could not be set up.
    static let python: Result<String, PeerError> = {
        let python = venv.appendingPathComponent("bin/python").path
        if !FileManager.default.isExecutableFile(atPath: python) {
            let created = run("/usr/bin/env", ["python3", "-m", "venv", venv.path])
            guard created.status == 0 else { return .failure(PeerError("python3 -m venv failed: \(created.stderr)")) }
        }
        if run(python, ["-c", "import icalendar, recurring_ical_events"]).status == 0 { return .success(python) }
        for _ in 0..<2 {
            let install = run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                       "icalendar", "recurring-ical-events"])
            if install.status == 0 { return .success(python) }
        }
        return .failure(PeerError("pip could not install icalendar and recurring-ical-events from PyPI"))
    }()

    struct PeerError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs a program and captures its output.
    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return (127, "", "\(error)") }
        let (stdout, stderr) = PipeReader.readAll(out.fileHandleForReading, err.fileHandleForReading)
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}
