import RetryFlow

/// Mermaid text for a table, so the chart renders on code-hosting sites: `stateDiagram-v2` for the
/// state style, `flowchart` for the flowchart style. Derived from the same graph of nodes and edges as DOT.
public enum MermaidChart {
    /// Mermaid for `table` in `style`.
    public static func render<V>(_ table: TransitionTable<V>, style: ChartStyle = .state)
        -> String
    {
        let graph = ChartGraph(table, style: style)
        let ids = Dictionary(uniqueKeysWithValues: graph.nodes.enumerated().map { ($1.id, "n\($0)") })
        let text = ChartEscaping.mermaidText
        var lines: [String] = []
        switch style {
        case .state:
            lines.append("stateDiagram-v2")
            for node in graph.nodes {
                lines.append("    state \"\(text(node.label))\" as \(ids[node.id]!)")
            }
            if let start = graph.nodes.first(where: { $0.shape == .start }) {
                lines.append("    [*] --> \(ids[start.id]!)")
            }
            for edge in graph.edges {
                let label = edge.label.isEmpty ? "" : " : \(text(edge.label))"
                lines.append("    \(ids[edge.from]!) --> \(ids[edge.to]!)\(label)")
            }
            for node in graph.nodes where node.shape == .end {
                lines.append("    \(ids[node.id]!) --> [*]")
            }
        case .flowchart:
            lines.append("flowchart TB")
            for node in graph.nodes {
                let label = "\"\(text(node.label))\""
                let shaped: String
                switch node.shape {
                case .start: shaped = "([\(label)])"
                case .end: shaped = "(((\(label))))"
                case .step: shaped = "[\(label)]"
                case .decision: shaped = "{\(label)}"
                }
                lines.append("    \(ids[node.id]!)\(shaped)")
            }
            for edge in graph.edges {
                let label = edge.label.isEmpty ? "" : "|\"\(text(edge.label))\"|"
                lines.append("    \(ids[edge.from]!) -->\(label) \(ids[edge.to]!)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
