#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
import Foundation
import ICalKit
import OpenEventKit

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

    /// Writes text, safe for the terminal: line feeds and tabs as they are (line feeds become
    /// CR LF through the terminal's output mode), every other control character shown as a
    /// TerminalText escape (`\u{1B}`). Values from the store are passed through
    /// `TerminalText.line` by the caller, so they stay on their line.
    func write(_ text: String) {
        TerminalIO.write(TerminalText.lines(text), to: descriptor)
    }

    /// Shows `prompt` and reads one line (without its line end, surrounding spaces removed);
    /// nil at end of file (Ctrl-D), when the terminal hangs up or when the time is up.
    func ask(_ prompt: String) -> String? {
        write(prompt)
        return TerminalIO.readLine(from: descriptor, timeout: timeout, limit: 4096)?.trimmingCharacters(in: .whitespaces)
    }

    /// ``ask(_:)`` without echo, for a password: the line as typed (spaces kept), and the
    /// terminal's echo restored afterwards whatever happens.
    func askSecret(_ prompt: String) -> String? {
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(descriptor, TCSAFLUSH, &silent)
        defer {
            tcsetattr(descriptor, TCSAFLUSH, &original)
            write("\n")
        }
        write(prompt)
        return TerminalIO.readLine(from: descriptor, timeout: timeout, limit: 4096)
    }
}
