/// Everything a run produced: the final state and why, the accepted (or last rejected) value,
/// every attempt with its error, and the trace. Nothing is lost.
public struct RetryOutcome<Value: Sendable>: Sendable {
    /// The terminal state: `success`, `answered`, `failure` or `cancelled`; it alone decides what the
    /// caller receives (`RetryState.delivery`).
    public let finalState: RetryState
    /// Why the run ended.
    public let reason: StopReason
    /// The accepted value on success, the answer when `answered`; otherwise the last value the policy
    /// rejected, if any.
    public let value: Value?
    /// Every attempt, in order.
    public let attempts: [AttemptRecord]
    /// Every visit of a user step, in order (empty unless the table has steps).
    public let steps: [StepRecord]
    /// Every transition taken.
    public let trace: RetryTrace
    /// Time from start to finish on the run's clock.
    public let duration: Duration
    /// Records a surface keeps with the run, opaque to the core: RetryFlowHTTP puts a hedged run's
    /// races here (a `[HedgingRecord]`) and reads them back as `outcome.hedging` with one typed
    /// cast. The core cannot name an HTTP type, and one untyped slot costs less than the
    /// alternatives: a second generic parameter would change every user's `RetryOutcome<Value>`,
    /// and a protocol for "records a surface adds" would be public surface for one user. Whole
    /// arrays go in and come out, so the cast is exact (no per-record filtering to lose one).
    package var hedgingStorage: (any Sendable)?

    /// Whether an attempt's result was accepted.
    public var succeeded: Bool { finalState == .success }

    /// The error this outcome stands for when it delivers no value (``get()`` would throw it).
    package var error: RetryError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    /// The value or the error, as the final state decides (`RetryState.delivery`): the value of a
    /// run that ended in `success` or `answered`, else a ``RetryError`` (for `cancelled` too, with every
    /// attempt; ``get()`` throws `CancellationError` instead).
    public var result: Result<Value, RetryError> {
        if finalState.delivery == .value, let value { return .success(value) }
        return .failure(RetryError(outcome: erased))
    }

    /// This outcome with its value's type erased, records and all: what a ``RetryError`` carries.
    package var erased: RetryOutcome<any Sendable> {
        var erased = RetryOutcome<any Sendable>(
            finalState: finalState, reason: reason, value: value.map { $0 as any Sendable }, attempts: attempts,
            steps: steps, trace: trace, duration: duration)
        erased.hedgingStorage = hedgingStorage
        return erased
    }

    /// What every surface hands its caller, by `RetryState.delivery`: the value of a run that ended
    /// in `success` or `answered` (a 404, a POST's 503); `CancellationError` for `cancelled`; otherwise
    /// a ``RetryError`` carrying every attempt.
    public func get() throws -> Value {
        if finalState.delivery == .cancellation { throw CancellationError() }
        return try result.get()
    }
}

/// A run that did not succeed: the one "gave up" error of every surface, core and HTTP alike. It
/// carries the run's whole ``outcome`` (every attempt with its error, every step, the trace, a hedged
/// run's races) and reads as it: `error.reason`, `error.attempts`, `error.trace`, and `error.value`,
/// the last value the policy rejected (over HTTP, the last response). One record of a run, so a
/// field added to the outcome is never missing from its error.
@dynamicMemberLookup
public struct RetryError: Error, CustomStringConvertible {
    /// The run as it ended, its value's type erased.
    public let outcome: RetryOutcome<any Sendable>

    /// The outcome's `member`: `error.reason`, `error.attempts`, `error.trace`, `error.value`.
    public subscript<Member>(dynamicMember member: KeyPath<RetryOutcome<any Sendable>, Member>) -> Member {
        outcome[keyPath: member]
    }

    /// The last attempt's error, if any.
    package var lastError: (any Error)? { outcome.attempts.last?.error }

    /// One line for the run, then one per attempt.
    public var description: String {
        let attempts = outcome.attempts
        let plural = attempts.count == 1 ? "" : "s"
        var text =
            "gave up (\(outcome.reason.rawValue)) after \(attempts.count) attempt\(plural) in \(outcome.duration.shortDescription)"
        for attempt in attempts { text += "\n  \(attempt)" }
        for step in outcome.steps { text += "\n  \(step)" }
        return text
    }
}
