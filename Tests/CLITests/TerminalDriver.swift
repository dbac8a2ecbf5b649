import Foundation

/// Runs a command on a pseudo-terminal that becomes its controlling terminal (`script`), so
/// that what it opens as /dev/tty is the terminal this driver plays the user on: each step
/// waits until its text appears (after the previous answer) and types a line.
struct TerminalDriver {
    struct Step {
        var waitFor: String
        var type: String
    }

    struct Result {
        var status: Int32
        /// What the user saw (CR LF turned into LF), typed lines included (the terminal echoes them).
        var transcript: String
        /// Steps whose text never appeared.
        var missed: [String]
    }

    /// Runs `command` (a shell command line) with the steps; gives up on a step after 20 s.
    static func run(_ command: String, steps: [Step], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["120", "script", "-qfec", command, "/dev/null"]
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "ICAL_NOW": "2026-11-22T10:00:00"]
            .merging(environment) { $1 }
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()

        let reader = Reader(output.fileHandleForReading)
        var missed: [String] = []
        var offset = 0
        for step in steps {
            if let end = reader.wait(for: step.waitFor, after: offset, timeout: 20) {
                offset = end
            } else {
                missed.append(step.waitFor)
            }
            input.fileHandleForWriting.write(Data((step.type + "\n").utf8))
        }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        reader.finish()
        return Result(status: process.terminationStatus,
                      transcript: reader.text.replacingOccurrences(of: "\r\n", with: "\n"), missed: missed)
    }

    /// Collects the terminal's output on a background thread.
    private final class Reader: @unchecked Sendable {
        private let lock = NSCondition()
        private var bytes: [UInt8] = []
        private var ended = false
        private let thread: Thread

        init(_ handle: FileHandle) {
            let box = Box()
            thread = Thread {
                while true {
                    let data = handle.availableData
                    box.reader?.append(data)
                    if data.isEmpty { break }
                }
            }
            box.reader = self
            thread.start()
        }

        private final class Box: @unchecked Sendable { weak var reader: Reader? }

        private func append(_ data: Data) {
            lock.lock()
            if data.isEmpty { ended = true } else { bytes += data }
            lock.broadcast()
            lock.unlock()
        }

        /// Waits until `text` appears in the output after byte `offset`; returns the output's
        /// length then, or nil when the time is up or the output ended without it.
        func wait(for text: String, after offset: Int, timeout: Double) -> Int? {
            let deadline = Date().addingTimeInterval(timeout)
            lock.lock()
            defer { lock.unlock() }
            while true {
                if String(decoding: bytes[min(offset, bytes.count)...], as: UTF8.self).contains(text) { return bytes.count }
                if ended || !lock.wait(until: deadline) { return nil }
            }
        }

        func finish() {
            let deadline = Date().addingTimeInterval(10)
            lock.lock()
            while !ended && lock.wait(until: deadline) {}
            lock.unlock()
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
