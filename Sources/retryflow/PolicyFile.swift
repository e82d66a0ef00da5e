import RetryFlow
import RetryFlowHTTP

/// What `--policy FILE.json` holds: a `RetryPolicy` in its JSON form and, beside the policy's
/// fields, `"hedging": {"delay": 0.05, "maxAttempts": 2}`. Hedging is an HTTP option
/// (`HTTPRetryOptions.hedging`), no longer a policy field; the file keeps the key so that a file
/// written when it was one still hedges `fetch` and `simulate`, as `--hedge` does.
struct PolicyFile: Decodable {
    /// The policy's fields.
    var policy: RetryPolicy
    /// The file's `"hedging"` (validated as it is decoded); `nil` when absent.
    var hedging: HedgingPolicy?

    private enum Key: String, CodingKey { case hedging }

    /// Decodes the policy (refusing any other unknown key, by name) and the hedging beside it.
    init(from decoder: any Decoder) throws {
        policy = try RetryPolicy(from: decoder, besides: [Key.hedging.rawValue])
        hedging = try decoder.container(keyedBy: Key.self).decodeIfPresent(HedgingPolicy.self, forKey: .hedging)
    }
}
