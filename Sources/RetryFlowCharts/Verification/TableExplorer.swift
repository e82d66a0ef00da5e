import RetryFlow

/// Explores a machine exhaustively: from the initial state, every input a ``ExplorationModel`` says
/// the world can deliver, in every position the machine reaches, breadth first, with positions
/// deduplicated by the model's key. It runs the real machine (`TableMachine` with its
/// `MachineRules`), so a guard's outcome is whatever the rules' facts make it, and the model
/// chooses the facts' sources (the inputs' payloads and times).
///
/// It checks the invariants every table shares (every run ends within the bound, a run ends exactly
/// once, each row ending it names its reason, a required input always has a row) and the model's own,
/// lists which rows are reachable with the shortest input sequence reaching each, and keeps the
/// first path that breaks an invariant as a trace (a counterexample `render --trace` draws).
///
/// ```swift
/// let result = TableExplorer(table: .counter, rules: CounterRules(), model: CounterModel()).explore()
/// print(result.text)
/// ```
public struct TableExplorer<Model: ExplorationModel>: Sendable {
    /// The rules of the machine explored.
    public typealias Rules = Model.Rules
    /// The machine explored.
    package typealias Machine = TableMachine<Rules>

    /// The table explored.
    package let table: Rules.Table
    /// The facts the machine starts with.
    package let rules: Rules
    /// What the world can deliver, and what must hold.
    package let model: Model

    /// An explorer of `table` run by `rules`, fed by `model`.
    public init(table: TransitionTable<Rules.Vocabulary>, rules: Rules, model: Model) {
        self.table = table
        self.rules = rules
        self.model = model
    }

    /// Explores every position within the model's bound and returns what it found.
    ///
    /// Breadth first, one level (one input more) at a time. Only the level being expanded and the
    /// next are kept as whole positions; every position reached is kept as its key, the position it
    /// was first reached from and which of that position's choices led there (a few bytes besides the
    /// key), and every transition as its target's number, for the loop check. A witness or a
    /// counterexample is rebuilt afterwards by replaying those choices from the start on the real
    /// machine, so every trace reported is a run the machine takes.
    public func explore() -> ExplorationResult<Rules.Vocabulary> {
        explore(until: nil)
    }

    /// Explores as ``explore()`` does, stopping as soon as `goals` are all found (each row
    /// reached, each state rested in, each invariant broken): what confirms an over-approximation's
    /// findings on concrete runs. Without goals, or with ``ExplorationGoals/exhaustive``, to the end.
    func explore(until goals: ExplorationGoals?) -> ExplorationResult<Rules.Vocabulary> {
        if ExplorationEngine.reference {
            let model = model
            return ReferenceExplorer(table: table, rules: rules, model: model) { model.key($0) }.explore()
        }
        var result = emptyResult()
        guard !result.refused else { return result }
        let rows = RowFacts(table: table)
        var search = Search(rows: table.rows.count, slots: rows.slotStates.count)
        if let goals, !goals.exhaustive { search.goals = Search.Goals(goals, slotStates: rows.slotStates) }
        let start = ExplorationPosition(machine: Machine(table: table, rules: rules), at: .zero, last: nil)
        search.seen[model.key(start)] = 0
        search.reached[0] = true
        var level = [start]
        var depth = 0
        search: while !level.isEmpty {
            var next: [ExplorationPosition<Rules>] = []
            let first = search.parent.count - level.count
            for offset in level.indices {
                expand(
                    level[offset], node: Int32(first + offset), depth: depth, rows: rows, search: &search, next: &next)
                if search.goals?.met == true { break search }
            }
            search.peakPositions = max(search.peakPositions, level.count + next.count)
            level = next
            depth += 1
        }
        search.edgeStart.append(Int32(search.edgeTarget.count))
        // A loop needs every transition; an exploration stopped at its goals was told there is none.
        if !table.terminals.isEmpty, search.goals == nil, let loop = search.cycle() {
            // The way into the loop, then once around it.
            var around: [Machine.Step.TraceStep] = []
            for (from, to) in zip(loop, loop.dropFirst()) { around += steps(from: from, to: to, search: search) }
            search.violate(
                "every run ends",
                "the run can return to '\(replay(to: loop[0], search: search).position.machine.state.label)' with "
                    + "nothing changed, forever (a loop without a bound)", node: loop[0], extra: around)
        }
        result.statesExplored = search.parent.count
        result.transitionsExplored = search.transitions
        result.storedBytes =
            search.storedBytes(keyStride: MemoryLayout<Model.Key>.stride)
            + search.peakPositions * MemoryLayout<ExplorationPosition<Rules>>.stride
        result.reachableStates = Set(search.reached.indices.filter { search.reached[$0] }.map { rows.slotStates[$0] })
        result.restedStates = Set(search.rested.indices.filter { search.rested[$0] }.map { rows.slotStates[$0] })
        result.violationCount = search.violationCount
        for found in search.violations {
            let (position, steps) = replay(to: found.node, search: search)
            let trace = steps + (found.choice.map { deliver($0, at: position).steps } ?? [])
            result.violations.append(
                .init(
                    invariant: found.invariant, message: found.message,
                    trace: TransitionTrace(steps: trace + found.extra)))
        }
        for row in table.rows.indices {
            guard let (node, choice) = search.witnesses[row] else { continue }
            // The witness stops at the step that takes the row.
            let (position, steps) = replay(to: node, search: search)
            result.witnesses[row] = TransitionTrace(steps: steps + deliver(choice, at: position).steps)
        }
        return result
    }

