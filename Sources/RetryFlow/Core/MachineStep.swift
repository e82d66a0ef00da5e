/// What one call to ``TableMachine/handle(_:at:)`` did: the rows taken (the input's row, then every
/// completion row of the decisions it passed through) and the actions to perform, in order.
public struct MachineStep<State: TableSymbol, Event: TableSymbol, Guard: TableSymbol, Action: Sendable>: Sendable {
    /// The rows taken, as trace steps: the input's row first.
    public var taken: StepBuffer<TransitionTrace<State, Event, Guard>.Step>
    /// What the driver must do, in order.
    public var actions: StepBuffer<Action>

    /// The row triggered by the input.
    public var transition: TransitionTrace<State, Event, Guard>.Step { taken[0] }
}

extension MachineStep: Equatable where Action: Equatable {}
extension MachineStep: Hashable where Action: Hashable {}
