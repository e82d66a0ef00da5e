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
    public typealias Machine = TableMachine<Rules>

    /// The table explored.
    public let table: Rules.Table
    /// The facts the machine starts with.
    public let rules: Rules
    /// What the world can deliver, and what must hold.
    public let model: Model

    /// An explorer of `table` run by `rules`, fed by `model`.
    public init(table: Rules.Table, rules: Rules, model: Model) {
        self.table = table
        self.rules = rules
        self.model = model
    }

    /// One place the exploration reached: its machine, when it stands, and how it got there.
    struct Node {
        var position: ExplorationPosition<Rules>
        /// The node it came from (`nil` for the start).
        var parent: Int?
        /// The trace steps of the input that led here.
        var steps: [Machine.Step.TraceStep]
        var depth: Int
    }

    /// Explores every position within the model's bound and returns what it found.
    public func explore() -> ExplorationResult<Rules.State, Rules.Event, Rules.Guard> {
        var result = ExplorationResult<Rules.State, Rules.Event, Rules.Guard>(
            table: table.name, bound: model.boundDescription, rows: table.rows.indices.map { table.label(ofRow: $0) },
            rowDescriptions: table.rows.indices.map {
                "\(table.rows[$0].from.label) --\(table.label(ofRow: $0))--> \(table.rows[$0].to.label)"
            })
        let blocking = table.problems.filter(\.stopsExploration)
        result.tableProblems = table.problems.map(\.description)
        guard blocking.isEmpty else {
            // A completion loop would spin the pure step forever and an overlong step stops the
            // program: neither can be run, so the table's problems are the whole answer.
            result.refused = true
            return result
        }
        let endingEffects = (Array(Rules.Effect.allCases) + table.rows.flatMap(\.effects)).contains(where: \.endsRun)
        var nodes = [
            Node(
                position: ExplorationPosition(machine: Machine(table: table, rules: rules), at: .zero, last: nil),
                parent: nil, steps: [], depth: 0)
        ]
        var seen: [Model.Key: Int] = [model.key(nodes[0].position): 0]
        // Every transition between positions, new or seen: a cycle among them is a run without end.
        var edges: [[(to: Int, steps: [Machine.Step.TraceStep])]] = [[]]
        var witnesses = [Int?](repeating: nil, count: table.rows.count)
        var witnessSteps = [[Machine.Step.TraceStep]?](repeating: nil, count: table.rows.count)
        var queue = 0
        var transitions = 0

        func path(to index: Int, then extra: [Machine.Step.TraceStep]) -> [Machine.Step.TraceStep] {
            var chunks: [[Machine.Step.TraceStep]] = [extra]
            var current: Int? = index
            while let at = current {
                chunks.append(nodes[at].steps)
                current = nodes[at].parent
            }
            return chunks.reversed().flatMap { $0 }
        }
        func violate(_ invariant: String, _ message: String, at index: Int, steps: [Machine.Step.TraceStep]) {
            result.violationCount += 1
            guard !result.violations.contains(where: { $0.invariant == invariant }) else { return }
            result.violations.append(
                .init(
                    invariant: invariant, message: message, trace: TransitionTrace(steps: path(to: index, then: steps)))
            )
        }

        while queue < nodes.count {
            let index = queue
            queue += 1
            let node = nodes[index]
            let machine = node.position.machine
            if machine.isFinished { continue }
            let choices = model.choices(at: node.position)
            if node.depth >= model.inputLimit {
                if !table.terminals.isEmpty && !choices.isEmpty {
                    violate(
                        "every run ends",
                        "after \(node.depth) inputs the run is still in '\(machine.state.label)' and could go on "
                            + "(a loop without a bound?)", at: index, steps: [])
                }
                continue
            }
            var accepted = 0
            defer {
                // A run that can take no input where it stands never ends either: it stalls.
                if accepted == 0 && !table.terminals.isEmpty {
                    violate(
                        "every run ends",
                        "the run stalls in '\(machine.state.label)': nothing the world delivers there has a row",
                        at: index, steps: [])
                }
            }
            for choice in choices {
                var next = machine
                let step: Machine.Step
                do { step = try next.handle(choice.input, at: choice.at) } catch {
                    if choice.required {
                        violate(
                            "every required input has a row",
                            "'\(choice.input.event.label)' has no row in state '\(machine.state.label)'",
                            at: index, steps: [])
                    }
                    continue
                }
                transitions += 1
                accepted += 1
                if choice.at > node.position.at { result.restedStates.insert(machine.state.rawValue) }
                let steps = step.taken(detail: choice.input.detail ?? model.detail(of: choice.input))
                let rowIndices = steps.compactMap {
                    table.index(from: $0.from, event: $0.event, condition: $0.condition, to: $0.to)
                }
                for row in rowIndices where witnesses[row] == nil {
                    witnesses[row] = index
                    witnessSteps[row] = steps
                }
                let position = ExplorationPosition(machine: next, at: choice.at, last: step, lastInput: choice.input)
                // The invariants every table shares.
                let endings = rowIndices.flatMap { table.rows[$0].effects }.filter(\.endsRun).count
                if next.isFinished {
                    if let row = rowIndices.last, table.rows[row].reason == nil {
                        violate(
                            "every row that ends a run names its reason",
                            "row \(table.rows[row].description) ends the run without a reason", at: index,
                            steps: steps)
                    }
                    if endingEffects && endings != 1 {
                        violate(
                            "a run ends exactly once",
                            "the step entering '\(next.state.label)' performs \(endings) ending effects, not 1",
                            at: index, steps: steps)
                    }
                } else if endings > 0 {
                    violate(
                        "a run ends exactly once",
                        "an ending effect on a step that stays in '\(next.state.label)'", at: index, steps: steps)
                }
                if model.isCancellation(choice.input) && !next.isFinished {
                    violate(
                        "cancellation is always terminal",
                        "'\(choice.input.event.label)' in '\(machine.state.label)' leads to '\(next.state.label)'",
                        at: index, steps: steps)
                }
                for message in model.check(
                    before: node.position, after: position, input: choice.input, rows: rowIndices)
                {
                    violate(message.invariant, message.text, at: index, steps: steps)
                }
                let key = model.key(position)
                if let known = seen[key] {
                    edges[index].append((known, steps))
                } else {
                    seen[key] = nodes.count
                    edges[index].append((nodes.count, steps))
                    edges.append([])
                    nodes.append(Node(position: position, parent: index, steps: steps, depth: node.depth + 1))
                }
            }
        }
        if !table.terminals.isEmpty, let loop = Self.cycle(in: edges) {
            // The way into the loop, then once around it.
            let around = loop.dropFirst().flatMap { $0.steps }
            violate(
                "every run ends",
                "the run can return to '\(nodes[loop[0].to].position.machine.state.label)' with nothing changed, "
                    + "forever (a loop without a bound)", at: loop[0].to, steps: Array(around))
        }
        result.statesExplored = seen.count
        result.transitionsExplored = transitions
        result.reachableStates = Set(nodes.map(\.position.machine.state.rawValue))
        for row in table.rows.indices {
            if let at = witnesses[row], let last = witnessSteps[row] {
                // The witness stops at the step that takes the row.
                result.witnesses[row] = TransitionTrace(steps: path(to: at, then: last))
            }
        }
        result.invariants =
            ExplorationResult<Rules.State, Rules.Event, Rules.Guard>.sharedInvariants(
                terminals: !table.terminals.isEmpty, cancellation: model.deliversCancellation) + model.invariants
        return result
    }
}

