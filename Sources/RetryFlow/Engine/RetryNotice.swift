/// Passed to the `onRetry` hook before each retry: the original snippet's `errorHandler`, generalised.
public struct RetryNotice: Sendable {
    /// The attempt that failed, from 1.
    public let attempt: Int
    /// Its error (``RejectedResult`` for a retried result, ``AttemptTimeout`` for a timeout).
    public let error: any Error
    /// The wait before the next attempt.
    public let delay: Duration
    /// Attempts still allowed after this failure (the snippet's `remainingTimes`).
    public let remainingAttempts: Int
}
