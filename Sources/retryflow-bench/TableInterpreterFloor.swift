import RetryFlow
import RetryFlowHTTP

/// The floor of any executor of a table as data: the least an interpreter must do when the rows are
/// data it looks up (the project's invariant), measured beside `budget-step` and `transfer-step`.
///
/// Written for the cheapest lookup, with none of the core's generality: the rows of each (state,
/// event) pair, and each decision's completion rows, are contiguous in one array indexed by a dense
/// cell number; states are integers; the caller maps its input to an event number with a `switch`;
/// guards and effects are the machine's own rules (their `switch`es: inlined for the budget, whose
/// rules are copied here, called for the transfer, whose rules are not inlinable from this module, so
/// its figure is an upper bound of the floor); no row is recorded and actions go straight to a closure. What it still does, as any table executor must: read the
/// candidate rows' bounds, each row's condition and target, and its effects, from memory.
struct TableInterpreterFloor<Rules: MachineRules> {
    /// One row, as the interpreter reads it.
    struct Row {
        let condition: GuardCondition<Rules.Guard>
        /// The state entered, as its position in `State.allCases`.
        let to: Int
        /// Its effects: positions in `effects`.
        let effectStart: Int
        let effectEnd: Int
        /// Its position in the table (an effect may read its row: the transfer's `finish`).
        let original: Int
    }

    /// The table laid out for the interpreter, once (as a table's ``RowLookup`` is made once).
    struct Layout {
        let table: Rules.Table
        let rows: [Row]
        let effects: [Rules.Effect]
        /// Rows of cell `c` are `rows[cells[c]..<cells[c + 1]]`, where `c = state × columns + event`,
        /// and the last column holds a decision's completion rows.
        let cells: [Int]
        let columns: Int
        let initial: Int

        init(_ table: Rules.Table) {
            let events = Array(Rules.Event.allCases)
            columns = events.count + 1
            var rows: [Row] = []
            var effects: [Rules.Effect] = []
            var cells: [Int] = []
            for state in Rules.State.allCases {
                for column in 0..<columns {
                    cells.append(rows.count)
                    let event = column < events.count ? events[column] : nil
                    for (index, row) in table.rows.enumerated() where row.from == state && row.event == event {
                        rows.append(
                            Row(
                                condition: row.condition, to: TableInterpreterFloor.number(of: row.to),
                                effectStart: effects.count, effectEnd: effects.count + row.effects.count,
                                original: index))
                        effects += row.effects
                    }
                }
            }
            cells.append(rows.count)
            self.table = table
            self.rows = rows
            self.effects = effects
            self.cells = cells
            self.initial = TableInterpreterFloor.number(of: table.initial)
        }
    }

    let layout: Layout
    /// The current state, as its position in `State.allCases`.
    var state: Int
    var facts: Rules

    init(layout: Layout, rules: Rules) {
        self.layout = layout
        self.state = layout.initial
        self.facts = rules
    }

    /// The position of `state` in `State.allCases` (outside the step: for the driver's checks).
    static func number(of state: Rules.State) -> Int { Array(Rules.State.allCases).firstIndex(of: state)! }

    /// One step: `input` is event number `event` (its position in `Event.allCases`). Returns false
    /// when no row applies (the interpreter is left unchanged).
    @inline(__always)
    mutating func handle(_ input: Rules.Input, event: Int, emit: (Rules.Action) -> Void) -> Bool {
        guard let first = firstRow(cell: state * layout.columns + event) else { return false }
        facts.receive(input, at: .zero)
        take(first, emit: emit)
        // Completion rows exist only for decisions (validation), so an empty cell ends the chain.
        while let next = firstRow(cell: state * layout.columns + layout.columns - 1) { take(next, emit: emit) }
        return true
    }

    @inline(__always)
    func firstRow(cell: Int) -> Int? {
        for index in layout.cells[cell]..<layout.cells[cell + 1] {
            switch layout.rows[index].condition {
            case .always: return index
            case .when(let guardSymbol): if facts.holds(guardSymbol) { return index }
            case .unless(let guardSymbol): if !facts.holds(guardSymbol) { return index }
            }
        }
        return nil
    }

    @inline(__always)
    mutating func take(_ index: Int, emit: (Rules.Action) -> Void) {
        state = layout.rows[index].to
        var notes = StepNotes()
        for position in layout.rows[index].effectStart..<layout.rows[index].effectEnd {
            let row = layout.table.rows[layout.rows[index].original]
            if let action = facts.perform(layout.effects[position], of: row, notes: &notes) {
                emit(action)
            }
        }
    }
}

extension TableStepBenchmarks {
    /// The same scenario on ``TableInterpreterFloor`` (`nil` for the breaker, not measured this way).
    static func interpreter(_ kind: Kind, _ size: Int) -> Outcome? {
        switch kind {
        case .budget: budgetInterpreter(size)
        case .breaker: nil
        case .transfer: transferInterpreter(size)
        }
    }

