import Foundation
import OpenEventKit

/// The messages between `ical run` (the launcher) and the broker, on the launcher's own
/// connection to the broker's listening socket. The launcher sends ``launch(version:manifest:)``
/// right after the app's socket (passed as a descriptor); from then on the broker asks and the
/// launcher answers: prompts and UI helpers, on the launcher's terminal. When the connection
/// closes (the app exited, `ical run` ended) the broker ends the app's session.
package enum LauncherMessage: Codable, Sendable {
    /// Launcher: start a session for the app whose manifest is at this path, on the socket just
    /// passed.
    case launch(version: Int, manifest: String)
    /// Broker: the session runs.
    case launched
    /// Broker: no session (why, for a person).
    case refused(String)
    /// Broker: show the system prompt.
    case prompt(id: UInt64, question: LauncherQuestion)
    /// Launcher: "allow", "deny" or "unanswered".
    case answer(id: UInt64, answer: String)
    /// Broker: run `ical` with these arguments (checked) and this standard input.
    case runHelper(id: UInt64, arguments: [String], input: Data)
    /// Launcher: the helper's output and exit status.
    case helperResult(id: UInt64, output: String, status: Int?, signal: Int?)
}

/// An ``AccessQuestion`` on the wire.
package struct LauncherQuestion: Codable, Sendable, Hashable {
    package var kind: String
    package var appName: String
    package var bundleIdentifier: String
    package var usageDescription: String
    package var usageKey: String

    package init(_ question: AccessQuestion) {
        kind = question.kind.rawValue
        appName = question.appName
        bundleIdentifier = question.bundleIdentifier
        usageDescription = question.usageDescription
        usageKey = question.usageKey.rawValue
    }

    /// The question, nil when a field is not one this version knows.
    package var question: AccessQuestion? {
        guard let kind = AccessQuestion.Kind(rawValue: kind), let key = AppManifest.UsageDescriptionKey(rawValue: usageKey) else { return nil }
        return AccessQuestion(kind: kind, appName: appName, bundleIdentifier: bundleIdentifier, usageDescription: usageDescription, usageKey: key)
    }
}

extension FrameChannel {
    /// Sends a launcher message.
    package func send(_ message: LauncherMessage) throws {
        try send(try JSONEncoder().encode(message))
    }

    /// Receives a launcher message; nil when the peer closed the connection.
    package func receiveLauncherMessage(idle: Double? = nil) throws -> LauncherMessage? {
        guard let data = try receive(idle: idle) else { return nil }
        return try JSONDecoder().decode(LauncherMessage.self, from: data)
    }
}

/// The broker's side of a launcher's connection: the system prompt and the UI helpers of one
/// app's session, asked of `ical run`, which shows them on its terminal. A launcher that is
/// gone answers every prompt as unanswered (nothing is recorded) and every helper as canceled.
final class LauncherLink: SystemPrompt, BrokerHelpers, @unchecked Sendable {
    private let channel: FrameChannel
    private let condition = NSCondition()
    private var next: UInt64 = 1
    private var answers: [UInt64: LauncherMessage] = [:]
    private var closed = false

    init(channel: FrameChannel) { self.channel = channel }

    /// Reads the launcher's answers until it closes the connection (then returns).
    func readAnswers() {
        while true {
            let message: LauncherMessage?
            do { message = try channel.receiveLauncherMessage() } catch { break }
            guard let message else { break }
            switch message {
            case .answer(let id, _), .helperResult(let id, _, _, _):
                condition.withLock {
                    answers[id] = message
                    condition.broadcast()
                }
            default:
                break   // a launcher asks nothing after the launch
            }
        }
        condition.withLock {
            closed = true
            condition.broadcast()
        }
        channel.close()
    }

    private func ask(_ make: (UInt64) -> LauncherMessage) -> LauncherMessage? {
        let id: UInt64 = condition.withLock { defer { next += 1 }; return next }
        do { try channel.send(make(id)) } catch { return nil }
        condition.lock()
        defer { condition.unlock() }
        while answers[id] == nil && !closed { condition.wait() }
        return answers.removeValue(forKey: id)
    }

    func ask(_ question: AccessQuestion) -> PromptAnswer {
        guard case .answer(_, let answer)? = ask({ .prompt(id: $0, question: LauncherQuestion(question)) }) else { return .unanswered }
        switch answer {
        case "allow": return .allow
        case "deny": return .deny
        default: return .unanswered
        }
    }

    func run(_ arguments: [String], input: Data) -> (output: String, status: Int?, signal: Int?) {
        guard case let .helperResult(_, output, status, signal)? = ask({ .runHelper(id: $0, arguments: arguments, input: input) }) else {
            return ("canceled\n", 0, nil)
        }
        return (output, status, signal)
    }
}