extension TableExplorer {
    /// A cycle among positions reachable from position 0, as the edge into its first position (from
    /// anywhere) followed by the edges around it; `nil` when there is none. Iterative depth-first
    /// search, so a long exploration cannot overflow the stack.
    static func cycle<Step>(in edges: [[(to: Int, steps: [Step])]]) -> [(to: Int, steps: [Step])]? {
        var color = [UInt8](repeating: 0, count: edges.count) // 0 new, 1 on the stack, 2 done
        var stack: [(node: Int, next: Int)] = [(0, 0)]
        var via: [(to: Int, steps: [Step])] = [(0, [])] // the edge that entered each stacked node
        color[0] = 1
        while let top = stack.last {
            let edgeList = edges[top.node]
            if top.next == edgeList.count {
                color[top.node] = 2
                stack.removeLast()
                via.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            let edge = edgeList[top.next]
            switch color[edge.to] {
            case 0:
                color[edge.to] = 1
                stack.append((edge.to, 0))
                via.append(edge)
            case 1:
                // Back to a node on the stack: the loop is the stacked edges after it, then this edge.
                guard let start = stack.firstIndex(where: { $0.node == edge.to }) else { return nil }
                return [(edge.to, [])] + Array(via[(start + 1)...]) + [edge]
            default:
                break
            }
        }
        return nil
    }
}

/// Where an exploration stands: the machine, the time of its last input, and what that input did.
public struct ExplorationPosition<Rules: MachineRules>: Sendable {
    /// The machine, between steps.
    public let machine: TableMachine<Rules>
    /// When its last input happened (zero at the start).
    public let at: Duration
    /// What the last input did (`nil` at the start).
    public let last: TableMachine<Rules>.Step?
    /// The last input (`nil` at the start).
    public let lastInput: Rules.Input?

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
    public var input: Input
    /// When it happens (since the run started).
    public var at: Duration
    /// Whether a missing row for it is a violation (a driver always delivers it here), rather than
    /// an input this state simply never receives.
    public var required: Bool

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
    public var invariant: String
    /// What happened.
    public var text: String

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
    public let state: Rules.State
    /// The facts.
    public let rules: Rules
    /// The time.
    public let at: Duration
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