    /// A result naming the table, its rows and the invariants checked, with nothing found yet; refused
    /// when the table cannot run.
    private func emptyResult() -> ExplorationResult<Rules.Vocabulary> {
        var result = ExplorationResult<Rules.Vocabulary>(
            table: table.name, bound: model.boundDescription, rows: table.rows.indices.map { table.label(ofRow: $0) },
            rowDescriptions: table.rows.indices.map {
                "\(table.rows[$0].from.label) --\(table.label(ofRow: $0))--> \(table.rows[$0].to.label)"
            })
        result.tableProblems = table.problems.map(\.description)
        // A completion loop would spin the pure step forever and an overlong step stops the program:
        // neither can be run, so the table's problems are the whole answer.
        result.refused = table.problems.contains(where: \.stopsExploration)
        result.invariants =
            ExplorationResult<Rules.Vocabulary>.sharedInvariants(
                terminals: !table.terminals.isEmpty, cancellation: model.deliversCancellation) + model.invariants
        return result
    }

    /// Delivers every choice the world has at `position` (node `node`, `depth` inputs in), checks
    /// each step, and files each new position for the next level.
    private func expand(
        _ position: ExplorationPosition<Rules>, node: Int32, depth: Int, rows: RowFacts, search: inout Search,
        next: inout [ExplorationPosition<Rules>]
    ) {
        search.edgeStart.append(Int32(search.edgeTarget.count))
        let slot = position.machine.slot
        if rows.slotTerminal[slot] { return }
        let choices = model.choices(at: position)
        let terminals = !table.terminals.isEmpty
        if depth >= model.inputLimit {
            if terminals && !choices.isEmpty {
                search.violate(
                    "every run ends",
                    "after \(depth) inputs the run is still in '\(position.machine.state.label)' and could go on "
                        + "(a loop without a bound?)", node: node)
            }
            return
        }
        var accepted = 0
        var taken: [Int] = []
        taken.reserveCapacity(StepBuffer<Int>.capacity)
        for (index, choice) in choices.enumerated() {
            var after = position.machine
            let step: Machine.Step
            do { step = try after.handle(choice.input, at: choice.at) } catch {
                if choice.required {
                    search.violate(
                        "every required input has a row",
                        "'\(choice.input.event.label)' has no row in state '\(position.machine.state.label)'",
                        node: node)
                }
                continue
            }
            search.transitions += 1
            accepted += 1
            if choice.at > position.at { search.rest(in: slot) }
            let choiceIndex = UInt32(index)
            let end = after.slot
            rows.indices(of: step, from: slot, to: end, into: &taken)
            for row in taken where search.witnesses[row] == nil { search.witness(row, node: node, choice: choiceIndex) }
            let reached = ExplorationPosition(machine: after, at: choice.at, last: step, lastInput: choice.input)
            let finished = rows.slotTerminal[end]
            for broken in checks(position, choice.input, reached, taken: taken, finished: finished, rows: rows) {
                search.violate(broken.invariant, broken.text, node: node, choice: choiceIndex)
            }
            // One lookup: the slot is filled with the next number if the key is new. A finished run
            // has no future, so every one ended by the same row is one position, whatever its facts.
            let fresh = Int32(search.parent.count)
            let target: Int32
            if finished {
                target = search.finished[end] ?? fresh
                search.finished[end] = target
            } else {
                target = Search.insert(model.key(reached), fresh, into: &search.seen)
            }
            search.edgeTarget.append(target)
            if target == fresh {
                search.parent.append(node)
                search.choice.append(choiceIndex)
                search.reached[end] = true
                next.append(reached)
            }
        }
        // A run that can take no input where it stands never ends either: it stalls.
        if accepted == 0 && terminals {
            search.violate(
                "every run ends",
                "the run stalls in '\(position.machine.state.label)': nothing the world delivers there has a row",
                node: node)
        }
    }

