/// What one call to ``TableMachine/handle(_:at:)`` did: the rows taken (the input's row, then every
/// completion row of the decisions it passed through) and the actions to perform, in order.
///
/// Every field is a plain value (for the retry machine), so returning and dropping a step costs
/// nothing; ``taken(detail:)`` lists the rows as trace steps, with the input's words on its row.
public struct MachineStep<State: TableSymbol, Event: TableSymbol, Guard: TableSymbol, Action: Sendable>: Sendable {
    /// A trace step of this machine.
    public typealias TraceStep = TransitionTrace<State, Event, Guard>.Step

    /// One row taken, without the words: every field a plain value.
    @usableFromInline
    struct Row: Hashable, Sendable {
        @usableFromInline var from: State
        @usableFromInline var event: Event?
        @usableFromInline var condition: GuardCondition<Guard>
        @usableFromInline var to: State
        @usableFromInline var attempt: Int
        @usableFromInline var delay: Duration?

        @inlinable
        init(
            from: State, event: Event?, condition: GuardCondition<Guard>, to: State, attempt: Int, delay: Duration?
        ) {
            self.from = from
            self.event = event
            self.condition = condition
            self.to = to
            self.attempt = attempt
            self.delay = delay
        }
    }

    @usableFromInline var rows = StepBuffer<Row>()
    /// When the input happened, since the run started (every row of a step is taken at once).
    public let at: Duration
    /// What the driver must do, in order.
    @inlinable public var actions: StepBuffer<Action> { produced }
    /// The actions, under a name the inlinable core can append to.
    @usableFromInline var produced = StepBuffer<Action>()

    @inlinable
    init(at: Duration) {
        self.at = at
    }

    /// The rows taken, as trace steps (the input's row first), without words. Builds an array: for
    /// drivers recording a trace and for tests, not for the allocation-free step itself.
    public var taken: [TraceStep] { taken(detail: nil) }

    /// The rows taken, as trace steps, with `detail` (the input's words, ``MachineInput/detail``)
    /// on the input's row: what a driver records.
    public func taken(detail: String?) -> [TraceStep] {
        rows.indices.map { traceStep($0, detail: $0 == 0 ? detail : nil) }
    }

    /// The row triggered by the input.
    public var transition: TraceStep { traceStep(0, detail: nil) }

    /// The trace step of the `index`-th row (what the engine records, without building an array).
    func traceStep(_ index: Int, detail: String?) -> TraceStep {
        let row = rows[index]
        return TraceStep(
            from: row.from, event: row.event, condition: row.condition, to: row.to, at: at, attempt: row.attempt,
            delay: row.delay, detail: detail)
    }
}

extension MachineStep: Equatable where Action: Equatable {}
extension MachineStep: Hashable where Action: Hashable {}
