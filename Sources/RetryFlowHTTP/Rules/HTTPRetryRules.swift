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
    /// Whether the rate-limit headers are honoured on the ``retryAfterStatuses`` too: the
    /// ``rateLimitResetHeaders`` and the IETF `RateLimit`/`RateLimit-Policy` fields (docs/http.md).
    /// With Retry-After, the longest wait asked for wins, so no retry is early.
    public var honorRateLimit: Bool
    /// Headers giving the reset as delay-seconds or a Unix timestamp: `RateLimit-Reset`, `X-RateLimit-Reset`.
    public var rateLimitResetHeaders: [String]
    /// A header telling the server the attempt number (none by default): see ``AttemptHeader``.
    public var attemptHeader: AttemptHeader?
    /// Final statuses that end the run in `failure` rather than `success` (none by default: a 404
    /// is an answer). `retryflow fetch -f` sets 400...599, as curl's `--fail`, so its exit status
    /// and chart follow the machine. A status also in ``retryableStatuses`` is retried first.
    public var failingStatuses: Set<Int>
    /// A final answer whose body has more bytes than this ends the run in failure, not retried
    /// (no limit by default; `retryflow fetch --max-filesize`). Checked once the body is received.
    public var maxBodyBytes: Int?
    /// Which requests go out with `Connection: close` (off by default): the knob for an exact
    /// count of requests on the wire. See ``ConnectionClose``.
    public var connectionClose: ConnectionClose
    /// The per-attempt timeout when the policy sets none: 30 s, half URLSession's 60 s request
    /// timeout, so a dead pooled connection (a POST can spin there until URLSession gives up)
    /// costs at most 30 s, and the trace says this default ended it. `nil`: no default. Downloads
    /// (`URLSession.download(for:to:…)`) do not apply it: they end a stalled attempt by idle time.
    public var defaultAttemptTimeout: Duration?
    /// Statuses that go to a user step of the policy's table instead (`RetryStep`, entered
    /// `RetryStep/Entry/onVerdict`), named by the step's `id`: `statusSteps[401] = refresh.id`. Asked
    /// before every other rule; none by default. Every surface refuses, before the first request, a
    /// rule naming a step the policy does not have, and a step entered on a verdict that neither a
    /// rule here nor the policy's classifier sends failures to. In JSON, a step is its name.
    public var statusSteps: [Int: RetryStep.ID] = [:]
    /// Which answers are throttles (429; 503 with Retry-After; AWS throttling codes): they tell an
    /// `AdaptiveRateLimiter` to slow down and are retried like a retryable status. See ``ThrottleRules``.
    public var throttling: ThrottleRules

    /// RFC 9110's defaults, as listed on each field.
    public init(
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableErrorCodes: Set<Int> = HTTPRetryRules.defaultRetryableErrorCodes,
        neverSentErrorCodes: Set<Int> = Set(
            [URLError.Code.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed].map(\.rawValue)),
        idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"],
        retryNonIdempotent: Bool = false,
        idempotencyKeyHeader: String = "Idempotency-Key",
        retryAfterStatuses: Set<Int> = [429, 503, 301, 302, 303, 307, 308],
        honorRetryAfter: Bool = true,
        honorRateLimit: Bool = true,
        rateLimitResetHeaders: [String] = ["RateLimit-Reset", "X-RateLimit-Reset"],
        attemptHeader: AttemptHeader? = nil,
        failingStatuses: Set<Int> = [],
        maxBodyBytes: Int? = nil,
        connectionClose: ConnectionClose = .never,
        defaultAttemptTimeout: Duration? = .seconds(30), throttling: ThrottleRules = .default
    ) {
        self.retryableStatuses = retryableStatuses
        self.retryableErrorCodes = retryableErrorCodes
        self.neverSentErrorCodes = neverSentErrorCodes
        self.idempotentMethods = idempotentMethods
        self.retryNonIdempotent = retryNonIdempotent
        self.idempotencyKeyHeader = idempotencyKeyHeader
        self.retryAfterStatuses = retryAfterStatuses
        self.honorRetryAfter = honorRetryAfter
        self.honorRateLimit = honorRateLimit
        self.rateLimitResetHeaders = rateLimitResetHeaders
        self.attemptHeader = attemptHeader
        self.failingStatuses = failingStatuses
        self.maxBodyBytes = maxBodyBytes
        self.connectionClose = connectionClose
        self.defaultAttemptTimeout = defaultAttemptTimeout
        self.throttling = throttling
    }

    private enum CodingKeys: String, CodingKey {
        case retryableStatuses, retryableErrorCodes, neverSentErrorCodes, idempotentMethods, retryNonIdempotent
        case idempotencyKeyHeader, retryAfterStatuses, honorRetryAfter, honorRateLimit, rateLimitResetHeaders
        case attemptHeader, failingStatuses, maxBodyBytes, connectionClose, defaultAttemptTimeout, throttling
        case statusSteps
    }

    /// Decodes rules; fields added later (the rate-limit ones, the attempt header, the failing
    /// statuses, the body limit, the throttles) may be absent, so JSON written by earlier versions still reads, with those fields
    /// at their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = HTTPRetryRules()
        self.init(
            retryableStatuses: try c.decode(Set<Int>.self, forKey: .retryableStatuses),
            retryableErrorCodes: try c.decode(Set<Int>.self, forKey: .retryableErrorCodes),
            neverSentErrorCodes: try c.decode(Set<Int>.self, forKey: .neverSentErrorCodes),
            idempotentMethods: try c.decode(Set<String>.self, forKey: .idempotentMethods),
            retryNonIdempotent: try c.decode(Bool.self, forKey: .retryNonIdempotent),
            idempotencyKeyHeader: try c.decode(String.self, forKey: .idempotencyKeyHeader),
            retryAfterStatuses: try c.decode(Set<Int>.self, forKey: .retryAfterStatuses),
            honorRetryAfter: try c.decode(Bool.self, forKey: .honorRetryAfter),
            honorRateLimit: try c.decodeIfPresent(Bool.self, forKey: .honorRateLimit) ?? defaults.honorRateLimit,
            rateLimitResetHeaders: try c.decodeIfPresent([String].self, forKey: .rateLimitResetHeaders)
                ?? defaults.rateLimitResetHeaders,
            attemptHeader: try c.decodeIfPresent(AttemptHeader.self, forKey: .attemptHeader),
            failingStatuses: try c.decodeIfPresent(Set<Int>.self, forKey: .failingStatuses) ?? [],
            maxBodyBytes: try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes),
            connectionClose: try c.decodeIfPresent(ConnectionClose.self, forKey: .connectionClose)
                ?? defaults.connectionClose,
            defaultAttemptTimeout: c.contains(.defaultAttemptTimeout)
                ? try c.decodeIfPresent(Duration.self, forKey: .defaultAttemptTimeout) : defaults.defaultAttemptTimeout,
            throttling: try c.decodeIfPresent(ThrottleRules.self, forKey: .throttling) ?? defaults.throttling)
        statusSteps = try c.decodeIfPresent([Int: RetryStep.ID].self, forKey: .statusSteps) ?? [:]
    }

    /// The defaults.
    public static let `default` = HTTPRetryRules()

    /// The original snippet's rule: transport errors only, never a status.
    public static let transportErrorsOnly = HTTPRetryRules(retryableStatuses: [])

    /// timedOut, cannotFindHost, cannotConnectToHost, networkConnectionLost, dnsLookupFailed,
    /// notConnectedToInternet, badServerResponse, and unknown (-1, Linux's truncated body).
    @usableFromInline package static let defaultRetryableErrorCodes: Set<Int> = Set(
        [
            URLError.Code.timedOut, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
            .notConnectedToInternet, .badServerResponse, .unknown,
        ].map(\.rawValue))
}
