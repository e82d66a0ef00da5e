import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowFigures
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowSnippets
import RetryFlowTesting

/// The charts committed in `diagrams/`, generated from the shipped table. The drift test compares
/// them with the files; `make diagrams` (RETRYFLOW_REGENERATE_DIAGRAMS=1) writes them.
enum ShippedDiagrams {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("diagrams")

    static let regenerateCommand = "make diagrams"

    /// The example run drawn over the chart: fail, fail, succeed, on the manual clock.
    static func exampleTrace() async throws -> RetryTrace {
        let clock = ManualClock()
        let policy = RetryPolicy(
            maxAttempts: 3, backoff: .exponential(base: .milliseconds(500), multiplier: 2), jitter: .none)
        let outcome = try await clock.runAdvancing {
            try await Retry(policy, clock: clock).outcome { attempt -> String in
                if attempt.number < 3 { throw ExampleError(attempt: attempt.number) }
                return "200 OK"
            }
        }
        return outcome.trace
    }

    /// The breaker's example: three failures trip it, a call is refused, the first probe fails and
    /// reopens it, the next probe closes it (consecutive-failures mode, 5 s break, manual clock).
    static func breakerExampleTrace() throws -> BreakerTrace {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(
            .init(trip: .consecutiveFailures(3), breakDuration: .seconds(5)), clock: clock, tracing: true)
        func call(_ result: CircuitResult) {
            if case .admitted(let ticket) = breaker.ask() { breaker.record(ticket, result) }
        }
        for _ in 1...3 {
            call(.failure)
            clock.advance(by: .milliseconds(100))
        }
        call(.success) // refused: open
        clock.advance(by: .seconds(5))
        call(.failure) // the probe fails: open again
        clock.advance(by: .seconds(5))
        call(.success) // the probe succeeds: closed
        return breaker.trace!
    }

    /// The fleet scenario of docs/fleet.md (`retryflow simulate --clients 50 --duration 20 --outage 5-12`),
    /// under each protection, as load charts.
    static func fleetCharts() async throws -> [(name: String, text: String)] {
        let base = FleetScenario(
            clients: 50, duration: .seconds(20), outage: Duration.seconds(5)..<Duration.seconds(12),
            policy: RetryPolicy(maxAttempts: 4))
        let breaker = CircuitBreakerOptions(trip: .consecutiveFailures(20), breakDuration: .seconds(2))
        var charts: [(name: String, text: String)] = []
        for (name, title, budget, breaker) in [
            ("fleet-none.svg", "50 clients · no protection", nil, nil),
            ("fleet-budget-grpc.svg", "50 clients · budget: grpc", RetryBudgetMode.grpc(), nil),
            ("fleet-breaker.svg", "50 clients · breaker: consecutive:20, 2 s break", nil, breaker),
        ] as [(String, String, RetryBudgetMode?, CircuitBreakerOptions?)] {
            var scenario = base
            scenario.budget = budget
            scenario.breaker = breaker
            charts.append((name, FleetChart.svg(try await FleetSimulation.run(scenario), title: title)))
        }
        return charts
    }

    /// The rate scenario of docs/fleet.md (`retryflow simulate --clients 32 --server-rate 100
    /// [--adaptive]`), as load charts.
    static func adaptiveCharts() throws -> [(name: String, text: String)] {
        try [false, true].map { adaptive in
            let report = try AdaptiveSimulation.run(.init(clients: 32, serverRate: 100, adaptive: adaptive))
            return (adaptive ? "fleet-adaptive.svg" : "fleet-rate-none.svg", AdaptiveSimulation.chart(report))
        }
    }

    struct ExampleError: Error, CustomStringConvertible {
        let attempt: Int
        var description: String { "connection reset (scripted, attempt \(attempt))" }
    }

    /// The shipped retry table with `CredentialRefresh`'s rows, as `install(in:)` makes it.
    static var credentialTable: RetryTable { CredentialRefresh<String>.table(adding: .retry) }

