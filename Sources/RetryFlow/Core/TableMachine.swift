/// The one executor of every table: a pure value that takes inputs and returns actions, performing
/// no I/O and reading no clock (time comes in with each input). A machine is a table plus its
/// ``MachineRules``; the retry machine, and any machine of your own, run here.
///
/// Each ``handle(_:at:)`` finds the input's row (the first, in table order, for the current state and
/// the input's event whose guard holds), takes it, then follows completion rows while the state it
/// entered is a decision, for any acyclic chain that ``TransitionTable/validate()`` accepted.
///
/// ```swift
/// var machine = TableMachine(table: .counter, rules: CounterRules())
/// let step = try machine.handle(.tick, at: .zero)   // step.taken, step.actions
/// ```
public struct TableMachine<Rules: MachineRules>: Sendable {
    /// What one ``handle(_:at:)`` did.
    public typealias Step = MachineStep<Rules.State, Rules.Event, Rules.Guard, Rules.Action>
    /// An input the table has no row for, in the state the machine is in.
    public typealias Rejection = TransitionTrace<Rules.State, Rules.Event, Rules.Guard>.Rejection

    /// The table executed. Validate it once (tests do, for every shipped table): an unvalidated table
    /// with an overlong step stops the program.
    public let table: Rules.Table
    /// The current state (never a decision between steps).
    public private(set) var state: Rules.State
    /// The specialisation: its facts and what its effects mean.
    public private(set) var rules: Rules

    /// A machine in the table's initial state.
    public init(table: Rules.Table, rules: Rules) {
        self.table = table
        self.state = table.initial
        self.rules = rules
    }

    /// Whether the run is over (the state is terminal).
    public var isFinished: Bool { table.isTerminal(state) }

    /// Delivers `input`, which happened `at` (time since the run started), and moves by the table.
    ///
    /// - Throws: a ``Rejection`` when no row applies; the machine is left unchanged.
    public mutating func handle(_ input: Rules.Input, at time: Duration) throws(Rejection) -> Step {
        guard let index = table.rowIndex(from: state, on: input.event, evaluate: { rules.holds($0) }) else {
            throw Rejection(state: state, event: input.event, at: time)
        }
        rules.receive(input, at: time)
        var step = Step(taken: StepBuffer(), actions: StepBuffer())
        take(index, at: time, detail: input.detail, into: &step)
        var last = index
        // A decision state is left at once by its first completion row whose guard holds; a chain of
        // decisions is followed to its end (validation rules out loops and overlong chains).
        while let next = table.completionRowIndex(after: last, evaluate: { rules.holds($0) }) {
            take(next, at: time, detail: nil, into: &step)
            last = next
        }
        return step
    }

    private mutating func take(_ index: Int, at time: Duration, detail: String?, into step: inout Step) {
        let row = table.rows[index]
        var traced = Rules.Trace.Step(
            from: state, event: row.event, condition: row.condition, to: row.to, at: time, attempt: 0, detail: detail)
        state = row.to
        for effect in row.effects {
            if let action = rules.perform(effect, of: row, step: &traced) { step.actions.append(action) }
        }
        rules.annotate(&traced)
        step.taken.append(traced)
    }
}
