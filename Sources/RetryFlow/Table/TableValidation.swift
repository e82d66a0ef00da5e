/// Something wrong with the shape of a ``TransitionTable``, found by ``TransitionTable/validate()``.
public enum TableProblem: Hashable, Sendable, CustomStringConvertible {
    /// No path of rows leads from the initial state to this state.
    case unreachable(state: String)
    /// A state that is not terminal has no row leaving it: a run would stall there.
    case deadEnd(state: String)
    /// From this state no sequence of rows reaches a terminal state.
    case cannotFinish(state: String)
    /// A terminal state has a row leaving it.
    case terminalHasExit(state: String)
    /// Two rows share state, event and guard: the second could never be taken.
    case duplicateRow(row: String)
    /// A row follows an unconditional row for the same state and event, so it is never taken.
    case shadowedRow(row: String)
    /// A decision state's last completion row has a guard, so the machine could stall in it.
    case decisionWithoutElse(state: String)
    /// A state has both completion rows and event rows; a decision cannot wait for events.
    case mixedDecision(state: String)
    /// Completion rows lead in a loop through these states, so the machine could spin forever.
    case completionLoop(states: [String])
    /// A row leaves a state no path reaches, so it is never taken.
    case unreachableRow(row: String)
    /// The initial state is a decision or a terminal: a run could not rest in it before its first event.
    case initialCannotRest(state: String)
    /// A row enters a terminal state without naming why the run ends.
    case missingReason(row: String)
    /// A row names a reason but does not end the run.
    case reasonWithoutEnd(row: String)
    /// A row carries an effect that ends the run (``TableSymbol/endsRun``) but does not enter a terminal state.
    case endingEffectWithoutEnd(row: String, effect: String)
    /// A loop of rows (through these states) passes no row a bounding guard (``TableSymbol/boundsLoops``:
    /// `attempts left`, a step's visits) keeps finite, so a run could loop forever. Checked for tables
    /// whose guards include a bounding one (their runs must end by themselves, as a retry run must).
    case unboundedLoop(states: [String], row: String)
    /// One step (this event row, then the longest completion chain after it) takes more rows or
    /// produces more actions than a step holds (six of each).
    case stepTooLong(row: String, rows: Int, effects: Int)
    /// A row carries an effect that must follow an admission (`AdmittedEffect.admittedBy`: `start
    /// attempt` only from `breaker` on `admitted`) but leaves another state or on another event, in a
    /// table that has the admitting state: what the effect starts would bypass it.
    case unadmittedEffect(row: String, effect: String, state: String, event: String)

    /// A sentence naming the problem and the states or rows involved.
    public var description: String {
        switch self {
        case .unreachable(let s): "state '\(s)' is unreachable from the initial state"
        case .deadEnd(let s): "state '\(s)' is not terminal but no row leaves it (dead end)"
        case .cannotFinish(let s): "from state '\(s)' no path reaches a terminal state"
        case .terminalHasExit(let s): "terminal state '\(s)' has a row leaving it"
        case .duplicateRow(let r): "duplicate row (same state, event and guard): \(r)"
        case .shadowedRow(let r): "row can never be taken, an unconditional row before it wins: \(r)"
        case .decisionWithoutElse(let s):
            "decision state '\(s)' has no unconditional last row, so the machine could stall in it"
        case .mixedDecision(let s): "state '\(s)' mixes completion rows with event rows"
        case .completionLoop(let s): "completion rows loop through \(s.joined(separator: " -> "))"
        case .unreachableRow(let r): "row can never be taken, its state is unreachable: \(r)"
        case .initialCannotRest(let s): "initial state '\(s)' is a decision or a terminal, so no run can start there"
        case .missingReason(let r): "row ends the run but names no reason: \(r)"
        case .reasonWithoutEnd(let r): "row names a reason but does not enter a terminal state: \(r)"
        case .endingEffectWithoutEnd(let r, let e):
            "row has the effect '\(e)', which ends the run, but does not enter a terminal state: \(r)"
        case .unboundedLoop(let s, let r):
            "rows loop through \(s.joined(separator: " -> ")) without a bound (no row on the loop is guarded by "
                + "a count that only grows, such as 'attempts left' or a step's visits), so a run could loop "
                + "forever: \(r)"
        case .stepTooLong(let r, let rows, let effects):
            "one step from this row takes \(rows) rows with \(effects) effects, more than a step holds "
                + "(\(StepBuffer<Int>.capacity) of each): \(r)"
        case .unadmittedEffect(let r, let e, let s, let ev):
            "row has the effect '\(e)' but does not leave '\(s)' on '\(ev)', so what it starts bypasses '\(s)': \(r)"
        }
    }
}

