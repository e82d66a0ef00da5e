import RetryFlow

/// The explorer as it was before positions were keyed by what the guards can tell apart and stored
/// compactly (``TableExplorer``): every position kept whole with the trace steps that led to it, and
/// keyed by `key`. Kept to check the new one against (the same rows and verdicts wherever both
/// finish) and to measure it (`verify-scale`), not for use.
package struct ReferenceExplorer<Model: ExplorationModel, Key: Hashable>: Sendable {
    package typealias Rules = Model.Rules
    package typealias Machine = TableMachine<Rules>

    let table: Rules.Table
    let rules: Rules
    let model: Model
    let keyOf: @Sendable (ExplorationPosition<Rules>) -> Key

    /// An explorer of `table` run by `rules`, fed by `model`, deduplicating positions by `key`.
    package init(
        table: Rules.Table, rules: Rules, model: Model, key: @escaping @Sendable (ExplorationPosition<Rules>) -> Key
    ) {
        self.table = table
        self.rules = rules
        self.model = model
        self.keyOf = key
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
    package func explore() -> ExplorationResult<Rules.Vocabulary> {
        var result = ExplorationResult<Rules.Vocabulary>(
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
        let endingEffects = (Array(Rules.Vocabulary.Effect.allCases) + table.rows.flatMap(\.effects)).contains(
            where: \.endsRun)
        var nodes = [
            Node(
                position: ExplorationPosition(machine: Machine(table: table, rules: rules), at: .zero, last: nil),
                parent: nil, steps: [], depth: 0)
        ]
        var seen: [Key: Int] = [keyOf(nodes[0].position): 0]
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
                let key = keyOf(position)
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
            ExplorationResult<Rules.Vocabulary>.sharedInvariants(
                terminals: !table.terminals.isEmpty, cancellation: model.deliversCancellation) + model.invariants
        return result
    }
}

extension ReferenceExplorer {
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
