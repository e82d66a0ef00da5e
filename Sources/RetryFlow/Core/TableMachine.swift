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
        guard let index = firstRow(from: state, on: input.event) else {
            throw Rejection(state: state, event: input.event, at: time)
        }
        rules.receive(input, at: time)
        var step = Step(at: time)
        take(index, into: &step)
        // A decision state is left at once by its first completion row whose guard holds; a chain of
        // decisions is followed to its end (validation rules out loops and overlong chains).
        var last = index
        while let next = firstCompletionRow(after: last) {
            take(next, into: &step)
            last = next
        }
        return step
    }

    /// The first row from `state` on `event` whose guard holds, in table order. A loop rather than
    /// a closure over the rules, so the hot path copies nothing.
    private func firstRow(from state: Rules.State, on event: Rules.Event) -> Int? {
        // Fields read in place: binding the whole row would retain its effects array per row scanned.
        for index in table.rows.indices
        where table.rows[index].from == state && table.rows[index].event == event
            && holds(table.rows[index].condition)
        {
            return index
        }
        return nil
    }

    /// After row `taken`, the first completion row of the state it entered whose guard holds.
    private func firstCompletionRow(after taken: Int) -> Int? {
        for index in table.completionRows[taken] where holds(table.rows[index].condition) { return index }
        return nil
    }

    private func holds(_ condition: GuardCondition<Rules.Guard>) -> Bool {
        switch condition {
        case .always: true
        case .when(let guardSymbol): rules.holds(guardSymbol)
        case .unless(let guardSymbol): !rules.holds(guardSymbol)
        }
    }

    private mutating func take(_ index: Int, into step: inout Step) {
        let row = table.rows[index]
        var noted = StepNotes()
        state = row.to
        for effect in row.effects {
            if let action = rules.perform(effect, of: row, notes: &noted) { step.actions.append(action) }
        }
        rules.annotate(&noted)
        step.rows.append(
            .init(
                from: row.from, event: row.event, condition: row.condition, to: row.to, attempt: noted.attempt,
                delay: noted.delay))
    }
}
