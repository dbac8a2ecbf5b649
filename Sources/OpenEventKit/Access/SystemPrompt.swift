#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import ICalKit
import Synchronization

/// What the system asks the user on an app's behalf.
package struct AccessQuestion: Sendable, Hashable {
    /// Which prompt this is.
    package enum Kind: String, Sendable, Hashable {
        /// A first request for full access to events.
        case fullAccessToEvents
        /// A first request for write-only access to events (also the legacy event request of a legacy app).
        case writeOnlyAccessToEvents
        /// A first request for full access to reminders.
        case fullAccessToReminders
        /// Write-only to full access (TN3153): the implicit prompt on a first fetch, or a full request.
        case upgradeToFullAccessToEvents
    }

    /// Which prompt.
    package var kind: Kind
    /// The app's name (``AppManifest/displayName``).
    package var appName: String
    /// The app's bundle identifier.
    package var bundleIdentifier: String
    /// The app's usage description for this level, from its manifest.
    package var usageDescription: String
    /// The manifest key the usage description came from.
    package var usageKey: AppManifest.UsageDescriptionKey

    package init(kind: Kind, appName: String, bundleIdentifier: String, usageDescription: String,
                 usageKey: AppManifest.UsageDescriptionKey) {
        self.kind = kind
        self.appName = appName
        self.bundleIdentifier = bundleIdentifier
        self.usageDescription = usageDescription
        self.usageKey = usageKey
    }

    /// The prompt's title, as the system words it: the app's name in quotes, for one line
    /// of a record. The name is shown with ``TerminalText`` escapes and at most
    /// ``TerminalPrompt/maximumNameLength`` characters; the prompt itself shows the name on a
    /// line of its own and asks ``question``.
    package var title: String {
        let name = TerminalText.line(appName, maximumLength: TerminalPrompt.maximumNameLength)
        return switch kind {
        case .fullAccessToEvents: "“\(name)” would like full access to your calendar."
        case .writeOnlyAccessToEvents: "“\(name)” would like to add events to your calendar."
        case .fullAccessToReminders: "“\(name)” would like full access to your reminders."
        case .upgradeToFullAccessToEvents: "“\(name)” would like full access to your calendar. It can now only add events."
        }
    }

    /// The heading the prompt opens with; the system's words only.
    package var heading: String {
        switch kind {
        case .fullAccessToEvents, .writeOnlyAccessToEvents, .upgradeToFullAccessToEvents: "Calendar access request"
        case .fullAccessToReminders: "Reminders access request"
        }
    }

    /// What the app asks for, as the system words it, without the app's own text.
    package var question: String {
        switch kind {
        case .fullAccessToEvents: "This app would like full access to your calendar."
        case .writeOnlyAccessToEvents: "This app would like to add events to your calendar."
        case .fullAccessToReminders: "This app would like full access to your reminders."
        case .upgradeToFullAccessToEvents: "This app would like full access to your calendar. It can now only add events."
        }
    }

    /// What allowing means, in one line.
    package var consequence: String {
        switch kind {
        case .fullAccessToEvents, .upgradeToFullAccessToEvents:
            "Allowing lets it see, change and delete all your events and calendars."
        case .writeOnlyAccessToEvents:
            "Allowing lets it add events; it cannot see your calendar, not even the events it added."
        case .fullAccessToReminders:
            "Allowing lets it see, change and delete all your reminders and lists."
        }
    }
}

/// The user's answer to an ``AccessQuestion``.
package enum PromptAnswer: Sendable, Hashable {
    /// Allow.
    case allow
    /// Don't Allow.
    case deny
    /// No answer: no terminal to ask on, or the user closed the prompt. Nothing is recorded.
    case unanswered
}

/// The system's prompt: shown by OpenEventKit on the app's behalf, never by the app.
///
/// The default is ``TerminalPrompt``. Tests inject answers with ``ScriptedPrompt``; both are
/// package API, so no app can answer its own prompt.
package protocol SystemPrompt: Sendable {
    /// Asks the user and waits for the answer.
    func ask(_ question: AccessQuestion) -> PromptAnswer
}

