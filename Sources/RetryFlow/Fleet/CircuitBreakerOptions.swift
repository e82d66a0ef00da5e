/// When a ``CircuitBreaker`` opens and how long it stays open. Defaults are Polly v8's.
public struct CircuitBreakerOptions: Hashable, Sendable {
    /// What trips the breaker.
    public enum Trip: Hashable, Sendable {
        /// Failures ÷ calls in the last `samplingDuration` reach `ratio`, over at least
        /// `minimumThroughput` calls (Polly v8's advanced breaker).
        case failureRatio(Double, minimumThroughput: Int, samplingDuration: Duration)
        /// `count` failures in a row (Polly's classic breaker, resilience4j's count-based window of one kind).
        case consecutiveFailures(Int)
    }

    /// What trips it.
    public var trip: Trip
    /// How long it stays open before letting one probe through.
    public var breakDuration: Duration

    /// Makes options; every argument has Polly v8's default.
    public init(
        trip: Trip = .failureRatio(0.1, minimumThroughput: 100, samplingDuration: .seconds(30)),
        breakDuration: Duration = .seconds(5)
    ) {
        self.trip = trip
        self.breakDuration = breakDuration
    }

    /// Polly v8's defaults: failure ratio 0.1 over at least 100 calls in 30 s; open for 5 s.
    public static let polly = CircuitBreakerOptions()

    /// Throws ``RetryPolicyError`` naming the bad field.
    package func validate() throws(RetryPolicyError) {
        guard breakDuration > .zero, breakDuration <= Duration.policyLimit else {
            throw RetryPolicyError(field: "breaker.breakDuration", problem: "must be more than 0 s and not absurd")
        }
        switch trip {
        case .failureRatio(let ratio, let minimumThroughput, let samplingDuration):
            guard ratio.isFinite, ratio > 0, ratio <= 1 else {
                throw RetryPolicyError(
                    field: "breaker.failureRatio", problem: "must be more than 0 and at most 1 (got \(ratio))")
            }
            guard minimumThroughput >= 1 else {
                throw RetryPolicyError(
                    field: "breaker.minimumThroughput", problem: "must be at least 1 (got \(minimumThroughput))")
            }
            guard samplingDuration > .zero, samplingDuration <= Duration.policyLimit else {
                throw RetryPolicyError(
                    field: "breaker.samplingDuration", problem: "must be more than 0 s and not absurd")
            }
        case .consecutiveFailures(let count):
            guard count >= 1 else {
                throw RetryPolicyError(
                    field: "breaker.consecutiveFailures", problem: "must be at least 1 (got \(count))")
            }
        }
    }
}
