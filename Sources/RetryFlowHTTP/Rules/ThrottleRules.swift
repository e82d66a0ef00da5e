import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which answers are throttles, as data: what tells an `AdaptiveRateLimiter` to slow down (and
/// makes the answer worth retrying even when its status alone is not).
///
/// A bare 429 is a throttle, whatever the body says: RFC 6585 defines it as "too many requests",
/// and botocore, which looks only at error codes, misses it from non-AWS servers and proxies
/// (botocore#2635). A 503 is a throttle only with Retry-After: without it, a 503 is an outage,
/// which the budget and the breaker are for; dropping the send rate on every failure would slow a
/// client long after the server healed. An AWS error code naming a throttle (S3's `SlowDown` is a
/// 503, DynamoDB's `ProvisionedThroughputExceededException` a 400) counts on any status.
///
/// ```swift
/// var rules = HTTPRetryRules.default
/// rules.throttling.statuses.insert(420)           // Twitter's old "enhance your calm"
/// rules.throttling.errorCodes.insert("QuotaExceeded")
/// ```
public struct ThrottleRules: Hashable, Sendable, Codable {
    /// Statuses that are throttles by themselves: 429.
    public var statuses: Set<Int>
    /// Statuses that are throttles when they carry Retry-After: 503.
    public var statusesWithRetryAfter: Set<Int>
    /// Error codes that name a throttle when the answer carries them (the `x-amzn-ErrorType` header,
    /// a JSON body's `__type`, `code` or `Code`, an XML body's `<Code>`): botocore's list, by default.
    public var errorCodes: Set<String>
    /// The most bytes of a body searched for an error code: 64 KiB.
    public var maxBodyBytesSearched: Int

    /// The defaults, as listed on each field.
    public init(
        statuses: Set<Int> = [429], statusesWithRetryAfter: Set<Int> = [503],
        errorCodes: Set<String> = ThrottleRules.awsErrorCodes, maxBodyBytesSearched: Int = 64 * 1024
    ) {
        self.statuses = statuses
        self.statusesWithRetryAfter = statusesWithRetryAfter
        self.errorCodes = errorCodes
        self.maxBodyBytesSearched = maxBodyBytesSearched
    }

    /// The defaults.
    public static let `default` = ThrottleRules()

    /// No answer is a throttle.
    public static let none = ThrottleRules(statuses: [], statusesWithRetryAfter: [], errorCodes: [])

    /// The throttling error codes of botocore's `ThrottlingErrorDetector` (`retries/standard.py`).
    @usableFromInline package static let awsErrorCodes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
        "TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
        "RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled", "SlowDown",
        "PriorRequestNotComplete", "EC2ThrottledException",
    ]

    /// Why `answer` is a throttle, in words (`HTTP 429`, `error code SlowDown`), or `nil` when it is not.
    /// A success (2xx) never is.
    package func throttle(in answer: HTTPResponse) -> String? {
        let status = answer.statusCode
        if (200..<300).contains(status) { return nil }
        if statuses.contains(status) { return "a throttle (HTTP \(status))" }
        if statusesWithRetryAfter.contains(status), answer.response.value(forHTTPHeaderField: "Retry-After") != nil {
            return "a throttle (HTTP \(status) with Retry-After)"
        }
        guard !errorCodes.isEmpty, let code = errorCode(in: answer), errorCodes.contains(code) else { return nil }
        return "a throttle (error code \(code))"
    }

    /// The error code `answer` names, if any: header first, then the body (JSON, else XML).
    func errorCode(in answer: HTTPResponse) -> String? {
        if let header = answer.response.value(forHTTPHeaderField: "x-amzn-ErrorType") {
            // `ThrottlingException:http://internal.amazon.com/coral/…`
            return String(header.prefix { $0 != ":" }).trimmingCharacters(in: .whitespaces)
        }
        let body = answer.data.prefix(maxBodyBytesSearched)
        guard !body.isEmpty else { return nil }
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            for key in ["__type", "code", "Code"] {
                // `com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException`
                if let value = object[key] as? String { return String(value.split(separator: "#").last ?? "") }
            }
            return nil
        }
        let text = String(decoding: body, as: UTF8.self)
        guard let open = text.range(of: "<Code>"),
            let close = text.range(of: "</Code>", range: open.upperBound..<text.endIndex)
        else { return nil }
        return text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
