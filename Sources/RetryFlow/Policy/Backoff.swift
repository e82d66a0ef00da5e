/// How the delay before a retry grows with the number of retries, before the cap and jitter.
///
/// `n` counts retries from 1: the delay before the second attempt is the delay before retry 1.
/// - `constant(d)`: d, d, d …
/// - `linear(initial: i, increment: s)`: i, i + s, i + 2s … (Polly's linear is `initial == increment`)
/// - `exponential(base: b, multiplier: m)`: b, b·m, b·m² … (AWS and Alamofire use m = 2)
/// - `schedule([d1, d2, d3])`: d1, d2, d3, d3 … (Polly's `WaitAndRetry` with a list of delays)
/// - `custom(_:)`: your function of `n`, for anything else (code: it has no JSON form)
public enum Backoff: Hashable, Sendable {
    /// The same delay before every retry.
    case constant(Duration)
    /// A delay growing by `increment` each retry.
    case linear(initial: Duration, increment: Duration)
    /// A delay multiplied by `multiplier` each retry.
    case exponential(base: Duration, multiplier: Double)
    /// The delays written out, one per retry; the last repeats when retries outnumber them.
    case schedule([Duration])
    /// A delay computed by your function.
    case custom(CustomBackoff)

    /// The first delay; jitter's lower bound for `decorrelated`.
    package var base: Duration {
        switch self {
        case .constant(let d): d
        case .linear(let initial, _): initial
        case .exponential(let base, _): base
        case .schedule(let delays): delays.first ?? .zero
        case .custom(let custom): custom.delay(beforeRetry: 1)
        }
    }

    /// The uncapped delay before retry `n` (1-based), in seconds; may be infinite for huge `n`.
    package func seconds(beforeRetry n: Int) -> Double {
        let steps = Double(max(n, 1) - 1)
        switch self {
        case .constant(let d): return d.inSeconds
        case .linear(let initial, let increment): return initial.inSeconds + increment.inSeconds * steps
        case .exponential(let base, let multiplier):
            return base.inSeconds * wholePower(multiplier, steps)
        case .schedule(let delays):
            return delays.isEmpty ? 0 : delays[min(max(n, 1), delays.count) - 1].inSeconds
        case .custom(let custom):
            return custom.delay(beforeRetry: max(n, 1)).inSeconds
        }
    }

    /// Checks each value, naming the field on error.
    package func validate() throws(RetryPolicyError) {
        switch self {
        case .constant(let d):
            try RetryPolicy.checkDelay(d, field: "backoff.delay")
        case .linear(let initial, let increment):
            try RetryPolicy.checkDelay(initial, field: "backoff.initial")
            try RetryPolicy.checkDelay(increment, field: "backoff.increment")
        case .exponential(let base, let multiplier):
            try RetryPolicy.checkDelay(base, field: "backoff.base")
            guard multiplier.isFinite, multiplier >= 1, multiplier <= 1000 else {
                throw RetryPolicyError(
                    field: "backoff.multiplier", problem: "must be a number from 1 to 1000 (got \(multiplier))")
            }
        case .schedule(let delays):
            guard !delays.isEmpty else {
                throw RetryPolicyError(field: "backoff.delays", problem: "must list at least one delay")
            }
            for delay in delays { try RetryPolicy.checkDelay(delay, field: "backoff.delays") }
        case .custom:
            break // its delays are checked as they are drawn: negative ones count as zero
        }
    }
}

/// A backoff written as code, for schedules no case of ``Backoff`` describes. Compared by `name`
/// (a function cannot be compared), and not encodable: a policy holding one has no JSON form.
///
/// ```swift
/// let fibonacci = CustomBackoff("fibonacci") { n in .seconds([1, 1, 2, 3, 5, 8][min(n, 6) - 1]) }
/// let policy = RetryPolicy(backoff: .custom(fibonacci))
/// ```
public struct CustomBackoff: Hashable, Sendable, CustomStringConvertible {
    /// What it is called in messages and comparisons.
    public let name: String
    private let delay: @Sendable (Int) -> Duration

    /// A backoff named `name` whose delay before retry `n` (1-based) is `delay(n)`.
    public init(_ name: String, delay: @escaping @Sendable (_ retry: Int) -> Duration) {
        self.name = name
        self.delay = delay
    }

    /// The delay before retry `n`; a negative answer counts as zero.
    package func delay(beforeRetry n: Int) -> Duration { max(.zero, delay(n)) }

    /// Equal when named alike.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    /// `custom backoff 'name'`.
    public var description: String { "custom backoff '\(name)'" }
}

/// `base` to a whole `exponent` by repeated squaring (infinite for a fractional, negative or huge
/// exponent): not libm's `pow`, so delays are the same on every platform.
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
