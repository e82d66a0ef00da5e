import RetryFlow

/// A chart as someone drew it: its nodes and edges as a DOT parser read them, with the lines they
/// were written on. A neutral value, so ``ChartCheck`` compares it with a table without Graphviz
/// (RetryFlowGraphviz's `Graphviz.drawing(of:)` makes one from DOT with Graphviz's own parser).
public struct DrawnChart: Hashable, Sendable {
    /// A node.
    public struct Node: Hashable, Sendable {
        /// Its name in the file.
        public var id: String
        /// Its label (the name when it has none), line breaks as `\n`.
        public var label: String
        /// Its `shape` attribute (`""` when unset).
        public var shape: String
        /// The line it is first written on, if known.
        public var line: Int?

        /// A node.
        public init(id: String, label: String, shape: String = "", line: Int? = nil) {
            self.id = id
            self.label = label
            self.shape = shape
            self.line = line
        }
    }

    /// An edge, in the order it was written.
    public struct Edge: Hashable, Sendable {
        /// Its tail's name.
        public var from: String
        /// Its head's name.
        public var to: String
        /// Its label (`""` when it has none).
        public var label: String
        /// The line it is written on, if known.
        public var line: Int?

        /// An edge.
        public init(from: String, to: String, label: String = "", line: Int? = nil) {
            self.from = from
            self.to = to
            self.label = label
            self.line = line
        }
    }

    /// The graph's name.
    public var name: String
    /// The nodes, in the order written.
    public var nodes: [Node]
    /// The edges, in the order written.
    public var edges: [Edge]
    /// What the reader could not interpret and read another way (HTML labels, clusters, an
    /// undirected graph): never dropped silently.
    public var warnings: [String]

    /// A drawing.
    public init(name: String, nodes: [Node], edges: [Edge], warnings: [String] = []) {
        self.name = name
        self.nodes = nodes
        self.edges = edges
        self.warnings = warnings
    }
}
