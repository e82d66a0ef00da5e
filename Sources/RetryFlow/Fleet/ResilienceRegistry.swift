/// One retry budget and one circuit breaker per key (per host, for the HTTP surfaces), made on
/// first use: for users who do not want to manage them. Thread-safe.
///
/// ```swift
/// let registry = ResilienceRegistry(budget: .awsStandard, breaker: .polly)
/// let resilience = Resilience(policy: .default, registry: registry)
/// ```
public final class ResilienceRegistry: Sendable {
    /// The mode of every budget it makes; `nil` for none.
    public let budgetMode: RetryBudgetMode?
    /// The options of every breaker it makes; `nil` for none.
    public let breakerOptions: CircuitBreakerOptions?
    private let made: Locked<[String: (RetryBudget?, CircuitBreaker?)]>
    private let make: @Sendable (String) -> (RetryBudget?, CircuitBreaker?)

    /// A registry making budgets of `budget` mode and breakers with `breaker` options, timed by `clock`.
    public init<C: Clock<Duration>>(
        budget: RetryBudgetMode? = .awsStandard, breaker: CircuitBreakerOptions? = .polly, clock: C
    ) throws(RetryPolicyError) {
        try budget?.validate()
        try breaker?.validate()
        self.budgetMode = budget
        self.breakerOptions = breaker
        self.made = Locked([:])
        // Validated above, so making them cannot fail.
        self.make = { _ in
            (
                budget.flatMap { try? RetryBudget($0, clock: clock) },
                breaker.flatMap { try? CircuitBreaker($0, clock: clock) }
            )
        }
    }

    /// A registry on the real clock.
    public convenience init(
        budget: RetryBudgetMode? = .awsStandard, breaker: CircuitBreakerOptions? = .polly
    ) throws(RetryPolicyError) {
        try self.init(budget: budget, breaker: breaker, clock: ContinuousClock())
    }

    /// The budget for `key`, made on first use.
    public func budget(forKey key: String) -> RetryBudget? { entry(key).0 }

    /// The breaker for `key`, made on first use.
    public func breaker(forKey key: String) -> CircuitBreaker? { entry(key).1 }

    /// The keys seen so far, sorted.
    public var keys: [String] { made.withLock { $0.keys.sorted() } }

    private func entry(_ key: String) -> (RetryBudget?, CircuitBreaker?) {
        made.withLock { table in
            if let entry = table[key] { return entry }
            let entry = make(key)
            table[key] = entry
            return entry
        }
    }
}
