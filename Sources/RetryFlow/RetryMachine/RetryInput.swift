/// What a driver tells the retry machine, with what it knows: each input stands for one
/// ``RetryEvent`` of the table and carries its payload, so nothing is defaulted.
@usableFromInline package enum RetryInput: Hashable, Sendable, MachineInput {
    /// Begin (`resume()`, `run`).
    case start
    /// The attempt produced a result the policy accepts.
    case succeeded
    /// The attempt threw, or produced a result the policy wants retried: the classifier's verdict,
    /// words for the trace (already redacted), and whether the answer was a throttle (the verdict's
    /// ``RetryVerdict/throttled``: `report health` slows an adaptive limiter down for it).
    case failed(RetryDecision, detail: String?, throttled: Bool = false)
    /// The attempt failed after making progress (the driver says what progress is: a download's
    /// transfer table credits an attempt that added enough new bytes): the classifier's verdict and
    /// words, as for ``failed(_:detail:throttled:)``.
    case failedAfterProgress(RetryDecision, detail: String?)
    /// The attempt ran past the per-attempt timeout and was cancelled; the verdict on the timeout.
    case attemptTimedOut(RetryDecision, detail: String?)
    /// The overall deadline passed while an attempt was in flight.
    case deadlineExceeded(detail: String?)
    /// The adaptive rate limiter has a token for the try now (at once, without a limiter).
    case tokenGranted
    /// The adaptive rate limiter reserved a token due after `wait`, and its words.
    case rateLimited(wait: Duration, detail: String?)
    /// The circuit breaker admitted the try (at once, without a breaker): it is sent.
    case admitted
    /// The circuit breaker refused the try, which was not sent: the wait it suggests (the rest
    /// of the break, as a Retry-After) and its words.
    case circuitOpen(RetryDecision, detail: String?)
    /// The retry budget answered: whether it granted the retry, and its words when it did not.
    case budgetAnswered(granted: Bool, detail: String?)
    /// The planned wait is over.
    case delayElapsed
    /// The caller cancelled the run.
    case cancelled(detail: String?)
    /// The user's step finished its action in this exit (one of its ``RetryStep/exits``), with words
    /// for the trace when the action gave a reason for it (already redacted).
    case stepExit(RetryStep.Exit, detail: String?)
    /// The user's step threw: words for the trace (already redacted).
    case stepFailed(detail: String?)

    /// The table event this input stands for.
    @usableFromInline package var event: RetryEvent {
        switch self {
        case .start: .start
        case .succeeded: .succeeded
        case .failed: .failed
        case .failedAfterProgress: .failedAfterProgress
        case .attemptTimedOut: .attemptTimedOut
        case .deadlineExceeded: .deadlineExceeded
        case .tokenGranted: .tokenGranted
        case .rateLimited: .rateLimited
        case .admitted: .admitted
        case .circuitOpen: .circuitOpen
        case .budgetAnswered: .budgetAnswered
        case .delayElapsed: .delayElapsed
        case .cancelled: .cancelled
        case .stepExit(let exit, _): .stepExit(exit)
        case .stepFailed: .stepFailed
        }
    }

    /// The words kept in the trace for this input.
    @usableFromInline package var detail: String? {
        switch self {
        case .failed(_, let detail, _), .failedAfterProgress(_, let detail), .attemptTimedOut(_, let detail),
            .deadlineExceeded(let detail), .cancelled(let detail), .circuitOpen(_, let detail),
            .budgetAnswered(_, let detail), .stepFailed(let detail), .stepExit(_, let detail),
            .rateLimited(_, let detail):
            detail
        case .start, .succeeded, .admitted, .tokenGranted, .delayElapsed: nil
        }
    }

    /// The classifier's verdict this input carries: its own for a failure or a timeout, `fail` for
    /// an end that is never retried, the limiter's wait as a Retry-After (a wait that is not the
    /// policy's backoff), `retry` (unused by any guard) for the rest.
    var decision: RetryDecision {
        switch self {
        case .failed(let decision, _, _), .failedAfterProgress(let decision, _), .attemptTimedOut(let decision, _),
            .circuitOpen(let decision, _):
            decision
        case .rateLimited(let wait, _): .retryAfter(wait)
        case .deadlineExceeded, .cancelled, .stepFailed: .fail
        case .start, .succeeded, .admitted, .tokenGranted, .delayElapsed, .budgetAnswered, .stepExit: .retry
        }
    }

    /// Whether the input is an answer the verdict called a throttle.
    var isThrottle: Bool {
        if case .failed(_, _, let throttled) = self { return throttled }
        return false
    }
}
