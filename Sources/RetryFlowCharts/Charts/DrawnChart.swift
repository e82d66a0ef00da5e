import RetryFlow

/// A chart as someone drew it: its nodes and edges as a DOT parser read them, with the lines they
/// were written on. A neutral value, so ``ChartCheck`` compares it with a table without Graphviz
/// (RetryFlowGraphviz's `Graphviz.drawing(of:)` makes one from DOT with Graphviz's own parser).
public struct DrawnChart: Hashable, Sendable {
    /// A node.
    package struct Node: Hashable, Sendable {
        /// Its name in the file.
        package var id: String
        /// Its label (the name when it has none), line breaks as `\n`.
        package var label: String
        /// Its `shape` attribute (`""` when unset).
        package var shape: String
        /// The line it is first written on, if known.
        package var line: Int?

        /// A node.
        package init(id: String, label: String, shape: String = "", line: Int? = nil) {
            self.id = id
            self.label = label
            self.shape = shape
            self.line = line
        }
    }

    /// An edge, in the order it was written.
    package struct Edge: Hashable, Sendable {
        /// Its tail's name.
        package var from: String
        /// Its head's name.
        package var to: String
        /// Its label (`""` when it has none).
        package var label: String
        /// The line it is written on, if known.
        package var line: Int?

        /// An edge.
        package init(from: String, to: String, label: String = "", line: Int? = nil) {
            self.from = from
            self.to = to
            self.label = label
            self.line = line
        }
    }

    /// The graph's name.
    package var name: String
    /// The nodes, in the order written.
    package var nodes: [Node]
    /// The edges, in the order written.
    package var edges: [Edge]
    /// What the reader could not interpret and read another way (HTML labels, clusters, an
    /// undirected graph): never dropped silently.
    package var warnings: [String]

    /// A drawing.
    package init(name: String, nodes: [Node], edges: [Edge], warnings: [String] = []) {
        self.name = name
        self.nodes = nodes
        self.edges = edges
        self.warnings = warnings
    }
}
