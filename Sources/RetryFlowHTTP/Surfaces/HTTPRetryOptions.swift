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
    public var policy: RetryPolicy {
        get { storage.policy }
        set { unique().policy = newValue }
    }
    /// What HTTP statuses, headers and transport errors mean.
    public var rules: HTTPRetryRules {
        get { storage.rules }
        set { unique().rules = newValue }
    }
    /// Hedging (gRPC A6): each attempt becomes a race of up to `maxAttempts` copies of the request,
    /// one more every `delay` while none has answered, the first acceptable answer winning and the
    /// others cancelled and awaited (docs/hedging.md). It needs a request safe to send more than
    /// once: a request the rules do not hold safe to repeat (a POST or PATCH without an
    /// `Idempotency-Key`) is sent one copy at a time, and a body stream, which can be sent only once,
    /// is refused with a `RetryPolicyError` naming `hedging`, as is a download to a file. `nil`
    /// (the default) sends one copy at a time. Validated with the policy, before anything is sent.
    public var hedging: HedgingPolicy? {
        get { storage.hedging }
        set { unique().hedging = newValue }
    }
    /// The fleet's shared retry budget, circuit breaker and rate limiter (none by default).
    public var guards: FleetGuards {
        get { storage.guards }
        set { unique().guards = newValue }
    }
    /// Where a budget, a breaker and a limiter for the request's host come from when ``guards`` has none.
    public var registry: ResilienceRegistry? {
        get { storage.registry }
        set { unique().registry = newValue }
    }
    /// Called before each wait between attempts.
    public var onRetry: (@Sendable (RetryNotice) -> Void)? {
        get { storage.onRetry }
        set { unique().onRetry = newValue }
    }
    /// Called synchronously with every transition as the machine takes it (a live progress display).
    public var onTransition: (@Sendable (RetryTrace.Step) -> Void)? {
        get { storage.onTransition }
        set { unique().onTransition = newValue }
    }

    /// The fields, behind one reference, copied on the first change of a shared value: options made
    /// in a call (`retry: .policy(p)`) then cost a pointer in the caller's async frame, not the
    /// policy and rules themselves, and a parked retry keeps its deepest frames (docs/benchmarks.md).
    private final class Storage: @unchecked Sendable {
        // @unchecked: changed only through `unique()`, while no other value shares it.
        var policy: RetryPolicy
        var rules: HTTPRetryRules
        var hedging: HedgingPolicy?
        var guards = FleetGuards()
        var registry: ResilienceRegistry?
        var onRetry: (@Sendable (RetryNotice) -> Void)?
        var onTransition: (@Sendable (RetryTrace.Step) -> Void)?

        init(policy: RetryPolicy, rules: HTTPRetryRules) {
            self.policy = policy
            self.rules = rules
        }

        func copy() -> Storage {
            let copy = Storage(policy: policy, rules: rules)
            copy.hedging = hedging
            copy.guards = guards
            copy.registry = registry
            copy.onRetry = onRetry
            copy.onTransition = onTransition
            return copy
        }
    }

    private var storage: Storage

    /// The storage, first copied if another value shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Options for `policy` under `rules`, with no shared guards.
    public init(
        _ policy: RetryPolicy = .default, rules: HTTPRetryRules = .default,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil, onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil
    ) {
        storage = Storage(policy: policy, rules: rules)
        storage.onRetry = onRetry
        storage.onTransition = onTransition
    }

    /// Options for a `Resilience`: its policy, guards and registry, under `rules`.
    ///
    /// ```swift
    /// let registry = try ResilienceRegistry(budget: .awsStandard, breaker: .polly)
    /// let (data, _) = try await URLSession.shared.data(
    ///     for: request, retry: HTTPRetryOptions(Resilience(registry: registry)))
    /// ```
    public init(
        _ resilience: Resilience, rules: HTTPRetryRules = .default,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil, onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil
    ) {
        self.init(resilience.policy, rules: rules, onRetry: onRetry, onTransition: onTransition)
        self.guards = resilience.guards
        self.registry = resilience.registry
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
        guard registry != nil else { return guards }
        var resilience = Resilience(policy: policy, registry: registry)
        resilience.guards = guards
        return resilience.guards(forKey: request.url?.host ?? "")
    }
}

extension HTTPRetryOptions: CustomReflectable {
    /// The fields as `Mirror` would list them if they were stored in the value: ``policy``,
    /// ``rules``, ``hedging``, ``guards``, ``registry``, ``onRetry``, ``onTransition``. They live
    /// behind one storage reference (a performance device: options made in a call cost a pointer,
    /// docs/benchmarks.md), so a plain mirror would show only that reference. The children are the
    /// storage's own mirror's, not a list kept by hand, so a field added to the storage shows here at
    /// once, and the test holding every setting against a run that feels it
    /// (Tests/RetryFlowHTTPTests/EverySettingIsFeltTests.swift) names it until it has a row.
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: storage).children, displayStyle: .struct)
    }
}
