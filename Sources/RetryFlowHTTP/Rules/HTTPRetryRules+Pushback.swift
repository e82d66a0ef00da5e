import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPRetryRules {
    /// A server's ask to wait: which header said so, in words, and for how long.
    struct PushbackAsk {
        let header: String
        let words: String
        let delay: Duration
    }

    /// Every wait `response` asks for under these rules (Retry-After, the reset headers, the IETF
    /// fields), and the words for the headers that were ignored as malformed.
    func pushback(in response: HTTPURLResponse, now: Date) -> (asks: [PushbackAsk], ignored: [String]) {
        var asks: [PushbackAsk] = []
        var ignored: [String] = []
        if honorRetryAfter, let value = response.value(forHTTPHeaderField: "Retry-After") {
            let shown = HeaderValueText.shown(value)
            switch RetryAfter.parse(value, now: now) {
            case .delay(let delay):
                asks.append(
                    PushbackAsk(
                        header: "Retry-After", words: "Retry-After \(shown) asks for \(delay.shortDescription)",
                        delay: delay))
            case .malformed:
                ignored.append("Retry-After \"\(shown)\" ignored (malformed)")
            }
        }
        guard honorRateLimit else { return (asks, ignored) }
        for header in rateLimitResetHeaders {
            guard let value = response.value(forHTTPHeaderField: header) else { continue }
            let shown = HeaderValueText.shown(value)
            switch RateLimitHeaders.parseReset(value, now: now) {
            case .delay(let delay, let timestamp):
                let kind = timestamp ? " (a Unix time)" : ""
                asks.append(
                    PushbackAsk(
                        header: header, words: "\(header) \(shown)\(kind) asks for \(delay.shortDescription)",
                        delay: delay))
            case .malformed:
                ignored.append("\(header) \"\(shown)\" ignored (malformed)")
            }
        }
        if let field = response.value(forHTTPHeaderField: "RateLimit"),
            let delay = RateLimitHeaders.parseField(
                field, policy: response.value(forHTTPHeaderField: "RateLimit-Policy"))
        {
            let words = "RateLimit \(HeaderValueText.shown(field)) asks for \(delay.shortDescription)"
            asks.append(PushbackAsk(header: "RateLimit", words: words, delay: delay))
        }
        return (asks, ignored)
    }

    /// The verdict on a retryable `status`: after the longest wait any honoured header asks for
    /// (never earlier than one of them), or the backoff when none does. `what` names the status.
    func pushbackVerdict(for response: HTTPURLResponse, what: String, now: Date) -> RetryVerdict {
        guard retryAfterStatuses.contains(response.statusCode) else { return RetryVerdict(.retry, what) }
        let (asks, ignored) = pushback(in: response, now: now)
        let notes = ignored.map { "; \($0)" }.joined()
        guard let longest = asks.max(by: { $0.delay < $1.delay }) else {
            return RetryVerdict(.retry, ignored.isEmpty ? what : "\(what)\(notes), backoff applies")
        }
        let said = asks.map { "; \($0.words)" }.joined()
        let decided = asks.count > 1 ? "; the longest decides: \(longest.header)" : ""
        return RetryVerdict(.retryAfter(longest.delay), "\(what)\(notes)\(said)\(decided)")
    }
}
