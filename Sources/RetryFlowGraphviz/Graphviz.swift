import CGraphviz
import Foundation
import RetryFlow

/// In-process access to the Graphviz C library (libgvc, libcgraph): DOT in, SVG, PNG, PDF, JSON,
/// plain text, or any format the installed plugins offer, out. No `dot` process is spawned.
///
/// libgvc is not thread-safe, not even with one context per thread (measured here: concurrent
/// renders crashed 4 runs of 4), so every call into it goes through one process-wide lock and one
/// shared context.
///
/// ```swift
/// let svg = try Graphviz.render(dot: DOTChart.render(RetryTable.retry), format: "svg")
/// ```
public enum Graphviz {
    private static let lock = Locked(())
    // Touched only under `lock`; made once and kept for the life of the process.
    nonisolated(unsafe) private static var sharedContext: OpaquePointer?

    static func withContext<R>(_ body: (OpaquePointer) throws(GraphvizError) -> R) throws(GraphvizError) -> R {
        let result: Result<R, GraphvizError> = lock.whileLocked {
            guard rf_gv_load() != 0 else {
                let problem = String(cString: rf_gv_problem())
                return .failure(
                    GraphvizError(
                        kind: .unavailable,
                        message: "\(problem); install Graphviz (scripts/install-deps.sh, or apt-get install libgvc6)"))
            }
            if sharedContext == nil {
                rf_quiet_errors()
                sharedContext = rf_context()
            }
            guard let context = sharedContext else {
                return .failure(GraphvizError(kind: .renderFailed, message: "gvContext() returned no context"))
            }
            do throws(GraphvizError) { return .success(try body(context)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Lays `dot` out with `layout` (default `dot`) and renders it to `format` (`svg`, `png`,
    /// `pdf`, `json`, `plain`, …). Everything Graphviz allocates is freed before returning.
    public static func render(dot: String, format: String, layout: String = "dot") throws(GraphvizError) -> Data {
        try withGraph(dot) { (context, graph) throws(GraphvizError) -> Data in
            try Self.layout(graph, context: context, engine: layout)
            defer { rf_free_layout(context, graph) }
            return try renderLaidOut(graph, context: context, format: format)
        }
    }

    /// Parses `dot` and runs `body` on the graph under the lock; the graph is closed afterwards.
    static func withGraph<R>(
        _ dot: String, _ body: (OpaquePointer, UnsafeMutablePointer<Agraph_t>) throws(GraphvizError) -> R
    ) throws(GraphvizError) -> R {
        try withContext { (context) throws(GraphvizError) -> R in
            let graph = try parse(dot)
            defer { rf_close(graph) }
            return try body(context, graph)
        }
    }

    /// Runs layout `engine` on `graph` (the caller holds the lock and frees the layout).
    static func layout(
        _ graph: UnsafeMutablePointer<Agraph_t>, context: OpaquePointer, engine: String
    ) throws(GraphvizError) {
        guard rf_layout(context, graph, engine) == 0 else {
            let message = lastError() ?? "layout failed"
            if message.contains("not recognized"), Self.nothingAfterUseOneOf(message) {
                throw GraphvizError(
                    kind: .layoutUnavailable,
                    message: "\(message.trimmed). The layout plugins are not registered: run `dot -c` "
                        + "(or `libgvc6-config-update -c`) as root, or reinstall libgvc6.")
            }
            throw GraphvizError(kind: .renderFailed, message: message.trimmed)
        }
    }

    /// Renders a laid-out graph to `format` (the caller holds the lock).
    static func renderLaidOut(
        _ graph: UnsafeMutablePointer<Agraph_t>, context: OpaquePointer, format: String
    ) throws(GraphvizError) -> Data {
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        guard rf_render_data(context, graph, format, &buffer, &length) == 0, let buffer else {
            let formats = outputFormats(context)
            throw GraphvizError(
                kind: .unknownFormat,
                message: "format \"\(format)\" is not available; available: \(formats.joined(separator: ", "))")
        }
        defer { rf_free_render_data(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// Visits every node (with its name) and every edge (with its `id` attribute, if set).
    static func forEach(
        _ graph: UnsafeMutablePointer<Agraph_t>,
        node visitNode: (UnsafeMutablePointer<Agnode_t>, String) throws(GraphvizError) -> Void,
        edge visitEdge: (UnsafeMutablePointer<Agedge_t>, String?) throws(GraphvizError) -> Void
    ) throws(GraphvizError) {
        var node = rf_first_node(graph)
        while let current = node {
            try visitNode(current, String(cString: rf_name(UnsafeMutableRawPointer(current))))
            var edge = rf_first_out(graph, current)
            while let e = edge {
                let id = rf_get(UnsafeMutableRawPointer(e), "id").map { String(cString: $0) }
                try visitEdge(e, id.flatMap { $0.isEmpty ? nil : $0 })
                edge = rf_next_out(graph, e)
            }
            node = rf_next_node(graph, current)
        }
    }

    /// The output formats the installed plugins offer (sorted, without duplicates).
    package static var availableFormats: [String] {
        (try? withContext { outputFormats($0) }) ?? []
    }

    /// The nodes and edges of `dot` as Graphviz's own parser (cgraph) reads them: how tests prove
    /// that generated DOT says what the table says, without regexes.
    package static func structure(of dot: String) throws(GraphvizError) -> GraphStructure {
        try withContext { (_) throws(GraphvizError) -> GraphStructure in
            let graph = try parse(dot)
            defer { rf_close(graph) }
            var nodes: [String] = []
            var edges: [GraphStructure.Edge] = []
            var node = rf_first_node(graph)
            while let current = node {
                nodes.append(String(cString: rf_name(UnsafeMutableRawPointer(current))))
                var edge = rf_first_out(graph, current)
                while let e = edge {
                    let label = rf_get(UnsafeMutableRawPointer(e), "label").map { String(cString: $0) } ?? ""
                    edges.append(
                        GraphStructure.Edge(
                            tail: String(cString: rf_name(UnsafeMutableRawPointer(rf_tail(e)))),
                            head: String(cString: rf_name(UnsafeMutableRawPointer(rf_head(e)))),
                            label: label))
                    edge = rf_next_out(graph, e)
                }
                node = rf_next_node(graph, current)
            }
            return GraphStructure(
                name: String(cString: rf_name(UnsafeMutableRawPointer(graph))), nodes: nodes, edges: edges)
        }
    }

    /// Parses DOT; the caller holds the lock and closes the graph.
    static func parse(_ dot: String) throws(GraphvizError) -> UnsafeMutablePointer<Agraph_t> {
        guard let graph = rf_read(dot) else {
            throw GraphvizError(kind: .syntax, message: lastError()?.trimmed ?? "the DOT text did not parse")
        }
        return graph
    }

    /// Graphviz's last error message. Not freed: 2.42 allocates it, later releases own it, and
    /// freeing the wrong one would crash; it is only read on error paths.
    static func lastError() -> String? {
        guard let message = rf_last_error() else { return nil }
        let text = String(cString: message)
        return text.isEmpty ? nil : text
    }

    /// Output formats: the device plugins (svg, png, pdf …) and renderers usable as formats (dot, json …).
    private static func outputFormats(_ context: OpaquePointer) -> [String] {
        Array(Set(pluginNames(context, kind: "device") + pluginNames(context, kind: "render"))).sorted()
    }

    /// "Layout type: "dot" not recognized. Use one of:" with an empty list means no plugin is registered.
    private static func nothingAfterUseOneOf(_ message: String) -> Bool {
        guard let range = message.range(of: "Use one of:") else { return true }
        return message[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    private static func pluginNames(_ context: OpaquePointer, kind: String) -> [String] {
        var count: Int32 = 0
        guard let list = rf_plugin_list(context, kind, &count) else { return [] }
        var names = Set<String>()
        for index in 0..<Int(count) {
            if let name = list[index] {
                names.insert(String(String(cString: name).split(separator: ":").first ?? ""))
                rf_free(name)
            }
        }
        rf_free(list)
        return names.filter { !$0.isEmpty }.sorted()
    }
}

/// Nodes and edges as Graphviz parsed them.
package struct GraphStructure: Hashable, Sendable {
    /// An edge: its endpoints' names and its `label` attribute.
    package struct Edge: Hashable, Sendable {
        /// The source node's name.
        package let tail: String
        /// The target node's name.
        package let head: String
        /// The edge's label.
        package let label: String
    }

    /// The graph's name.
    package let name: String
    /// Node names, in Graphviz's order.
    package let nodes: [String]
    /// Edges, grouped by tail node in Graphviz's order.
    package let edges: [Edge]
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
