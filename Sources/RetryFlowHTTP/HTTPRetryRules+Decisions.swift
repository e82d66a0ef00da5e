import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRetryRules {
    /// Whether `request` may be sent again: an idempotent method, an idempotency key, or the opt-in.
    public func isSafeToRepeat(_ request: URLRequest) -> Bool {
        let method = (request.httpMethod ?? "GET").uppercased()
        return retryNonIdempotent || idempotentMethods.contains(method)
            || request.value(forHTTPHeaderField: idempotencyKeyHeader) != nil
    }

    /// The decision for an error an attempt of `request` threw. Timeouts of the engine count as
    /// `URLError.timedOut`; other errors than `URLError` are not retried.
    public func decision(for error: any Error, request: URLRequest) -> RetryDecision {
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

    /// The verdict on a response to `request` received at `now`: `nil` accepts it; otherwise why
    /// it is retried (after its Retry-After, if honoured) or why it is not.
    public func verdict(for response: HTTPURLResponse, request: URLRequest, now: Date) -> RetryVerdict? {
        let status = response.statusCode
        guard retryableStatuses.contains(status) else { return nil }
        let what = "HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status))"
        guard isSafeToRepeat(request) else {
            let method = (request.httpMethod ?? "GET").uppercased()
            return RetryVerdict(
                .fail, "\(what); \(method) is not idempotent, so it is not sent again (add \(idempotencyKeyHeader) or opt in)")
        }
        guard honorRetryAfter, retryAfterStatuses.contains(status),
            let value = response.value(forHTTPHeaderField: "Retry-After")
        else { return RetryVerdict(.retry, what) }
        let shown = Redaction.excerpt(value)
        switch RetryAfter.parse(value, now: now) {
        case .delay(let delay):
            return RetryVerdict(.retryAfter(delay), "\(what); Retry-After \(shown) asks for \(delay.shortDescription)")
        case .malformed:
            return RetryVerdict(.retry, "\(what); Retry-After \"\(shown)\" ignored (malformed), backoff applies")
        }
    }
}
