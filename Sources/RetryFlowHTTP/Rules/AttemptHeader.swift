/// An opt-in request header that tells the server which attempt it is seeing, so retries are
/// visible on its side: `RetryFlow-Attempt: 2`, or gRPC's style, `grpc-previous-rpc-attempts: 1`
/// (previous attempts, absent on the first).
///
/// ```swift
/// var rules = HTTPRetryRules.default
/// rules.attemptHeader = .retryFlow            // RetryFlow-Attempt: 1, 2, 3 …
/// rules.attemptHeader = .grpcPreviousAttempts // grpc-previous-rpc-attempts: 1, 2 … from the second
/// ```
public struct AttemptHeader: Hashable, Sendable, Codable {
    /// The header's name.
    public var name: String
    /// Whether the value counts the attempts before this one (gRPC) rather than this one's number.
    public var countsPrevious: Bool

    /// Makes one.
    public init(name: String, countsPrevious: Bool = false) {
        self.name = name
        self.countsPrevious = countsPrevious
    }

    /// `RetryFlow-Attempt: N`, N from 1.
    public static let retryFlow = AttemptHeader(name: "RetryFlow-Attempt")
    /// `grpc-previous-rpc-attempts: N-1`, sent from the second attempt on (gRPC A6).
    public static let grpcPreviousAttempts = AttemptHeader(name: "grpc-previous-rpc-attempts", countsPrevious: true)

    /// The value to send on attempt `number` (from 1), or `nil` to send none.
    package func value(forAttempt number: Int) -> String? {
        guard countsPrevious else { return String(number) }
        return number > 1 ? String(number - 1) : nil
    }
}
