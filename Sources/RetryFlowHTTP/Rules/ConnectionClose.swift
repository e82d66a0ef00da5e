import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which requests ``HTTPRetryRules`` sends with `Connection: close`.
///
/// On Linux, libcurl re-sends a request by itself when the pooled keep-alive connection it went
/// out on is reset or closed before any answer: the server then sees more requests than the
/// trace has attempts, and a POST on such a connection can hang until URLSession's timeout. A
/// request that closes its connection never leaves one in the pool, so with ``always`` every
/// request goes out on a fresh connection and the counts agree. It costs a TCP handshake per
/// request (see docs/http.md for the figures).
///
/// ```swift
/// var rules = HTTPRetryRules.default
/// rules.connectionClose = .always  // exact request counts, a new connection each time
/// ```
public enum ConnectionClose: String, Hashable, Sendable, Codable, CaseIterable {
    /// Never add the header (the default): connections are pooled and reused.
    case never
    /// Requests that are not safe to repeat (POST, PATCH … without an idempotency key): their
    /// connection is not pooled after them. Earlier pooled connections may still carry them.
    case nonIdempotent
    /// Every request: nothing is pooled, so nothing is re-sent behind the trace's back.
    case always
}

extension HTTPRetryRules {
    /// `request` as it goes on the wire under these rules: with `Connection: close` when
    /// ``connectionClose`` asks for it (a header the caller set is left alone).
    package func prepared(_ request: URLRequest) -> URLRequest {
        let close: Bool
        switch connectionClose {
        case .never: close = false
        case .nonIdempotent: close = !isSafeToRepeat(request)
        case .always: close = true
        }
        guard close, request.value(forHTTPHeaderField: "Connection") == nil else { return request }
        var prepared = request
        prepared.setValue("close", forHTTPHeaderField: "Connection")
        return prepared
    }
}
