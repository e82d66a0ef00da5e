/// The retry machine's transition table, and the charts'.
public typealias RetryTable = TransitionTable<RetryState, RetryEvent, RetryGuard, RetryEffect, StopReason>

extension TransitionTable
where State == RetryState, Event == RetryEvent, Guard == RetryGuard, Effect == RetryEffect, Reason == StopReason {
    /// The retry flowchart, as data. Read top to bottom: this is what runs, and what `diagrams/` draws.
    ///
    /// Rows for one state and event are tried in order; the first whose guard holds wins. Rows with
    /// no event fire as soon as their state is entered (the `retry` and `admission` decisions), and
    /// read the delay the `plan delay` effect of the row entering `retry` worked out, and the budget's
    /// answer that `budget answered` brought. Every try first asks the adaptive rate limiter for a
    /// token (`ask limiter`), waiting in `token wait` for one it reserved, then is put to the breaker
    /// (`ask breaker`), whose answer, `admitted` or `circuit open`, picks the row. Rows that end a
    /// run name the reason.
    public static let retry = RetryTable(
        name: "RetryFlow",
        initial: .idle,
        terminals: [.success, .answered, .failure, .cancelled],
        rows: [
            // from, event (nil: a completion row), guard, to, effects, reason (rows that end the run)
            .init(from: .idle, event: .start, to: .limiter, effects: [.askLimiter]),
            .init(from: .idle, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),

            // Every try takes a token from the adaptive rate limiter first (granted at once without one,
            // or before its first throttle). A token due later is waited for in `token wait`, unless
            // the run fails fast or the wait would cross the deadline: then the token goes back.
            .init(from: .limiter, event: .tokenGranted, to: .breaker, effects: [.askBreaker]),
            .init(from: .limiter, event: .rateLimited, to: .pacing),
            .init(
                from: .pacing, event: nil, condition: .unless(.waitsForToken), to: .failure,
                effects: [.returnToken, .finish], reason: .rateLimited),
            .init(
                from: .pacing, event: nil, condition: .unless(.withinDeadline), to: .failure,
                effects: [.returnToken, .finish], reason: .deadlineExceeded),
            .init(from: .pacing, event: nil, to: .tokenWait, effects: [.sleep]),
            .init(from: .tokenWait, event: .delayElapsed, to: .breaker, effects: [.askBreaker]),
            .init(from: .tokenWait, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),

            // Every try asks the breaker first (answered at once without one). A refused try is not sent
            // and uses up no attempt: it fails fast, or waits out the break like a Retry-After, at most
            // `maxAttempts` times a run (`refusals left`, counted by `count refusal`).
            .init(from: .breaker, event: .admitted, to: .request, effects: [.startAttempt]),
            .init(
                from: .breaker, event: .circuitOpen, condition: .unless(.waitsOutBreak), to: .failure,
                effects: [.finish], reason: .circuitOpen),
            .init(
                from: .breaker, event: .circuitOpen, condition: .unless(.refusalsLeft), to: .failure,
                effects: [.finish], reason: .circuitOpen),
            .init(from: .breaker, event: .circuitOpen, to: .retry, effects: [.countRefusal, .planDelay]),

            // Every attempt that was sent is reported to the fleet's guards (the breaker, the budget).
            .init(
                from: .request, event: .succeeded, to: .success, effects: [.reportHealth, .finish], reason: .succeeded),
            .init(from: .request, event: .failed, to: .retry, effects: [.reportHealth, .planDelay]),
            // A failure after progress (a download's new bytes) starts the count and the backoff over.
            .init(
                from: .request, event: .failedAfterProgress, to: .retry,
                effects: [.reportHealth, .resetBackoff, .planDelay]),
            .init(
                from: .request, event: .attemptTimedOut, to: .retry,
                effects: [.cancelAttempt, .reportHealth, .planDelay]),
            .init(
                from: .request, event: .cancelled, to: .cancelled, effects: [.cancelAttempt, .reportHealth, .finish],
                reason: .cancelled),
            .init(
                from: .request, event: .deadlineExceeded, to: .failure,
                effects: [.cancelAttempt, .reportHealth, .finish], reason: .deadlineExceeded),

            // A final answer (a 404, a POST's 503) is not a failure: the caller receives it as a value.
            .init(
                from: .retry, event: nil, condition: .when(.finalAnswer), to: .answered, effects: [.finish],
                reason: .finalAnswer),
            .init(
                from: .retry, event: nil, condition: .unless(.retryable), to: .failure, effects: [.finish],
                reason: .notRetryable),
            .init(
                from: .retry, event: nil, condition: .unless(.attemptsLeft), to: .failure, effects: [.finish],
                reason: .attemptsExhausted),
            .init(
                from: .retry, event: nil, condition: .unless(.retryAfterWithinCap), to: .failure, effects: [.finish],
                reason: .retryAfterBeyondCap),
            .init(
                from: .retry, event: nil, condition: .unless(.withinDeadline), to: .failure, effects: [.finish],
                reason: .deadlineExceeded),
            // A retry the policy allows still needs a token from the shared budget (granted without one).
            .init(from: .retry, event: nil, to: .budget, effects: [.askRetryBudget]),

            .init(from: .budget, event: .budgetAnswered, to: .admission),

            .init(
                from: .admission, event: nil, condition: .unless(.retryBudgetLeft), to: .failure, effects: [.finish],
                reason: .budgetExhausted),
            .init(
                from: .admission, event: nil, condition: .when(.retryImmediately), to: .limiter,
                effects: [.notifyRetry, .askLimiter]),
            .init(from: .admission, event: nil, to: .wait, effects: [.notifyRetry, .sleep]),

            .init(from: .wait, event: .delayElapsed, to: .limiter, effects: [.askLimiter]),
            .init(from: .wait, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
        ]
    )
}