    /// Every text file of `diagrams/`, by name.
    static func textFiles() async throws -> [(name: String, text: String)] {
        let trace = try await exampleTrace()
        let traceJSON =
            String(decoding: try TraceJSON.encode(trace, formatting: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
            + "\n"
        let breakerTrace = try breakerExampleTrace()
        let breakerJSON =
            String(
                decoding: try TraceJSON.encode(breakerTrace, formatting: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
            + "\n"
        // Seconds of a debug build's CPU in one go: on a thread of its own, never on the two threads
        // every other test's timers need (docs/reliability.md, "The loaded machine").
        let shipped = await runOnOwnThread {
            Self.charts(trace: trace, traceJSON: traceJSON, breakerTrace: breakerTrace, breakerJSON: breakerJSON)
        }
        return shipped + (try await fleetCharts()) + (try await runOnOwnThread { try adaptiveCharts() })
    }

    /// The charts and tables of every shipped table, and the example runs drawn over theirs.
    static func charts(
        trace: RetryTrace, traceJSON: String,
        breakerTrace: BreakerTrace, breakerJSON: String
    ) -> [(name: String, text: String)] {
        let table = RetryTable.retry
        let overlay = TraceOverlay(trace: trace, table: table)
        let breakerOverlay = TraceOverlay(trace: breakerTrace, table: BreakerTable.breaker)
        return [
            ("retryflow-state.dot", DOTChart.render(table, style: .state)),
            ("retryflow-flowchart.dot", DOTChart.render(table, style: .flowchart)),
            ("retryflow-state.mmd", MermaidChart.render(table, style: .state)),
            ("retryflow-flowchart.mmd", MermaidChart.render(table, style: .flowchart)),
            ("retryflow-table.md", MarkdownTable.render(table)),
            // The default policy's own chart (`retryflow render --policy … --no-cancel`): the teaching loop.
            (
                "retryflow-default-policy.dot",
                DOTChart.render(policy: .default, world: RetryWorld(cancellation: false), style: .flowchart)
            ),
            ("example-fail-fail-succeed.trace.json", traceJSON),
            ("example-fail-fail-succeed.dot", DOTChart.render(table, style: .flowchart, overlay: overlay)),
            ("swift-snippet-flowchart.dot", DOTChart.render(TransitionTable.swiftSnippet, style: .flowchart)),
            ("objc-snippet-flowchart.dot", DOTChart.render(TransitionTable.objcSnippet, style: .flowchart)),
            ("budget-state.dot", DOTChart.render(BudgetTable.budget, style: .state)),
            ("budget-state.mmd", MermaidChart.render(BudgetTable.budget, style: .state)),
            ("budget-table.md", MarkdownTable.render(BudgetTable.budget)),
            ("breaker-state.dot", DOTChart.render(BreakerTable.breaker, style: .state)),
            ("breaker-state.mmd", MermaidChart.render(BreakerTable.breaker, style: .state)),
            ("breaker-table.md", MarkdownTable.render(BreakerTable.breaker)),
            ("example-breaker-trip.trace.json", breakerJSON),
            ("example-breaker-trip.dot", DOTChart.render(BreakerTable.breaker, style: .state, overlay: breakerOverlay)),
            ("transfer-state.dot", DOTChart.render(TransferTable.transfer, style: .state)),
            ("transfer-table.md", MarkdownTable.render(TransferTable.transfer)),
            ("adaptive-state.dot", DOTChart.render(AdaptiveTable.adaptive, style: .state)),
            ("adaptive-state.mmd", MermaidChart.render(AdaptiveTable.adaptive, style: .state)),
            ("adaptive-table.md", MarkdownTable.render(AdaptiveTable.adaptive)),
            ("hedge-state.dot", DOTChart.render(HedgingTable.hedging, style: .state)),
            ("hedge-state.mmd", MermaidChart.render(HedgingTable.hedging, style: .state)),
            ("hedge-table.md", MarkdownTable.render(HedgingTable.hedging)),
            ("credential-state.dot", DOTChart.render(CredentialTable.credentialRefresh, style: .state)),
            ("credential-state.mmd", MermaidChart.render(CredentialTable.credentialRefresh, style: .state)),
            ("credential-table.md", MarkdownTable.render(CredentialTable.credentialRefresh)),
            // The retry table with the credential steps (docs/credentials.md).
            ("retryflow-credential-flowchart.dot", DOTChart.render(credentialTable, style: .flowchart)),
            ("retryflow-credential-table.md", MarkdownTable.render(credentialTable)),
        ]
    }

    /// Images rendered from the DOT files: (image name, DOT file it comes from, format).
    static let images: [(name: String, source: String, format: String)] = [
        ("retryflow-state.svg", "retryflow-state.dot", "svg"),
        ("retryflow-state.png", "retryflow-state.dot", "png"),
        ("retryflow-flowchart.svg", "retryflow-flowchart.dot", "svg"),
        ("retryflow-flowchart.png", "retryflow-flowchart.dot", "png"),
        ("retryflow-default-policy.svg", "retryflow-default-policy.dot", "svg"),
        ("example-fail-fail-succeed.svg", "example-fail-fail-succeed.dot", "svg"),
        ("example-fail-fail-succeed.png", "example-fail-fail-succeed.dot", "png"),
        ("swift-snippet-flowchart.svg", "swift-snippet-flowchart.dot", "svg"),
        ("objc-snippet-flowchart.svg", "objc-snippet-flowchart.dot", "svg"),
        ("budget-state.svg", "budget-state.dot", "svg"),
        ("breaker-state.svg", "breaker-state.dot", "svg"),
        ("example-breaker-trip.svg", "example-breaker-trip.dot", "svg"),
        ("transfer-state.svg", "transfer-state.dot", "svg"),
        ("adaptive-state.svg", "adaptive-state.dot", "svg"),
        ("hedge-state.svg", "hedge-state.dot", "svg"),
        ("credential-state.svg", "credential-state.dot", "svg"),
        ("retryflow-credential-flowchart.svg", "retryflow-credential-flowchart.dot", "svg"),
    ]

    /// Writes every file (used by `make diagrams`).
    static func writeAll() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let texts = try await textFiles()
        for (name, text) in texts {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name), options: .atomic)
        }
        for image in images {
            let dot = texts.first { $0.name == image.source }!.text
            try Graphviz.render(dot: dot, format: image.format).write(
                to: directory.appendingPathComponent(image.name), options: .atomic)
        }
    }
}
