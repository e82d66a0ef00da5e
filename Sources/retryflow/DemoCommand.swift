import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `retryflow demo`: the main job, needing nothing but the package: live retries against an
/// in-process FlakyServer, each run's trace and chart, and the machine's own charts.
enum DemoCommand {
    static let specs = [OptionSpec("-o", "--output"), OptionSpec("-h", "--help", value: false)]

    static let help = """
        usage: retryflow demo [-o DIR]

        Starts a scripted flaky server on 127.0.0.1, runs a handful of representative requests live
        (flaky then OK; Retry-After; POST not retried; gives up at the deadline), and writes each
        run's trace, trace chart and report (a web page stepping through the run: open NAME.html)
        plus the machine's charts to DIR (default ./retryflow-demo).
        """

    struct Scenario {
        let name: String
        let title: String
        let path: String
        let script: [FlakyServer.Step]
        let method: String
        let policy: RetryPolicy
        let expected: RetryState
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "flaky-then-ok", title: "a reset and a 503, then 200", path: "/flaky",
            script: [.reset, .status(503), .status(200, body: "hello from a flaky server\n")], method: "GET",
            policy: RetryPolicy(
                maxAttempts: 4, backoff: .exponential(base: .milliseconds(200), multiplier: 2), jitter: .none),
            expected: .success),
        Scenario(
            name: "retry-after", title: "503 with Retry-After: 1, then 200", path: "/busy",
            script: [.status(503, headers: ["Retry-After": "1"]), .status(200, body: "served after the pause\n")],
            method: "GET",
            policy: RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(100)), jitter: .none),
            expected: .success),
        Scenario(
            name: "post-not-retried", title: "POST answered 503 (not idempotent: not sent again)", path: "/orders",
            script: [.status(503), .status(201)], method: "POST",
            policy: RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(100)), jitter: .none),
            expected: .answered),
        Scenario(
            name: "deadline", title: "a server that hangs, 1 s deadline, 300 ms per attempt", path: "/slow",
            script: [.hang], method: "GET",
            policy: RetryPolicy(
                maxAttempts: 10, backoff: .constant(.milliseconds(100)), jitter: .none, deadline: .seconds(1),
                perAttemptTimeout: .milliseconds(300)),
            expected: .failure),
    ]

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "demo", help: help)
        else { return 0 }
        let folder = URL(fileURLWithPath: args.value("--output") ?? "retryflow-demo")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw UsageError("-o \(folder.path): cannot create the folder (\(error.localizedDescription))")
        }
        guard FileManager.default.isWritableFile(atPath: folder.path) else {
            throw UsageError("-o \(folder.path): not writable")
        }

        var scripts: [String: [FlakyServer.Step]] = [:]
        for scenario in scenarios { scripts[scenario.path] = scenario.script }
        let server = try FlakyServer(scripts: scripts)
        defer { server.stop() }
        Console.error("demo: flaky server on \(server.baseURL.absoluteString)")
        let session = URLSession(configuration: .ephemeral)
        var written: [String] = []
        var allAsExpected = true

        for scenario in scenarios {
            Console.error("\n" + Console.paint("\(scenario.name): \(scenario.title)", .strong))
            var request = URLRequest(url: server.url(scenario.path))
            request.httpMethod = scenario.method
            if scenario.method == "POST" { request.httpBody = Data(#"{"item": 42}"#.utf8) }
            let reporter = ProgressReporter(label: "  ", maxAttempts: scenario.policy.maxAttempts)
            let outcome = try await session.retryOutcome(
                for: request, retry: HTTPRetryOptions(scenario.policy, onTransition: reporter.record))
            let seen = server.requests(to: scenario.path).count
            let result = outcome.value.map { "HTTP \($0.statusCode)" } ?? "no answer"
            let line =
                "  → \(outcome.finalState.label) (\(outcome.reason.rawValue)), \(result), \(seen) request(s) seen by the server, \(outcome.duration.shortDescription)"
            Console.error(
                outcome.finalState == scenario.expected
                    ? Console.paint(line, .good) : Console.paint(line + " — unexpected!", .bad))
            allAsExpected = allAsExpected && outcome.finalState == scenario.expected
            let tracePath = folder.appendingPathComponent("\(scenario.name).trace.json").path
            let chartPath = folder.appendingPathComponent("\(scenario.name).svg").path
            try TraceFiles.writeTrace(outcome.trace, to: tracePath)
            try TraceFiles.writeChart(outcome.trace, to: chartPath, format: "svg")
            let reportPath = folder.appendingPathComponent("\(scenario.name).html").path
            try TraceFiles.writeReport(
                outcome.trace, title: "\(scenario.name): \(scenario.title)", reason: outcome.reason,
                policy: scenario.policy,
                to: reportPath)
            written += [tracePath, chartPath, reportPath]
        }

        for style in ChartStyle.allCases {
            let dot = DOTChart.render(RetryTable.retry, style: style)
            let base = folder.appendingPathComponent("retryflow-\(style.rawValue)")
            try AtomicFile.write(Data(dot.utf8), to: base.path + ".dot")
            try AtomicFile.write(Data(MermaidChart.render(RetryTable.retry, style: style).utf8), to: base.path + ".mmd")
            do {
                try AtomicFile.write(try Graphviz.render(dot: dot, format: "svg"), to: base.path + ".svg")
            } catch let error as GraphvizError {
                throw OperationFailed("cannot render the chart: \(error)")
            }
            written += [base.path + ".dot", base.path + ".mmd", base.path + ".svg"]
        }
        Console.error("\ndemo: wrote \(written.count) files to \(folder.path):")
        for path in written { Console.output(path + "\n") }
        let firstReport = folder.appendingPathComponent("\(scenarios[0].name).html").path
        Console.error("demo: open \(firstReport) (or any .html there) in a browser to step through a run")
        return allAsExpected ? 0 : 1
    }
}
