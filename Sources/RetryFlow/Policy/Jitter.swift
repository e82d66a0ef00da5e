import Foundation

/// Randomness added to each delay so many clients do not retry in lock-step
/// (AWS, "Exponential Backoff And Jitter"). `d` is the capped backoff delay, `u` a draw in 0..<1.
///
/// - `none`: d
/// - `full`: uniform in 0…d
/// - `equal`: d/2 + uniform in 0…d/2
/// - `decorrelated`: min(cap, uniform in base…previous·3), where previous starts at base
/// - `symmetric(x)`: min(cap, d · (1 + uniform in −x…x)): Polly's ±25 % is `symmetric(0.25)`
/// - `additive(j)`: min(cap, d + j·u): tenacity's `wait_exponential_jitter`, urllib3's `backoff_jitter`
/// - `fullFrom(m)`: m + (max(m, d) − m)·u: tenacity's `wait_random_exponential(min=m)`
/// - `pollyDecorrelated`: Polly's `DecorrelatedJitterBackoffV2`, base · (f(t) − f(t′)) / 1.4 with
///   f(t) = 2^t · tanh(√(4t)), t = retry − 1 + u and t′ the previous retry's t, then the cap
///
/// A policy's ``RetryPolicy/jitterMayPassCap`` lets the bands around `d` (`symmetric`, `additive`)
/// pass the cap, as gRPC's connection backoff does; ``RetryPolicy/jittersFirstDelay`` leaves the
/// first wait unjittered.
public enum Jitter: Hashable, Sendable {
    /// No randomness.
    case none
    /// Anywhere from zero to the delay.
    case full
    /// At least half the delay.
    case equal
    /// Each delay drawn from the previous one, ignoring the backoff's growth.
    case decorrelated
    /// The delay, plus or minus up to `spread` of it (0.25 is ±25 %), never above the cap.
    case symmetric(Double)
    /// The delay plus anywhere from zero to this much, never above the cap (tenacity's
    /// `wait_exponential_jitter(jitter=1)` is `.additive(.seconds(1))`).
    case additive(Duration)
    /// Anywhere from this floor to the delay, and the floor when the delay is below it (tenacity's
    /// `wait_random_exponential(min=…)`, which draws `uniform(min, d)`, not `max(min, uniform(0, d))`).
    case fullFrom(Duration)
    /// Polly's `DecorrelatedJitterBackoffV2` (Polly v8's exponential backoff with `UseJitter`): the
    /// backoff's first delay is the median first delay, each delay the growth of a smooth formula
    /// since the last draw, so the retries fall near base, 2·base, 4·base … into the run, whatever
    /// the multiplier.
    case pollyDecorrelated

    /// The jitters that take no number, by name (`--jitter`, JSON): `none`, `full`, `equal`,
    /// `decorrelated`, `pollyDecorrelated`.
    package static let named: [Jitter] = [.none, .full, .equal, .decorrelated, .pollyDecorrelated]

    /// Its name: `full`, or `symmetric`, `additive`, `fullFrom` whatever their number.
    package var rawValue: String {
        switch self {
        case .none: "none"
        case .full: "full"
        case .equal: "equal"
        case .decorrelated: "decorrelated"
        case .symmetric: "symmetric"
        case .additive: "additive"
        case .fullFrom: "fullFrom"
        case .pollyDecorrelated: "pollyDecorrelated"
        }
    }

    /// The jitter named `rawValue`, among ``named`` (the others need their number).
    package init?(rawValue: String) {
        guard let found = Self.named.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = found
    }

    /// Polly's `pFactor`, which smooths the first delay.
    static let pollySmoothing = 4.0
    /// Polly's `rpScalingFactor`, which puts the median retries near base, 2·base, 4·base … into the run.
    static let pollyScaling = 1 / 1.4

