import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPRetryRules {
    /// Whether `request` may be sent again: an idempotent method, an idempotency key, or the opt-in.
    package func isSafeToRepeat(_ request: URLRequest) -> Bool {
        let method = (request.httpMethod ?? "GET").uppercased()
        return retryNonIdempotent || idempotentMethods.contains(method)
            || request.value(forHTTPHeaderField: idempotencyKeyHeader) != nil
    }

    /// The decision for an error an attempt of `request` threw. Timeouts of the engine count as
    /// `URLError.timedOut`; other errors than `URLError` are not retried.
    package func decision(for error: any Error, request: URLRequest) -> RetryDecision {
        let code: Int
        if let urlError = error as? URLError {
            code = urlError.code.rawValue
        } else if error is AttemptTimeout {
            code = URLError.Code.timedOut.rawValue
        } else {
            return .fail
        }
        guard retryableErrorCodes.contains(code) else { return .fail }
        return isSafeToRepeat(request) || neverSentErrorCodes.contains(code) ? .retry : .fail
    }

    /// The verdict on `answer` (response and body) to `request` at `now`: a body over
    /// ``maxBodyBytes`` fails the run; a throttle (``throttling``) is retried and marked
    /// `RetryVerdict.throttled`; anything else is judged by its response, as below.
    package func verdict(for answer: HTTPResponse, request: URLRequest, now: Date) -> RetryVerdict? {
        if let maxBodyBytes, answer.data.count > maxBodyBytes {
            return RetryVerdict(.fail, "the body has \(answer.data.count) bytes, more than the \(maxBodyBytes) allowed")
        }
        guard throttling.throttle(in: answer) != nil else {
            return verdict(for: answer.response, request: request, now: now)
        }
        // A throttle is marked for the adaptive limiter, and retried like a retryable status even
        // when its status is not one (DynamoDB's 400 ProvisionedThroughputExceededException).
        var rules = self
        rules.retryableStatuses.insert(answer.statusCode)
        // The words stay the status's (traces and timelines read as before); the flag carries it.
        guard var verdict = rules.verdict(for: answer.response, request: request, now: now) else { return nil }
        verdict.throttled = true
        return verdict
    }

    /// The verdict on a response to `request` received at `now`: `nil` accepts it (a 2xx); otherwise
    /// why it is retried (after the wait its Retry-After or rate-limit headers ask for, if honoured),
    /// why it is the caller's final answer (a status neither retried nor failed, such as a 404, or a
    /// retryable one not safe to repeat: a POST's 503), or why it fails the run (one of the
    /// ``failingStatuses``).
    package func verdict(for response: HTTPURLResponse, request: URLRequest, now: Date) -> RetryVerdict? {
        let status = response.statusCode
        // Words only for a verdict: an accepted answer (every success) builds no string.
        var what: String { "HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status))" }
        if let step = statusSteps[status] { return RetryVerdict(.step(step), "\(what) goes to \(step.name)") }
        guard retryableStatuses.contains(status) else {
            if failingStatuses.contains(status) { return RetryVerdict(.fail, "\(what) is a failure (failing status)") }
            // Only a 2xx is a success. Any other status the rules neither retry nor fail (a 404) is
            // the caller's answer: the run ends in `answered` and hands it over as a value.
            return (200..<300).contains(status) ? nil : RetryVerdict(.finalAnswer, "\(what) is the final answer")
        }
        guard isSafeToRepeat(request) else {
            // A failing status is a failure even when it cannot be retried: never an answer.
            if failingStatuses.contains(status) { return RetryVerdict(.fail, "\(what) is a failure (failing status)") }
            let method = (request.httpMethod ?? "GET").uppercased()
            return RetryVerdict(
                .finalAnswer,
                "\(what); \(method) is not idempotent, so it is not sent again (add \(idempotencyKeyHeader) or opt in)")
        }
        return pushbackVerdict(for: response, what: what, now: now)
    }
}

extension RetryClassifier {
    /// The classifier of thrown errors on every HTTP surface, downloads included (docs/http.md, "Your
    /// `retryIf` and the rules"): `rules` decide first; an error they would retry is then asked of
    /// `user`, whose answer stands unless it retries too (then the rules' decision, with its delay,
    /// is kept). A user's classifier narrows the rules, or sends an error to a step; it never widens them.
    static func http(
        _ rules: @escaping @Sendable (any Error) -> RetryDecision, narrowedBy user: RetryClassifier
    ) -> RetryClassifier {
        RetryClassifier(sendingTo: user.steps) { error in
            let decision = rules(error)
            guard decision.isRetryable else { return decision }
            let mine = user.decision(for: error)
            return mine.isRetryable ? decision : mine
        }
    }
}

extension HTTPRetryRules {
    /// Throws unless these rules and `policy`'s steps fit: every step a status rule or the policy's
    /// classifier sends failures to is one of the policy's, and every step entered on a verdict is
    /// sent failures by one of them. Both errors name the step. Every HTTP surface checks it before
    /// the first request, with the policy.
    func validateSteps(of policy: RetryPolicy) throws(RetryPolicyError) {
        if policy.steps.isEmpty && statusSteps.isEmpty && policy.retryIf.steps.isEmpty { return }
        let byStatus = statusSteps.sorted { $0.key < $1.key }.map { ($0.value, "statusSteps[\($0.key)]") }
        try policy.validateSteps(named: byStatus + policy.retryIf.steps.map { ($0, "retryIf") })
    }
}
