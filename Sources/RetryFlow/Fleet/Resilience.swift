/// A policy together with the fleet's shared guards (budget, breaker, adaptive limiter): what one call passes so that every surface
/// (the engine, async, completion-handler and synchronous HTTP) runs under the same protection.
///
/// ```swift
/// let budget = try RetryBudget(.awsStandard)
/// let breaker = try CircuitBreaker(.polly)
/// let resilience = Resilience(policy: .default, budget: budget, breaker: breaker)
/// let value = try await Retry(resilience, clock: ContinuousClock()).run { _ in try await fetch() }
/// ```
public struct Resilience: Sendable {
    /// The run's own policy: attempts, backoff, timeouts.
    public var policy: RetryPolicy
    /// The shared budget and breaker.
    public var guards: FleetGuards
    /// Where the HTTP surfaces find a budget, a breaker and a limiter per host when ``guards`` has none.
    public var registry: ResilienceRegistry?

    /// A policy under these guards.
    public init(
        policy: RetryPolicy = .default, budget: RetryBudget? = nil, breaker: CircuitBreaker? = nil,
        whenCircuitOpen: CircuitOpenBehavior = .waitOutBreak, limiter: AdaptiveRateLimiter? = nil,
        whenRateLimited: RateLimitedBehavior = .waitForToken, registry: ResilienceRegistry? = nil
    ) {
        self.policy = policy
        self.guards = FleetGuards(
            budget: budget, breaker: breaker, whenCircuitOpen: whenCircuitOpen, limiter: limiter,
            whenRateLimited: whenRateLimited)
        self.registry = registry
    }

    /// The guards for calls to `key` (a host): this context's own, else the registry's for that key.
    package func guards(forKey key: String) -> FleetGuards {
        var resolved = guards
        if let registry {
            if resolved.budget == nil { resolved.budget = registry.budget(forKey: key) }
            if resolved.breaker == nil { resolved.breaker = registry.breaker(forKey: key) }
            if resolved.limiter == nil { resolved.limiter = registry.limiter(forKey: key) }
        }
        return resolved
    }
}
