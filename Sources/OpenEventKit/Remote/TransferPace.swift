import Foundation

/// A moment on the monotonic clock by which a whole operation (an `ical sync`, an
/// `ical sources add`, a background refresh) must have ended, whatever its requests do.
package struct Deadline: Sendable, Hashable {
    /// The moment, in seconds of ``Deadline/now()``.
    package let instant: Double
    /// The time the operation was given, for messages.
    package let budget: Double

    /// A deadline `seconds` from now.
    package init(seconds: Double) {
        self.init(instant: Self.now() + seconds, budget: seconds)
    }

    package init(instant: Double, budget: Double) {
        self.instant = instant
        self.budget = budget
    }

    /// Seconds left (negative once it has passed).
    package var remaining: Double { instant - Self.now() }

    /// Whether the moment has passed.
    package var hasPassed: Bool { remaining <= 0 }

    /// The monotonic clock, in seconds: it does not jump with the wall clock.
    package static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A length of time as a person reads it: `45 s`, `10 min`, `1 h 30 min`.
    package static func describe(_ seconds: Double) -> String {
        if seconds < 10 && seconds != seconds.rounded() { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 120 { return "\(whole) s" }
        let minutes = (whole + 30) / 60
        if minutes < 120 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

/// Tells a slow transfer from a stalled one, for one HTTP exchange.
///
/// An exchange has three phases, each with its own bound (``HTTPFunnel/Limits``):
///
/// 1. **Sending** the request body: it must move at ``HTTPFunnel/Limits/minimumRate`` or
///    faster, averaged over ``HTTPFunnel/Limits/stallTimeout``.
/// 2. **Waiting** for the first byte of the answer, once the request is sent: at most
///    ``HTTPFunnel/Limits/responseTimeout``. Long on purpose: a server may think for minutes
///    before it answers (Radicale builds its cache of a large calendar on the first request
///    after a start), and a server that is thinking sends nothing.
/// 3. **Receiving** the answer, from its first byte (the status line) on: again at least
///    the minimum rate averaged over the stall time-out. A server that sends its headers and
///    then nothing, or trickles a byte now and then, is stopped here, while a slow link that
///    keeps moving is not.
///
/// Over all three, the exchange has a deadline of its own scaled to what it may carry
/// (``HTTPFunnel/Limits/requestBudget(responseBytes:)``), and the operation's
/// ``Deadline``, when it has one, ends it wherever it is.
///
/// The pace is fed by libcurl's progress callback (about once a second while nothing
/// moves, more often while data flows) and is plain arithmetic over the times it is given,
/// so it is tested without a network.
package struct TransferPace: Sendable {
    /// Why an exchange was ended.
    package enum Problem: Sendable, Hashable {
        /// No byte of the answer came within the response time-out after the request was sent.
        case noAnswer(waited: Double)
        /// Only `bytes` moved in the last `seconds`, below the minimum rate.
        case stalled(bytes: Int, seconds: Double, answering: Bool)
        /// The exchange ran past its own deadline (`seconds` after it started).
        case tooLong(seconds: Double)
        /// The operation's deadline passed (`budget`: the time it was given).
        case deadline(budget: Double)
    }

    private let limits: HTTPFunnel.Limits
    private let start: Double
    private let end: Double
    /// When the request was sent in full (the wait for the answer starts then).
    private var sent: Double?
    /// When the first byte of the answer came.
    private var answered: Double?
    /// Recent (time, bytes moved so far), oldest first: the first one is at or just before
    /// the start of the stall window.
    private var samples: [(time: Double, bytes: Int)] = []

    /// The pace of an exchange that starts at `start` and may receive up to `responseBytes`.
    package init(limits: HTTPFunnel.Limits, responseBytes: Int, start: Double = Deadline.now()) {
        self.limits = limits
        self.start = start
        end = start + limits.requestBudget(responseBytes: responseBytes)
    }

    /// The moment the exchange must be over, whichever limit comes first.
    package var latestEnd: Double { min(end, limits.deadline?.instant ?? .infinity) }

    /// The limit that ends the exchange at ``latestEnd``.
    package var endingLimit: Problem {
        if let deadline = limits.deadline, deadline.instant <= end { return .deadline(budget: deadline.budget) }
        return .tooLong(seconds: end - start)
    }

    /// Records the state at `now` and says whether the exchange must end.
    ///
    /// - Parameters:
    ///   - uploaded: request body bytes sent so far, of `uploadTotal`.
    ///   - received: bytes of the answer so far, its status line and headers included.
    package mutating func observe(now: Double, uploaded: Int, uploadTotal: Int, received: Int) -> Problem? {
        if let deadline = limits.deadline, now >= deadline.instant { return .deadline(budget: deadline.budget) }
        if now >= end { return .tooLong(seconds: end - start) }
        let moved = uploaded + received
        if received > 0 && answered == nil {
            answered = now
            samples = []
        }
        if answered == nil && uploaded >= uploadTotal {
            // Sent in full: waiting for the server to begin its answer.
            let sentAt = sent ?? now
            sent = sentAt
            let waited = now - sentAt
            return waited >= limits.responseTimeout ? .noAnswer(waited: waited) : nil
        }
        // Moving (sending the body, or receiving the answer): the rate over the window.
        if samples.isEmpty || now - samples[samples.count - 1].time >= 0.25 {
            samples.append((now, moved))
        }
        while samples.count >= 2 && samples[1].time <= now - limits.stallTimeout {
            samples.removeFirst()
        }
        let first = samples[0]
        let span = now - first.time
        guard span >= limits.stallTimeout else { return nil }
        let bytes = moved - first.bytes
        return Double(bytes) < Double(limits.minimumRate) * span
            ? .stalled(bytes: bytes, seconds: span, answering: answered != nil) : nil
    }

    /// What a problem means, for a person, about `method` (REPORT, GET, ...).
    package static func describe(_ problem: Problem, method: String, limits: HTTPFunnel.Limits, responseBytes: Int) -> String {
        switch problem {
        case .noAnswer:
            return "\(method): no answer from the server within \(Deadline.describe(limits.responseTimeout)) (the response time-out); it may be down, overloaded or hung"
        case .stalled(let bytes, let seconds, let answering):
            return "\(method): the \(answering ? "answer" : "request") stalled: \(bytes) byte\(bytes == 1 ? "" : "s") in the last \(Deadline.describe(seconds)), "
                + "below the minimum of \(rate(limits.minimumRate)) (the stall time-out); the server or the link is too slow or stuck"
        case .tooLong(let seconds):
            return "\(method): not finished after \(Deadline.describe(seconds)), the most an exchange of up to \(size(responseBytes)) may take"
        case .deadline(let budget):
            return "\(method): stopped when the time limit of \(Deadline.describe(budget)) for the whole operation ran out"
        }
    }

    private static func rate(_ bytesPerSecond: Int) -> String {
        bytesPerSecond >= 1024 && bytesPerSecond % 1024 == 0 ? "\(bytesPerSecond / 1024) KiB/s" : "\(bytesPerSecond) bytes/s"
    }

    private static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : bytes >= 1024 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}
