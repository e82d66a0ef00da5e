import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowSnippets
import RetryFlowTesting
import Testing

/// The report page's content, without a browser (Tests/Browser drives a real one).
@Suite struct RunReportTests {
    typealias SwiftTrace = TransitionTrace<SwiftSnippetVocabulary>

    /// Any table works: the original Swift snippet, fail then succeed, with a detail that tries
    /// to break out of the page.
    static let snippetTrace = SwiftTrace(steps: [
        .init(from: .idle, event: .start, condition: .always, to: .request, at: .zero, attempt: 1),
        .init(
            from: .request, event: .failed, condition: .always, to: .retry, at: .milliseconds(30), attempt: 1,
            detail: "</script><script>alert(1)</script> & \"quotes\""),
        .init(
            from: .retry, event: nil, condition: .always, to: .usleepOnDelegateQueue, at: .milliseconds(30),
            attempt: 1, delay: .milliseconds(200)),
        .init(
            from: .usleepOnDelegateQueue, event: .woke, condition: .always, to: .request, at: .milliseconds(230),
            attempt: 2),
        .init(from: .request, event: .completed, condition: .always, to: .success, at: .milliseconds(260), attempt: 2),
    ])

    let html: String

    init() throws {
        html = try RunReport(
            table: .swiftSnippet, trace: Self.snippetTrace, title: "GET <example>",
            facts: [.init("stop reason", "done")],
            policy: "{\"times\": 2}"
        ).html
    }

