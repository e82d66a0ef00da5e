/// When a row of a transition table applies: always, when a named guard holds, or unless it holds.
///
/// Rows that share a state and an event are tried in table order and the first whose condition
/// holds wins, so a chain of `unless` rows ending in an `always` row reads as a flowchart's
/// chain of decision diamonds.
public enum GuardCondition<Guard: TableSymbol>: Hashable, Sendable {
    /// The row applies whenever its state and event match (drawn with no guard, or `[else]`
    /// when other rows for the same state and event have guards).
    case always
    /// The row applies when the guard holds: drawn `[guard]`.
    case when(Guard)
    /// The row applies when the guard does not hold: drawn `[not guard]`.
    case unless(Guard)

    /// The guard this condition tests, if any.
    package var guardSymbol: Guard? {
        switch self {
        case .always: nil
        case .when(let g), .unless(let g): g
        }
    }

    /// Whether the row applies, given how its guard evaluates.
    @inlinable
    package func holds(_ evaluate: (Guard) -> Bool) -> Bool {
        switch self {
        case .always: true
        case .when(let g): evaluate(g)
        case .unless(let g): !evaluate(g)
        }
    }

    /// The guard text as drawn on charts, without brackets: `retryable`, its negated label
    /// (`not retryable`, `no attempts left`), or `""`.
    public var label: String {
        switch self {
        case .always: ""
        case .when(let g): g.label
        case .unless(let g): g.negatedLabel
        }
    }

    /// The guard as drawn on a row, `[label]`, or `""` for ``always``.
    package var bracketed: String { self == .always ? "" : "[\(label)]" }
}
