import CGraphviz
import Foundation
import RetryFlow
import RetryFlowCharts

/// Where Graphviz put a chart's nodes, edges and labels: laid out once, then any number of
/// drawings of the same graph (a run over it, a report frame) are rendered at those positions
/// without running the layout again. The table's layout does not change between runs, and the
/// layout is most of the cost of a render (about 2 ms of 2.5 for the flowchart).
///
/// Nodes are matched by name and edges by their `id` attribute (`ChartGraph.Edge.elementID`),
/// so a drawing may change colours, widths and label text, but not add nodes or edges.
///
/// ```swift
/// let layout = try ChartLayout.cached(RetryTable.retry, style: .flowchart)
/// let svg = try layout.render(dot: DOTChart.render(RetryTable.retry, style: .flowchart, overlay: overlay))
/// ```
public struct ChartLayout: Sendable, Hashable {
    /// Positioned attributes (`pos`, `width`, `height`) by node name.
    let nodes: [String: [String: String]]
    /// Positioned attributes (`pos`, `lp`) by edge `id`.
    let edges: [String: [String: String]]
    /// The graph's bounding box.
    let boundingBox: String

    /// Graphviz's gap between a node's borders (`GAP`, 4 points), in inches.
    static let peripheryGap = 4.0 / 72

    static let positionedNodeAttributes = ["pos", "width", "height"]
    static let positionedEdgeAttributes = ["pos", "lp"]

    /// Lays `dot` out with Graphviz's `dot` layout; every edge needs an `id` attribute.
    package init(dot: String) throws(GraphvizError) {
        (nodes, edges, boundingBox) = try Graphviz.withGraph(dot) { (context, graph) throws(GraphvizError) in
            try Graphviz.layout(graph, context: context, engine: "dot")
            defer { rf_free_layout(context, graph) }
            // Rendering to `dot` writes the layout into the graph's attributes, where we read it.
            var buffer: UnsafeMutablePointer<CChar>?
            var length = 0
            guard rf_render_data(context, graph, "dot", &buffer, &length) == 0, let buffer else {
                throw GraphvizError(kind: .renderFailed, message: "could not read the layout back")
            }
            rf_free_render_data(buffer)
            var nodes: [String: [String: String]] = [:]
            var edges: [String: [String: String]] = [:]
            try Graphviz.forEach(graph) { (node, name) throws(GraphvizError) in
                var attributes = Self.read(Self.positionedNodeAttributes, of: UnsafeMutableRawPointer(node))
                // The size read back includes extra borders, which nop2 would add a second time.
                let peripheries =
                    rf_get(UnsafeMutableRawPointer(node), "peripheries").flatMap { Int(String(cString: $0)) } ?? 1
                if peripheries > 1 {
                    let extra = Double(2 * (peripheries - 1)) * Self.peripheryGap
                    for key in ["width", "height"] {
                        if let value = attributes[key].flatMap(Double.init) { attributes[key] = String(value - extra) }
                    }
                }
                nodes[name] = attributes
            } edge: { (edge, id) throws(GraphvizError) in
                guard let id, edges[id] == nil else {
                    throw GraphvizError(kind: .renderFailed, message: "every edge needs its own id to keep its layout")
                }
                edges[id] = Self.read(Self.positionedEdgeAttributes, of: UnsafeMutableRawPointer(edge))
            }
            let box = rf_get(UnsafeMutableRawPointer(graph), "bb").map { String(cString: $0) } ?? ""
            return (nodes, edges, box)
        }
    }

    /// The layout of `table`'s chart in `style`, made once per process and style.
    public static func cached<V>(
        _ table: TransitionTable<V>, style: ChartStyle
    ) throws(GraphvizError) -> ChartLayout {
        // Keyed by the whole DOT text, not the table's name: two tables may share a name. The
        // layout runs outside the cache's lock (under Graphviz's own); two threads missing at once
        // both lay out, and the results are equal.
        let dot = DOTChart.render(table, style: style)
        if let layout = cache.withLock({ $0[dot] }) { return layout }
        let layout = try ChartLayout(dot: dot)
        cache.withLock { cache in
            // A program that makes tables on the fly must not grow the cache without end.
            if cache.count >= maxCached { cache.removeAll() }
            cache[dot] = layout
        }
        return layout
    }

    private static let cache = Locked<[String: ChartLayout]>([:])
    /// Far more than the charts a process draws (a few tables, two styles each).
    static let maxCached = 64

    /// Renders `dot` (the laid-out graph, restyled) to `format` at the stored positions, with
    /// Graphviz's `nop2` layout (`neato -n2`: positions and splines taken as given).
    public func render(dot: String, format: String = "svg") throws(GraphvizError) -> Data {
        try Graphviz.withGraph(dot) { (context, graph) throws(GraphvizError) -> Data in
            _ = rf_set(UnsafeMutableRawPointer(graph), "bb", boundingBox)
            try Graphviz.forEach(graph) { (node, name) throws(GraphvizError) in
                guard let attributes = nodes[name] else {
                    throw GraphvizError(kind: .renderFailed, message: "node \"\(name)\" is not in the layout")
                }
                for (key, value) in attributes { _ = rf_set(UnsafeMutableRawPointer(node), key, value) }
            } edge: { (edge, id) throws(GraphvizError) in
                guard let id, let attributes = edges[id] else {
                    throw GraphvizError(kind: .renderFailed, message: "edge \"\(id ?? "")\" is not in the layout")
                }
                for (key, value) in attributes { _ = rf_set(UnsafeMutableRawPointer(edge), key, value) }
            }
            try Graphviz.layout(graph, context: context, engine: "nop2")
            defer { rf_free_layout(context, graph) }
            return try Graphviz.renderLaidOut(graph, context: context, format: format)
        }
    }

    private static func read(_ names: [String], of object: UnsafeMutableRawPointer) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = rf_get(object, name).map({ String(cString: $0) }), !value.isEmpty { values[name] = value }
        }
        return values
    }
}
