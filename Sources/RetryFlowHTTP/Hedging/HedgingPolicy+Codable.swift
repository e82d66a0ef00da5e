import RetryFlow

/// `{"delay": 0.05, "maxAttempts": 2}`: seconds, as every policy duration; `maxAttempts` defaults to 2.
/// The command line's `--policy` file carries it as `"hedging"`, beside the policy's fields.
extension HedgingPolicy: Codable {
    private enum Key: String, CodingKey { case delay, maxAttempts }

    /// Decodes and validates hedging settings, naming a bad field (`hedging.delay`,
    /// `hedging.maxAttempts`): no longer inside a policy whose decoding validated them.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let delay = try Duration(validatingSeconds: try c.decode(Double.self, forKey: .delay), field: "hedging.delay")
        self.init(delay: delay, maxAttempts: try c.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? 2)
        try validate()
    }

    /// Encodes the delay in seconds and the attempts.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(delay.inSeconds, forKey: .delay)
        try c.encode(maxAttempts, forKey: .maxAttempts)
    }
}
