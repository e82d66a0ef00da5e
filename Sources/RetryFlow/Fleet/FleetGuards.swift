/// The shared objects that protect a server from its whole fleet of clients: a retry budget, a
/// circuit breaker and an adaptive rate limiter (any of them, or none), and what a run does when
/// the breaker or the limiter refuses it.
public struct FleetGuards: Sendable {
    /// Caps retries across every run sharing it; `nil` for no cap.
    public var budget: RetryBudget?
    /// Refuses attempts while the server is failing; `nil` for none.
    public var breaker: CircuitBreaker?
    /// What a run does when the breaker refuses an attempt.
    public var whenCircuitOpen: CircuitOpenBehavior
    /// Paces every attempt (first attempts too) once the server has throttled; `nil` for none.
    public var limiter: AdaptiveRateLimiter?
    /// What a run does when the limiter has no token for an attempt.
    public var whenRateLimited: RateLimitedBehavior

    /// Guards made of these objects; by default none, a refused attempt waits out the break, and
    /// a rate-limited one waits for its token.
    public init(
        budget: RetryBudget? = nil, breaker: CircuitBreaker? = nil,
        whenCircuitOpen: CircuitOpenBehavior = .waitOutBreak,
        limiter: AdaptiveRateLimiter? = nil, whenRateLimited: RateLimitedBehavior = .waitForToken
    ) {
        self.budget = budget
        self.breaker = breaker
        self.whenCircuitOpen = whenCircuitOpen
        self.limiter = limiter
        self.whenRateLimited = whenRateLimited
    }
}

/// What a run does when the circuit breaker refuses an attempt.
public enum CircuitOpenBehavior: String, Hashable, Sendable, CaseIterable {
    /// Wait out the rest of the break like a Retry-After (the policy's Retry-After cap, deadline and
    /// retry budget still apply), or the policy's backoff while a half-open probe is in flight. The
    /// refused try uses up no attempt; a run waits out at most `maxAttempts` refusals.
    case waitOutBreak = "wait"
    /// End the run at once with ``StopReason/circuitOpen``.
    case fail
}
