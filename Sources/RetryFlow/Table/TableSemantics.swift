/// The meaning of a table's guards and effects: what a machine adds to its table so that
/// ``TransitionTable/fire(_:in:with:)`` can run it.
///
/// The retry budget and the circuit breaker are each a table plus one of these; the same lookup
/// runs both (the event's row, then the completion row of a decision state, if entered).
package protocol TableSemantics<State, Event, Guard, Effect> {
    associatedtype State: TableSymbol
    associatedtype Event: TableSymbol
    associatedtype Guard: TableSymbol
    associatedtype Effect: TableSymbol

    /// Whether `guardSymbol` holds now. Guards read only what inputs and earlier effects produced.
    func holds(_ guardSymbol: Guard) -> Bool
    /// Performs one effect of a row being taken (updates counters, records what the driver must do).
    mutating func perform(_ effect: Effect)
}

/// The rows one ``TransitionTable/fire(_:in:with:)`` took: the event's row, then a completion row.
package struct FiredRows: Hashable, Sendable {
    /// The index of the row the event triggered.
    package var row: Int
    /// The index of the completion row taken after it, when the event entered a decision state.
    package var completion: Int?
}

extension TransitionTable {
    /// Delivers `event` in `state`: takes the first row whose guard holds, performs its effects, then,
    /// if it entered a decision, the first completion row whose guard holds (guards see the effects).
    /// Returns `nil`, changing nothing, when no row applies.
    package func fire<S: TableSemantics>(
        _ event: Event, in state: inout State, with semantics: inout S
    ) -> FiredRows? where S.State == State, S.Event == Event, S.Guard == Guard, S.Effect == Effect {
        let current = semantics
        guard let index = rowIndex(from: state, on: event, evaluate: { current.holds($0) }) else { return nil }
        state = rows[index].to
        for effect in rows[index].effects { semantics.perform(effect) }
        guard !completionRows[index].isEmpty else { return FiredRows(row: index, completion: nil) }
        let decided = semantics
        guard let next = completionRowIndex(after: index, evaluate: { decided.holds($0) }) else {
            return FiredRows(row: index, completion: nil)
        }
        state = rows[next].to
        for effect in rows[next].effects { semantics.perform(effect) }
        return FiredRows(row: index, completion: next)
    }

    /// The trace step for taking row `index` at `time`.
    package func traceStep(ofRow index: Int, at time: Duration, detail: String? = nil)
        -> TransitionTrace<State, Event, Guard>.Step
    {
        let row = rows[index]
        return .init(from: row.from, event: row.event, condition: row.condition, to: row.to, at: time, attempt: 0, detail: detail)
    }
}
