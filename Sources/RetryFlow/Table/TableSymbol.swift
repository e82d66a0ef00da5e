/// A name in a transition table: a state, an event, a guard or an effect.
///
/// Symbols are plain enums whose raw values are the labels drawn on the chart, so the words a
/// reader sees on the flowchart are exactly the words the engine looks up.
///
/// ```swift
/// enum Light: String, TableSymbol { case red, green }
/// ```
public protocol TableSymbol: RawRepresentable, CaseIterable, Hashable, Sendable, Codable
where RawValue == String, AllCases: Sendable {
    /// How the negation reads on a chart: `[no attempts left]` reads better than `[not attempts left]`.
    var negatedLabel: String { get }
    /// For effects: whether this effect ends the run (like the retry table's `finish`). `validate()`
    /// allows it only on rows that enter a terminal state, so the executor never meets it elsewhere.
    var endsRun: Bool { get }
    /// For guards: whether the guard counts something that only grows along a loop (attempts
    /// started, a step's visits), so that a loop through a row it guards ends. `validate()` refuses
    /// a table with a loop that passes no such row.
    var boundsLoops: Bool { get }
    /// For a guard that bounds loops: the label of the effect that grows its count (`start attempt`
    /// for `attempts left`). A loop is bounded only if it passes a row this guard keeps finite and
    /// a row with this effect; `nil` (the default) takes any bounded row as enough.
    var countingEffect: String? { get }
    /// For effects: the state and event (labels) that every row carrying this effect must leave by,
    /// in a table that has that state. The retry table's `start attempt` comes only from `breaker`
    /// on `admitted`, so no attempt is sent without the breaker's admission. `nil` (the default): anywhere.
    var admittedBy: (state: String, event: String)? { get }
    /// The symbol whose ``negatedLabel`` is `label`, if any (how a trace file's `"not retryable"` reads back).
    static func negated(label: String) -> Self?
}

extension TableSymbol {
    /// The text drawn on charts for this symbol (its raw value).
    public var label: String { rawValue }

    /// The text drawn for the guard's negation, `[not label]` unless a guard says it better.
    public var negatedLabel: String { "not \(label)" }

    /// `false`: most symbols are not effects that end a run.
    public var endsRun: Bool { false }

    /// `false`: most guards bound nothing.
    public var boundsLoops: Bool { false }

    /// `nil`: no effect named.
    public var countingEffect: String? { nil }

    /// `nil`: an effect that may be on any row.
    public var admittedBy: (state: String, event: String)? { nil }

    /// The case whose negated label is `label`, searched in `allCases`.
    public static func negated(label: String) -> Self? { allCases.first { $0.negatedLabel == label } }
}
