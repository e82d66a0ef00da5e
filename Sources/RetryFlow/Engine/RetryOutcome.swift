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
        return .failure(
            RetryError(
                reason: reason, finalState: finalState, attempts: attempts, steps: steps, trace: trace,
                duration: duration, lastValue: value))
    }

    /// What every surface hands its caller, by `RetryState.delivery`: the value of a run that ended
    /// in `success` or `answered` (a 404, a POST's 503); `CancellationError` for `cancelled`; otherwise
    /// a ``RetryError`` carrying every attempt.
    public func get() throws -> Value {
        if finalState.delivery == .cancellation { throw CancellationError() }
        return try result.get()
    }
}

/// A run that did not succeed, with every attempt's error and the trace: the one "gave up" error of
/// every surface, core and HTTP alike (over HTTP, ``lastValue`` is the last response).
public struct RetryError: Error, CustomStringConvertible {
    /// Why it ended.
    public let reason: StopReason
    /// `failure`, or `cancelled` (in ``RetryOutcome/result``).
    public let finalState: RetryState
    /// Every attempt, in order, each with its error.
    public let attempts: [AttemptRecord]
    /// Every visit of a user step, each with its error if its action threw (a failed refresh's).
    public let steps: [StepRecord]
    /// Every transition taken.
    public let trace: RetryTrace
    /// Time from start to finish.
    public let duration: Duration
    /// The last value the policy rejected, if any (over HTTP: the last response, e.g. a 503).
    public let lastValue: (any Sendable)?

    /// Made by the engine and the HTTP driver from a run's outcome.
    package init(
        reason: StopReason, finalState: RetryState, attempts: [AttemptRecord], steps: [StepRecord] = [],
        trace: RetryTrace, duration: Duration, lastValue: (any Sendable)?
    ) {
        self.reason = reason
        self.finalState = finalState
        self.attempts = attempts
        self.steps = steps
        self.trace = trace
        self.duration = duration
        self.lastValue = lastValue
    }

    /// The last attempt's error, if any.
    package var lastError: (any Error)? { attempts.last?.error }

    /// One line for the run, then one per attempt.
    public var description: String {
        let plural = attempts.count == 1 ? "" : "s"
        var text =
            "gave up (\(reason.rawValue)) after \(attempts.count) attempt\(plural) in \(duration.shortDescription)"
        for attempt in attempts { text += "\n  \(attempt)" }
        for step in steps { text += "\n  \(step)" }
        return text
    }
}
