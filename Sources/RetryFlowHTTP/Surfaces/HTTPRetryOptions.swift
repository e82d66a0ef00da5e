import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything one retried HTTP call runs under, passed as `retry:` in the same way on every
/// `URLSession` surface (async, completion handler, synchronous, download) and to ``HTTPRetryRun``:
/// the policy (attempts, backoff, timeouts, `retryIf`, the table and its user steps), the HTTP
/// rules, hedging, the fleet's budget, breaker and limiter, and the hooks that watch the run.
///
/// A policy alone is `.policy(p)`; `.default` is the default policy under the default rules.
///
/// ```swift
/// let (data, _) = try await URLSession.shared.data(for: request, retry: .default)
/// let (again, _) = try await URLSession.shared.data(for: request, retry: .policy(.originalSnippet()))
///
/// var options = HTTPRetryOptions(.default, rules: .transportErrorsOnly)
/// options.rules.failingStatuses = [404]
/// options.guards.breaker = try CircuitBreaker(.polly)
/// options.onRetry = { notice in print("retrying:", notice.error) }
/// let outcome = try await URLSession.shared.retryOutcome(for: request, retry: options)
/// ```
///
/// Thrown errors are judged by ``rules`` first; an error they would retry is then asked of the
/// policy's own `retryIf`, which may refuse it (it narrows the rules, never widens them).
public struct HTTPRetryOptions: Sendable {
    /// When to retry, how long to wait, when to give up; its `table` and `steps` are the machine the run executes.
    public var policy: RetryPolicy
    /// What HTTP statuses, headers and transport errors mean.
    public var rules: HTTPRetryRules
    /// Hedging (gRPC A6): each attempt becomes a race of up to `maxAttempts` copies of the request,
    /// one more every `delay` while none has answered, the first acceptable answer winning and the
    /// others cancelled and awaited (docs/hedging.md). It needs a request safe to send more than
    /// once: a request the rules do not hold safe to repeat (a POST or PATCH without an
    /// `Idempotency-Key`) is sent one copy at a time, and a body stream, which can be sent only once,
    /// is refused with a `RetryPolicyError` naming `hedging`, as is a download to a file. `nil`
    /// (the default) sends one copy at a time. Validated with the policy, before anything is sent.
    public var hedging: HedgingPolicy?
    /// The fleet's shared retry budget, circuit breaker and rate limiter (none by default).
    public var guards: FleetGuards
    /// Where a budget, a breaker and a limiter for the request's host come from when ``guards`` has none.
    public var registry: ResilienceRegistry?
    /// Called before each wait between attempts.
    public var onRetry: (@Sendable (RetryNotice) -> Void)?
    /// Called synchronously with every transition as the machine takes it (a live progress display).
    public var onTransition: (@Sendable (RetryTrace.Step) -> Void)?

    /// Options for `policy` under `rules`, with the fleet's `guards` (none by default) and a
    /// `registry` that supplies each host's guards where `guards` has none.
    ///
    /// ```swift
    /// let registry = try ResilienceRegistry(budget: .awsStandard, breaker: .polly)
    /// let (data, _) = try await URLSession.shared.data(
    ///     for: request, retry: HTTPRetryOptions(.default, registry: registry))
    /// ```
    public init(
        _ policy: RetryPolicy = .default, rules: HTTPRetryRules = .default, guards: FleetGuards = FleetGuards(),
        registry: ResilienceRegistry? = nil, onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil
    ) {
        self.policy = policy
        self.rules = rules
        self.guards = guards
        self.registry = registry
        self.onRetry = onRetry
        self.onTransition = onTransition
    }

    /// The default policy under the default rules.
    public static let `default` = HTTPRetryOptions()

    /// `policy` under the default rules: `retry: .policy(.originalSnippet())`.
    public static func policy(_ policy: RetryPolicy) -> HTTPRetryOptions { HTTPRetryOptions(policy) }

    /// Throws `RetryPolicyError` naming what cannot work, as every surface does before
    /// the first request: the policy (`RetryPolicy.validate()`), the hedging policy, and the steps
    /// against the rules: a status rule (``HTTPRetryRules/statusSteps``) or the classifier naming a
    /// step the policy does not have, or a step entered on a verdict that nothing sends failures to.
    public func validate() throws(RetryPolicyError) {
        try policy.validate()
        try hedging?.validate()
        try rules.validateSteps(of: policy)
    }

    /// The guards for `request`: ``guards``, else the registry's for the request's host.
    func guards(for request: URLRequest) -> FleetGuards {
        // No registry: nothing is looked up by host, and the URL's host is not decoded for nothing
        // (once a request, it showed in nginx-concurrency's profile).
        guard let registry else { return guards }
        return registry.guards(forKey: request.url?.host ?? "", completing: guards)
    }
}
