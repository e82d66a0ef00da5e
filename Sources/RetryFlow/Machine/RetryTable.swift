/// The retry machine's transition table, and the charts'.
public typealias RetryTable = TransitionTable<RetryState, RetryEvent, RetryGuard, RetryEffect>

extension TransitionTable where State == RetryState, Event == RetryEvent, Guard == RetryGuard, Effect == RetryEffect {
    /// The retry flowchart, as data. Read top to bottom: this is what runs, and what `diagrams/` draws.
    ///
    /// Rows for one state and event are tried in order; the first whose guard holds wins.
    /// Rows with no event fire as soon as their state is entered (the `retry` decision).
    public static let retry = RetryTable(
        name: "RetryFlow",
        initial: .idle,
        terminals: [.success, .failure, .cancelled],
        rows: [
            // from      event              guard                           to          effects
            .init(from: .idle, event: .start, to: .request, effects: [.startAttempt]),
            .init(from: .idle, event: .cancelled, to: .cancelled, effects: [.finish]),

            .init(from: .request, event: .succeeded, to: .success, effects: [.finish]),
            .init(from: .request, event: .failed, to: .retry),
            .init(from: .request, event: .attemptTimedOut, to: .retry, effects: [.cancelAttempt]),
            .init(from: .request, event: .cancelled, to: .cancelled, effects: [.cancelAttempt, .finish]),
            .init(from: .request, event: .deadlineExceeded, to: .failure, effects: [.cancelAttempt, .finish]),
            // The breaker refused the attempt (nothing was sent): wait out the break like a Retry-After, or fail.
            .init(from: .request, event: .circuitOpen, condition: .when(.waitsOutBreak), to: .retry),
            .init(from: .request, event: .circuitOpen, to: .failure, effects: [.finish]),

            .init(from: .retry, event: nil, condition: .unless(.retryable), to: .failure, effects: [.finish]),
            .init(from: .retry, event: nil, condition: .unless(.attemptsLeft), to: .failure, effects: [.finish]),
            .init(from: .retry, event: nil, condition: .unless(.retryAfterWithinCap), to: .failure, effects: [.finish]),
            .init(from: .retry, event: nil, condition: .unless(.withinDeadline), to: .failure, effects: [.finish]),
            // A retry the policy allows still needs a token from the shared budget (granted without one).
            .init(from: .retry, event: nil, to: .budget, effects: [.askRetryBudget]),

            .init(from: .budget, event: .budgetAnswered, condition: .unless(.retryBudgetLeft), to: .failure,
                  effects: [.finish]),
            .init(from: .budget, event: .budgetAnswered, condition: .when(.retryImmediately), to: .request,
                  effects: [.notifyRetry, .startAttempt]),
            .init(from: .budget, event: .budgetAnswered, to: .wait, effects: [.notifyRetry, .sleep]),

            .init(from: .wait, event: .delayElapsed, to: .request, effects: [.startAttempt]),
            .init(from: .wait, event: .cancelled, to: .cancelled, effects: [.finish]),
        ]
    )
}
