/// A result classifier's answer for a value it does not accept: what to do, and why in words
/// (kept as the attempt's error description and in the trace).
///
/// ```swift
/// Retry(policy).outcome(classifyResult: { status in
///     status == 503 ? RetryVerdict(.retry, "HTTP 503") : nil   // nil accepts the value
/// }) { _ in try await load() }
/// ```
public struct RetryVerdict: Hashable, Sendable {
    /// Retry (after the backoff or a Retry-After), or fail.
    public var decision: RetryDecision
    /// Why, for people: e.g. `HTTP 503; Retry-After "soon" ignored (malformed)`.
    public var description: String
    /// Whether the value is a throttle (the server said "slow down"): an ``AdaptiveRateLimiter``
    /// sharing the run lowers its rate. HTTP's `ThrottleRules` (RetryFlowHTTP) set it.
    public var throttled: Bool

    /// Makes a verdict.
    public init(_ decision: RetryDecision, _ description: String, throttled: Bool = false) {
        self.decision = decision
        self.description = description
        self.throttled = throttled
    }
}
