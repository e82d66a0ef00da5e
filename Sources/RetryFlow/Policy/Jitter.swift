/// Randomness added to each delay so many clients do not retry in lock-step
/// (AWS, "Exponential Backoff And Jitter"). `d` is the capped backoff delay.
///
/// - `none`: d
/// - `full`: uniform in 0…d
/// - `equal`: d/2 + uniform in 0…d/2
/// - `decorrelated`: min(cap, uniform in base…previous·3), where previous starts at base
public enum Jitter: String, Hashable, Sendable, Codable, CaseIterable {
    /// No randomness.
    case none
    /// Anywhere from zero to the delay.
    case full
    /// At least half the delay.
    case equal
    /// Each delay drawn from the previous one, ignoring the backoff's growth.
    case decorrelated

    /// Applies the jitter to `capped` seconds, drawing from `random`.
    @inlinable
    public func apply<R: RandomNumberGenerator>(
        capped: Double, base: Double, previous: Double, cap: Double, using random: inout R
    ) -> Double {
        switch self {
        case .none: return capped
        case .full: return capped > 0 ? Double.random(in: 0...capped, using: &random) : 0
        case .equal: return capped / 2 + (capped > 0 ? Double.random(in: 0...(capped / 2), using: &random) : 0)
        case .decorrelated:
            let upper = max(base, previous * 3)
            return min(cap, upper > base ? Double.random(in: base...upper, using: &random) : base)
        }
    }
}
