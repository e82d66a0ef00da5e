import RetryFlow

/// The drawing of a table, independent of the output language: nodes and edges, each edge knowing
/// which table rows it stands for. DOT and Mermaid both write this, so they cannot disagree.
package struct ChartGraph: Hashable, Sendable {
    /// What a node looks like.
    package enum Shape: String, Hashable, Sendable {
        /// The initial state (an oval in flowcharts, bold in state diagrams).
        case start
        /// A terminal state (a double-bordered oval).
        case end
        /// A state the machine rests in (a rounded box).
        case step
        /// A decision: a guard question, or a state left only by completion rows (a diamond).
        case decision
    }

    /// One node.
    package struct Node: Hashable, Sendable {
        /// A stable identifier (a state's name, or `state?n` for the n-th guard of a decision).
        package let id: String
        /// The text drawn in it.
        package let label: String
        /// Its shape.
        package let shape: Shape
        /// The state it draws, if it draws one.
        package let state: String?

        /// The id of its drawing in SVG and HTML (`node_retry`, `node_retry_q1`): from the table's
        /// state names, never Graphviz's counters, so pages and tests can address it.
        package var elementID: String { "node_" + ChartEscaping.elementIDPart(id) }
    }

    /// One edge.
    package struct Edge: Hashable, Sendable {
        /// Source node id.
        package let from: String
        /// Target node id.
        package let to: String
        /// The text drawn on it.
        package let label: String
        /// Indices of the table rows whose path uses this edge.
        package let rows: [Int]
        /// The rows a run takes this edge by (all of `rows`, but for an edge drawn through a state
        /// passed in no time: only the rows into it, as the row out follows each of them).
        package var enteredBy: [Int]
        /// Whether the edge closes a cycle (found by depth-first search from the initial node, in
        /// edge order). Drawn with `constraint=false`: the layout ranks the forward flow top to
        /// bottom, and Graphviz 2.42's dot leaks memory on every layout that must reverse an edge.
        package var isBackEdge = false

        /// An edge standing for `rows`, entered by `enteredBy` (by default, any of them).
        package init(from: String, to: String, label: String, rows: [Int], enteredBy: [Int]? = nil) {
            self.from = from
            self.to = to
            self.label = label
            self.rows = rows
            self.enteredBy = enteredBy ?? rows
        }

        /// The id of its drawing in SVG and HTML, from the rows it stands for (`row_3`,
        /// `rows_8_9_10`): the same table gives the same ids in every run.
        package var elementID: String {
            (rows.count == 1 ? "row_" : "rows_") + rows.map(String.init).joined(separator: "_")
        }
    }

    /// The table's name, used as the graph's name.
    package let name: String
    /// Nodes in a fixed order (the state enum's order, diamonds after their state).
    package let nodes: [Node]
    /// Edges in a fixed order (the table's row order).
    package let edges: [Edge]

    /// The drawing of `table` in `style`; with `rows`, of those rows only (and the states they
    /// touch), each edge keeping the numbers of the table's rows; the states in `passedThrough`
    /// (each left by exactly one of those rows) are drawn as part of the edges through them.
    package init<V>(
        _ table: TransitionTable<V>, style: ChartStyle, rows: Set<Int>? = nil,
        passedThrough: Set<V.State> = []
    ) {
        name = table.name
        let included = rows ?? Set(table.rows.indices)
        var (nodes, edges): ([Node], [Edge])
        switch style {
        case .state: (nodes, edges) = Self.stateDiagram(table, included)
        case .flowchart: (nodes, edges) = Self.flowchart(table, included)
        }
        if rows != nil {
            let touched = Set(edges.flatMap { [$0.from, $0.to] })
            nodes = nodes.filter { touched.contains($0.id) || $0.state == table.initial.rawValue }
        }
        for state in table.states where passedThrough.contains(state) {
            Self.contract(state.rawValue, nodes: &nodes, edges: &edges)
        }
        Self.markBackEdges(&edges, nodes: nodes, start: nodes.first { $0.shape == .start }?.id)
        self.nodes = nodes
        self.edges = edges
    }

    /// Draws the state `state` as part of the edges through it: each edge into it goes on to where
    /// its one way out leads, with that way's effects, and stands for both rows. Nothing changes
    /// unless exactly one edge leaves it.
    private static func contract(_ state: String, nodes: inout [Node], edges: inout [Edge]) {
        guard let node = nodes.first(where: { $0.state == state && $0.id.hasPrefix(state) }) else { return }
        let out = edges.filter { $0.from == node.id }
        guard out.count == 1, let exit = out.first, exit.to != node.id else { return }
        let exitEffects = exit.label.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).dropFirst()
            .first
            .map { String($0.drop { $0 == " " }) }
        edges = edges.compactMap { edge in
            if edge.from == node.id { return nil }
            guard edge.to == node.id else { return edge }
            var label = edge.label
            if let exitEffects, !exitEffects.isEmpty {
                label += (label.contains("/") ? ", " : (label.isEmpty ? "/ " : " / ")) + exitEffects
            }
            return Edge(
                from: edge.from, to: exit.to, label: label, rows: edge.rows + exit.rows, enteredBy: edge.enteredBy)
        }
        nodes.removeAll { $0.id == node.id }
    }

    /// The drawing of the rows `coverage` reached (and the rows in `including`, e.g. those a run took),
    /// with the states passed through in no time by their one reachable way out drawn as part of the
    /// edges through them.
    package init<V>(
        _ table: TransitionTable<V>, coverage: ExplorationResult<V>, style: ChartStyle,
        including: Set<Int> = []
    ) {
        let reachable = coverage.reachableRows.union(including)
        func exits(_ state: V.State) -> [Int] { reachable.filter { table.rows[$0].from == state } }
        // A state waited in for nothing (left at once, one way) is part of its edges, unless a decision
        // after it branches on what it brought (the budget's answer, when a budget can refuse).
        let passedThrough = table.states.filter { state in
            guard state != table.initial, !table.isTerminal(state), !coverage.restedStates.contains(state.rawValue),
                let exit = exits(state).first, exits(state).count == 1
            else { return false }
            let next = table.rows[exit].to
            return !(table.isDecision(next) && exits(next).count > 1)
        }
        self.init(table, style: style, rows: reachable, passedThrough: Set(passedThrough))
    }

    private static func markBackEdges(_ edges: inout [Edge], nodes: [Node], start: String?) {
        var visited = Set<String>()
        var onStack = Set<String>()
        func visit(_ node: String) {
            visited.insert(node)
            onStack.insert(node)
            for index in edges.indices where edges[index].from == node {
                let next = edges[index].to
                if onStack.contains(next) {
                    edges[index].isBackEdge = true
                } else if !visited.contains(next) {
                    visit(next)
                }
            }
            onStack.remove(node)
        }
        for root in [start].compactMap({ $0 }) + nodes.map(\.id) where !visited.contains(root) { visit(root) }
    }

    private static func shape<V>(of state: V.State, in table: TransitionTable<V>) -> Shape {
        if state == table.initial { return .start }
        if table.isTerminal(state) { return .end }
        return table.isDecision(state) ? .decision : .step
    }

    private static func stateDiagram<V>(
        _ table: TransitionTable<V>, _ included: Set<Int>
    ) -> ([Node], [Edge]) {
        let nodes = table.states.map {
            Node(id: $0.rawValue, label: $0.label, shape: shape(of: $0, in: table), state: $0.rawValue)
        }
        let edges = table.rows.enumerated().filter { included.contains($0.offset) }.map { index, row in
            Edge(from: row.from.rawValue, to: row.to.rawValue, label: table.label(ofRow: index), rows: [index])
        }
        return (nodes, edges)
    }

    /// Decision states become chains of diamonds, one per guarded completion row, in lookup order:
    /// a row `[g]` leaves its diamond on "yes", a row `[not g]` on "no"; the other branch goes on to
    /// the next diamond, and the last (unconditional) row takes the final branch.
    private static func flowchart<V>(
        _ table: TransitionTable<V>, _ included: Set<Int>
    ) -> ([Node], [Edge]) {
        var nodes: [Node] = []
        var entry: [V.State: String] = [:]
        var chains: [V.State: [(rowIndex: Int, diamond: String?)]] = [:]
        for state in table.states {
            guard table.isDecision(state) else {
                nodes.append(
                    Node(
                        id: state.rawValue, label: state.label, shape: shape(of: state, in: table),
                        state: state.rawValue))
                entry[state] = state.rawValue
                continue
            }
            let completions = table.rows.indices.filter {
                table.rows[$0].from == state && table.rows[$0].event == nil && included.contains($0)
            }
            if completions.allSatisfy({ table.rows[$0].condition == .always }) {
                // A decision with no guard still gets a diamond, named for its state, with plain exits.
                let id = "\(state.rawValue)?"
                nodes.append(Node(id: id, label: state.label, shape: .decision, state: state.rawValue))
                entry[state] = id
                chains[state] = completions.map { ($0, id) }
                continue
            }
            var chain: [(rowIndex: Int, diamond: String?)] = []
            for (k, index) in completions.enumerated() {
                if let symbol = table.rows[index].condition.guardSymbol {
                    let id = "\(state.rawValue)?\(k + 1)"
                    // The first diamond also names the decision state, so the chart shows every state.
                    let question = "\(symbol.label)?"
                    nodes.append(
                        Node(
                            id: id, label: k == 0 ? "\(state.label)\n\(question)" : question, shape: .decision,
                            state: k == 0 ? state.rawValue : nil))
                    chain.append((index, id))
                } else {
                    chain.append((index, nil))
                }
            }
            entry[state] = chain.first?.diamond
            chains[state] = chain
        }

        var edges: [Edge] = []
        for (index, row) in table.rows.enumerated() where row.event != nil && included.contains(index) {
            edges.append(
                Edge(from: entry[row.from]!, to: entry[row.to]!, label: table.label(ofRow: index), rows: [index]))
        }
        for state in table.states {
            guard let chain = chains[state] else { continue }
            for (position, link) in chain.enumerated() {
                let row = table.rows[link.rowIndex]
                guard let diamond = link.diamond else { continue }
                let leavesOnYes: Bool
                switch row.condition {
                case .when: leavesOnYes = true
                case .unless: leavesOnYes = false
                case .always: // an unguarded decision: one plain exit
                    edges.append(
                        Edge(
                            from: diamond, to: entry[row.to]!, label: RowLabel.text([], effects: row.effects),
                            rows: [link.rowIndex]))
                    continue
                }
                let label = RowLabel.text([leavesOnYes ? "yes" : "no"], effects: row.effects)
                edges.append(Edge(from: diamond, to: entry[row.to]!, label: label, rows: [link.rowIndex]))
                // The other branch carries every later row of the chain.
                let later = chain[(position + 1)...]
                guard let next = later.first else { continue }
                let otherBranch = leavesOnYes ? "no" : "yes"
                if let nextDiamond = next.diamond {
                    edges.append(Edge(from: diamond, to: nextDiamond, label: otherBranch, rows: later.map(\.rowIndex)))
                } else {
                    let last = table.rows[next.rowIndex]
                    let label = RowLabel.text([otherBranch], effects: last.effects)
                    edges.append(Edge(from: diamond, to: entry[last.to]!, label: label, rows: [next.rowIndex]))
                }
            }
        }
        return (nodes, edges)
    }
}