    /// The invariants broken by the step from `before` on `input` to `after`, which took the rows
    /// `taken` (and finished the run, or not): the ones every table shares, then the model's own.
    func checks(
        _ before: ExplorationPosition<Rules>, _ input: Rules.Input, _ after: ExplorationPosition<Rules>,
        taken: [Int], finished: Bool, rows: RowFacts
    ) -> [InvariantViolation] {
        var broken: [InvariantViolation] = []
        var endings = 0
        for row in taken { endings += rows.endings[row] }
        if finished {
            if let row = taken.last, !rows.namesReason[row] {
                broken.append(
                    .init(
                        "every row that ends a run names its reason",
                        "row \(table.rows[row].description) ends the run without a reason"))
            }
            if rows.endingEffects && endings != 1 {
                broken.append(
                    .init(
                        "a run ends exactly once",
                        "the step entering '\(after.machine.state.label)' performs \(endings) ending effects, not 1"))
            }
        } else if endings > 0 {
            broken.append(
                .init(
                    "a run ends exactly once",
                    "an ending effect on a step that stays in '\(after.machine.state.label)'"))
        }
        if model.isCancellation(input) && !finished {
            broken.append(
                .init(
                    "cancellation is always terminal",
                    "'\(input.event.label)' in '\(before.machine.state.label)' leads to '\(after.machine.state.label)'")
            )
        }
        broken += model.check(before: before, after: after, input: input, rows: taken)
        return broken
    }

    /// The run to node `node`, replayed from the start: its last position and its trace.
    private func replay(to node: Int32, search: Search) -> (
        position: ExplorationPosition<Rules>, steps: [Machine.Step.TraceStep]
    ) {
        var choices: [UInt32] = []
        var at = node
        while at != 0 {
            choices.append(search.choice[Int(at)])
            at = search.parent[Int(at)]
        }
        var position = ExplorationPosition(machine: Machine(table: table, rules: rules), at: .zero, last: nil)
        var steps: [Machine.Step.TraceStep] = []
        for index in choices.reversed() {
            let (reached, taken) = deliver(index, at: position)
            position = reached
            steps += taken
        }
        return (position, steps)
    }

    /// Delivers choice `index` of the world's at `position`: a step the search took before, so the
    /// machine takes it again (the model's choices depend on the position alone).
    private func deliver(_ index: UInt32, at position: ExplorationPosition<Rules>) -> (
        position: ExplorationPosition<Rules>, steps: [Machine.Step.TraceStep]
    ) {
        let choice = model.choices(at: position)[Int(index)]
        var machine = position.machine
        guard let step = try? machine.handle(choice.input, at: choice.at) else {
            preconditionFailure("a replayed input has no row: the model's choices depend on more than the position")
        }
        let steps = step.taken(detail: choice.input.detail ?? model.detail(of: choice.input))
        return (ExplorationPosition(machine: machine, at: choice.at, last: step, lastInput: choice.input), steps)
    }

    /// The steps of a transition from node `from` to node `to` (the first choice leading there).
    private func steps(from: Int32, to: Int32, search: Search) -> [Machine.Step.TraceStep] {
        let source = replay(to: from, search: search).position
        let target = model.key(replay(to: to, search: search).position)
        for index in model.choices(at: source).indices {
            var machine = source.machine
            let choice = model.choices(at: source)[index]
            guard let step = try? machine.handle(choice.input, at: choice.at) else { continue }
            let reached = ExplorationPosition(machine: machine, at: choice.at, last: step, lastInput: choice.input)
            if model.key(reached) == target { return deliver(UInt32(index), at: source).steps }
        }
        preconditionFailure("no choice leads along an edge the search recorded")
    }

