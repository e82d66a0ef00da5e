/// One retry budget, one circuit breaker and one adaptive rate limiter per key (per host, for the
/// HTTP surfaces), made on first use: for users who do not want to manage them. Thread-safe.
///
/// ```swift
/// let registry = try ResilienceRegistry(budget: .awsStandard, breaker: .polly, limiter: .aws)
/// let options = HTTPRetryOptions(.default, registry: registry)
/// ```
public final class ResilienceRegistry: Sendable {
    private let made: Locked<[String: Entry]>
    private let make: @Sendable (String) -> Entry

    /// What one key has.
    private struct Entry {
        let budget: RetryBudget?
        let breaker: CircuitBreaker?
        let limiter: AdaptiveRateLimiter?
    }

    /// A registry making budgets of `budget` mode, breakers with `breaker` options and limiters
    /// with `limiter` options (none by default: AWS calls adaptive mode advanced), timed by `clock`
    /// (the real clock by default).
    public init<C: Clock<Duration>>(
        budget: RetryBudgetMode? = .awsStandard, breaker: CircuitBreakerOptions? = .polly,
        limiter: AdaptiveRateLimiterOptions? = nil, clock: C = ContinuousClock()
    ) throws(RetryPolicyError) {
        try budget?.validate()
        try breaker?.validate()
        try limiter?.validate()
        self.made = Locked([:])
        // Validated above, so making them cannot fail.
        self.make = { _ in
            Entry(
                budget: budget.flatMap { try? RetryBudget($0, clock: clock) },
                breaker: breaker.flatMap { try? CircuitBreaker($0, clock: clock) },
                limiter: limiter.flatMap { try? AdaptiveRateLimiter($0, clock: clock) })
        }
    }

    /// The budget for `key`, made on first use.
    package func budget(forKey key: String) -> RetryBudget? { entry(key).budget }

    /// The breaker for `key`, made on first use.
    package func breaker(forKey key: String) -> CircuitBreaker? { entry(key).breaker }

    /// The adaptive limiter for `key`, made on first use.
    package func limiter(forKey key: String) -> AdaptiveRateLimiter? { entry(key).limiter }

    /// `own` completed for `key`: each guard `own` has, else this registry's for the key.
    package func guards(forKey key: String, completing own: FleetGuards) -> FleetGuards {
        var resolved = own
        if resolved.budget == nil { resolved.budget = budget(forKey: key) }
        if resolved.breaker == nil { resolved.breaker = breaker(forKey: key) }
        if resolved.limiter == nil { resolved.limiter = limiter(forKey: key) }
        return resolved
    }

    /// The keys seen so far, sorted.
    package var keys: [String] { made.withLock { $0.keys.sorted() } }

    private func entry(_ key: String) -> Entry {
        made.withLock { table in
            if let entry = table[key] { return entry }
            let entry = make(key)
            table[key] = entry
            return entry
        }
    }
}
