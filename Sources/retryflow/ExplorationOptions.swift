import Foundation
import RetryFlow
import RetryFlowCharts

/// What `verify` and `render --policy` explore the retry machine under: a policy (from
/// `--policy FILE.json`, `--max-attempts`) and the world around it (a budget, a breaker, servers
/// sending Retry-After). Both read the same flags, so a chart of a policy is the coverage `verify`
/// prints for it.
enum ExplorationOptions {
    static let specs = [
        OptionSpec("--policy"), OptionSpec("--max-attempts"), OptionSpec("--budget"), OptionSpec("--breaker"),
        OptionSpec("--when-open"), OptionSpec("--http", value: false), OptionSpec("--no-cancel", value: false),
    ]

    static let help = """
          --policy FILE.json  the retry policy explored (a RetryPolicy in its JSON form; default: the default policy)
          --max-attempts N    the bound: the policy's maxAttempts for retry, the attempts of transfer, the inputs
                              of budget and breaker, the retries of the snippets
          --budget MODE       a shared retry budget can refuse retries (any MODE of simulate --budget: aws, grpc …)
          --breaker MODE      a circuit breaker can refuse attempts (polly, consecutive:N)
          --when-open ACTION  what a refused attempt does: wait (wait out the break, default) or fail
          --http              the HTTP rules decide: servers send Retry-After (within the policy's cap and
                              beyond), and an answer can be final (a 503 to a request not safe to repeat)
          --no-cancel         the caller never cancels (the chart of the policy alone)
        """

    /// Whether any of the retry machine's exploration flags was given.
    static func given(_ args: CommandLineArguments) -> Bool {
        ["--policy", "--budget", "--breaker", "--when-open", "--http", "--no-cancel"].contains(where: args.has)
    }

    /// The policy and world the flags describe (the bound overrides the policy's maxAttempts).
    static func retry(_ args: CommandLineArguments) throws(UsageError) -> (RetryPolicy, RetryWorld) {
        var policy = try PolicyOptions.policyFile(args)?.policy ?? .default
        if let attempts = try args.integer("--max-attempts", in: 1...50) { policy.maxAttempts = attempts }
        do { try policy.validate() } catch { throw UsageError("--policy: \(error)") }
        let http = args.has("--http")
        var world = RetryWorld(retryAfter: http, finalAnswers: http, cancellation: !args.has("--no-cancel"))
        if let text = args.value("--budget") { world.budget = try FleetOptions.budget(text) != nil }
        if let text = args.value("--breaker") { world.breaker = try FleetOptions.breaker(text, .seconds(5)) != nil }
        if let text = try args.choice("--when-open", ["wait", "fail"]) { world.waitsOutBreak = text == "wait" }
        return (policy, world)
    }

    /// The bound for the machines without a policy, when given.
    static func bound(_ args: CommandLineArguments, default value: Int) throws(UsageError) -> Int {
        try args.integer("--max-attempts", in: 1...50) ?? value
    }

    /// Refuses the retry machine's flags for another machine.
    static func refuseRetryFlags(_ args: CommandLineArguments, machine: String) throws(UsageError) {
        for option in ["--policy", "--breaker", "--when-open", "--http", "--no-cancel"] where args.has(option) {
            throw UsageError("\(option) is about the retry machine; --machine \(machine) does not take it")
        }
        if machine != "budget", args.has("--budget") {
            throw UsageError("--budget is about the retry or budget machine; --machine \(machine) does not take it")
        }
    }
}
