import Foundation
@testable import OpenEventKit
import Testing

/// The pace of one HTTP exchange, fed with made-up times as libcurl's progress callback
/// feeds it (about once a second while nothing moves): a server that thinks long before it
/// answers is waited for, a slow answer that keeps moving goes on, and a stall, a trickle,
/// headers followed by nothing, an exchange past its own deadline and an operation past its
/// deadline are each ended for their own reason.
@Suite struct TransferPaceTests {
    /// Small limits: 30 s to begin the answer, 10 s of stall window at 1 KiB/s.
    static var limits: HTTPFunnel.Limits {
        var limits = HTTPFunnel.Limits()
        limits.responseTimeout = 30
        limits.stallTimeout = 10
        limits.connectTimeout = 5
        return limits
    }

    /// Feeds the pace once a second from `from` to `to` (received bytes from `bytes(t)`),
    /// and returns the first problem with its time.
    static func run(_ pace: inout TransferPace, from: Double = 0, to: Double, step: Double = 1,
                    uploaded: (Double) -> Int = { _ in 0 }, uploadTotal: Int = 0,
                    bytes: (Double) -> Int) -> (time: Double, problem: TransferPace.Problem)? {
        var time = from
        while time <= to {
            if let problem = pace.observe(now: time, uploaded: uploaded(time), uploadTotal: uploadTotal, received: bytes(time)) {
                return (time, problem)
            }
            time += step
        }
        return nil
    }

    @Test func aServerThatThinksLongThenAnswersFastIsWaitedFor() {
        // Nothing for 25 s (under the 30 s response time-out, far over the 10 s stall
        // window), then 200 KiB in two seconds.
        var pace = TransferPace(limits: Self.limits, responseBytes: 1 << 20, start: 0)
        let result = Self.run(&pace, to: 27) { $0 < 25 ? 0 : Int($0 - 24) * 100_000 }
        #expect(result == nil)
    }

    @Test func aServerThatNeverBeginsToAnswerIsStoppedAtTheResponseTimeout() throws {
        var pace = TransferPace(limits: Self.limits, responseBytes: 1 << 20, start: 0)
        let result = try #require(Self.run(&pace, to: 100) { _ in 0 })
        #expect(result.time == 30)
        #expect(result.problem == .noAnswer(waited: 30))
    }

    @Test func theWaitStartsWhenTheRequestIsSentInFull() throws {
        // A 40 KiB body sent at 2 KiB/s for 20 s; then the server thinks 25 s: allowed.
        var pace = TransferPace(limits: Self.limits, responseBytes: 1 << 20, start: 0)
        let uploaded: (Double) -> Int = { min(40_960, Int($0) * 2048) }
        #expect(Self.run(&pace, to: 44, uploaded: uploaded, uploadTotal: 40_960) { $0 < 45 ? 0 : 500 } == nil)
        let result = try #require(Self.run(&pace, from: 45, to: 60, uploaded: uploaded, uploadTotal: 40_960) { _ in 0 })
        #expect(result.time == 50, "30 s after the body went out at 20 s")
    }

    @Test func aRequestBodyThatStopsGoingOutStalls() throws {
        var pace = TransferPace(limits: Self.limits, responseBytes: 1 << 20, start: 0)
        let result = try #require(Self.run(&pace, to: 60, uploaded: { min(5_000, Int($0) * 2048) }, uploadTotal: 40_960) { _ in 0 })
        // 5,000 bytes in the first 2.5 s, then nothing: under 10 KiB in the first 10 s.
        #expect(result.problem == .stalled(bytes: 5_000, seconds: 10, answering: false))
        #expect(result.time == 10)
    }

    @Test func aSlowAnswerThatKeepsMovingGoesOn() {
        // 1.5 KiB/s for ten minutes, in bursts every 3 s: slow, not stalled.
        var pace = TransferPace(limits: Self.limits, responseBytes: 64 << 20, start: 0)
        #expect(Self.run(&pace, to: 600) { Int($0 / 3) * 3 * 1_536 + 300 } == nil)
    }

