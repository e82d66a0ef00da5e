import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowTesting
import Testing

@Suite struct ChartTests {
    let table = RetryTable.retry

    /// Graphviz's own parser reads the state diagram back: nodes are the states, edges are the rows.
    @Test func stateDiagramParsesBackToTheTable() throws {
        let structure = try Graphviz.structure(of: DOTChart.render(table, style: .state))
        #expect(structure.name == "RetryFlow")
        #expect(Set(structure.nodes) == Set(RetryState.allCases.map(\.rawValue)))
        #expect(structure.nodes.count == RetryState.allCases.count)
        let edges = structure.edges.map { "\($0.tail) -> \($0.head) : \($0.label)" }.sorted()
        let rows = table.rows.indices.map { i in
            "\(table.rows[i].from.rawValue) -> \(table.rows[i].to.rawValue) : \(table.label(ofRow: i))"
        }.sorted()
        #expect(rows.contains("admission -> wait : [else] / notify retry, sleep"))
        #expect(edges == rows)
    }

    /// The flowchart is derived from the rows too: every non-decision state is a node, every event
    /// row an edge with its label, and each guard of the decision a diamond with yes and no.
    @Test func flowchartParsesBackToTheTable() throws {
        let structure = try Graphviz.structure(of: DOTChart.render(table, style: .flowchart))
        let states = Set(RetryState.allCases.filter { !table.isDecision($0) }.map(\.rawValue))
        let diamonds = Set(structure.nodes).subtracting(states)
        #expect(Set(structure.nodes).isSuperset(of: states))
        let guarded = table.rows.filter { $0.event == nil && $0.condition != .always }
        #expect(diamonds.count == guarded.count)
        for (index, row) in table.rows.enumerated() where row.event != nil {
            let target = table.isDecision(row.to) ? "\(row.to.rawValue)?1" : row.to.rawValue
            let label = table.label(ofRow: index)
            #expect(
                structure.edges.contains { $0.tail == row.from.rawValue && $0.head == target && $0.label == label },
                "\(row)")
        }
        for diamond in diamonds {
            let out = structure.edges.filter { $0.tail == diamond }.map(\.label)
            #expect(out.count == 2, "\(diamond) has yes and no")
            #expect(out.contains { $0.hasPrefix("yes") } && out.contains { $0.hasPrefix("no") }, "\(diamond): \(out)")
        }
        // Every row's path is drawn: the graph's edges together stand for every row.
        let graph = ChartGraph(table, style: .flowchart)
        #expect(Set(graph.edges.flatMap(\.rows)) == Set(table.rows.indices))
        #expect(
            structure.edges.contains { $0.tail == "retry?1" && $0.head == "answered" && $0.label == "yes / finish" })
        #expect(structure.edges.contains { $0.tail == "retry?2" && $0.head == "failure" && $0.label == "no / finish" })
        #expect(
            structure.edges.contains {
                $0.tail == "retry?5" && $0.head == "budget" && $0.label == "yes / ask retry budget"
            })
    }

    /// Graphviz 2.42's dot leaks on every layout with a cluster or an edge it must reverse; the
    /// charts avoid both so rendering in process keeps memory flat.
    @Test func chartsAvoidWhatMakesGraphvizLeak() {
        for style in ChartStyle.allCases {
            let graph = ChartGraph(table, style: style)
            let dot = DOTChart.render(graph, style: style)
            #expect(!dot.contains("subgraph"))
            let back = graph.edges.filter(\.isBackEdge).map { "\($0.from)->\($0.to)" }
            #expect(back.contains("wait->limiter"), "\(back)")
            #expect(dot.split(separator: "\n").filter { $0.contains("constraint=false") }.count == back.count)
        }
    }

    @Test func outputIsDeterministic() throws {
        for style in ChartStyle.allCases {
            #expect(DOTChart.render(table, style: style) == DOTChart.render(table, style: style))
            #expect(MermaidChart.render(table, style: style) == MermaidChart.render(table, style: style))
            let dot = DOTChart.render(table, style: style)
            #expect(try Graphviz.render(dot: dot, format: "svg") == (try Graphviz.render(dot: dot, format: "svg")))
        }
    }

    @Test func mermaidHasEveryStateAndRow() {
        let state = MermaidChart.render(table, style: .state)
        #expect(state.hasPrefix("stateDiagram-v2\n"))
        #expect(state.contains("    [*] --> n0\n"))
        #expect(state.contains("n5 --> n6 : failed / report health, plan delay\n"))
        let transitionLines = state.split(separator: "\n").filter { $0.contains(" --> ") && !$0.contains("[*]") }
        #expect(transitionLines.count == table.rows.count)
        let flow = MermaidChart.render(table, style: .flowchart)
        #expect(flow.hasPrefix("flowchart TB\n"))
        #expect(flow.contains("{\"retry final answer?\"}"))
        #expect(flow.contains("{\"retryable?\"}"))
        #expect(flow.contains("(((\"success\")))"))
    }

    // MARK: escaping

    enum Nasty: String, TableSymbol {
        case quote = "say \"hi\""
        case backslash = #"C:\temp\N"#
        case newline = "two\nlines\r\nthree"
        case braces = "} digraph x { a -> b"
        case markup = "<b>&amp;</b> <x>"
        case unicode = "wait ⏳ ×2 — δ"
        case injection = "a\" [color=red] ; b -> c [label=\"x"
    }
    enum Go: String, TableSymbol { case go = "go;#|:\"" }
    enum Check: String, TableSymbol { case ok = "is <ok> & \"fine\"" }
    enum Act: String, TableSymbol { case act = "act\\n\"now\"" }

    enum Why: String, TableSymbol { case done = "done \"<now>\"" }

    typealias NastyVocabulary = TableWords<Nasty, Go, Check, Act, Why>

    static let nastyTable = TransitionTable<NastyVocabulary>(
        name: "nasty \"name\"", initial: .quote, terminals: [.injection],
        rows: [
            .init(from: .quote, event: .go, to: .backslash, effects: [.act]),
            .init(from: .backslash, event: .go, to: .newline),
            .init(from: .newline, event: .go, to: .braces),
            .init(from: .braces, event: .go, condition: .when(.ok), to: .markup),
            .init(from: .braces, event: .go, to: .unicode),
            .init(from: .markup, event: .go, to: .unicode),
            .init(from: .unicode, event: .go, to: .injection, reason: .done),
        ])

    /// DOT's parser gets back exactly the nodes and edges the table has, and every label's text
    /// intact: nothing broke out of its string.
    @Test(arguments: ChartStyle.allCases)
    func dotLabelsCannotBreakOut(style: ChartStyle) throws {
        let dot = DOTChart.render(Self.nastyTable, style: style)
        let structure = try Graphviz.structure(of: dot)
        #expect(structure.name == "nasty \"name\"")
        let graph = ChartGraph(Self.nastyTable, style: style)
        #expect(structure.nodes.sorted() == graph.nodes.map { Self.normalise($0.id) }.sorted())
        #expect(structure.edges.count == graph.edges.count)
        #expect(Set(structure.edges.map(\.label)) == Set(graph.edges.map { Self.normalise($0.label) }))
        let svg = String(decoding: try Graphviz.render(dot: dot, format: "svg"), as: UTF8.self)
        let svgFile = FileManager.default.temporaryDirectory.appendingPathComponent("nasty-\(style).svg")
        try? Data(svg.utf8).write(to: svgFile)
        #expect(svg.contains("&lt;b&gt;&amp;amp;&lt;/b&gt; &lt;x&gt;"), "see \(svgFile.path)")
        #expect(svg.contains("⏳"))
        #expect(!svg.contains("<b>"))
    }

    @Test(arguments: ChartStyle.allCases)
    func mermaidLabelsCannotBreakOut(style: ChartStyle) {
        let text = MermaidChart.render(Self.nastyTable, style: style)
        let graph = ChartGraph(Self.nastyTable, style: style)
        let lines = text.split(separator: "\n")
        // header + one line per node (state declarations / flowchart nodes) + edges (+ start/end markers)
        let markers = style == .state ? 2 : 0
        #expect(lines.count == 1 + graph.nodes.count + graph.edges.count + markers)
        for line in lines.dropFirst() {
            let quotes = line.filter { $0 == "\"" }.count
            #expect(quotes % 2 == 0 && quotes <= 4, "\(line)")
            #expect(!line.contains("<") && !line.contains("&") && !line.contains("\\"), "\(line)")
        }
        #expect(text.contains("#9203;"), "non-ASCII kept as a character code")
    }

    @Test func dotEscapingRules() {
        #expect(ChartEscaping.dotQuoted(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(ChartEscaping.dotQuoted("x\r\ny\nz\rw") == #""x\ny\nz\nw""#)
        #expect(ChartEscaping.dotQuoted("tab\there\u{7}") == #""tab here ""#)
        #expect(ChartEscaping.dotQuoted("δ ×2") == "\"δ ×2\"")
        #expect(ChartEscaping.dotQuoted("a &lt; b") == "\"a &amp;lt; b\"")
        #expect(ChartEscaping.mermaidText("a:b;c#\"") == "a#58;b#59;c#35;#34;")
    }

    /// Element ids are one-to-one: every name over an alphabet of the characters the escaping
    /// treats specially (a space before `q` or `x`, `?`, hex digits after an escape, `_`, `-`,
    /// non-ASCII) up to four long gets its own id, and the ids shipped charts use stay as they were.
    @Test func elementIDsAreOneToOne() async {
        // 22,621 names: worked out on a thread of its own (seconds of a debug build's CPU), the
        // findings come back here.
        let problems: [String] = await runOnOwnThread {
            let alphabet: [String] = ["a", "q", "x", "2", "d", "Q", " ", "?", "-", "_", "é", "\u{2DACE}"]
            var names: Set<String> = [""]
            var frontier: Set<String> = [""]
            for _ in 1...4 {
                frontier = Set(frontier.flatMap { name in alphabet.map { name + $0 } })
                names.formUnion(frontier)
            }
            var seen: [String: String] = [:]
            var problems: [String] = []
            for name in names {
                let id = ChartEscaping.elementIDPart(name)
                if !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) {
                    problems.append("\(name.debugDescription) gives the id \(id), not letters, digits and _")
                }
                if let other = seen.updateValue(name, forKey: id) {
                    problems.append("\(name.debugDescription) and \(other.debugDescription) share the id \(id)")
                }
            }
            return problems
        }
        #expect(problems == [])
        #expect(ChartEscaping.elementIDPart("retry?1") == "retry_q1")
        #expect(ChartEscaping.elementIDPart("checking length") == "checking_length")
        #expect(ChartEscaping.elementIDPart("half-open") == "half_x2dopen")
        #expect(ChartEscaping.elementIDPart("half-ace") == "half_x2d_ace")
        #expect(ChartEscaping.elementIDPart("the queue") == "the_x20queue")
    }

    // MARK: overlay

    @Test func overlayCountsTakenEdgesAndGreysTheRest() async throws {
        let trace = try await Self.exampleTrace()
        let overlay = TraceOverlay(trace: trace, table: table)
        #expect(overlay.finalState == "success")
        #expect(overlay.caption == "attempts: 3 · waits: 500 ms, 1 s · ended: success at 1.5 s")
        let failedRow = table.rows.firstIndex { $0.from == .request && $0.event == .failed }!
        #expect(overlay.rowCounts[failedRow] == 2)
        for style in ChartStyle.allCases {
            let dot = DOTChart.render(table, style: style, overlay: overlay)
            #expect(dot.contains("label=\"failed / report health, plan delay ×2\""))
            #expect(dot.contains("label=\"start / ask limiter ×1\""))
            #expect(dot.contains("label=\"admitted / start attempt ×3\""))
            #expect(dot.contains("fillcolor=\"#ffe08a\""))
            #expect(dot.contains("label=\"attempts: 3 · waits: 500 ms, 1 s · ended: success at 1.5 s\""))
            let structure = try Graphviz.structure(of: dot)
            let greyed = dot.split(separator: "\n").filter { $0.contains(" -> ") && $0.contains("#b8b8b8") }
            let taken = dot.split(separator: "\n").filter { $0.contains(" -> ") && $0.contains("penwidth=2.5") }
            #expect(taken.count + greyed.count == structure.edges.count)
            #expect(!taken.isEmpty && !greyed.isEmpty)
        }
        let flow = DOTChart.render(table, style: .flowchart, overlay: overlay)
        // Twice through every diamond and the budget on the way to the wait.
        #expect(flow.contains("label=\"yes / ask retry budget ×2\""))
        #expect(flow.contains("label=\"no / notify retry, sleep ×2\""))
        #expect(flow.contains("label=\"budget answered ×2\""))
        #expect(flow.contains("label=\"yes ×2\""))
    }
}

extension ChartTests {
    /// The run `diagrams/example-fail-fail-succeed.svg` draws: fail, fail, succeed, on the manual clock.
    static func exampleTrace() async throws -> RetryTrace {
        let clock = ManualClock()
        let policy = RetryPolicy(
            maxAttempts: 3, backoff: .exponential(base: .milliseconds(500), multiplier: 2), jitter: .none)
        let outcome = try await clock.runAdvancing {
            try await Retry(policy, clock: clock).outcome { attempt -> String in
                if attempt.number < 3 { throw ScriptedFailure(attempt: attempt.number) }
                return "200 OK"
            }
        }
        return outcome.trace
    }

    struct ScriptedFailure: Error {
        let attempt: Int
    }

    /// The label as the DOT writer emits it inside quotes, with quotes unescaped (cgraph's view).
    static func normalise(_ label: String) -> String {
        let quoted = ChartEscaping.dotQuoted(label)
        return String(quoted.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
    }
}
