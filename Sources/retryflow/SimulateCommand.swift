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
            TraceFiles.reportSpec, OptionSpec("--replay"), OptionSpec("--max-attempts"),
            OptionSpec("-h", "--help", value: false),
        ] + FleetOptions.specs

    static let help = """
        usage: retryflow simulate --outcomes LIST [policy options] [--seed N] [--trace FILE.json] [--trace-chart FILE.svg]
                                [--report FILE.html]
               retryflow simulate --replay FILE.json [--policy FILE.json] [--max-attempts N] [--when-open ACTION]

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
          --replay FILE.json     replay a counterexample `retryflow verify` wrote on the real retry machine,
                                 input for input, under the policy verify explored (the same --policy,
                                 --max-attempts and --when-open); exit 0 when it takes every step the file
                                 shows, 1 when it departs, 2 when a step's input cannot be read (the step
                                 is named)
        """ + "\n" + TraceFiles.reportHelp(column: 25) + "\n" + PolicyOptions.help + "\n" + FleetOptions.help

    /// `--replay FILE.json`: a counterexample of `verify`, replayed on the retry machine.
    static func replay(_ path: String, _ args: CommandLineArguments) throws -> Int32 {
        if let other = ["--outcomes", "--clients", "--trace", "--trace-chart", "--report"].first(where: args.has) {
            throw UsageError("--replay replays a file; it does not take \(other)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--replay \(path): cannot read the file")
        }
        let trace: RetryTrace
        do { trace = try TraceJSON.decode(data) } catch {
            throw UsageError(
                "--replay \(path): not a RetryFlow trace of the retry machine (\(PolicyOptions.describe(error)))")
        }
        let (policy, world) = try ExplorationOptions.retry(args)
        do {
            let steps = try ExploredRunReplay.replay(trace, policy: policy, waitsOutBreak: world.waitsOutBreak)
            Console.output(
                Timeline.render(RetryTrace(steps: steps), reason: nil)
                    + "the retry machine took all \(steps.count) steps of \(path)\n")
            return 0
        } catch  where error.isBadInput {
            throw UsageError("--replay \(path): \(error)")
        } catch {
            Console.error("retryflow: the replay of \(path) departs at \(error)\n")
            return 1
        }
    }

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "simulate", help: help)
        else { return 0 }
        if args.has("--clients") { return try await FleetOptions.run(args) }
        if let path = args.value("--replay") { return try replay(path, args) }
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
