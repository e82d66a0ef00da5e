import RetryFlow

/// What an over-approximating exploration found (``TableExplorer/overApproximate(measure:)``): at
/// least everything concrete runs can do, as the goals of the concrete search that confirms it.
struct OverApproximation<Input: MachineInput & Equatable>: Sendable {
    /// The rows taken, the states rested in and the invariants broken: each to be found again on a
    /// concrete run before it is reported.
    var goals: ExplorationGoals
    /// The inputs, with their times, of the first run found for each goal: a run the concrete world
    /// may well deliver too (each attempt's outcome at once), so it is tried first
    /// (``TableExplorer/confirm(_:)``).
    var runs: [ExplorationGoal: [(input: Input, at: Duration)]] = [:]
    /// Positions kept (one per key).
    var states: Int
    /// Inputs delivered that the table took (positions expanded again included).
    var transitions: Int
    /// The bytes held for the keys, the measures and the transitions.
    var storedBytes: Int
}

/// One finding of an over-approximation, to confirm.
enum ExplorationGoal: Hashable, Sendable {
    /// A row taken, by index.
    case row(Int)
    /// A state rested in, by label.
    case rested(String)
    /// An invariant broken, by name.
    case broken(String)
}

extension TableExplorer where Rules.Input: Equatable {
    /// Explores the model's positions, keeping for each key only the one with the least `measure`,
    /// which must simulate every other of its key: whatever a position with a greater measure can do
    /// next, the one kept can do too (the retry machine's time under a deadline: a run with more time
    /// left can do whatever one with less can, given a world that lets every attempt take longer). A
    /// key reached again with a smaller measure is expanded again. The model's world must cover the
    /// concrete world's from the smallest measure.
    ///
    /// Breadth first, with the same checks as ``explore()``; the loop check and the bound are read off
    /// the graph of kept positions (a cycle, or a path as long as the bound), which has every
    /// concrete run's path.
    func overApproximate(measure: (ExplorationPosition<Rules>) -> Duration) -> OverApproximation<Rules.Input> {
        let rows = RowFacts(table: table)
        let terminals = !table.terminals.isEmpty
        var seen: [Model.Key: Int32] = [:]
        var best: [Duration] = []
        var successors: [[Int32]] = []
        var finishedNode = [Int32?](repeating: nil, count: rows.slotStates.count)
        var taken = [Bool](repeating: false, count: table.rows.count)
        var rested = [Bool](repeating: false, count: rows.slotStates.count)
        var broken: Set<String> = []
        var transitions = 0
        var indices: [Int] = []
        // How each kept position was reached: its parent, and the input and time that led there.
        var arrival: [(parent: Int32, input: Rules.Input, at: Duration)?] = [nil]
        var runs: [ExplorationGoal: [(input: Rules.Input, at: Duration)]] = [:]
        func run(to node: Int32, then input: Rules.Input, at time: Duration) -> [(input: Rules.Input, at: Duration)] {
            var inputs = [(input, time)]
            var at = node
            while let (parent, input, time) = arrival[Int(at)] {
                inputs.append((input, time))
                at = parent
            }
            return inputs.reversed()
        }
        func found(_ goal: ExplorationGoal, at node: Int32, by choice: ExplorationChoice<Rules.Input>) {
            if runs[goal] == nil { runs[goal] = run(to: node, then: choice.input, at: choice.at) }
        }
        let start = ExplorationPosition(machine: Machine(table: table, rules: rules), at: .zero, last: nil)
        seen[model.key(start)] = 0
        best.append(measure(start))
        successors.append([])
        var level = [(position: start, node: Int32(0))]
        var depth = 0
        while !level.isEmpty {
            var next: [(position: ExplorationPosition<Rules>, node: Int32)] = []
            for (position, node) in level {
                // Replaced by a position of the same key with a smaller measure since it was filed:
                // that one is expanded instead.
                guard measure(position) == best[Int(node)], !rows.slotTerminal[position.machine.slot] else { continue }
                let slot = position.machine.slot
                let choices = model.choices(at: position)
                if depth >= model.inputLimit {
                    if terminals && !choices.isEmpty { broken.insert("every run ends") }
                    continue
                }
                var accepted = 0
                for choice in choices {
                    var after = position.machine
                    guard let step = try? after.handle(choice.input, at: choice.at) else {
                        if choice.required { broken.insert("every required input has a row") }
                        continue
                    }
                    transitions += 1
                    accepted += 1
                    if choice.at > position.at && !choice.standsForLater {
                        rested[slot] = true
                        found(.rested(rows.slotStates[slot]), at: node, by: choice)
                    }
                    let end = after.slot
                    rows.indices(of: step, from: slot, to: end, into: &indices)
                    for row in indices where !taken[row] {
                        taken[row] = true
                        found(.row(row), at: node, by: choice)
                    }
                    let reached = ExplorationPosition(
                        machine: after, at: choice.at, last: step, lastInput: choice.input)
                    let finished = rows.slotTerminal[end]
                    for violation in checks(
                        position, choice.input, reached, taken: indices, finished: finished, rows: rows)
                    {
                        broken.insert(violation.invariant)
                        found(.broken(violation.invariant), at: node, by: choice)
                    }
                    let fresh = Int32(best.count)
                    let target: Int32
                    if finished {
                        target = finishedNode[end] ?? fresh
                        finishedNode[end] = target
                    } else {
                        target = Search.insert(model.key(reached), fresh, into: &seen)
                    }
                    if target == fresh {
                        best.append(measure(reached))
                        successors.append([])
                        arrival.append((node, choice.input, choice.at))
                        if !finished { next.append((reached, target)) }
                    } else if !finished, measure(reached) < best[Int(target)] {
                        best[Int(target)] = measure(reached)
                        arrival[Int(target)] = (node, choice.input, choice.at)
                        next.append((reached, target))
                    }
                    successors[Int(node)].append(target)
                }
                if accepted == 0 && terminals { broken.insert("every run ends") }
            }
            level = next
            depth += 1
        }
        // A loop, or a run as long as the bound, on this graph may be one no concrete run has: only a
        // concrete search to the end can tell.
        if terminals && !broken.contains("every run ends")
            && Self.longestRun(successors, limit: model.inputLimit) >= model.inputLimit
        {
            broken.insert("every run ends")
        }
        let storedBytes =
            seen.capacity * (MemoryLayout<Model.Key>.stride + MemoryLayout<Int32>.stride)
            + best.capacity * MemoryLayout<Duration>.stride
            + successors.reduce(successors.capacity * MemoryLayout<[Int32]>.stride) {
                $0 + $1.capacity * MemoryLayout<Int32>.stride
            }
        return OverApproximation(
            goals: ExplorationGoals(
                rows: Set(taken.indices.filter { taken[$0] }),
                rested: Set(rested.indices.filter { rested[$0] }.map { rows.slotStates[$0] }), invariants: broken,
                exhaustive: broken.contains("every run ends")),
            runs: runs, states: best.count, transitions: transitions, storedBytes: storedBytes)
    }

    /// The most inputs a run can take on the graph `successors` from node 0, or `limit` when a run
    /// can loop. Iterative depth-first search, so a long exploration cannot overflow the stack.
    static func longestRun(_ successors: [[Int32]], limit: Int) -> Int {
        var longest = [Int](repeating: 0, count: successors.count)
        var color = [UInt8](repeating: 0, count: successors.count) // 0 new, 1 on the stack, 2 done
        var stack: [(node: Int, next: Int)] = [(0, 0)]
        color[0] = 1
        while let top = stack.last {
            let edges = successors[top.node]
            if top.next == edges.count {
                for target in edges { longest[top.node] = max(longest[top.node], 1 + longest[Int(target)]) }
                color[top.node] = 2
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            let target = Int(edges[top.next])
            switch color[target] {
            case 0:
                color[target] = 1
                stack.append((target, 0))
            case 1:
                return limit // back to a node on the stack: a loop
            default:
                break
            }
        }
        return longest[0]
    }
}
