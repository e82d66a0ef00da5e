/// What can happen to a retry run. The raw values are the edge labels on the charts.
public enum RetryEvent: String, TableSymbol {
    /// The driver was told to begin (`resume()`, `run`).
    case start
    /// The attempt produced a result the policy accepts.
    case succeeded
    /// The attempt threw, or produced a result the policy wants retried.
    case failed
    /// The attempt failed after it made progress the driver vouches for (a download cut after it
    /// wrote new bytes): the count of attempts and the backoff start over from it.
    case failedAfterProgress = "failed after progress"
    /// The attempt ran past the policy's per-attempt timeout and was cancelled.
    case attemptTimedOut = "attempt timed out"
    /// The adaptive rate limiter has a token for the try now (the `ask limiter` effect's answer,
    /// given at once without a limiter): it goes on to the breaker.
    case tokenGranted = "token granted"
    /// The adaptive rate limiter reserved a token for the try that is due only after a wait (the
    /// `ask limiter` effect's other answer): the run waits for it, or gives it back and fails.
    case rateLimited = "rate limited"
    /// The circuit breaker admitted the try (the `ask breaker` effect's answer, given at once without
    /// a breaker): it is sent as the next attempt.
    case admitted
    /// The circuit breaker refused the try (the `ask breaker` effect's other answer): it was not
    /// sent, and is no attempt.
    case circuitOpen = "circuit open"
    /// The retry budget answered the `ask retry budget` effect (granted or refused).
    case budgetAnswered = "budget answered"
    /// The backoff delay is over.
    case delayElapsed = "delay elapsed"
    /// The caller cancelled the run.
    case cancelled
    /// The overall deadline passed while an attempt was in flight.
    case deadlineExceeded = "deadline exceeded"
    /// A user's step (``RetryStep``) finished its action: the run goes on.
    case stepDone = "step done"
    /// A user's step threw: the run ends with the step's reason.
    case stepFailed = "step failed"
}
