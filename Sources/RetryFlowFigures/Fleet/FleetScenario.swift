import RetryFlow

/// A fleet of clients against a scripted server, for ``FleetSimulation``: who sends what, when the
/// server fails, and what protects it.
///
/// Every client sends one request every `interval` (open loop: a new request does not wait for the
/// previous one, as real traffic does not), staggered evenly across the interval. The clients share
/// one retry budget and one circuit breaker, as the requests of one process to one host do
/// (``ResilienceRegistry`` keeps one of each per host).
package struct FleetScenario: Sendable {
    /// How many clients.
    package var clients: Int
    /// How long the simulation runs (first attempts are sent before this; retries may run past it).
    package var duration: Duration
    /// Time between one client's requests.
    package var interval: Duration
    /// When the server answers 503 (every request, unless `failureRate` says fewer); healthy (200) otherwise.
    package var outage: Range<Duration>
    /// The share of requests answered 503 during the outage, from 0 to 1 (1: a full outage); which
    /// ones is drawn from `seed`, request by request.
    package var failureRate: Double
    /// Every request's policy.
    package var policy: RetryPolicy
    /// The shared budget's mode; `nil` for none.
    package var budget: RetryBudgetMode?
    /// The shared breaker's options; `nil` for none.
    package var breaker: CircuitBreakerOptions?
    /// What a run does when the breaker refuses it.
    package var whenCircuitOpen: CircuitOpenBehavior
    /// Seed for jitter; client `i` draws from `seed + i`.
    package var seed: UInt64

    /// A scenario; by default 100 clients, 1 request/s each for 60 s, a full outage from 10 s to 30 s,
    /// 4 attempts with exponential backoff from 0.5 s and full jitter, no budget, no breaker.
    package init(
        clients: Int = 100, duration: Duration = .seconds(60), interval: Duration = .seconds(1),
        outage: Range<Duration> = Duration.seconds(10)..<Duration.seconds(30),
        policy: RetryPolicy = RetryPolicy(maxAttempts: 4), budget: RetryBudgetMode? = nil,
        breaker: CircuitBreakerOptions? = nil, whenCircuitOpen: CircuitOpenBehavior = .waitOutBreak, seed: UInt64 = 1,
        failureRate: Double = 1
    ) {
        self.failureRate = failureRate
        self.clients = clients
        self.duration = duration
        self.interval = interval
        self.outage = outage
        self.policy = policy
        self.budget = budget
        self.breaker = breaker
        self.whenCircuitOpen = whenCircuitOpen
        self.seed = seed
    }

    /// Throws ``RetryPolicyError`` naming the first field that cannot work.
    package func validate() throws(RetryPolicyError) {
        try policy.validate()
        try budget?.validate()
        try breaker?.validate()
        guard (1...10_000).contains(clients) else {
            throw RetryPolicyError(field: "clients", problem: "must be from 1 to 10000 (got \(clients))")
        }
        guard duration > .zero, duration <= .seconds(3600) else {
            throw RetryPolicyError(field: "duration", problem: "must be more than 0 s and at most 3600 s")
        }
        guard interval >= .milliseconds(1), interval <= duration else {
            throw RetryPolicyError(field: "interval", problem: "must be from 1 ms to the duration")
        }
        guard failureRate.isFinite, failureRate >= 0, failureRate <= 1 else {
            throw RetryPolicyError(field: "failure-rate", problem: "must be from 0 to 1 (got \(failureRate))")
        }
        guard outage.lowerBound >= .zero else {
            throw RetryPolicyError(field: "outage", problem: "must not start before 0 s")
        }
        let requests = Double(clients) * (duration / interval).rounded(.up)
        guard requests <= 200_000 else {
            throw RetryPolicyError(
                field: "clients", problem: "too many requests to simulate (\(Int(requests)) > 200000)")
        }
    }
}