/// The prompt on the controlling terminal (`/dev/tty`), not on standard input or output, so an
/// app's pipes cannot see or answer it. With no controlling terminal the answer is
/// ``PromptAnswer/unanswered``.
package struct TerminalPrompt: SystemPrompt {
    /// The terminal device: `/dev/tty`, or a pseudo-terminal in tests.
    package var path: String
    /// How long to wait for an answer before giving up (unanswered), in seconds.
    package var timeout: Double
    /// How many unrecognised answers are tolerated before giving up (unanswered).
    package var attempts: Int

    package init(path: String = "/dev/tty", timeout: Double = 300, attempts: Int = 3) {
        self.path = path
        self.timeout = timeout
        self.attempts = attempts
    }

    package func ask(_ question: AccessQuestion) -> PromptAnswer {
        let descriptor = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return .unanswered }
        defer { close(descriptor) }
        guard isatty(descriptor) == 1 else { return .unanswered }
        // Whatever the app typed ahead is not an answer to a question it has not seen yet.
        tcflush(descriptor, TCIFLUSH)
        guard send(Self.text(for: question), to: descriptor) else { return .unanswered }
        for attempt in 1...max(attempts, 1) {
            guard send("Allow or Don't Allow? [a/d] ", to: descriptor) else { return .unanswered }
            guard let line = readLine(from: descriptor) else {
                _ = send("\nNo answer; nothing was decided.\n", to: descriptor)
                return .unanswered
            }
            if let answer = Self.parse(line) {
                _ = send(answer == .allow ? "Allowed.\n" : "Not allowed.\n", to: descriptor)
                return answer
            }
            if attempt < attempts { _ = send("Please answer a (Allow) or d (Don't Allow).\n", to: descriptor) }
        }
        _ = send("No answer; nothing was decided.\n", to: descriptor)
        return .unanswered
    }

    /// At most this many characters of the app's name and of its bundle identifier are shown.
    package static let maximumNameLength = 200
    /// At most this many characters of the usage description are shown…
    package static let maximumUsageLength = 1000
    /// …on at most this many lines.
    package static let maximumUsageLines = 10

    /// What the prompt shows before it asks: the system's heading; the app's name, bundle
    /// identifier and usage description, each on lines of its own, after a label, bounded
    /// and with ``TerminalText`` escapes (the usage description's own lines indented under
    /// its first, so none can start a line of the prompt); then, from the system again, what
    /// the app asks for and what allowing means. The question and the keys to press come
    /// after all of it, so nothing in the manifest can change what the user is asked.
    package static func text(for question: AccessQuestion) -> String {
        let indent = "          "
        let name = TerminalText.line(question.appName, maximumLength: maximumNameLength)
        let identifier = TerminalText.line(question.bundleIdentifier, maximumLength: maximumNameLength)
        let usage = TerminalText.visible(question.usageDescription, TerminalText.Options(
            lineBreaks: .indented(indent), tabs: .visible, maximumLength: maximumUsageLength, maximumLines: maximumUsageLines))
        return """

            \(question.heading)
              App:    \(name)
              ID:     \(identifier)
              Reason: \(usage)
            \(question.question)
            \(question.consequence)
            (change it later with `ical privacy`)

            """
    }

    /// Reads an answer: `a`, `allow`, `y`, `yes`; or `d`, `don't allow`, `dont allow`, `n`, `no`.
    package static func parse(_ line: String) -> PromptAnswer? {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            .replacingOccurrences(of: "’", with: "'")
        switch text {
        case "a", "allow", "y", "yes": return .allow
        case "d", "don't allow", "dont allow", "don't", "dont", "n", "no": return .deny
        default: return nil
        }
    }

    /// Writes the prompt's own text; ``TerminalText/lines(_:)`` once more, so that whatever
    /// reaches the terminal holds no control character but its line feeds.
    private func send(_ text: String, to descriptor: Int32) -> Bool {
        TerminalIO.write(TerminalText.lines(text), to: descriptor)
    }

    /// One line, or nil at end of file, on an error or when the time is up.
    private func readLine(from descriptor: Int32) -> String? {
        TerminalIO.readLine(from: descriptor, timeout: timeout, limit: 256)
    }
}

/// Answers given in advance, for tests: the package-level SPI that stands in for the user.
/// Each question takes the next answer; with none left the answer is ``PromptAnswer/unanswered``.
/// The questions asked are kept for checking.
package final class ScriptedPrompt: SystemPrompt {
    private let state: Mutex<(answers: [PromptAnswer], asked: [AccessQuestion])>

    package init(_ answers: [PromptAnswer] = []) {
        state = Mutex((answers, []))
    }

    package func ask(_ question: AccessQuestion) -> PromptAnswer {
        state.withLock { state in
            state.asked.append(question)
            return state.answers.isEmpty ? .unanswered : state.answers.removeFirst()
        }
    }

    /// Adds answers for later questions.
    package func enqueue(_ answers: PromptAnswer...) {
        state.withLock { $0.answers.append(contentsOf: answers) }
    }

    /// The questions asked so far.
    package var asked: [AccessQuestion] { state.withLock { $0.asked } }
}
