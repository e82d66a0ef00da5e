import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP

/// One run as a self-contained web page: the table's chart in both styles, a step-through of the
/// trace over it (keys, buttons, slider, play), the table with the row that fired, a timeline of
/// attempts and waits, and the outcome. Inline SVG, CSS and a little JavaScript; nothing is
/// fetched. Without JavaScript the page still shows the run drawn over the chart and every step.
///
/// Generic over any `TransitionTable` and its trace, so every machine gets the same page. The
/// timeline reads only the steps: an attempt runs from the first step numbered with it to the next
/// step; a wait is the last step of an attempt that carries a delay, and its reason is that step's
/// `detail` when the driver gives one (a budget, a breaker), else "Retry-After" when the attempt's
/// details name it, else "backoff".
/// Secrets: the page shows only what the trace and the caller pass in; drivers redact trace
/// details, and callers redact the title (``RunReport/init(table:trace:title:facts:policy:races:)``).
///
/// ```swift
/// let html = try RunReport(table: .retry, trace: outcome.trace, title: "GET /flaky").html
/// ```
public struct RunReport: Sendable {
    /// A line of the outcome summary (`stop reason: succeeded`).
    public struct Fact: Hashable, Sendable {
        /// What it is.
        package let name: String
        /// Its value, as text.
        package let value: String

        /// Makes a fact.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One step as the page shows it.
    struct Step: Hashable, Sendable {
        let row: Int?
        /// The states' raw values (how charts name their nodes) and labels (what people read).
        let from: String
        let to: String
        let fromLabel: String
        let toLabel: String
        let what: String
        let at: Duration
        let attempt: Int
        let delay: Duration?
        let detail: String?
    }

    /// One chart: the whole table's (drawn at the process's cached layout) or the policy's, in one style.
    struct Chart: Hashable, Sendable {
        let style: ChartStyle
        /// Whether it draws only the rows the policy that ran can take (`render --policy`'s chart).
        let isPolicy: Bool
        /// The SVG with every id prefixed by the style (two charts share one page).
        let svg: String
        /// For each row, the ids of the edges on its path.
        let rowEdges: [[String]]
        /// The node id drawing each state.
        let stateNodes: [String: String]

        /// How the page names it: `flowchart`, `state`, `policy_flowchart`, `policy_state`.
        var key: String { (isPolicy ? "policy_" : "") + style.rawValue }
    }

    /// The page's title (a redacted URL, a scenario's name).
    package let title: String
    let tableName: String
    let columns: [[String]]
    let steps: [Step]
    let charts: [Chart]
    let facts: [Fact]
    let policy: String?
    let timeline: RunTimeline

    /// Builds the page's content for `trace` over `table`. `facts` come after the generic ones
    /// (final state, attempts, total time); `policy` is shown as given (e.g. its JSON). A hedged
    /// run's `races` (its outcome's `hedging`, one an attempt) draw each copy in a lane of the
    /// timeline, overlapping in time.
    public init<V>(
        table: TransitionTable<V>, trace: TransitionTrace<V>, title: String, facts: [Fact] = [],
        policy: String? = nil, races: [HedgingRecord] = []
    ) throws(GraphvizError) {
        try self.init(
            table: table, trace: trace, title: title, facts: facts, policy: policy, races: races, coverage: nil)
    }

    /// The page, opening on the chart of the policy that ran when `coverage` is its exploration
    /// (``RetryExploration``: the rows it can take, as `retryflow render --policy` draws them, and
    /// the rows this run took), with the whole table's chart one click away.
    package init<V>(
        table: TransitionTable<V>, trace: TransitionTrace<V>, title: String, facts: [Fact] = [],
        policy: String? = nil, races: [HedgingRecord] = [], coverage: ExplorationResult<V>?
    ) throws(GraphvizError) {
        self.title = title
        tableName = table.name
        columns = table.rows.indices.map { index in
            let row = table.rows[index]
            let condition = table.isElse(row: index) ? "else" : row.condition.label
            return [
                row.from.label, row.event?.label ?? "", condition, row.to.label,
                row.effects.map(\.label).joined(separator: ", "),
            ]
        }
        steps = trace.steps.map { step in
            let what = table.label(of: step)
            return Step(
                row: table.index(from: step.from, event: step.event, condition: step.condition, to: step.to),
                from: step.from.rawValue, to: step.to.rawValue, fromLabel: step.from.label, toLabel: step.to.label,
                what: what, at: step.at, attempt: step.attempt,
                delay: step.delay, detail: step.detail)
        }
        let overlay = TraceOverlay(trace: trace, table: table)
        var charts: [Chart] = []
        let taken = Set(steps.compactMap(\.row))
        for isPolicy in coverage == nil ? [false] : [true, false] {
            for style in [ChartStyle.flowchart, .state] {
                let graph: ChartGraph
                if isPolicy, let coverage {
                    graph = ChartGraph(table, coverage: coverage, style: style, including: taken)
                } else {
                    graph = ChartGraph(table, style: style)
                }
                let dot = DOTChart.render(graph, style: style, overlay: overlay)
                // The table's layout is the process's; a policy's chart is laid out for this page.
                let layout =
                    isPolicy
                    ? try ChartLayout(dot: DOTChart.render(graph, style: style))
                    : try ChartLayout.cached(table, style: style)
                let svg = try layout.render(dot: dot)
                let prefix = (isPolicy ? "policy_" : "") + style.rawValue + "_"
                var stateNodes: [String: String] = [:]
                for node in graph.nodes { if let state = node.state { stateNodes[state] = prefix + node.elementID } }
                charts.append(
                    Chart(
                        style: style, isPolicy: isPolicy, svg: Self.inlined(svg, prefix: prefix),
                        rowEdges: table.rows.indices.map { row in
                            graph.edges.filter { $0.rows.contains(row) }.map { prefix + $0.elementID }
                        },
                        stateNodes: stateNodes))
            }
        }
        self.charts = charts
        let attempts = trace.steps.map(\.attempt).max() ?? 0
        var generic = [Fact("final state", trace.finalState?.label ?? "not started")]
        generic.append(Fact("attempts", "\(attempts)"))
        generic.append(Fact("total time", (trace.steps.last?.at ?? .zero).shortDescription))
        self.facts = generic + facts
        self.policy = policy
        timeline = RunTimeline(steps, races: races)
    }

    /// Graphviz's SVG without its XML prolog and comments, every `id` prefixed.
    static func inlined(_ svg: Data, prefix: String) -> String {
        var text = String(decoding: svg, as: UTF8.self)
        if let start = text.range(of: "<svg") { text = String(text[start.lowerBound...]) }
        // Comments name the graph and nodes in Graphviz's words; `--` in a name could end one early.
        while let open = text.range(of: "<!--"),
            let close = text.range(of: "-->", range: open.upperBound..<text.endIndex)
        {
            text.removeSubrange(open.lowerBound..<close.upperBound)
        }
        // Label text cannot contain ` id="` (Graphviz escapes quotes), so this touches attributes only.
        return text.replacingOccurrences(of: " id=\"", with: " id=\"\(prefix)")
    }
}