    @Test func aTrickleIsStoppedAfterTheStallWindow() throws {
        // Headers at 1 s, then one byte every half second (2 bytes/s).
        var pace = TransferPace(limits: Self.limits, responseBytes: 64 << 20, start: 0)
        let result = try #require(Self.run(&pace, to: 100, step: 0.5) { $0 < 1 ? 0 : 200 + Int(($0 - 1) * 2) })
        #expect(result.time == 11)
        #expect(result.problem == .stalled(bytes: 20, seconds: 10, answering: true))
    }

    @Test func headersThenNothingIsStoppedAfterTheStallWindow() throws {
        var pace = TransferPace(limits: Self.limits, responseBytes: 64 << 20, start: 0)
        let result = try #require(Self.run(&pace, to: 100) { $0 < 2 ? 0 : 180 })
        #expect(result.time == 12)
        #expect(result.problem == .stalled(bytes: 0, seconds: 10, answering: true))
    }

    @Test func anExchangeHasADeadlineScaledToWhatItMayCarry() throws {
        var limits = Self.limits
        limits.budgetRate = 1 << 20
        // 5 s to connect, 30 s to begin, and 64 MiB at 1 MiB/s.
        #expect(limits.requestBudget(responseBytes: 64 << 20) == 99)
        // A small answer gets the stall window as its transfer time.
        #expect(limits.requestBudget(responseBytes: 1_000) == 45)
        // 2 KiB/s keeps ahead of the stall rule but not of the deadline.
        var pace = TransferPace(limits: limits, responseBytes: 64 << 20, start: 0)
        let result = try #require(Self.run(&pace, to: 1_000) { Int($0) * 2_048 })
        #expect(result.time == 99)
        #expect(result.problem == .tooLong(seconds: 99))
        #expect(pace.endingLimit == .tooLong(seconds: 99))
    }

    @Test func theOperationsDeadlineEndsAnExchangeWhereverItIs() throws {
        var limits = Self.limits
        limits.deadline = Deadline(instant: 7, budget: 120)
        var pace = TransferPace(limits: limits, responseBytes: 1 << 20, start: 0)
        #expect(pace.latestEnd == 7)
        #expect(pace.endingLimit == .deadline(budget: 120))
        let result = try #require(Self.run(&pace, to: 100) { Int($0) * 100_000 })
        #expect(result.time == 7)
        #expect(result.problem == .deadline(budget: 120))
    }

    @Test func problemsReadAsSentences() {
        let limits = Self.limits
        #expect(TransferPace.describe(.noAnswer(waited: 600), method: "REPORT", limits: limits, responseBytes: 64 << 20)
                == "REPORT: no answer from the server within 30 s (the response time-out); it may be down, overloaded or hung")
        #expect(TransferPace.describe(.stalled(bytes: 1, seconds: 60, answering: true), method: "GET", limits: limits, responseBytes: 1 << 20)
                == "GET: the answer stalled: 1 byte in the last 60 s, below the minimum of 1 KiB/s (the stall time-out); the server or the link is too slow or stuck")
        #expect(TransferPace.describe(.tooLong(seconds: 1_654), method: "REPORT", limits: limits, responseBytes: 64 << 20)
                == "REPORT: not finished after 28 min, the most an exchange of up to 64 MiB may take")
        #expect(TransferPace.describe(.deadline(budget: 5_400), method: "PUT", limits: limits, responseBytes: 1 << 20)
                == "PUT: stopped when the time limit of 90 min for the whole operation ran out")
        #expect(Deadline.describe(2.5) == "2.5 s")
        #expect(Deadline.describe(7_200) == "2 h")
        #expect(Deadline.describe(9_000) == "2 h 30 min")
    }
}
