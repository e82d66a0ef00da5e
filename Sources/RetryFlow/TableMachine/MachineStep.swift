/// What one call to ``TableMachine/handle(_:at:)`` did: the rows taken (the input's row, then every
/// completion row of the decisions it passed through) and the actions to perform, in order.
///
/// Every field is a plain value (for the retry machine), so returning and dropping a step costs
/// nothing; `taken(detail:)` lists the rows as trace steps, with the input's words on its row, and
/// ``actions`` the actions.
public struct MachineStep<Vocabulary: TableVocabulary, Action: Sendable>: Sendable {
    /// A trace step of this machine.
    package typealias TraceStep = TransitionTrace<Vocabulary>.Step

    /// One row taken, without the words: every field a plain value.
    @usableFromInline
    package struct Row: Hashable, Sendable {
        @usableFromInline package var from: Vocabulary.State
        @usableFromInline package var event: Vocabulary.Event?
        @usableFromInline package var condition: GuardCondition<Vocabulary.Guard>
        @usableFromInline package var to: Vocabulary.State
        @usableFromInline package var attempt: Int
        @usableFromInline package var delay: Duration?

        @inlinable
        package init(
            from: Vocabulary.State, event: Vocabulary.Event?, condition: GuardCondition<Vocabulary.Guard>,
            to: Vocabulary.State, attempt: Int, delay: Duration?
        ) {
            self.from = from
            self.event = event
            self.condition = condition
            self.to = to
            self.attempt = attempt
            self.delay = delay
        }
    }

    /// The rows taken, held inline (``StepBuffer``) so a step allocates nothing.
    @usableFromInline package var rows = StepBuffer<Row>()
    /// When the input happened, since the run started (every row of a step is taken at once).
    @usableFromInline package let at: Duration
    /// What the driver must do, in order. Builds an array: for tests and drivers of your own; the
    /// package's drivers read `produced`, which allocates nothing.
    public var actions: [Action] { Array(produced) }
    /// The actions, held inline: what the inlinable core appends to and the engine's drivers read.
    @usableFromInline package var produced = StepBuffer<Action>()

    @inlinable
    package init(at: Duration) {
        self.at = at
    }

    /// The rows taken, as trace steps (the input's row first), without words. Builds an array: for
    /// drivers recording a trace and for tests, not for the allocation-free step itself.
    package var taken: [TraceStep] { taken(detail: nil) }

    /// The rows taken, as trace steps, with `detail` (the input's words, ``MachineInput/detail``)
    /// on the input's row: what a driver records.
    package func taken(detail: String?) -> [TraceStep] {
        rows.indices.map { traceStep($0, detail: $0 == 0 ? detail : nil) }
    }

    /// The row triggered by the input.
    package var transition: TraceStep { traceStep(0, detail: nil) }

    /// The trace step of the `index`-th row (what the engine records, without building an array).
    package func traceStep(_ index: Int, detail: String?) -> TraceStep {
        let row = rows[index]
        return TraceStep(
            from: row.from, event: row.event, condition: row.condition, to: row.to, at: at, attempt: row.attempt,
            delay: row.delay, detail: detail)
    }
}

extension MachineStep: Equatable where Action: Equatable {}
extension MachineStep: Hashable where Action: Hashable {}