    /// What the search keeps: every position's key, how it was first reached, every transition's
    /// target, and the first node (and choice) of each row taken and each invariant broken.
    struct Search {
        /// Each key reached, with its node's number (nodes are numbered in the order reached).
        var seen: [Model.Key: Int32] = [:]
        /// The node each node was first reached from (`-1` for the start).
        var parent: [Int32] = [-1]
        /// Which of that node's choices led here.
        var choice: [UInt32] = [0]
        /// Where each expanded node's transitions start in `edgeTarget` (one past the last node: the end).
        var edgeStart: [Int32] = []
        /// Every transition's target node, in expansion order.
        var edgeTarget: [Int32] = []
        /// The first transition taking each row.
        var witnesses: [(node: Int32, choice: UInt32)?]
        /// Lookup slots some position stands at, and slots some input arrived later than the one entering.
        var reached: [Bool]
        var rested: [Bool]
        /// The node of a finished run in each terminal slot's state, once one is reached.
        var finished: [Int32?]
        var transitions = 0
        var peakPositions = 1
        /// The first violation of each invariant.
        var violations: [Found] = []
        var violationCount = 0
        /// What is still to be found before the search may stop (`nil`: it searches to the end).
        var goals: Goals?

        /// What remains of ``ExplorationGoals``: rows not yet taken, states not yet rested in,
        /// invariants not yet broken.
        struct Goals {
            var rows: Set<Int>
            var rested: Set<String>
            var invariants: Set<String>
            /// The state label of each lookup slot.
            let slotStates: [String]
            /// Whether everything has been found.
            var met: Bool { rows.isEmpty && rested.isEmpty && invariants.isEmpty }

            init(_ goals: ExplorationGoals, slotStates: [String]) {
                rows = goals.rows
                rested = goals.rested
                invariants = goals.invariants
                self.slotStates = slotStates
            }
        }

        /// Notes that a run rested in the state of lookup slot `slot` (an input came later than the last).
        mutating func rest(in slot: Int) {
            guard !rested[slot] else { return }
            rested[slot] = true
            if let state = goals?.slotStates[slot] { goals?.rested.remove(state) }
        }

        /// Notes the first transition taking `row`: choice `choice` at node `node`.
        mutating func witness(_ row: Int, node: Int32, choice: UInt32) {
            witnesses[row] = (node, choice)
            goals?.rows.remove(row)
        }

        /// A broken invariant: where (the node, and the choice there, if a step broke it), in words.
        struct Found {
            var invariant: String
            var message: String
            var node: Int32
            var choice: UInt32?
            var extra: [Machine.Step.TraceStep] = []
        }

        init(rows: Int, slots: Int) {
            witnesses = Array(repeating: nil, count: rows)
            reached = Array(repeating: false, count: slots)
            rested = Array(repeating: false, count: slots)
            finished = Array(repeating: nil, count: slots)
        }

        mutating func violate(
            _ invariant: String, _ message: String, node: Int32, choice: UInt32? = nil,
            extra: [Machine.Step.TraceStep] = []
        ) {
            violationCount += 1
            guard !violations.contains(where: { $0.invariant == invariant }) else { return }
            violations.append(Found(invariant: invariant, message: message, node: node, choice: choice, extra: extra))
            goals?.invariants.remove(invariant)
        }

        /// `key`'s node: `fresh` when it is new (then filed under it), else the one it had. One hash.
        static func insert(_ key: Model.Key, _ fresh: Int32, into seen: inout [Model.Key: Int32]) -> Int32 {
            func settle(_ slot: inout Int32) -> Int32 {
                if slot < 0 { slot = fresh }
                return slot
            }
            return settle(&seen[key, default: -1])
        }

        /// The bytes held for what the search keeps of every position (the keys' table at its
        /// capacity, the numbers per node and per transition); positions being expanded are not counted.
        func storedBytes(keyStride: Int) -> Int {
            seen.capacity * (keyStride + MemoryLayout<Int32>.stride) + seen.capacity / 8
                + parent.capacity * MemoryLayout<Int32>.stride + choice.capacity * MemoryLayout<UInt32>.stride
                + edgeStart.capacity * MemoryLayout<Int32>.stride + edgeTarget.capacity * MemoryLayout<Int32>.stride
        }