    /// Applies the jitter to `capped` seconds (the capped backoff delay before retry `n`), drawing
    /// from `random`. `base` is the capped first delay (decorrelated's floor), `firstDelay` the
    /// backoff's own (Polly's median first delay); `bandCap` bounds the bands around `capped`
    /// (the cap, or infinity when they may pass it). Polly's formula keeps its value in `memory`.
    package func apply<R: RandomNumberGenerator>(
        capped: Double, base: Double, firstDelay: Double, cap: Double, bandCap: Double, retry n: Int,
        memory: inout BackoffMemory, using random: inout R
    ) -> Double {
        switch self {
        case .none: return capped
        case .full: return capped > 0 ? Double.random(in: 0...capped, using: &random) : 0
        case .equal: return capped / 2 + (capped > 0 ? Double.random(in: 0...(capped / 2), using: &random) : 0)
        case .decorrelated:
            let previous = memory.previous?.inSeconds ?? base
            let upper = max(base, previous * 3)
            return min(cap, upper > base ? Double.random(in: base...upper, using: &random) : base)
        case .symmetric(let spread):
            guard capped > 0, spread > 0 else { return capped }
            return min(bandCap, capped * (1 + Double.random(in: -spread...spread, using: &random)))
        case .additive(let most):
            // tenacity: `initial * exp + uniform(0, jitter)`, then the cap; urllib3 alike.
            return min(bandCap, capped + most.inSeconds * random.unitDraw())
        case .fullFrom(let floor):
            // tenacity: `uniform(min, high)` with `high = max(min, min(d, max))`.
            let low = floor.inSeconds
            let high = max(low, capped)
            return low + (high - low) * random.unitDraw()
        case .pollyDecorrelated:
            guard firstDelay > 0 else { return 0 } // Polly: a zero base delay is returned as is
            let t = Double(max(n, 1) - 1) + random.unitDraw()
            let next = pow(2, t) * tanh((Self.pollySmoothing * t).squareRoot())
            let growth = next - memory.formulaValue
            memory.formulaValue = next
            // Past t ≈ 1024 the formula is infinite: Polly (issue 2163) and RetryFlow saturate.
            guard growth.isFinite else { return cap }
            return min(cap, growth * Self.pollyScaling * firstDelay)
        }
    }

    /// Checks a symmetric jitter's spread (from 0 to 1) and the durations of the others.
    func validate() throws(RetryPolicyError) {
        switch self {
        case .symmetric(let spread):
            guard spread.isFinite && spread >= 0 && spread <= 1 else {
                throw RetryPolicyError(
                    field: "jitter", problem: "a symmetric spread must be from 0 to 1 (got \(spread))")
            }
        case .additive(let most): try RetryPolicy.checkDelay(most, field: "jitter.max")
        case .fullFrom(let floor): try RetryPolicy.checkDelay(floor, field: "jitter.min")
        case .none, .full, .equal, .decorrelated, .pollyDecorrelated: break
        }
    }
}

/// `"full"`, or `{"kind": "symmetric", "spread": 0.25}`, `{"kind": "additive", "max": 1}`,
/// `{"kind": "fullFrom", "min": 4}` (seconds).
extension Jitter: Codable {
    private enum Key: String, CodingKey { case kind, spread, max, min }

    /// Decodes a jitter by name, or a kind with its number.
    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            guard let jitter = Jitter(rawValue: name) else {
                throw RetryPolicyError(
                    field: "jitter",
                    problem: "must be one of none, full, equal, decorrelated, pollyDecorrelated, or "
                        + "{\"kind\": \"symmetric\", \"spread\": 0.25}, {\"kind\": \"additive\", \"max\": 1}, "
                        + "{\"kind\": \"fullFrom\", \"min\": 1} (got \"\(name)\")")
            }
            self = jitter
            return
        }
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: .kind)
        switch kind {
        case "symmetric": self = .symmetric(try c.decode(Double.self, forKey: .spread))
        case "additive":
            self = .additive(
                try Duration(saturatingSeconds: try c.decode(Double.self, forKey: .max), field: "jitter.max"))
        case "fullFrom":
            self = .fullFrom(
                try Duration(saturatingSeconds: try c.decode(Double.self, forKey: .min), field: "jitter.min"))
        default:
            throw RetryPolicyError(
                field: "jitter.kind",
                problem: "only \"symmetric\", \"additive\" and \"fullFrom\" take a number (got \"\(kind)\")")
        }
        try validate()
    }

    /// Encodes the name, or the kind and its number.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .symmetric(let spread):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("symmetric", forKey: .kind)
            try c.encode(spread, forKey: .spread)
        case .additive(let most):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("additive", forKey: .kind)
            try c.encode(most.inSeconds, forKey: .max)
        case .fullFrom(let floor):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("fullFrom", forKey: .kind)
            try c.encode(floor.inSeconds, forKey: .min)
        case .none, .full, .equal, .decorrelated, .pollyDecorrelated:
            var c = encoder.singleValueContainer()
            try c.encode(rawValue)
        }
    }
}
