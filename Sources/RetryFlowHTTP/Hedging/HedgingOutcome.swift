import RetryFlow

/// How a hedged attempt judges one attempt's result: gRPC A6's acceptable, fatal and non-fatal.
package enum HedgeVerdict: Hashable, Sendable {
    /// The answer wins: the run returns it and cancels the rest.
    case accept
    /// A final answer or a fatal failure: the run returns it as it is and cancels the rest.
    case final
    /// Another attempt may do better: the next hedge goes out at once, after the pushback's delay,
    /// or never (``HedgePushback/stop``).
    case nonFatal(HedgePushback)
}

/// What one attempt of a hedged run did, its error included: a run keeps every attempt's error.
public struct HedgeAttemptRecord: Sendable, CustomStringConvertible {
    /// How it ended.
    public enum Ending: String, Sendable, Hashable {
        /// Its answer won.
        case won
        /// Its answer was final and was returned.
        case final
        /// It failed (non-fatally).
        case failed
        /// It was cancelled (a loser) and awaited.
        case cancelled
    }

    /// Its number, from 1; numbers above 1 are hedges.
    public let number: Int
    /// When it was sent, since the run started.
    public let start: Duration
    /// When its task ended (answered, or awaited after its cancellation), since the run started.
    public let end: Duration
    /// How it ended.
    public let ending: Ending
    /// The error it threw, as thrown; `nil` when it answered with a value (a rejected answer is
    /// in ``detail``) or was cancelled before it threw.
    public let error: (any Error)?
    /// Its error or rejected answer, in words, if any (redacted by the HTTP driver).
    public let detail: String?

    /// Whether it was a hedge (not the first attempt).
    package var isHedge: Bool { number > 1 }

    /// `#2 (hedge) 0.05 s–0.06 s: won`.
    public var description: String {
        let kind = isHedge ? " (hedge)" : ""
        let words = detail.map { ": \($0)" } ?? ""
        return
            "#\(number)\(kind) \(start.shortDescription)–\(end.shortDescription): \(ending.rawValue)\(words)"
    }
}

/// Everything a hedged run did, without its value: kept in `RetryOutcome.hedging` for each
/// hedged attempt of a retry run.
public struct HedgingRecord: Sendable {
    /// The terminal state.
    package let finalState: HedgingState
    /// Why it ended (`nil` only if the driver broke off, which it never does).
    package let reason: HedgingStopReason?
    /// Every attempt sent, by number; each ended before the run returned.
    public let attempts: [HedgeAttemptRecord]
    /// Hedges the retry budget refused.
    public let deniedHedges: Int
    /// Every row taken.
    package let trace: HedgingTrace
    /// From start to return (every loser awaited) on the run's clock.
    public let duration: Duration
    /// Attempts whose operation had not returned when the run did, counted by the attempts' tasks
    /// themselves as they end: 0 unless a loser outlived its run (stress tests check it).
    package let inFlightAtReturn: Int

    /// Hedges sent (attempts after the first): counted apart from retries, as gRPC A96's
    /// `grpc.client.call.hedges` is.
    public var hedges: Int { attempts.filter(\.isHedge).count }
    /// The winning (or final) attempt's number.
    public var answeredBy: Int? { attempts.first { $0.ending == .won || $0.ending == .final }?.number }
}

/// A hedged run's result and record.
package struct HedgingOutcome<Value: Sendable>: Sendable {
    /// The winner's value or error (accepted or final), or, when every attempt failed, the last
    /// failure's; `nil` when the deadline passed or the run was cancelled (every attempt's error is
    /// still in ``record``).
    package let result: Result<Value, any Error>?
    /// What the run did.
    package let record: HedgingRecord

    /// Whether an acceptable answer won.
    package var succeeded: Bool { record.finalState == .succeeded }
}
