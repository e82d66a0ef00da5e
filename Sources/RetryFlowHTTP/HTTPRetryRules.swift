import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What RetryFlow retries over HTTP, as data: the statuses, the transport errors, the methods, and
/// how Retry-After is honoured. The defaults follow RFC 9110; every field can be changed.
///
/// ```swift
/// var rules = HTTPRetryRules.default
/// rules.retryableStatuses.insert(409)
/// rules.retryNonIdempotent = true   // POST and PATCH too (only if your server deduplicates)
/// ```
public struct HTTPRetryRules: Hashable, Sendable, Codable {
    /// Why a run may end on a response that is still the server's answer, returned to the caller
    /// rather than thrown: a response the rules refuse to retry (a 404, a POST's 503) is a result.
    public static let finalAnswerReasons: Set<StopReason> = [.notRetryable]

    /// Statuses that are worth another attempt: 408, 429, 500, 502, 503, 504. Any other status is
    /// a final answer (a 404 is a result, not a failure to retry).
    public var retryableStatuses: Set<Int>
    /// Transport errors worth another attempt (raw `URLError.Code` values). The default includes
    /// Linux's quirks: -1011 `badServerResponse` for an empty reply and -1 `unknown` for
    /// "transfer closed with N bytes remaining". Never retried whatever this says: cancellation.
    public var retryableErrorCodes: Set<Int>
    /// Errors proving the request never reached the server, so even a POST is safe to retry:
    /// cannotConnectToHost, cannotFindHost, dnsLookupFailed.
    public var neverSentErrorCodes: Set<Int>
    /// Methods safe to repeat (RFC 9110 §9.2.2): GET, HEAD, OPTIONS, TRACE, PUT, DELETE.
    public var idempotentMethods: Set<String>
    /// Retry POST, PATCH and other non-idempotent methods too.
    public var retryNonIdempotent: Bool
    /// A request carrying this header is safe to repeat whatever its method.
    public var idempotencyKeyHeader: String
    /// Honour Retry-After (seconds or an HTTP-date) on these statuses when they are retried: 429, 503,
    /// and the redirects (URLSession follows redirects itself; they matter only if you add them to
    /// ``retryableStatuses``).
    public var retryAfterStatuses: Set<Int>
    /// Whether Retry-After is honoured at all (`retryflow fetch --no-retry-after` turns it off).
    public var honorRetryAfter: Bool

    /// RFC 9110's defaults, as listed on each field.
    public init(
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableErrorCodes: Set<Int> = HTTPRetryRules.defaultRetryableErrorCodes,
        neverSentErrorCodes: Set<Int> = Set([URLError.Code.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed].map(\.rawValue)),
        idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"],
        retryNonIdempotent: Bool = false,
        idempotencyKeyHeader: String = "Idempotency-Key",
        retryAfterStatuses: Set<Int> = [429, 503, 301, 302, 303, 307, 308],
        honorRetryAfter: Bool = true
    ) {
        self.retryableStatuses = retryableStatuses
        self.retryableErrorCodes = retryableErrorCodes
        self.neverSentErrorCodes = neverSentErrorCodes
        self.idempotentMethods = idempotentMethods
        self.retryNonIdempotent = retryNonIdempotent
        self.idempotencyKeyHeader = idempotencyKeyHeader
        self.retryAfterStatuses = retryAfterStatuses
        self.honorRetryAfter = honorRetryAfter
    }

    /// The defaults.
    public static let `default` = HTTPRetryRules()

    /// The original snippet's rule: transport errors only, never a status.
    public static let transportErrorsOnly = HTTPRetryRules(retryableStatuses: [])

    /// timedOut, cannotFindHost, cannotConnectToHost, networkConnectionLost, dnsLookupFailed,
    /// notConnectedToInternet, badServerResponse, and unknown (-1, Linux's truncated body).
    public static let defaultRetryableErrorCodes: Set<Int> = Set(
        [
            URLError.Code.timedOut, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
            .notConnectedToInternet, .badServerResponse, .unknown,
        ].map(\.rawValue))
}
