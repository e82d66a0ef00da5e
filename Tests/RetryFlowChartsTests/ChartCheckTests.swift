import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowSnippets
import RetryFlowTesting
import Testing

/// `check-chart`: a DOT drawing read by Graphviz's parser and compared with a table. Our own charts
/// check clean in both styles, with and without a run drawn over them; each kind of disagreement is
/// found, worded as asserted here, on the drawing's line.
@Suite struct ChartCheckTests {
    static func check<V>(_ dot: String, _ table: TransitionTable<V>) throws -> ChartCheckResult {
        ChartCheck.compare(try Graphviz.drawing(of: dot), with: table)
    }

    /// The 1-based line of the first line of `dot` containing `text`.
    static func line(of text: String, in dot: String) -> Int {
        (dot.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) } ?? -2) + 1
    }

    static func expectClean<V>(
        _ table: TransitionTable<V>, trace: TransitionTrace<V>?
    ) throws {
        for style in ChartStyle.allCases {
            for overlay in [nil] + [trace.map { TraceOverlay(trace: $0, table: table) }] {
                let dot = DOTChart.render(table, style: style, overlay: overlay ?? nil)
                let result = try check(dot, table)
                #expect(result.findings.isEmpty && result.warnings.isEmpty, "\(table.name) \(style): \(result.text)")
            }
        }
    }

    /// The longest shortest-run the explorer found: a run that visits much of the chart.
    static func longest<V>(_ result: ExplorationResult<V>) -> TransitionTrace<V>? {
        result.witnesses.values.max { $0.steps.count < $1.steps.count }
    }

    @Test func everyMachinesChartsCheckCleanInBothStylesWithAndWithoutARun() async throws {
        // The explorations are seconds of a debug build's CPU: on a thread of their own.
        let retry = await runOnOwnThread { Self.longest(RetryExploration.explore(policy: .default)) }
        let budget = await runOnOwnThread { Self.longest(FleetExploration.budget()) }
        let breaker = await runOnOwnThread { Self.longest(FleetExploration.breaker()) }
        let transfer = await runOnOwnThread { Self.longest(TransferExploration.explore(attempts: 2)) }
        let swift = await runOnOwnThread { Self.longest(SnippetExploration.swift(times: 2)) }
        let objc = await runOnOwnThread { Self.longest(SnippetExploration.objc(retryCount: 2)) }
        try Self.expectClean(RetryTable.retry, trace: retry)
        try Self.expectClean(BudgetTable.budget, trace: budget)
        try Self.expectClean(BreakerTable.breaker, trace: breaker)
        try Self.expectClean(TransferTable.transfer, trace: transfer)
        try Self.expectClean(TransitionTable.swiftSnippet, trace: swift)
        try Self.expectClean(TransitionTable.objcSnippet, trace: objc)
    }

    @Test func aDeletedEdgeIsAMissingRow() throws {
        let dot = DOTChart.render(RetryTable.retry, style: .state).split(separator: "\n")
            .filter { !$0.contains("\"wait\" -> \"limiter\"") }.joined(separator: "\n")
        let result = try Self.check(dot, RetryTable.retry)
        #expect(
            result.findings.map(\.description) == [
                "missing: the table's row wait --delay elapsed / ask limiter--> limiter has no edge in the drawing"
            ])
        #expect(result.missingRows == [#""wait" -> "limiter" [label="delay elapsed / ask limiter"];"#])
    }

    @Test func anAddedEdgeIsNoRowOfTheTable() throws {
        let dot = DOTChart.render(TransitionTable.objcSnippet, style: .state)
            .replacingOccurrences(of: "\n}\n", with: "\n  \"success\" -> \"request\" [label=\"any response\"];\n}\n")
        let result = try Self.check(dot, TransitionTable.objcSnippet)
        let line = Self.line(of: #""success" -> "request""#, in: dot)
        #expect(
            result.findings.map(\.description) == [
                #"line \#(line): edge success -> request "any response": the table has no row from 'success' on 'any response'"#
            ])
    }

    @Test func aRenamedStateIsNamedBothWays() throws {
        let dot = DOTChart.render(TransitionTable.objcSnippet, style: .state)
            .replacingOccurrences(of: "\"request\"", with: "\"fetching\"")
        let result = try Self.check(dot, TransitionTable.objcSnippet)
        let line = Self.line(of: #""fetching" [id"#, in: dot)
        #expect(
            result.findings.map(\.description) == [
                "line \(line): node fetching \"fetching\" is not a state of the table (its states: idle, request, retry, "
                    + "success, failure); its 4 edges are not checked",
                "state 'request' of the table is not in the drawing",
                "missing: the table's row idle --start / download--> request has no edge in the drawing",
                "missing: the table's row request --any response / completion--> success has no edge in the drawing",
                "missing: the table's row request --connection error--> retry has no edge in the drawing",
                "missing: the table's row retry --[else] / downloadAndRetry(retryCount - 1), download--> request has no "
                    + "edge in the drawing",
            ])
    }

    @Test func swappedGuardsAreAnOrderFinding() throws {
        // In the state diagram: the edges of [not retryable] and [no attempts left] written the other way round.
        var lines = DOTChart.render(RetryTable.retry, style: .state).split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.contains("[not retryable]") })
        lines.swapAt(first, first + 1)
        let stateResult = try Self.check(lines.joined(separator: "\n"), RetryTable.retry)
        let order =
            "decision 'retry': the drawing asks [final answer], [attempts left], [retryable], [Retry-After within cap], "
            + "[within deadline] in that order, the table [final answer], [retryable], [attempts left], [Retry-After "
            + "within cap], [within deadline] (the first that holds wins, so the order matters)"
        // The finding names the line of the decision's first edge drawn ([final answer], just above).
        #expect(stateResult.findings.map(\.description) == ["line \(first): " + order])
        // In the flowchart: the second and third diamonds ask each other's question.
        let flow = DOTChart.render(RetryTable.retry, style: .flowchart)
            .replacingOccurrences(of: #"label="retryable?""#, with: #"label="ATTEMPTS?""#)
            .replacingOccurrences(of: #"label="attempts left?""#, with: #"label="retryable?""#)
            .replacingOccurrences(of: #"label="ATTEMPTS?""#, with: #"label="attempts left?""#)
        let flowResult = try Self.check(flow, RetryTable.retry)
        #expect(flowResult.findings.count == 1)
        #expect(flowResult.findings.first?.message == order)
    }

    @Test func aWrongTargetNamesTheRow() throws {
        let dot = DOTChart.render(TransitionTable.objcSnippet, style: .state)
            .replacingOccurrences(of: #""request" -> "retry""#, with: #""request" -> "failure""#)
        let result = try Self.check(dot, TransitionTable.objcSnippet)
        let line = Self.line(of: #""request" -> "failure""#, in: dot)
        #expect(
            result.findings.map(\.description) == [
                #"line \#(line): edge request -> failure "connection error": goes to 'failure', the table's row goes to 'retry': request --connection error--> retry"#
            ])
    }

    @Test func garbageIsUnreadable() {
        #expect(throws: GraphvizError.self) { try Graphviz.drawing(of: "this is not { dot") }
        do {
            _ = try Graphviz.drawing(of: "digraph { a -> }")
            Issue.record("parsed")
        } catch {
            #expect(error.kind == .syntax)
            #expect(error.message.contains("syntax error"))
        }
    }

    @Test func htmlLabelsClustersAndUndirectedGraphsAreWarnedAbout() throws {
        let dot = DOTChart.render(TransitionTable.objcSnippet, style: .state)
            .replacingOccurrences(of: #"label="request""#, with: "label=<<b>request</b>>")
        let result = try Self.check(dot, TransitionTable.objcSnippet)
        #expect(result.agrees)
        #expect(
            result.warnings == [
                "line \(Self.line(of: "<b>request", in: dot)): node request has an HTML label, read as its text without tags"
            ])
        let clustered = try Graphviz.drawing(
            of: "digraph g {\n  subgraph cluster_a {\n    idle; request\n  }\n  idle -> request\n}")
        #expect(
            clustered.warnings == [
                "line 2: subgraph cluster_a is a cluster, a drawn box and not a state: its nodes are read as if outside it"
            ])
        let undirected = try Graphviz.drawing(of: "graph g { idle -- request [label=start] }")
        #expect(undirected.warnings.first?.hasPrefix("the graph is undirected") == true)
        #expect(undirected.edges.map { "\($0.from) \($0.to) \($0.label) \($0.line ?? 0)" } == ["idle request start 1"])
    }

    /// The originals' flowcharts as their authors drew them, checked against their tables: what the
    /// docs show, here with its exact findings.
    @Test func theOriginalsAsDrawnDepartFromTheirCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let objc = try String(contentsOf: root.appendingPathComponent("docs/drawn/objc-snippet.dot"), encoding: .utf8)
        let result = try Self.check(objc, TransitionTable.objcSnippet)
        #expect(
            result.findings.map(\.description) == [
                "line 7: decision node ok asks 'succeeded?', which is not a guard of the table (its guards: "
                    + "retryCount > 0) nor one of the two events 'request' is left on (its events there: any "
                    + "response, connection error)",
                "line 9: node wait \"wait\" is a step the table does not have: the drawing goes from 'retry' through "
                    + "it to 'request', the table goes straight",
                "missing: the table's row request --any response / completion--> success has no edge in the drawing",
                "missing: the table's row request --connection error--> retry has no edge in the drawing",
            ])
        let swift = try String(contentsOf: root.appendingPathComponent("docs/drawn/swift-snippet.dot"), encoding: .utf8)
        // By name, its wait is no state; by structure it is the snippet's usleep, and then the drawing agrees.
        #expect(try Self.check(swift, TransitionTable.swiftSnippet).findings.count == 4)
        let proposed = try ChartCheck.check(Graphviz.drawing(of: swift), with: TransitionTable.swiftSnippet, map: nil)
        guard case .checked(let underProposal, let correspondence?) = proposed else {
            Issue.record("\(proposed)")
            return
        }
        #expect(underProposal.agrees)
        #expect(correspondence.pairs.contains { $0.node == "wait" && $0.state == "usleep on the delegate queue" })
    }
}
