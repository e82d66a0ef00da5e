import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowSnippets
import RetryFlowTesting
import Testing

/// `check-chart` in the author's own words: drawings whose nodes are named as their authors named
/// them (`開始`, `sendAsynchronousRequest`, `error?` with YES and NO), in DOT and Mermaid, checked
/// under the correspondence found from their structure, for the two snippet tables and the retry table.
@Suite struct ChartCorrespondenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func drawing(_ text: String, mermaid: Bool) throws -> DrawnChart {
        mermaid ? try MermaidDrawing.drawing(of: text) : try Graphviz.drawing(of: text)
    }

    /// The outcome of `check-chart` without `--map`.
    static func check<V>(
        _ text: String, mermaid: Bool, _ table: TransitionTable<V>
    ) throws -> ChartCheckOutcome {
        try ChartCheck.check(try drawing(text, mermaid: mermaid), with: table, map: nil)
    }

    /// The findings' descriptions and the proposed mapping (`node=state`) of a checked outcome.
    static func checked(_ outcome: ChartCheckOutcome) -> (findings: [String], mapping: [String])? {
        guard case .checked(let result, let correspondence) = outcome else { return nil }
        return (
            result.findings.map(\.description),
            correspondence?.pairs.map { "\($0.node)=\($0.state ?? "-")" } ?? []
        )
    }

    // MARK: The drawings

    static var objcDOT: String {
        get throws {
            try String(contentsOf: root.appendingPathComponent("docs/drawn/objc-redrawn.dot"), encoding: .utf8)
        }
    }
    static var objcMermaid: String {
        get throws {
            try String(contentsOf: root.appendingPathComponent("docs/drawn/objc-redrawn.mmd"), encoding: .utf8)
        }
    }

    /// retryDataTask drawn in its code's words: the usleep is a state of its own there.
    static let swiftDOT = """
        digraph "retryDataTask" {
          start     [shape=oval, label="開始"];
          resume    [shape=box, label="dataTask(with:).resume()"];
          hasError  [shape=diamond, label="error?"];
          timesLeft [shape=diamond, label="times > 0?"];
          sleep     [shape=box, label="usleep(wait)"];
          done      [shape=oval, label="completionHandler(data, response, nil)"];
          giveUp    [shape=oval, label="completionHandler(nil, nil, error)"];
          start -> resume;
          resume -> hasError;
          hasError -> done [label="NO"];
          hasError -> timesLeft [label="YES"];
          timesLeft -> sleep [label="YES"];
          timesLeft -> giveUp [label="NO"];
          sleep -> resume;
        }
        """
    static let swiftMermaid = """
        flowchart TD
            start([開始]) --> resume["dataTask(with:).resume()"]
            resume --> hasError{error?}
            hasError -->|NO| done(["completionHandler(data, response, nil)"])
            hasError -->|YES| timesLeft{times > 0?}
            timesLeft -->|YES| sleep["usleep(wait)"]
            timesLeft -->|NO| giveUp(["completionHandler(nil, nil, error)"])
            sleep --> resume
        """

    /// The retry table's own flowchart with four states renamed in other words and ids.
    static let retryRenames = [
        ("request", "attempt", "HTTP 呼び出し"), ("wait", "backoff", "sleep(delay)"), ("budget", "bucket", "トークン"),
        ("token wait", "pause", "pause for a token"),
    ]
    static var retryDOT: String {
        var dot = DOTChart.render(RetryTable.retry, style: .flowchart)
        for (state, id, label) in retryRenames {
            dot = dot.replacingOccurrences(of: "label=\"\(state)\"", with: "label=\"\(label)\"")
                .replacingOccurrences(of: "\"\(state)\"", with: "\"\(id)\"")
        }
        return dot
    }
    static var retryMermaid: String {
        var text = MermaidChart.render(RetryTable.retry, style: .flowchart)
        for (state, _, label) in retryRenames {
            text = text.replacingOccurrences(of: "[\"\(state)\"]", with: "[\"\(label)\"]")
        }
        return text
    }

    // MARK: Faithful drawings check clean

    @Test func theObjectiveCSnippetRedrawnInItsOwnWordsAgrees() throws {
        for (text, mermaid) in [(try Self.objcDOT, false), (try Self.objcMermaid, true)] {
            let outcome = try Self.check(text, mermaid: mermaid, TransitionTable.objcSnippet)
            let checked = try #require(Self.checked(outcome), "\(outcome)")
            #expect(checked.findings == [], "mermaid: \(mermaid)")
            #expect(checked.mapping == ["start=idle", "send=request", "completion=success", "failure=failure"])
            guard case .checked(_, let correspondence?) = outcome else { return }
            #expect(correspondence.mapArgument == "--map 'start=idle,send=request,completion=success,failure=failure'")
            #expect(correspondence.agreeing == 5 && correspondence.links == 5)
        }
    }

    @Test func theSwiftSnippetDrawnInItsOwnWordsAgrees() throws {
        for (text, mermaid) in [(Self.swiftDOT, false), (Self.swiftMermaid, true)] {
            let checked = try #require(
                Self.checked(try Self.check(text, mermaid: mermaid, TransitionTable.swiftSnippet)))
            #expect(checked.findings == [], "mermaid: \(mermaid)")
            #expect(
                checked.mapping.sorted() == [
                    "done=success", "giveUp=failure", "resume=request", "sleep=usleep on the delegate queue",
                    "start=idle",
                ])
        }
    }

    @Test func theRetryTableDrawnWithItsStatesRenamedAgrees() throws {
        let ids = ["request": "attempt", "wait": "backoff", "budget": "bucket", "token wait": "pause"]
        for (text, mermaid) in [(Self.retryDOT, false), (Self.retryMermaid, true)] {
            let checked = try #require(Self.checked(try Self.check(text, mermaid: mermaid, RetryTable.retry)))
            #expect(checked.findings == [], "mermaid: \(mermaid)")
            if !mermaid {
                for (state, id) in ids { #expect(checked.mapping.contains("\(id)=\(state)"), "\(checked.mapping)") }
            } else {
                // Mermaid's ids are n0, n1, …: the renamed nodes still get their states.
                for (state, _) in ids { #expect(checked.mapping.contains { $0.hasSuffix("=\(state)") }) }
            }
        }
    }

    /// Every state of the retry table renamed (`状態0` …, ids `s0` …): the structure alone finds each.
    @Test func theRetryTableWithEveryStateRenamedIsFoundByItsStructure() async throws {
        var dot = DOTChart.render(RetryTable.retry, style: .flowchart)
        let renamed = RetryTable.retry.states.filter { state in dot.contains("label=\"\(state.rawValue)\"") }
        for (index, state) in renamed.enumerated() {
            dot = dot.replacingOccurrences(of: "label=\"\(state.rawValue)\"", with: "label=\"状態\(index)\"")
                .replacingOccurrences(of: "\"\(state.rawValue)\"", with: "\"s\(index)\"")
        }
        #expect(renamed.count == 11)
        // The search is a second of a debug build's CPU: on a thread of its own, not the tests' shared pool.
        let drawing = try Graphviz.drawing(of: dot)
        let outcome = try await runOnOwnThread { () throws(ChartMapError) in
            try ChartCheck.check(drawing, with: RetryTable.retry, map: nil)
        }
        let checked = try #require(Self.checked(outcome))
        #expect(checked.findings == [])
        #expect(checked.mapping == renamed.enumerated().map { "s\($0.offset)=\($0.element.rawValue)" })
    }

    @Test func ourOwnMermaidChartsCheckCleanInBothStyles() throws {
        func clean<V>(_ table: TransitionTable<V>) throws {
            for style in ChartStyle.allCases {
                let text = MermaidChart.render(table, style: style)
                let outcome = try ChartCheck.check(try MermaidDrawing.drawing(of: text), with: table, map: nil)
                #expect(Self.checked(outcome)?.findings == [], "\(table.name) \(style): \(outcome)")
            }
        }
        try clean(TransitionTable.objcSnippet)
        try clean(TransitionTable.swiftSnippet)
        try clean(RetryTable.retry)
    }

    // MARK: A wait the code lacks is the one drift

    @Test func aWaitTheCodeLacksIsExactlyTheDrift() throws {
        let objc = try Self.objcDOT.replacingOccurrences(
            of: "  hasRetries -> send [label=\"YES\"];",
            with: "  wait [shape=box, label=\"wait\"];\n  hasRetries -> wait [label=\"YES\"];\n  wait -> send;")
        let objcMermaid = try Self.objcMermaid.replacingOccurrences(
            of: "hasRetries -- YES --> send", with: "hasRetries -- YES --> wait[wait] --> send")
        let swift = Self.swiftDOT.replacingOccurrences(
            of: "  sleep -> resume;", with: "  sleep -> wait;\n  wait [label=\"wait 1 s\"];\n  wait -> resume;")
        let swiftMermaid = Self.swiftMermaid.replacingOccurrences(
            of: "sleep --> resume", with: "sleep --> wait[wait 1 s] --> resume")
        let retry = Self.retryDOT.replacingOccurrences(
            of: "\"attempt\" -> \"retry?1\" [id=\"row_14\"",
            with: "\"pause100\" [label=\"wait 100 ms\"];\n  "
                + "\"pause100\" -> \"retry?1\";\n  \"attempt\" -> \"pause100\" [id=\"row_14\"")
        let retryMermaid = Self.retryMermaid.replacingOccurrences(
            of: "n6 -->|\"failed / report health, plan delay\"| n7",
            with: "n6 -->|\"failed / report health, plan delay\"| pause100[wait 100 ms] --> n7")
        #expect(retry != Self.retryDOT && retryMermaid != Self.retryMermaid)
        let cases: [(String, Bool, String, String, String)] = [
            (objc, false, "wait", "retry", "request"), (objcMermaid, true, "wait", "retry", "request"),
            (swift, false, "wait", "usleep on the delegate queue", "request"),
            (swiftMermaid, true, "wait", "usleep on the delegate queue", "request"),
            (retry, false, "pause100", "request", "retry"), (retryMermaid, true, "pause100", "request", "retry"),
        ]
        for (index, (text, mermaid, node, from, to)) in cases.enumerated() {
            let outcome: ChartCheckOutcome =
                switch index / 2 {
                case 0: try Self.check(text, mermaid: mermaid, TransitionTable.objcSnippet)
                case 1: try Self.check(text, mermaid: mermaid, TransitionTable.swiftSnippet)
                default: try Self.check(text, mermaid: mermaid, RetryTable.retry)
                }
            let findings = try #require(Self.checked(outcome)?.findings, "case \(index): \(outcome)")
            #expect(findings.count == 1, "case \(index): \(findings)")
            #expect(
                findings.first?.hasSuffix(
                    "is a step the table does not have: the drawing goes from '\(from)' through it to '\(to)', the "
                        + "table goes straight") == true, "case \(index): \(findings)")
            #expect(findings.first?.contains("node \(node) ") == true, "case \(index): \(findings)")
        }
    }

    // MARK: No plausible correspondence

    @Test func aDrawingOfSomethingElseSaysSoInOneLine() throws {
        let login = """
            flowchart TD
                form[ログイン画面] -- submit --> check{password ok?}
                check -- yes --> home[ホーム]
                check -- no --> tries{three tries?}
                tries -- yes --> locked[locked out]
                tries -- no --> form
                home -- logout --> form
            """
        let dot = """
            digraph traffic { red -> green [label="timer"]; green -> yellow [label="timer"];
              yellow -> red [label="timer"]; red -> walk [label="button"]; walk -> red [label="timer"]; }
            """
        func expectImplausible<V>(_ table: TransitionTable<V>) throws {
            for (text, mermaid) in [(login, true), (dot, false)] {
                let outcome = try Self.check(text, mermaid: mermaid, table)
                guard case .implausible(let correspondence, let disagreements) = outcome else {
                    Issue.record("\(table.name): \(outcome)")
                    continue
                }
                let line = correspondence.implausibleLine(tableName: table.name, disagreements: disagreements)
                #expect(line.hasPrefix("no plausible correspondence between the drawing and \(table.name): "))
                #expect(line.filter { $0 == "\n" }.count == 1 && line.hasSuffix("--map NODE=STATE,…\n"))
            }
        }
        try expectImplausible(TransitionTable.objcSnippet)
        try expectImplausible(TransitionTable.swiftSnippet)
        try expectImplausible(RetryTable.retry)
    }

    // MARK: --map

    @Test func aGivenMapIsUsedAndItsMistakesAreNamed() throws {
        let drawing = try Graphviz.drawing(of: try Self.objcDOT)
        let map = "start=idle,send=request,completion=success"
        let outcome = try ChartCheck.check(drawing, with: TransitionTable.objcSnippet, map: map)
        let mapping: [String: ObjCSnippetState] = ["start": .idle, "send": .request, "completion": .success]
        let expected = ChartCheck.compare(drawing, with: TransitionTable.objcSnippet, mapping: mapping)
        #expect(outcome == .checked(expected, correspondence: nil))
        #expect(Self.checked(outcome)?.findings == [])
        // A wrong map is checked as given: the request is drawn where the table has success.
        let swapped = try ChartCheck.check(
            drawing, with: TransitionTable.objcSnippet, map: "start=idle,send=success,completion=request")
        #expect((Self.checked(swapped)?.findings.count ?? 0) > 0)
        #expect(
            throws: ChartMapError(
                message: "--map: the drawing has no node \"nowhere\" (its nodes: start, send, "
                    + "isError, hasRetries, completion, failure)")
        ) {
            try ChartCheck.check(drawing, with: TransitionTable.objcSnippet, map: "nowhere=idle")
        }
        #expect(
            throws: ChartMapError(
                message: "--map: \"sleeping\" is not a state of the table (its states: idle, "
                    + "request, retry, success, failure)")
        ) {
            try ChartCheck.check(drawing, with: TransitionTable.objcSnippet, map: "send=sleeping")
        }
        #expect(throws: ChartMapError(message: "--map: \"send\" is not NODE=STATE")) {
            try ChartCheck.check(drawing, with: TransitionTable.objcSnippet, map: "send")
        }
    }

    // MARK: Mermaid

    @Test func mermaidIsReadWithLinesShapesAndLabels() throws {
        let text = """
            ---
            title: x
            ---
            flowchart LR
              %% a comment
              a([start here]) -- go on --> b{ok?}; b -->|yes| c & d
              c -.-> a
              subgraph s
              d --- a
              end
            """
        let drawing = try MermaidDrawing.drawing(of: text)
        #expect(
            drawing.nodes.map { "\($0.id):\($0.label):\($0.shape):\($0.line ?? 0)" } == [
                "a:start here:oval:6", "b:ok?:diamond:6", "c:c::6", "d:d::6",
            ])
        #expect(
            drawing.edges.map { "\($0.from)>\($0.to):\($0.label):\($0.line ?? 0)" } == [
                "a>b:go on:6", "b>c:yes:6", "b>d:yes:6", "c>a::7", "d>a::9",
            ])
        #expect(drawing.warnings.count == 2)
        let state = try MermaidDrawing.drawing(
            of: "stateDiagram-v2\n  state \"in flight\" as request\n  [*] --> idle\n  idle --> request : start\n"
                + "  state decide <<choice>>\n  request --> decide\n  decide --> [*]\n  idle : not started")
        #expect(
            state.nodes.map { "\($0.id):\($0.label):\($0.shape)" } == [
                "request:in flight:", "idle:not started:", "decide:decide:diamond",
            ])
        #expect(state.edges.map { "\($0.from)>\($0.to):\($0.label)" } == ["idle>request:start", "request>decide:"])
        #expect(
            MermaidDrawing.firstBlock(inMarkdown: "# t\n\n```mermaid\nflowchart TD\n a --> b\n```\n")?.contains(
                "a --> b") == true)
        for bad in ["sequenceDiagram\n A->>B: hi", "flowchart TD\n a[unclosed --> b", "flowchart TD\n a --> ", ""] {
            #expect(throws: MermaidDrawing.Unreadable.self, "\(bad)") { try MermaidDrawing.drawing(of: bad) }
        }
    }
}
