import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One retried HTTP request: the engine configured with the HTTP rules, driving `URLSession`.
/// Every public surface (async, completion handler, synchronous, the original shapes) runs this.
struct HTTPRetry<C: Clock<Duration>>: Sendable {
    let session: URLSession
    let request: URLRequest
    let policy: RetryPolicy
    let rules: HTTPRetryRules
    let clock: C
    var onRetry: (@Sendable (RetryNotice) -> Void)?
    var onTransition: (@Sendable (RetryTrace.Step) -> Void)?

    func outcome(
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        var policy = self.policy
        let rules = self.rules
        let request = self.request
        let session = self.session
        policy.retryIf = RetryClassifier { rules.decision(for: $0, request: request) }
        var engine = Retry(policy, clock: clock, onRetry: onRetry)
        engine.describeError = { Redaction.describe($0) }
        engine.onTransition = onTransition
        return try await engine.outcome(
            classifyResult: { rules.verdict(for: $0.response, request: request, now: Date()) },
            transitions: transitions
        ) { _ in
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return HTTPResponse(data: data, response: http)
        }
    }
}

extension RetryOutcome where Value == HTTPResponse {
    /// What the callers of the HTTP API get: the response when the run succeeded, and also when it
    /// ended on a final answer it was not allowed to retry (a POST's 503 is still the server's
    /// answer); otherwise an ``HTTPRetryError`` with every attempt.
    public var httpResult: Result<HTTPResponse, HTTPRetryError> {
        if let value, succeeded || (finalState == .failure && reason == .notRetryable && attempts.last?.error is RejectedResult) {
            return .success(value)
        }
        return .failure(HTTPRetryError(outcome: self))
    }
}
