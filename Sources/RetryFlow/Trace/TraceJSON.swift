import Foundation

/// The JSON form of a trace: `{"steps": [{"from": "request", "event": "failed", "guard": null,
/// "to": "retry", "at": 0.012, "attempt": 1, "delay": null, "detail": "…"}], "rejections": []}`,
/// times in seconds, guards as drawn (`"not retryable"`), absent values as `null` so every step has
/// the same keys.
///
/// Why a package wrapper and not a public `Codable` conformance of the trace: users receive traces
/// from runs and write them with `HTTPTraceJSON.encode`; only our own tools read them back (the
/// CLI's `render --trace` and `simulate --replay`, `verify`'s counterexample, the fuzzers, the
/// tests). So the format is ours, kept in this one place, and the trace promises users no coding.
/// It reads a table's words by their labels only (`rawValue`, `init?(rawValue:)`, a guard's
/// `negatedLabel` and `negated(label:)`), and refuses what no run writes: an unknown state, event
/// or guard name, and a time that is no number of seconds a run can take (NaN, infinite,
/// negative, beyond `Duration.inputLimit`), each a data error naming its key, never a trap.
package struct TraceJSON<Vocabulary: TableVocabulary>: Codable {
    /// The trace written or read.
    package var trace: TransitionTrace<Vocabulary>

    /// Wraps `trace` for a `JSONEncoder`.
    package init(_ trace: TransitionTrace<Vocabulary>) { self.trace = trace }

    /// `trace` as JSON (`[.prettyPrinted, .sortedKeys]` for the files people read).
    package static func encode(
        _ trace: TransitionTrace<Vocabulary>, formatting: JSONEncoder.OutputFormatting = []
    ) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return try encoder.encode(Self(trace))
    }

    /// The trace `data` holds, or the `DecodingError` naming what is wrong with it.
    package static func decode(_ data: Data) throws -> TransitionTrace<Vocabulary> {
        try JSONDecoder().decode(Self.self, from: data).trace
    }

    private enum Key: String, CodingKey { case steps, rejections }

    /// Reads a trace; `rejections` may be left out.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        trace = TransitionTrace(
            steps: try c.decode([StepJSON].self, forKey: .steps).map(\.step),
            rejections: try c.decodeIfPresent([RejectionJSON].self, forKey: .rejections)?.map(\.rejection) ?? [])
    }

    /// Writes the trace.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(trace.steps.map(StepJSON.init), forKey: .steps)
        try c.encode(trace.rejections.map(RejectionJSON.init), forKey: .rejections)
    }

    /// Writes one step as its object (`HTTPTraceJSON` adds its own keys to it).
    package static func encode(_ step: TransitionTrace<Vocabulary>.Step, to encoder: any Encoder) throws {
        try StepJSON(step).encode(to: encoder)
    }

    /// Writes one rejection as its object.
    package static func encode(_ rejection: TransitionTrace<Vocabulary>.Rejection, to encoder: any Encoder) throws {
        try RejectionJSON(rejection).encode(to: encoder)
    }

    // Each object's keys are an enum named `Key`, as they were when the trace's types were `Codable`
    // themselves: a missing key's error reads `No value associated with key Key(…)`, and the CLI
    // prints that description.

    /// A step in the `steps` array.
    private struct StepJSON: Codable {
        let step: TransitionTrace<Vocabulary>.Step
        private enum Key: String, CodingKey { case from, event, `guard`, to, at, attempt, delay, detail }

        init(_ step: TransitionTrace<Vocabulary>.Step) { self.step = step }

        /// Reads one step; `event`, `guard`, `delay` and `detail` may be `null` or left out.
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            let from = try c.symbol(Vocabulary.State.self, forKey: .from)
            let event: Vocabulary.Event? = try c.decodeIfPresent(String.self, forKey: .event).map {
                try c.symbol($0, forKey: .event)
            }
            let condition: GuardCondition<Vocabulary.Guard>? = try c.decodeIfPresent(String.self, forKey: .guard).map {
                try c.condition($0, forKey: .guard)
            }
            step = TransitionTrace.Step(
                from: from, event: event, condition: condition ?? .always,
                to: try c.symbol(Vocabulary.State.self, forKey: .to),
                at: try c.seconds(c.decode(Double.self, forKey: .at), forKey: .at),
                attempt: try c.decode(Int.self, forKey: .attempt),
                delay: try c.decodeIfPresent(Double.self, forKey: .delay).map { try c.seconds($0, forKey: .delay) },
                detail: try c.decodeIfPresent(String.self, forKey: .detail))
        }

        /// Writes one step, absent values as `null`.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(step.from.rawValue, forKey: .from)
            try c.encode(step.event?.rawValue, forKey: .event)
            try c.encode(step.condition == .always ? nil : step.condition.label, forKey: .guard)
            try c.encode(step.to.rawValue, forKey: .to)
            try c.encode(step.at.inSeconds, forKey: .at)
            try c.encode(step.attempt, forKey: .attempt)
            try c.encode(step.delay?.inSeconds, forKey: .delay)
            try c.encode(step.detail, forKey: .detail)
        }
    }

    /// A rejection in the `rejections` array.
    private struct RejectionJSON: Codable {
        let rejection: TransitionTrace<Vocabulary>.Rejection
        private enum Key: String, CodingKey { case state, event, at }

        init(_ rejection: TransitionTrace<Vocabulary>.Rejection) { self.rejection = rejection }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            rejection = TransitionTrace.Rejection(
                state: try c.symbol(Vocabulary.State.self, forKey: .state),
                event: try c.symbol(Vocabulary.Event.self, forKey: .event),
                at: try c.seconds(c.decode(Double.self, forKey: .at), forKey: .at))
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(rejection.state.rawValue, forKey: .state)
            try c.encode(rejection.event.rawValue, forKey: .event)
            try c.encode(rejection.at.inSeconds, forKey: .at)
        }
    }
}

extension KeyedDecodingContainer {
    /// The symbol labelled by the string at `key`.
    fileprivate func symbol<Symbol: RawRepresentable<String>>(_ type: Symbol.Type, forKey key: Key) throws -> Symbol {
        try symbol(decode(String.self, forKey: key), forKey: key)
    }

    /// The symbol labelled `label`; an unknown label is a data error naming the key, worded as the
    /// standard library's `RawRepresentable` decoding words it (what trace files were read by before).
    fileprivate func symbol<Symbol: RawRepresentable<String>>(_ label: String, forKey key: Key) throws -> Symbol {
        guard let symbol = Symbol(rawValue: label) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "Cannot initialize \(Symbol.self) from invalid String value \(label)")
        }
        return symbol
    }

    /// A guard written as drawn: `"g"` or its negated label (`"not g"`, `"no attempts left"`).
    fileprivate func condition<Guard: TableSymbol>(_ text: String, forKey key: Key) throws -> GuardCondition<Guard> {
        if let g = Guard(rawValue: text) { return .when(g) }
        if let g = Guard.negated(label: text) { return .unless(g) }
        throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "unknown guard \"\(text)\"")
    }

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