        /// A loop among the nodes reachable from the start, as its nodes in order, the first repeated
        /// at the end; `nil` when there is none. Iterative depth-first search, so a long exploration
        /// cannot overflow the stack.
        func cycle() -> [Int32]? {
            let count = edgeStart.count - 1
            var color = [UInt8](repeating: 0, count: count) // 0 new, 1 on the stack, 2 done
            var stack: [(node: Int32, next: Int32)] = [(0, edgeStart[0])]
            color[0] = 1
            while let top = stack.last {
                if top.next == edgeStart[Int(top.node) + 1] {
                    color[Int(top.node)] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let target = edgeTarget[Int(top.next)]
                switch color[Int(target)] {
                case 0:
                    color[Int(target)] = 1
                    stack.append((target, edgeStart[Int(target)]))
                case 1:
                    // Back to a node on the stack: the loop runs from it along the stack and back.
                    guard let start = stack.firstIndex(where: { $0.node == target }) else { return nil }
                    return stack[start...].map(\.node) + [target]
                default:
                    break
                }
            }
            return nil
        }
    }

    /// What the search needs of each row and lookup slot, worked out once: the row indices a step
    /// took, their ending effects and reasons, and each slot's state label.
    struct RowFacts {
        let table: Rules.Table
        /// How many ending effects each row performs.
        let endings: [Int]
        /// Whether each row names a reason.
        let namesReason: [Bool]
        /// Whether any effect ends a run (else "a run ends exactly once" is not about endings).
        let endingEffects: Bool
        /// The label of the state at each lookup slot (0: the initial state; `1 + i`: row `i`'s target).
        let slotStates: [String]
        /// Whether the state at each lookup slot is terminal.
        let slotTerminal: [Bool]

        init(table: Rules.Table) {
            self.table = table
            endings = table.rows.map { $0.effects.filter(\.endsRun).count }
            namesReason = table.rows.map { $0.reason != nil }
            endingEffects = (Array(Rules.Vocabulary.Effect.allCases) + table.rows.flatMap(\.effects)).contains(
                where: \.endsRun)
            let states = [table.initial] + table.rows.map(\.to)
            slotStates = states.map(\.rawValue)
            slotTerminal = states.map(table.isTerminal)
        }

        /// The rows `step` took from lookup slot `slot` to slot `end`, in order, into `rows`: the
        /// last is the one whose slot the machine ended at; each before it is found among the few
        /// rows that could apply where the machine stood, as the machine's own lookup lists them.
        func indices(of step: Machine.Step, from slot: Int, to end: Int, into rows: inout [Int]) {
            rows.removeAll(keepingCapacity: true)
            let count = step.rowCount
            guard count > 0 else { return }
            var entry = RowLookup.entry(ofSlot: slot)
            for position in 0..<(count - 1) {
                let candidates =
                    position == 0 ? table.lookup.eventRows(at: entry) : table.lookup.completionRows(at: entry)
                var found: Int?
                for candidate in candidates {
                    let index = table.lookup.storage[candidate]
                    // Fields compared in place: binding the row would copy it (and retain its effects).
                    if step.row(
                        position, is: table.rows[index].event, table.rows[index].condition, to: table.rows[index].to)
                    {
                        found = index
                        break
                    }
                }
                guard let index = found else { return }
                rows.append(index)
                entry = RowLookup.entry(ofSlot: index + 1)
            }
            rows.append(end - 1)
        }
    }
}

/// Where an exploration stands: the machine, the time of its last input, and what that input did.
///
/// A reference: the search files and hands on many positions, and each is a whole machine and a
/// whole step, so a position is shared rather than copied.
public final class ExplorationPosition<Rules: MachineRules>: Sendable {
    /// The machine, between steps.
    public let machine: TableMachine<Rules>
    /// When its last input happened (zero at the start).
    public let at: Duration
    /// What the last input did (`nil` at the start).
    package let last: TableMachine<Rules>.Step?
    /// The last input (`nil` at the start).
    package let lastInput: Rules.Input?

