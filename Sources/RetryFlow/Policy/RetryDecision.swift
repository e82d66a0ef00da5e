/// What a classifier says about one failed attempt (an error, or a result it does not accept).
public enum RetryDecision: Hashable, Sendable {
    /// Retry after the policy's backoff delay.
    case retry
    /// Retry after exactly this delay (a server's Retry-After), never earlier.
    case retryAfter(Duration)
    /// Do not retry: the run ends in `failure` as not retryable.
    case fail

    /// Whether the decision allows another attempt (the `retryable` guard).
    public var isRetryable: Bool { self != .fail }
}
