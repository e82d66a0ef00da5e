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
}

extension TableSymbol {
    /// The text drawn on charts for this symbol (its raw value).
    public var label: String { rawValue }

    /// The text drawn for the guard's negation, `[not label]` unless a guard says it better.
    public var negatedLabel: String { "not \(label)" }

    /// `false`: most symbols are not effects that end a run.
    public var endsRun: Bool { false }
}
