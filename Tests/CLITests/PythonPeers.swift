import Foundation
import Testing

/// Python's icalendar and recurring-ical-events, the independent peers the interop tests
/// compare with. They are installed from PyPI into `.build/interop-venv` by the first test
/// that needs them (test-only; never a runtime dependency), retried once, at pinned versions:
/// the differences the interop tests document (docs/alarms-interop.md) are those of these
/// versions, so a new release is taken on purpose, by changing `pins`, not by a fresh machine.
enum PythonPeers {
    static let venv = ICalRunner.packageRoot.appendingPathComponent(".build/interop-venv")

    /// The distributions and versions installed; x-wr-timezone is what recurring-ical-events
    /// 3.8.2 resolved to.
    static let pins: KeyValuePairs<String, String> = [
        "icalendar": "7.3.2", "recurring-ical-events": "3.8.2", "x-wr-timezone": "2.0.1",
    ]

    /// The venv's python, or why it could not be set up.
    static let python: Result<String, PeerError> = {
        let python = venv.appendingPathComponent("bin/python").path
        if !FileManager.default.isExecutableFile(atPath: python) {
            let created = run("/usr/bin/env", ["python3", "-m", "venv", venv.path])
            guard created.status == 0 else { return .failure(PeerError("python3 -m venv failed: \(created.stderr)")) }
        }
        if hasPinnedVersions(python) { return .success(python) }
        let requirements = pins.map { "\($0.key)==\($0.value)" }
        for _ in 0..<2 {
            let install = run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + requirements)
            if install.status == 0 && hasPinnedVersions(python) { return .success(python) }
        }
        return .failure(PeerError("pip could not install \(requirements.joined(separator: " ")) from PyPI"))
    }()

    /// Whether the venv holds exactly the pinned versions (and they import), so that pip is
    /// skipped only when the peers are the ones the documented differences were found with.
    private static func hasPinnedVersions(_ python: String) -> Bool {
        let expected = pins.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let script = """
            import sys, importlib.metadata, icalendar, recurring_ical_events
            print(" ".join(f"{name}={importlib.metadata.version(name)}" for name in sys.argv[1:]))
            """
        let check = run(python, ["-c", script] + pins.map(\.key))
        return check.status == 0 && check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected
    }

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
