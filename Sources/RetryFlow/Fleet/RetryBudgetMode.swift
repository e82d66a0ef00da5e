/// How a ``RetryBudget`` counts: the two published designs, with their published defaults.
///
/// Tokens are kept in thousandths (gRPC's own fixed-point precision for `tokenRatio`), so the
/// arithmetic is exact: no drift after a million refunds.
public enum RetryBudgetMode: Hashable, Sendable {
    /// The AWS SDKs' "standard" retry quota: a bucket of `capacity` tokens; a retry takes
    /// `retryCost` (`timeoutRetryCost` after a timeout) and is refused when the bucket cannot pay;
    /// a success gives back what its run's last retry took, or `successIncrement` when it needed
    /// no retry; never above `capacity`.
    case awsStandard(capacity: Int, retryCost: Int, timeoutRetryCost: Int, successIncrement: Int)
    /// gRPC retry throttling (gRFC A6): tokens start at `maxTokens`; every failed attempt takes 1;
    /// every success gives `tokenRatio`; retries are refused while tokens ≤ `maxTokens` / 2.
    case grpcThrottling(maxTokens: Double, tokenRatio: Double)

    /// AWS standard mode as the SDKs ship it: 500 tokens, 5 per retry, 10 per timeout retry, +1 per success.
    public static let awsStandard = RetryBudgetMode.awsStandard(
        capacity: 500, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1)

    /// gRPC throttling with `maxTokens` (gRPC allows 1…1000) and `tokenRatio` (three decimals kept).
    public static func grpc(maxTokens: Double = 10, tokenRatio: Double = 0.1) -> RetryBudgetMode {
        .grpcThrottling(maxTokens: maxTokens, tokenRatio: tokenRatio)
    }

    /// The name used on charts and in the simulation: `aws` or `grpc`.
    package var name: String {
        switch self {
        case .awsStandard: "aws"
        case .grpcThrottling: "grpc"
        }
    }

    /// Throws ``RetryPolicyError`` naming the bad field (same error design as the policy's).
    package func validate() throws(RetryPolicyError) {
        switch self {
        case .awsStandard(let capacity, let retryCost, let timeoutRetryCost, let successIncrement):
            guard capacity >= 1, capacity <= 1_000_000_000 else {
                throw RetryPolicyError(field: "budget.capacity", problem: "must be from 1 to 10⁹ (got \(capacity))")
            }
            for (field, value) in [("retryCost", retryCost), ("timeoutRetryCost", timeoutRetryCost)]
            where value < 1 || value > 1_000_000_000 {
                throw RetryPolicyError(field: "budget.\(field)", problem: "must be from 1 to 10⁹ (got \(value))")
            }
            guard successIncrement >= 0, successIncrement <= capacity else {
                throw RetryPolicyError(
                    field: "budget.successIncrement",
                    problem: "must be from 0 to the capacity (got \(successIncrement))")
            }
        case .grpcThrottling(let maxTokens, let tokenRatio):
            guard maxTokens.isFinite, maxTokens > 0, maxTokens <= 1000 else {
                throw RetryPolicyError(
                    field: "budget.maxTokens", problem: "must be more than 0 and at most 1000 (got \(maxTokens))")
            }
            guard tokenRatio.isFinite, tokenRatio > 0, tokenRatio <= maxTokens else {
                throw RetryPolicyError(
                    field: "budget.tokenRatio", problem: "must be more than 0 and at most maxTokens (got \(tokenRatio))"
                )
            }
        }
    }

    static func milli(_ tokens: Double) -> Int { Int((tokens * 1000).rounded()) }
}
