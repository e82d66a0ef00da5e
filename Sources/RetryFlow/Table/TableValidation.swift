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
    /// Checks: every state reachable from the initial state; no dead ends; every reachable state can
    /// reach a terminal (when the table has terminals; one without is a perpetual machine); terminals have no exits; no duplicate or shadowed rows; decisions always
    /// have an unconditional last row, take no events and cannot loop among themselves.
    public var problems: [TableProblem] {
        var found: [TableProblem] = []
        var seenKeys: [(State, Event?, GuardCondition<Guard>)] = []
        var unconditional: [(State, Event?)] = []
        for row in rows {
            if seenKeys.contains(where: { $0.0 == row.from && $0.1 == row.event && $0.2 == row.condition }) {
                found.append(.duplicateRow(row: row.description))
            } else if unconditional.contains(where: { $0.0 == row.from && $0.1 == row.event }) {
                found.append(.shadowedRow(row: row.description))
            }
            seenKeys.append((row.from, row.event, row.condition))
            if row.condition == .always { unconditional.append((row.from, row.event)) }
        }

        let reachable = closure(from: [initial]) { state in rows.filter { $0.from == state }.map(\.to) }
        for state in State.allCases {
            let leaving = rows.filter { $0.from == state }
            if isTerminal(state) {
                if !leaving.isEmpty { found.append(.terminalHasExit(state: state.label)) }
                continue
            }
            if !reachable.contains(state) {
                found.append(.unreachable(state: state.label))
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
        // A table with no terminal state is a perpetual machine (a budget, a breaker): it never
        // finishes by design, so only dead ends count against it.
        let canFinish = closure(from: terminals) { state in rows.filter { $0.to == state }.map(\.from) }
        for state in State.allCases where !terminals.isEmpty && reachable.contains(state) && !canFinish.contains(state) {
            if !found.contains(.deadEnd(state: state.label)) { found.append(.cannotFinish(state: state.label)) }
        }
        if let loop = completionLoop() { found.append(.completionLoop(states: loop.map(\.label))) }
        return found
    }

    /// Throws a ``TableValidationError`` listing every problem, or returns when the table is sound.
    public func validate() throws(TableValidationError) {
        let found = problems
        if !found.isEmpty { throw TableValidationError(table: name, problems: found) }
    }

    private func closure(from start: [State], next: (State) -> [State]) -> Set<State> {
        var seen = Set(start)
        var frontier = start
        while let state = frontier.popLast() {
            for other in next(state) where seen.insert(other).inserted { frontier.append(other) }
        }
        return seen
    }

    /// A cycle made only of completion rows, found by depth-first search in state order.
    private func completionLoop() -> [State]? {
        func visit(_ state: State, path: [State]) -> [State]? {
            if let start = path.firstIndex(of: state) { return Array(path[start...]) + [state] }
            for row in rows where row.from == state && row.event == nil {
                if let loop = visit(row.to, path: path + [state]) { return loop }
            }
            return nil
        }
        for state in State.allCases {
            if let loop = visit(state, path: []) { return loop }
        }
        return nil
    }
}
