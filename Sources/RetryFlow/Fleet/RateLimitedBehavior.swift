/// What a run does when the ``AdaptiveRateLimiter`` has no token for its attempt.
public enum RateLimitedBehavior: String, Hashable, Sendable, CaseIterable {
    /// Wait for the token on the run's clock, if it comes before the deadline (AWS's behaviour);
    /// the run ends with ``StopReason/deadlineExceeded`` when it would not.
    case waitForToken = "wait"
    /// End the run at once with its own reason, so a service can answer 429 upstream instead of
    /// holding the request (what botocore cannot do, botocore#3179).
    case fail
}
