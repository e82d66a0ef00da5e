/// A name in a transition table: a state, an event, a guard or an effect.
///
/// Symbols are plain enums whose raw values are the labels drawn on the chart, so the words a
/// reader sees on the flowchart are exactly the words the engine looks up.
///
/// ```swift
/// enum Light: String, TableSymbol { case red, green }
/// ```
public protocol TableSymbol: RawRepresentable, CaseIterable, Hashable, Sendable
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

    /// The symbol whose ``negatedLabel`` is `label`, if any (how a trace file's `"not retryable"` reads
    /// back): a case, else a symbol its raw value makes (a step's `to NAME`) that negates to `label`.
    package static func negated(label: String) -> Self? {
        if let known = allCases.first(where: { $0.negatedLabel == label }) { return known }
        guard label.hasPrefix("not "), let symbol = Self(rawValue: String(label.dropFirst(4))),
            symbol.negatedLabel == label
        else { return nil }
        return symbol
    }
}

/// A guard that bounds loops by a count one effect grows: `attempts left` is kept finite by `start
/// attempt`. `validate()` then counts a loop as bounded only if it also passes a row with that effect
/// (`attempts left` bounds nothing on a loop that starts no attempt). Package-only: the shipped
/// retry table's stricter check; a table of your own counts any row its bounding guard keeps finite.
package protocol CountedBound {
    /// The label of the effect that grows the count this guard bounds, if any.
    var countingEffect: String? { get }
}

/// An effect that may be taken only by one state and event: the retry table's `start attempt`
/// leaves only `breaker` on `admitted`, so no attempt is sent without the breaker's admission.
/// Package-only: `validate()`'s check of the shipped retry table (and of tables built on its words).
package protocol AdmittedEffect {
    /// The state and event (labels) every row carrying this effect must leave by, in a table that has
    /// that state; `nil`: anywhere.
    var admittedBy: (state: String, event: String)? { get }
}
