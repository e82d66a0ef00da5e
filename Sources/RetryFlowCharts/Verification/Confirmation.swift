import RetryFlow

extension TableExplorer where Rules.Input: Equatable {
    /// The findings of `over`, an over-approximation of this explorer's world, each found again on a
    /// concrete run of this world: first by replaying the run that found it there, when this world
    /// delivers the same inputs at the same times (an attempt's outcome at once, a wait's end after
    /// its delay), then, for what is left, by exploring this world breadth first until all of it is
    /// found or nothing is left to explore (what is never found, no concrete run does). A finding
    /// that needs every transition (a loop, a run longer than the bound) is searched to the end.
    ///
    /// What is reported is the concrete world's alone: its rows with concrete witnesses, its
    /// counterexamples, the states its runs rest in. A replayed witness is as short as any (the
    /// over-approximation, which has every concrete run, found nothing shorter) unless the run
    /// found first was later reached more cheaply, and then at most as long as that run.
    func explore(confirming over: OverApproximation<Rules.Input>) -> ExplorationResult<Rules.Vocabulary> {
        var goals = over.goals
        var witnesses: [Int: [Machine.Step.TraceStep]] = [:]
        var rested: Set<String> = []
        var broken: [(invariant: String, message: String, steps: [Machine.Step.TraceStep])] = []
        var states: Set<String> = []
        if !goals.exhaustive, !ExplorationEngine.reference {
            let order =
                goals.rows.sorted().map(ExplorationGoal.row) + goals.rested.sorted().map(ExplorationGoal.rested)
                + goals.invariants.sorted().map(ExplorationGoal.broken)
            for goal in order {
                guard let inputs = over.runs[goal], let run = replay(inputs) else { continue }
                states.formUnion(run.states)
                switch goal {
                case .row(let row) where run.lastRows.contains(row):
                    witnesses[row] = run.steps
                    goals.rows.remove(row)
                case .rested(let state) where run.restedIn == state:
                    rested.insert(state)
                    goals.rested.remove(state)
                case .broken(let invariant):
                    guard let violation = run.broken.first(where: { $0.invariant == invariant }) else { continue }
                    broken.append((invariant, violation.text, run.steps))
                    goals.invariants.remove(invariant)
                case .row, .rested:
                    continue
                }
            }
        }
        var result = explore(until: goals)
        result.reachableStates.formUnion(states)
        result.restedStates.formUnion(rested)
        for (row, steps) in witnesses {
            let inputs = steps.filter { $0.event != nil }.count
            if result.witnesses[row].map({ $0.steps.filter { $0.event != nil }.count > inputs }) ?? true {
                result.witnesses[row] = TransitionTrace(steps: steps)
            }
        }
        for (invariant, message, steps) in broken
        where !result.violations.contains(where: { $0.invariant == invariant }) {
            result.violations.append(
                .init(invariant: invariant, message: message, trace: TransitionTrace(steps: steps)))
            result.violationCount += 1
        }
        // Listed in the order the model names its invariants, as an exploration lists them.
        result.violations.sort { first, second in
            (result.invariants.firstIndex(of: first.invariant) ?? .max)
                < (result.invariants.firstIndex(of: second.invariant) ?? .max)
        }
        return result
    }

    /// A run of this world delivering `inputs` at their times from the start, if the world offers
    /// each where it comes and the table takes it: its trace, the states it stood in, and what its
    /// last step did (the rows it took, the state it rested in if its input came later than the one
    /// before, the invariants it broke).
    private func replay(_ inputs: [(input: Rules.Input, at: Duration)]) -> (
        steps: [Machine.Step.TraceStep], states: Set<String>, lastRows: [Int], restedIn: String?,
        broken: [InvariantViolation]
    )? {
        guard inputs.count <= model.inputLimit else { return nil }
        let rows = RowFacts(table: table)
        var position = ExplorationPosition(machine: Machine(table: table, rules: rules), at: .zero, last: nil)
        var steps: [Machine.Step.TraceStep] = []
        var states: Set<String> = [rows.slotStates[0]]
        var taken: [Int] = []
        for (number, (input, time)) in inputs.enumerated() {
            let slot = position.machine.slot
            guard !rows.slotTerminal[slot],
                let choice = model.choices(at: position).first(where: {
                    $0.input == input && $0.at == time && !$0.standsForLater
                })
            else { return nil }
            var machine = position.machine
            guard let step = try? machine.handle(choice.input, at: choice.at) else { return nil }
            let end = machine.slot
            rows.indices(of: step, from: slot, to: end, into: &taken)
            steps += step.taken(detail: choice.input.detail ?? model.detail(of: choice.input))
            let reached = ExplorationPosition(machine: machine, at: choice.at, last: step, lastInput: choice.input)
            states.insert(rows.slotStates[end])
            if number == inputs.count - 1 {
                let broken = checks(
                    position, choice.input, reached, taken: taken, finished: rows.slotTerminal[end], rows: rows)
                let restedIn = choice.at > position.at ? rows.slotStates[slot] : nil
                return (steps, states, taken, restedIn, broken)
            }
            position = reached
        }
        return nil
    }
}
