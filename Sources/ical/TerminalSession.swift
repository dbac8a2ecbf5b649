#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
import Foundation

/// The user's terminal for the trusted helpers (`ical ui ...`): the controlling terminal,
/// `/dev/tty`, never standard input or output, which belong to the app that started the
/// helper. Lines are read in the terminal's own line mode (echo and erase work as usual).
final class TerminalSession {
    /// Why the terminal cannot be used.
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    private let descriptor: Int32
    /// How long to wait for one line before giving up, in seconds.
    let timeout: Double

    /// Opens the controlling terminal. Fails when there is none (a service, CI, `setsid`), or
    /// when this process is not in the terminal's foreground (it would be stopped on reading).
    init(path: String = "/dev/tty", timeout: Double = 600) throws(Unavailable) {
        let descriptor = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Unavailable(description: "no terminal (\(path) cannot be opened: \(String(cString: strerror(errno))))")
        }
        guard isatty(descriptor) == 1 else {
            close(descriptor)
            throw Unavailable(description: "no terminal (\(path) is not a terminal)")
        }
        let foreground = tcgetpgrp(descriptor)
        if foreground >= 0 && foreground != getpgrp() {
            close(descriptor)
            throw Unavailable(description: "not in the terminal's foreground (run the app in the foreground)")
        }
        // Whatever was typed before the form appeared is not an answer to it.
        tcflush(descriptor, TCIFLUSH)
        self.descriptor = descriptor
        self.timeout = timeout
    }

    deinit { close(descriptor) }

    /// Writes text as it is (newlines become CR LF through the terminal's output mode).
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Shows `prompt` and reads one line (without its line end, surrounding spaces removed);
    /// nil at end of file (Ctrl-D), when the terminal hangs up or when the time is up.
    func ask(_ prompt: String) -> String? {
        write(prompt)
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, Double(Int32.max))))
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if ready == 0 { return nil }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return nil
            }
            if count == 0 {
                return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            }
            if byte == 0x0A || byte == 0x0D {
                return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            }
            if bytes.count < 4096 { bytes.append(byte) }
        }
    }
}
