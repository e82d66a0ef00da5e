/// The shared objects that protect a server from its whole fleet of clients: a retry budget and a
/// circuit breaker (either, both or neither), and what a run does when the breaker refuses it.
public struct FleetGuards: Sendable {
    /// Caps retries across every run sharing it; `nil` for no cap.
    public var budget: RetryBudget?
    /// Refuses attempts while the server is failing; `nil` for none.
    public var breaker: CircuitBreaker?
    /// What a run does when the breaker refuses an attempt.
    public var whenCircuitOpen: CircuitOpenBehavior

    /// Guards made of these objects; by default none, and a refused attempt waits out the break.
    public init(
        budget: RetryBudget? = nil, breaker: CircuitBreaker? = nil, whenCircuitOpen: CircuitOpenBehavior = .waitOutBreak
    ) {
        self.budget = budget
        self.breaker = breaker
        self.whenCircuitOpen = whenCircuitOpen
    }
}

/// What a run does when the circuit breaker refuses an attempt.
public enum CircuitOpenBehavior: String, Hashable, Sendable, CaseIterable {
    /// Wait out the rest of the break like a Retry-After (the policy's attempts, cap and deadline
    /// still apply), or the policy's backoff while a half-open probe is in flight.
    case waitOutBreak = "wait"
    /// End the run at once with ``StopReason/circuitOpen``.
    case fail
}
