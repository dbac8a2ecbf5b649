import Foundation
import Testing

/// Runs the built `ical` binary with a pinned environment and captures its output.
struct ICalRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `ical` executable built beside this test bundle.
    static let executable: URL = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("ical")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/ical")
    }()

    /// The repository's root folder (for the sample calendars).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `ical` with arguments, optional standard input, in `directory`.
    static func run(_ arguments: [String], stdin: String? = nil, in directory: URL? = nil,
                    environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ical-home-\(UUID().uuidString)")
        process.environment = [
            "TZ": "UTC", "LC_ALL": "C.UTF-8", "COLUMNS": "80", "HOME": home.path,
            "PATH": "/usr/bin:/bin", "ICAL_NOW": "2026-11-22T10:00:00",
        ].merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let (stdoutData, stderrData) = PipeReader.readAll(out.fileHandleForReading, err.fileHandleForReading)
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrData, as: UTF8.self))
    }
}

/// Runs any program with exactly the given environment (without one: this process's),
/// `input` on its standard input (else none), and captures its output (for `make`, `sh`,
/// `setsid` and the like; `ICalRunner.run` runs `ical` itself).
enum ProgramRunner {
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    in directory: URL? = nil, input: String? = nil) throws -> ICalRunner.Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), standardInput = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : standardInput
        try process.run()
        if let input {
            standardInput.fileHandleForWriting.write(Data(input.utf8))
            try standardInput.fileHandleForWriting.close()
        }
        let (stdout, stderr) = PipeReader.readAll(out.fileHandleForReading, err.fileHandleForReading)
        process.waitUntilExit()
        return ICalRunner.Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                                 stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Reads a child's standard output and standard error to their ends.
///
/// Both at once, so that a child that fills one pipe while the other is read does not wait
/// forever; and with reads a signal interrupts retried: Foundation's `readDataToEndOfFile()`
/// traps on `EINTR`, which the `SIGCHLD` of another test's child can cause.
enum PipeReader {
    static func readAll(_ first: FileHandle, _ second: FileHandle) -> (Data, Data) {
        let handles = [first, second]
        var data = [Data(), Data()]
        var open = [true, true]
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var polled = handles.map { pollfd(fd: $0.fileDescriptor, events: Int16(POLLIN), revents: 0) }
        while open[0] || open[1] {
            for index in 0..<2 {
                polled[index].fd = open[index] ? handles[index].fileDescriptor : -1
                polled[index].revents = 0
            }
            if poll(&polled, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in 0..<2 where open[index] && polled[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(polled[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    data[index].append(contentsOf: buffer[0..<count])
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open[index] = false
                }
            }
        }
        return (data[0], data[1])
    }

    /// One pipe to its end.
    static func readAll(_ handle: FileHandle) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }
}

/// A fresh temporary folder, removed by the caller with `remove()`.
struct TemporaryFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ical-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func write(_ name: String, _ text: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
    func remove() { try? FileManager.default.removeItem(at: url) }
}