    init(machine: TableMachine<Rules>, at: Duration, last: TableMachine<Rules>.Step?, lastInput: Rules.Input? = nil) {
        self.machine = machine
        self.at = at
        self.last = last
        self.lastInput = lastInput
    }
}

/// One input the world can deliver: what, when, and whether the table must have a row for it.
public struct ExplorationChoice<Input: MachineInput>: Sendable {
    /// The input.
    package var input: Input
    /// When it happens (since the run started).
    package var at: Duration
    /// Whether a missing row for it is a violation (a driver always delivers it here), rather than
    /// an input this state simply never receives.
    package var required: Bool
    /// Whether the time stands for any later one (an over-approximating world's input at the
    /// deadline, ``DeadlineOverApproximation``): no concrete run need rest where it arrives.
    var standsForLater = false

    /// A choice.
    public init(_ input: Input, at: Duration, required: Bool = false) {
        self.input = input
        self.at = at
        self.required = required
    }
}

/// A broken invariant, in words: which, and what happened.
public struct InvariantViolation: Hashable, Sendable {
    /// The invariant's name, as listed in ``ExplorationModel/invariants``.
    package var invariant: String
    /// What happened.
    package var text: String

    /// A violation.
    public init(_ invariant: String, _ text: String) {
        self.invariant = invariant
        self.text = text
    }
}

/// What a ``TableExplorer`` needs to know about a machine's world: the inputs it can deliver in each
/// position, how positions are told apart, the bound, and the machine's own invariants.
public protocol ExplorationModel: Sendable {
    /// The rules of the machine explored.
    associatedtype Rules: MachineRules
    /// What tells two positions apart: two positions with equal keys behave alike from there on.
    associatedtype Key: Hashable

    /// The inputs the world can deliver at `position` (the machine is not finished there).
    func choices(at position: ExplorationPosition<Rules>) -> [ExplorationChoice<Rules.Input>]
    /// The key of `position`.
    func key(_ position: ExplorationPosition<Rules>) -> Key
    /// The most inputs one run may take; a run still going after them breaks "every run ends".
    var inputLimit: Int { get }
    /// The bound in words, for the report (`attempts ≤ 3`).
    var boundDescription: String { get }
    /// Whether `input` is a cancellation, which must always end the run.
    func isCancellation(_ input: Rules.Input) -> Bool
    /// Whether the world delivers cancellations (so "cancellation is always terminal" is checked).
    var deliversCancellation: Bool { get }
    /// The machine's own invariants, by name.
    var invariants: [String] { get }
    /// The machine's own invariants, checked on every input taken.
    func check(
        before: ExplorationPosition<Rules>, after: ExplorationPosition<Rules>, input: Rules.Input, rows: [Int]
    ) -> [InvariantViolation]
    /// Words for the trace of an input without its own (`MachineInput.detail`).
    func detail(of input: Rules.Input) -> String?
}

extension ExplorationModel {
    /// No input cancels.
    public func isCancellation(_ input: Rules.Input) -> Bool { false }
    /// No invariants of its own.
    public var invariants: [String] { [] }
    /// Nothing to check.
    public func check(
        before: ExplorationPosition<Rules>, after: ExplorationPosition<Rules>, input: Rules.Input, rows: [Int]
    ) -> [InvariantViolation] { [] }
    /// The input's event.
    public func detail(of input: Rules.Input) -> String? { nil }
    /// No cancellations.
    public var deliversCancellation: Bool { false }
}

extension ExplorationModel where Rules: Hashable {
    /// Positions with the same state, facts and time are alike.
    public func key(_ position: ExplorationPosition<Rules>) -> PositionKey<Rules> {
        PositionKey(state: position.machine.state, rules: position.machine.rules, at: position.at)
    }
}

/// The key of a position whose rules are `Hashable`: its state, its facts and its time.
public struct PositionKey<Rules: MachineRules & Hashable>: Hashable {
    /// The state.
    package let state: Rules.Vocabulary.State
    /// The facts.
    package let rules: Rules
    /// The time.
    package let at: Duration
}

extension TableProblem {
    /// Whether the table cannot be run at all: a completion loop spins the step forever, and an
    /// overlong step stops the program.
    var stopsExploration: Bool {
        switch self {
        case .completionLoop, .stepTooLong: true
        case .unreachable, .deadEnd, .cannotFinish, .terminalHasExit, .duplicateRow, .shadowedRow,
            .decisionWithoutElse, .mixedDecision, .unreachableRow, .initialCannotRest, .missingReason,
            .reasonWithoutEnd, .endingEffectWithoutEnd, .unboundedLoop, .unadmittedEffect:
            false
        }
    }
}
