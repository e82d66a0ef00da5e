/// Randomness added to each delay so many clients do not retry in lock-step
/// (AWS, "Exponential Backoff And Jitter"). `d` is the capped backoff delay.
///
/// - `none`: d
/// - `full`: uniform in 0…d
/// - `equal`: d/2 + uniform in 0…d/2
/// - `decorrelated`: min(cap, uniform in base…previous·3), where previous starts at base
/// - `symmetric(x)`: min(cap, d · (1 + uniform in −x…x)): Polly's ±25 % is `symmetric(0.25)`,
///   gRPC's connection backoff ±20 % is `symmetric(0.2)`
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

    /// The jitters that take no number, by name (`--jitter`, JSON): `none`, `full`, `equal`, `decorrelated`.
    public static let named: [Jitter] = [.none, .full, .equal, .decorrelated]

    /// The kinds without a number.
    @available(*, deprecated, renamed: "named")
    public static var allCases: [Jitter] { named }

    /// Its name: `full`, or `symmetric` for ``symmetric(_:)`` whatever its spread.
    public var rawValue: String {
        switch self {
        case .none: "none"
        case .full: "full"
        case .equal: "equal"
        case .decorrelated: "decorrelated"
        case .symmetric: "symmetric"
        }
    }

    /// The jitter named `rawValue`, among ``named`` (a symmetric jitter needs its spread).
    public init?(rawValue: String) {
        guard let found = Self.named.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = found
    }

    /// Applies the jitter to `capped` seconds, drawing from `random`.
    package func apply<R: RandomNumberGenerator>(
        capped: Double, base: Double, previous: Double, cap: Double, using random: inout R
    ) -> Double {
        switch self {
        case .none: return capped
        case .full: return capped > 0 ? Double.random(in: 0...capped, using: &random) : 0
        case .equal: return capped / 2 + (capped > 0 ? Double.random(in: 0...(capped / 2), using: &random) : 0)
        case .decorrelated:
            let upper = max(base, previous * 3)
            return min(cap, upper > base ? Double.random(in: base...upper, using: &random) : base)
        case .symmetric(let spread):
            guard capped > 0, spread > 0 else { return capped }
            return min(cap, capped * (1 + Double.random(in: -spread...spread, using: &random)))
        }
    }

    /// Checks a symmetric jitter's spread (from 0 to 1).
    func validate() throws(RetryPolicyError) {
        if case .symmetric(let spread) = self, !(spread.isFinite && spread >= 0 && spread <= 1) {
            throw RetryPolicyError(field: "jitter", problem: "a symmetric spread must be from 0 to 1 (got \(spread))")
        }
    }
}

/// `"full"`, or `{"kind": "symmetric", "spread": 0.25}`.
extension Jitter: Codable {
    private enum Key: String, CodingKey { case kind, spread }

    /// Decodes a jitter by name, or a symmetric one with its spread.
    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            guard let jitter = Jitter(rawValue: name) else {
                throw RetryPolicyError(
                    field: "jitter",
                    problem: "must be one of none, full, equal, decorrelated, or "
                        + "{\"kind\": \"symmetric\", \"spread\": 0.25} (got \"\(name)\")")
            }
            self = jitter
            return
        }
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: .kind)
        guard kind == "symmetric" else {
            throw RetryPolicyError(field: "jitter.kind", problem: "only \"symmetric\" takes a spread (got \"\(kind)\")")
        }
        self = .symmetric(try c.decode(Double.self, forKey: .spread))
        try validate()
    }

    /// Encodes the name, or the symmetric kind and its spread.
    public func encode(to encoder: any Encoder) throws {
        if case .symmetric(let spread) = self {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("symmetric", forKey: .kind)
            try c.encode(spread, forKey: .spread)
        } else {
            var c = encoder.singleValueContainer()
            try c.encode(rawValue)
        }
    }
}
