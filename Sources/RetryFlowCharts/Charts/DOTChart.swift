import RetryFlow

/// Graphviz DOT text for a table, in either ``ChartStyle``, optionally with a run drawn over it.
///
/// The output is deterministic: a named graph, nodes and edges in table order, no counters or
/// timestamps, so the same table gives byte-identical text in every run and process. It avoids
/// clusters and marks back edges `constraint=false`: Graphviz 2.42's dot layout leaks memory on
/// both (upstream issues 911 and 649 of the old Graphviz tracker), and with neither, 2,000
/// in-process renders keep memory flat.
///
/// ```swift
/// let dot = DOTChart.render(RetryTable.retry, style: .flowchart)
/// ```
public enum DOTChart {
    /// The colour of taken edges and the final state's fill in overlays.
    static let takenColor = "#1f6feb"
    static let untakenColor = "#b8b8b8"
    static let finalFill = "#ffe08a"

    /// DOT for `table` in `style`; with `overlay`, taken edges bold and counted, the rest greyed.
    public static func render<V>(
        _ table: TransitionTable<V>, style: ChartStyle = .state, overlay: TraceOverlay? = nil
    ) -> String {
        render(ChartGraph(table, style: style), style: style, overlay: overlay)
    }

    /// DOT for the rows of `table` that `coverage` found reachable, and only those: the chart of one
    /// policy. A state every run passes through in no time, by its one reachable way out (the
    /// retry budget's answer when there is no budget), is drawn as part of the edges through it.
    public static func render<V>(
        _ table: TransitionTable<V>, style: ChartStyle = .state, coverage: ExplorationResult<V>
    ) -> String {
        render(ChartGraph(table, coverage: coverage, style: style), style: style)
    }

    /// The chart of `policy`'s table (its user steps included): only the rows some run takes, as
    /// `retryflow render --policy` draws them. The default policy, with no budget, breaker or
    /// deadline, comes down to the teaching loop: request, retry, wait, and the ends.
    ///
    /// ```swift
    /// let dot = DOTChart.render(policy: .default, style: .flowchart)
    /// ```
    public static func render(policy: RetryPolicy, style: ChartStyle = .state) -> String {
        render(policy: policy, world: RetryWorld(), style: style)
    }

    /// The chart of `policy`'s table in `world` (``RetryExploration``): the worlds the flags of
    /// `retryflow render --policy` describe (`--budget`, `--breaker` …).
    package static func render(policy: RetryPolicy, world: RetryWorld, style: ChartStyle = .state) -> String {
        render(policy.table, style: style, coverage: RetryExploration.explore(policy: policy, world: world))
    }

    /// DOT for an already-derived graph.
    package static func render(_ graph: ChartGraph, style: ChartStyle, overlay: TraceOverlay? = nil) -> String {
        let q = ChartEscaping.dotQuoted
        var lines: [String] = []
        lines.append("digraph \(q(graph.name)) {")
        var graphAttributes = ["rankdir=TB", "fontname=\"Helvetica\"", "nodesep=0.4", "ranksep=0.45"]
        if let overlay {
            graphAttributes += ["labelloc=b", "fontsize=11", "label=\(q(overlay.caption))"]
        }
        lines.append("  graph [\(graphAttributes.joined(separator: ", "))];")
        lines.append("  node [fontname=\"Helvetica\", fontsize=12];")
        lines.append("  edge [fontname=\"Helvetica\", fontsize=10];")
        for node in graph.nodes {
            var attributes =
                ["id=\(q(node.elementID))", "label=\(q(node.label))"] + shapeAttributes(node.shape, style: style)
            if let overlay {
                if let state = node.state, state == overlay.finalState {
                    attributes += ["style=\"filled,rounded,bold\"", "fillcolor=\"\(finalFill)\""]
                } else if node.state.map({ !overlay.visitedStates.contains($0) }) ?? !nodeIsOnTakenPath(
                    node, graph, overlay)
                {
                    attributes += ["color=\"\(untakenColor)\"", "fontcolor=\"\(untakenColor)\""]
                }
            }
            lines.append("  \(q(node.id)) [\(attributes.joined(separator: ", "))];")
        }
        for edge in graph.edges {
            var label = edge.label
            var attributes: [String] = []
            if let overlay {
                let count = overlay.count(of: edge)
                if count > 0 {
                    label += " ×\(count)"
                    attributes += ["color=\"\(takenColor)\"", "fontcolor=\"\(takenColor)\"", "penwidth=2.5"]
                } else {
                    attributes += ["color=\"\(untakenColor)\"", "fontcolor=\"\(untakenColor)\""]
                }
            }
            attributes.insert(contentsOf: ["id=\(q(edge.elementID))", "label=\(q(label))"], at: 0)
            if edge.isBackEdge { attributes.append("constraint=false") }
            lines.append("  \(q(edge.from)) -> \(q(edge.to)) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func nodeIsOnTakenPath(_ node: ChartGraph.Node, _ graph: ChartGraph, _ overlay: TraceOverlay) -> Bool
    {
        graph.edges.contains { ($0.from == node.id || $0.to == node.id) && overlay.count(of: $0) > 0 }
    }

    private static func shapeAttributes(_ shape: ChartGraph.Shape, style: ChartStyle) -> [String] {
        switch (shape, style) {
        case (.start, .flowchart): ["shape=oval", "style=bold"]
        case (.end, .flowchart): ["shape=oval", "peripheries=2"]
        case (.step, .flowchart): ["shape=box"]
        case (.start, .state): ["shape=box", "style=\"rounded,bold\""]
        case (.end, .state): ["shape=box", "style=rounded", "peripheries=2"]
        case (.step, .state): ["shape=box", "style=rounded"]
        case (.decision, _): ["shape=diamond"]
        }
    }
}