    /// The budget's event numbers, by `switch` as a hand-written interpreter would have them.
    @inline(__always)
    static func number(_ event: BudgetEvent) -> Int {
        switch event {
        case .retryAsked: 0
        case .attemptFailed: 1
        case .attemptSucceeded: 2
        }
    }

    @inline(__always)
    static func number(_ event: TransferEvent) -> Int {
        switch event {
        case .attempt: 0
        case .whole: 1
        case .partial: 2
        case .notSatisfiable: 3
        case .refused: 4
        case .bodyEnded: 5
        case .interrupted: 6
        case .gaveUp: 7
        case .cancelled: 8
        }
    }

    @inline(never)
    static func budgetInterpreter(_ inputs: Int) -> Outcome {
        precondition(BudgetEvent.allCases.enumerated().allSatisfy { number($1) == $0 }, "budget event numbers")
        var machine = TableInterpreterFloor(layout: .init(.budget), rules: BudgetFloorRules(mode: .awsStandard))
        let exhausted = TableInterpreterFloor<BudgetFloorRules>.number(of: .exhausted)
        var outcome = Outcome()
        var lastGranted: Int?
        for index in 0..<inputs {
            let input = budgetInput(index, lastGranted: lastGranted)
            _ = machine.handle(input, event: number(input.event)) { _ in }
            outcome.steps += 1
            switch input {
            case .retryAsked(let timeout):
                if machine.facts.granted {
                    lastGranted = machine.facts.cost(timeout: timeout)
                    outcome.checksum &+= lastGranted!
                }
            case .attemptSucceeded: lastGranted = nil
            case .attemptFailed: break
            }
            if machine.state == exhausted { outcome.checksum &+= 1 }
        }
        return outcome
    }

    @inline(never)
    static func transferInterpreter(_ runs: Int) -> Outcome {
        precondition(TransferEvent.allCases.enumerated().allSatisfy { number($1) == $0 }, "transfer event numbers")
        let finished = Set(
            TransitionTable.transfer.terminals.map { TableInterpreterFloor<TransferRules>.number(of: $0) })
        var outcome = Outcome()
        let layout = TableInterpreterFloor<TransferRules>.Layout(.transfer)
        for run in 0..<runs {
            var machine = TableInterpreterFloor(
                layout: layout, rules: TransferRules(bytesOnDisk: startingBytes(run), expectedSHA256: nil))
            _ = transferScript(run) { input in
                guard machine.handle(input, event: number(input.event), emit: { mix($0, into: &outcome.checksum) })
                else { preconditionFailure("no row") }
                outcome.steps += 1
            }
            precondition(finished.contains(machine.state))
        }
        return outcome
    }
}

/// ``BudgetRules`` as written in RetryFlow, copied into this module so the floor inlines its
/// guard and effects (the machine core's specialisation inlines RetryFlow's own, in RetryFlow;
/// called across modules they would be calls): AWS standard mode only, the mode measured. The rules
/// read the rows of the budget's table: a mirror of BudgetTable.budget, rows fingerprint ba11d1de5bd85da6.
struct BudgetFloorRules: MachineRules {
    typealias State = BudgetState
    typealias Event = BudgetEvent
    typealias Guard = BudgetGuard
    typealias Effect = BudgetEffect
    typealias Reason = PerpetualReason
    typealias Input = BudgetInput
    typealias Action = Never

    let capacity: Int
    let retryCost: Int
    let timeoutRetryCost: Int
    let successIncrement: Int
    var milliTokens: Int
    var asked: Int
    var refundDue = 0
    var granted = false

    init(mode: RetryBudgetMode) {
        guard case .awsStandard(let capacity, let retryCost, let timeoutRetryCost, let increment) = mode else {
            preconditionFailure("AWS standard mode")
        }
        self.capacity = capacity * 1000
        self.retryCost = retryCost * 1000
        self.timeoutRetryCost = timeoutRetryCost * 1000
        self.successIncrement = increment * 1000
        self.milliTokens = capacity * 1000
        self.asked = retryCost * 1000
    }

    func cost(timeout: Bool) -> Int { timeout ? timeoutRetryCost : retryCost }

    mutating func receive(_ input: BudgetInput, at time: Duration) {
        granted = false
        asked = retryCost
        switch input {
        case .retryAsked(let timeout): asked = cost(timeout: timeout)
        case .attemptFailed: break
        case .attemptSucceeded(let refund): refundDue = refund ?? successIncrement
        }
    }

    func holds(_ guardSymbol: BudgetGuard) -> Bool {
        switch guardSymbol {
        case .retryAffordable: milliTokens >= asked
        }
    }

    mutating func perform(_ effect: BudgetEffect, of row: Row, notes: inout StepNotes) -> Never? {
        switch effect {
        case .takeTokens:
            milliTokens -= asked
            asked = retryCost
        case .grant: granted = true
        case .deny: granted = false
        case .chargeFailure: break // AWS charges nothing for a failure
        case .refund: milliTokens = min(capacity, milliTokens + refundDue)
        }
        return nil
    }
}
