/// The JSON form of a policy, with durations in seconds:
///
/// ```json
/// {"maxAttempts": 4, "backoff": {"kind": "exponential", "base": 0.5, "multiplier": 2},
///  "maxDelay": 20, "minDelay": 0, "jitter": "full", "deadline": 30, "perAttemptTimeout": 5, "maxRetryAfter": 300}
/// ```
/// Missing fields take the default policy's values; decoding validates and names a bad field; a
/// delay (the backoff's, `maxDelay`, `minDelay`) beyond 1e9 s saturates to 1e9 s. A
/// policy with a ``CustomBackoff`` has no JSON form: encoding it throws, naming the backoff.
/// `"hedging"` is refused with its own message: hedging is an HTTP setting (`HTTPRetryOptions.hedging`).
extension RetryPolicy: Codable {
    private enum Key: String, CodingKey, CaseIterable {
        case maxAttempts, backoff, maxDelay, minDelay, jitter, jittersFirstDelay, jitterMayPassCap, deadline
        case perAttemptTimeout, maxRetryAfter
    }

    /// Decodes and validates a policy; unknown keys are rejected so a typo is not silently ignored.
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder, besides: [])
    }

    /// Decodes and validates a policy from an object that may also hold the keys `others`, which
    /// the caller reads itself: the command line's `--policy` file carries `hedging` beside the
    /// policy, for the HTTP options. Any other unknown key is rejected.
    package init(from decoder: any Decoder, besides others: Set<String>) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(Key.allCases.map(\.rawValue))
        let allowed = known.union(others)
        if let unknown = c.allKeys.first(where: { !allowed.contains($0.stringValue) }) {
            // Hedging left the policy before 1.0 (docs/migrating.md): a file written for the old
            // form is told where the setting went, not just that the key is unknown.
            if unknown.stringValue == "hedging" {
                throw RetryPolicyError(
                    field: "hedging",
                    problem: "is not a policy field any more: hedging is an HTTP setting (HTTPRetryOptions.hedging)")
            }
            throw RetryPolicyError(
                field: unknown.stringValue,
                problem: "is not a policy field (known: \(allowed.sorted().joined(separator: ", ")))")
        }
        var policy = RetryPolicy.default
        if let n = try c.decodeIfPresent(Int.self, forKey: AnyKey("maxAttempts")) { policy.maxAttempts = n }
        if let b = try c.decodeIfPresent(Backoff.self, forKey: AnyKey("backoff")) { policy.backoff = b }
        if let s = try c.decodeIfPresent(Double.self, forKey: AnyKey("maxDelay")) {
            policy.maxDelay = try Duration(saturatingSeconds: s, field: "maxDelay")
        }
        if let s = try c.decodeIfPresent(Double.self, forKey: AnyKey("minDelay")) {
            policy.minDelay = try Duration(saturatingSeconds: s, field: "minDelay")
        }
        if let jitter = try c.decodeIfPresent(Jitter.self, forKey: AnyKey("jitter")) { policy.jitter = jitter }
        if let first = try c.decodeIfPresent(Bool.self, forKey: AnyKey("jittersFirstDelay")) {
            policy.jittersFirstDelay = first
        }
        if let pass = try c.decodeIfPresent(Bool.self, forKey: AnyKey("jitterMayPassCap")) {
            policy.jitterMayPassCap = pass
        }
        if let s = try c.decodeIfPresent(Double.self, forKey: AnyKey("deadline")) {
            policy.deadline = try Duration(validatingSeconds: s, field: "deadline")
        }
        if let s = try c.decodeIfPresent(Double.self, forKey: AnyKey("perAttemptTimeout")) {
            policy.perAttemptTimeout = try Duration(validatingSeconds: s, field: "perAttemptTimeout")
        }
        if let s = try c.decodeIfPresent(Double.self, forKey: AnyKey("maxRetryAfter")) {
            policy.maxRetryAfter = try Duration(validatingSeconds: s, field: "maxRetryAfter")
        }
        try policy.validate()
        self = policy
    }

    /// Encodes the policy's data (not its classifier).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(maxAttempts, forKey: .maxAttempts)
        try c.encode(backoff, forKey: .backoff)
        try c.encode(maxDelay.inSeconds, forKey: .maxDelay)
        if minDelay > .zero { try c.encode(minDelay.inSeconds, forKey: .minDelay) }
        try c.encode(jitter, forKey: .jitter)
        if !jittersFirstDelay { try c.encode(false, forKey: .jittersFirstDelay) }
        if jitterMayPassCap { try c.encode(true, forKey: .jitterMayPassCap) }
        try c.encodeIfPresent(deadline?.inSeconds, forKey: .deadline)
        try c.encodeIfPresent(perAttemptTimeout?.inSeconds, forKey: .perAttemptTimeout)
        try c.encode(maxRetryAfter.inSeconds, forKey: .maxRetryAfter)
    }
}

/// `{"kind": "constant", "delay": 0.2}`, `{"kind": "linear", "initial": 1, "increment": 1}`,
/// `{"kind": "exponential", "base": 0.5, "multiplier": 2}`, `{"kind": "schedule", "delays": [1, 2, 5]}`.
/// A ``CustomBackoff`` is code: encoding one throws, and JSON cannot name one.
extension Backoff: Codable {
    private enum Key: String, CodingKey { case kind, delay, initial, increment, base, multiplier, delays }

    /// Decodes a backoff, naming the field on a bad value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: .kind)
        func seconds(_ key: Key) throws -> Duration {
            try Duration(saturatingSeconds: try c.decode(Double.self, forKey: key), field: "backoff.\(key.rawValue)")
        }
        switch kind {
        case "constant": self = .constant(try seconds(.delay))
        case "linear": self = .linear(initial: try seconds(.initial), increment: try seconds(.increment))
        case "exponential":
            self = .exponential(
                base: try seconds(.base), multiplier: try c.decodeIfPresent(Double.self, forKey: .multiplier) ?? 2)
        case "schedule":
            self = .schedule(
                try c.decode([Double].self, forKey: .delays).map {
                    try Duration(saturatingSeconds: $0, field: "backoff.delays")
                })
        case "custom":
            throw RetryPolicyError(
                field: "backoff.kind",
                problem: "a custom backoff is code and cannot be read from JSON; write its delays as a schedule")
        default:
            throw RetryPolicyError(
                field: "backoff.kind", problem: "must be constant, linear, exponential or schedule (got \"\(kind)\")")
        }
        try validate()
    }

    /// Encodes the backoff with durations in seconds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .constant(let d):
            try c.encode("constant", forKey: .kind)
            try c.encode(d.inSeconds, forKey: .delay)
        case .linear(let initial, let increment):
            try c.encode("linear", forKey: .kind)
            try c.encode(initial.inSeconds, forKey: .initial)
            try c.encode(increment.inSeconds, forKey: .increment)
        case .exponential(let base, let multiplier):
            try c.encode("exponential", forKey: .kind)
            try c.encode(base.inSeconds, forKey: .base)
            try c.encode(multiplier, forKey: .multiplier)
        case .schedule(let delays):
            try c.encode("schedule", forKey: .kind)
            try c.encode(delays.map(\.inSeconds), forKey: .delays)
        case .custom(let custom):
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "\(custom) is code and has no JSON form; write its delays as a schedule"))
        }
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
