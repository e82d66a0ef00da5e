/// How the delay before a retry grows with the number of retries, before the cap and jitter.
///
/// `n` counts retries from 1: the delay before the second attempt is `delay(beforeRetry: 1)`.
/// - `constant(d)`: d, d, d …
/// - `linear(initial: i, increment: s)`: i, i + s, i + 2s … (Polly's linear is `initial == increment`)
/// - `exponential(base: b, multiplier: m)`: b, b·m, b·m² … (AWS and Alamofire use m = 2)
public enum Backoff: Hashable, Sendable {
    /// The same delay before every retry.
    case constant(Duration)
    /// A delay growing by `increment` each retry.
    case linear(initial: Duration, increment: Duration)
    /// A delay multiplied by `multiplier` each retry.
    case exponential(base: Duration, multiplier: Double)

    /// The first delay; jitter's lower bound for `decorrelated`, and what `maxDelay` must not undercut.
    public var base: Duration {
        switch self {
        case .constant(let d): d
        case .linear(let initial, _): initial
        case .exponential(let base, _): base
        }
    }

    /// The uncapped delay before retry `n` (1-based), in seconds; may be infinite for huge `n`.
    @inlinable
    public func seconds(beforeRetry n: Int) -> Double {
        let steps = Double(max(n, 1) - 1)
        switch self {
        case .constant(let d): return d.inSeconds
        case .linear(let initial, let increment): return initial.inSeconds + increment.inSeconds * steps
        case .exponential(let base, let multiplier):
            return base.inSeconds * wholePower(multiplier, steps)
        }
    }

    /// Checks each value, naming the field on error.
    public func validate() throws(RetryPolicyError) {
        switch self {
        case .constant(let d):
            try Self.check(d, field: "backoff.delay")
        case .linear(let initial, let increment):
            try Self.check(initial, field: "backoff.initial")
            try Self.check(increment, field: "backoff.increment")
        case .exponential(let base, let multiplier):
            try Self.check(base, field: "backoff.base")
            guard multiplier.isFinite, multiplier >= 1, multiplier <= 1000 else {
                throw RetryPolicyError(field: "backoff.multiplier", problem: "must be a number from 1 to 1000 (got \(multiplier))")
            }
        }
    }

    private static func check(_ d: Duration, field: String) throws(RetryPolicyError) {
        guard d >= .zero else { throw RetryPolicyError(field: field, problem: "must not be negative (got \(d.inSeconds) s)") }
        guard d <= Duration.policyLimit else { throw RetryPolicyError(field: field, problem: "is too large (got \(d.inSeconds) s)") }
    }
}

/// `base` to a whole `exponent` by repeated squaring (infinite for a fractional, negative or huge
/// exponent): not libm's `pow`, so delays are the same on every platform.
@usableFromInline
func wholePower(_ base: Double, _ exponent: Double) -> Double {
    guard exponent >= 0, exponent == exponent.rounded(), exponent < 1e6 else { return .infinity }
    var result = 1.0
    var factor = base
    var e = Int(exponent)
    while e > 0 {
        if e & 1 == 1 { result *= factor }
        factor *= factor
        e >>= 1
        if result.isInfinite { return .infinity }
    }
    return result
}
