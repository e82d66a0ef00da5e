/// Passed to the `onRetry` hook before each retry: the original snippet's `errorHandler`, generalised.
public struct RetryNotice: Sendable {
    /// The attempt that failed, from 1; for a try the circuit breaker refused (never sent), the
    /// last attempt before it (0 when the first try was refused).
    public let attempt: Int
    /// Its error (``RejectedResult`` for a retried result, ``AttemptTimeout`` for a timeout, the
    /// breaker's ``CircuitRejection`` for a refused try).
    public let error: any Error
    /// The wait before the next attempt.
    public let delay: Duration
    /// Attempts still allowed after this failure (the snippet's `remainingTimes`).
    public let remainingAttempts: Int
}
