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
    public typealias Step = MachineStep<Rules.Vocabulary, Rules.Action>
    /// An input the table has no row for, in the state the machine is in.
    package typealias Rejection = TransitionTrace<Rules.Vocabulary>.Rejection

    /// The table executed. Validate it once (tests do, for every shipped table): an unvalidated table
    /// with an overlong step stops the program.
    public let table: TransitionTable<Rules.Vocabulary>
    /// The current state (never a decision between steps).
    @inlinable public var state: Rules.Vocabulary.State { current }
    /// The specialisation: its facts and what its effects mean.
    @inlinable public var rules: Rules { facts }

    // The step is `@inlinable` so that it is specialised for its rules in the module that calls it
    // (the transfer machine in RetryFlowHTTP, the benchmarks): unspecialised, every guard, effect and
    // comparison goes through witness tables, tens of times slower (docs/benchmarks.md). So what it
    // touches is `@usableFromInline`, and the state and rules it sets are stored under these names.
    // Its helpers are inlined into it: called, each took a copy of the whole machine (memcpy).
    @usableFromInline var current: Rules.Vocabulary.State
    @usableFromInline var facts: Rules
    /// Where the machine stands in ``TransitionTable/lookup``: the start of its slot's bounds in the
    /// lookup's storage (slot 0 before any row, `1 + i` after row `i`).
    @usableFromInline var entry = RowLookup.entry(ofSlot: 0)

    /// A machine in the table's initial state.
    public init(table: TransitionTable<Rules.Vocabulary>, rules: Rules) {
        self.table = table
        self.current = table.initial
        self.facts = rules
    }

    /// Whether the run is over (the state is terminal).
    @inlinable public var isFinished: Bool { table.isTerminal(current) }

    /// Delivers `input`, which happened `at` (time since the run started), and moves by the table.
    ///
    /// - Throws: a ``TransitionTrace/Rejection`` when no row applies; the machine is left unchanged.
    @inlinable
    public mutating func handle(
        _ input: Rules.Input, at time: Duration
    ) throws(TransitionTrace<Rules.Vocabulary>.Rejection) -> Step {
        let event = input.event
        guard let index = firstRow(on: event) else {
            throw TransitionTrace<Rules.Vocabulary>.Rejection(state: current, event: event, at: time)
        }
        facts.receive(input, at: time)
        var step = Step(at: time)
        take(index, into: &step)
        // A decision state is left at once by its first completion row whose guard holds; a chain of
        // decisions is followed to its end (validation rules out loops and overlong chains).
        while let next = firstCompletionRow() {
            take(next, into: &step)
        }
        return step
    }

    /// The first row from the current state on `event` whose guard holds, in table order. A loop
    /// rather than a closure over the rules, so the hot path copies nothing.
    @inlinable @inline(__always)
    func firstRow(on event: Rules.Vocabulary.Event) -> Int? {
        // Fields read in place: binding the whole row would retain its effects array per row scanned.
        for position in table.lookup.eventRows(at: entry) {
            let index = table.lookup.storage[position]
            if table.rows[index].event == event && holds(table.rows[index].condition) { return index }
        }
        return nil
    }

    /// After the row just taken, the first completion row of the state it entered whose guard holds.
    @inlinable @inline(__always)
    func firstCompletionRow() -> Int? {
        for position in table.lookup.completionRows(at: entry) {
            let index = table.lookup.storage[position]
            if holds(table.rows[index].condition) { return index }
        }
        return nil
    }

    @inlinable @inline(__always)
    func holds(_ condition: GuardCondition<Rules.Vocabulary.Guard>) -> Bool {
        switch condition {
        case .always: true
        case .when(let guardSymbol): facts.holds(guardSymbol)
        case .unless(let guardSymbol): !facts.holds(guardSymbol)
        }
    }

    @inlinable @inline(__always)
    mutating func take(_ index: Int, into step: inout Step) {
        current = table.rows[index].to
        entry = RowLookup.entry(ofSlot: index &+ 1) // `&+`: a row's index is below the row count
        // By position, not `for effect in`: an iterator holds the effects array, a retain and a
        // release (atomic) per row taken.
        for position in 0..<table.rows[index].effects.count {
            let effect = table.rows[index].effects[position]
            if let action = facts.perform(effect, of: table.rows[index]) { step.produced.append(action) }
        }
        let noted = facts.traced(table.rows[index])
        step.rows.append(
            .init(
                from: table.rows[index].from, event: table.rows[index].event, condition: table.rows[index].condition,
                to: table.rows[index].to, attempt: noted.attempt, delay: noted.delay))
    }
}
