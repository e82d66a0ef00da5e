import RetryFlow

/// Which state of a table each node of a drawing draws, when the drawing is in its author's own words
/// (`開始`, `sendAsynchronousRequest`) rather than the table's: proposed from the structure, so
/// `check-chart` reports disagreements under it, and printed so the user can confirm it (`--map`).
///
/// Nodes named like a state (label, first line or id) keep that state, and a question asking a
/// decision's first guard is that decision. Every other node that asks no question draws one state
/// not drawn by name, or none. Of all such mappings, the proposal is the one under which the most
/// drawn links (an edge, or a path through questions) join two states a row of the table joins;
/// ties go to the mapping whose nodes share more words with their states' names, then to the one
/// found first (nodes linked to what is decided first, else in the drawing's order; "no state" before
/// the table's states in the table's order), so the same drawing always gets the same proposal.
package struct ChartCorrespondence: Hashable, Sendable {
    /// One node and the state it draws.
    package struct Pair: Hashable, Sendable {
        /// The node's id in the drawing.
        package let node: String
        /// The state's raw value (`nil`: no state of the table).
        package let state: String?
        /// Whether its name says so (else the structure does).
        package let byName: Bool
    }

    /// Every node that is no question, in the drawing's order.
    package let pairs: [Pair]
    /// Drawn links that join two states a row joins, under the mapping.
    package let agreeing: Int
    /// Drawn links between nodes that are no question.
    package let links: Int
    /// Pairs of states a row of the table joins.
    package let tableLinks: Int

    /// Whether some node names no state, so the structure had to say which it draws.
    package var guessed: Bool { pairs.contains { !$0.byName } }

    /// Plausible when at least half the drawn links agree and they cover at least half the table's:
    /// less than that is another process drawn, or too little of this one to say which is which.
    package var plausible: Bool { agreeing * 2 >= links && agreeing * 2 >= tableLinks && agreeing > 0 }

    /// The mapping as `--map` takes it (nodes named by the structure and by their names), quoted for a shell.
    package var mapArgument: String {
        let text = pairs.compactMap { pair in pair.state.map { "\(pair.node)=\($0)" } }.joined(separator: ",")
        return "--map '" + text.replacing("'", with: "'\\''") + "'"
    }

    /// The proposal, one node a line, and the ready `--map` line.
    package var text: String {
        var lines = [
            "correspondence found from the structure (\(agreeing) of \(links) drawn link\(links == 1 ? "" : "s") "
                + "agree with the table); confirm it, or correct it with --map:"
        ]
        for pair in pairs {
            lines.append(
                "  \(pair.node) → "
                    + (pair.state.map { "\($0)\(pair.byName ? " (by name)" : "")" } ?? "no state of the table"))
        }
        lines.append(mapArgument)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The one line saying no mapping makes sense of the drawing.
    package func implausibleLine(tableName: String, disagreements: Int) -> String {
        "no plausible correspondence between the drawing and \(tableName): under the best mapping of its nodes "
            + "to states, \(agreeing) of its \(links) links join states the table joins (the table joins "
            + "\(tableLinks)) and \(disagreements) disagreement\(disagreements == 1 ? "" : "s") remain; name the "
            + "states with --map NODE=STATE,…\n"
    }
}

extension ChartCheck {
    /// The correspondence proposed for `drawing` from its structure, and the mapping to check it under.
    /// The search stops after `searchLimit` steps with the best mapping found by then (the retry
    /// table drawn with every state renamed takes far fewer).
    package static func propose<V>(
        _ drawing: DrawnChart, for table: TransitionTable<V>, searchLimit: Int = 2_000_000
    ) -> (correspondence: ChartCorrespondence, mapping: [String: V.State]) {
        var search = CorrespondenceSearch(drawing: drawing, table: table, limit: searchLimit)
        return search.run()
    }

}

/// The branch-and-bound search behind ``ChartCheck/propose(_:for:searchLimit:)``.
private struct CorrespondenceSearch<V: TableVocabulary> {
    let drawing: DrawnChart
    let table: TransitionTable<V>
    let limit: Int

    /// A node's index → the state's index, fixed by name or a decision's question; `nil` for the rest.
    var fixed: [Int?] = []
    /// Nodes whose state is searched for, in the order they are searched.
    var variables: [Int] = []
    /// Links between nodes that are no questions (through questions that draw no state).
    var links: [(from: Int, to: Int)] = []
    /// `joins[a][b]`: a row goes from state a to state b.
    var joins: [[Bool]] = []
    /// `similar[node][state]`: hints the node draws the state (a word shared with its name; the start
    /// drawn where no link leads, an end where none leaves), which break ties.
    var similar: [[Int]] = []
    /// Whether a node is a question drawing no state (a link passes through it).
    var passes: [Bool] = []

    init(drawing: DrawnChart, table: TransitionTable<V>, limit: Int) {
        self.drawing = drawing
        self.table = table
        self.limit = limit
    }

    mutating func run() -> (correspondence: ChartCorrespondence, mapping: [String: V.State]) {
        let states = table.states
        let reader = DrawingReader(drawing: drawing, table: table)
        let position = Dictionary(drawing.nodes.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        for node in drawing.nodes {
            let read = reader.readNode(node)
            var state = read.state
            if state == nil, let question = read.question, let asked = reader.guardMatch(question)?.guard {
                let decisions = states.filter { candidate in
                    table.isDecision(candidate)
                        && table.rows.first { $0.from == candidate }?.condition.guardSymbol == asked
                }
                if decisions.count == 1 { state = decisions.first }
            }
            fixed.append(state.flatMap { states.firstIndex(of: $0) })
            passes.append(state == nil && read.isQuestion)
            if state == nil && !read.isQuestion { variables.append(fixed.count - 1) }
        }
        // Links: from every node that is no passing question, through passing questions, to the next such node.
        var seen: Set<[Int]> = []
        for from in drawing.nodes.indices where !passes[from] {
            var stack = drawing.edges.filter { $0.from == drawing.nodes[from].id }.compactMap { position[$0.to] }
            var visited: Set<Int> = []
            while let next = stack.popLast() {
                guard visited.insert(next).inserted else { continue }
                if passes[next] {
                    stack += drawing.edges.filter { $0.from == drawing.nodes[next].id }.compactMap { position[$0.to] }
                } else if seen.insert([from, next]).inserted {
                    links.append((from, next))
                }
            }
        }
        joins = Array(repeating: Array(repeating: false, count: states.count), count: states.count)
        var tableLinks = 0
        for row in table.rows {
            guard let a = states.firstIndex(of: row.from), let b = states.firstIndex(of: row.to) else { continue }
            if !joins[a][b] { tableLinks += 1 }
            joins[a][b] = true
        }
        similar = drawing.nodes.map { node in
            let words = Set(Self.words(node.label) + Self.words(node.id))
            return states.map { state in
                Self.words(state.label + " " + state.rawValue).contains { words.contains($0) } ? 1 : 0
            }
        }

        // A node that is no state, with one way out: the reader reads an edge into it as going through
        // it (a wait the code lacks), so a link into it agrees when the states around it are joined.
        var through: [Int: Int] = [:]
        for variable in variables {
            let outs = drawing.edges.filter { $0.from == drawing.nodes[variable].id }.compactMap { position[$0.to] }
            if outs.count == 1, let next = outs.first, !passes[next], next != variable { through[variable] = next }
        }
        let sources = Set(drawing.nodes.indices.filter { index in !links.contains { $0.to == index } })
        let sinks = Set(drawing.nodes.indices.filter { index in !links.contains { $0.from == index } })
        let initial = states.firstIndex(of: table.initial)
        for variable in variables {
            for state in states.indices {
                // The start drawn where nothing leads, an end where nothing leaves: a hint, as a shared word is.
                if sources.contains(variable) && state == initial { similar[variable][state] += 1 }
                if sinks.contains(variable) && table.isTerminal(states[state]) { similar[variable][state] += 1 }
            }
        }
        func agreeing(_ assignment: [Int?]) -> Int {
            links.filter { link in
                guard let b = assignment[link.to] else {
                    guard let a = assignment[link.from], let next = through[link.to], let c = assignment[next] else {
                        return false
                    }
                    return joins[a][c]
                }
                guard let a = assignment[link.from] else { return false }
                return joins[a][b]
            }.count
        }

        // The search: each variable takes no state or a state no node draws by name, each state once.
        // Variables linked to what is already decided come first (ties in the drawing's order): their
        // links are settled early, so the bound prunes early.
        var ordered: [Int] = []
        var decided = Set(drawing.nodes.indices.filter { fixed[$0] != nil })
        var pending = variables
        while !pending.isEmpty {
            let scores = pending.map { node in
                links.filter {
                    ($0.from == node && decided.contains($0.to)) || ($0.to == node && decided.contains($0.from))
                }
                .count
            }
            let pick = scores.indices.max { scores[$0] < scores[$1] || (scores[$0] == scores[$1] && $0 > $1) }!
            ordered.append(pending[pick])
            decided.insert(pending[pick])
            pending.remove(at: pick)
        }
        variables = ordered
        var assignment = fixed
        let used = Set(fixed.compactMap { $0 })
        var best: (score: Int, assignment: [Int?]) = (-1, fixed)
        var steps = 0
        let variableSet = Set(variables)
        // Flat arrays for the inner loop: a node's place among the variables (-1: fixed or passing),
        // the node a variable leads through to (-1: none), the states in use.
        var rank = Array(repeating: -1, count: drawing.nodes.count)
        for (index, variable) in variables.enumerated() { rank[variable] = index }
        var next = Array(repeating: -1, count: drawing.nodes.count)
        for (variable, to) in through { next[variable] = to }
        var taken = Array(repeating: false, count: states.count)
        for state in used { taken[state] = true }
        func visit(_ depth: Int, similarity: Int) {
            steps += 1
            guard steps <= limit else { return }
            // Links with an end not yet assigned (or leading through one) could all still agree; the
            // others agree or not already.
            var open = 0
            var known = 0
            for link in links {
                let via = assignment[link.to] == nil ? next[link.to] : -1
                if rank[link.from] >= depth || rank[link.to] >= depth || (via >= 0 && rank[via] >= depth) {
                    open += 1
                } else if let a = assignment[link.from] {
                    if let b = assignment[link.to] {
                        if joins[a][b] { known += 1 }
                    } else if via >= 0, let c = assignment[via], joins[a][c] {
                        known += 1
                    }
                }
            }
            let bound = (known + open) * 1000 + similarity + 2 * (variables.count - depth)
            guard bound > best.score else { return }
            guard depth < variables.count else {
                best = (known * 1000 + similarity, assignment)
                return
            }
            let node = variables[depth]
            visit(depth + 1, similarity: similarity)
            for state in states.indices where !taken[state] {
                assignment[node] = state
                taken[state] = true
                visit(depth + 1, similarity: similarity + similar[node][state])
                taken[state] = false
                assignment[node] = nil
            }
        }
        visit(0, similarity: 0)

        var mapping: [String: V.State] = [:]
        var pairs: [ChartCorrespondence.Pair] = []
        for (index, node) in drawing.nodes.enumerated() where !passes[index] {
            let state = best.assignment[index].map { states[$0] }
            if variableSet.contains(index), let state { mapping[node.id] = state }
            if fixed[index] != nil && reader.readNode(node).isQuestion { continue } // a decision's question
            pairs.append(
                ChartCorrespondence.Pair(node: node.id, state: state?.rawValue, byName: !variableSet.contains(index)))
        }
        let correspondence = ChartCorrespondence(
            pairs: pairs, agreeing: agreeing(best.assignment), links: links.count, tableLinks: tableLinks)
        return (correspondence, mapping)
    }

    /// Lowercased words of three letters or more: what a node's name and a state's share.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { $0.count > 2 }
    }
}
