/// How a hedged attempt judges one attempt's result: gRPC A6's acceptable, fatal and non-fatal.
public enum HedgeVerdict: Hashable, Sendable {
    /// The answer wins: the run returns it and cancels the rest.
    case accept
    /// A final answer or a fatal failure: the run returns it as it is and cancels the rest.
    case final
    /// Another attempt may do better: the next hedge goes out at once, after the pushback's delay,
    /// or never (``HedgePushback/stop``).
    case nonFatal(HedgePushback)
}

/// What one attempt of a hedged run did.
public struct HedgeAttemptRecord: Sendable, Hashable, CustomStringConvertible {
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
    /// Its error or rejected answer, in words, if any.
    public let detail: String?

    /// Whether it was a hedge (not the first attempt).
    public var isHedge: Bool { number > 1 }

    /// `#2 (hedge) 0.05 s–0.06 s: won`.
    public var description: String {
        let kind = isHedge ? " (hedge)" : ""
        let words = detail.map { ": \($0)" } ?? ""
        return
            "#\(number)\(kind) \(start.shortDescription)–\(end.shortDescription): \(ending.rawValue)\(words)"
    }
}

/// Everything a hedged run did, without its value: kept in ``RetryOutcome/hedging`` for each
/// hedged attempt of a retry run, and in ``HedgingOutcome/record``.
public struct HedgingRecord: Sendable, Hashable {
    /// The terminal state.
    public let finalState: HedgingState
    /// Why it ended (`nil` only if the driver broke off, which it never does).
    public let reason: HedgingStopReason?
    /// Every attempt sent, by number; each ended before the run returned.
    public let attempts: [HedgeAttemptRecord]
    /// Hedges the retry budget refused.
    public let deniedHedges: Int
    /// Every row taken.
    public let trace: HedgingTrace
    /// From start to return (every loser awaited) on the run's clock.
    public let duration: Duration
    /// Attempts whose task had not ended when the run returned: always 0 (stress tests check it).
    public let inFlightAtReturn: Int

    /// Hedges sent (attempts after the first): counted apart from retries, as gRPC A96's
    /// `grpc.client.call.hedges` is.
    public var hedges: Int { attempts.filter(\.isHedge).count }
    /// The winning (or final) attempt's number.
    public var answeredBy: Int? { attempts.first { $0.ending == .won || $0.ending == .final }?.number }
}

/// A hedged run's result and record.
public struct HedgingOutcome<Value: Sendable>: Sendable {
    /// The winner's value or error (accepted or final), or, when every attempt failed, the last
    /// failure's; `nil` when no attempt answered (deadline, cancellation).
    public let result: Result<Value, any Error>?
    /// What the run did.
    public let record: HedgingRecord

    /// Whether an acceptable answer won.
    public var succeeded: Bool { record.finalState == .succeeded }
}
