import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import Testing

@Suite struct ChartLayoutTests {
    @Test(arguments: ChartStyle.allCases)
    func svgCarriesTheTablesIDs(style: ChartStyle) throws {
        let graph = ChartGraph(RetryTable.retry, style: style)
        let svg = String(
            decoding: try Graphviz.render(dot: DOTChart.render(graph, style: style), format: "svg"), as: UTF8.self)
        let ids = graph.nodes.map(\.elementID) + graph.edges.map(\.elementID)
        #expect(Set(ids).count == ids.count, "ids must be unique: \(ids)")
        for id in ids { #expect(svg.contains("<g id=\"\(id)\" class="), "\(id) missing") }
        #expect(!svg.contains("id=\"node1\""), "Graphviz's counter ids leaked in")
    }

    /// A drawing at the cached positions puts every node where a fresh layout does.
    @Test(arguments: ChartStyle.allCases)
    func cachedLayoutDrawsAtTheFreshPositions(style: ChartStyle) throws {
        let table = RetryTable.retry
        let trace = RetryTrace(steps: [
            .init(from: .idle, event: .start, condition: .always, to: .request, at: .zero, attempt: 1),
            .init(
                from: .request, event: .succeeded, condition: .always, to: .success, at: .milliseconds(5), attempt: 1),
        ])
        let dot = DOTChart.render(table, style: style, overlay: TraceOverlay(trace: trace, table: table))
        let fresh = try Graphviz.render(dot: DOTChart.render(table, style: style), format: "plain")
        let cached = try ChartLayout.cached(table, style: style).render(dot: dot, format: "plain")
        #expect(samePlaces(nodes(fresh), nodes(cached)), "\(nodes(fresh)) vs \(nodes(cached))")
        #expect(nodes(fresh).count == ChartGraph(table, style: style).nodes.count)
        let svg = String(decoding: try ChartLayout.cached(table, style: style).render(dot: dot), as: UTF8.self)
        #expect(svg.contains("#1f6feb"), "the overlay's colour is drawn")
    }

    /// The cache is keyed by the chart, not the table's name: a second table with the same name
    /// gets its own layout (with the first one's, its nodes would not be found).
    @Test func tablesSharingANameKeepTheirOwnLayouts() throws {
        let other = TransitionTable<HostileVocabulary>(
            name: TransitionTable.swiftSnippet.name, initial: .start, terminals: [.end],
            rows: [.init(from: .start, event: .go, to: .end, reason: .ended)])
        let snippet = try ChartLayout.cached(.swiftSnippet, style: .flowchart)
        let layout = try ChartLayout.cached(other, style: .flowchart)
        #expect(layout != snippet)
        let svg = try layout.render(dot: DOTChart.render(other, style: .flowchart))
        #expect(String(decoding: svg, as: UTF8.self).contains("<g id=\"node_start\" class=\"node\">"))
        #expect(try ChartLayout.cached(.swiftSnippet, style: .flowchart) == snippet)
    }

    @Test func aGraphOutsideTheLayoutIsRefused() throws {
        let layout = try ChartLayout.cached(RetryTable.retry, style: .state)
        #expect(throws: GraphvizError.self) { try layout.render(dot: "digraph x { stranger }") }
    }

    /// `node NAME X Y W H …` of Graphviz's plain output: name, then position relative to the start
    /// node (nop2 may shift the whole drawing by its margin) and size, in inches.
    private func nodes(_ plain: Data) -> [String: [Double]] {
        // `node NAME x y w h …`, where a name with a space (`"token wait"`) is quoted.
        let lines = String(decoding: plain, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("node ") }
            .map { line in
                line.split(separator: "\"", omittingEmptySubsequences: false).enumerated().flatMap { index, part in
                    index % 2 == 1 ? [String(part)] : part.split(separator: " ").map(String.init)
                }
            }
        guard let start = lines.first(where: { $0[1] == "idle" }) else { return [:] }
        var nodes: [String: [Double]] = [:]
        for n in lines {
            let v = n[2...5].map { Double($0) ?? .nan }
            nodes[n[1]] = [v[0] - Double(start[2])!, v[1] - Double(start[3])!, v[2], v[3]]
        }
        return nodes
    }

    /// Same nodes, each within 0.02 inch (Graphviz rounds sizes it reads back to points).
    private func samePlaces(_ a: [String: [Double]], _ b: [String: [Double]]) -> Bool {
        a.keys.sorted() == b.keys.sorted()
            && a.allSatisfy { name, values in
                zip(values, b[name]!).allSatisfy { abs($0 - $1) <= 0.02 }
            }
    }
}
