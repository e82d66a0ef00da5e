import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP surfaces under a ``Resilience``: a policy with the fleet's shared retry budget and
/// circuit breaker, passed once. Without its own budget or breaker, a context with a registry uses
/// the registry's for the request's host.
extension URLSession {
    /// Sends `request` like ``data(for:retry:rules:onRetry:)``, under `resilience`.
    ///
    /// ```swift
    /// let registry = try ResilienceRegistry(budget: .awsStandard, breaker: .polly)
    /// let (data, _) = try await URLSession.shared.data(for: request, resilience: Resilience(registry: registry))
    /// ```
    public func data(
        for request: URLRequest, resilience: Resilience, rules: HTTPRetryRules = .default,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) async throws -> (Data, HTTPURLResponse) {
        let outcome = try await retryOutcome(for: request, resilience: resilience, rules: rules, onRetry: onRetry)
        if outcome.finalState == .cancelled { throw CancellationError() }
        let response = try outcome.result.get()
        return (response.data, response.response)
    }

    /// The whole ``RetryOutcome`` of `request` under `resilience`, on `clock`.
    public func retryOutcome<C: Clock<Duration>>(
        for request: URLRequest, resilience: Resilience, rules: HTTPRetryRules = .default, clock: C,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        try await HTTPRetry.prepared {
            var run = HTTPRetry(
                session: self, request: request, policy: resilience.policy, rules: rules, clock: clock,
                onRetry: onRetry)
            run.guards = resilience.guards(forRequest: request)
            return run
        }.outcome(transitions: transitions)
    }

    /// The whole ``RetryOutcome`` of `request` under `resilience`, on the real clock.
    public func retryOutcome(
        for request: URLRequest, resilience: Resilience, rules: HTTPRetryRules = .default,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        try await retryOutcome(
            for: request, resilience: resilience, rules: rules, clock: ContinuousClock(), onRetry: onRetry,
            transitions: transitions)
    }

    /// A retried request under `resilience` whose `completionHandler` runs exactly once (see
    /// ``retryDataTask(with:retry:rules:onRetry:completionHandler:)``).
    public func retryDataTask(
        with request: URLRequest, resilience: Resilience, rules: HTTPRetryRules = .default,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        completionHandler: @escaping @Sendable (RetryOutcome<HTTPResponse>) -> Void
    ) throws(RetryPolicyError) -> RetryDataTask {
        try resilience.policy.validate()
        var run = HTTPRetry(
            session: self, request: request, policy: resilience.policy, rules: rules, clock: ContinuousClock(),
            onRetry: onRetry)
        run.guards = resilience.guards(forRequest: request)
        return RetryDataTask(run: run, queue: delegateQueue, completion: completionHandler)
    }

    /// The synchronous variant under `resilience`: blocks until the run is over.
    ///
    /// - Throws: ``SynchronousCallError`` where it would deadlock; ``RetryPolicyError`` for an invalid policy.
    @available(*, noasync, message: "blocks a thread; use retryOutcome(for:resilience:) in async code")
    public func synchronousRetryOutcome(
        for request: URLRequest, resilience: Resilience, rules: HTTPRetryRules = .default,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) throws -> RetryOutcome<HTTPResponse> {
        var run = HTTPRetry(
            session: self, request: request, policy: resilience.policy, rules: rules, clock: ContinuousClock(),
            onRetry: onRetry)
        run.guards = resilience.guards(forRequest: request)
        return try runBlocking(run)
    }
}

extension HTTPRetryRun {
    /// The outcome of `request` sent through `transport` under `resilience` (simulations, users' tests).
    public static func outcome<C: Clock<Duration>>(
        for request: URLRequest, resilience: Resilience, rules: HTTPRetryRules = .default, clock: C,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil,
        transport: @escaping @Sendable (URLRequest) async throws -> HTTPResponse
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        try await HTTPRetry.prepared {
            var run = HTTPRetry(
                transport: transport, request: request, policy: resilience.policy, rules: rules, clock: clock)
            run.onTransition = onTransition
            run.random = random
            run.guards = resilience.guards(forRequest: request)
            return run
        }.outcome()
    }
}

extension Resilience {
    /// The guards for `request`'s host (the registry is keyed by host).
    func guards(forRequest request: URLRequest) -> FleetGuards {
        guards(forKey: request.url?.host ?? "")
    }
}
