import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Sends `request`, retrying under `options` (a policy, the HTTP rules, the fleet's guards:
    /// ``HTTPRetryOptions``), and returns the final answer.
    ///
    /// A final status that is not retried (a 404, a POST's 503) is returned, not thrown.
    ///
    /// ```swift
    /// let (data, response) = try await URLSession.shared.data(for: request, retry: .default)
    /// let (again, _) = try await URLSession.shared.data(for: request, retry: .policy(.originalSnippet()))
    /// ```
    /// - Throws: `RetryError` (with every attempt, the trace and the last response) when the run gives up;
    ///   `CancellationError` when the task is cancelled; `RetryPolicyError` for an invalid policy.
    public func data(for request: URLRequest, retry options: HTTPRetryOptions) async throws -> (Data, HTTPURLResponse) {
        let response = try await retryOutcome(for: request, retry: options).get()
        return (response.data, response.response)
    }

    /// Sends `request` like ``data(for:retry:)`` and returns the whole `RetryOutcome`: final
    /// state and reason, last response, every attempt, the trace. On `clock` (the real one by
    /// default; a `ManualClock` in tests, for the waits and timeouts); `transitions` receives every
    /// transition as it is taken, and is finished when the run ends.
    ///
    /// ```swift
    /// let outcome = try await URLSession.shared.retryOutcome(for: request)
    /// print(outcome.finalState, outcome.reason, outcome.attempts.count)
    /// ```
    public func retryOutcome<C: Clock<Duration>>(
        for request: URLRequest, retry options: HTTPRetryOptions = .default, clock: C = ContinuousClock(),
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        try await HTTPRetry(session: self, request: request, options: options, clock: clock)
            .outcome(transitions: transitions)
    }
}
