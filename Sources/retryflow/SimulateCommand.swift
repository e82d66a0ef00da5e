import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import RetryFlowTestSupport

/// `retryflow simulate`: the real machine on a virtual clock against scripted outcomes.
enum SimulateCommand {
    static let specs =
        PolicyOptions.specs + [
            OptionSpec("--outcomes"), OptionSpec("--seed"), OptionSpec("-X", "--request"),
            OptionSpec("-H", "--header", repeatable: true), OptionSpec("--trace"), OptionSpec("--trace-chart"),
            TraceFiles.reportSpec, OptionSpec("-h", "--help", value: false),
        ] + FleetOptions.specs

    static let help = """
        usage: retryflow simulate --outcomes LIST [policy options] [--seed N] [--trace FILE.json] [--trace-chart FILE.svg]
                                [--report FILE.html]

        Runs the real retry machine, engine and HTTP rules on a virtual clock against scripted
        outcomes and prints the timeline at once: what does this policy do when...

          --outcomes LIST        what each attempt gets, comma-separated; the last repeats:
                                 a status (200, 503:retry-after=2), reset, close, truncated, timeout,
                                 refused, dns, or hang (needs --timeout or --deadline);
                                 add :after=SECONDS for an attempt that takes time; a status may add
                                 :x-ratelimit-reset=S, :ratelimit-reset=S, :ratelimit=FIELD
          --seed N               seed for jitter, so runs replay exactly (default 1)
          -X, --request METHOD   the method (POST shows the idempotency rule)
          -H, --header 'N: v'    a request header (e.g. 'Idempotency-Key: 42')
          --trace FILE.json      write the run's trace
          --trace-chart FILE.svg write the flowchart with the run drawn over it
        """ + "\n" + TraceFiles.reportHelp(column: 25) + "\n" + PolicyOptions.help + "\n" + FleetOptions.help

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "simulate", help: help)
        else { return 0 }
        if args.has("--clients") { return try await FleetOptions.run(args) }
        guard let list = args.value("--outcomes") else {
            throw UsageError("simulate needs --outcomes, e.g. --outcomes reset,503,200")
        }
        let outcomes: [ScriptedOutcome]
        do { outcomes = try ScriptedOutcome.parseList(list) } catch { throw Self.usageError(error) }
        let (policy, rules, hedging) = try PolicyOptions.make(from: args)
        let seed: UInt64
        if let text = args.value("--seed") {
            guard let value = UInt64(text) else {
                throw UsageError("--seed needs a whole number from 0, got \"\(text)\"")
            }
            seed = value
        } else {
            seed = 1
        }
        let request = try FetchCommand.makeRequest(url: Simulation.url.absoluteString, args: args)
        for option in ["--trace", "--trace-chart"] {
            if let path = args.value(option) { try AtomicFile.checkWritable(path, option: option) }
        }
        let chartFormat = try args.value("--trace-chart").map { path throws(UsageError) in
            try TraceFiles.chartFormat(for: path, option: "--trace-chart")
        }
        try TraceFiles.checkReport(args)
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers[name] = value }

        var options = HTTPRetryOptions(policy, rules: rules)
        options.hedging = hedging // a --policy file's "hedging" (PolicyFile)
        let outcome: RetryOutcome<HTTPResponse>
        do {
            outcome = try await Simulation.run(
                outcomes: outcomes, retry: options, method: request.httpMethod ?? "GET", headers: headers, seed: seed)
        } catch let error as ScriptedOutcomeError {
            throw Self.usageError(error)
        }
        Console.output(Timeline.render(outcome.trace, of: options.policy.table, reason: outcome.reason))
        if let path = args.value("--trace") { try TraceFiles.writeTrace(outcome.trace, to: path) }
        if let path = args.value("--trace-chart"), let chartFormat {
            try TraceFiles.writeChart(outcome.trace, to: path, format: chartFormat)
        }
        try TraceFiles.writeReport(
            outcome.trace, title: "simulated \(request.httpMethod ?? "GET"): \(list)", reason: outcome.reason,
            policy: policy,
            args: args)
        return 0
    }

    /// The library's words, with the flags a person types.
    static func usageError(_ error: ScriptedOutcomeError) -> UsageError {
        switch error.kind {
        case .empty: UsageError("--outcomes is empty")
        case .hangWithoutTimer: UsageError("a \"hang\" outcome needs --timeout or --deadline: nothing else ends it")
        case .badItem: UsageError("--outcomes: \(error.description)")
        }
    }
}
