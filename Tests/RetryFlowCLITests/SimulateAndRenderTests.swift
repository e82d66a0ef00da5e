import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct SimulateAndRenderTests {
    @Test func simulatePrintsTheTimeline() async throws {
        let result = try await Tool.run([
            "simulate", "--outcomes", "reset,503,503:retry-after=2,200", "--attempts", "4", "--jitter", "none",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                  time    attempt  event            move                delay / detail
                  0 s     -        start            idle → limiter
                  0 s     -        token granted    limiter → breaker
                  0 s     1        admitted         breaker → request
                  0 s     1        failed           request → retry     URLError -1005 networkConnectionLost
                  0 s     1        [else]           retry → budget
                  0 s     1        budget answered  budget → admission
                  0 s     1        [else]           admission → wait    wait 500 ms
                  500 ms  1        delay elapsed    wait → limiter
                  500 ms  1        token granted    limiter → breaker
                  500 ms  2        admitted         breaker → request
                  500 ms  2        failed           request → retry     HTTP 503 Service Unavailable
                  500 ms  2        [else]           retry → budget
                  500 ms  2        budget answered  budget → admission
                  500 ms  2        [else]           admission → wait    wait 1 s
                  1.5 s   2        delay elapsed    wait → limiter
                  1.5 s   2        token granted    limiter → breaker
                  1.5 s   3        admitted         breaker → request
                  1.5 s   3        failed           request → retry     HTTP 503 Service Unavailable; Retry-After 2 asks for 2 s
                  1.5 s   3        [else]           retry → budget
                  1.5 s   3        budget answered  budget → admission
                  1.5 s   3        [else]           admission → wait    wait 2 s
                  3.5 s   3        delay elapsed    wait → limiter
                  3.5 s   3        token granted    limiter → breaker
                  3.5 s   4        admitted         breaker → request
                  3.5 s   4        succeeded        request → success
                  total 3.5 s, final state: success (succeeded)

                """)
    }

    @Test func simulateShowsTheIdempotencyRuleAndTheDeadline() async throws {
        let post = try await Tool.run(["simulate", "--outcomes", "503", "-X", "POST"])
        #expect(post.stdout.hasSuffix("  total 0 s, final state: answered (final answer)\n"))
        #expect(post.stdout.contains("[final answer]  retry → answered"))
        let deadline = try await Tool.run(
            [
                "simulate", "--outcomes", "hang", "--timeout", "2", "--deadline", "5", "--backoff", "constant",
                "--delay", "0", "--attempts", "5",
            ])
        #expect(
            deadline.stdout.contains(
                "5 s   3        deadline exceeded    request → failure    deadline of 5 s exceeded"))
        #expect(deadline.stdout.hasSuffix("  total 5 s, final state: failure (deadline exceeded)\n"))
    }

    @Test func renderDrawsTheBudgetAndTheBreaker() async throws {
        let budget = try await Tool.run(["render", "--machine", "budget", "--style", "state"])
        #expect(budget.stdout == DOTChart.render(BudgetTable.budget, style: .state))
        let breaker = try await Tool.run(["render", "--machine", "breaker", "--format", "mermaid"])
        #expect(breaker.stdout == MermaidChart.render(BreakerTable.breaker, style: .flowchart))
    }

    /// Graphviz is opened on first render, not linked: without it a fetch still runs, and a render
    /// fails naming the library and the fix (not "unknown format", not a crash).
    @Test func withoutGraphvizTheToolStillFetchesAndARenderSaysWhatIsMissing() async throws {
        let missing = ["RETRYFLOW_GRAPHVIZ_LIBRARY": "/nonexistent/libgvc.so.6"]
        let svg = try await Tool.run(["render", "--machine", "retry", "--format", "svg"], environment: missing)
        #expect(svg.status == 1)
        #expect(svg.stdout.isEmpty)
        #expect(svg.stderr.contains("Graphviz unavailable: could not load Graphviz: /nonexistent/libgvc.so.6"))
        #expect(svg.stderr.contains("install Graphviz"))
        let dot = try await Tool.run(["render", "--machine", "retry"], environment: missing)
        #expect(dot.status == 0)
        #expect(dot.stdout == DOTChart.render(RetryTable.retry, style: .flowchart))
        let server = try FlakyServer(scripts: ["/one": [.status(200, body: "fetched")]])
        defer { server.stop() }
        let fetch = try await Tool.run(["fetch", server.url("/one").absoluteString], environment: missing)
        #expect(fetch.status == 0)
        #expect(fetch.stdout == "fetched")
        // And with the library where it is, the same render draws: found by the loader, or named.
        let drawn = try await Tool.run(["render", "--machine", "retry", "--format", "svg"])
        #expect(drawn.status == 0)
        #expect(drawn.stdout.hasPrefix("<?xml"))
        #if os(Linux)
            let named = try await Tool.run(
                ["render", "--machine", "retry", "--format", "svg"],
                environment: ["RETRYFLOW_GRAPHVIZ_LIBRARY": "libgvc.so.6"])
            #expect(named.status == 0, "\(named.stderr)")
            #expect(named.stdout == drawn.stdout)
        #endif
    }

    @Test func simulateAFleetPrintsItsTableAndWritesAChart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let chart = folder.appendingPathComponent("load.svg").path
        let result = try await Tool.run(
            ["simulate", "--clients", "10", "--duration", "6", "--outage", "2-4", "--budget", "grpc", "--chart", chart])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.contains("second  offered  retries") == true)
        #expect(lines.count == 1 + 6 + 2)
        #expect(result.stdout.contains("60 first attempts"))
        #expect(
            FileManager.default.contents(atPath: chart).map { String(decoding: $0, as: UTF8.self).hasPrefix("<svg") }
                == true)
    }

    @Test func simulateReplaysJitterBySeed() async throws {
        let first = try await Tool.run(["simulate", "--outcomes", "503,503,200", "--seed", "7"])
        let again = try await Tool.run(["simulate", "--outcomes", "503,503,200", "--seed", "7"])
        let other = try await Tool.run(["simulate", "--outcomes", "503,503,200", "--seed", "8"])
        #expect(first.stdout == again.stdout)
        #expect(first.stdout != other.stdout)
    }

    @Test func renderWritesTheTablesCharts() async throws {
        let dot = try await Tool.run(["render", "--style", "state"])
        #expect(dot.status == 0)
        #expect(dot.stdout == DOTChart.render(RetryTable.retry, style: .state))
        let dash = try await Tool.run(["render", "--style", "state", "-o", "-"]) // curl's `-o -`: stdout
        #expect(dash.status == 0 && dash.stdout == dot.stdout)
        let mermaid = try await Tool.run(["render", "--format", "mermaid"])
        #expect(mermaid.stdout == MermaidChart.render(RetryTable.retry, style: .flowchart))
        let svg = try await Tool.run(["render", "--format", "svg"])
        #expect(svg.stdout.contains("<svg"))
    }

    /// The teaching tables come from their own target, and the tool draws them like the shipped one:
    /// the same bytes as the committed chart.
    @Test func renderDrawsTheOriginalSnippets() async throws {
        let diagrams = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("diagrams")
        for name in ["swift-snippet", "objc-snippet"] {
            let drawn = try await Tool.run(["render", "--table", name, "--format", "dot"])
            #expect(drawn.status == 0)
            let committed = try String(
                contentsOf: diagrams.appendingPathComponent("\(name)-flowchart.dot"), encoding: .utf8)
            #expect(drawn.stdout == committed, "\(name)")
        }
        // Each table takes only its own traces (--machine and --table are one option).
        let refused = try await Tool.run(["render", "--table", "swift-snippet", "--trace", "/etc/hostname"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("not a RetryFlow trace of the swift-snippet machine"))
    }

    @Test func renderDrawsATraceFromSimulate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("run.json").path
        _ = try await Tool.run(["simulate", "--outcomes", "reset,200", "--trace", trace])
        let drawn = try await Tool.run(["render", "--trace", trace])
        #expect(drawn.status == 0)
        #expect(drawn.stdout.contains("failed / report health, plan delay ×1"))
        #expect(drawn.stdout.contains("attempts: 2"))
        let png = folder.appendingPathComponent("run.png").path
        let written = try await Tool.run(["render", "--trace", trace, "-o", png])
        #expect(written.status == 0)
        #expect(FileManager.default.contents(atPath: png)?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
    }

    @Test func demoRunsEveryScenarioAndWritesItsFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await Tool.run(["demo", "-o", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        let files = result.stdout.split(separator: "\n").map(String.init)
        #expect(files.count == 18, "a trace, a chart and a report per scenario, 3 files per chart style")
        for file in files { #expect(FileManager.default.fileExists(atPath: file), "\(file)") }
        for scenario in ["flaky-then-ok", "retry-after", "post-not-retried", "deadline"] {
            #expect(result.stderr.contains("\(scenario):"))
            let report = folder.appendingPathComponent("\(scenario).html").path
            #expect(files.contains(report))
            #expect((try? String(contentsOfFile: report, encoding: .utf8))?.contains("<h1>\(scenario): ") == true)
        }
        #expect(!result.stderr.contains("unexpected"))
    }

    /// A run the exploration reports is a concrete run: `simulate --replay` takes it on the real
    /// machine, input for input (issue 38), and says at which step a changed file departs.
    @Test func aRunTheExplorationReportsReplaysOnTheRealMachine() async throws {
        var policy = RetryPolicy.default
        policy.maxAttempts = 4
        let world = RetryWorld(budget: true, breaker: true, retryAfter: true, finalAnswers: true)
        let explored = RetryExploration.explore(policy: policy, world: world)
        // The longest of the shortest runs to each row that has a failed attempt in it.
        let witness = try #require(
            explored.witnesses.values.filter { $0.steps.contains { $0.event == .failed } }
                .max { $0.steps.count < $1.steps.count })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("run.json")
        try TraceJSON.encode(witness).write(to: file)

        let replayed = try await Tool.run(["simulate", "--replay", file.path, "--max-attempts", "4"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout.hasSuffix("the retry machine took all \(witness.steps.count) steps of \(file.path)\n"))

        // The same file under another policy departs, naming the step.
        let other = try await Tool.run(["simulate", "--replay", file.path, "--max-attempts", "1"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("departs at step "), "\(other.stderr)")

        // A verdict the explorer never writes is bad input, named.
        var changed = witness
        let index = try #require(changed.steps.firstIndex { $0.event == .failed })
        changed.steps[index].detail = "sometimes"
        try TraceJSON.encode(changed).write(to: file)
        let bad = try await Tool.run(["simulate", "--replay", file.path, "--max-attempts", "4"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("step \(index + 1): 'failed' needs a verdict"), "\(bad.stderr)")

        let missing = try await Tool.run(["simulate", "--replay", folder.appendingPathComponent("none.json").path])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the file"))
        let mixed = try await Tool.run(["simulate", "--replay", file.path, "--outcomes", "200"])
        #expect(mixed.status == 2 && mixed.stderr.contains("does not take --outcomes"))
    }
}

/// `retryflow teach`: the figure asked for, as CSV and SVG, in the folder asked for (made if missing).
@Suite struct TeachCommandTests {
    @Test func teachWritesTheFigureItWasAskedFor() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("teach-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // One run a point: the cheapest figure in a debug build.
        let result = try await Tool.run(["teach", "contention", "--runs", "1", "--output", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        let names = ["contention.csv", "contention-calls.svg", "contention-time.svg", "contention-writes.svg"]
        #expect(result.stdout == names.map { "wrote \(folder.path)/\($0)\n" }.joined())
        let csv = try String(contentsOf: folder.appendingPathComponent("contention.csv"), encoding: .utf8)
        #expect(csv.hasPrefix("clients,time,calls,algorithm\n10,"))
        #expect(csv.split(separator: "\n").count == 1 + 19 * 5)
        let svg = try String(contentsOf: folder.appendingPathComponent("contention-calls.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("decorrelated") && svg.contains("mean of 1 runs"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("load.csv").path))
    }
}
