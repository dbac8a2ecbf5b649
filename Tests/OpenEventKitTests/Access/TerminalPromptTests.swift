#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import OpenEventKit

// The pseudo-terminal calls of <stdlib.h> that Swift's Glibc module leaves out (they need
// _XOPEN_SOURCE); plain C functions of ints and a pointer, declared by their C names.
@_silgen_name("posix_openpt") private func posixOpenPseudoTerminal(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantPseudoTerminal(_ descriptor: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockPseudoTerminal(_ descriptor: Int32) -> Int32
@_silgen_name("ptsname") private func pseudoTerminalName(_ descriptor: Int32) -> UnsafeMutablePointer<CChar>?

/// The terminal prompt through a real pseudo-terminal: the prompt opens the terminal side by
/// its path as it would open /dev/tty; the test plays the user on the other side.
/// (Tests/CLITests/PrivacyCommandTests.swift runs `ical privacy request` in a child process
/// whose controlling terminal is a pseudo-terminal, through /dev/tty itself.)
@Suite struct TerminalPromptTests {
    /// A pseudo-terminal pair: the test holds the user's side.
    final class PseudoTerminal: @unchecked Sendable {
        let user: Int32
        let path: String
        private(set) var transcript = ""

        init() throws {
            user = posixOpenPseudoTerminal(O_RDWR | O_NOCTTY)
            guard user >= 0, grantPseudoTerminal(user) == 0, unlockPseudoTerminal(user) == 0, let name = pseudoTerminalName(user) else {
                throw AccessError(.io, "cannot open a pseudo-terminal")
            }
            path = String(cString: name)
        }

        private var open = true
        deinit { hangUp() }

        /// Closes the user's side, as when the terminal window is closed.
        func hangUp() {
            if open { close(user) }
            open = false
        }

        /// Reads what the prompt shows until `text` appears (at most 10 seconds).
        func waitFor(_ text: String) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while !transcript.contains(text) {
                guard deadline.timeIntervalSinceNow > 0 else { return false }
                var poller = pollfd(fd: user, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) >= 0 else { return false }
                if poller.revents & Int16(POLLIN) != 0 {
                    var buffer = [UInt8](repeating: 0, count: 1024)
                    let count = read(user, &buffer, buffer.count)
                    if count <= 0 { return false }
                    transcript += String(decoding: buffer[..<count], as: UTF8.self)
                }
            }
            return true
        }

        /// Types a line.
        func type(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(user, $0.baseAddress!, $0.count) }
        }
    }

    /// Runs a request on the controller's own queue (the completion form) while `user` plays
    /// the user on this thread; returns what the completion got.
    private func request(_ request: AccessController.Request, in folder: StoreFolder, terminal: PseudoTerminal,
                         user: (PseudoTerminal) -> Void) throws -> (Bool, AccessController) {
        let access = AccessController(manifest: lessonsManifest(), storeRoot: folder.path,
                                      prompt: TerminalPrompt(path: terminal.path, timeout: 20), clock: { fixedNow })
        let done = DispatchSemaphore(value: 0)
        let result = Collected<Bool>()
        access.request(request) { granted, _ in
            result.append(granted)
            done.signal()
        }
        user(terminal)
        #expect(done.wait(timeout: .now() + 30) == .success)
        return (result.values.first ?? false, access)
    }

    @Test func allowOnTheTerminalGrantsAndRecords() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let terminal = try PseudoTerminal()
        let (granted, access) = try request(.fullAccessToEvents, in: folder, terminal: terminal) { user in
            #expect(user.waitFor("[a/d] "))
            user.type("a")
            #expect(user.waitFor("Allowed."))
        }
        #expect(granted)
        #expect(access.authorizationStatus(for: .event) == .fullAccess)
        #expect(terminal.transcript.contains("""
            Calendar access request\r
              App:    Lessons\r
              ID:     org.example.lessons\r
              Reason: Lessons uses this for NSCalendarsFullAccessUsageDescription.\r
            This app would like full access to your calendar.\r
            Allowing lets it see, change and delete all your events and calendars.\r
            (change it later with `ical privacy`)\r
            Allow or Don't Allow? [a/d]
            """), "\(terminal.transcript)")
    }

    @Test func dontAllowOnTheTerminalDeniesAndRecords() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let terminal = try PseudoTerminal()
        let (granted, access) = try request(.writeOnlyAccessToEvents, in: folder, terminal: terminal) { user in
            #expect(user.waitFor("[a/d] "))
            user.type("perhaps")
            #expect(user.waitFor("Please answer a (Allow) or d (Don't Allow)."))
            user.type("Don’t Allow")
            #expect(user.waitFor("Not allowed."))
        }
        #expect(granted == false)
        #expect(access.authorizationStatus(for: .event) == .denied)
        #expect(terminal.transcript.contains("This app would like to add events to your calendar."))
    }

    @Test func aClosedTerminalIsNoAnswer() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let terminal = try PseudoTerminal()
        let (granted, access) = try request(.fullAccessToReminders, in: folder, terminal: terminal) { user in
            #expect(user.waitFor("[a/d] "))
            user.hangUp()
        }
        #expect(granted == false)
        #expect(access.authorizationStatus(for: .reminder) == .notDetermined)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/.openeventkit/authorizations.json"))
    }

    @Test func noAnswerInTimeIsNoAnswer() throws {
        let terminal = try PseudoTerminal()
        let question = AccessQuestion(kind: .fullAccessToEvents, appName: "Lessons", bundleIdentifier: "org.example.lessons",
                                      usageDescription: "Timetable.", usageKey: .calendarsFullAccess)
        #expect(TerminalPrompt(path: terminal.path, timeout: 0.3).ask(question) == .unanswered)
        #expect(terminal.waitFor("No answer; nothing was decided."))
    }

    @Test func theAppsTextIsShownOnItsOwnLinesNeverSent() {
        let hostile = "\u{1B}[2J\rAllowed.\u{1B}]52;c;aGk=\u{07}\u{9B}31m\u{202E}\u{2066}\u{7F}\u{2028}\t"
        let question = AccessQuestion(kind: .fullAccessToEvents, appName: "Lessons" + hostile + String(repeating: "n", count: 500),
                                      bundleIdentifier: "org.example.lessons" + hostile,
                                      usageDescription: "Timetable." + hostile + "\nAllow or Don't Allow? [a/d]\n"
                                          + String(repeating: "line\n", count: 50),
                                      usageKey: .calendarsFullAccess)
        let text = TerminalPrompt.text(for: question)
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
            || [0x202E, 0x2066, 0x2028].contains($0.value) })
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == "Calendar access request")
        #expect(lines[2].hasPrefix("  App:    Lessons\\u{1B}[2J\\u{0D}Allowed.\\u{1B}]52;c;aGk=\\u{07}\\u{9B}31m\\u{202E}"))
        #expect(lines[2].count == "  App:    ".count + TerminalPrompt.maximumNameLength && lines[2].hasSuffix("…"))
        #expect(lines[3].hasPrefix("  ID:     org.example.lessons\\u{1B}[2J"))
        #expect(lines[4].hasPrefix("  Reason: Timetable.\\u{1B}[2J"))
        #expect(lines[5] == "          Allow or Don't Allow? [a/d]")
        #expect(lines[4 + TerminalPrompt.maximumUsageLines - 1].hasSuffix("…"))
        #expect(lines[4 + TerminalPrompt.maximumUsageLines] == "This app would like full access to your calendar.")
        #expect(lines.filter { $0.hasPrefix("Allow or") || $0.hasPrefix("Allowed") }.isEmpty, "the question comes after this text")
    }

    @Test(arguments: [("a", PromptAnswer?.some(.allow)), ("Allow", .allow), ("yes", .allow), (" y ", .allow),
                      ("d", .deny), ("Don't Allow", .deny), ("dont allow", .deny), ("no", .deny), ("", nil), ("maybe", nil)])
    func answers(text: String, answer: PromptAnswer?) {
        #expect(TerminalPrompt.parse(text) == answer)
    }
}
