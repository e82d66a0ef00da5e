import RetryFlow

/// Hedging, gRPC A6's `hedgingPolicy`: send the first attempt at once, another every ``delay`` while
/// none has answered, up to ``maxAttempts`` in all, and take the first acceptable answer; every
/// other attempt is cancelled and awaited. An HTTP setting: set it on RetryFlowHTTP's
/// `HTTPRetryOptions.hedging` (`nil`, the default, sends one attempt at a time), which hedges only
/// requests safe to send more than once, and refuses invalid settings before anything is sent.
///
/// ```swift
/// var options = HTTPRetryOptions.default
/// options.hedging = HedgingPolicy(delay: .milliseconds(50), maxAttempts: 2)   // one hedge
/// ```
///
/// Polly v8's `HedgingStrategyOptions` differ: `MaxHedgedAttempts` counts hedges only (1 by
/// default, up to 10; here `maxAttempts` counts the first attempt too, up to 5 as in A6), its
/// default delay is 2 s, and it sends the next hedge on *any* failure (here only non-fatal ones do;
/// a fatal one ends the run at once, as in A6). Polly asks no retry budget; here, as in A6, a hedge
/// goes out only while the budget allows it.
public struct HedgingPolicy: Hashable, Sendable {
    /// The most attempts in flight and in total, the first included: from 1 (no hedge) to 5 (A6's cap).
    public var maxAttempts: Int
    /// The wait after each attempt before the next hedge, while none has answered.
    public var delay: Duration

    /// The most attempts A6 allows.
    package static let attemptLimit = 5

    /// Hedging after `delay`, up to `maxAttempts` attempts (2 by default: one hedge).
    public init(delay: Duration, maxAttempts: Int = 2) {
        self.delay = delay
        self.maxAttempts = maxAttempts
    }

    /// Throws `RetryPolicyError` naming the field that cannot work.
    package func validate() throws(RetryPolicyError) {
        guard (1...Self.attemptLimit).contains(maxAttempts) else {
            throw RetryPolicyError(
                field: "hedging.maxAttempts", problem: "must be from 1 to \(Self.attemptLimit) (got \(maxAttempts))")
        }
        try RetryPolicy.check(delay, field: "hedging.delay")
    }
}