/// The error thrown by ``TransitionTable/validate()``: every problem found, each named.
public struct TableValidationError: Error, CustomStringConvertible {
    /// The table's name.
    public let table: String
    /// Every problem, in a stable order.
    public let problems: [TableProblem]
    /// One line per problem, prefixed with the table name.
    public var description: String {
        "table '\(table)' is invalid:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}

extension TransitionTable {
    /// Every structural problem of the table, in a stable order (empty when it is sound).
    ///
    /// Checks everything the executor (``TableMachine``) relies on: every state and row reachable from
    /// a resting initial state; no dead ends; every reachable state can reach a terminal (when the
    /// table has terminals: a table without them runs forever, like a circuit breaker); terminals have
    /// no exits; no duplicate or shadowed rows; decisions always have an unconditional last row, take
    /// no events and cannot loop among themselves; every row into a terminal names its reason, and
    /// only those; no step (an event row and the completion chain after it) needs more rows or
    /// actions than a step holds (six); an effect that ends the run only on rows entering a
    /// terminal; an effect that needs an admission (`AdmittedEffect.admittedBy`) only on the admitting
    /// row. A table that validates runs.
    public var problems: [TableProblem] {
        var found: [TableProblem] = []
        var seenKeys: [(Vocabulary.State, Vocabulary.Event?, GuardCondition<Vocabulary.Guard>)] = []
        var unconditional: [(Vocabulary.State, Vocabulary.Event?)] = []
        for row in rows {
            if seenKeys.contains(where: { $0.0 == row.from && $0.1 == row.event && $0.2 == row.condition }) {
                found.append(.duplicateRow(row: row.description))
            } else if unconditional.contains(where: { $0.0 == row.from && $0.1 == row.event }) {
                found.append(.shadowedRow(row: row.description))
            }
            seenKeys.append((row.from, row.event, row.condition))
            if row.condition == .always { unconditional.append((row.from, row.event)) }
            if isTerminal(row.to), row.reason == nil { found.append(.missingReason(row: row.description)) }
            if !isTerminal(row.to), row.reason != nil { found.append(.reasonWithoutEnd(row: row.description)) }
            if !isTerminal(row.to), let ending = row.effects.first(where: \.endsRun) {
                found.append(.endingEffectWithoutEnd(row: row.description, effect: ending.label))
            }
            for effect in row.effects {
                guard let gate = (effect as? any AdmittedEffect)?.admittedBy,
                    states.contains(where: { $0.label == gate.state })
                else {
                    continue
                }
                if row.from.label != gate.state || row.event?.label != gate.event {
                    found.append(
                        .unadmittedEffect(
                            row: row.description, effect: effect.label, state: gate.state, event: gate.event))
                }
            }
        }
        if isDecision(initial) || isTerminal(initial) { found.append(.initialCannotRest(state: initial.label)) }

        let reachable = closure(from: [initial]) { state in rows.filter { $0.from == state }.map(\.to) }
        for state in states {
            let leaving = rows.filter { $0.from == state }
            if !reachable.contains(state) {
                found.append(.unreachable(state: state.label))
                if !isTerminal(state) {
                    found += leaving.map { .unreachableRow(row: $0.description) }
                    continue
                }
            }
            if isTerminal(state) {
                if !leaving.isEmpty { found.append(.terminalHasExit(state: state.label)) }
                continue
            }
            if leaving.isEmpty {
                found.append(.deadEnd(state: state.label))
                continue
            }
            let completion = leaving.filter { $0.event == nil }
            if !completion.isEmpty {
                if completion.count != leaving.count { found.append(.mixedDecision(state: state.label)) }
                if completion.last?.condition != .always {
                    found.append(.decisionWithoutElse(state: state.label))
                }
            }
        }
        let canFinish = closure(from: terminals) { state in rows.filter { $0.to == state }.map(\.from) }
        for state in states where !terminals.isEmpty && reachable.contains(state) && !canFinish.contains(state) {
            if !found.contains(.deadEnd(state: state.label)) { found.append(.cannotFinish(state: state.label)) }
        }
        // A vocabulary with a bounding guard (the retry table's `attempts left`) is one whose runs
        // must end by themselves: every loop must pass a bound. Others (a breaker, a gate driven by
        // the world's events) may loop as long as events come.
        if !terminals.isEmpty, Vocabulary.Guard.allCases.contains(where: \.boundsLoops),
            let (loop, row) = unboundedLoop()
        {
            found.append(.unboundedLoop(states: loop.map(\.label), row: row.description))
        }
        if let loop = completionLoop() {
            found.append(.completionLoop(states: loop.map(\.label)))
        } else {
            let capacity = StepBuffer<Int>.capacity
            for row in rows where row.event != nil {
                let after = longestChain(from: row.to)
                let (taken, effects) = (1 + after.rows, row.effects.count + after.effects)
                if taken > capacity || effects > capacity {
                    found.append(.stepTooLong(row: row.description, rows: taken, effects: effects))
                }
            }
        }
        return found
    }

    /// The most completion rows, and separately the most effects, one step can take after entering
    /// `state` (zero unless it is a decision). Only called on tables without completion loops.
    private func longestChain(from state: Vocabulary.State) -> (rows: Int, effects: Int) {
        var most = (rows: 0, effects: 0)
        for row in rows where row.from == state && row.event == nil {
            let after = longestChain(from: row.to)
            most.rows = max(most.rows, 1 + after.rows)
            most.effects = max(most.effects, row.effects.count + after.effects)
        }
        return most
    }

    /// Throws a ``TableValidationError`` listing every problem, or returns when the table is sound.
    /// Once a table has passed, its copies pass at once (`TableChecks`): the engine calls this before
    /// every run.
    public func validate() throws(TableValidationError) {
        if checks.hasPassed(.structure) { return }
        let found = problems
        if !found.isEmpty { throw TableValidationError(table: name, problems: found) }
        checks.record(.structure)
    }

    private func closure(from start: [Vocabulary.State], next: (Vocabulary.State) -> [Vocabulary.State]) -> Set<
        Vocabulary.State
    > {
        var seen = Set(start)
        var frontier = start
        while let state = frontier.popLast() {
            for other in next(state) where seen.insert(other).inserted { frontier.append(other) }
        }
        return seen
    }

    /// The bounding guard row `index` runs only while it lasts: the row is guarded by it, or an
    /// earlier row of its state and event leaves when it is used up (`[no attempts left] → failure`,
    /// then `[else] → budget`: the second runs only while attempts are left).
    func bound(ofRow index: Int) -> Vocabulary.Guard? {
        let row = rows[index]
        if case .when(let g) = row.condition, g.boundsLoops { return g }
        for earlier in rows[..<index] where earlier.from == row.from && earlier.event == row.event {
            if case .unless(let g) = earlier.condition, g.boundsLoops { return g }
        }
        return nil
    }

    /// A cycle of rows with no bound on it, and the row where a bound belongs (its first guarded row,
    /// else its first); depth-first in state order. A bounded row ends a cycle only if the cycle also
    /// grows the bound's count (`CountedBound.countingEffect`): `attempts left` bounds nothing on a
    /// loop that starts no attempt. So each bound is tried in turn, its rows removed where its effect
    /// is on every loop through them; what is left must have no cycle. A row that grows its own
    /// bound's count (`circuit open [else] / count refusal`, under `[no refusals left]`) is taken
    /// finitely often on any loop, so a loop through it counts as bounded for the other bounds too.
    private func unboundedLoop() -> ([Vocabulary.State], Row)? {
        func countsItsOwnBound(_ index: Int) -> Bool {
            guard let effect = bound(ofRow: index).flatMap({ ($0 as? any CountedBound)?.countingEffect }) else {
                return false
            }
            return rows[index].effects.contains { $0.label == effect }
        }
        let selfCounting = rows.indices.filter(countsItsOwnBound)
        let free = rows.indices.filter { index in
            guard let g = bound(ofRow: index) else { return true }
            guard let effect = (g as? any CountedBound)?.countingEffect else { return false }
            if rows[index].effects.contains(where: { $0.label == effect }) { return false }
            // Kept when some loop through this row may avoid the effect: the row leads back to its
            // own state through rows that neither carry it nor count a bound of their own.
            let counting = Set(
                rows.indices.filter { rows[$0].effects.contains { $0.label == effect } } + selfCounting)
            var seen: Set<Vocabulary.State> = [rows[index].to]
            var frontier = [rows[index].to]
            while let state = frontier.popLast() {
                if state == rows[index].from { return true }
                for next in rows.indices where rows[next].from == state && !counting.contains(next) {
                    if seen.insert(rows[next].to).inserted { frontier.append(rows[next].to) }
                }
            }
            return false
        }
        var done: Set<Vocabulary.State> = []
        func visit(_ state: Vocabulary.State, path: [Vocabulary.State], via: [Int]) -> ([Vocabulary.State], Row)? {
            if let start = path.firstIndex(of: state) {
                let loop = via[start...].map { rows[$0] }
                return (Array(path[start...]) + [state], loop.first { $0.condition != .always } ?? loop[0])
            }
            if done.contains(state) { return nil }
            for index in free where rows[index].from == state {
                if let loop = visit(rows[index].to, path: path + [state], via: via + [index]) { return loop }
            }
            done.insert(state)
            return nil
        }
        for state in states {
            if let loop = visit(state, path: [], via: []) { return loop }
        }
        return nil
    }

    /// A cycle made only of completion rows, found by depth-first search in state order.
    private func completionLoop() -> [Vocabulary.State]? {
        func visit(_ state: Vocabulary.State, path: [Vocabulary.State]) -> [Vocabulary.State]? {
            if let start = path.firstIndex(of: state) { return Array(path[start...]) + [state] }
            for row in rows where row.from == state && row.event == nil {
                if let loop = visit(row.to, path: path + [state]) { return loop }
            }
            return nil
        }
        for state in states {
            if let loop = visit(state, path: []) { return loop }
        }
        return nil
    }
}
