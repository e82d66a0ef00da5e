import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Sends `request`, retrying under `policy` and the HTTP `rules`, and returns the final answer.
    ///
    /// A final status that is not retried (a 404, a POST's 503) is returned, not thrown.
    ///
    /// ```swift
    /// let (data, response) = try await URLSession.shared.data(for: request, retry: .default)
    /// ```
    /// - Throws: `RetryError` (with every attempt, the trace and the last response) when the run gives up;
    ///   `CancellationError` when the task is cancelled; ``RetryPolicyError`` for an invalid policy.
    public func data(
        for request: URLRequest, retry policy: RetryPolicy, rules: HTTPRetryRules = .default,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) async throws -> (Data, HTTPURLResponse) {
        let outcome = try await retryOutcome(for: request, retry: policy, rules: rules, onRetry: onRetry)
        if outcome.finalState == .cancelled { throw CancellationError() }
        let response = try outcome.result.get()
        return (response.data, response.response)
    }

    /// Sends `request` like ``data(for:retry:rules:onRetry:)`` and returns the whole
    /// ``RetryOutcome``: final state and reason, last response, every attempt, the trace.
    public func retryOutcome(
        for request: URLRequest, retry policy: RetryPolicy = .default, rules: HTTPRetryRules = .default,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        try await retryOutcome(
            for: request, retry: policy, rules: rules, clock: ContinuousClock(), onRetry: onRetry,
            transitions: transitions)
    }

    /// The same on an injected clock (a ``ManualClock`` in tests, for the waits and timeouts), with
    /// a synchronous hook that sees every transition as it is taken (a live progress display).
    public func retryOutcome<C: Clock<Duration>>(
        for request: URLRequest, retry policy: RetryPolicy = .default, rules: HTTPRetryRules = .default, clock: C,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil,
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        try await HTTPRetry.prepared {
            var run = HTTPRetry(
                session: self, request: request, policy: policy, rules: rules, clock: clock, onRetry: onRetry)
            run.onTransition = onTransition
            return run
        }.outcome(transitions: transitions)
    }
}
