/// The JSON form of a policy, with durations in seconds:
///
/// ```json
/// {"maxAttempts": 4, "backoff": {"kind": "exponential", "base": 0.5, "multiplier": 2},
///  "maxDelay": 20, "jitter": "full", "deadline": 30, "perAttemptTimeout": 5, "maxRetryAfter": 300}
/// ```
/// Missing fields take the default policy's values; decoding validates and names a bad field.
extension RetryPolicy: Codable {
    private enum Key: String, CodingKey {
        case maxAttempts, backoff, maxDelay, jitter, deadline, perAttemptTimeout, maxRetryAfter
    }

    /// Decodes and validates a policy; unknown keys are rejected so a typo is not silently ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(["maxAttempts", "backoff", "maxDelay", "jitter", "deadline", "perAttemptTimeout", "maxRetryAfter"])
        if let unknown = c.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw RetryPolicyError(field: unknown.stringValue, problem: "is not a policy field (known: \(known.sorted().joined(separator: ", ")))")
        }
        var policy = RetryPolicy.default
        if let n = try c.decodeIfPresent(Int.self, forKey: AnyKey("maxAttempts")) { policy.maxAttempts = n }
        if let b = try c.decodeIfPresent(Backoff.self, forKey: AnyKey("backoff")) { policy.backoff = b }
        if let s = try c.decodeIfPresent(Double.self, forKey: AnyKey("maxDelay")) {
            policy.maxDelay = try Duration(validatingSeconds: s, field: "maxDelay")
        }
        if let j = try c.decodeIfPresent(String.self, forKey: AnyKey("jitter")) {
            guard let jitter = Jitter(rawValue: j) else {
                throw RetryPolicyError(field: "jitter", problem: "must be one of none, full, equal, decorrelated (got \"\(j)\")")
            }
            policy.jitter = jitter
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
        try c.encode(jitter, forKey: .jitter)
        try c.encodeIfPresent(deadline?.inSeconds, forKey: .deadline)
        try c.encodeIfPresent(perAttemptTimeout?.inSeconds, forKey: .perAttemptTimeout)
        try c.encode(maxRetryAfter.inSeconds, forKey: .maxRetryAfter)
    }
}

/// `{"kind": "constant", "delay": 0.2}`, `{"kind": "linear", "initial": 1, "increment": 1}`,
/// `{"kind": "exponential", "base": 0.5, "multiplier": 2}`.
extension Backoff: Codable {
    private enum Key: String, CodingKey { case kind, delay, initial, increment, base, multiplier }

    /// Decodes a backoff, naming the field on a bad value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: .kind)
        func seconds(_ key: Key) throws -> Duration {
            try Duration(validatingSeconds: try c.decode(Double.self, forKey: key), field: "backoff.\(key.rawValue)")
        }
        switch kind {
        case "constant": self = .constant(try seconds(.delay))
        case "linear": self = .linear(initial: try seconds(.initial), increment: try seconds(.increment))
        case "exponential":
            self = .exponential(base: try seconds(.base), multiplier: try c.decodeIfPresent(Double.self, forKey: .multiplier) ?? 2)
        default:
            throw RetryPolicyError(field: "backoff.kind", problem: "must be constant, linear or exponential (got \"\(kind)\")")
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
