/// JSON form of a trace: `{"steps": [{"from": "request", "event": "failed", "guard": null,
/// "to": "retry", "at": 0.012, "attempt": 1, "delay": null, "detail": "…"}], "rejections": []}`,
/// times in seconds, guards as drawn (`"not retryable"`).
extension TransitionTrace: Codable {
    private enum Key: String, CodingKey { case steps, rejections }

    /// Decodes a trace, rejecting unknown state, event and guard names.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        steps = try c.decode([Step].self, forKey: .steps)
        rejections = try c.decodeIfPresent([Rejection].self, forKey: .rejections) ?? []
    }

    /// Encodes the trace.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(steps, forKey: .steps)
        try c.encode(rejections, forKey: .rejections)
    }
}

extension TransitionTrace.Step: Codable {
    private enum Key: String, CodingKey { case from, event, `guard`, to, at, attempt, delay, detail }

    /// Decodes one step.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        from = try c.decode(Vocabulary.State.self, forKey: .from)
        event = try c.decodeIfPresent(Vocabulary.Event.self, forKey: .event)
        condition = try c.decodeIfPresent(GuardCondition<Vocabulary.Guard>.self, forKey: .guard) ?? .always
        to = try c.decode(Vocabulary.State.self, forKey: .to)
        at = try c.seconds(c.decode(Double.self, forKey: .at), forKey: .at)
        attempt = try c.decode(Int.self, forKey: .attempt)
        delay = try c.decodeIfPresent(Double.self, forKey: .delay).map { try c.seconds($0, forKey: .delay) }
        detail = try c.decodeIfPresent(String.self, forKey: .detail)
    }

    /// Encodes one step (absent values as `null`, so every step has the same keys).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(from, forKey: .from)
        try c.encode(event, forKey: .event)
        try c.encode(condition == .always ? nil : condition, forKey: .guard)
        try c.encode(to, forKey: .to)
        try c.encode(at.inSeconds, forKey: .at)
        try c.encode(attempt, forKey: .attempt)
        try c.encode(delay?.inSeconds, forKey: .delay)
        try c.encode(detail, forKey: .detail)
    }
}

extension TransitionTrace.Rejection: Codable {
    private enum Key: String, CodingKey { case state, event, at }

    /// Decodes a rejection.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        state = try c.decode(Vocabulary.State.self, forKey: .state)
        event = try c.decode(Vocabulary.Event.self, forKey: .event)
        at = try c.seconds(c.decode(Double.self, forKey: .at), forKey: .at)
    }

    /// Encodes a rejection.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(state, forKey: .state)
        try c.encode(event, forKey: .event)
        try c.encode(at.inSeconds, forKey: .at)
    }
}

/// A condition is written as drawn: `"retryable"` or its negated label (`"not retryable"`,
/// `"no attempts left"`); `always` is `null`.
extension GuardCondition: Codable {
    /// Decodes `"g"` or `"not g"`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .always
            return
        }
        let text = try c.decode(String.self)
        if let g = Guard(rawValue: text) {
            self = .when(g)
        } else if let g = Guard.negated(label: text) {
            self = .unless(g)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown guard \"\(text)\"")
        }
    }

    /// Encodes the condition as drawn.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if self == .always { try c.encodeNil() } else { try c.encode(label) }
    }
}

extension KeyedDecodingContainer {
    /// A number of seconds as a `Duration`: a value no run can reach (negative, beyond
    /// `Duration.inputLimit`) is a data error naming the key, never an overflow trap.
    fileprivate func seconds(_ seconds: Double, forKey key: Key) throws -> Duration {
        guard let duration = Duration.checkedSeconds(seconds) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "\(seconds) is not a number of seconds a run can take")
        }
        return duration
    }
}
