/// What one call to ``TableMachine/handle(_:at:)`` did: the rows taken (the input's row, then every
/// completion row of the decisions it passed through) and the actions to perform, in order.
///
/// Every field is a plain value (for the retry machine), so returning and dropping a step costs
/// nothing; ``taken(detail:)`` shows the rows as trace steps, with the input's words on its row.
public struct MachineStep<State: TableSymbol, Event: TableSymbol, Guard: TableSymbol, Action: Sendable>: Sendable {
    /// A trace step of this machine.
    public typealias TraceStep = TransitionTrace<State, Event, Guard>.Step

    /// One row taken, without the words: every field a plain value.
    struct Row: Hashable, Sendable {
        var from: State
        var event: Event?
        var condition: GuardCondition<Guard>
        var to: State
        var attempt: Int
        var delay: Duration?
    }

    var rows = StepBuffer<Row>()
    /// When the input happened, since the run started (every row of a step is taken at once).
    public let at: Duration
    /// What the driver must do, in order.
    public internal(set) var actions = StepBuffer<Action>()

    init(at: Duration) {
        self.at = at
    }

    /// The rows taken, as trace steps (the input's row first), without words.
    public var taken: Taken { Taken(step: self, detail: nil) }

    /// The rows taken, as trace steps, with `detail` (the input's words, ``MachineInput/detail``)
    /// on the input's row: what a driver records.
    public func taken(detail: String?) -> Taken { Taken(step: self, detail: detail) }

    /// The row triggered by the input.
    public var transition: TraceStep { taken[0] }

    /// The rows of a step, as trace steps, built when read.
    public struct Taken: RandomAccessCollection, Sendable {
        let step: MachineStep
        let detail: String?
        /// The first position.
        public var startIndex: Int { 0 }
        /// One past the last position.
        public var endIndex: Int { step.rows.count }
        /// The trace step of the `index`-th row taken.
        public subscript(index: Int) -> TraceStep {
            let row = step.rows[index]
            return TraceStep(
                from: row.from, event: row.event, condition: row.condition, to: row.to, at: step.at,
                attempt: row.attempt, delay: row.delay, detail: index == 0 ? detail : nil)
        }
    }
}

extension MachineStep: Equatable where Action: Equatable {}
extension MachineStep: Hashable where Action: Hashable {}
