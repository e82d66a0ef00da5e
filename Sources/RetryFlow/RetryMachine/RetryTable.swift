/// The words of the retry table: its states, events, guards, effects and the reasons a run ends.
public typealias RetryVocabulary = TableWords<RetryState, RetryEvent, RetryGuard, RetryEffect, StopReason>

/// The retry machine's transition table, and the charts'.
public typealias RetryTable = TransitionTable<RetryVocabulary>

extension TransitionTable where Vocabulary == RetryVocabulary {
    // The rows line up in columns like the chart; the formatter would close them up.
    // swift-format-ignore
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
            // event                  from              guard                          to              do (effects), ends (reason)
            .on(.start,               from: .idle,                                     to: .limiter,   do: .askLimiter),
            .on(.cancelled,           from: .idle,                                     to: .cancelled, do: .finish, ends: .cancelled),

            // Every try takes a token from the adaptive rate limiter first (granted at once without one,
            // or before its first throttle). A token due later is waited for in `token wait`, unless
            // the run fails fast or the wait would cross the deadline: then the token goes back.
            .on(.tokenGranted,        from: .limiter,                                  to: .breaker,   do: .askBreaker),
            .on(.rateLimited,         from: .limiter,                                  to: .pacing),
            .completion(              from: .pacing,    .unless(.waitsForToken),       to: .failure,   do: .returnToken, .finish, ends: .rateLimited),
            .completion(              from: .pacing,    .unless(.withinDeadline),      to: .failure,   do: .returnToken, .finish, ends: .deadlineExceeded),
            .completion(              from: .pacing,                                   to: .tokenWait, do: .sleep),
            .on(.delayElapsed,        from: .tokenWait,                                to: .breaker,   do: .askBreaker),
            .on(.cancelled,           from: .tokenWait,                                to: .cancelled, do: .finish, ends: .cancelled),

            // Every try asks the breaker first (answered at once without one). A refused try is not sent
            // and uses up no attempt: it fails fast, or waits out the break like a Retry-After, at most
            // `maxAttempts` times a run (`refusals left`, counted by `count refusal`).
            .on(.admitted,            from: .breaker,                                  to: .request,   do: .startAttempt),
            .on(.circuitOpen,         from: .breaker,   .unless(.waitsOutBreak),       to: .failure,   do: .finish, ends: .circuitOpen),
            .on(.circuitOpen,         from: .breaker,   .unless(.refusalsLeft),        to: .failure,   do: .finish, ends: .circuitOpen),
            .on(.circuitOpen,         from: .breaker,                                  to: .retry,     do: .countRefusal, .planDelay),

            // Every attempt that was sent is reported to the fleet's guards (the breaker, the budget).
            .on(.succeeded,           from: .request,                                  to: .success,   do: .reportHealth, .finish, ends: .succeeded),
            .on(.failed,              from: .request,                                  to: .retry,     do: .reportHealth, .planDelay),
            // A failure after progress (a download's new bytes) starts the count and the backoff over.
            .on(.failedAfterProgress, from: .request,                                  to: .retry,     do: .reportHealth, .resetBackoff, .planDelay),
            .on(.attemptTimedOut,     from: .request,                                  to: .retry,     do: .cancelAttempt, .reportHealth, .planDelay),
            .on(.cancelled,           from: .request,                                  to: .cancelled, do: .cancelAttempt, .reportHealth, .finish, ends: .cancelled),
            .on(.deadlineExceeded,    from: .request,                                  to: .failure,   do: .cancelAttempt, .reportHealth, .finish, ends: .deadlineExceeded),

            // A final answer (a 404, a POST's 503) is not a failure: the caller receives it as a value.
            .completion(              from: .retry,     .when(.finalAnswer),           to: .answered,  do: .finish, ends: .finalAnswer),
            .completion(              from: .retry,     .unless(.retryable),           to: .failure,   do: .finish, ends: .notRetryable),
            .completion(              from: .retry,     .unless(.attemptsLeft),        to: .failure,   do: .finish, ends: .attemptsExhausted),
            .completion(              from: .retry,     .unless(.retryAfterWithinCap), to: .failure,   do: .finish, ends: .retryAfterBeyondCap),
            .completion(              from: .retry,     .unless(.withinDeadline),      to: .failure,   do: .finish, ends: .deadlineExceeded),
            // A retry the policy allows still needs a token from the shared budget (granted without one).
            .completion(              from: .retry,                                    to: .budget,    do: .askRetryBudget),

            .on(.budgetAnswered,      from: .budget,                                   to: .admission),

            .completion(              from: .admission, .unless(.retryBudgetLeft),     to: .failure,   do: .finish, ends: .budgetExhausted),
            .completion(              from: .admission, .when(.retryImmediately),      to: .limiter,   do: .notifyRetry, .askLimiter),
            .completion(              from: .admission,                                to: .wait,      do: .notifyRetry, .sleep),

            .on(.delayElapsed,        from: .wait,                                     to: .limiter,   do: .askLimiter),
            .on(.cancelled,           from: .wait,                                     to: .cancelled, do: .finish, ends: .cancelled),
        ]
    )
}
