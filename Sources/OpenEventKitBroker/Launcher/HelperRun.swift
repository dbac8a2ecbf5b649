import Foundation

/// Runs one OpenEventKitUI helper for a sandboxed app: `ical` with the arguments the broker
/// checked, unsandboxed (it is trusted, with full access), on the launcher's terminal; the
/// app's input on its standard input, its standard output collected for the app.
enum HelperRun {
    /// The most output a helper may return, in bytes.
    static let maximumOutput = 1 << 20

    static func run(_ ical: String, _ arguments: [String], input: Data, environment: [String: String])
        -> (output: String, status: Int?, signal: Int?) {
        var inputPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
        guard pipe(&inputPipe) == 0 else { return ("", 1, nil) }
        guard pipe(&outputPipe) == 0 else { close(inputPipe[0]); close(inputPipe[1]); return ("", 1, nil) }
        for end in inputPipe + outputPipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        let all = [ical] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = all.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environ: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in environ { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, ical, &actions, nil, &argv, &environ)
        close(inputPipe[0]); close(outputPipe[1])
        guard spawned == 0 else {
            close(inputPipe[1]); close(outputPipe[0])
            return ("", 1, nil)
        }
        let bytes = [UInt8](input)
        let writer = inputPipe[1]
        Thread.detachNewThread {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(writer, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 { if errno == EINTR { continue }; break }
                offset += written
            }
            close(writer)
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(outputPipe[0], &buffer, buffer.count)
            if count < 0 { if errno == EINTR { continue }; break }
            if count == 0 { break }
            if output.count < maximumOutput { output += buffer[..<min(count, maximumOutput - output.count)] }
        }
        close(outputPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        return (String(decoding: output, as: UTF8.self), exited ? Int((status >> 8) & 0xff) : nil, exited ? nil : Int(status & 0x7f))
    }
}