    @Test func everyRowAndStateOfBothChartsIsAddressable() {
        let table = TransitionTable.swiftSnippet
        for style in ChartStyle.allCases {
            let graph = ChartGraph(table, style: style)
            for edge in graph.edges {
                #expect(html.contains("<g id=\"\(style.rawValue)_\(edge.elementID)\" class=\"edge\">"))
            }
            for node in graph.nodes {
                #expect(html.contains("<g id=\"\(style.rawValue)_\(node.elementID)\" class=\"node\">"))
            }
        }
        for index in table.rows.indices { #expect(html.contains("<tr id=\"tablerow_\(index)\">")) }
        for step in 1...Self.snippetTrace.steps.count { #expect(html.contains("<tr id=\"step_\(step)\">")) }
        #expect(!html.contains("<tr id=\"step_6\">"))
    }

    @Test func textCannotEscapeThePage() {
        #expect(!html.contains("<script>alert(1)"))
        #expect(html.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"))
        #expect(html.contains("<h1>GET &lt;example&gt;</h1>"))
        // In the script's JSON every `<` is escaped, so the detail cannot close the script element.
        #expect(html.components(separatedBy: "</script>").count == 2, "one script element, closed once")
    }

    /// State and event names reach the script's JSON (the step texts, the node map); a name that
    /// closes the script or opens an HTML comment stays data. (The snippet's details above never
    /// reach the JSON, so they cannot prove this.)
    @Test func namesInTheScriptsDataCannotCloseIt() throws {
        let table = TransitionTable<HostileVocabulary>(
            name: "<b>hostile</b>", initial: .start, terminals: [.end],
            rows: [.init(from: .start, event: .go, to: .end, reason: .ended)])
        let trace = TransitionTrace<HostileVocabulary>(steps: [
            .init(from: .start, event: .go, condition: .always, to: .end, at: .zero, attempt: 1)
        ])
        let page = try RunReport(table: table, trace: trace, title: "t").html
        let script = try #require(page.range(of: "<script>const RUN = "))
        let data = String(page[script.upperBound...].prefix { $0 != "\n" })
        #expect(data.contains("script>alert(2)"), "the state's name is in the JSON")
        #expect(!data.contains("<"), "no `<` at all in the script's data")
        #expect(page.components(separatedBy: "</script>").count == 2, "one script element, closed once")
        #expect(!page.contains("<script>alert(2)"))
    }

    @Test func nothingIsLoadedFromOutside() {
        for pattern in [" src=", " href=", "url(", "@import", "xlink:href=\"http"] {
            #expect(!html.contains(pattern), "\(pattern)")
        }
        #expect(html.contains("Content-Security-Policy\" content=\"default-src 'none'"))
    }

    @Test func summaryAndTimelineComeFromTheTrace() {
        #expect(html.contains("<dt>final state</dt><dd>success</dd>"))
        #expect(html.contains("<dt>attempts</dt><dd>2</dd>"))
        #expect(html.contains("<dt>total time</dt><dd>260 ms</dd>"))
        #expect(html.contains("<dt>stop reason</dt><dd>done</dd>"))
        #expect(html.contains("{&quot;times&quot;: 2}"))
        #expect(html.components(separatedBy: "<g class=\"attempt ").count - 1 == 2, "one bar per attempt")
        #expect(html.contains("<g class=\"attempt retried\" data-attempt=\"1\""))
        #expect(html.contains("<g class=\"attempt last\" data-attempt=\"2\""))
        #expect(html.contains(">wait 200 ms (backoff)</text>"))
    }

    @Test func sameRunGivesTheSamePage() throws {
        let again = try RunReport(
            table: .swiftSnippet, trace: Self.snippetTrace, title: "GET <example>",
            facts: [.init("stop reason", "done")],
            policy: "{\"times\": 2}"
        ).html
        #expect(again == html)
    }

    /// Every element of the page has its own id, whatever the state names: `wait?` and `wait q`
    /// were both `node_wait_q`, `half-ace` and `half\u{2DACE}` both `node_half_x2dace`, so the
    /// step-through lit one node for two states.
    @Test func oddStateNamesKeepTheirOwnIDs() throws {
        let table = TransitionTable<OddVocabulary>(
            name: "odd", initial: .start, terminals: [.end],
            rows: [
                .init(from: .start, event: .go, to: .question),
                .init(from: .question, event: .go, to: .spaceQ),
                .init(from: .spaceQ, event: .go, to: .hyphen),
                .init(from: .hyphen, event: .go, to: .cjk),
                .init(from: .cjk, event: .go, to: .end, reason: .ended),
            ])
        let states: [OddState] = [.start, .question, .spaceQ, .hyphen, .cjk, .end]
        let trace = TransitionTrace<OddVocabulary>(
            steps: zip(states, states.dropFirst()).map { from, to in
                .init(from: from, event: .go, condition: .always, to: to, at: .zero, attempt: 1)
            })
        let page = try RunReport(table: table, trace: trace, title: "t").html
        let ids = page.components(separatedBy: " id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        let repeated = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "ids used twice: \(repeated)")
        for style in ChartStyle.allCases {
            let nodes = ChartGraph(table, style: style).nodes.map(\.elementID)
            #expect(Set(nodes).count == states.count, "\(nodes)")
        }
    }

    /// A run's report with its policy's exploration opens on the policy's chart (the rows it can
    /// take, states passed in no time drawn as part of their edges, as `render --policy` draws them),
    /// with the whole table's chart behind the "full table" button; each pass counts once.
    @Test func aRunsReportOpensOnItsPolicysChart() async throws {
        let policy = RetryPolicy(jitter: .none)
        let outcome = try await Simulation.run(
            outcomes: try ScriptedOutcome.parseList("reset,503,200"), retry: .policy(policy))
        // Seconds of a debug build's CPU: on a thread of its own, not the tests' shared pool.
        let coverage = await runOnOwnThread { RetryExploration.explore(policy: policy, world: RetryWorld()) }
        let page = try RunReport(table: .retry, trace: outcome.trace, title: "t", coverage: coverage).html
        let figures = page.components(separatedBy: "<figure class=\"chart\" data-chart=\"").dropFirst()
            .map { String($0.prefix { $0 != "\"" }) }
        #expect(figures == ["policy_flowchart", "policy_state", "flowchart", "state"], "the policy's come first")
        #expect(page.contains("<button id=\"scope-policy\" aria-pressed=\"true\""))
        #expect(page.contains("<button id=\"scope-table\" aria-pressed=\"false\""))
        #expect(page.contains("\"scopes\":[\"policy\",\"table\"]"))
        // Its edges are the policy graph's, which draws fewer rows than the table has.
        let policyGraph = ChartGraph(RetryTable.retry, coverage: coverage, style: .flowchart)
        let tableGraph = ChartGraph(RetryTable.retry, style: .flowchart)
        #expect(policyGraph.edges.count < tableGraph.edges.count)
        for edge in policyGraph.edges {
            #expect(page.contains("<g id=\"policy_flowchart_\(edge.elementID)\" class=\"edge\">"), "\(edge.label)")
        }
        // Started once: the edge from idle through limiter and breaker to the request counts 1, not 1 + 3 + 3.
        let start = try #require(policyGraph.edges.first { $0.from == "idle" && $0.to == "request" })
        #expect(start.rows.count == 3 && start.enteredBy == [0])
        #expect(page.contains(">start / ask limiter, ask breaker, start attempt ×1</text>"))
        // Without an exploration (the public initializer), the table's chart only, and no scope buttons.
        let plain = try RunReport(table: .retry, trace: outcome.trace, title: "t").html
        #expect(!plain.contains("<button id=\"scope-policy\"") && !plain.contains("data-chart=\"policy_"))
    }

    /// A wait's reason comes from the run: Retry-After when the attempt's detail names it; a wait
    /// cut short by cancellation ends where the run did.
    @Test func waitsSayWhy() async throws {
        let outcome = try await Simulation.run(
            outcomes: try ScriptedOutcome.parseList("503:retry-after=1,503,200"),
            retry: .policy(RetryPolicy(jitter: .none)))
        let page = try RunReport(table: .retry, trace: outcome.trace, title: "t").html
        #expect(page.contains(">wait 1 s (Retry-After)</text>"))
        #expect(page.contains(">wait 1 s (backoff)</text>"), "the second wait is the policy's own")

        let cancelled = RetryTrace(steps: [
            .init(from: .idle, event: .start, condition: .always, to: .request, at: .zero, attempt: 1),
            .init(from: .request, event: .failed, condition: .always, to: .retry, at: .milliseconds(10), attempt: 1),
            .init(
                from: .retry, event: nil, condition: .always, to: .wait, at: .milliseconds(10), attempt: 1,
                delay: .seconds(10)),
            .init(
                from: .wait, event: .cancelled, condition: .always, to: .cancelled, at: .milliseconds(510), attempt: 1),
        ])
        let cut = try RunReport(table: .retry, trace: cancelled, title: "t").html
        #expect(cut.contains("<dt>total time</dt><dd>510 ms</dd>"))
        #expect(cut.contains("aria-label=\"timeline: 1 attempt(s), 1 wait(s) over 510 ms\""))
        #expect(cut.components(separatedBy: "<g class=\"attempt ").count - 1 == 1)
    }
}

enum HostileState: String, TableSymbol {
    case start
    case end = "</script><script>alert(2)</script><!--"
}

/// State names whose ids collided under the old escaping (see `oddStateNamesKeepTheirOwnIDs`).
enum OddState: String, TableSymbol {
    case start
    case question = "wait?"
    case spaceQ = "wait q"
    case hyphen = "half-ace"
    case cjk = "half\u{2DACE}"
    case end
}

enum HostileEvent: String, TableSymbol { case go = "go</SCRIPT >" }
enum HostileGuard: String, TableSymbol { case never }
enum HostileEffect: String, TableSymbol { case nothing }
enum HostileReason: String, TableSymbol { case ended }
typealias HostileVocabulary = TableWords<HostileState, HostileEvent, HostileGuard, HostileEffect, HostileReason>
typealias OddVocabulary = TableWords<OddState, HostileEvent, HostileGuard, HostileEffect, HostileReason>
